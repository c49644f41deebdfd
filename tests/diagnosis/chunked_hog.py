"""A greenlet does CPU work in chunks, each under the block threshold, among request
handlers: no single slice blocks the loop, together they are the cause of the queueing.

Truth by construction: a ``hasher`` greenlet burns 25 ms of its own thread's CPU time
at a time (half the 50 ms block threshold), 20 times, yielding with ``gevent.sleep(0)``
between chunks, while eight ``fetcher`` greenlets each fetch a local URL that answers
after 0.1 s, 11 times, with almost no CPU of their own.  Replies that arrive while the
hasher runs queue behind its current chunk; the loop idles the rest of the run (busy
well under the 75 % of a saturated loop, even with the chunks stretched by a loaded
machine).  Expected first finding ``loop-held`` naming ``hasher``, at a ``diag:
culprit`` line (the burn, or the yield where its chunks ended).  The fetchers only wait
on the network and behind the hasher: innocent.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CHUNK_CPU_S = 0.025
CHUNKS = 20
FETCHERS = 8
REQUESTS = 11  # 88 small reads in all: under small-body-reads' 100


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def hasher():
    for _ in range(CHUNKS):
        burn(CHUNK_CPU_S)  # diag: culprit
        gevent.sleep(0)  # diag: culprit


def fetcher():
    session = requests.Session()
    for _ in range(REQUESTS):
        assert session.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("fetcher", fetcher) for _ in range(FETCHERS)]
jobs.append(spawn("hasher", hasher))
gevent.joinall(jobs, raise_error=True)
