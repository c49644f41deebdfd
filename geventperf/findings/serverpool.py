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

import re

from geventperf.findings.common import SERVER_POOL_FULL, _count, _events, _finding
from geventperf.findings.held import jobs_waited, jobs_waits
from geventperf.findings.limits import event_wait, idle_share, idle_told, switched_out_at
from geventperf.frames import is_idle_server_wait
from geventperf.profile import Finding, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# Idle connections held at least this share of the pool's slots on average over the run.
IDLE_SLOTS_SHARE = 0.5
# ... and no more than the slots (a little over, for the wait split's rounding): more
# idle connections than slots were another server's, or of no pool.
SLOTS_SLACK = 1.05
# Or busy connections filled it: at least this share of the connections took its last
# free slot, there were more connections than slots, and the loop sat mostly idle --
# the pool's size, not this process, paced the service (an unseen address service
# kept spawn=4 for 24 kept-alive clients: p99 3.6 s, 5.2x the throughput at 256).
FILLED_SHARE = 0.1
# Frames of a pywsgi handler's own work: its greenlet serves the server's connection.
HANDLER_FRAME = re.compile(r"[/\\]gevent[/\\]pywsgi\.py:\d+:WSGIHandler\.")
BUSY_COST = ("greenlet-seconds the server's connection greenlets waited (event wait) "
             "outside their wait for a client's next request, while holding the slots")


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
    if held > size * SLOTS_SLACK:
        return []
    if held < IDLE_SLOTS_SHARE * size or not rows:
        return _full_of_busy(profile, size, filled, connections)
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


def _full_of_busy(profile: Profile, size: int, filled: int,
                  connections: int) -> list[Finding]:
    """The pool full of connections at work rather than idle: more connections than
    slots, FILLED_SHARE of them taking its last free slot, the loop mostly idle.  A
    slot is held for a connection's whole life, so later clients waited in the listen
    backlog for whole connections to end.  ``cost_s``: BUSY_COST."""
    idle = idle_share(profile)
    if idle is None or connections <= size or filled < FILLED_SHARE * connections:
        return []
    ended = switched_out_at(profile)
    handlers = {ended.get(tuple(w.stack)) for w in profile.waits
                if any(HANDLER_FRAME.search(f) for f in w.stack)} - {None}
    idle_stacks = {tuple(w.stack) for w in profile.waits if is_idle_server_wait(w.stack)}
    waits = jobs_waits(profile, handlers, idle_stacks)
    if not waits[1]:
        return []
    waited = sum(event_wait(w) for w in waits[1])
    what = jobs_waited(profile, handlers, idle_stacks, who="The connections' greenlets",
                       held="held their slots mostly waiting", waits=waits)
    worst = max(waits[1], key=event_wait)
    message = (
        f"The WSGI server's connection pool was full: it runs each connection in one of "
        f"{size} pooled greenlets (WSGIServer(..., spawn={size})) for the connection's "
        f"whole life, and {filled} of the {connections} connections that came took its "
        f"last free slot, while the loop sat {idle_told(profile, idle)}: the pool's size "
        "paced the service, not this process's CPU. While the pool is full the server "
        "stops accepting: new clients wait in the listen backlog until a whole "
        f"connection ends (every request it carries), a wait only they see.{what} Fix: a "
        "larger spawn (or none: a greenlet per connection) if what the handlers wait on "
        "can take more requests at once; bound the upstream calls themselves where they "
        "must be bounded (a gevent Pool or Semaphore around them), not the connections.")
    return [_finding(SERVER_POOL_FULL, message, waited, list(worst.stack),
                     pool_size=size, connections=connections, pool_filled=filled,
                     busy=True, idle_share=idle, handlers_wait_s=waited,
                     cost_meaning=BUSY_COST)]
