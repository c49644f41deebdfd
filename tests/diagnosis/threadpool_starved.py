"""Threadpool starvation: 16 greenlets each run a 0.2 s blocking call on a pool of 2.

Truth by construction: gevent's hub threadpool is limited to 2 threads; 16 greenlets
named ``pool-user`` each hand it a 0.2 s blocking call (the real, unpatched
``time.sleep``, standing in for a blocking C library) and wait for the result.  Only two
run at a time, so the run takes ~8 x 0.2 s while the hub sits idle: the greenlets wait
in the pool's queue, not on I/O and not on CPU.  Expected first finding
``threadpool-saturated``, naming the pool size (2), at the ``pool.apply`` line
(``diag: culprit``).  The ``slow-waiter`` waits on a slow server: innocent.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.monkey import get_original

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
TASKS = 16
POOL_SIZE = 2
TASK_S = 0.2

blocking_sleep = get_original("time", "sleep")
pool = gevent.get_hub().threadpool
pool.maxsize = POOL_SIZE


def submit():
    return pool.apply(blocking_sleep, (TASK_S,))  # diag: culprit


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("pool-user", submit) for _ in range(TASKS)]
jobs.append(spawn("slow-waiter", waiter))
gevent.joinall(jobs, raise_error=True)
