"""A hand-rolled pool of clients, as redis-py's BlockingConnectionPool keeps one: a
``queue.LifoQueue`` of 4 sessions shared by 40 handlers, each taking a client, calling
the server and giving it back.

Truth by construction: 40 handlers share 4 clients, so 36 at a time wait in the pool's
``get()`` for a peer to finish its call; the server is concurrent and the loop idle.
Expected first finding ``serial-bottleneck`` at the ``get()`` line, told as peers
sharing a pool too small for them, with a pool as large as its users as the fix.  With
``size=40`` every handler has a client: no serial-bottleneck.
"""

import queue
import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SIZE = int(ARGS.get("size", "4"))
pool = queue.LifoQueue(SIZE)
for _ in range(SIZE):
    pool.put(requests.Session())


def handler():
    received = 0
    for _ in range(4):
        client = pool.get(timeout=60)  # diag: culprit
        try:
            received += len(client.get(ARGS["slow"], timeout=30).content)  # diag: network-wait
        finally:
            pool.put(client)
    return received


gevent.joinall([spawn("handler", handler) for _ in range(40)], raise_error=True)
