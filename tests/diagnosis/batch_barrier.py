"""A job that checks 96 URLs in batches of 16: spawn 16, joinall, repeat.  One call of
each batch takes 0.5 s, the others 10 ms.

Truth by construction: each batch lasts as long as its slow call, so the job runs its
16 calls at once only for the first 10 ms of each batch, then one: six batches, some
3 s, where one Pool(16) fed all 96 (``mode=pool``) takes some 0.6 s.  (At 0.25 s a slow
call, two busy cores stretched the fast calls enough to keep 3.8 of 16 running on
average, beside the finding's quarter.)  Every call
takes its usual time; the wait is main's, at the joinall line (``diag: culprit``).
Expected first finding ``batch-barrier`` naming main there; none with ``mode=pool``.
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ITEMS, BATCH = 96, 16
FAST = ARGS["slow"]
SLOW = FAST.split("?")[0] + "?delay=0.5"
session = requests.Session()


def check(n):
    return session.get(SLOW if n % BATCH == 0 else FAST, timeout=30).status_code


if ARGS.get("mode") == "pool":
    list(gevent.pool.Pool(BATCH).imap_unordered(check, range(ITEMS)))
else:
    for start in range(0, ITEMS, BATCH):
        gevent.joinall([gevent.spawn(check, n)  # diag: culprit
                        for n in range(start, start + BATCH)])
