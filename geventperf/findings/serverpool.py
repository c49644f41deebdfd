"""This process's gevent WSGI server out of connection slots (``server-pool-full``).

``WSGIServer(listener, app, spawn=N)`` runs each connection in a ``gevent.pool.Pool(N)``
greenlet for the connection's whole life, kept-alive idle time included.  When the N
slots are taken the server stops accepting, and new clients wait in the listen backlog
until a whole connection ends.  Clients that keep their connections alive between
requests (browsers, load balancers, HTTP client pools) hold the slots while they think:
the server looks idle, and its clients' latency climbs to seconds.  That wait is in
the clients, so this process's own timings cannot show it; what it can show is the
slots' time going to idle connections: pywsgi handlers waiting for their client's next
request (``frames.is_idle_server_wait``), which the other findings rightly count as no
cost.

:mod:`geventperf.serverwatch` records the pool's size and the connections that took its
last free slot.  The finding needs one server, whose pool filled (later clients had to
wait for a slot) and, on average over the run, at least half of its slots held by idle
connections.
"""

from __future__ import annotations

from geventperf.findings.common import SERVER_POOL_FULL, _count, _events, _finding
from geventperf.findings.limits import event_wait
from geventperf.frames import is_idle_server_wait
from geventperf.profile import Finding, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# Idle connections held at least this share of the pool's slots on average over the run.
IDLE_SLOTS_SHARE = 0.5
# ... and no more than the slots (a little over, for the wait split's rounding): more
# idle connections than slots were another server's, or of no pool.
SLOTS_SLACK = 1.05


def server_pool_full(profile: Profile) -> list[Finding]:
    """A pywsgi server's spawn pool, which filled, mostly held by idle kept-alive
    connections.  ``cost_s``: the greenlet-seconds of that idle holding."""
    evs = _events(profile, SERVER_EVENT)
    duration = profile.duration_s
    # one record of one server (the idle waits cannot be told apart by server)
    if len(evs) != 1 or _count(evs[0], "servers") > 1 or not duration:
        return []
    size, filled = _count(evs[0], "pool_size"), _count(evs[0], "pool_filled")
    connections = _count(evs[0], "connections")
    if not size or not filled:  # no bounded pool, or one that never filled
        return []
    rows = [w for w in profile.waits if is_idle_server_wait(w.stack)]
    idle = sum(event_wait(w) for w in rows)
    held = idle / duration  # slots held by idle connections, on average
    if held < IDLE_SLOTS_SHARE * size or held > size * SLOTS_SLACK:
        return []
    worst = max(rows, key=event_wait)
    message = (
        f"The WSGI server's connection pool was full of idle connections: it runs each "
        f"connection in one of {size} pooled greenlets (WSGIServer(..., spawn={size})) for "
        f"the connection's whole life, and kept-alive connections waiting for their "
        f"clients' next requests held {held:.1f} of the {size} slots on average over the "
        f"run ({idle:.3f} greenlet-seconds), and {filled} of the {connections} connections "
        "that came took its last free slot. While "
        "the pool is full the server stops accepting: new clients wait in the listen "
        "backlog until a whole connection ends, a wait only they see (their latency "
        "climbs to seconds while this process looks idle). Fix: a pool far larger than the "
        "connections clients keep open (spawn=10000, or the default spawn: a greenlet per "
        "connection), bounding the work itself where it must be bounded (a gevent Pool or "
        "Semaphore around the upstream calls), or fewer idle connections (a shorter "
        "keep-alive at the proxy or load balancer in front).")
    return [_finding(SERVER_POOL_FULL, message, idle, list(worst.stack), pool_size=size,
                     connections=connections, pool_filled=filled, idle_held=held,
                     idle_s=idle)]
