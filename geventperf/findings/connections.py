"""A new connection for every request (``session-per-request``), from the wait stacks.

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

from geventperf.findings.common import (
    SESSION_PER_REQUEST,
    _finding,
    _greenlets_named,
)
from geventperf.findings.limits import waiters
from geventperf.findings.loop import block_threshold
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
