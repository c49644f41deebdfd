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

import ipaddress
import re
import urllib.parse
from typing import Any, Callable, NamedTuple

from geventperf.findings.common import (
    BOUND_CONCURRENCY,
    CONNECTION_CHURN,
    CONNECTION_LEAK,
    MANY_IN_FLIGHT,
    NOT_KEPT_ALIVE,
    SESSION_PER_REQUEST,
    _base_name,
    _count,
    _events,
    _finding,
    _greenlets_named,
    _sentence,
    _workers,
    block_threshold,
)
from geventperf.findings.cpuhot import (
    greenlet_samples,
)
from geventperf.findings.delayedack import trail
from geventperf.findings.limits import full_pool_jobs, waiters
from geventperf.findings.saturated import _TLS_SETUP
from geventperf.frames import user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import OTHER_POOLS
from geventperf.profile import Finding, Profile

# requests' module-level entry (requests.get, .post, ... all call it).
API_FRAME = re.compile(r"[/\\]requests[/\\]api\.py:\d+:request$")
# urllib3 opening a connection: the connect (TLS included) and its name lookup.
CONNECT_FRAME = re.compile(r"[/\\]urllib3[/\\](connection\.py:\d+:HTTPS?Connection\."
                           r"(connect|_new_conn)|"
                           r"util[/\\]connection\.py:\d+:create_connection)$")
# Frame labels (":function" endings) of making a connection and what holds it, and of
# closing them: urllib3's connections and pools, requests' Sessions and adapters, the
# name lookup, and TLS set-up (loop._TLS_SETUP).  Their CPU is what a kept-alive
# connection does not spend again.
_SETUP_FRAMES = (
    ":HTTPConnection.connect", ":HTTPSConnection.connect", ":HTTPConnection._new_conn",
    ":HTTPSConnection._new_conn", ":HTTPConnection.__init__", ":HTTPSConnection.__init__",
    ":HTTPConnection.close", ":HTTPSConnection.close", ":create_connection",
    ":HTTPConnectionPool._new_conn", ":HTTPSConnectionPool._new_conn",
    ":HTTPConnectionPool.__init__", ":HTTPSConnectionPool.__init__",
    ":HTTPConnectionPool.close", ":PoolManager._new_pool", ":PoolManager.clear",
    ":Session.__init__", ":Session.close", ":Session.__exit__", ":HTTPAdapter.__init__",
    ":HTTPAdapter.init_poolmanager", ":HTTPAdapter.close", ":getaddrinfo") + _TLS_SETUP
# What a new-pools session-per-request finding counts (its module-level one counts waits).
_NEW_POOLS_COST = ("the share of connections opened past what one shared pool would have "
                   "kept (over all opened), of the greenlet-seconds spent waiting to open "
                   "connections plus the run's ready wait times the share of the sampled "
                   "CPU that set connections up (none without CPU samples)")
# Hosts whose pools a PoolManager keeps (requests' pool_connections default): past it,
# the least recently used pool is closed and the next request to its host makes a new one.
POOLS_KEPT = 10
# Fewer new connections than this are a script's few calls, not a pattern.
MIN_NEW_CONNECTIONS = 10
# A host's pools made again past POOLS_KEPT hosts, at most this share of its requests:
# the PoolManager closed pools it had kept (some requests found theirs still there), not
# a Session made per call, which makes a pool for every call (an unseen shard client's
# one Session over 32 hosts made 32-37 pools for 46-52 requests a host; told "create
# one Session per worker" first, while pool_connections=32 took the run 3x less).
EVICTED_POOLS_SHARE = 0.9
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
    """Connections opened, one per call, by requests' module-level functions, or through
    a new pool per call (a Session or an adapter made for each request): one finding.
    ``cost_s``: the greenlet-seconds spent waiting while opening them (module-level
    functions); as connection-churn's, with the share of the connections opened past
    what one pool would have kept (new pools)."""
    rows = [w for w in profile.waits if _opens_for_api(w.stack)]
    # each connection waits once at each of its steps (the name lookup, the connect):
    # per calling line the step waited most often, summed over the lines (the largest
    # row alone counted one line's: an unseen media job's 4 522 connections from six
    # lines were told as "at least 1510")
    per_line: dict[str | None, int] = {}
    for w in rows:
        line = user_site(w.stack).user
        per_line[line] = max(per_line.get(line, 0), w.count)
    opened = sum(per_line.values())
    waited = sum(w.wait_s for w in rows)
    if opened < MIN_NEW_CONNECTIONS or waited < block_threshold(profile) \
            or not profile.duration_s:
        return _pool_per_request(profile)
    # calls in flight on average: the time spent inside them over the run's wall time;
    # and the greenlets of the names that made them (a burst of one call each has a
    # low average and needs a connection per greenlet all the same)
    inside = sum(w.wait_s for w in profile.waits if _under_api(w.stack)) \
        + sum(r.run_s for r in profile.runs if _under_api(r.stack))
    in_flight = inside / profile.duration_s
    seen = waiters(profile, rows, weight=lambda w: w.wait_s)
    callers = _greenlets_named(profile, seen.names)
    # jobs of a full Pool ran at most its size at once: their number is no burst that
    # needs a connection each (an unseen job's 1 000 greenlets behind a Pool(20))
    jobs = {_base_name(g.name) for g in full_pool_jobs(profile)}
    bounded = bool(seen.names) and seen.names <= jobs
    # and the callers alive at once need a connection each: the most in use at once per
    # host, where the pool watch saw them, else every caller (an unseen gateway spawned
    # a greenlet per backend call, 3 360 of them over a run with about 42 calls in
    # flight and 107 at most: "FINDINGS: none", though every call paid a handshake)
    peaks = sum(_count(e, "peak_in_use") for e in _events(profile, POOL_EVENT)
                if isinstance(e.get("pool"), str) and e["pool"] != OTHER_POOLS)
    at_once = 0 if bounded else min(callers, peaks) if peaks else callers
    if opened < REUSE_RATIO * max(1.0, in_flight, at_once):
        return []
    # None where no CPU was measured (cpu_clock off, or no slice ended there)
    measured = [r.cpu_s for r in profile.runs
                if r.cpu_s is not None and _opens_for_api(r.stack)]
    cpu = sum(measured) if measured else None
    setup = (f"; {cpu:.3f} s of CPU ran in the slices that ended opening them (building a "
             "Session, its adapters and pools each time)" if cpu else "")
    # the queueing their set-up CPU made (the handshakes at both ends, where this
    # process serves them too), for the connections a shared Session would not have
    # opened: an unseen reconciler's 1 200 HTTPS calls, one handshake each, spent 68 %
    # of the sampled CPU setting connections up, and its saturated loop came first
    opening = _opening(profile)
    spared = max(0.0, 1.0 - max(1.0, in_flight) / opened)
    queued = spared * opening.queued
    if opening.cpu_share:
        setup += (f"; {opening.cpu_share:.0%} of the sampled CPU set connections up and "
                  f"closed them, which queued the others about {opening.queued:.3f} "
                  "greenlet-s")
    message = (
        f"A new connection for every request: {seen.who} called requests' module-level "
        f"functions (requests.get, requests.post, ...; most at {seen.where}), which build a "
        "new Session for each call and close it after, so nothing is kept alive: at "
        f"least {opened} connections were opened, each resolving the host name and "
        f"connecting again{_handshaking(profile, rows)}, {waited:.3f} s of waiting in "
        f"all{setup}. A shared Session "
        "keeps about as many connections as calls are in flight at once (here "
        f"{in_flight:.1f} on average, made by {callers} greenlets). Fix: create one "
        "requests.Session (or geventperf.Session) per worker or per process and call its "
        "get/post: its kept-alive connections skip the lookup, the connect and the "
        "set-up.")
    return [_finding(SESSION_PER_REQUEST, message, waited + queued, list(seen.worst.stack),
                     greenlet=seen.greenlet,
                     connections=opened, connect_wait_s=waited, setup_cpu_s=cpu,
                     setup_cpu_share=opening.cpu_share, others_ready_wait_s=queued,
                     calls_in_flight=in_flight, callers=callers, site=seen.where)]


def _handshaking(profile: Profile, rows: list[Any]) -> str:
    """", with a TLS handshake each" when the connections *rows* opened did one (a
    handshake frame in their stacks), or when most of the pools that saw calls were
    HTTPS; "" otherwise (an unseen scraper's report said "connections opened" where
    each paid a handshake, seen only in its stack)."""
    pools = [e for e in _events(profile, POOL_EVENT)
             if isinstance(e.get("pool"), str) and _count(e, "calls")]
    tls = sum(e["pool"].startswith("https:") for e in pools)
    shaken = any(f.endswith(_TLS_SETUP) for w in rows for f in w.stack)
    return ", with a TLS handshake each" if shaken or pools and tls * 2 > len(pools) else ""


def _pool_per_request(profile: Profile) -> list[Finding]:
    """Hosts reached through at least MIN_NEW_CONNECTIONS pools made during the run, at
    least REUSE_RATIO times as many as requests were in flight to them at once: the
    program made a Session (or an adapter) per request, or nearly, and threw its pool
    away with its connection."""
    hosts = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]

    def concerns(e: dict[str, Any]) -> bool:
        return _count(e, "pools") >= max(MIN_NEW_CONNECTIONS,
                                         REUSE_RATIO * _count(e, "peak_in_use"))
    found = _reopened_by(profile, hosts, concerns)
    kept = _kept(hosts)
    evicted = len(hosts) > kept and (found is None or _evicted(found.hosts[0][0]))
    if evicted:
        # a pool kept for each host would have opened only its peak in flight: the
        # pool_maxsize past it is never reached (the default baseline, the larger of the
        # two, counted 22 of a shard client's 54 connections, where 51 were avoidable);
        # and the hosts' pools made again count together: spread over 24 hosts, each
        # made a few (an unseen cache warmer's 320 requests made 175 pools, 4-11 a
        # host, and no host reached the count alone)
        found = _reopened_by(profile, hosts, lambda e: concerns(e) or _evicted(e),
                             avoidable=lambda e: max(
                                 0, _count(e, "opened") - _count(e, "peak_in_use")),
                             together=True) or found
    if found is None:
        return []
    fresh, share, opening, cost, seen = found
    worst, avoidable = fresh[0]
    if not evicted and _pool_per_greenlet(profile, worst, seen):
        return []
    peak = _count(worst, "peak_in_use")
    message = _evicted_story(fresh, len(hosts), kept, seen, opening.told(
        share, "the pools made again")) if evicted else (
        f"A new connection pool for every request: {seen.who} made their requests to "
        f"{worst['pool']} through {_count(worst, 'pools')} different urllib3 pools (one "
        "per requests.Session or adapter made; most opened connections under "
        f"{seen.where}), so nothing was kept alive: {_count(worst, 'opened')} connections "
        f"opened for {_count(worst, 'checkouts')} requests, {avoidable} more than one "
        f"shared pool would have kept (the most in flight at once: {peak}). "
        f"{_sentence(opening.told(share, 'the new pools'))}. Fix: create one "
        "requests.Session (or geventperf.Session) per worker or per process and reuse it "
        "for every call, not one per call (a `with "
        "requests.Session() as s:` around each request); its kept-alive connections skip "
        "the lookup, the connect and the set-up."
        + (f" The program reached {len(hosts)} hosts: a PoolManager keeps pools for "
           f"{kept} hosts (pool_connections) and closes the least recently used, so "
           "one Session spread over more hosts makes new pools too; then raise "
           "pool_connections (requests.adapters.HTTPAdapter(pool_connections=...))."
           if len(hosts) > kept else ""))
    return [_finding(SESSION_PER_REQUEST, message, cost, list(seen.worst.stack), evicted=evicted,
                     greenlet=seen.greenlet, cost_meaning=_NEW_POOLS_COST,
                     pools=[e["pool"] for e, _n in fresh],
                     pools_made=sum(_count(e, "pools") for e, _n in fresh),
                     connections=sum(_count(e, "opened") for e, _n in fresh),
                     avoidable=sum(n for _e, n in fresh), new_pools_share=share,
                     connect_wait_s=opening.waited, setup_cpu_share=opening.cpu_share,
                     others_ready_wait_s=share * opening.queued,
                     peak_in_use=peak, site=seen.where)]


# A host's pools each served at least this many requests on average: kept and reused.
POOL_REUSED_REQUESTS = 2.0


def _pool_per_greenlet(profile: Profile, pool: dict[str, Any], seen: Any) -> bool:
    """Whether the host's pools were a Session kept by each greenlet that opened them:
    no more pools than greenlets of those names, each pool reused for
    POOL_REUSED_REQUESTS requests or more.  Each keeps its connection alive across its
    calls; only one connection per greenlet is left to save, which no call pays again
    (an unseen scheduler's 192 workers, a Session each, 1 180 requests, were told "a
    new connection pool for every request")."""
    pools = _count(pool, "pools")
    return pools <= _greenlets_named(profile, seen.names) \
        and _count(pool, "checkouts") >= POOL_REUSED_REQUESTS * pools


def _evicted(pool: dict[str, Any]) -> bool:
    """Whether a host's pools were made again, but fewer than its requests: its pool was
    closed while kept (EVICTED_POOLS_SHARE), not made per call."""
    return 2 <= _count(pool, "pools") <= EVICTED_POOLS_SHARE * _count(pool, "checkouts")


def _kept(hosts: list[dict[str, Any]]) -> int:
    """How many hosts' pools the PoolManagers that made *hosts*' pools keep (the pool
    watch's ``kept``: their pool_connections, the largest), POOLS_KEPT where no pool was
    seen made (an older profile): an unseen rollout's Sessions kept 160 and were told
    "keeps pools for 10 of them", where a Session per rollout made its pools again."""
    return max((_count(e, "kept") for e in hosts), default=0) or POOLS_KEPT


def _evicted_story(fresh: list[tuple[dict[str, Any], int]], hosts: int, kept: int,
                   seen: Any, opening: str) -> str:
    """session-per-request's message when one Session's PoolManager closed the pools of
    hosts past the *kept* it keeps and made them again (EVICTED_POOLS_SHARE); *fresh*:
    those hosts with the connections each opened past its peak in flight, most first."""
    worst = fresh[0][0]
    scheme = str(worst["pool"]).split(":", 1)[0]
    where = (f"to {worst['pool']}" if len(fresh) == 1
             else f"to {len(fresh)} of them ({worst['pool']} the most)")
    return (
        f"Connection pools closed and made again: the program reached {hosts} hosts, and "
        f"a requests Session's PoolManager keeps pools for {kept} of them "
        "(pool_connections), closing the least recently used with its kept-alive "
        f"connections. {_sentence(seen.who)} made their requests {where} through "
        f"{sum(_count(e, 'pools') for e, _n in fresh)} pools for "
        f"{sum(_count(e, 'checkouts') for e, _n in fresh)} requests (most opened "
        f"connections under {seen.where}): {sum(_count(e, 'opened') for e, _n in fresh)} "
        f"connections opened, {sum(n for _e, n in fresh)} more than one kept pool per "
        f"host would have (the most in flight at once to one host: "
        f"{max(_count(e, 'peak_in_use') for e, _n in fresh)}). "
        f"{_sentence(opening)}. Fix: raise pool_connections to the hosts the Session "
        f"reaches: session.mount('{scheme}://', requests.adapters.HTTPAdapter("
        f"pool_connections={hosts}, pool_maxsize=...)) with the pool_maxsize it has now "
        "(or geventperf.mount(session, pool_connections=...)); and if a Session is also "
        "made per call, make one per worker or per process.")


def connection_churn(profile: Profile) -> list[Finding]:
    """Connections a full urllib3 pool closed and the next requests opened again: one
    finding over the pools that did it, worst first.  ``cost_s``: the share of the
    connections opened that a pool as large as the requests in flight would not have
    opened, of the waits to open connections and of the queueing their set-up CPU made
    (see :class:`Opening`); ``extra["others_ready_wait_s"]`` is that second part, which
    loop-saturated leaves to this finding."""
    pools = [e for e in _events(profile, POOL_EVENT)
             if isinstance(e.get("pool"), str) and not e.get("block")]
    found = _reopened_by(profile, pools,
                         lambda e: _count(e, "discarded") >= MIN_NEW_CONNECTIONS)
    if found is None:
        return []
    churned, share, opening, cost, seen = found
    worst, reopened = churned[0]
    peak, size = _count(worst, "peak_in_use"), _count(worst, "maxsize")
    # pools of several sizes on one host (two Sessions): the smallest is the one that
    # discards first
    smallest = _count(worst, "minsize")
    keeps = (f"{size} connections (pool_maxsize)" if not smallest or smallest >= size else
             f"{smallest} to {size} connections (the pool_maxsize of its "
             f"{_count(worst, 'pools')} pools)")
    # one adapter's pool_maxsize sizes the pools of all its hosts: the largest peak, and
    # more than the size that discarded (connections out before tracing are not seen)
    need = max(max(_count(e, "peak_in_use"), _count(e, "maxsize") + 1)
               for e, _n in churned)
    others = "".join(f"; {e['pool']}: size {_count(e, 'maxsize')}, up to "
                     f"{_count(e, 'peak_in_use')} in flight, {_count(e, 'discarded')} "
                     "discarded" for e, _n in churned[1:])
    tls = " and a TLS handshake" if any(e["pool"].startswith("https:")
                                        for e, _n in churned) else ""
    message = (
        f"Connections thrown away and opened again: urllib3's pool for {worst['pool']} "
        f"keeps {keeps}, but up to {peak} requests were in "
        f"flight to it at once. It discarded {_count(worst, 'discarded')} connections "
        "that came back to the full pool, and the next requests opened new ones: "
        f"{_count(worst, 'opened')} opened, {reopened} more than a pool of {peak} would "
        f"have (a connect{tls} each){others}; most were opened under {seen.where} by "
        f"{seen.who}. {_sentence(opening.told(share, 'the churn'))}. Fix: "
        + (f"fewer requests at once first: {peak} in flight to one host is more than "
           "most servers take at once, and a pool that large would hold as many "
           f"connections open on it; {BOUND_CONCURRENCY}, and give the session a pool "
           "of the same size: geventperf.mount(session, pool_maxsize=n)"
           if peak > MANY_IN_FLIGHT else
           "a pool as large as the requests in flight: geventperf.mount(session, "
           f"pool_maxsize={need}), or session.mount("
           f"'{worst['pool'].split(':')[0]}://', requests.adapters.HTTPAdapter("
           f"pool_maxsize={need}))")
        + "; urllib3 logs 'Connection pool is full, discarding connection' at WARNING "
        "each time.")
    return [_finding(CONNECTION_CHURN, message, cost, list(seen.worst.stack),
                     greenlet=seen.greenlet, pools=[e["pool"] for e, _n in churned],
                     reopened=sum(n for _e, n in churned), churn_share=share,
                     connect_wait_s=opening.waited, setup_cpu_share=opening.cpu_share,
                     others_ready_wait_s=share * opening.queued,
                     pool_maxsize=size, peak_in_use=peak,
                     fix_pool_maxsize=None if peak > MANY_IN_FLIGHT else need,
                     bound_concurrency=peak > MANY_IN_FLIGHT,
                     site=seen.where)]


def _ip_literal(pool: str) -> bool:
    """Whether the host of *pool* (``scheme://host:port``) is an IP address: no name to
    look up (an unseen relay's report said each request paid a lookup of 127.0.0.1)."""
    host = urllib.parse.urlsplit(pool).hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def not_kept_alive(profile: Profile) -> list[Finding]:
    """Pooled connections connected again for nearly every request: the server (or the
    request's own ``Connection: close``) closed each after one response, so urllib3's
    pool found it dropped and connected it anew.  Its count of connections opened
    stays at the pool's few, while nearly every response came on a connection made for
    it (poolwatch's ``trails``: new, not reused).  One finding over those hosts.
    ``cost_s``: as connection-churn's, with the share of the connections made again."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    found = _reopened_by(profile, pools, _rarely_reused, avoidable=made_again)
    if found is None:
        return []
    hosts, share, opening, cost, seen = found
    worst, again = hosts[0]
    new, reused = _responses(worst)
    tls = " and a TLS handshake" if any(e["pool"].startswith("https:") for e, _n in hosts) \
        else ""
    # seconds between two calls on one connection: its connections in use at once (the
    # peak) over the calls per second
    calls = _count(worst, "checkouts")
    gap = max(1, _count(worst, "peak_in_use")) * profile.duration_s / calls if calls else 0.0
    others = "".join(f"; {e['pool']}: {n} made again" for e, n in hosts[1:])
    mine = _this_side_closed(worst, new)
    message = (
        f"Connections not kept alive: on {worst['pool']}, {new} of {new + reused} timed "
        f"responses came on a connection made for that request, though its pool opened "
        f"only {_count(worst, 'opened')}: the same pooled connections were connected "
        f"again and again ({again} times{others}), each closed after one response. "
        f"{_closer(worst, mine)} Every request then pays "
        f"{'' if _ip_literal(worst['pool']) else 'a name lookup and '}a connect{tls} "
        f"again; most were made under {seen.where} by "
        f"{seen.who}. {_sentence(opening.told(share, 'the connections made again'))}. "
        + _not_kept_fix(mine)
        + (f" The calls came about {gap:.1f} s apart on each connection, though: a server "
           "that drops connections idle that long (gunicorn's keep-alive is 2 s by "
           "default) closes them between calls, and then its idle timeout is the lever."
           if gap >= IDLE_GAP_S else ""))
    return [_finding(NOT_KEPT_ALIVE, message, cost, list(seen.worst.stack),
                     greenlet=seen.greenlet, pools=[e["pool"] for e, _n in hosts],
                     made_again=sum(n for _e, n in hosts), not_kept_share=share,
                     connect_wait_s=opening.waited, setup_cpu_share=opening.cpu_share,
                     others_ready_wait_s=share * opening.queued, site=seen.where)]


# Connections reused for at most this share of a host's timed responses: nearly every
# one came on a connection made for it (a server keeping them alive reuses most).
NOT_KEPT_REUSED_SHARE = 0.1
# Calls at least this far apart on each connection may have outlived the server's idle
# timeout (gunicorn keeps an idle connection 2 s by default): the message says so.
IDLE_GAP_S = 1.0


def _responses(pool: dict[str, Any]) -> tuple[int, int]:
    """(timed responses on new connections, on reused ones) of a pool event."""
    new, reused = trail(pool, "new"), trail(pool, "reused")
    return (new[0] if new else 0), (reused[0] if reused else 0)


def made_again(pool: dict[str, Any]) -> int:
    """Connections made anew in pooled connection objects: responses on new connections
    past the connections the pool opened."""
    return max(0, _responses(pool)[0] - _count(pool, "opened"))


ASKED = "asked"


def _this_side_closed(pool: dict[str, Any], new: int) -> bool | str | None:
    """ASKED when at least half of the requests sent Connection: close themselves
    (poolwatch's ``asked_close``: the server closed as asked, whatever its heads said;
    an unseen client set it on every HTTPS call, and paid a handshake per call);
    otherwise whether fewer than half of the responses that came on new connections
    said the server closes after them (``closing``): the closes were then mostly this
    side's; None for a profile without the count."""
    asked = pool.get("asked_close")
    if isinstance(asked, int) and not isinstance(asked, bool) and asked > 0 \
            and asked >= _count(pool, "calls") / 2:
        return ASKED
    closing = pool.get("closing")
    if not isinstance(closing, int) or isinstance(closing, bool):
        return None
    return closing < new / 2


def _closer(pool: dict[str, Any], mine: bool | str | None) -> str:
    """Who closed the connections, as far as the heads tell (*mine*: _this_side_closed)."""
    if mine is None:
        return ("Either the server closes them (it answers Connection: close: keep-alive "
                "off in it, or in a proxy in front of it) or the requests ask it to (a "
                "Connection: close header, in the call or the session's headers).")
    if mine == ASKED:
        return (f"The requests asked for it: {_count(pool, 'asked_close')} of the "
                f"{_count(pool, 'calls')} sent a Connection: close header (in the call's "
                "headers or the session's), and the server closed each connection after "
                "its response.")
    said = f"{_count(pool, 'closing')} of the {_count(pool, 'calls')} responses"
    if mine:
        return (f"Only {said} said Connection: close, so most closes were this side's: a "
                "stream=True response closed before its body was read (by close(), or a "
                "with block around it) closes its socket with it; or the server dropped "
                "them idle.")
    return (f"The server answered Connection: close ({said}): keep-alive is off in it or "
            "in a proxy in front of it, or the requests asked for it (a Connection: close "
            "header in the call or the session's headers, which servers echo).")


def _not_kept_fix(mine: bool | str | None) -> str:
    if mine == ASKED:
        return ("Fix: drop the Connection: close header from the requests (the call's "
                "headers= or session.headers): the connections then stay open for the "
                "next call.")
    if mine:
        return ("Fix: read each streamed body to the end before the response is closed "
                "(or do not stream it): its connection then goes back to the pool open.")
    return ("Fix: keep connections alive: drop a Connection: close header from the "
            "requests, or turn keep-alive on in the server (gunicorn --keep-alive, an "
            "nginx upstream's keepalive) or the proxy.")


def _made(pool: dict[str, Any]) -> int:
    """Every connection a pool event's pools made: those they opened, and those made
    again in pooled connection objects.  The share a connection finding takes of the
    opening cost is over these, so that the findings' shares never add past the whole
    (a closing server behind a pool too small: churn and not-kept-alive both)."""
    return _count(pool, "opened") + made_again(pool)


def _rarely_reused(pool: dict[str, Any]) -> bool:
    new, reused = _responses(pool)
    return new > 0 and reused <= NOT_KEPT_REUSED_SHARE * (new + reused)


def connection_leak(profile: Profile) -> list[Finding]:
    """Connections checked out of urllib3's pools and never returned, more than the
    greenlets still alive at the end could be reading: one finding.  ``cost_s`` as
    connection-churn's, with the share of the connections opened that never came back
    (``extra["others_ready_wait_s"]`` again the part loop-saturated leaves to it)."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    opened = sum(_made(e) for e in pools)
    out = sum(_count(e, "unreturned") for e in pools)
    alive = _alive_at_end(profile)
    leaked = min(out - alive, opened)
    if leaked < MIN_NEW_CONNECTIONS:
        return []
    share = leaked / opened
    opening = _opening(profile)
    worst = max(pools, key=lambda e: _count(e, "unreturned"))
    checkouts = sum(_count(e, "checkouts") for e in pools)
    tls = " and a TLS handshake" if worst["pool"].startswith("https:") else ""
    seen = waiters(profile, opening.rows, weight=lambda w: w.wait_s) \
        if opening.rows else None
    where = (f" Most were opened under {seen.where} by {seen.who}." if seen else "")
    blocks = (" The pool blocks (pool_block=True): once its connections are all out, "
              "every request waits for one that never comes back." if any(
                  e.get("block") for e in pools if _count(e, "unreturned")) else "")
    message = (
        f"Connections never returned to their pool: {out} connections checked out of "
        f"urllib3's pools (most for {worst['pool']}) were still out when tracing stopped, "
        + (f"{leaked} more than the {alive} greenlets still alive could have been reading. "
           if alive else "and no greenlet was still alive to be reading them. ")
        + "A response made with stream=True keeps its connection until its body is read to "
        "the end or it is closed; the pool opens a new connection for the next request "
        f"instead ({opened} made for {checkouts} requests, a connect{tls} each), and the "
        "lost ones stay open until garbage-collected, holding a file descriptor here and a "
        f"connection slot on the server.{blocks}{where} "
        f"{_sentence(opening.told(share, 'the leak'))}. Fix: read every streamed body "
        "to the end (response.content, or iter_content until it stops): its connection "
        "then goes back to the pool for the next request. Where a body is not wanted, "
        "do not stream it, or close the response (`with session.get(url, stream=True) "
        "as response:`, or response.close() in a finally): that ends the leak, but "
        "closing an unread body closes its socket too, so the next request connects "
        "again.")
    cost = share * (opening.waited + opening.queued)
    return [_finding(CONNECTION_LEAK, message, cost,
                     list(seen.worst.stack) if seen else [],
                     greenlet=seen.greenlet if seen else None,
                     pools=[e["pool"] for e in pools if _count(e, "unreturned")],
                     unreturned=out, leaked=leaked, alive_at_end=alive, leak_share=share,
                     connect_wait_s=opening.waited, setup_cpu_share=opening.cpu_share,
                     others_ready_wait_s=share * opening.queued,
                     site=seen.where if seen else None)]


class Opening(NamedTuple):
    """What opening connections cost the run (outside requests' module-level functions,
    session-per-request's own case)."""

    rows: list[Any]  # the waits under urllib3's connection set-up
    waited: float  # their event wait (their own queueing is others' doing)
    # the share of the greenlets' sampled CPU that set connections (and pools, Sessions)
    # up and closed them, and the run's ready wait times that share: the queueing that
    # CPU made, as gc-pause counts the collector's; None without CPU samples
    cpu_share: float | None
    queued: float

    def told(self, share: float, cause: str) -> str:
        """The sentence of a finding whose cause opened *share* of the connections."""
        cpu = (f"; {self.cpu_share:.0%} of the sampled CPU set connections up and closed "
               f"them, which queued the others about {self.queued:.3f} greenlet-s"
               if self.cpu_share else "")
        return (f"{self.waited:.3f} s was spent waiting to open connections{cpu}; "
                f"{share:.0%} of that is {cause}")


def _opening(profile: Profile) -> Opening:
    rows = [w for w in profile.waits if _connects(w.stack) and not _under_api(w.stack)]
    waited = sum(w.wait_s if w.event_wait_s is None else w.event_wait_s for w in rows)
    share = _setup_cpu_share(profile)
    ready = sum(g.ready_wait_s for g in _workers(profile))
    return Opening(rows, waited, share, ready * share if share else 0.0)


def _setup_cpu_share(profile: Profile) -> float | None:
    """The share of the greenlets' sampled CPU (the hub's apart) with a connection
    set-up frame (_SETUP_FRAMES) in its stack; None without CPU samples."""
    if profile.cpu_samples is None:
        return None
    setup = [label.endswith(_SETUP_FRAMES) for label in profile.cpu_samples.frames]
    total = inside = 0.0
    for frames, cpu in greenlet_samples(profile):
        total += cpu
        if any(setup[i] for i in frames):
            inside += cpu
    return inside / total if total > 0 else None


def _alive_at_end(profile: Profile) -> int:
    """Greenlets alive when tracing stopped (the hub and the stopping one apart); for a
    snapshot, where tracing has not stopped, every greenlet of the profile."""
    alive = profile.meta.get("alive_at_end")
    if isinstance(alive, dict):
        return sum(n for n in alive.values() if isinstance(n, int) and n > 0)
    return len(profile.greenlets)


class Reopened(NamedTuple):
    """Hosts that opened connections a cause made them open again, and what it cost."""

    hosts: list[tuple[dict[str, Any], int]]  # (event, connections reopened), most first
    share: float  # of all connections opened in the run
    opening: Opening
    cost: float
    seen: Any  # limits.Waiters of the waits to open connections


def _reopened_by(profile: Profile, pools: list[dict[str, Any]],
                 concerns: Callable[[dict[str, Any]], bool],
                 avoidable: Callable[[dict[str, Any]], int] | None = None,
                 together: bool = False) -> Reopened | None:
    """The hosts of *pools* (folded ones apart: they add up many hosts' pools and peaks,
    no shape to read) that *concerns* and that made at least MIN_NEW_CONNECTIONS
    connections they need not have (each, or with *together* all of them): by
    default, opened past what a pool as large as their peak would have kept
    (*avoidable*), out of all the pools made (_made); None when there are none or their
    share of the opening cost stays under a block threshold."""
    avoidable = avoidable or _reopened
    opened = sum(_made(e) for e in pools)
    hosts = sorted(((e, avoidable(e)) for e in pools
                    if e["pool"] != OTHER_POOLS and concerns(e)), key=lambda en: -en[1])
    hosts = [(e, n) for e, n in hosts if n > 0] if together \
        and sum(n for _e, n in hosts) >= MIN_NEW_CONNECTIONS \
        else [(e, n) for e, n in hosts if n >= MIN_NEW_CONNECTIONS]
    if not hosts or not opened:
        return None
    share = min(1.0, sum(n for _e, n in hosts) / opened)
    opening = _opening(profile)
    cost = share * (opening.waited + opening.queued)
    if not opening.rows or cost < block_threshold(profile):
        return None
    return Reopened(hosts, share, opening, cost,
                    waiters(profile, opening.rows, weight=lambda w: w.wait_s))


def first_opens_only(profile: Profile) -> bool:
    """Whether the run's urllib3 pools opened only the connections their peak of
    requests in flight needed: one pool per host, none opened past that peak (or its
    size) and none made again.  Their name lookups were then each connection's first,
    the price of opening it at all, which no pool setting saves."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    return bool(pools) and all(_count(e, "pools") <= 1 and not _reopened(e)
                               and not made_again(e) for e in pools)


def _reopened(pool: dict) -> int:
    """Connections *pool* opened past what a pool as large as its peak of requests in
    flight would have kept."""
    return max(0, _count(pool, "opened") - max(_count(pool, "peak_in_use"),
                                                _count(pool, "maxsize")))
