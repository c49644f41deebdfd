"""An enricher whose cache never hits: it keeps each answer under the signed URL it
fetched it by, and every URL is signed anew (the current time, a nonce, an HMAC); with
``mode=token``, under a URL carrying a tracking token new at every request.

Truth by construction: an in-process gevent WSGI server answers ``/teams/<t>`` for TEAMS
teams after UPSTREAM_DELAY_S, each team's document always the same.  WORKERS greenlets
enrich UPDATES updates, each looking up two teams through ``team()``, which signs the
URL and then looks the signed URL up in its cache (``diag: culprit``): no lookup ever
hits, and the pool watch counts every URL as a different one.  Expected first finding
``repeated-request`` at that line, telling the signed URLs.  With ``mode=fixed`` the
cache is keyed on the team, before signing: no ``repeated-request``.
"""

import hashlib
import hmac
import sys
import time
import uuid

import gevent
import gevent.pool
import requests
from _stand_in import serve

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("mode") == "fixed"
TOKEN = ARGS.get("mode") == "token"
TEAMS, UPDATES, WORKERS = 12, 160, 8
UPSTREAM_DELAY_S = 0.02
SECRET = b"provider-secret"


def provider(environ, start_response):
    gevent.sleep(UPSTREAM_DELAY_S)
    body = f'{{"team": "{environ["PATH_INFO"].rsplit("/", 1)[-1]}", "crest": "x"}}'.encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(body)))])
    return [body]


upstream = serve(provider)
BASE = f"http://127.0.0.1:{upstream.server_port}"
session = requests.Session()
cache = {}


def signed(path):
    if TOKEN:
        return f"{BASE}{path}?_tk={uuid.uuid4().hex[:12]}"
    query = f"key=k1&nonce={uuid.uuid4().hex}&ts={time.time():.3f}"
    sig = hmac.new(SECRET, f"{path}?{query}".encode(), hashlib.sha256).hexdigest()
    return f"{BASE}{path}?{query}&sig={sig}"


def team(name):
    path = f"/teams/{name}"
    url = signed(path)
    key = path if FIXED else url
    if key not in cache:
        answer = session.get(url, timeout=30)  # diag: culprit
        answer.raise_for_status()
        cache[key] = answer.json()
    return cache[key]


def enrich(update):
    return team(f"t{update % TEAMS}"), team(f"t{(update * 7 + 3) % TEAMS}")


pool = gevent.pool.Pool(WORKERS)
pool.map(enrich, range(UPDATES))
upstream.stop()
