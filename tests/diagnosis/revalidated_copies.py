"""A caching service whose copies' expiry never holds: it asks its upstream whether each
copy changed on every use, and is told 304 Not Modified.

Truth by construction: an in-process gevent WSGI server answers ``/doc/<n>`` for DOCS
documents from a cache of copies, each with its ETag and an expiry TTL_S ahead.  The
expiry is stored from ``time.monotonic()`` and compared with ``time.time()``, so every
copy counts as expired at every use, and the handler revalidates it upstream with
``If-None-Match`` (``diag: culprit``): the upstream, in this process too, answers 304
after UPSTREAM_DELAY_S.  CLIENTS client greenlets, a Session each, ask for the documents
in turn, pausing PAUSE_S between calls.  The service asks its upstream for DOCS URLs and nothing else, as a load test
or a poll of a few URLs would; the calls are its handlers'.  Expected first finding
``repeated-request`` at that line, telling the 304s and the expiry's clock.  With
``mode=fixed`` the expiry is compared with the clock it was stored from: no
``repeated-request``.
"""

import hashlib
import sys
import time

import gevent
import requests
from _stand_in import load_clients, serve

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("mode") == "fixed"
DOCS, CLIENTS, CALLS = 20, 16, 25
TTL_S, UPSTREAM_DELAY_S, PAUSE_S = 60.0, 0.03, 0.01


def upstream_app(environ, start_response):
    body = f"document {environ['PATH_INFO']}".encode() * 50
    etag = '"%s"' % hashlib.sha1(body).hexdigest()
    gevent.sleep(UPSTREAM_DELAY_S)
    if environ.get("HTTP_IF_NONE_MATCH") == etag:
        start_response("304 Not Modified", [("ETag", etag)])
        return [b""]
    start_response("200 OK", [("ETag", etag), ("Content-Length", str(len(body)))])
    return [body]


upstream = serve(upstream_app)
UPSTREAM = f"http://127.0.0.1:{upstream.server_port}"
session = requests.Session()
copies = {}  # path -> [body, etag, expires]


def document(path):
    copy = copies.get(path)
    now = time.monotonic() if FIXED else time.time()
    if copy is not None and copy[2] > now:
        return copy[0]
    headers = {"If-None-Match": copy[1]} if copy is not None else {}
    answer = session.get(UPSTREAM + path, headers=headers, timeout=30)  # diag: culprit
    if answer.status_code == 304:
        copy[2] = time.monotonic() + TTL_S
        return copy[0]
    answer.raise_for_status()
    copies[path] = [answer.content, answer.headers["ETag"], time.monotonic() + TTL_S]
    return answer.content


def app(environ, start_response):
    body = document(environ["PATH_INFO"])
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


service = serve(app)
load_clients(service, lambda number, call: f"/doc/{(number + call) % DOCS}", CLIENTS, CALLS,
             PAUSE_S)
service.stop()
upstream.stop()
