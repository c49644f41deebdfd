"""A gevent Pool of 16 fetching from an upstream that serves only a few at once.

Truth by construction: 80 ``fetcher`` jobs go through ``gevent.pool.Pool(16)`` to
``up=``.  Against an upstream serving 1 request at a time (20 ms each, queueing the
rest in order: ``tests/test_upstream_queued.py``), each answer takes about 16 x 20 ms,
and a larger pool would only make it longer: the upstream's capacity paces the run,
not the pool.  Expected: no ``pool-full``.  Against one answering every request after
a fixed delay, as many at once as asked, the pool's size paces the run: ``pool-full``
first, at the spawn line (``diag: culprit``).
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS, POOL_SIZE = 80, 16
session = requests.Session()
# as many connections as the pool's jobs: no connection churn beside the finding
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=POOL_SIZE))


def fetch():
    return session.get(ARGS["up"], timeout=30).content  # diag: network-wait


def fetcher():
    g = gevent.Greenlet(fetch)
    g.name = "fetcher"
    return g


pool = gevent.pool.Pool(POOL_SIZE)
jobs = [pool.start(fetcher()) for _ in range(JOBS)]  # diag: culprit
pool.join(raise_error=True)
