"""A job that fetches each item's details one after another, in one greenlet.

Truth by construction: the main greenlet walks 150 item ids and fetches each one's
details from a kept-alive server that answers after ``kept=``'s delay
(``diag: culprit``), waiting for each before asking for the next: the run is 150
round trips in turn while the loop sits idle.  Expected first finding
``sequential-calls`` naming ``main`` at that line.  With ``mode=together`` the same
calls go through a ``Pool(10)``, as many at once as the session's pool holds: no
``sequential-calls``.
"""

import sys

import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ITEMS, AT_ONCE = 150, 10
session = requests.Session()


def details(item):
    return session.get(f"{ARGS['kept']}&item={item}", timeout=30).content  # diag: culprit


if ARGS.get("mode") == "together":
    found = list(gevent.pool.Pool(AT_ONCE).imap_unordered(details, range(ITEMS)))
else:
    found = [details(item) for item in range(ITEMS)]
assert len(found) == ITEMS
