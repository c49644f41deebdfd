"""Two causes, the C-parser reads larger: blocked reads ~8 greenlet-s, a CPU hog 0.1 s.

Truth by construction:
- four ``feed-parser`` greenlets call ``lxml.etree.parse(response.raw, XMLParser())`` on
  bodies trickled over ~2 s each: about 4 x 2 = 8 greenlet-seconds of waiting inside a
  C section (2 s of the run's wall time), at the ``diag: culprit`` line;
- one ``report-builder`` greenlet burns 0.1 s of CPU once (``diag: hog``), delaying at
  most the five other greenlets by 0.1 s: at most 0.5 greenlet-seconds, 0.1 s of wall
  time.  A loaded machine can stretch that slice to 0.5 s of wall time (2.5
  greenlet-seconds, and the pieces that arrive meanwhile wait as queueing, not as
  reads), which still leaves the reads three times the hog.
Whichever cost unit is used (greenlet-seconds delayed, or share of the run's wall time),
the reads cost several times the hog.  Expected: first finding
``blocked-read-in-c-section`` at the culprit line; a ``loop-blocked`` (CPU) finding for
``report-builder`` comes after it.  The ``ticker`` has timers due meanwhile.
"""

import sys
import time

import gevent
import lxml.etree
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HOG_CPU_S = 0.1


def burn(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:  # diag: hog
        pass


def parse_feed():
    response = requests.get(ARGS["xml"], stream=True, timeout=30)
    tree = lxml.etree.parse(response.raw, lxml.etree.XMLParser())  # diag: culprit
    return len(tree.getroot())


def hog():
    gevent.sleep(0.1)  # the reads are under way
    burn(HOG_CPU_S)  # diag: hog
    gevent.sleep(0)  # diag: hog


def ticker():
    for _ in range(100):
        gevent.sleep(0.005)



jobs = [spawn("feed-parser", parse_feed) for _ in range(4)]
jobs += [spawn("report-builder", hog), spawn("ticker", ticker)]
gevent.joinall(jobs, raise_error=True)
