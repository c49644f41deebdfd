"""A gevent Pool of 2 in front of a slow server: 16 requests of 0.1 s take 0.8 s.

Truth by construction: the main greenlet spawns 16 ``fetcher`` jobs into
``gevent.pool.Pool(2)``; each waits 0.1 s for the server's reply, and the loop is idle
nearly the whole time.  Only two requests are in flight at once, so the run takes
about 8 x 0.1 s: the pool's size paces it, and main waits for a free slot at the
``pool.spawn`` line (``diag: culprit``).  Expected first finding ``pool-full`` there,
naming ``main``; with ``size=16`` nothing waits for a slot: no ``pool-full``.

``size=`` and ``tasks=`` change the pool and the jobs (``tests/test_upstream_queued.py``
puts a Pool of 16 in front of upstreams that queue, or answer with a slow tail).  The
Session keeps as many connections as the pool runs jobs: no connection churn beside.
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
TASKS = int(ARGS.get("tasks", 16))
POOL_SIZE = int(ARGS.get("size", 2))


# One Session for all jobs: requests.get would open a connection per call, a second
# (small) cause whose connect waits cross the block threshold only on a crowded machine
# (session-per-request, 0.056 s, once in ten runs beside two CPU hogs).
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=POOL_SIZE))


def fetch():
    return session.get(ARGS["slow"], timeout=30).content  # diag: network-wait


def fetcher():
    g = gevent.Greenlet(fetch)
    g.name = "fetcher"
    return g


pool = gevent.pool.Pool(POOL_SIZE)
jobs = [pool.start(fetcher()) for _ in range(TASKS)]  # diag: culprit
pool.join(raise_error=True)
