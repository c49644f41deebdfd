"""A job broker of three stages, served by a gevent StreamServer in this process (a
line protocol over kept-alive connections), and twelve workers (four per stage) that
long-poll it for their next job, call the slow upstream for it and report it done,
which hands it to the next stage.  Two clients submit eight jobs each, one at a time,
waiting for each to come out of the last stage.  The broker's long-poll handler checks
its stage's deque every 50 ms in ``gevent.sleep`` until a job is there or the poll's
deadline passes.

Truth by construction: each of the 16 jobs' three hops waits for the next tick of a
polling handler, 25 ms on average, about as long as a stage's own call upstream (the
slow server's 20 ms): the polling, not the upstream, sets the pipeline's pace.
Expected first finding ``sleep-poll`` at the poll's line.  With ``wait=queue`` the
handler waits on a gevent queue per stage (``get(timeout=...)``), which wakes it as
soon as a job is put: no ``sleep-poll``.
"""

import collections
import sys
import time

import gevent
import gevent.event
import gevent.queue
import requests
from _greenlets import spawn
from gevent import socket
from gevent.server import StreamServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
STAGES, WORKERS_PER_STAGE, CLIENTS, JOBS_EACH = 3, 4, 2, 8
POLL_S = 0.05
LONG_POLL_S = 0.3
STOP = -1  # the job that tells a worker to leave
ready = [collections.deque() for _ in range(STAGES)]
queues = [gevent.queue.Queue() for _ in range(STAGES)]
finished = {}  # job -> its Event, set when it leaves the last stage


def put(stage, job):
    if ARGS.get("wait") == "queue":
        queues[stage].put(job)
    else:
        ready[stage].append(job)


def next_job(stage):
    """A job of *stage*, or None when the long poll's deadline passed."""
    if ARGS.get("wait") == "queue":
        try:
            return queues[stage].get(timeout=LONG_POLL_S)
        except gevent.queue.Empty:
            return None
    deadline = time.monotonic() + LONG_POLL_S
    while not ready[stage]:
        if time.monotonic() >= deadline:
            return None
        gevent.sleep(POLL_S)  # diag: poll
    return ready[stage].popleft()


def broker(conn, _address):
    """``NEXT stage`` -> a job id, or an empty line when the poll's deadline passed;
    ``DONE stage job`` -> ``ok``, the job handed to the next stage (or finished)."""
    with conn, conn.makefile("rb") as lines:
        for line in lines:
            verb, stage, *job = line.split()
            stage = int(stage)
            if verb == b"NEXT":
                got = next_job(stage)
                conn.sendall(b"\n" if got is None else b"%d\n" % got)
            else:
                if stage + 1 < STAGES:
                    put(stage + 1, int(job[0]))
                else:
                    finished[int(job[0])].set()
                conn.sendall(b"ok\n")


def worker(address, stage):
    with requests.Session() as session, socket.create_connection(address) as conn, \
            conn.makefile("rb") as replies:
        while True:
            conn.sendall(b"NEXT %d\n" % stage)
            job = replies.readline().strip()
            if not job:
                continue
            if int(job) == STOP:
                return
            assert session.get(ARGS["slow"], timeout=30).content  # the stage's own work
            conn.sendall(b"DONE %d %s\n" % (stage, job))
            replies.readline()


def client(first):
    for job in range(first, first + JOBS_EACH):
        finished[job] = gevent.event.Event()
        put(0, job)
        finished[job].wait()


server = StreamServer(("127.0.0.1", 0), broker)
server.start()
workers = [spawn(f"stage{stage}", worker, ("127.0.0.1", server.server_port), stage)
           for stage in range(STAGES) for _ in range(WORKERS_PER_STAGE)]
gevent.joinall([spawn("client", client, n * JOBS_EACH) for n in range(CLIENTS)],
               raise_error=True)
for stage in range(STAGES):
    for _ in range(WORKERS_PER_STAGE):
        put(stage, STOP)
gevent.joinall(workers, raise_error=True)
server.stop()
assert all(done.is_set() for done in finished.values()) \
    and len(finished) == CLIENTS * JOBS_EACH
