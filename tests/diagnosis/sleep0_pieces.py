"""A background refresher splits its CPU work into short pieces and yields between them
with ``gevent.sleep(0)``, among greenlets waiting on the network.  Each piece is short,
but gevent runs its queued callbacks (a sleep(0)'s wake-up among them) 50 at a time
until its switch interval has passed before it polls for I/O, so replies that arrive
while the refresher works wait through some 50 pieces at a time.

Truth by construction: a ``refresher`` greenlet burns 1.5 ms of its own thread's CPU
time per piece, 100 pieces per round, 3 rounds 0.1 s apart, while eight ``fetcher``
greenlets each fetch a local URL that answers after 20 ms, 11 times, with almost no CPU
of their own.  Expected first finding ``loop-held`` naming ``refresher``, at a ``diag:
culprit`` line (the burn, or the yield where its pieces ended), told as pieces run in a
row behind its gevent.sleep(0).  With ``yield=idle`` the refresher yields with
``gevent.idle()``: the loop polls between pieces, and nothing holds it.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PIECE_CPU_S = 0.0015
PIECES = 100
ROUNDS = 3
ROUND_GAP_S = 0.1
FETCHERS = 8
REQUESTS = 11  # 88 small reads in all: under small-body-reads' 100
give_way = gevent.idle if ARGS.get("yield") == "idle" else (lambda: gevent.sleep(0))


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def refresher():
    for _ in range(ROUNDS):
        gevent.sleep(ROUND_GAP_S)
        for _ in range(PIECES):
            burn(PIECE_CPU_S)  # diag: culprit
            give_way()  # diag: culprit


def fetcher():
    session = requests.Session()
    for _ in range(REQUESTS):
        assert session.get(ARGS["slow"], timeout=30).content  # diag: network-wait


jobs = [spawn("fetcher", fetcher) for _ in range(FETCHERS)]
jobs.append(spawn("refresher", refresher))
gevent.joinall(jobs, raise_error=True)
