"""Handlers send a pure-Python checksum to gevent's threadpool "to keep the loop free".

Truth by construction: ten ``handler`` greenlets each fetch from a server that answers
after 20 ms, then run ``checksum`` (pure Python, ~10 ms of CPU) in
``gevent.get_hub().threadpool`` (``diag: culprit``).  A worker thread running Python
holds the GIL, which the loop's thread needs to run any greenlet or the hub: the loop's
thread spends much of the run off the CPU, asleep on the lock, in many short slices,
while greenlets queue.  Expected first finding ``gil-contended`` at the line that sends
the checksum to the threadpool, naming ``handler``; and no ``blocking-call`` advising
the threadpool.  With ``work=hashlib`` the threads hash a large buffer with hashlib,
which releases the GIL: no ``gil-contended``.
"""

import hashlib
import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HANDLERS = 10
ROUNDS = 4
POOL = gevent.get_hub().threadpool
BUFFER = b"x" * (4 << 20)


def checksum(n=150_000):
    total = 0
    for i in range(n):
        total = (total * 31 + i) % 1_000_003  # pure Python: holds the GIL
    return total


def digest():
    return hashlib.sha256(BUFFER).digest()  # releases the GIL while it hashes


def handler():
    session = requests.Session()
    work = digest if ARGS.get("work") == "hashlib" else checksum
    for _ in range(ROUNDS):
        session.get(ARGS["slow"], timeout=30).close()  # diag: network-wait
        POOL.apply(work)  # diag: culprit


gevent.joinall([spawn("handler", handler) for _ in range(HANDLERS)], raise_error=True)
