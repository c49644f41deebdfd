"""Four ``archiver`` greenlets each fetch a small document twice and, after each fetch,
compress a 2.8 MB document with zlib at level 9 (about 0.15 s of CPU here, in one slice)
while five ``ticker`` greenlets have 5 ms timers due.

Truth by construction: the CPU is spent on the ``zlib.compress`` line (``diag:
culprit``).  Every slice that compressed ends at the next fetch or at the greenlet's
exit, where it yielded (``diag: yield``): the switch trace alone sees only that end,
one line away from the cost.  Expected first finding ``loop-blocked``, cause CPU, in
``archiver``, at the compress line (``geventperf run`` takes CPU samples by default).
With ``mode=threadpool`` the compression runs in gevent's threadpool (zlib releases the
GIL, so the loop runs on meanwhile): no loop-blocked finding.
"""

import json
import sys
import zlib

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
DOCUMENT = json.dumps([{"id": i, "name": f"item{i}", "v": i * 7919 % 10007}
                       for i in range(60_000)]).encode()


def compress(data):
    if ARGS.get("mode") == "threadpool":
        return gevent.get_hub().threadpool.apply(zlib.compress, (data, 9))
    return zlib.compress(data, 9)  # diag: culprit


def archiver():
    stored = 0
    for _ in range(2):
        stored += len(requests.get(ARGS["slow"], timeout=30).content)  # diag: yield
        stored += len(compress(DOCUMENT))  # diag: culprit
    return stored


def ticker():
    for _ in range(60):
        gevent.sleep(0.005)


jobs = [spawn("archiver", archiver) for _ in range(4)]
jobs += [spawn("ticker", ticker) for _ in range(5)]
gevent.joinall(jobs, raise_error=True)
