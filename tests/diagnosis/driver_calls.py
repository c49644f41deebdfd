"""Twenty handlers fetch, then make a database driver's query: a C library call that
blocks the thread for 30 ms (libc ``usleep`` through ctypes stands in for the driver's
own socket I/O, which monkey-patching cannot reach).

Truth by construction: each query holds the whole loop for 30 ms, under the 50 ms block
threshold, so no single slice is long; together they saturate the loop.  The slices end
at the next fetch, a line away from the culprit.  Expected first finding: the loop held
off the CPU (saturated or held) at the query line, found there by the stall watch.
With ``call=threadpool`` the queries run in gevent's threadpool (ctypes releases the GIL
during the call): no finding of the loop.
"""

import ctypes
import ctypes.util
import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
libc = ctypes.CDLL(ctypes.util.find_library("c"))
QUERY_US = 30_000


def query():
    libc.usleep(QUERY_US)  # diag: culprit


def handler():
    session = requests.Session()
    received = 0
    for _ in range(5):
        received += len(session.get(ARGS["slow"], timeout=30).content)  # diag: network-wait
        if ARGS.get("call") == "threadpool":
            gevent.get_hub().threadpool.spawn(query).get()
        else:
            query()
    return received


gevent.joinall([spawn("handler", handler) for _ in range(20)], raise_error=True)
