"""One lock held across each slow request: ten greenlets take turns.

Truth by construction (run monkey-patched, as ``geventperf run`` does by default):
ten ``handler`` greenlets each take one shared lock around a request to a server that
answers after 0.1 s, so only one request is ever in flight and the rest wait at the
line that takes it (``diag: culprit``) while the loop idles.  Expected first finding
``lock-contended`` there.  The lock (``lock=``):

* ``threading`` (the default): a ``threading.Lock``, gevent's lock once patched, taken
  with ``with`` (gevent's Python frames show the wait);
* ``rlock``: a ``threading.RLock``, once patched the standard library's Python RLock
  around gevent's lock (its ``_RLock.acquire`` frame sits between the two);
* ``semaphore``: a ``gevent.lock.BoundedSemaphore(1)`` taken with ``with``, and
  ``acquire``: the same semaphore's ``acquire()``/``release()`` (compiled: only the
  handler's own line shows the wait).

With ``event``, the handlers instead wait together on one event the main greenlet sets
after 0.5 s: a ``threading.Event`` (``event=threading``), a ``gevent.event.Event``
(``event=gevent``) or an item each from a ``gevent.queue.Queue`` (``event=queue``): a
wait for an event, which no finding may call a contended lock.
"""

import sys
import threading

import gevent
import gevent.event
import gevent.lock
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HANDLERS = 10
LOCK = threading.RLock() if ARGS.get("lock") == "rlock" else threading.Lock()
SEMAPHORE = gevent.lock.BoundedSemaphore(1)
EVENTS = {"threading": threading.Event(), "gevent": gevent.event.Event()}
QUEUE = gevent.queue.Queue()


def fetch():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait


def handler():
    with LOCK:  # diag: culprit
        return fetch()


def semaphore_handler():
    with SEMAPHORE:  # diag: culprit
        return fetch()


def acquire_handler():
    SEMAPHORE.acquire(timeout=ARGS.get("timeout") and float(ARGS["timeout"]))  # diag: culprit
    try:
        return fetch()
    finally:
        SEMAPHORE.release()


def waiter():
    if ARGS["event"] == "queue":
        return QUEUE.get(timeout=30)
    return EVENTS[ARGS["event"]].wait(30)



HANDLER = {"threading": handler, "rlock": handler, "semaphore": semaphore_handler,
           "acquire": acquire_handler}[ARGS.get("lock", "threading")]
jobs = [spawn("handler", waiter if "event" in ARGS else HANDLER) for _ in range(HANDLERS)]
if "event" in ARGS:
    gevent.sleep(0.5)
    if ARGS["event"] == "queue":
        for _ in range(HANDLERS):
            QUEUE.put(1)
    else:
        EVENTS[ARGS["event"]].set()
gevent.joinall(jobs, raise_error=True)
