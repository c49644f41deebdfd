"""Order handlers that await each sub-call as soon as they make it.

Truth by construction: 40 orders, each handled by its own ``handle`` greenlet (eight at
a time, through a Pool), need four independent facts from a server that answers after
``slow=``'s delay.  ``submit`` spawns the call and returns its greenlet; the handler
asks ``{part: submit(part).get() for part in PARTS}`` (``diag: culprit``), so each
call starts only when the one before has answered and an order takes four round trips
where one would do.  Expected first finding ``awaited-in-turn`` naming ``handle`` at
that line.  With ``mode=together`` the handler submits all four, then waits for them:
no ``awaited-in-turn``.
"""

import sys

import gevent
import gevent.pool
import requests

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
ORDERS, HANDLERS = 40, 8
PARTS = ("customer", "stock", "price", "shipping")
session = requests.Session()


def fetch(part, order):
    return session.get(f"{ARGS['slow']}&part={part}&order={order}", timeout=30).status_code


def submit(part, order):
    return gevent.spawn(fetch, part, order)


def handle(order):
    if ARGS.get("mode") == "together":
        calls = {part: submit(part, order) for part in PARTS}
        return {part: call.get() for part, call in calls.items()}
    return {part: submit(part, order).get() for part in PARTS}  # diag: culprit


pool = gevent.pool.Pool(HANDLERS)
for order in range(ORDERS):
    handler = gevent.Greenlet(handle, order)
    handler.name = "handle"
    pool.start(handler)
pool.join(raise_error=True)
