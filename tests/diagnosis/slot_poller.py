"""A job runner keeps eight report jobs in flight: its loop drops the finished ones,
starts new ones up to eight, then sleeps 100 ms (``gevent.sleep(0.1)``) before
looking again.  Each job fetches from the slow upstream (10-150 ms).

Truth by construction: a job that ends leaves its slot empty until the loop's next
wake-up, about half an interval (50 ms) on average, near a job's own 80 ms: the
polling, not the upstream, sets the run's pace.  Expected first finding ``sleep-poll``
at the loop's sleep, naming a Pool of eight as the fix.  With ``start=pool`` a
``gevent.pool.Pool(8)`` starts the next job as soon as one ends: no ``sleep-poll``.
"""

import random
import sys

import gevent
import requests
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS, IN_FLIGHT, POLL_S = 80, 8, 0.1
session = requests.Session()
rng = random.Random(11)
delays = [rng.uniform(0.01, 0.15) for _ in range(JOBS)]


def report(delay):
    slow = ARGS["slow"].split("?")[0]
    assert session.get(f"{slow}?delay={delay:.3f}", timeout=30).content


def run_all():
    pending, running = list(delays), []
    while pending or running:
        running = [g for g in running if not g.dead]
        while pending and len(running) < IN_FLIGHT:
            running.append(gevent.spawn(report, pending.pop()))
        if running:
            gevent.sleep(POLL_S)  # diag: poll


if ARGS.get("start") == "pool":
    pool = Pool(IN_FLIGHT)
    for delay in delays:
        pool.spawn(report, delay)
    pool.join()
else:
    run_all()
