"""A gevent WSGI service whose connection pool (``spawn=4``) is smaller than the clients
that keep their connections alive: twelve clients in another process, each making four
requests on one kept-alive connection with 0.2 s between them.

Truth by construction: the handler answers at once, yet each of four pooled greenlets
holds its connection for the client's whole session, almost all of it waiting for the
client's next request (``diag: culprit``, pywsgi's own wait).  While the four slots are
taken the server stops accepting, so the other clients wait in the listen backlog: three
rounds of sessions, some 2.4 s, where one round (0.6 s) would do.  This process looks
idle.  Expected first finding ``server-pool-full``.  With ``spawn=64`` every client gets
a slot at once: no such finding.

With ``upstream=URL pause=0`` the handler waits on an upstream call (``diag: upstream``)
and the clients make their requests back to back: the four slots are held by busy
connections, not idle ones, and the others still wait in the backlog for whole
sessions.  Expected first finding ``server-pool-full`` (``busy``), naming the call.
"""

import subprocess
import sys

import requests
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SPAWN = int(ARGS.get("spawn", 4))
session = requests.Session()

CLIENTS = """
import sys, threading, time, requests
def client():
    with requests.Session() as s:
        for _ in range(4):
            s.get(sys.argv[1], timeout=30).content
            time.sleep(float(sys.argv[2]))
threads = [threading.Thread(target=client) for _ in range(12)]
for t in threads: t.start()
for t in threads: t.join()
"""


def app(environ, start_response):
    body = b"ok"
    if "upstream" in ARGS:
        body = session.get(ARGS["upstream"], timeout=30).content  # diag: upstream
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


server = WSGIServer(("127.0.0.1", 0), app, log=None, spawn=SPAWN)  # diag: culprit
server.start()
subprocess.run([sys.executable, "-c", CLIENTS, f"http://127.0.0.1:{server.server_port}/",
                ARGS.get("pause", "0.2")], check=True, timeout=60)
server.stop()
