"""Periodic work: ten greenlets each wake every 5 ms to do a little work.

Truth by construction: ten ``ticker`` greenlets loop ``gevent.sleep(0.005)`` and a
few microseconds of work, 150 times each: 1 500 switch-outs at one call site with
almost no work between them, but every one of them waits 5 ms for its timer.  The
switching costs nothing that matters (a few hundred switches a second per greenlet,
the hub idle in between), and nothing else runs.  Expected: no finding at all; in
particular no ``switch-storm`` (a storm is yields that come back at once, like
``sleep(0)`` or a hand-off per item, where the switching is the run), and no story of
``sleep(0)`` for a ``sleep(0.005)`` (``diag: not-a-storm``).
"""

import gevent
from _greenlets import spawn

TICKERS = 10
TICKS = 150


def ticker():
    total = 0
    for i in range(TICKS):
        gevent.sleep(0.005)  # diag: not-a-storm
        total += i
    return total



gevent.joinall([spawn("ticker", ticker) for _ in range(TICKERS)], raise_error=True)
