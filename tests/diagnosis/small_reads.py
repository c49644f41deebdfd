"""requests' default ``.content`` on large bodies from a trickling server.

Truth by construction: four ``body-fetcher`` greenlets each read a 2 MiB body with
``requests.get(url).content``, which reads it in requests' 10 KiB pieces (~200 reads
per body, ~800 in all, through requests, urllib3 and http.client).  The server sends
each body in 64 KiB pieces with a 5 ms pause before each, so the wall time of every
body is set by the server's pace: a reader with 512 KiB reads would wait exactly as
long.  Nothing else runs, so nobody queues behind anybody.

Decided expectation (see test_small_reads_over_a_trickle): the waiting is the server's,
so no finding may blame the program for it (no loop-blocked, blocking-call,
loop-saturated, blocked-read); the small reads are real, so the first finding, if
there is one, is ``small-body-reads`` at the ``.content`` line (``diag: culprit``), but
its cost may only be what the small reads themselves added (their CPU, which the
adapter's large reads do cut), never the server's pace: it cannot exceed the time the
greenlets actually ran.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 4


def fetch_body():
    return len(requests.get(ARGS["big"], timeout=30).content)  # diag: culprit



jobs = [spawn("body-fetcher", fetch_body) for _ in range(GREENLETS)]
gevent.joinall(jobs, raise_error=True)
assert all(g.value for g in jobs)
