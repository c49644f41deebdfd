"""An extractor and a loader joined by a queue of one item: the stages take turns.

Truth by construction: ``extract`` fetches 6 pages from a server that answers after
``page=``'s delay and puts each page's 20 records into ``Queue(maxsize=1)``
(``diag: culprit``); ``load`` takes them one at a time and posts each to a server that
answers after ``load=``'s delay.  The queue holds one record: the extractor waits in
``put()`` until the loader has taken nearly a whole page, then the loader waits in
``get()`` while the next page is fetched.  Expected first finding ``queue-lockstep``
naming both.  With ``maxsize=1000`` the extractor fetches ahead: no ``queue-lockstep``.

With pages quicker than the loads (``page=`` answering at once, ``load=`` slowly), the
extractor waits in ``put()`` behind the one loader: ``queue-full`` naming it; with
``consumers=4`` four loaders keep up: no ``queue-full``.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PAGES, PER_PAGE = 6, 20
CONSUMERS = int(ARGS.get("consumers", "1"))
DONE = object()
queue = Queue(maxsize=int(ARGS.get("maxsize", "1")))
session = requests.Session()


def extract():
    for page in range(PAGES):
        session.get(f"{ARGS['page']}&page={page}", timeout=30)
        for record in range(PER_PAGE):
            queue.put((page, record))  # diag: culprit
    for _ in range(CONSUMERS):
        queue.put(DONE)


def load():
    while (item := queue.get()) is not DONE:
        session.get(f"{ARGS['load']}&record={item[0]}-{item[1]}", timeout=30)


gevent.joinall([spawn("extract", extract)] + [spawn("load", load) for _ in range(CONSUMERS)],
               raise_error=True)
