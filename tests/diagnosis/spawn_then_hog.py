"""The main greenlet spawns workers, then burns CPU before the loop first runs.

Truth by construction: the program spawns five ``ticker`` greenlets (ready to start:
a spawned greenlet waits for the loop from its spawn on) and then, before its first
yield, the main greenlet burns 0.2 s of CPU (``diag: culprit``).  The loop has not run
yet, but other greenlets exist and are ready: their start is delayed by the whole burn.
This is not start-up in the sense of "before any other greenlet exists": it is the
boundary of that rule.  Expected first finding ``loop-blocked`` (CPU) in greenlet
``main``, at the burn or at the join where the slice ended (``diag: culprit``).
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def ticker():
    for _ in range(60):
        gevent.sleep(0.005)


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("ticker", ticker) for _ in range(5)]
jobs.append(spawn("slow-waiter", waiter))
burn(0.2)  # diag: culprit
gevent.joinall(jobs, raise_error=True)  # diag: culprit
