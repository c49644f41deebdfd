"""A gevent WSGI service answering small bodies, loaded by five clients in another
process, each making six requests on one kept-alive connection.

Truth by construction: pywsgi writes each response's head, then its body, and leaves
Nagle's algorithm on, so on each connection's five later requests the body waits for
the client's delayed ACK of the head (40 ms on Linux): 25 responses, about 1 s of the
clients' time, none of it visible as a wait in this process.  Expected finding
``server-nagle``, counting 25 of the 30 responses.  With ``nodelay=1`` (a listening
socket with TCP_NODELAY, the fix the finding gives) no response is held: no
``server-nagle``.
"""

import socket
import subprocess
import sys

import gevent.socket
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])

CLIENTS = """
import sys, threading, requests
def client():
    with requests.Session() as s:
        for _ in range(6):
            assert s.get(sys.argv[1], timeout=30).content == b"ok"
threads = [threading.Thread(target=client) for _ in range(5)]
for t in threads: t.start()
for t in threads: t.join()
"""


def app(environ, start_response):
    start_response("200 OK", [("Content-Length", "2")])
    return [b"ok"]


listener = gevent.socket.socket()
if ARGS.get("nodelay") == "1":
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
server = WSGIServer(listener, app, log=None)
server.start()
subprocess.run([sys.executable, "-c", CLIENTS, f"http://127.0.0.1:{server.server_port}/"],
               check=True, timeout=60)
server.stop()
