"""Eight greenlets call an upstream that answers 503 every time, through an adapter that
retries a 503 three times with back-off.

Truth by construction: each call sleeps in urllib3's retry back-off before its second,
third and fourth attempts (0, 0.1 and 0.2 s with ``backoff_factor=0.05`` on urllib3 2;
urllib3 1 sleeps after the first too), and the upstream answers each attempt at once:
the calls' time is the back-off, not the network.  The report's tables show it under
``Session.get`` (``diag: culprit``).  Expected first finding ``retry-backoff`` there,
naming ``caller``.  With ``retries=0`` nothing is retried: no ``retry-backoff``.  With
``status=404`` (and an upstream answering 404) the adapter retries a 404, which no
retry changes: the finding says to take it out of ``status_forcelist``.  With
``throttle=1`` the upstream is a gevent WSGI server in this process that answers each
caller's first three attempts 429 (Too Many Requests) and the fourth 200: every call
succeeds in the end, and the finding names the 429s its retries waited out.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.pywsgi import WSGIServer
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CALLERS = 8
RETRIES = int(ARGS.get("retries", 3))
STATUS = int(ARGS.get("status", 503))
THROTTLED_ATTEMPTS = 3
session = requests.Session()

if ARGS.get("throttle") == "1":
    STATUS = 429
    attempts: dict[str, int] = {}

    def throttling(environ, start_response):
        path = environ["PATH_INFO"]
        attempts[path] = attempts.get(path, 0) + 1
        throttled = attempts[path] <= THROTTLED_ATTEMPTS
        start_response("429 Too Many Requests" if throttled else "200 OK",
                       [("Content-Length", "2")])
        return [b"no" if throttled else b"ok"]

    upstream = WSGIServer(("127.0.0.1", 0), throttling, log=None)
    upstream.start()
session.mount("http://", HTTPAdapter(max_retries=Retry(
    total=RETRIES, backoff_factor=0.05, status_forcelist=[STATUS], raise_on_status=False)))


def caller(n):
    url = (f"http://127.0.0.1:{upstream.server_port}/caller/{n}"
           if ARGS.get("throttle") == "1" else ARGS["busy"])
    return session.get(url, timeout=30).status_code  # diag: culprit


jobs = [spawn("caller", caller, n) for n in range(CALLERS)]
gevent.joinall(jobs, raise_error=True)
assert all(g.value == (200 if ARGS.get("throttle") == "1" else STATUS) for g in jobs)
