"""The lxml deadlock, unguarded: two greenlets parse ``response.raw`` with lxml's
default parser.

Truth by construction: ``lxml.etree.parse(response.raw)`` (no parser given) holds the
default parser's lock, a real OS lock gevent does not patch, while it reads the trickled
body; the read yields; the second ``feed-parser`` greenlet enters the same parse and
blocks the whole thread on that lock, so the first never runs again and the process
hangs.  Run under ``geventperf run`` (no guard) in a subprocess with a timeout: the
tracer must warn on stderr, naming the ``diag: culprit`` line, BEFORE the hang.  Should
this lxml not hang, the first finding must be ``c-section-deadlock-risk`` there.
"""

import sys

import gevent
import lxml.etree
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])


def parse_feed():
    response = requests.get(ARGS["xml"], stream=True, timeout=30)
    tree = lxml.etree.parse(response.raw)  # diag: culprit
    return len(tree.getroot())



jobs = [spawn("feed-parser", parse_feed) for _ in range(2)]
gevent.joinall(jobs, raise_error=True)
