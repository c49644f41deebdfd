"""New connections where kept ones would do: for every request (``session-per-request``),
from the wait stacks; past a pool too small for the requests in flight
(``connection-churn``) and for responses that never gave theirs back
(``connection-leak``), from the pools' own counts (:mod:`geventperf.poolwatch`).

``requests.get`` and its siblings (``requests/api.py``'s ``request``) build a new
``Session`` for each call -- its adapters, their urllib3 pool managers -- send one
request and close it all again.  Nothing is kept alive: every call resolves the host
name again (in gevent's threadpool, by default), connects again (and shakes hands
again for TLS), and builds the Session again, in CPU the loop cannot give to anyone
else.  A service that calls them from its greenlets pays that on every request; one
shared ``Session`` pays it once per connection of its pool.

The waits of opening a connection pass through urllib3's connection set-up
(``HTTPConnection.connect`` / ``_new_conn``, ``create_connection``); under a frame of
``requests/api.py`` they were opened for a module-level call.  Each such connection
waits at least once in each phase (the name lookup, the connect), so the largest
count over those stacks is a floor on the connections opened; their waits (event and
ready) are what opening them cost the callers, and the run slices that ended there
carried the Session's construction.  A shared Session would still open about as many
connections as calls are in flight at once -- at least the time inside the calls over
the run's wall time, and as many as the greenlets making them when each makes one call
in a burst: ten greenlets making one call each open ten either way -- so the finding
asks for at least ``REUSE_RATIO`` times the larger.
"""

from __future__ import annotations

import re
from typing import Any

from geventperf.findings.common import (
    CONNECTION_CHURN,
    CONNECTION_LEAK,
    SESSION_PER_REQUEST,
    _count,
    _events,
    _finding,
    _greenlets_named,
)
from geventperf.findings.limits import waiters
from geventperf.findings.loop import block_threshold
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.profile import Finding, Profile

# requests' module-level entry (requests.get, .post, ... all call it).
API_FRAME = re.compile(r"[/\\]requests[/\\]api\.py:\d+:request$")
# urllib3 opening a connection: the connect (TLS included) and its name lookup.
CONNECT_FRAME = re.compile(r"[/\\]urllib3[/\\](connection\.py:\d+:HTTPS?Connection\."
                           r"(connect|_new_conn)|"
                           r"util[/\\]connection\.py:\d+:create_connection)$")
# Fewer new connections than this are a script's few calls, not a pattern.
MIN_NEW_CONNECTIONS = 10
# A shared Session keeps about as many connections as calls are in flight at once (at
# most one per calling greenlet); only when the calls opened at least this many times
# that many did reuse have anything to save (ten greenlets making one call each need
# ten connections either way).
REUSE_RATIO = 2.0


def _connects(stack: list[str]) -> bool:
    return any(CONNECT_FRAME.search(entry) for entry in stack)


def _under_api(stack: list[str]) -> bool:
    return any(API_FRAME.search(entry) for entry in stack)


def _opens_for_api(stack: list[str]) -> bool:
    """Whether *stack* (innermost first) opens a connection under requests/api.py."""
    connect = next((i for i, entry in enumerate(stack) if CONNECT_FRAME.search(entry)), None)
    return connect is not None and any(API_FRAME.search(entry) for entry in stack[connect:])


def session_per_request(profile: Profile) -> list[Finding]:
    """Connections opened, one per call, by requests' module-level functions: one
    finding.  ``cost_s``: the greenlet-seconds spent waiting while opening them."""
    rows = [w for w in profile.waits if _opens_for_api(w.stack)]
    opened = max((w.count for w in rows), default=0)
    waited = sum(w.wait_s for w in rows)
    if opened < MIN_NEW_CONNECTIONS or waited < block_threshold(profile) \
            or not profile.duration_s:
        return []
    # calls in flight on average: the time spent inside them over the run's wall time;
    # and the greenlets of the names that made them (a burst of one call each has a
    # low average and needs a connection per greenlet all the same)
    inside = sum(w.wait_s for w in profile.waits if _under_api(w.stack)) \
        + sum(r.run_s for r in profile.runs if _under_api(r.stack))
    in_flight = inside / profile.duration_s
    seen = waiters(profile, rows, weight=lambda w: w.wait_s)
    callers = _greenlets_named(profile, seen.names)
    if opened < REUSE_RATIO * max(1.0, in_flight, callers):
        return []
    # None where no CPU was measured (cpu_clock off, or no slice ended there)
    measured = [r.cpu_s for r in profile.runs
                if r.cpu_s is not None and _opens_for_api(r.stack)]
    cpu = sum(measured) if measured else None
    setup = (f"; {cpu:.3f} s of CPU ran in the slices that ended opening them (building a "
             "Session, its adapters and pools each time)" if cpu else "")
    message = (
        f"A new connection for every request: {seen.who} called requests' module-level "
        f"functions (requests.get, requests.post, ...; most at {seen.where}), which build a "
        "new Session for each call and close it after, so nothing is kept alive: at "
        f"least {opened} connections were opened, each resolving the host name and "
        f"connecting again, {waited:.3f} s of waiting in all{setup}. A shared Session "
        "keeps about as many connections as calls are in flight at once (here "
        f"{in_flight:.1f} on average, made by {callers} greenlets). Fix: create one "
        "requests.Session (or geventperf.Session) per worker or per process and call its "
        "get/post: its kept-alive connections skip the lookup, the connect and the "
        "set-up.")
    return [_finding(SESSION_PER_REQUEST, message, waited, list(seen.worst.stack),
                     greenlet=seen.greenlet,
                     connections=opened, connect_wait_s=waited, setup_cpu_s=cpu,
                     calls_in_flight=in_flight, callers=callers, site=seen.where)]


def connection_churn(profile: Profile) -> list[Finding]:
    """Connections a full urllib3 pool closed and the next requests opened again: one
    finding over the pools that did it, worst first.  ``cost_s``: the share of the
    connections opened that a pool as large as the requests in flight would not have
    opened, of the waits to open connections (their event wait: their own queueing is
    others' doing) and of the others' ready wait behind the slices that ended opening
    them (the handshakes' CPU); ``extra["others_ready_wait_s"]`` is that second part,
    which loop-saturated leaves to this finding."""
    pools = [e for e in _events(profile, POOL_EVENT)
             if isinstance(e.get("pool"), str) and not e.get("block")]
    opened = sum(_count(e, "opened") for e in pools)
    churned = sorted(((e, _reopened(e)) for e in pools), key=lambda ev: -ev[1])
    churned = [(e, n) for e, n in churned if n >= MIN_NEW_CONNECTIONS
               and _count(e, "discarded") >= MIN_NEW_CONNECTIONS]
    if not churned or not opened:
        return []
    share = min(1.0, sum(n for _e, n in churned) / opened)
    rows, waited, delayed = _opening(profile)
    cost = share * (waited + delayed)
    if not rows or cost < block_threshold(profile):
        return []
    seen = waiters(profile, rows, weight=lambda w: w.wait_s)
    worst, reopened = churned[0]
    peak, size = _count(worst, "peak_in_use"), _count(worst, "maxsize")
    # one adapter's pool_maxsize sizes the pools of all its hosts: the largest peak
    need = max(_count(e, "peak_in_use") for e, _n in churned)
    others = "".join(f"; {e['pool']}: size {_count(e, 'maxsize')}, up to "
                     f"{_count(e, 'peak_in_use')} in flight, {_count(e, 'discarded')} "
                     "discarded" for e, _n in churned[1:])
    tls = " and a TLS handshake" if any(e["pool"].startswith("https:")
                                        for e, _n in churned) else ""
    message = (
        f"Connections thrown away and opened again: urllib3's pool for {worst['pool']} "
        f"keeps {size} connections (pool_maxsize), but up to {peak} requests were in "
        f"flight to it at once. It discarded {_count(worst, 'discarded')} connections "
        "that came back to the full pool, and the next requests opened new ones: "
        f"{_count(worst, 'opened')} opened, {reopened} more than a pool of {peak} would "
        f"have (a connect{tls} each){others}. {seen.who.capitalize()} waited "
        f"{waited:.3f} s to open connections (most at {seen.where}), and others waited "
        f"{delayed:.3f} greenlet-s ready to run behind the slices that opened them; "
        f"{share:.0%} of that is the churn's. Fix: a pool as large as the requests in "
        f"flight: geventperf.mount(session, pool_maxsize={need}), or session.mount("
        f"'{worst['pool'].split(':')[0]}://', requests.adapters.HTTPAdapter("
        f"pool_maxsize={need})); urllib3 logs 'Connection pool is full, discarding "
        "connection' at WARNING each time.")
    return [_finding(CONNECTION_CHURN, message, cost, list(seen.worst.stack),
                     greenlet=seen.greenlet, pools=[e["pool"] for e, _n in churned],
                     reopened=sum(n for _e, n in churned), churn_share=share,
                     connect_wait_s=waited, others_ready_wait_s=share * delayed,
                     pool_maxsize=size, peak_in_use=peak, fix_pool_maxsize=need,
                     site=seen.where)]


def connection_leak(profile: Profile) -> list[Finding]:
    """Connections checked out of urllib3's pools and never returned, more than the
    greenlets still alive at the end could be reading: one finding.  ``cost_s`` as
    connection-churn's, with the share of the connections opened that never came back
    (``extra["others_ready_wait_s"]`` again the part loop-saturated leaves to it)."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    opened = sum(_count(e, "opened") for e in pools)
    out = sum(_count(e, "unreturned") for e in pools)
    alive = _alive_at_end(profile)
    leaked = min(out - alive, opened)
    if leaked < MIN_NEW_CONNECTIONS:
        return []
    share = leaked / opened
    rows, waited, delayed = _opening(profile)
    worst = max(pools, key=lambda e: _count(e, "unreturned"))
    checkouts = sum(_count(e, "checkouts") for e in pools)
    tls = " and a TLS handshake" if worst["pool"].startswith("https:") else ""
    seen = waiters(profile, rows, weight=lambda w: w.wait_s) if rows else None
    opening = (f" {seen.who.capitalize()} waited {waited:.3f} s to open connections (most "
               f"at {seen.where}), and others waited {delayed:.3f} greenlet-s ready to run "
               f"behind the slices that opened them; {share:.0%} of that is the leak's."
               if seen else "")
    blocks = (" The pool blocks (pool_block=True): once its connections are all out, "
              "every request waits for one that never comes back." if any(
                  e.get("block") for e in pools if _count(e, "unreturned")) else "")
    message = (
        f"Connections never returned to their pool: {out} connections checked out of "
        f"urllib3's pools (most for {worst['pool']}) were still out when tracing stopped, "
        + (f"{leaked} more than the {alive} greenlets still alive could have been reading. "
           if alive else "and no greenlet was still alive to be reading them. ")
        + 
        "A response made with stream=True keeps its connection until its body is read to "
        "the end or it is closed; the pool opens a new connection for the next request "
        f"instead ({opened} opened for {checkouts} requests, a connect{tls} each), and the "
        "lost ones stay open until garbage-collected, holding a file descriptor here and a "
        f"connection slot on the server.{blocks}{opening} Fix: close every streamed "
        "response: `with session.get(url, stream=True) as response:`, or "
        "response.close() in a finally (closing an unread body closes the socket too: "
        "read the body to the end first to reuse the connection).")
    cost = share * (waited + delayed)
    return [_finding(CONNECTION_LEAK, message, cost,
                     list(seen.worst.stack) if seen else [],
                     greenlet=seen.greenlet if seen else None,
                     pools=[e["pool"] for e in pools if _count(e, "unreturned")],
                     unreturned=out, leaked=leaked, alive_at_end=alive, leak_share=share,
                     connect_wait_s=waited, others_ready_wait_s=share * delayed,
                     site=seen.where if seen else None)]


def _opening(profile: Profile) -> tuple[list[Any], float, float]:
    """The waits under urllib3's connection set-up outside requests' module-level
    functions (session-per-request's), their event wait (their own queueing is others'
    doing), and the others' ready wait behind the slices that ended there."""
    rows = [w for w in profile.waits if _connects(w.stack) and not _under_api(w.stack)]
    waited = sum(w.wait_s if w.event_wait_s is None else w.event_wait_s for w in rows)
    delayed = sum(r.delayed_others_s or 0.0 for r in profile.runs
                  if _connects(r.stack) and not _under_api(r.stack))
    return rows, waited, delayed


def _alive_at_end(profile: Profile) -> int:
    """Greenlets alive when tracing stopped (the hub and the stopping one apart); for a
    snapshot, where tracing has not stopped, every greenlet of the profile."""
    alive = profile.meta.get("alive_at_end")
    if isinstance(alive, dict):
        return sum(n for n in alive.values() if isinstance(n, int) and n > 0)
    return len(profile.greenlets)


def _reopened(pool: dict) -> int:
    """Connections *pool* opened past what a pool as large as its peak of requests in
    flight would have kept."""
    return max(0, _count(pool, "opened") - max(_count(pool, "peak_in_use"),
                                                _count(pool, "maxsize")))
