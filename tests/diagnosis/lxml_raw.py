"""Ten greenlets parse XML straight from the socket with a parser each.

Truth by construction: each greenlet calls
``lxml.etree.parse(response.raw, lxml.etree.XMLParser())`` on a body the server
trickles in small pieces with pauses between them, so nearly every ``read()`` lxml makes
from inside its C parse loop finds the socket empty and waits on the hub.  The one
cause is that parse call (the ``diag: culprit`` line), shared by the ten greenlets named
``feed-parser``: expected first finding ``blocked-read-in-c-section`` there, ONE finding
naming the ten greenlets, not ten findings.  Each parse has its own parser (and lock),
so there is no deadlock risk.  The ``slow-waiter`` greenlet only waits on a slow server: a
pure network wait that nothing may blame.
"""

import sys

import gevent
import lxml.etree
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 10


def parse_feed():
    response = requests.get(ARGS["xml"], stream=True, timeout=30)
    tree = lxml.etree.parse(response.raw, lxml.etree.XMLParser())  # diag: culprit
    return len(tree.getroot())


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("feed-parser", parse_feed) for _ in range(GREENLETS)]
jobs.append(spawn("slow-waiter", waiter))
gevent.joinall(jobs, raise_error=True)
assert all(g.value for g in jobs)
