"""Jobs arrive twice as fast as a fixed set of workers can serve them.

Truth by construction (run monkey-patched): an ``ingest`` greenlet puts 120 jobs on an
unbounded ``gevent.queue.Queue``, one every 5 ms (200 jobs/s); four ``worker``
greenlets take them one at a time, each job one call to a server answering after
40 ms (``diag: culprit``): four workers serve at most 100 jobs/s.  The queue grows, and
every job waits longer for a worker, while the loop idles and every call takes its
usual 40 ms.  Expected first finding ``workers-saturated`` naming ``worker`` at the
call line.

With ``workers=16`` (capacity 400 jobs/s) the workers wait at the queue for each next
job: no ``workers-saturated``.
"""

import sys

import gevent
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS = int(ARGS.get("workers", 4))
JOBS = 120
ARRIVAL_GAP_S = 0.005
jobs = gevent.queue.Queue()  # unbounded: the backlog grows instead of pushing back
STOP = object()


def ingest():
    for n in range(JOBS):
        jobs.put(n)
        gevent.sleep(ARRIVAL_GAP_S)
    for _ in range(WORKERS):
        jobs.put(STOP)


def worker():
    with requests.Session() as session:
        while True:
            job = jobs.get()
            if job is STOP:
                return
            session.get(ARGS["slow"], timeout=30).raise_for_status()  # diag: culprit


gevent.joinall([spawn("ingest", ingest)] + [spawn("worker", worker)
                                            for _ in range(WORKERS)])
