"""A rendition cache that renders on a miss, with no single flight: edges asking for a
new item at the same moment each render it themselves.

Truth by construction: 16 edge greenlets walk the same list of 24 new items, each
asking for every item's rendition in turn, as CDN edges do when a page goes live.  A
miss fetches the item's original (60 ms away) and renders it (a few ms of CPU), and
only then fills the cache: every edge that asks while the first render is under way
misses too, so each original is fetched up to 16 times at once and rendered as often.
No key is asked more than 16 times, far fewer than a stampede on one hot key makes:
the duplicates are spread over the keys.  Expected first finding:
``duplicate-in-flight`` at the original's request line.  ``flight=single``: the first
caller of a key renders and the others wait for its result (a
``gevent.event.AsyncResult`` per key): no ``duplicate-in-flight``.
"""

import hashlib
import sys

import gevent
import requests
from _greenlets import spawn
from gevent.event import AsyncResult

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
EDGES = 16
ITEMS = 24
# about 3 ms of CPU per render here
RENDER_ROUNDS = 6_000
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=EDGES))
renditions: dict[int, bytes] = {}
pending: dict[int, AsyncResult] = {}


def render(item):
    original = session.get(f"{ARGS['store']}&item={item}", timeout=30).content  # diag: culprit
    return hashlib.pbkdf2_hmac("sha256", original, b"thumb", RENDER_ROUNDS)


def rendition(item):
    if item in renditions:
        return renditions[item]
    if ARGS.get("flight") != "single":
        renditions[item] = render(item)
        return renditions[item]
    if item in pending:
        return pending[item].get()
    pending[item] = AsyncResult()
    renditions[item] = render(item)
    pending.pop(item).set(renditions[item])
    return renditions[item]


def edge():
    return [len(rendition(item)) for item in range(ITEMS)]


gevent.joinall([spawn("edge", edge) for _ in range(EDGES)], raise_error=True)
