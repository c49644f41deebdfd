"""A gevent WSGI service whose handler fetches its eight items with eight upstream calls
in turn (the N+1 pattern), loaded by six clients in another process, eight requests each.

Truth by construction: the upstream answers each call after 10 ms, so a response takes
eight round trips, some 80 ms, in the handler's own greenlet at the call line (``diag:
culprit``).  The loop idles; nothing is slow but the sequence.  Expected first finding
``sequential-calls`` at that line.  With ``mode=batch`` the handler makes one call for
the lot (the same 10 ms): no such finding.
"""

import subprocess
import sys

import requests
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ITEMS = 8
session = requests.Session()

CLIENTS = """
import sys, threading, requests
def client():
    with requests.Session() as s:
        for _ in range(8):
            s.get(sys.argv[1], timeout=30).content
threads = [threading.Thread(target=client) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
"""


def app(environ, start_response):
    if ARGS.get("mode") == "batch":
        bodies = [session.get(ARGS["slow"], timeout=30).content]
    else:
        bodies = [session.get(ARGS["slow"], timeout=30).content  # diag: culprit
                  for _ in range(ITEMS)]
    body = b"".join(bodies)
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


server = WSGIServer(("127.0.0.1", 0), app, log=None)
server.start()
subprocess.run([sys.executable, "-c", CLIENTS, f"http://127.0.0.1:{server.server_port}/"],
               check=True, timeout=60)
server.stop()
