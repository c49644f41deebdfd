"""A long CPU slice while nothing else could run: nobody was hurt.

Truth by construction: five ``fetcher`` greenlets send requests that the server holds
until it is told to answer.  Once all five have arrived, the ``report-builder``
greenlet burns 0.2 s of CPU in one slice (``diag: culprit``), and only then tells the
server to answer.  So during that slice no reply can arrive, no other greenlet is
ready and no timer is due, however slowly a loaded machine runs it: the slice delayed
nobody (the fetchers were waiting for an event that had not happened).  Expected: NO
``loop-blocked`` (nor ``blocking-call``, ``loop-saturated``) finding: "a long slice
while nothing else could run is not a blocked loop".  Unlike start-up, the loop has
run and other greenlets exist: this is the rule itself, not the start-up exception.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FETCHERS = 5


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def report_builder():
    while requests.get(ARGS["arrived"], timeout=30).text != str(FETCHERS):
        gevent.sleep(0.01)
    burn(0.2)  # diag: culprit
    gevent.sleep(0)  # diag: culprit
    requests.get(ARGS["open"], timeout=30)


def fetch():
    return requests.get(ARGS["gated"], timeout=30).content  # diag: network-wait



jobs = [spawn("fetcher", fetch) for _ in range(FETCHERS)]
jobs.append(spawn("report-builder", report_builder))
gevent.joinall(jobs, raise_error=True)
assert all(g.value == b"ok" for g in jobs[:FETCHERS])
