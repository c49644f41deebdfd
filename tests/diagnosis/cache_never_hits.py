"""A lookup cache that never hits: its key holds a per-event trace id.

Truth by construction (run monkey-patched): a ``gevent.pool.Pool(6)`` handles 120
events; each looks up its user's profile (6 users) through ``functools.lru_cache``
keyed on the user *and* the event's trace id, so every lookup misses and fetches the
same six URLs again and again (``diag: culprit``), each answering after the delay its
URL (``slow=``) asks for.
Expected first finding: the pool's jobs waiting at the fetch, saying that the GET
requests asked for only 6 different URLs, with a cache keyed on the user as the fix.
"""

import functools
import sys
import uuid

import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
EVENTS = 120
USERS = 6
session = requests.Session()


@functools.lru_cache(maxsize=4096)
def profile_for(user, trace_id):
    url = f"{ARGS['slow']}&user={user}"
    return session.get(url, headers={"X-Trace-Id": trace_id}, timeout=30).content  # diag: culprit


def handle(event):
    return profile_for(event % USERS, uuid.uuid4().hex)


gevent.pool.Pool(6).map(handle, range(EVENTS))
