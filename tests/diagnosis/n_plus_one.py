"""A gevent WSGI service whose handler fetches its eight items with eight upstream calls
in turn (the N+1 pattern), loaded by six clients in another process, eight requests each.

Truth by construction: the upstream answers each call after 10 ms, so a response takes
eight round trips, some 80 ms, in the handler's own greenlet at the call line (``diag:
culprit``).  The loop idles; nothing is slow but the sequence.  Expected first finding
``sequential-calls`` at that line.  With ``mode=batch`` the handler makes one call for
the lot (the same 10 ms): no such finding.

With ``mode=three`` the handler makes three different calls in turn (a profile page:
the user, their orders, their recommendations), three round trips a response: the same
finding, told as a few calls that may need each other's answers.  With
``mode=together`` it makes the three at once (a greenlet each, then joinall): no such
finding.  With ``mode=chain`` it makes them in turn, each asked with what the one
before answered (the orders by the user's answer, the recommendations by the orders'):
a chain, the response's floor, and no such finding.

With ``clients=here`` the clients are greenlets of this process, each with a Session
(a load test beside the service, as many programs run): their waits for the pages are
the handlers' work, not calls of their own, and the findings are the same.  With
``upstream=here`` too, the upstream is a gevent WSGI server of this process as well
(answering after 50 ms, with TCP_NODELAY): a stand-in whose responses are not the
service's, and the findings are the same.
"""

import itertools
import subprocess
import sys

import gevent
import requests
from _stand_in import stand_in
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ITEMS = 8
UPSTREAM_DELAY_S = 0.05
session = requests.Session()
# Each request is a different user's page: its calls ask for that user's parts and items
# (the same URL from every handler at once would be a duplicate-in-flight of its own).
users = itertools.count()

CLIENTS = """
import sys, threading, requests
def client():
    with requests.Session() as s:
        for _ in range(8):
            s.get(sys.argv[1], timeout=30).content
threads = [threading.Thread(target=client) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
"""


def fetch(part, user):
    return session.get(f"{ARGS['slow']}&part={part}&user={user}",  # diag: three
                       timeout=30).content


def page(user):
    """The profile page's three parts, in turn or at once."""
    parts = ("user", "orders", "recommendations")
    if ARGS.get("mode") == "together":
        jobs = [gevent.spawn(fetch, part, user) for part in parts]
        gevent.joinall(jobs, raise_error=True)
        return [job.value for job in jobs]
    return [fetch(part, user) for part in parts]


def chained_page(user):
    """The page's parts, each asked with what the one before answered: a chain."""
    account = fetch("user", user)
    orders = fetch("orders", len(account))  # diag: chain
    return [account, orders, fetch("recommendations", len(orders))]


def app(environ, start_response):
    user = next(users)
    if ARGS.get("mode") == "batch":
        bodies = [session.get(f"{ARGS['slow']}&user={user}", timeout=30).content]
    elif ARGS.get("mode") in ("three", "together"):
        bodies = page(user)
    elif ARGS.get("mode") == "chain":
        bodies = chained_page(user)
    else:
        bodies = [session.get(f"{ARGS['slow']}&user={user}&item={item}",  # diag: culprit
                              timeout=30).content
                  for item in range(ITEMS)]
    body = b"".join(bodies)
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


def client(url):
    with requests.Session() as own:
        for _ in range(8):
            own.get(url, timeout=30).raise_for_status()


if ARGS.get("upstream") == "here":
    ARGS["slow"] = stand_in(UPSTREAM_DELAY_S)[1] + "slow?"
server = WSGIServer(("127.0.0.1", 0), app, log=None)
server.start()
url = f"http://127.0.0.1:{server.server_port}/"
if ARGS.get("clients") == "here":
    gevent.joinall([gevent.spawn(client, url) for _ in range(6)], raise_error=True)
else:
    subprocess.run([sys.executable, "-c", CLIENTS, url], check=True, timeout=60)
server.stop()
