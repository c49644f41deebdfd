"""One producer feeding twelve consumers, one request at a time.

Truth by construction (run monkey-patched): a ``producer`` greenlet fetches twelve
items, one after another, from a server that answers after 0.1 s, and puts each on a
``gevent.queue.Queue``; twelve ``consumer`` greenlets wait in the queue's ``get()`` for
them.  The loop idles nearly the whole run, the consumers wait about 12 x 0.6 s in all,
and nothing on their own lines explains it: the producer's sequential fetch (``diag:
culprit``) paces everyone.  Expected first finding ``serial-bottleneck`` there, naming
``producer``.

With ``mode=fixed`` the producer puts the URLs instead and each consumer fetches its
own: twelve requests in flight at once, the waits are on the network, and no
``serial-bottleneck``.
"""

import sys

import gevent
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ITEMS = 12
QUEUE = gevent.queue.Queue()


def fetch(url):
    return requests.get(url, timeout=30).content  # diag: network-wait


def producer():
    for _ in range(ITEMS):
        if ARGS.get("mode") == "fixed":
            QUEUE.put(ARGS["slow"])
        else:
            QUEUE.put(requests.get(ARGS["slow"], timeout=30).content)  # diag: culprit


def consumer():
    item = QUEUE.get(timeout=30)
    return len(fetch(item) if ARGS.get("mode") == "fixed" else item)


jobs = [spawn("consumer", consumer) for _ in range(ITEMS)]
jobs.append(spawn("producer", producer))
gevent.joinall(jobs, raise_error=True)
