"""More pooled connections than the upstream has workers.

Truth by construction: a Pool of 16 greenlets sends 200 requests through one Session
whose pool keeps up to ``maxsize`` connections (16 by default) to an upstream with 4
workers, each serving one kept-alive connection until it stays idle for 0.2 s.  The
upstream answers in a few ms, but only on 4 connections at a time: the kernel accepts
the others into its listen backlog, and their first requests wait until a worker frees
up, after the busy connections go idle.  Expected: ``new-connections-queued`` first, at
the request's line; with ``maxsize=4`` (and ``pool_block``), nothing of it.
"""

import sys

import requests
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
MAXSIZE = int(ARGS.get("maxsize", 16))
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=MAXSIZE, pool_block=True))


def check(n):
    return session.get(f"{ARGS['url']}/stock/{n}", timeout=30).status_code  # diag: culprit


assert set(Pool(16).imap_unordered(check, range(200))) == {200}
