"""Six consumers decode 3 000 small JSON lines each, every line's ``json.loads`` handed
to the hub's threadpool (``threadpool.apply``), as if the pool made the loop lighter.

Truth by construction: each decode is microseconds of work, and each hand-off (a queue,
a worker thread's wake-up, the loop's wake-up for the result) costs many times that, so
the threadpool is the cost.  Expected: ``threadpool-tiny-tasks`` first, at the apply
line.  With ``mode=inline`` the consumers decode in their own greenlets: no such
finding.
"""

import json
import sys

import gevent
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
INLINE = ARGS.get("mode") == "inline"
LINES = [json.dumps({"id": i, "user": f"u{i % 97}", "event": "click", "x": i % 640})
         for i in range(3000)]


def consume():
    pool = gevent.get_hub().threadpool
    total = 0
    for line in LINES:
        event = json.loads(line) if INLINE else pool.apply(json.loads, (line,))  # diag: culprit
        total += event["x"]
    return total


gevent.joinall([spawn("consume", consume) for _ in range(6)], raise_error=True)
