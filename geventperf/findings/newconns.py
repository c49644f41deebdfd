"""New connections that waited to be served (``new-connections-queued``).

A server with a fixed number of workers, each held by one kept-alive connection until it
idles out (gunicorn's sync workers, a thread-per-connection server), serves that many
connections at once.  The kernel accepts more into its listen backlog: their connect
succeeds, and their first request waits, unanswered, until a worker frees up.  A client
keeping more connections open than the upstream has workers sees most answers come in
milliseconds and the first answer on each new connection come seconds later; the
other tables show a mean time to the head that looks like the upstream's latency (an
unseen stock checker kept 32 connections to an upstream serving 8 with a 1 s keep-alive:
its 24 extra connections waited 1-3.8 s for their first answers while answers came in
12 ms, and it was told a full Pool, whose fix, a larger Pool, made it 1.9x slower;
pool_maxsize=8 made it 2.6x faster).

From the pool watch's ``trails`` (``urllib3-pool`` events): per host, the time from a
request's start (for a new connection, from its set-up: the connect and a TLS handshake
are not in it) to its answer's head, for requests on new connections and on reused
ones.
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import (
    NEW_CONNECTIONS_QUEUED,
    _count,
    _events,
    _figures,
    _finding,
    block_threshold,
)
from geventperf.findings.compression import http_waits
from geventperf.findings.ownclients import own_server_hosts
from geventperf.frames import user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import OTHER_POOLS
from geventperf.profile import Finding, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# First requests on new connections timed, from which their waits are a pattern.
NEW_MIN = 5
# Their heads came this many times later than those on reused connections, on
# average: a backlog holds a connection for whole requests of others (seconds against
# milliseconds); an upstream that does per-connection work (its own set-up, a cache
# warmed per connection) costs a first request a little more, not this.
SLOWER_RATIO = 10.0
# ... and the requests on reused connections were at least this many: enough answers
# in use to tell the upstream's own time.
REUSED_MIN = 20


def own_servers_never_full(profile: Profile) -> list[dict[str, Any]]:
    """The pool events of the program's own pywsgi servers (own_server_hosts) when no
    connection of theirs ever found the server's spawn pool full, or it had none: each
    was accepted and served at once, and a late first answer is the handler's own work
    (an unseen mirror's Pool(500) of handlers answered its 60 clients' first requests
    after a cold cache's upstream fetches, and was told a server with fixed workers
    keeping them in its backlog)."""
    served = _events(profile, SERVER_EVENT)
    if not served or any(_count(e, "pool_filled") for e in served):
        return []
    return own_server_hosts(profile)


def new_connections_queued(profile: Profile) -> list[Finding]:
    """Hosts whose new connections' first answers came SLOWER_RATIO times later than
    answers on their reused connections (see the module's text).  ``cost_s``: the
    greenlet-seconds those first requests waited beyond the reused ones' mean."""
    queued = []
    never_full = [id(e) for e in own_servers_never_full(profile)]
    for e in _events(profile, POOL_EVENT):
        trails = e.get("trails")
        if e.get("pool") == OTHER_POOLS or not isinstance(e.get("pool"), str) \
                or not isinstance(trails, dict) or id(e) in never_full:
            continue
        new, reused = _figures(trails.get("new"), 5), _figures(trails.get("reused"), 5)
        if new is None or reused is None or new[0] < NEW_MIN or reused[0] < REUSED_MIN:
            continue
        new_mean, reused_mean = new[4] / new[0], reused[4] / reused[0]
        if new_mean >= SLOWER_RATIO * max(reused_mean, 1e-6):
            queued.append((e, int(new[0]), new_mean, reused_mean,
                           new[0] * (new_mean - reused_mean)))
    cost = sum(q[4] for q in queued)
    if not queued or cost < block_threshold(profile):
        return []
    queued.sort(key=lambda q: -q[4])
    e, count, new_mean, reused_mean, _cost = queued[0]
    heads = http_waits(profile).top_head
    stack = list(heads.stack) if heads is not None else []
    site = user_site(stack).user if stack else None
    peak, size = _count(e, "peak_in_use"), _count(e, "maxsize")
    others = "".join(f"; {q[0]['pool']}: {q[1]} first requests, {q[2]:.3f} s each"
                     for q in queued[1:])
    message = (
        f"New connections waited to be served: the first requests on {count} "
        f"connections opened to {e['pool']} waited {new_mean:.3f} s each for their "
        f"answers' heads on average (after the connect), against "
        f"{reused_mean * 1e3:.1f} ms on connections already in use{others}"
        + (f" (the requests were sent at {site})" if site else "")
        + ". The upstream accepted those connections but answered them only when one of "
        "its workers freed up: it serves fewer connections at once than the program kept "
        "open (a server with a fixed number of workers, each held by a kept-alive "
        "connection until it idles out, such as gunicorn's sync workers or a "
        "thread-per-connection server; the other connections wait in its listen "
        "backlog). The pool held up to "
        f"{peak} connections to it at once (pool_maxsize {size}). Fix: keep no more "
        "connections open to it than it serves at once: pool_maxsize "
        "(requests.adapters.HTTPAdapter(pool_maxsize=...), with pool_block=True so that "
        "callers wait for a free connection rather than open more) at its worker count; "
        "a larger Pool of callers only queues more in its backlog. Or let the upstream "
        "serve more at once: more workers, asynchronous workers, or a shorter keep-alive "
        "timeout, so that idle connections free their workers sooner.")
    return [_finding(NEW_CONNECTIONS_QUEUED, message, cost, stack,
                     pools=[q[0]["pool"] for q in queued], first_requests=count,
                     first_head_s=new_mean, reused_head_s=reused_mean, peak_in_use=peak,
                     site=site)]
