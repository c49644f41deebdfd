"""Sixty consumers wait for their result by polling a shared dict with
``gevent.sleep(0.001)``; one dispatcher fetches the results one at a time.

Truth by construction: the consumers wait for the dispatcher, whose serial fetches set
the pace (60 x the server's delay); the polling hides that hand-off behind a timer.
Expected first finding ``serial-bottleneck`` at the dispatcher's fetch line, saying the
consumers polled and that an Event or AsyncResult would wake them.  With
``dispatch=pool`` the dispatcher fetches through ``Pool(20).imap_unordered``: the
consumers still poll, but nobody sets their pace one call at a time.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
N = 60
results = {}
session = requests.Session()


def fetch(i):
    results[i] = session.get(ARGS["slow"], timeout=30).content  # diag: culprit


def dispatcher():
    if ARGS.get("dispatch") == "pool":
        for _ in Pool(20).imap_unordered(fetch, range(N)):
            pass
    else:
        for i in range(N):
            fetch(i)


def consumer(i):
    while i not in results:
        gevent.sleep(0.001)  # diag: poll
    return len(results[i])


gevent.joinall([spawn("consumer", consumer, i) for i in range(N)]
               + [spawn("dispatcher", dispatcher)], raise_error=True)
