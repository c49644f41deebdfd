"""One request sent again and again, alike, beside varied work (``repeated-request``).

A token fetched before every call (its expiry compared with the wrong clock), a
configuration looked up per request (a cache held in ``threading.local``, which is per
greenlet once patched), a lookup whose cache key holds a request id: the program sends
the same request (method, URL, and for other methods than GET the same body) many
times, while its other requests ask for many different things.  The answer most likely
did not change between calls, and every call waits for it.

The pool watch counts requests alike per host (``urllib3-pool`` events'
``same_requests``, with the line that first sent each); the finding takes the most
repeated one when it is a large share of all requests and the others are varied (a
program that asks one URL only, a health check or a load test, is not told).  Its cost
is the event wait at that line for the calls past the first, and their share of the
greenlets' queueing (each request costs the loop its CPU).
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import REPEATED_REQUEST, _count, _events, _finding
from geventperf.findings.limits import awaits_answer, event_wait
from geventperf.frames import user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import MAX_URLS, OTHER_POOLS
from geventperf.profile import Finding, Profile

# Sent alike at least this many times ...
REPEATED_MIN = 20
# ... making at least this share of all the requests the pools answered ...
REPEATED_SHARE = 0.25
# ... while the others were at least this share of its count, with at least as many
# different requests among them as this share of them: the repeated one accompanies
# work that varies (a token before each of 300 different lookups), not a program that
# asks one thing only.
OTHERS_SHARE = 0.5
VARIED_SHARE = 0.5
# Not when its answers' Content-Length changed from one answer to the next at least this
# share of its calls: the answer changed (a long poll for events, a feed), and a cache
# would serve stale answers for nothing (an unseen webhook relay's broker poll, 719
# calls whose answers held different events, was told to keep the answer).
ANSWERS_CHANGED_SHARE = 0.25

REPEATED_FIX = (
    "Its answer (a token, a configuration, a lookup) most likely did not change between "
    "calls. Fix: keep the answer and reuse it while it holds -- a cache keyed on what the "
    "answer depends on, kept for the answer's lifetime (a token until its expiry: store "
    "the expiry as an absolute time, now + expires_in, and compare it with the same "
    "clock). If a cache is there already, find why it misses: a key holding a timestamp "
    "or a request id, or a cache per greenlet (threading.local is per greenlet once "
    "gevent has patched it, and each request runs in a new one).")


def repeated_requests(profile: Profile) -> list[Finding]:
    """The request sent alike most often, when it is REPEATED_SHARE of all requests and
    the others vary (see the module's text).  ``cost_s``: the event wait at the line
    that sends it for the calls past the first, and their share of the queueing."""
    events = [e for e in _events(profile, POOL_EVENT) if e.get("pool") != OTHER_POOLS]
    rows = [(row, e["pool"]) for e in events for row in e.get("same_requests") or []
            if isinstance(row, list) and len(row) == 3 and isinstance(row[1], int)
            and isinstance(row[0], str)]
    if not rows:
        return []
    (key, count, site), host = max(rows, key=lambda r: r[0][1])
    if answers_changed(events, host, key) >= ANSWERS_CHANGED_SHARE * count:
        return []
    calls = sum(_count(e, "calls") for e in events)
    others = calls - count
    varied, countless = varied_requests(events)
    if count < REPEATED_MIN or count < REPEATED_SHARE * calls \
            or others < OTHERS_SHARE * count \
            or (varied < VARIED_SHARE * others and not countless):
        return []
    waited, made, stack = waited_at(profile, site)
    # each request also costs the loop its CPU (requests' own work, the answer's parse):
    # the calls past the first take their share of the greenlets' queueing with them (a
    # token before each of 300 lookups made half the CPU of a loop 80 % busy)
    hub = profile.hub.get("id")
    queued = sum(g.ready_wait_s or 0.0 for g in profile.greenlets if g.id != hub)
    their_queueing = queued * (count - 1) / calls
    cost = (waited * min(1.0, (count - 1) / made) if made else 0.0) + their_queueing
    method, _, rest = key.partition(" ")
    url, _, body = rest.partition(" #")
    message = (
        f"The same request, again and again: {method} {host}{url} was sent {count} times"
        + (" with the same body" if body else "")
        + f", {count / calls:.0%} of the {calls} requests the pools answered, "
        + (f"first from {site}, " if site else "")
        + f"while the other {others} asked for {_different(varied, countless)}"
        + (f"; greenlets waited {waited:.3f} s for answers at that line ({made} calls)"
           if made else "")
        + f". {REPEATED_FIX}")
    return [_finding(REPEATED_REQUEST, message, cost, stack, request=key, host=host,
                     count=count, calls=calls, varied=varied, site=site,
                     others_ready_wait_s=their_queueing)]


def answers_changed(events: list[dict[str, Any]], host: str, key: str) -> int:
    """How many times the answers to request *key* at *host* changed length from one to
    the next (the pool watch's ``answers_changed``; 0 when not recorded)."""
    for e in events:
        if e.get("pool") == host:
            for row in e.get("answers_changed") or []:
                if isinstance(row, list) and len(row) == 2 and row[0] == key \
                        and isinstance(row[1], int):
                    return row[1]
    return 0


def varied_requests(events: list[dict[str, Any]]) -> tuple[int, bool]:
    """How many different requests the pools counted, at least, besides the repeated
    one; and whether a host had too many to count (more than MAX_URLS: varied enough
    whatever their number)."""
    total, countless = 0, False
    for e in events:
        for field in ("distinct_gets", "distinct_sent"):
            n = e.get(field)
            if n is None and field in e:
                countless = True
                total += MAX_URLS
            elif isinstance(n, int) and not isinstance(n, bool):
                total += n
    return max(0, total - 1), countless


def _different(varied: int, countless: bool) -> str:
    return f"more than {varied} different things" if countless \
        else f"at least {varied} different things"


def waited_at(profile: Profile, site: Any) -> tuple[float, int, list[str]]:
    """(event wait, calls (responses' heads awaited), the heaviest stack) of the waits
    at the program's line *site*."""
    if not isinstance(site, str):
        return 0.0, 0, []
    # by file and line: the pool watch names the function by its code's name, stacks by
    # its qualified name
    line = site.rsplit(":", 1)[0]
    rows = [w for w in profile.waits if w.stack
            and (user_site(w.stack).user or "").rsplit(":", 1)[0] == line]
    if not rows:
        return 0.0, 0, []
    made = sum(w.count for w in rows if awaits_answer(w))
    return sum(event_wait(w) for w in rows), made, list(max(rows, key=event_wait).stack)
