"""A service's garbage-collector pauses under steady arrivals: the backlog each pause
leaves, and a dispatcher that paces itself.

Truth by construction: at start-up the program keeps CACHE_ENTRIES small dicts alive
(a catalog in memory, tracked by the cyclic collector).  ``dispatch`` then starts one
``handle`` greenlet every ARRIVAL_S, sleeping until the next is due (arrivals do not
stop while the loop is held), and waits for them all only at the end.  Each handler
fetches from the upstream (``url``), builds a view of a few hundred small dicts (a
millisecond or two of CPU, the loop about half busy) and keeps the last RECENT views
(their objects live long enough to reach the oldest generation, whose growth makes
full collections fall due).  Full collections, which the
handlers' allocation triggers, walk the whole catalog and hold the loop far longer;
the requests that arrive meanwhile queue, and so do the ones after them until the
loop has worked the backlog off.

Expected first finding ``gc-pause``, its cost counting that backlog; no
``loop-saturated`` (half busy, the queueing is the pauses'), and no ``batch-barrier``
or ``awaited-in-turn``: the dispatcher waited on its own timer, not on its greenlets.
Run with ``freeze``, the program applies the fix (``gc.freeze()`` after building the
catalog): none of those findings.
"""

import gc
import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:] if "=" in arg)
CACHE_ENTRIES = 500_000
REQUESTS = 800
# 125 requests a second: at 200 the handlers kept the loop 72-81 % busy on a slower host
# (about half by design), and loop-saturated came first in half the runs
ARRIVAL_S = 0.008
VIEW_ITEMS = 500
RECENT = 60

CATALOG = [{"sku": i, "tags": [i % 50]} for i in range(CACHE_ENTRIES)]  # tracked
if "freeze" in sys.argv[1:]:
    gc.freeze()  # the fix gc-pause gives: later collections skip the catalog

session = requests.Session()
recent = {}


def handle(uid):
    history = session.get(ARGS["url"], timeout=30).content
    base = (uid * 7919) % (CACHE_ENTRIES - VIEW_ITEMS)
    view = [{"sku": p["sku"], "score": (uid ^ p["sku"]) % 97, "tags": list(p["tags"])}
            for p in CATALOG[base:base + VIEW_ITEMS]]
    recent[uid] = (history, view)
    recent.pop(uid - RECENT, None)


def dispatch():
    pending, t0 = [], time.perf_counter()
    for uid in range(REQUESTS):
        ahead = t0 + uid * ARRIVAL_S - time.perf_counter()
        if ahead > 0:
            gevent.sleep(ahead)
        pending.append(spawn("handle", handle, uid))
    gevent.joinall(pending, raise_error=True)


dispatch()
