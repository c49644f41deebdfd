"""A poller running its rounds one after another through a full Pool.

Truth by construction: ``ROUNDS`` rounds, each ``pool.map`` of a call per open item
through a ``Pool(SLOTS)`` over more items than slots (``diag: culprit``): every round
fills the Pool, and the next reads what this one found (the items still open), as a
tracking poller does.  gevent runs each map in a greenlet of its own, which main awaits
before the next round.  Expected: no ``awaited-in-turn`` (started together the rounds
would queue behind the same slots, and would poll what the round before closed); the
Pool's limit is ``pool-full``'s to tell.
"""

import sys

import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ROUNDS, ITEMS, SLOTS = 4, 48, 6
session = requests.Session()
open_items = set(range(ITEMS))


def poll(item):
    session.get(f"{ARGS['kept']}&item={item}", timeout=30)
    if item % 4 == 0:  # a quarter closes each round
        open_items.discard(item)


pool = gevent.pool.Pool(SLOTS)
for _ in range(ROUNDS):
    pool.map(poll, sorted(open_items))  # diag: culprit
