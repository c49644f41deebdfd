"""Garbage-collector pauses over data in flight: workers each hold a large parsed
document while they wait, so the heap the collector walks is built during the run.

Truth by construction: the start-up builds nothing big.  Eight ``worker`` greenlets then
each build a "document" of 120 000 small dicts, each holding a list (what ``json.loads``
makes of a large response), keep it while they wait 50 ms (a downstream call), and drop
it, three times over.  Full collections fall due as those documents pile up and walk all
of them, inside whichever worker allocates.  Expected: a ``gc-pause`` finding whose fix
is not ``gc.freeze()`` at start-up (nothing there to freeze) but holding fewer documents
at once: its full collections grow as the documents pile up, and the message says the
objects were made during the run.
"""

import gevent
from _greenlets import spawn

WORKERS = 8
ROUNDS = 3
ITEMS = 120_000


def worker():
    for _ in range(ROUNDS):
        document = [{"id": i, "tags": [i]} for i in range(ITEMS)]  # diag: culprit (a list each: tracked)
        gevent.sleep(0.05)  # a downstream call while the document is held
        del document


gevent.joinall([spawn("worker", worker) for _ in range(WORKERS)], raise_error=True)
