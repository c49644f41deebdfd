"""Request handlers waiting for a batcher that flushes on a fixed 0.2 s timer, beside an
in-process gevent WSGI service whose kept-alive connections sit idle between requests.

Truth by construction (run monkey-patched): ten ``handler`` greenlets each make six
calls; a call is a 10 ms request to this process's own WSGI service, then an audit
record handed to the batcher, waiting until the batch holding it is stored.  The
``flusher`` greenlet sleeps a fixed 0.2 s (``diag: culprit``), stores the batch (a
request to the same service) and wakes the waiters: each call waits ~0.1 s on average
for the timer, ten times its own work, while the loop idles.  The service's connections
wait for their handler's next request in between: idle capacity, which must not dilute
the waiting at the hand-off.  Expected first finding ``serial-bottleneck`` naming
``flusher``, told as a timer.

With ``mode=fixed`` the flusher waits on an event the writers set and lingers 2 ms to
batch what comes together: no ``serial-bottleneck``.
"""

import sys

import gevent
import gevent.event
import requests
from _greenlets import spawn
from _stand_in import stand_in

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("mode") == "fixed"
HANDLERS = 10
CALLS = 6
FLUSH_EVERY_S = 0.2
LINGER_S = 0.002


SERVICE_DELAY_S = 0.01
server, URL = stand_in(SERVICE_DELAY_S)


class Batcher:
    def __init__(self):
        self.records = []
        self.stored = gevent.event.Event()  # set when the current batch is stored
        self.pending = gevent.event.Event()  # set by writers (the fixed way)
        self.session = requests.Session()
        self.open = True

    def write(self, record):
        self.records.append(record)
        stored = self.stored
        self.pending.set()
        stored.wait()

    def flusher(self):
        while self.open or self.records:
            if FIXED:
                self.pending.wait(timeout=1.0)
                self.pending.clear()
                gevent.sleep(LINGER_S)
            else:
                gevent.sleep(FLUSH_EVERY_S)  # diag: culprit
            if not self.records:
                continue
            batch, self.records = self.records, []
            stored, self.stored = self.stored, gevent.event.Event()
            self.session.post(URL, json=batch, timeout=30).raise_for_status()
            stored.set()


batcher = Batcher()


def handler(i):
    with requests.Session() as session:
        for n in range(CALLS):
            session.get(URL, timeout=30).raise_for_status()
            batcher.write((i, n))


flusher = spawn("flusher", batcher.flusher)
gevent.joinall([spawn("handler", handler, i) for i in range(HANDLERS)])
batcher.open = False
batcher.pending.set()  # wake the fixed flusher to end
flusher.join()
server.stop()
