"""Two causes, the CPU hog larger: a hog of 3 x 0.15 s, a C-parser read of ~0.15 s.

Truth by construction:
- one ``json-loader`` greenlet calls ``ujson.load(response.raw)`` on a body trickled in
  eight pieces 20 ms apart: ~0.15 s of waiting inside a C section (``diag: reads``),
  one greenlet, at most ~0.15 greenlet-seconds of event wait;
- once that parse is done, one ``report-builder`` greenlet burns 0.15 s of CPU three
  times (``diag: culprit``), each time while six ``ticker`` greenlets have 5 ms timers
  due: 0.45 s of the run's wall time with the loop held, about 6 x 0.45 = 2.7
  greenlet-seconds of others' waiting.
The hog waits for the parse to end so that the two causes do not overlap: a body piece
arriving while the hog held the loop would turn the reads' waiting into queueing behind
the hog, which is the hog's cost, not the reads'.  Whichever cost unit is used, the hog
costs several times the reads.  Expected: first finding ``loop-blocked`` (CPU) in
``report-builder`` at a culprit line; the ``blocked-read-in-c-section`` finding for
``json-loader`` comes after it.
"""

import sys
import time

import gevent
import gevent.event
import requests
import ujson
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HOG_CPU_S = 0.15
parsed = gevent.event.Event()


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: culprit
        pass


def hog():
    parsed.wait()
    for _ in range(3):
        gevent.sleep(0.03)  # diag: culprit (a slice ends here: the tickers are due again)
        burn(HOG_CPU_S)  # diag: culprit


def load_json():
    try:
        response = requests.get(ARGS["json"], stream=True, timeout=30)
        return len(ujson.load(response.raw))  # diag: reads
    finally:
        parsed.set()


def ticker():
    for _ in range(200):
        gevent.sleep(0.005)



jobs = [spawn("report-builder", hog), spawn("json-loader", load_json)]
jobs += [spawn("ticker", ticker) for _ in range(6)]
gevent.joinall(jobs, raise_error=True)
