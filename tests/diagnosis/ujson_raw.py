"""Five greenlets decode JSON straight from the socket: ``ujson.load(response.raw)``.

Truth by construction: ``ujson.load`` calls ``response.raw.read()`` from inside the
(auto-wrapped) C section, and the server trickles each body in small pieces with pauses
between them, so the greenlets wait on the hub while inside the C parser.  The cause
is the ``ujson.load`` call (``diag: culprit``) in the greenlets named ``json-loader``:
expected first finding ``blocked-read-in-c-section`` there, one finding for the five.
The ``slow-waiter`` greenlet only waits on a slow server: innocent.
"""

import sys

import gevent
import requests
import ujson
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 5


def load_json():
    response = requests.get(ARGS["json"], stream=True, timeout=30)
    return len(ujson.load(response.raw))  # diag: culprit


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("json-loader", load_json) for _ in range(GREENLETS)]
jobs.append(spawn("slow-waiter", waiter))
gevent.joinall(jobs, raise_error=True)
assert all(g.value for g in jobs)
