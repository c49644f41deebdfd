"""Jobs in a Pool that back off a fixed second before trying a call again.

Truth by construction: 60 ``sync`` jobs go through a ``Pool(6)`` (``diag: culprit``);
each calls a kept-alive server that answers after ``kept=``'s delay, every third one
with a 503, and tries that one again after ``gevent.sleep(BACKOFF)`` (``diag:
backoff``), holding its slot asleep.  Expected first finding ``retry-backoff``, the
program's own (a sleep per 503), naming the sleep's line and the 503s, and no
``pool-full``.  With ``backoff=0.01`` the jobs hold their slots on the server's answers
instead: no ``pool-full`` told as a timer.  With ``status=429`` the server refuses with
429 (Too Many Requests): a throttled upstream, whose fix is fewer calls at once; with
``status=404``, an answer no retry changes, whose fix is to stop retrying it.  With
``slots=30`` (and 429s) more calls are in flight at once than a paced upstream takes:
the fix is fewer at once; with the Pool(6), calls paced at the upstream's rate.
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS, REFUSED_EVERY = 60, 3
SLOTS = int(ARGS.get("slots", "6"))
BACKOFF = float(ARGS.get("backoff", "1.0"))
REFUSAL = int(ARGS.get("status", "503"))
session = requests.Session()


def sync(job):
    shed = f"&status={REFUSAL}" if job % REFUSED_EVERY == 0 else ""
    answer = session.get(f"{ARGS['kept']}&job={job}{shed}", timeout=30)
    if answer.status_code == REFUSAL:  # the upstream shed this one: back off, try again
        gevent.sleep(BACKOFF)  # diag: backoff
        answer = session.get(f"{ARGS['kept']}&job={job}", timeout=30)
    return answer.status_code


pool = gevent.pool.Pool(SLOTS)
for job in range(JOBS):
    pool.spawn(sync, job)  # diag: culprit
pool.join(raise_error=True)
