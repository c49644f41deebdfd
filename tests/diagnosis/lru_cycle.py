"""An indexer that resolves each series' id through a store, behind an lru_cache
smaller than the series it cycles through.

Truth by construction: 5 rounds over the same 300 series, each resolved with a POST of
its labels (a different body per series), behind ``functools.lru_cache(maxsize=256)``:
a least-recently-used cache of fewer entries than a round's keys evicts each one before
the round comes back to it, so every lookup misses and the store is asked the same 300
questions 5 times (``diag: culprit``).  300 different requests are more than the pool
watch counts one by one.  Expected first finding: ``repeated-request`` at the lookup
line.  ``cache=all``: a cache holding every series (maxsize=None): one lookup each, no
``repeated-request``.
"""

import functools
import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ROUNDS = 5
SERIES = [f'{{job="node",instance="host-{n}",metric="cpu"}}' for n in range(300)]
session = requests.Session()


@functools.lru_cache(maxsize=256)
def series_id(labels):
    return session.post(ARGS["store"], data=labels, timeout=30).content  # diag: culprit


if ARGS.get("cache") == "all":
    series_id = functools.lru_cache(maxsize=None)(series_id.__wrapped__)


def index():
    for _ in range(ROUNDS):
        for labels in SERIES:
            series_id(labels)


gevent.joinall([spawn("indexer", index)], raise_error=True)
