"""A heavy import at start-up, then a healthy gevent program.

Truth by construction: the first thing the program does is import ``_heavy_module``,
which spends 0.3 s of CPU at import time, before any other greenlet exists and before
the loop has first run: nobody is waiting, so nobody is blocked.  Then four ``fetcher``
greenlets fetch a fast local URL a few times (healthy, short).  Expected: NO
``loop-blocked`` (or ``blocking-call``) finding: start-up is reported as start-up
time, not as a finding.
"""

import sys

import _heavy_module  # noqa: F401  # diag: startup
import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])


def fetch():
    session = requests.Session()
    for _ in range(5):
        assert session.get(ARGS["fast"], timeout=30).content == b"ok"  # diag: network-wait



gevent.joinall([spawn("fetcher", fetch) for _ in range(4)], raise_error=True)
