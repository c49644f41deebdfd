"""A background OS thread the program starts itself (``_thread``, not gevent's
threadpool) crunches numbers in pure Python while ten handlers fetch and sum.

Truth by construction: the ``crunch`` thread holds the GIL, which the loop's thread
needs to run any greenlet or the hub; the loop's thread spends much of the run off the
CPU, asleep on the lock, while greenlets queue.  No threadpool task records that
thread's CPU: the process's CPU less the loop thread's tells it.  Expected first finding
``gil-contended`` naming other threads, not gevent's threadpool; no ``blocking-call``
advising to monkey-patch.  With ``work=hashlib`` the thread hashes a large buffer,
which releases the GIL while it works: no ``gil-contended``.
"""

import hashlib
import sys

import gevent
import requests
from _greenlets import spawn
from gevent import monkey

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
start_thread = monkey.get_original("_thread", "start_new_thread")
BUFFER = b"x" * (4 << 20)
stop = []


def crunch():
    total = 0
    while not stop:
        if ARGS.get("work") == "hashlib":
            hashlib.sha256(BUFFER).digest()  # releases the GIL while it hashes
        else:
            for i in range(10_000):
                total = (total * 31 + i) % 1_000_003  # diag: culprit


def handler():
    session = requests.Session()
    received = 0
    for _ in range(8):
        received += len(session.get(ARGS["slow"], timeout=30).content)
        sum(i for i in range(20_000))
    return received


start_thread(crunch, ())
gevent.joinall([spawn("handler", handler) for _ in range(10)], raise_error=True)
stop.append(True)
