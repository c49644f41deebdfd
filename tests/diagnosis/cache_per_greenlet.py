"""A lookup cache kept in ``threading.local``, which is per greenlet once gevent has
patched it: each job runs in a greenlet of its own, so every job misses.

Truth by construction (run monkey-patched): 120 jobs, one every 4 ms (requests as
they arrive), each looks up its
customer's profile (6 customers) through the cache (``diag: culprit``: every lookup
fetches again, 20 ms each), then asks the other host for a price of its own (a
different URL per job).  Expected first finding ``repeated-request``, told as few URLs
fetched again and again (``few_urls``) at the lookup line.  With ``cache=shared`` one
cache for the process: no such finding.
"""

import sys
import threading

import gevent
import requests
import requests.adapters

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 120
CUSTOMERS = 6
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=JOBS))
_local = threading.local()
_shared = {}


def profile_of(customer):
    cache = _shared if ARGS.get("cache") == "shared" else _local.__dict__
    if customer not in cache:
        cache[customer] = session.get(f"{ARGS['lookups']}&customer={customer}",  # diag: culprit
                                      timeout=30).content
    return cache[customer]


def job(n):
    profile_of(n % CUSTOMERS)
    session.get(f"{ARGS['prices']}&item={n}", timeout=30).close()


jobs = []
for n in range(JOBS):
    jobs.append(gevent.spawn(job, n))
    gevent.sleep(0.004)  # the next request's arrival
gevent.joinall(jobs, raise_error=True)
