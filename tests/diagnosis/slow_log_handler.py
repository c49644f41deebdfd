"""Workers that log through a handler whose every emit waits on the network.

Truth by construction: twenty ``work`` greenlets each log ten records
(``diag: culprit``) through ``ShipHandler``, whose ``emit`` ships the record to a log
collector that takes 20 ms (``gevent.sleep``, as a network write would).  logging
takes the handler's lock (a monkey-patched ``threading.RLock``) around each emit, so
every greenlet that logs queues behind the one emitting.  Expected first finding
``lock-contended`` told as the logging lock, at the line that logged.  With
``mode=queue`` the records go through a ``QueueHandler`` to one listener that ships
them: nobody waits for the lock.
"""

import logging
import logging.handlers
import queue
import sys

import gevent
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS, RECORDS, SHIP_S = 20, 10, 0.02


class ShipHandler(logging.Handler):
    """Ships each record to a log collector: a network write, here a 20 ms wait."""

    def emit(self, record):
        gevent.sleep(SHIP_S)


log = logging.getLogger("svc")
log.setLevel(logging.INFO)
log.propagate = False
listener = None
if ARGS.get("mode") == "queue":
    records = queue.Queue()
    log.addHandler(logging.handlers.QueueHandler(records))
    listener = logging.handlers.QueueListener(records, ShipHandler())
    listener.start()
else:
    log.addHandler(ShipHandler())


def work(worker):
    for record in range(RECORDS):
        gevent.sleep(0.005)  # the work itself
        log.info("worker %d record %d done", worker, record)  # diag: culprit


gevent.joinall([spawn("work", work, worker) for worker in range(WORKERS)], raise_error=True)
if listener is not None:
    listener.stop()
