"""Jobs in a Pool that back off a fixed second before trying a call again.

Truth by construction: 60 ``sync`` jobs go through a ``Pool(6)`` (``diag: culprit``);
each calls a server that answers after ``kept=``'s delay on kept-alive connections, and every third one is
"refused" (as a 503 would be) and tries again after ``gevent.sleep(BACKOFF)``
(``diag: backoff``), holding its slot asleep.  Expected first finding ``pool-full``,
told as the program's own timer (``slept_in_slots``) naming the sleep's line.  With
``backoff=0.01`` the jobs hold their slots on the server's answers instead: no
``pool-full`` told as a timer.
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS, SLOTS, REFUSED_EVERY = 60, 6, 3
BACKOFF = float(ARGS.get("backoff", "1.0"))
session = requests.Session()


def sync(job):
    if job % REFUSED_EVERY == 0:  # the upstream shed this one: back off, try again
        gevent.sleep(BACKOFF)  # diag: backoff
    return session.get(f"{ARGS['kept']}&job={job}", timeout=30).status_code


pool = gevent.pool.Pool(SLOTS)
for job in range(JOBS):
    pool.spawn(sync, job)  # diag: culprit
pool.join(raise_error=True)
