"""Ten request handlers, each making 20 unpatched 3 ms blocking calls, yielding between.

Truth by construction (run without monkey-patching): every ``handler`` calls the real
``time.sleep(0.003)`` -- standing in for a blocking client library -- then yields with
``gevent.sleep(0.001)``.  No slice comes near the block threshold and all greenlets are
alike, yet the loop is nearly always held: each handler's 1 ms timer comes due while
the others block the thread in turn, so they queue behind each other.  The loop is held
off the CPU, not by CPU work.  Expected first finding ``loop-saturated`` whose cure is
the blocking call (names ``time.sleep`` and monkey-patching), not "the CPU side", at the
yield after the call (``diag: culprit``).
"""

import time

import gevent
from _greenlets import spawn

HANDLERS = 10
CALLS = 20


def handler():
    for _ in range(CALLS):
        time.sleep(0.003)  # diag: culprit
        gevent.sleep(0.001)  # diag: culprit



gevent.joinall([spawn("handler", handler) for _ in range(HANDLERS)], raise_error=True)
