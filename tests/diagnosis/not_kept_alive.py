"""Workers sharing one Session whose server closes every connection after its response.

Truth by construction (run monkey-patched): eight ``caller`` greenlets share one
``requests.Session`` and make 120 quick calls each (``diag: culprit``) to a server that
answers ``Connection: close`` (the tests' ``server``) or keeps its connections alive
(``kept_server``).  The Session's pool holds at most eight connections; against the
closing server each is found dropped at its next checkout and connected again, so
nearly every call pays a connect while the pool's own count of connections opened
stays at eight.  Expected: a ``connection-not-kept-alive`` finding naming the
closing host; against the kept-alive server, none.  With ``ask=close`` the Session
sends ``Connection: close`` on every request, and the kept-alive server closes each
connection as asked, without saying so in its head: the finding then names the header.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CALLERS = 8
# Enough calls that the connects (mostly their CPU, a sampled share) cost past a block
# threshold in every run: with 40 each the cost ranged 0.07-0.45 s and a loaded run
# fell under it.
CALLS = 120
session = requests.Session()
if ARGS.get("ask") == "close":
    session.headers["Connection"] = "close"


def caller():
    for _ in range(CALLS):
        session.get(ARGS["url"], timeout=30).raise_for_status()  # diag: culprit


gevent.joinall([spawn("caller", caller) for _ in range(CALLERS)])
