"""The main greenlet makes a blocking call after the loop is running: not start-up.

Truth by construction: the program spawns five ``ticker`` greenlets (5 ms timers),
lets the loop run, and then the main greenlet itself calls the real, unpatched
``time.sleep(0.2)`` (``gevent.monkey.get_original``, standing in for a blocking C
client) while the tickers' timers are due.  This is after start-up (other greenlets
exist and the loop has run), so excluding start-up must not hide it.  Expected first
finding ``blocking-call`` in greenlet ``main``, at the sleep line or at the join where
the slice ended (``diag: culprit``).
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.monkey import get_original

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
real_sleep = get_original("time", "sleep")


def ticker():
    for _ in range(80):
        gevent.sleep(0.005)


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("ticker", ticker) for _ in range(5)]
jobs.append(spawn("slow-waiter", waiter))
gevent.sleep(0.02)  # the loop runs; the tickers are under way
real_sleep(0.2)  # diag: culprit
gevent.joinall(jobs, raise_error=True)  # diag: culprit
