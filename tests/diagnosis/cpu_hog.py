"""A greenlet runs 0.2 s of pure-Python CPU without yielding while others have timers due.

Truth by construction: the greenlet named ``report-builder`` burns 0.2 s of its own thread's CPU
time in a Python loop, in one slice, while five ``ticker`` greenlets have 5 ms timers
due and a ``slow-waiter`` waits on a slow server.  Expected first finding ``loop-blocked``
with cause CPU, in ``report-builder``, at a ``diag: culprit`` line (the burn call, the loop inside
it, or the yield where the slice ended).  The ``slow-waiter`` only waits on the network:
innocent.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HOG_CPU_S = 0.2


def burn(seconds):
    """*seconds* of this thread's CPU time (not wall time: a loaded machine only
    stretches the wall time, the CPU work stays the same)."""
    end = time.thread_time() + seconds
    n = 0
    while time.thread_time() < end:  # diag: culprit
        n += 1
    return n


def hog():
    gevent.sleep(0.05)  # let the tickers and the waiter start
    burn(HOG_CPU_S)  # diag: culprit
    gevent.sleep(0)  # diag: culprit


def ticker():
    for _ in range(80):
        gevent.sleep(0.005)


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("report-builder", hog), spawn("slow-waiter", waiter)]
jobs += [spawn("ticker", ticker) for _ in range(5)]
gevent.joinall(jobs, raise_error=True)
