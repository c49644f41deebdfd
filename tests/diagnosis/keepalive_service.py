"""A gevent WSGI service whose handler calls a slow upstream through a shared session,
loaded by ten clients in another process on kept-alive connections, each pausing 0.3 s
between its three requests.

Truth by construction: each request waits about 0.1 s for the upstream at the handler's
``session.get`` line (``diag: culprit``): some 3 greenlet-seconds.  Between requests
(and before the first) the server's handlers wait for their client's next request
line: about twice that, and no request was slower for it.  Expected: no finding that
blames a greenlet (``server-nagle`` may count the responses pywsgi held for its
clients: that wait is theirs), and the report's "Where was the waiting?" names the
culprit line, the idle connections apart (``geventperf run`` traces this process
only).
"""

import subprocess
import sys

import requests
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
session = requests.Session()

CLIENTS = """
import sys, threading, time, requests
def client():
    with requests.Session() as s:
        for _ in range(3):
            s.get(sys.argv[1], timeout=30).content
            time.sleep(0.3)
threads = [threading.Thread(target=client) for _ in range(10)]
for t in threads: t.start()
for t in threads: t.join()
"""


def app(environ, start_response):
    body = session.get(ARGS["slow"], timeout=30).content  # diag: culprit
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


server = WSGIServer(("127.0.0.1", 0), app, log=None)
server.start()
subprocess.run([sys.executable, "-c", CLIENTS, f"http://127.0.0.1:{server.server_port}/"],
               check=True, timeout=60)
server.stop()
