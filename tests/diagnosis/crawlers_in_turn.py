"""A few crawlers, one per shop, each fetching its items one after another.

Truth by construction: three ``crawler`` greenlets each walk 40 item ids and fetch each
item from a kept-alive server that answers after ``kept=``'s delay (``diag: culprit``),
waiting for each answer before asking for the next: three calls in flight at most,
where the session's pool holds ten, while the loop sits idle.  Expected first finding
``sequential-calls`` at that line, naming the crawlers.  With ``mode=together`` each
crawler fetches its items through a ``Pool(3)``: nine at once, no ``sequential-calls``.
With ``shop=own`` the shop is a gevent WSGI server in this process (a self-contained
job with a stand-in for its upstream, answering after 20 ms, with TCP_NODELAY so that
its head and body do not wait on a delayed ACK): the same finding.
"""

import sys

import gevent
import gevent.pool
import requests
from _greenlets import spawn
from _stand_in import stand_in

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
CRAWLERS, ITEMS, AT_ONCE = 3, 40, 3
SHOP_DELAY_S = 0.02
session = requests.Session()


if ARGS.get("shop") == "own":
    ARGS["kept"] = stand_in(SHOP_DELAY_S)[1] + "item?"


def item(shop, n):
    return session.get(f"{ARGS['kept']}&shop={shop}&item={n}", timeout=30).content  # diag: culprit


def crawl(shop):
    if ARGS.get("mode") == "together":
        pool = gevent.pool.Pool(AT_ONCE)
        found = list(pool.imap_unordered(lambda n: item(shop, n), range(ITEMS)))
    else:
        found = [item(shop, n) for n in range(ITEMS)]
    assert len(found) == ITEMS


gevent.joinall([spawn("crawler", crawl, shop) for shop in range(CRAWLERS)], raise_error=True)
