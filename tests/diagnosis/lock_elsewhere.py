"""Handlers take a shared lock only to copy a cached entry, then make their own call;
a refresher holds the same lock across its slow reload.  The handlers queue for the
refresher, not for each other.

Truth by construction (run monkey-patched, as ``geventperf run`` does by default):
eight ``handler`` greenlets each, 12 times, take a ``threading.Lock`` around a dict
lookup (``diag: culprit``), then fetch a URL that answers after 20 ms outside it
(``diag: network-wait``).  A ``refresher`` greenlet, every 20 ms, takes the lock and
fetches a URL that answers after 80 ms while holding it (``diag: holder``).  Expected
first finding ``lock-contended`` at the handlers' line, saying that the handlers'
own calls (some 1.9 s of waiting in all, in a run of about 1 s) cannot have been made
under the lock, and naming the refresher's call.
"""

import sys
import threading

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HANDLERS = 8
CALLS = 12
RELOAD_EVERY_S = 0.02
LOCK = threading.Lock()
CACHE = {"version": 0}
done = threading.Event()


def handler():
    session = requests.Session()
    for _ in range(CALLS):
        with LOCK:  # diag: culprit
            seen = dict(CACHE)
        assert session.get(ARGS["fast"], timeout=30).content and seen  # diag: network-wait


def refresher():
    session = requests.Session()
    while not done.is_set():
        gevent.sleep(RELOAD_EVERY_S)
        with LOCK:
            body = session.get(ARGS["slow"], timeout=30).content  # diag: holder
            CACHE["version"] += len(body) > 0


reloads = spawn("refresher", refresher)
gevent.joinall([spawn("handler", handler) for _ in range(HANDLERS)], raise_error=True)
done.set()
reloads.join()
