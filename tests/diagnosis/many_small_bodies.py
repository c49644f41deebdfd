"""Many small bodies, each read whole: nothing to gain from larger reads.

Truth by construction: four ``fetcher`` greenlets fetch 40 bodies of 2 KiB each with
requests' default ``.content`` (160 bodies, well over the reads a finding needs).  Each
body arrives in one piece and is read in one read: the reads are small because the
bodies are, and a larger read size could not make them fewer.  Expected: no
``small-body-reads`` finding.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FETCHERS = 4
BODIES_EACH = 40


def fetch():
    session = requests.Session()
    for _ in range(BODIES_EACH):
        assert len(session.get(ARGS["small"], timeout=30).content) == 2048



gevent.joinall([spawn("fetcher", fetch) for _ in range(FETCHERS)], raise_error=True)
