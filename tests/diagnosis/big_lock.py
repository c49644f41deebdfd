"""One lock held across each slow request: ten greenlets take turns.

Truth by construction (run monkey-patched, as ``geventperf run`` does by default):
ten ``handler`` greenlets each take one shared ``threading.Lock`` -- gevent's lock once
patched -- around a request to a server that answers after 0.1 s, so only one request
is ever in flight and the rest wait at the ``with`` line (``diag: culprit``) while the
loop idles.  Expected first finding ``lock-contended`` there.  With ``event``, the
handlers instead wait together on one ``threading.Event`` the main greenlet sets after
0.5 s: a wait for an event, whose inner lock no finding may call contended.
"""

import sys
import threading

import gevent
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HANDLERS = 10
LOCK = threading.Lock()
READY = threading.Event()


def handler():
    with LOCK:  # diag: culprit
        return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait


def waiter():
    READY.wait(30)


def spawn(name, func):
    g = gevent.Greenlet(func)
    g.name = name
    g.start()
    return g


jobs = [spawn("handler", waiter if "event" in ARGS else handler) for _ in range(HANDLERS)]
if "event" in ARGS:
    gevent.sleep(0.5)
    READY.set()
gevent.joinall(jobs, raise_error=True)
