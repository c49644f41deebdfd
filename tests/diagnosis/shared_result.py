"""Jobs that all wait for a token renewal they do not need, again and again.

Truth by construction: ``Tokens.get`` renews the token once half of its lifetime has
passed.  Renewal is single-flight: the first caller starts one ``renew`` greenlet that
fetches a token from ``token=`` (a server that answers after its delay) and sets an
``AsyncResult``; every caller then waits on that result (``diag: culprit``), though the
token it holds is valid for the other half of its life.  A ``Pool(20)`` of jobs, a
greenlet per job, each take a token and make a short call to ``kept=``.  Expected first
finding ``serial-bottleneck`` told as a result awaited together, naming ``renew``'s
call.  With ``mode=ahead`` callers keep using the valid token while the renewal runs
(refresh ahead): no ``serial-bottleneck``.  Neither with ``mode=own``, where each job
starts its own fetch and awaits it (one waiter per call: no shared result).
"""

import sys
import time

import gevent
import requests
from gevent.event import AsyncResult
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS, CONCURRENCY = int(ARGS.get("jobs", "2000")), 20
LIFETIME_S = 0.5
RENEW_AT = 0.5  # share of the lifetime after which a renewal starts
session = requests.Session()


class Tokens:
    def __init__(self):
        self.token = None
        self.renew_at = self.expires_at = 0.0
        self.inflight = None

    def _fetch(self):
        answer = session.get(ARGS["token"], timeout=30)  # diag: feeder
        now = time.monotonic()
        self.token, self.renew_at = answer.status_code, now + RENEW_AT * LIFETIME_S
        self.expires_at = now + LIFETIME_S
        return self.token

    def _renew(self, result):
        try:
            result.set(self._fetch())
        except Exception as exc:
            result.set_exception(exc)
        finally:
            self.inflight = None

    def _renewal(self):
        if ARGS.get("mode") == "own":
            own = AsyncResult()
            gevent.spawn(self._renew, own)
            return own
        if self.inflight is None:
            self.inflight = AsyncResult()
            renewer = gevent.Greenlet(self._renew, self.inflight)
            renewer.name = "renew"
            renewer.start()
        return self.inflight

    def get(self):
        now = time.monotonic()
        if self.token is not None and now < self.renew_at:
            return self.token
        if ARGS.get("mode") == "ahead" and self.token is not None and now < self.expires_at:
            self._renewal()
            return self.token
        return self._renewal().get(timeout=30)  # diag: culprit


tokens = Tokens()


def job(number):
    token = tokens.get()
    session.get(f"{ARGS['kept']}&token={token}&job={number}", timeout=30)


pool = Pool(CONCURRENCY)
for number in range(JOBS):
    pool.spawn(job, number)
pool.join(raise_error=True)
