"""Queue workers, each sending a job's three channel calls one after another.

Truth by construction: six ``worker`` greenlets take 60 jobs from a queue filled up
front (they never wait for the next one) and send each job's three calls -- one per
channel -- in turn (``diag: culprit``) to a kept-alive server that answers after
``kept=``'s delay, through a Session whose pool keeps 32: six calls in flight where
eighteen could be, while the loop sits idle.  Expected first finding
``sequential-calls`` at that line, naming the workers.  With ``mode=together`` each
job's calls go out together (a greenlet each, joined): no ``sequential-calls``.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.queue import Queue
from requests.adapters import HTTPAdapter

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS, JOBS, POOL = 6, 60, 32
CHANNELS = ("email", "sms", "push")
STOP = None
session = requests.Session()
session.mount("http://", HTTPAdapter(pool_maxsize=POOL))
jobs = Queue()
for job in range(JOBS):
    jobs.put(job)
for _ in range(WORKERS):
    jobs.put(STOP)


def send(job, channel):
    return session.get(f"{ARGS['kept']}&job={job}&channel={channel}", timeout=30).content  # diag: culprit


def work():
    for job in iter(jobs.get, STOP):
        if ARGS.get("mode") == "together":
            gevent.joinall([gevent.spawn(send, job, c) for c in CHANNELS], raise_error=True)
        else:
            for channel in CHANNELS:
                send(job, channel)


gevent.joinall([spawn("worker", work) for _ in range(WORKERS)], raise_error=True)
