"""An aggregator fanning out to four upstreams per request, one of them slow in its tail.

Truth by construction: four pywsgi upstreams in this process answer at once, except the
one on the lowest port, which takes ``TAIL_S`` on every eighth call (12.5 %).  Each of
``REQUESTS`` requests (eight at a time) spawns one ``ask`` per upstream and joins them
(``diag: culprit``): every request that reaches a slow answer lasts as long as it.
Expected: ``fanout-tail`` naming that upstream and the join.  With ``mode=deadline`` the
join waits at most ``DEADLINE_S`` and kills the late calls (the fix): no such finding.
With ``mode=map`` each request fans out with a Group's ``map`` instead (``diag: mapped``):
the same finding, at that line.  With ``mode=retry`` the slow upstream answers 503 at
once with ``Retry-After: 1`` instead, and urllib3's ``Retry`` sleeps that second inside
the call: the tail is the retry's back-off (``retry-backoff``), not a slow host.
"""

import itertools
import sys

import gevent
import gevent.pool
import requests
from _stand_in import listener
from gevent.pywsgi import WSGIServer
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
UPSTREAMS, REQUESTS, AT_ONCE = 4, 96, 8
TAIL_S, TAIL_EVERY, DEADLINE_S = 0.8, 8, 0.1
calls = itertools.count()


def upstream(slow: bool):
    def app(environ, start_response):
        if slow and next(calls) % TAIL_EVERY == 0:
            if ARGS.get("mode") == "retry":  # at once, asking to come back in a second
                start_response("503 Service Unavailable",
                               [("Retry-After", "1"), ("Content-Length", "0")])
                return [b""]
            gevent.sleep(TAIL_S)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]
    return app


socks = [listener() for _ in range(UPSTREAMS)]
slow_port = min(sock.getsockname()[1] for sock in socks)  # the test finds it so
for sock in socks:
    WSGIServer(sock, upstream(sock.getsockname()[1] == slow_port), log=None,
               error_log=None).start()
urls = [f"http://127.0.0.1:{sock.getsockname()[1]}/" for sock in socks]
session = requests.Session()
if ARGS.get("mode") == "retry":
    session.mount("http://", HTTPAdapter(max_retries=Retry(
        total=2, status_forcelist=[503], respect_retry_after_header=True)))


def ask(url: str) -> bytes:
    return session.get(url, timeout=10).content


def handle(n: int) -> None:
    if ARGS.get("mode") == "map":
        gevent.pool.Group().map(ask, urls)  # diag: mapped
        return
    jobs = [gevent.spawn(ask, url) for url in urls]
    if ARGS.get("mode") == "deadline":
        gevent.joinall(jobs, timeout=DEADLINE_S)
        gevent.killall([job for job in jobs if not job.ready()])
    else:
        gevent.joinall(jobs)  # diag: culprit


gevent.pool.Pool(AT_ONCE).map(handle, range(REQUESTS))
