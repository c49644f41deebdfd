"""A service that keeps its upstream's JSON documents as text and parses one at every
request it serves.

Truth by construction: an in-process gevent WSGI server answers ``/item/<doc>/<n>`` with
one entry of one of DOCS JSON documents (ENTRIES entries each), which it fetches from
its upstream (a WSGI server in this process too) once per document, under a lock its
handlers re-check the cache in, and keeps as text; each request parses the kept text
again (``diag: culprit``).  CLIENTS client greenlets,
a Session each, make CALLS GET requests.  The program receives DOCS documents and parses
CLIENTS * CALLS: the loop saturates on parsing the same JSON.  Expected: the first
finding a CPU one at that line, telling the same JSON parsed again and again.  With
``mode=fixed`` the parsed object is kept instead: no such story.
"""

import json
import sys

import gevent
import gevent.lock
import requests
from _stand_in import load_clients, serve

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("mode") == "fixed"
DOCS, ENTRIES, CLIENTS, CALLS = 4, 3000, 16, 25


def upstream_app(environ, start_response):
    doc = environ["PATH_INFO"].rsplit("/", 1)[-1]
    body = json.dumps({"doc": doc, "entries": [
        {"id": n, "name": f"entry {n} of {doc}", "tags": ["a", "b", "c"], "score": n * 0.5}
        for n in range(ENTRIES)]}).encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(body)))])
    return [body]


upstream = serve(upstream_app)
UPSTREAM = f"http://127.0.0.1:{upstream.server_port}/doc/"
session = requests.Session()
texts, parsed = {}, {}
fetching = gevent.lock.Semaphore()  # one fetch at a time, the cache checked again in it


def document(doc):
    kept = parsed if FIXED else texts
    if doc not in kept:
        with fetching:
            if doc not in kept:
                answer = session.get(UPSTREAM + doc, timeout=30)
                kept[doc] = answer.json() if FIXED else answer.content
    return parsed[doc] if FIXED else json.loads(texts[doc])  # diag: culprit


def app(environ, start_response):
    _, _, doc, n = environ["PATH_INFO"].split("/")
    body = json.dumps(document(doc)["entries"][int(n)]).encode()
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


service = serve(app)
load_clients(service, lambda number, call: f"/item/{call % DOCS}/{number}", CLIENTS, CALLS)
service.stop()
upstream.stop()
