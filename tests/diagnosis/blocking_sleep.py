"""A greenlet calls the real (unpatched) ``time.sleep`` while others have timers due.

Run with ``geventperf run --no-patch``: nothing is monkey-patched, as in a program that
forgot to patch.  Truth by construction: the greenlet named ``legacy-client`` calls
``time.sleep(0.15)`` twice; each call holds the whole thread (and the loop) without
using the CPU, while five ``ticker`` greenlets have 5 ms timers due and a ``slow-waiter``
greenlet's reply arrives.  Expected first finding ``blocking-call`` (a
non-cooperative wait: run time minus CPU) in ``legacy-client``, at the ``time.sleep`` line or
at the yield right after it where the slice ended (both ``diag: culprit``), naming
``time.sleep``.  The ``slow-waiter`` (gevent's own cooperative socket, so it works unpatched)
only waits on a slow server: innocent.
"""

import sys
import time

import gevent
import gevent.socket
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])


def napper():
    gevent.sleep(0.02)  # let the tickers start
    for _ in range(2):
        time.sleep(0.15)  # diag: culprit
        gevent.sleep(0.01)  # diag: culprit


def ticker():
    for _ in range(80):
        gevent.sleep(0.005)


def waiter():
    sock = gevent.socket.create_connection((ARGS["host"], int(ARGS["port"])), timeout=30)
    with sock:
        sock.sendall(b"GET /slow?delay=0.3 HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            chunk = sock.recv(65536)  # diag: network-wait
            if not chunk:
                return data
            data += chunk



jobs = [spawn("legacy-client", napper), spawn("slow-waiter", waiter)]
jobs += [spawn("ticker", ticker) for _ in range(5)]
gevent.joinall(jobs, raise_error=True)
