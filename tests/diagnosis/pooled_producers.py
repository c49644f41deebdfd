"""Pooled fetchers feeding one writer through a bounded queue.

Truth by construction: 16 categories are fetched by a ``gevent.pool.Pool(8)`` of
``fetch`` jobs, each getting 4 pages from a server that answers after ``page=``'s delay
and putting each page's 8 items into ``Queue(maxsize=20)`` (``diag: culprit``); one
``write`` greenlet posts each item to a server that answers after ``write=``'s delay,
one at a time.  The writer is slower than the fetchers (pages at 0.2 s: 1.6 s of
fetching, 8 at a time, against 2.6 s of posts in turn): they wait in ``put()`` about as
long as on their pages, a large share of their lives (each job lives part of the run,
so a quarter of the run per greenlet at most), and the writer seldom waits in ``get()``.  Expected first finding ``queue-full``, naming the writer and what it waited
on.  With ``writers=6``, six writers keep up: no ``queue-full``.  (An unseen ingester's 16
pooled fetchers waited 46 % of their lives behind one index writer and were told as a
full fetch Pool, where a larger one gained nothing and six writers cut the run 2.1x.)
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.pool import Pool
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CATEGORIES, PAGES, PER_PAGE = 16, 4, 8
WRITERS = int(ARGS.get("writers", "1"))
DONE = object()
queue = Queue(maxsize=20)
session = requests.Session()


def fetch(category):
    for page in range(PAGES):
        session.get(f"{ARGS['page']}&c={category}&p={page}", timeout=30)
        for item in range(PER_PAGE):
            queue.put((category, page, item))  # diag: culprit


def write():
    while (item := queue.get()) is not DONE:
        session.post(f"{ARGS['write']}&item={item[0]}-{item[1]}-{item[2]}", data=b"x",
                     timeout=30)


def main():
    writers = [spawn("write", write) for _ in range(WRITERS)]
    pool = Pool(8)
    for category in range(CATEGORIES):
        pool.spawn(fetch, category)
    pool.join(raise_error=True)
    for _ in writers:
        queue.put(DONE)
    gevent.joinall(writers, raise_error=True)


main()
