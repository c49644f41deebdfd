"""A hundred jobs run through a Pool(10); each spawns a keeper that renews its lease
every 10 ms (a GET of the kept-alive server) while the job makes its own 30 ms call, and
kills it only when the job fails.

Truth by construction: every job succeeds, so every keeper outlives its job and keeps
renewing until the program ends, its calls competing with the jobs' for the session's
pool.  Expected first finding ``greenlet-leak`` naming 'keeper' and its spawner 'job'
(``diag: culprit`` at the renewal).  With ``stop=finally`` the job kills its keeper on
every path (the fix the finding gives): no ``greenlet-leak``.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 100
RENEW_S = 0.01
session = requests.Session()


def keeper(i):
    while True:
        gevent.sleep(RENEW_S)
        response = session.get(f"{ARGS['kept']}/slow?delay=0", timeout=30)  # diag: culprit
        response.close()


def job(i):
    kept = spawn("keeper", keeper, i)
    try:
        session.get(f"{ARGS['kept']}/slow?delay=0.03", timeout=30).close()
    except Exception:
        kept.kill()
        raise
    finally:
        if ARGS.get("stop") == "finally":
            kept.kill()


pool = Pool(10)
for n in range(JOBS):
    pool.add(spawn("job", job, n))
pool.join(raise_error=True)
