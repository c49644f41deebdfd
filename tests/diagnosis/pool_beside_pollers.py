"""A status backend: a Pool of probes, and pollers its main greenlet started beside it.

Truth by construction: main starts 8 ``poller`` greenlets with ``gevent.spawn`` (each
asks the server, then sleeps 0.1 s, until the probes are done: a status page refreshing
itself), then sends 96 ``probe`` jobs through a ``Pool(8)`` (``diag: culprit``), each
a call the server answers after ``kept=``'s delay.  The Pool's jobs never sleep: the
pollers do, and gevent records main as the spawner of both.  Expected: no ``pool-full``
told as jobs asleep in their slots (before, the pollers' sleeps were told as the Pool's
jobs sleeping: an unseen status backend), and ``meta.pool_jobs`` counts the probes only.
"""

import sys

import gevent
import gevent.event
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PROBES, SLOTS, POLLERS, POLL_EVERY = 96, 8, 8, 0.1
session = requests.Session()
done = gevent.event.Event()


def poller():
    while not done.is_set():
        session.get(f"{ARGS['kept']}&status-page=1", timeout=30)
        gevent.sleep(POLL_EVERY)


def probe(n):
    return session.get(f"{ARGS['kept']}&probe={n}", timeout=30).status_code


pollers = [gevent.spawn(poller) for _ in range(POLLERS)]
pool = gevent.pool.Pool(SLOTS)
for n in range(PROBES):
    pool.spawn(probe, n)  # diag: culprit
pool.join(raise_error=True)
done.set()
gevent.joinall(pollers, raise_error=True)
