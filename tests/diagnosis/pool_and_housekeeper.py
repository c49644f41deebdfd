"""Two independent causes: thirty fetches through a ``Pool(3)`` of a 0.1 s upstream (the
pool's size paces them: about a second), while a ``housekeeper`` greenlet blocks the loop
three times with the unpatched ``time.sleep`` (0.15 s each).

Truth by construction: the fetches wait on the network, three at a time, whatever the
housekeeper does; its sleeps hold every greenlet ready meanwhile.  Expected: a
``blocking-call`` finding in ``housekeeper`` at its sleep (``diag: culprit``), where
``geventperf run``'s stall watch sees it, not at the yield its slices end at (``diag:
yield``), and a ``pool-full`` finding for the pool used at ``diag: pool``: the blocker
is not why the jobs took long, so it does not hide the pool (a cause *in* the jobs
would).
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent import monkey
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
blocking_sleep = monkey.get_original("time", "sleep")
session = requests.Session()


def fetch(_):
    return session.get(ARGS["slow"], timeout=30).content


def housekeeper():
    for _ in range(3):
        gevent.sleep(0.2)  # diag: yield
        blocking_sleep(0.15)  # diag: culprit


keeper = spawn("housekeeper", housekeeper)
Pool(3).map(fetch, range(30))  # diag: pool
keeper.join()
