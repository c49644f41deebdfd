"""Garbage-collector pauses: a large long-lived heap, and workers allocating per request.

Truth by construction: at start-up the program keeps CACHE_ENTRIES small dicts alive,
each holding a list (a service's in-memory cache: a dict of only numbers would not be
tracked by the cyclic collector, these are).  Six ``worker``
greenlets then build a list of small dicts per round (request-scoped: garbage when the
round ends) and sleep 20 ms between rounds.  A round's own work takes about a
millisecond; the collector's full passes (generation 2), which allocation triggers
inside whichever worker happens to run, walk the whole cache and take far longer.
Expected first finding ``gc-pause`` naming generation 2 and ``gc.freeze()``; no
``loop-blocked`` finding blames the workers' code.  Run with ``freeze``, the program
applies that fix (``gc.freeze()`` after building the cache): no ``gc-pause`` then.
"""

import gc
import sys

import gevent
from _greenlets import spawn

CACHE_ENTRIES = 500_000
WORKERS = 6
ROUNDS = 40
PER_ROUND = 3000

CACHE = [{"id": i, "tags": [i]} for i in range(CACHE_ENTRIES)]  # tracked: holds a list
if "freeze" in sys.argv[1:]:
    gc.freeze()  # the fix the finding gives: later collections skip the cache


def worker():
    for _ in range(ROUNDS):
        request_data = [{"n": [j]} for j in range(PER_ROUND)]
        del request_data
        gevent.sleep(0.02)



gevent.joinall([spawn("worker", worker) for _ in range(WORKERS)], raise_error=True)
