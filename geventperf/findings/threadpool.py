"""gevent's threadpool full while greenlets waited on it (``threadpool-saturated``), or
handed tasks so small that the hand-off was the cost (``threadpool-tiny-tasks``), from
the events of :mod:`geventperf.threadpoolwatch`."""

from __future__ import annotations

from typing import Any

from geventperf.findings.cheaper import (
    task_work,
    tiny_tasks_done,
)
from geventperf.findings.common import (
    BOUND_CONCURRENCY,
    MANY_IN_FLIGHT,
    THREADPOOL_TINY_TASKS,
    _finding,
    block_threshold,
)
from geventperf.findings.starved import (
    other_threads_cpu,
)
from geventperf.profile import Finding, Profile
from geventperf.threadpoolwatch import EVENT_KIND, FINDING_KIND, OTHER_POOLS

# Greenlet-seconds queued for a worker below which a full pool is not worth a finding:
# the tracer's default loop-blocked threshold, the same "a person would notice" scale.
SATURATED_MIN_QUEUED_S = 0.05
# Worker-seconds the pool's tasks must have run for its queue to be a pool full of
# work, on the same scale: tasks that queued while the workers had almost nothing to
# run waited for the pool to start its threads (a burst's first tasks) or for the GIL,
# not for a full pool, and a resolver or a bigger pool would not change that much (20
# lookups of 127.0.0.1 at start-up queued 0.213 s in all while running 0.001 s).
SATURATED_MIN_BUSY_S = SATURATED_MIN_QUEUED_S
# DNS is "the cause" when lookups took at least this share of the pool's busy
# worker-seconds (they are what filled it); below, lookups were queued behind others.
DNS_CAUSE_SHARE = 0.5
# DNS lookups' queueing behind other work is told (with a resolver off the pool as a
# fix) from this share of the pool's queueing on: below it the lookups are no lever (an
# unseen service queued 7 ms of lookups behind 56 s of its own calls, and was told
# GEVENT_RESOLVER=ares).
DNS_TOLD_SHARE = 0.1
# The queued tasks waited rather than computed in their threads when all the process's
# other threads used under this share of the worker-seconds they ran: blocking I/O (an
# HTTP call, a sleep), which monkey-patched code does cooperatively in a greenlet with
# no thread at all (an unseen service ran requests.get in the pool: 61.7 worker-seconds,
# under 1 s of CPU; called in its handler greenlet, it served twice the requests).
TASKS_WAITED_SHARE = 0.25
# Greenlet names written per function in a message (all are in the finding's extra).
MAX_NAMES_SHOWN = 4
COST_MEANING = ("greenlet-seconds tasks spent queued for a free worker thread of this "
                "pool: from ThreadPool.spawn until a worker started them, summed over "
                "the tasks (less the lookups' share a connection finding counts)")


# Where urllib3 looks a host up for a new connection (util/connection.py).
CONNECT_SITE = "/urllib3/util/connection.py:"


def threadpool_saturated(profile: Profile) -> list[Finding]:
    """One finding per pool whose tasks queued for a free worker thread: the pool
    size, the queue depth, the functions queued and their waits, whether DNS
    resolution is the cause, and the fix.  ``cost_s``: greenlet-seconds queued."""
    pools: dict[str, list[dict[str, Any]]] = {}
    for ev in profile.events:
        if isinstance(ev, dict) and ev.get("kind") == EVENT_KIND \
                and isinstance(ev.get("pool"), str) and ev["pool"] != OTHER_POOLS:
            pools.setdefault(ev["pool"], []).append(ev)
    names = {g.id: g.name for g in profile.greenlets}
    reopened = _reopened(profile)
    first_opens = _first_opens_only(profile)
    threads_cpu = other_threads_cpu(profile)
    patched = profile.meta.get("monkey_patched")
    # (None: the profile does not say)
    sockets_patched = "socket" in patched if isinstance(patched, list) else None
    out = []
    for label, evs in pools.items():
        finding = _pool_finding(label, evs, names, reopened, first_opens, threads_cpu,
                                sockets_patched)
        if finding is not None:
            out.append(finding)
    return out


def _num(ev: dict[str, Any], key: str) -> float:
    value = ev.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else 0.0


# Under this share of its tasks finding every worker busy, a pool was full "now and
# then", not "full" (an unseen client's 2 of 1 005 lookups queued behind a burst).
FULL_MOSTLY_SHARE = 0.5


def _reopened(profile: Profile) -> tuple[float, str]:
    """The largest share of the run's new connections that a connection finding says
    need not have been opened (connection-churn, connection-leak, session-per-request
    from new pools), and its kind; (0.0, "") when none fires.  Their lookups are part
    of opening them: that finding counts their wait.  Imported here: connections.py
    builds on the loop findings."""
    from geventperf.findings.connections import (
        connection_churn,
        connection_leak,
        not_kept_alive,
        session_per_request,
    )
    shares = [(float(f.extra[key]), f.kind)
              for f in connection_churn(profile) + connection_leak(profile)
              + not_kept_alive(profile) + session_per_request(profile)
              for key in ("churn_share", "leak_share", "not_kept_share", "new_pools_share")
              if isinstance(f.extra.get(key), float)]
    return max(shares, default=(0.0, ""))


def _first_opens_only(profile: Profile) -> bool:
    from geventperf.findings.connections import first_opens_only  # as in _reopened
    return first_opens_only(profile)


def _pool_finding(label: str, evs: list[dict[str, Any]], names: dict[int, str],
                  reopened: tuple[float, str] = (0.0, ""),
                  first_opens: bool = False,
                  threads_cpu: float | None = None,
                  sockets_patched: bool | None = None) -> Finding | None:
    queued = sum(_num(e, "queued_s") for e in evs)
    saturated = int(sum(_num(e, "saturated") for e in evs))
    if saturated == 0 or queued < SATURATED_MIN_QUEUED_S:
        return None
    busy = sum(_num(e, "run_s") for e in evs)
    if busy < SATURATED_MIN_BUSY_S:
        return None
    tasks = int(sum(_num(e, "tasks") for e in evs))
    maxsize = int(max(_num(e, "maxsize") for e in evs))
    depth_max = int(max(_num(e, "depth_max") for e in evs))
    depth_mean = sum(_num(e, "depth_mean") * _num(e, "tasks") for e in evs) / max(tasks, 1)
    queued_max = max(_num(e, "queued_max_s") for e in evs)
    default = any(e.get("default_pool") for e in evs)
    dns = [e for e in evs if e.get("dns")]
    dns_run = sum(_num(e, "run_s") for e in dns)
    dns_queued = sum(_num(e, "queued_s") for e in dns)
    dns_cause = bool(dns) and busy > 0 and dns_run >= DNS_CAUSE_SHARE * busy
    need = depth_max + 1  # tasks in the pool at once at the peak, the new one included

    functions = []
    parts = []
    for e in sorted(evs, key=lambda e: -_num(e, "queued_s")):
        n = int(_num(e, "tasks"))
        sites = e.get("sites") or []
        site = sites[0][0] if sites and isinstance(sites[0], list) and sites[0] else None
        who = _greenlets(e, names)
        functions.append({"function": e.get("function"), "tasks": n,
                          "queued_s": _num(e, "queued_s"), "run_s": _num(e, "run_s"),
                          "mean_run_s": _num(e, "run_s") / n if n else 0.0,
                          "dns": bool(e.get("dns")), "site": site, "greenlets": who})
        parts.append(
            f"{e.get('function')} x{n}" + (" (DNS)" if e.get("dns") else "")
            + f": queued {_num(e, 'queued_s'):.3f} s, ran {_num(e, 'run_s'):.3f} s in "
            f"worker threads ({_num(e, 'run_s') / n if n else 0.0:.3f} s each)"
            + (f", spawned by {who}" if who else "") + (f", called at {site}" if site else ""))
    if len(parts) > 5:
        parts = parts[:5] + [f"{len(parts) - 5} more function(s)"]

    if need > MANY_IN_FLIGHT:  # not that many threads: fewer calls at once
        bigger = f"fewer calls at once than {need} threads would take: {BOUND_CONCURRENCY}"
    elif default:
        bigger = ("a bigger pool: gevent.get_hub().threadpool.maxsize = "
                  f"{need} (before the burst)")
    else:
        bigger = f"a bigger pool: a bigger maxsize for that pool (pool.maxsize = {need})"
    alternative = ("GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use "
                   "the threadpool")
    # lookups a new connection made (urllib3's create_connection): reuse needs none
    connecting = sum(int(site[1]) for e in dns for site in (e.get("sites") or [])
                     if isinstance(site, list) and len(site) == 2 and isinstance(site[0], str)
                     and CONNECT_SITE in site[0].replace("\\", "/")
                     and isinstance(site[1], int) and site[1] > 0)
    burst = need > MANY_IN_FLIGHT
    if dns_cause and burst:
        # hundreds of lookups at once that each took microseconds queued behind their
        # number, not behind a slow resolver (an unseen redelivery batch spawned 1 200
        # greenlets at once: 1 227 s queued for 0.063 s of lookups; GEVENT_RESOLVER=ares
        # made its run slower, a Pool(20) 1.8x faster)
        spawners = _names_count(dns)
        dns_text = (f" DNS lookups filled it, up to {need} at once"
                    + (f" from {spawners} greenlets" if spawners else "")
                    + f", yet they ran {dns_run:.3f} "
                    "worker-seconds in all: they queued behind how many were asked at "
                    "once (each worker thread also waiting for the interpreter lock the "
                    "busy loop held), not behind slow lookups.")
        fix = f"{BOUND_CONCURRENCY}; then cache the lookups"
    elif dns_cause:
        dns_text = (f" DNS resolution is the cause: lookups ran {dns_run:.3f} of the "
                    f"{busy:.3f} worker-seconds that kept the pool busy (gevent's "
                    f"thread resolver runs every getaddrinfo on this pool).")
        fix = f"{alternative}, or cache the lookups; or {bigger}"
    if dns_cause:
        if connecting and first_opens:
            # a burst of first connections: reuse has nothing left to save, so the fix
            # stays the resolver or a bigger pool
            dns_text += (f" {connecting} of the lookups opened new connections (urllib3's "
                         "create_connection), each a connection's first: no pool opened "
                         "more than its peak of requests in flight, so only a burst of "
                         "new connections at once queued them.")
        elif connecting:
            dns_text += (f" {connecting} of the lookups opened new connections (urllib3's "
                         "create_connection); a reused, kept-alive connection needs none.")
        if connecting and not first_opens and burst:
            fix = ("fewer new connections, made by fewer calls at once: one Session "
                   f"shared by the greenlets, and {BOUND_CONCURRENCY}, with a session "
                   "pool of the same n (requests.adapters.HTTPAdapter(pool_maxsize=n) "
                   "mounted on it)")
        elif connecting and not first_opens:
            fix = ("fewer new connections: one Session shared by the greenlets, its pool "
                   "as large as the requests in flight at once (requests.adapters."
                   f"HTTPAdapter(pool_maxsize=...) mounted on it); or {fix}")
    else:
        dns_told = bool(dns) and dns_queued >= DNS_TOLD_SHARE * queued
        dns_text = (f" DNS lookups queued {dns_queued:.3f} s behind this work: every new "
                    f"connection's getaddrinfo waits for a free worker too."
                    if dns_told else "")
        waited = threads_cpu is not None and busy - dns_run > 0 \
            and threads_cpu < TASKS_WAITED_SHARE * (busy - dns_run)
        if waited:
            dns_text += (
                f" The tasks mostly waited in their threads rather than computing: they "
                f"ran {busy - dns_run:.3f} worker-seconds, and all the process's threads "
                f"besides the loop's used {threads_cpu:.3f} s of CPU.")
        patch_first = ("monkey-patch first (gevent.monkey.patch_all() before other "
                       "imports: the socket module is not patched here), then "
                       if sockets_patched is False else "")
        fix = (f"{patch_first}if what they wait on is cooperative under gevent (requests, "
               "sockets and time.sleep, monkey-patched), make those calls in the greenlets "
               "themselves (call the function directly, or gevent.spawn it): they need no "
               "thread; if it is a blocking C call (a database driver, a C library), the "
               f"pool is its place: {bigger}" if waited else
               f"{bigger}; or a cooperative alternative to the queued blocking calls so "
               "they need no thread") + (f"; and {alternative}" if dns_told else "")
    # the queueing of the lookups for connections a connection finding says need not
    # have been opened is that finding's (one cause, one finding)
    share, kind = reopened
    dns_tasks = sum(_num(e, "tasks") for e in dns)
    explained = share * dns_queued * min(1.0, connecting / dns_tasks) if dns_tasks else 0.0
    explained = max(0.0, min(explained, queued))  # counts from a profile are untrusted
    if queued - explained < SATURATED_MIN_QUEUED_S:
        return None  # its queueing is the connection finding's, nearly all of it
    if explained:
        dns_text += (f" {explained:.3f} s of the queueing was for lookups of connections "
                     f"opened again ({share:.0%} of them, {kind}): counted there.")
    message = (
        f"{label} (maxsize {maxsize}) was full"
        + (" now and then" if saturated < FULL_MOSTLY_SHARE * tasks else "")
        + f": {saturated} of {tasks} task(s) found "
        f"every worker busy, and tasks queued {queued:.3f} greenlet-seconds in all for a "
        f"free worker thread (longest {queued_max:.3f} s; up to {depth_max} task(s) "
        f"ahead, {depth_mean:.1f} on average). Queued: " + "; ".join(parts) + "."
        + dns_text + f" Fix: {fix}. Cost: {COST_MEANING}.")
    top_site = functions[0]["site"] if functions else None
    return Finding(kind=FINDING_KIND, message=message, greenlet=None, section=None,
                   stack=[top_site] if top_site else [], cost_s=queued - explained,
                   extra={"cost_meaning": COST_MEANING, "hazard": False, "pool": label,
                          "default_pool": default, "maxsize": maxsize, "tasks": tasks,
                          "saturated_tasks": saturated, "depth_max": depth_max,
                          "depth_mean": depth_mean, "queued_s": queued,
                          "queued_max_s": queued_max, "run_s": busy,
                          "functions": functions, "dns": bool(dns), "dns_cause": dns_cause,
                          "dns_run_s": dns_run, "dns_queued_s": dns_queued,
                          "tasks_waited": not dns_cause and waited,
                          "suggested_maxsize": None if need > MANY_IN_FLIGHT else need,
                          "fix": fix,
                          "explained_by_connections_s": explained})


def _names_count(evs: list[dict[str, Any]]) -> int:
    """The greenlets that spawned the tasks of *evs* (each event's own count)."""
    return int(sum(_num(e, "greenlets") for e in evs))


def _greenlets(ev: dict[str, Any], names: dict[int, str]) -> str:
    """'3 greenlets (fetch, fetch-2, ...)' from the profile's names, else the names the
    watch took itself."""
    count = int(_num(ev, "greenlets"))
    if count == 0:
        return ""
    ids = [i for i in ev.get("greenlet_ids") or [] if isinstance(i, int)]
    shown = [names[i] for i in ids if i in names] or \
        [n for n in ev.get("greenlet_names") or [] if isinstance(n, str)]
    shown = list(dict.fromkeys(shown))
    if not shown:
        return f"{count} greenlet(s)"
    more = f", {len(shown) - MAX_NAMES_SHOWN} more name(s)" \
        if len(shown) > MAX_NAMES_SHOWN else ""
    return f"{count} greenlet(s) ({', '.join(shown[:MAX_NAMES_SHOWN])}{more})"


# Tiny tasks: their callers waited at least this many times the tasks' own work for
# each result (the hand-off is most of it).  An unseen ingest decoded each of 60 000
# events' JSON in the hub's threadpool: 9 us of work, 511 us waited for each result, the
# loop 69 % busy and "FINDINGS: none"; decoding inline took the run 6x less.
TINY_HANDOFF_RATIO = 4.0


def threadpool_tiny_tasks(profile: Profile) -> list[Finding]:
    """One finding per function sent to a threadpool many times with tiny tasks
    (loop.tiny_tasks_done), whose callers waited at least TINY_HANDOFF_RATIO times the
    work for each result, a block threshold beyond the work in all (name lookups apart:
    a connection per call is the connection findings' story).  Where loop-saturated
    tells them as its cure, without_tiny_tasks_told drops these (one cause, one
    finding).  ``cost_s``: the callers' wait for the results less the tasks' work."""
    tiny = []
    for ev in profile.events:
        if not isinstance(ev, dict) or ev.get("kind") != EVENT_KIND or ev.get("dns") \
                or ev.get("pool") == OTHER_POOLS:
            continue
        done = tiny_tasks_done(ev)
        work, waited = task_work(ev), _num(ev, "result_s")
        if done and waited >= TINY_HANDOFF_RATIO * work \
                and waited - work >= block_threshold(profile):
            tiny.append((ev, done, work, waited))
    names = {g.id: g.name for g in profile.greenlets}
    out = []
    for ev, done, work, waited in sorted(tiny, key=lambda t: t[2] - t[3]):
        sites = ev.get("sites") or []
        site = sites[0][0] if sites and isinstance(sites[0], list) and sites[0] else None
        function = str(ev.get("function") or "the")
        message = (
            f"Tiny tasks handed to a threadpool: {_greenlets(ev, names) or 'greenlets'} "
            f"sent {done:.0f} "
            f"{function} tasks to {ev.get('pool')}"
            + (f" from {site}" if site else "")
            + f", {work / done * 1e6:.0f} us of work each on average, and waited "
            f"{waited / done * 1e6:.0f} us for each result ({waited:.3f} s in all): each "
            "hand-off (a queue, a worker thread's wake-up, the interpreter lock passed "
            "back and forth, the loop's wake-up to deliver the result) costs far more "
            "than the work, so the threadpool is the cost here, not the cure. Fix: call "
            f"{function} inline in the greenlet (microseconds of work hold the loop no "
            "longer than a hand-off does), or hand over whole batches (a body, not its "
            "lines; a thousand items per task); a larger pool would only add threads "
            "to wake.")
        out.append(_finding(THREADPOOL_TINY_TASKS, message, waited - work,
                            [site] if site else [],
                            pool=ev.get("pool"), function=function, tasks=int(done),
                            work_s=work, result_wait_s=waited, site=site))
    return out


def without_tiny_tasks_told(found: list[Finding]) -> list[Finding]:
    """*found* without the threadpool-tiny-tasks findings when a loop-saturated finding
    tells the tiny tasks as its cure (``tiny_tasks_told``) at a cost at least theirs, or
    else without that loop-saturated finding: one cause, one finding, the costlier (the
    loop's queueing, or the callers' waits for their results: under a loaded machine's
    CPU starvation the hub's own share of the loop grows, and the queueing told fell to
    a third of the waits)."""
    telling = [f for f in found if f.extra.get("tiny_tasks_told")]
    tiny = [f for f in found if f.kind == THREADPOOL_TINY_TASKS]
    if not telling or not tiny:
        return found
    if max(f.cost_s for f in telling) >= max(f.cost_s for f in tiny):
        return [f for f in found if f.kind != THREADPOOL_TINY_TASKS]
    return [f for f in found if not f.extra.get("tiny_tasks_told")]
