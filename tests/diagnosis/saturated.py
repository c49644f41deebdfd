"""A saturated loop: many greenlets each doing ~8 ms of CPU between short sleeps.

Truth by construction: eight ``scorer`` greenlets loop "8 ms of CPU, then
``gevent.sleep(0.001)``", so at any moment several scorers are ready and the loop is
nearly always busy running one of them; no single slice is long (8 ms, far below the
loop-blocking threshold).  Three ``health-check`` greenlets fetch a fast local URL with
almost no CPU of their own: their replies arrive at once, and they then wait in the
ready queue behind the scorers.  The waiting in this run is queueing, not I/O.
Expected first finding ``loop-saturated`` naming ``scorer`` as the top holder of the
loop (the stack where it switched out, if given, is a ``diag: culprit`` line).  The
health checks' waits are not the program's I/O problem: nothing may blame their requests as a
network wait.
"""

import sys
import time

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CRUNCHERS = 8
ROUNDS = 12
WORK_CPU_S = 0.008


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def cruncher():
    for _ in range(ROUNDS):
        burn(WORK_CPU_S)  # diag: culprit
        gevent.sleep(0.001)  # diag: culprit


def poller():
    session = requests.Session()
    for _ in range(10):
        assert session.get(ARGS["fast"], timeout=30).content == b"ok"  # diag: network-wait



jobs = [spawn("scorer", cruncher) for _ in range(CRUNCHERS)]
jobs += [spawn("health-check", poller) for _ in range(3)]
gevent.joinall(jobs, raise_error=True)
