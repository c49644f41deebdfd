"""Subscribers waiting at their outboxes while a few replicators make long calls.

Truth by construction: twenty ``subscriber`` greenlets each take messages from their own
queue (``outbox.get()``, ``diag: culprit``), put there by a ``publisher`` every 15 ms;
meanwhile four ``replicate`` greenlets each make one long call to ``slow=``.  Many waits
at one get() line beside another name's long calls, but each subscriber waited far more
often than the replicators called: no result awaited together (a set wakes each waiter
once), and the subscribers are input arriving at its pace.  Expected: serial-bottleneck's
``shared_result`` tells nothing.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SUBSCRIBERS, REPLICATORS, MESSAGES, PACE_S = 20, 4, 60, 0.015
session = requests.Session()
outboxes = [Queue() for _ in range(SUBSCRIBERS)]


def subscriber(outbox):
    for _ in range(MESSAGES):
        outbox.get()  # diag: culprit


def publisher():
    for number in range(MESSAGES):
        for outbox in outboxes:
            outbox.put(number)
        gevent.sleep(PACE_S)


def replicate():
    session.get(ARGS["slow"], timeout=30)


gevent.joinall([spawn("subscriber", subscriber, outbox) for outbox in outboxes]
               + [spawn("publisher", publisher)]
               + [spawn("replicate", replicate) for _ in range(REPLICATORS)],
               raise_error=True)
