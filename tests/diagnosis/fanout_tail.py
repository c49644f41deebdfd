"""Each job fans out to four calls and waits for all of them; one call in seven is slow.

Truth by construction (run monkey-patched): a ``gevent.pool.Pool(8)`` runs 56 ``page``
jobs; each spawns four ``part`` greenlets that fetch a URL answering after 10 ms, or
after 0.6 s (the test's ``slow``) for one job in seven's fourth part, and joins them all with
``gevent.joinall`` (``diag: culprit``).  Every job holds its slot until its slowest part
ends, so the slow parts pace the run while the loop idles.  Expected first finding
``pool-full``, told as the jobs' joins (``joined_in_slots``), costing the jobs' waits
there rather than the spawner's waits for a slot.
"""

import sys

import gevent
import gevent.pool
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 56
SLOW_EVERY = 7
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=32))


def part(url):
    return session.get(url, timeout=30).content  # diag: network-wait


def page(n):
    slow = n % SLOW_EVERY == 3
    parts = [spawn("part", part, ARGS["fast"]) for _ in range(3)]
    parts.append(spawn("part", part, ARGS["slow"] if slow else ARGS["fast"]))
    gevent.joinall(parts, raise_error=True)  # diag: culprit


pool = gevent.pool.Pool(8)
pool.map(page, range(JOBS))  # diag: pool
