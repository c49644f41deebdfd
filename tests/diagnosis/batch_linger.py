"""Each job fetches an order, then hands its audit record to a batcher and waits until
its record's batch is stored; the batcher waits up to ``linger`` seconds for a batch of
50 to fill.

Truth by construction (run monkey-patched): a ``gevent.pool.Pool(16)`` runs 240 jobs;
with 16 jobs at most, a batch never reaches 50, so every batch waits out the whole
linger (0.2 s by default) while its jobs wait for it (``diag: culprit``) and the
batcher waits for records that are not coming (``diag: linger``).  Expected first
finding ``pool-full``, told as the jobs waiting for the batcher's linger
(``lingered_in_slots``, the linger line).  With ``linger=0.005`` the batches go out at
once: no such story.

With ``run=greenlets`` no Pool: 16 greenlets named ``producer`` do 15 jobs each, one
after another (a service's handlers, each answering after its audit record is stored).
Expected first finding ``serial-bottleneck``, told as the batcher's linger at the
linger line, greenlet ``batcher``.
"""

import sys
import time

import gevent
import gevent.event
import gevent.pool
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 240
MAX_BATCH = 50
LINGER = float(ARGS.get("linger", 0.2))
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=20))
records = gevent.queue.Queue()


def batcher():
    while True:
        item = records.get()
        if item is None:
            return
        batch, deadline = [item], time.monotonic() + LINGER
        while len(batch) < MAX_BATCH:
            try:
                item = records.get(timeout=max(0.0, deadline - time.monotonic()))  # diag: linger
            except gevent.queue.Empty:
                break
            if item is None:
                records.put(None)
                break
            batch.append(item)
        session.post(f"{ARGS['base']}/audit?delay=0.005", json=[r for r, _ in batch],
                     timeout=30).close()
        for _record, done in batch:
            done.set(True)


def job(n):
    session.get(f"{ARGS['base']}/orders/{n}?delay=0.005", timeout=30).close()
    done = gevent.event.AsyncResult()
    records.put(({"order": n}, done))
    return done.get(timeout=30)  # diag: culprit


def producer(first):
    return all(job(n) for n in range(first, first + JOBS // PRODUCERS))


PRODUCERS = 16
writer = spawn("batcher", batcher)
if ARGS.get("run") == "greenlets":
    producers = [spawn("producer", producer, i * JOBS // PRODUCERS) for i in range(PRODUCERS)]
    gevent.joinall(producers, raise_error=True)
    assert all(p.value for p in producers)
else:
    assert all(gevent.pool.Pool(PRODUCERS).imap_unordered(job, range(JOBS)))
records.put(None)
writer.join()
