"""Jobs in a gevent Pool that each fan out their sends and join them, through a session
whose adapter keeps two connections and makes a request wait for one
(``pool_block=True``); the server answers after the delay the test gives.

Truth by construction: 4 jobs at a time, 3 sends each, 12 sends in flight for 2
connections: the sends wait in urllib3's pool under the ``session.get`` line
(``diag: culprit``), the jobs wait at their ``joinall`` for the slowest send, holding
their slots, and the spawner waits for a free slot.  The cause is the connection pool:
expected first finding ``connection-pool-full`` there, naming ``send``; a ``pool-full``
of jobs joining what they started, if told, comes after it and names that line.  With
``size=12`` (``geventperf.mount(session, pool_maxsize=12, pool_block=True)``) no send
waits for a connection: no ``connection-pool-full``.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.pool import Pool
from requests.adapters import HTTPAdapter

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 24
SENDS = 3
session = requests.Session()
if "size" in ARGS:
    geventperf.mount(session, pool_maxsize=int(ARGS["size"]), pool_block=True)
else:
    session.mount("http://", HTTPAdapter(pool_maxsize=2, pool_block=True))


def send():
    return len(session.get(ARGS["slow"], timeout=30).content)  # diag: culprit


def job():
    gevent.joinall([spawn("send", send) for _ in range(SENDS)], raise_error=True)


pool = Pool(4)
for _ in range(JOBS):
    pool.spawn(job)
pool.join(raise_error=True)
