"""Calls answered with a redirect, followed every time (``redirect-followed``).

requests follows a 301, 302, 303, 307 or 308 answer's ``Location`` with a request
more: a configured address that moved (a service migrated to a new host, ``http://``
to ``https://``, a path without its trailing slash) costs every call a round trip to
the old address first.  In the other tables that is one more wait for a response's
head at the call line, which reads as calls made in turn (an unseen partner feed's
config still named the catalog API's old host, which answered every call with a 301
after 40 ms: told as "4.0 calls per response" to make together; the new address took
its latency 2x less).

From the pool watch (``urllib3-pool`` events' ``redirects`` and ``redirected_to``): a
host at least REDIRECTS_MIN of whose answers, and at least REDIRECTED_SHARE of them,
sent the caller elsewhere.
"""

from __future__ import annotations

from geventperf.findings.common import (
    REDIRECT_FOLLOWED,
    _count,
    _events,
    _finding,
    block_threshold,
    heads_waited,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import OTHER_POOLS, count_rows
from geventperf.profile import Finding, Profile

# Redirect answers from one host from which they are a pattern, not a login's or a
# moved page's now and then ...
REDIRECTS_MIN = 20
# ... and the share of its answers they were: most calls there went elsewhere.
REDIRECTED_SHARE = 0.5
# The redirected host's GETs were links handed out one per item, no configured address,
# when at least this share of them asked for a different URL each (or more than the
# pool watch counts one by one): an unseen podcast directory's per-episode tracking
# links, 937 URLs each asked once, were told "the configured base URL updated".
LINKS_SHARE = 0.9


def redirects_followed(profile: Profile) -> list[Finding]:
    """The hosts whose answers were mostly redirects (see the module's text), one
    finding over them.  ``cost_s``: the time their requests waited for their answers'
    heads, for the redirects' share of those requests."""
    moved = []
    for e in _events(profile, POOL_EVENT):
        if e.get("pool") == OTHER_POOLS or not isinstance(e.get("pool"), str):
            continue
        redirects, calls = _count(e, "redirects"), _count(e, "calls")
        if redirects >= REDIRECTS_MIN and redirects >= REDIRECTED_SHARE * calls > 0:
            moved.append((e, redirects, heads_waited(e) * min(1.0, redirects / calls)))
    cost = sum(waited for _e, _n, waited in moved)
    if not moved or cost < block_threshold(profile):
        return []
    moved.sort(key=lambda m: -m[2])
    worst, redirects, waited = moved[0]
    targets = count_rows(worst.get("redirected_to"))
    where = ", ".join(f"{host} ({n})" for host, n in targets[:3]) or "an unrecorded place"
    others = "".join(f"; {e['pool']}: {n} of {_count(e, 'calls')}" for e, n, _w in moved[1:])
    to = targets[0][0] if targets else "where they point"
    message = (
        f"Calls answered with a redirect: {redirects} of the {_count(worst, 'calls')} "
        f"requests to {worst['pool']} were sent elsewhere (to {where}){others}, and "
        "requests followed each with a request more. The redirect answers alone took "
        f"{cost:.3f} s of waiting"
        + (f" ({waited / redirects * 1e3:.1f} ms each at {worst['pool']})" if redirects
           else "")
        + (LINKS_TOLD if _links(worst) else
           ": a configured address that moved (a service migrated to a new host, http:// "
           "to https://, a path without its trailing slash) costs every call a round trip "
           f"to the old address first. Fix: call where they point: the configured base URL "
           f"updated to {to} (for a path redirected to itself with a slash, the slash "
           "added). Only a redirect the server may change (a 302 to a login, a 307 to a "
           "replica) is worth following each time."))
    return [_finding(REDIRECT_FOLLOWED, message, cost, [], pools=[e["pool"] for e, _n, _w in moved],
                     redirects=sum(n for _e, n, _w in moved), redirected_to=targets,
                     redirect_waited_s=cost)]


LINKS_TOLD = (
    ": they asked for a different URL nearly every time (links handed out one per item, as "
    "a feed's tracking or short links are), so no configured address moved, and each link costs "
    "a round trip to its redirector before its target. Fix: where the program may call "
    "the target itself (a tracking prefix it may strip, a link resolved before and "
    "kept), call it; otherwise this is the links' own cost, which only the redirector's "
    "latency shrinks.")


def _links(event: dict) -> bool:
    """Whether a host's GETs were links handed out one per item (LINKS_SHARE), each sent
    to a path of its own (not the request's path elsewhere: a moved address answers each
    of its paths with the same path on the new host)."""
    gets, distinct = _count(event, "gets"), event.get("distinct_gets")
    kept = event.get("redirects_kept_path")
    if gets < REDIRECTS_MIN or not isinstance(kept, int) \
            or kept >= REDIRECTED_SHARE * _count(event, "redirects"):
        return False
    return (distinct is None and "distinct_gets" in event) or \
        (isinstance(distinct, int) and distinct >= LINKS_SHARE * gets)
