"""Twelve greenlets call a kept-alive server through a helper that opens a Session for
each call (``with requests.Session() as s: s.get(...)``), thirty calls each.

Truth by construction: every call builds a Session, its adapters and a new urllib3
pool, resolves ``localhost`` (in gevent's threadpool), connects, sends one request and
closes it all, at the helper's ``s.get`` line (``diag: culprit``): 360 pools and 360
connections where one shared Session would keep twelve, one per greenlet in flight.
Nothing in the stacks says ``requests.get``.  Expected first finding
``session-per-request`` there, naming ``caller``.  With ``mode=shared`` the helper uses
one Session made at start (the fix the finding gives): no ``session-per-request``.
"""

import sys
import urllib.parse

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 12
CALLS = 30
# By name, as services call their peers: the lookup is part of every new connection.
URL = ARGS["kept"].replace("127.0.0.1", "localhost", 1)
SHARED = requests.Session()


def fetch():
    if ARGS.get("mode") == "shared":
        return SHARED.get(URL, timeout=30).content
    with requests.Session() as session:
        return session.get(URL, timeout=30).content  # diag: culprit


def caller():
    return sum(len(fetch()) for _ in range(CALLS))


assert urllib.parse.urlsplit(URL).hostname == "localhost"
gevent.joinall([spawn("caller", caller) for _ in range(GREENLETS)], raise_error=True)
