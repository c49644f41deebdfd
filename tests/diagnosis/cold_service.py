"""Clients of the program's own service, whose first answers wait on its cold cache.

Truth by construction (healthy): an in-process gevent WSGI server (a greenlet per
connection, no bound; or ``spawn=N`` with ``spawn=N`` given) answers ``/page/<n>`` for
pages, the first request for each after FILL_S (its cache filled from a slow source),
the others at once.  CLIENTS client greenlets, a Session each (one connection each),
ask first for a page of their own, which meets the cold cache, then for PAGES shared
ones in turn, warmed at start.  Every connection is accepted and served at once: its first
answer is late by the handler's own wait, not by a queue of connections in a backlog.
Expected: no ``new-connections-queued`` (told, its fix -- fewer connections per host --
would change nothing).  With ``spawn=N`` below CLIENTS the server's pool is full and
connections do wait for a slot: the finding may be told.
"""

import sys

import gevent
from _stand_in import load_clients, serve

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PAGES, CLIENTS, CALLS, FILL_S, PAUSE_S = 8, 30, 20, 0.4, 0.01
cache = {str(page): f"page {page}".encode() for page in range(PAGES)}  # warmed


def app(environ, start_response):
    page = environ["PATH_INFO"].rsplit("/", 1)[-1]
    if page not in cache:
        gevent.sleep(FILL_S)  # the slow source the cache is filled from
        cache[page] = f"page {page}".encode()
    body = cache[page]
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


service = serve(app, spawn=int(ARGS["spawn"]) if "spawn" in ARGS else "default")


def page_of(number, call):
    """A client's own page first (a cold one), then the shared ones."""
    return f"/page/own{number}" if call == 0 else f"/page/{call % PAGES}"


load_clients(service, page_of, CLIENTS, CALLS, PAUSE_S)
service.stop()
