"""Twelve greenlets share one session whose adapter keeps two connections and makes a
request wait for one (``pool_block=True``); the server answers after 0.1 s.

Truth by construction: 24 requests, two at a time, take about 12 x 0.1 s; the loop is
idle nearly the whole time and the greenlets wait in urllib3's pool for a free
connection, under the ``session.get`` line (``diag: culprit``).  The report's other
tables show that line's waits in ``Session.get`` only, as if the network were slow.
Expected first finding ``connection-pool-full`` there, naming ``requester``.  With
``size=12`` (``geventperf.mount(session, pool_maxsize=12, pool_block=True)``, the fix the
finding gives) nothing waits for a connection: no ``connection-pool-full``.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from requests.adapters import HTTPAdapter

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 12
session = requests.Session()
if "size" in ARGS:
    geventperf.mount(session, pool_maxsize=int(ARGS["size"]), pool_block=True)
else:
    session.mount("http://", HTTPAdapter(pool_maxsize=2, pool_block=True))  # diag: made


def requester():
    received = 0
    for _ in range(2):
        received += len(session.get(ARGS["slow"], timeout=30).content)  # diag: culprit
    return received


gevent.joinall([spawn("requester", requester) for _ in range(GREENLETS)], raise_error=True)
