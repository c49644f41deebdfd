"""Four workers each post twelve small JSON bodies, one after another, through one
shared Session whose adapter gives its connections ``socket_options`` of its own (keep-
alive probes) -- which replace urllib3's default, TCP_NODELAY -- to a kept-alive server.

Truth by construction: urllib3 sends each request's headers, then its body; with
Nagle's algorithm on, the kernel holds the body until the server acknowledges the
headers, and on a reused connection the server delays that ACK (about 40 ms on Linux),
so every call after a connection's first waits that long for its answer, at the
``worker``'s ``session.post`` line (``diag: culprit``).  Expected first finding
``request-body-stall`` there, naming ``worker``.  With ``nodelay=1`` (urllib3's
default options kept, keep-alive probes added: the fix the finding gives) no body
waits: no ``request-body-stall``.
"""

import socket
import sys

import gevent
import requests
import urllib3.connection
from _greenlets import spawn

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS = 4
CALLS = 12
KEEPALIVE = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
options = KEEPALIVE if ARGS.get("nodelay") != "1" else \
    urllib3.connection.HTTPConnection.default_socket_options + KEEPALIVE
session = requests.Session()
geventperf.mount(session, pool_kwargs={"socket_options": options})


def worker():
    for n in range(CALLS):
        assert session.post(ARGS["kept"], json={"n": n}, timeout=30).content == b"ok"  # diag: culprit


gevent.joinall([spawn("worker", worker) for _ in range(WORKERS)], raise_error=True)
