"""A claims job looking members and providers up through one client's ``_get``, each
lookup behind an ``lru_cache`` whose size is a module constant smaller than its keys.

Truth by construction: two pywsgi upstreams in this process (members, providers) answer
in ``ANSWER_S``.  Each of ``CLAIMS`` claims looks up one of ``PROVIDERS`` providers and one of
``MEMBERS`` members, each lookup a job of its own, behind
``functools.lru_cache(maxsize=CACHE_SIZE)``: a least-recently-used cache smaller than
the keys it cycles through evicts each before it comes back, so every lookup misses.
Both requests are sent from the same line (``diag: culprit``) of one helper.  Expected
first finding: ``repeated-request`` at that line naming the providers' cache (``diag:
providers``) as too small, and the members' cache (``diag: members``) with it.
``cache=all``: caches that hold every key: no ``repeated-request``.
"""

import functools
import sys

import gevent
import gevent.pool
import requests
from _stand_in import listener
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CACHE_SIZE = 32
PROVIDERS, CLAIMS = 60, 360  # each provider asked 6 times
MEMBERS = 150  # each member 2.4 times
WORKERS = 8
ANSWER_S = 0.01  # a partner's lookup: the job waits on its answers, not on its CPU


def answer(environ, start_response):
    gevent.sleep(ANSWER_S)
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", "2")])
    return [b"{}"]


bases = {}
for service in ("members", "providers"):
    sock = listener()
    WSGIServer(sock, answer, log=None, error_log=None).start()
    bases[service] = f"http://127.0.0.1:{sock.getsockname()[1]}"


class Partners:
    def __init__(self):
        self.http = requests.Session()

    def _get(self, service, path):
        return self.http.get(bases[service] + path, timeout=5).json()  # diag: culprit

    @functools.lru_cache(maxsize=CACHE_SIZE)  # diag: members  # noqa: B019
    def eligibility(self, member):
        return self._get("members", "/members/%s/eligibility" % member)

    @functools.lru_cache(maxsize=CACHE_SIZE)  # diag: providers  # noqa: B019
    def network(self, npi):
        return self._get("providers", "/providers/%s/network" % npi)


if ARGS.get("cache") == "all":
    for name in ("eligibility", "network"):
        setattr(Partners, name,
                functools.lru_cache(maxsize=None)(getattr(Partners, name).__wrapped__))
partners = Partners()


def adjudicate(n: int) -> None:
    claim = n // 2
    if n % 2:
        partners.eligibility(f"M{claim % MEMBERS:05d}")
    else:
        partners.network(f"NPI{claim % PROVIDERS:06d}")


gevent.pool.Pool(WORKERS).map(adjudicate, range(2 * CLAIMS))
