"""Writers taking items from one queue that a few fetchers fill, a page at a time.

Truth by construction: two ``fetch`` greenlets each walk 24 pages of ``page=`` (a
server that answers after its delay) and put 4 items per page into one shared queue;
six ``writer`` greenlets take them (``queue.get()``, ``diag: culprit``) and work briefly
on each.  Each page wakes a few writers at one get() line while another name's calls
last about as long as their waits, but each fetcher made many calls: producers feeding
a queue, no result awaited together.  Expected: serial-bottleneck's ``shared_result``
tells nothing.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FETCHERS, PAGES, PER_PAGE, WRITERS, WORK_S = 2, 24, 4, 6, 0.01
session = requests.Session()
items = Queue()


def fetch(number):
    for page in range(PAGES):
        session.get(f"{ARGS['page']}&fetcher={number}&page={page}", timeout=30)
        for item in range(PER_PAGE):
            items.put((number, page, item))


def writer():
    while True:
        item = items.get()  # diag: culprit
        if item is None:
            return
        gevent.sleep(WORK_S)


writers = [spawn("writer", writer) for _ in range(WRITERS)]
gevent.joinall([spawn("fetch", fetch, number) for number in range(FETCHERS)],
               raise_error=True)
for _ in writers:
    items.put(None)
gevent.joinall(writers, raise_error=True)
