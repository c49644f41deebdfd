"""Ten greenlets wait for a server that answers each request after 0.3 s; nothing else runs.

Truth by construction: the program does nothing wrong.  Every greenlet (``fetcher``) sends
one request and waits for the reply; the loop is idle almost the whole time; no greenlet
holds the loop, nothing blocks it, nothing is queued.  Expected: no finding that blames
the program (no ``loop-blocked``, ``blocking-call`` or ``loop-saturated``), and indeed
no finding at all: the run is slow because the server is.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 10


def fetch():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("fetcher", fetch) for _ in range(GREENLETS)]
gevent.joinall(jobs, raise_error=True)
assert all(g.value == b"ok" for g in jobs)
