"""A service's flags cache that every handler refills when it finds it expired.

Truth by construction: 30 handlers serve 300 requests; each fetches its account (a
different URL per request, 80 ms) and then the feature flags, cached for
0.25 s.  The flags endpoint takes 100 ms, and with ``cache=ttl`` every handler that
finds the value expired fetches it itself: at each expiry all the handlers in flight
ask for the same flags at once (a stampede), each waiting 100 ms for what one call was
already fetching.  ``cache=single`` refreshes it once at a time (the others keep the
value they have), ``cache=none`` fetches the flags for every request (no cache: a
repeated request, not a stampede).  Expected: ``duplicate-in-flight`` first with
``ttl``, at the flags request's line; nothing about it with ``single``;
``repeated-request`` instead with ``none``.
"""

import sys
import time

import gevent
import requests
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CACHE = ARGS.get("cache", "ttl")
TTL_S = 0.25
REQUESTS = 300
HANDLERS = 30
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=HANDLERS))
flags = {"value": None, "expires": 0.0, "refresh": None}


def load_flags():
    value = session.get(ARGS["flags"], timeout=30).content  # diag: culprit
    flags.update(value=value, expires=time.monotonic() + TTL_S)
    return value


def get_flags():
    if CACHE == "none":
        return load_flags()
    if flags["value"] is not None and time.monotonic() < flags["expires"]:
        return flags["value"]
    if CACHE == "ttl":
        return load_flags()
    if flags["refresh"] is None or flags["refresh"].dead:  # one refresh at a time
        flags["refresh"] = gevent.spawn(load_flags)
    return flags["value"] if flags["value"] is not None else flags["refresh"].get()


def handle(n):
    session.get(f"{ARGS['account']}&user={n}", timeout=30).raise_for_status()  # diag: network-wait
    return get_flags()


pool = Pool(HANDLERS)
assert all(pool.imap_unordered(handle, range(REQUESTS)))
