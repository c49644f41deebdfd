"""A dispatcher deals reports round robin into one small inbox per worker; every eighth
report is slow to fetch, so all the slow ones land in the first worker's inbox.

Truth by construction (run monkey-patched): 8 workers, 160 reports, inboxes of 2; the
first worker fetches 20 slow reports (0.1 s each) while the others finish their 20 fast
ones (5 ms each) and wait at their empty inboxes' get (``diag: culprit``), and the
dispatcher waits at the first inbox's put (``diag: deal``) until it has room.  Expected:
``serial-bottleneck`` told as work dealt out in advance (``dealt_out``, the put's line).
With ``mode=shared`` every worker takes from one queue: no such story.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS = 8
REPORTS = 160
INBOX = 2
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=WORKERS))
shared = Queue(WORKERS * INBOX)
inboxes = [shared if ARGS.get("mode") == "shared" else Queue(INBOX) for _ in range(WORKERS)]


def worker(inbox):
    while True:
        report = inbox.get()  # diag: culprit
        if report is None:
            return
        delay = 0.1 if report % WORKERS == 0 else 0.005
        session.get(f"{ARGS['base']}/reports/{report}?delay={delay}", timeout=30).close()


def dispatcher():
    for report in range(REPORTS):
        inboxes[report % WORKERS].put(report)  # diag: deal
    for inbox in inboxes:
        inbox.put(None)


workers = [spawn("worker", worker, inbox) for inbox in inboxes]
gevent.joinall([spawn("dispatcher", dispatcher)] + workers, raise_error=True)
