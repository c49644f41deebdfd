"""Handlers fetch, then hand a hash to a ``concurrent.futures.ThreadPoolExecutor`` and
wait for it, believing the executor's threads take the work off the loop.

Truth by construction: ``geventperf run`` monkey-patches, and a patched
``threading.Thread`` is a greenlet of this loop, so the executor's worker runs every
hash on the loop and the handlers queue behind it.  Expected first finding: the loop's
CPU (saturated, held or blocked) at the hashing line, naming the worker as a thread
(``concurrent.futures.thread._worker (thread)``) and saying a process pool or gevent's
threadpool takes work off the loop.  With ``pool=gevent`` the same hashes run in
gevent's threadpool (real threads; PBKDF2 releases the GIL while it works): no finding
of the loop's CPU.
"""

import hashlib
import sys
from concurrent.futures import ThreadPoolExecutor

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
# About 10 ms of CPU per hash here (4 ms at 40 000): six per handler, 8 handlers.
ROUNDS = 100_000
executor = ThreadPoolExecutor(max_workers=2)


def digest(body):
    return hashlib.pbkdf2_hmac("sha256", body, b"salt", ROUNDS)  # diag: culprit


def handler():
    session = requests.Session()
    for _ in range(6):
        body = session.get(ARGS["slow"], timeout=30).content
        if ARGS.get("pool") == "gevent":
            gevent.get_hub().threadpool.spawn(digest, body).get()
        else:
            executor.submit(digest, body).result()


gevent.joinall([spawn("handler", handler) for _ in range(8)], raise_error=True)
executor.shutdown()
