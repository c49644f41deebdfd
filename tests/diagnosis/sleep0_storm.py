"""A sleep(0) storm: one greenlet yields with ``gevent.sleep(0)`` 50 000 times in a row.

Truth by construction: the greenlet named ``busy-yielder`` does no work at all between its
yields; every ``gevent.sleep(0)`` is a round trip through the hub, so its whole run time
is switching.  Expected first finding ``switch-storm`` at the ``gevent.sleep(0)`` line
(``diag: culprit``).  Nothing here reads from a socket: the message must tell the
yield-in-a-tight-loop story and its fix (yield less often: every N items, or not at
all), NOT the small-chunk read story (GeventAdapter, large reads).  The ``slow-waiter``
waits on a slow server meanwhile: innocent.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
YIELDS = 50_000


def yielder():
    for _ in range(YIELDS):
        gevent.sleep(0)  # diag: culprit


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("busy-yielder", yielder), spawn("slow-waiter", waiter)]
gevent.joinall(jobs, raise_error=True)
