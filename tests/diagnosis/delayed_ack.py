"""Four workers each make twelve calls, one after another, through one shared Session,
to a kept-alive server that writes each response's head and body in two sends with
Nagle's algorithm on (``split=1``).

Truth by construction: a connection's first response comes at once (the kernel
acknowledges a new connection's first segments at once); on every later one the body
waits for this side's delayed ACK of the head, about 40 ms on Linux, in the body read
under the ``worker``'s ``session.get`` line (``diag: culprit``).  Expected first
finding ``delayed-ack-stall`` there, naming ``worker``.  With ``quickack=1``
(``geventperf.mount(session, quickack=True)``, the client-side fix the finding gives)
every ACK goes at once: no ``delayed-ack-stall``.  With ``adapter=1`` the bodies are read
by GeventAdapter (``geventperf.mount(session)``) and still stall: the finding the same.
"""

import sys

import gevent
import requests
from _greenlets import spawn

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS = 4
CALLS = 12
session = requests.Session()
if ARGS.get("quickack") == "1":
    geventperf.mount(session, quickack=True)
elif ARGS.get("adapter") == "1":
    geventperf.mount(session)


def worker():
    for _ in range(CALLS):
        assert session.get(ARGS["kept"], timeout=30).content == b"ok"  # diag: culprit


gevent.joinall([spawn("worker", worker) for _ in range(WORKERS)], raise_error=True)
