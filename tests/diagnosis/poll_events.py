"""A relay: one receiver greenlet long-polls a broker for events, the same GET again
and again; eight deliverers post each event to its own hook URL.

Truth by construction: 240 polls alike beside 240 different deliveries.  With
``events=1`` each poll's answer holds other events (its length changes from one answer
to the next): a poll, which no cache could answer, and no ``repeated-request``.  With
``events=0`` every answer is the same: told as ``repeated-request`` at the poll
(``diag: culprit``), as a token fetched again and again is.
"""

import sys

import gevent
import gevent.queue
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
POLLS = 240
DELIVERERS = 8
session = requests.Session()
events = gevent.queue.Queue()


def receive():
    for _ in range(POLLS):
        answer = session.get(f"{ARGS['base']}/poll?delay=0.005&events={ARGS['events']}",  # diag: culprit
                             timeout=30)
        events.put(len(answer.content))
    for _ in range(DELIVERERS):
        events.put(None)


def deliver(k):
    n = 0
    while events.get() is not None:
        session.get(f"{ARGS['base']}/hooks/{k}/{n}?delay=0.01", timeout=30).close()
        n += 1


gevent.joinall([spawn("receiver", receive)]
               + [spawn("deliverer", deliver, k) for k in range(DELIVERERS)], raise_error=True)
