"""Queue ping-pong: two greenlets hand 5 000 tiny items back and forth over
``gevent.queue.Queue``.

Truth by construction: the ``sender`` greenlet (``ping``) puts an item on the ``echo``
greenlet's queue and waits on its own; ``echo`` (``pong``) does the same back.  There is no work between hand-offs and no I/O: every
``get()`` finds its queue empty and goes through the hub, so the run is all switching.

The right first finding is ``switch-storm`` at a ``get()`` call site in this file
(``diag: culprit``): it is the one pattern here with a cost, the cost is per switch, and
the fix is on the program's side (hand off batches, or call the function directly
instead of a queue round trip per item).  It must NOT tell a read story (small reads,
GeventAdapter): nothing here touches a socket except the ``slow-waiter``, whose slow-server
wait is innocent.  Not ``loop-saturated`` either: the loop is busy, but with hand-offs
the program asked for, not with holders that delay ready greenlets (at most one of the
two is ever ready).
"""

import sys

import gevent
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ROUNDS = 5_000

to_ping = gevent.queue.Queue()
to_pong = gevent.queue.Queue()


def ping():
    for i in range(ROUNDS):
        to_pong.put(i)
        to_ping.get()  # diag: culprit
    to_pong.put(None)


def pong():
    while True:
        item = to_pong.get()  # diag: culprit
        if item is None:
            return
        to_ping.put(item)


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("sender", ping), spawn("echo", pong), spawn("slow-waiter", waiter)]
gevent.joinall(jobs, raise_error=True)
