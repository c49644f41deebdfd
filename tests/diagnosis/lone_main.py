"""A batch job whose main greenlet, alone, sets the run's pace in one phase of its life.

Truth by construction: 12 pages of work, each 8 calls made together by a ``Pool(8)``
to a server that answers after ``kept=``'s delay (the concurrent part, the same in every
``phase=``), plus one phase in which ``main`` does one thing at a time while nothing
else is in flight (``diag: culprit``):

* ``phase=warmup``: before the pages, 30 lookups one after another;
* ``phase=drain``: after each page's spawns, a poll of ``len(pool)`` every 0.2 s
  instead of waiting for the jobs (the last ones end long before the poll sees it);
* ``phase=shutdown``: 8 queue workers idle in ``get()`` once the work is done, joined
  one at a time, each join running out its 0.1 s timeout;
* ``phase=reload``: rules re-read, re-parsed and their patterns recompiled before
  every page, on the CPU.

Expected first finding ``critical-path`` naming ``main`` at that line.  With
``fixed=1`` each phase does it right (lookups made together, ``pool.join()``,
sentinels and one ``joinall``, the rules loaded once): no ``critical-path``.
"""

import json
import re
import sys

import gevent
import requests
from gevent.pool import Pool
from gevent.queue import Queue

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
PHASE, FIXED = ARGS["phase"], ARGS.get("fixed") == "1"
PAGES, PER_PAGE, LOOKUPS, WORKERS = 12, 8, 30, 8
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=PER_PAGE))
RULES = json.dumps({f"merchant-{i}": {"pattern": f"^m{i}-[0-9]+-(?:a|b|c){{2,}}$",
                                     "fee": i % 7} for i in range(2500)})


def call(what):
    return session.get(f"{ARGS['kept']}&what={what}", timeout=30).content


def lookup(key):
    return session.get(f"{ARGS['kept']}&lookup={key}", timeout=30).content  # diag: culprit


def load_rules():
    rules = json.loads(RULES)  # diag: culprit
    return {name: re.compile(rule["pattern"] + f"|{name}")  # diag: culprit
            for name, rule in rules.items()}


def warm_up():
    if FIXED:
        return list(Pool(PER_PAGE).imap_unordered(lookup, range(LOOKUPS)))
    return [lookup(key) for key in range(LOOKUPS)]


def run_pages():
    pool = Pool(PER_PAGE)
    rules = load_rules() if PHASE == "reload" and FIXED else None
    for page in range(PAGES):
        if PHASE == "reload" and not FIXED:
            rules = load_rules()
        for item in range(PER_PAGE):
            pool.spawn(call, f"{page}-{item}")
        if PHASE == "drain" and not FIXED:
            while len(pool):
                gevent.sleep(0.2)  # diag: culprit
        else:
            pool.join(raise_error=True)
    return rules


def shut_down(queue, workers):
    if FIXED:
        for _ in workers:
            queue.put(None)
        gevent.joinall(workers, timeout=5)
        return
    for worker in workers:
        worker.join(timeout=0.1)  # diag: culprit
        worker.kill()


def work(queue):
    while (item := queue.get()) is not None:
        call(f"queued-{item}")


def main():
    queue = Queue()
    workers = [gevent.spawn(work, queue) for _ in range(WORKERS)] \
        if PHASE == "shutdown" else []
    if PHASE == "warmup":
        warm_up()
    run_pages()
    if workers:
        for item in range(PER_PAGE):
            queue.put(item)
        shut_down(queue, workers)


main()
