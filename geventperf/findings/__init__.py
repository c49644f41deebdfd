"""Findings: pure functions from a Profile to causes a person can act on.

Each finder reads only the profile (its aggregates and ``events``, the raw
observations the tracer recorded for this purpose) and returns ``Finding`` objects;
nothing here touches a tracer, a frame or a greenlet.

**One finding per cause.**  Observations of one cause are merged across the greenlets
they touched (by kind, section and the user's call site); the finding says how many
greenlets, under which names, with a figure per name.

**One cost unit.**  ``cost_s`` is the time the cause added to the run, in
greenlet-seconds: summed over the greenlets that lost it, so it can exceed the run's
wall time (ten greenlets held up 0.3 s each cost 3 greenlet-seconds).  What each kind
counts is written in ``extra["cost_meaning"]`` and in its message; none counts the
queueing that *other* causes made (the wait split of ``geventperf.trace.waits``).

**Order.**  Hazards (a deadlock risk, guarded or not) come first, then a
``critical-path`` finding that held at least a quarter of the run's wall clock (its cost
is wall time: one greenlet alone, which no fix elsewhere wins back), then cost, largest
first; ties by kind, then by message, so the order is total.  A lock whose holders
stood queued behind the loop's CPU for a third of their waits under it comes just
after the loop-saturated finding: that CPU stretched every hold.
"""

from __future__ import annotations

from typing import Callable

from geventperf.findings.barrier import awaited_in_turn, batch_barrier
from geventperf.findings.common import (
    AWAITED_IN_TURN,
    BATCH_BARRIER,
    BLOCKED_READ,
    BLOCKING_CALL,
    CONNECTION_CHURN,
    CONNECTION_LEAK,
    CONNECTION_POOL_FULL,
    COST_MEANING,
    CPU_STARVED,
    CRITICAL_PATH,
    DEADLOCK_RISK,
    DEFAULT_BLOCK_THRESHOLD_S,
    DELAYED_ACK_STALL,
    DUPLICATE_IN_FLIGHT,
    FANOUT_TAIL,
    GC_PAUSE,
    GIL_CONTENDED,
    GREENLET_LEAK,
    HAZARDS,
    LOCK_CONTENDED,
    LOOP_BLOCKED,
    LOOP_HELD,
    LOOP_SATURATED,
    NEW_CONNECTIONS_QUEUED,
    NOT_KEPT_ALIVE,
    POOL_FULL,
    PROXIED_INTERNAL,
    QUEUE_FULL,
    QUEUE_LOCKSTEP,
    REDIRECT_FOLLOWED,
    REPEATED_REQUEST,
    REQUEST_BODY_STALL,
    REQUESTS_FAILED,
    RETRY_BACKOFF,
    SEQUENTIAL_CALLS,
    SERIAL_BOTTLENECK,
    SERVER_NAGLE,
    SERVER_POOL_FULL,
    SESSION_PER_REQUEST,
    SLEEP_POLL,
    SMALL_BODY_READS,
    SWITCH_STORM,
    THREADPOOL_SATURATED,
    THREADPOOL_TINY_TASKS,
    UNCOMPRESSED_BODIES,
    WORKERS_SATURATED,
    WRITE_BLOCKED,
)
from geventperf.findings.compression import uncompressed_bodies
from geventperf.findings.connections import (
    MIN_NEW_CONNECTIONS,
    connection_churn,
    connection_leak,
    not_kept_alive,
    session_per_request,
)
from geventperf.findings.critical import ALONE_FIRST_SHARE, critical_path
from geventperf.findings.delayedack import (
    delayed_ack_stall,
    request_body_stall,
    request_pieces_stall,
    server_nagle,
)
from geventperf.findings.failures import requests_failed
from geventperf.findings.fanout import fanout_tails
from geventperf.findings.gil import GIL_MIN_OFF_SHARE, GIL_SHARE, gil_contended
from geventperf.findings.handoff import (
    FEEDER_BUSY_SHARE,
    HANDOFF_MIN_WAITERS,
    HANDOFF_SHARE,
    after_stalls_told,
    serial_bottleneck,
    without_lingers_told,
)
from geventperf.findings.hazards import deadlock_risks
from geventperf.findings.inflight import duplicates_in_flight, without_repeats_told
from geventperf.findings.limits import (
    POOL_IDLE_SHARE,
    after_joined_told,
    connection_pool_full,
    lock_contended,
    pool_full,
    without_outweighed_limits,
)
from geventperf.findings.lockstep import queue_lockstep, without_calls_told
from geventperf.findings.loop import (
    BLOCKING_SHARE,
    GC_SHARE,
    HELD_MIN_SLICE_S,
    HELD_SHARE,
    HELD_SLICE_RATIO,
    TOP_HOLDERS,
    loop_blocked,
    loop_held,
)
from geventperf.findings.newconns import new_connections_queued
from geventperf.findings.outlived import greenlet_leaks
from geventperf.findings.polling import sleep_polls, without_polls_told
from geventperf.findings.proxied import proxied_internal
from geventperf.findings.reading import (
    SMALL_READ_BYTES,
    SMALL_READS_MIN,
    STORM_MAX_MEAN_RUN_S,
    STORM_MIN_SWITCHES,
    blocked_reads_in_c_sections,
    small_body_reads,
    switch_storms,
)
from geventperf.findings.redirects import redirects_followed
from geventperf.findings.repeated import (
    after_repeats_told,
    repeated_requests,
    without_caches_told,
)
from geventperf.findings.retries import retry_backoff
from geventperf.findings.saturated import (
    SATURATED_MIN_QUEUE,
    SATURATED_UTILIZATION,
    loop_saturated,
    without_slices_told,
)
from geventperf.findings.sequential import sequential_calls
from geventperf.findings.serverpool import server_pool_full
from geventperf.findings.slowpaths import (
    CHARSET_DETECTION,
    PURE_PYTHON_FALLBACK,
    SLOW_PATHS,
    slow_paths,
)
from geventperf.findings.starved import (
    STARVED_SHARE,
    cpu_starved,
)
from geventperf.findings.threadpool import (
    threadpool_saturated,
    threadpool_tiny_tasks,
    without_tiny_tasks_told,
)
from geventperf.findings.workers import (
    WORKERS_BUSY_SHARE,
    WORKERS_INPUT_SHARE,
    workers_saturated,
)
from geventperf.findings.writes import write_blocked
from geventperf.profile import Finding, Profile

__all__ = [
    "BLOCKED_READ", "BLOCKING_CALL", "BLOCKING_SHARE", "CHARSET_DETECTION",
    "ALONE_FIRST_SHARE", "CONNECTION_CHURN", "CONNECTION_LEAK", "CONNECTION_POOL_FULL",
    "COST_MEANING", "CPU_STARVED", "CRITICAL_PATH", "DEADLOCK_RISK", "DUPLICATE_IN_FLIGHT", "DEFAULT_BLOCK_THRESHOLD_S", "DELAYED_ACK_STALL",
    "FEEDER_BUSY_SHARE", "FINDERS", "GC_PAUSE", "GC_SHARE", "GIL_CONTENDED", "GREENLET_LEAK",
    "GIL_MIN_OFF_SHARE", "GIL_SHARE", "HANDOFF_MIN_WAITERS", "HANDOFF_SHARE", "HAZARDS",
    "HELD_MIN_SLICE_S", "HELD_SHARE", "HELD_SLICE_RATIO", "KINDS", "LOCK_CONTENDED",
    "LOOP_BLOCKED", "LOOP_HELD", "LOOP_SATURATED", "MIN_NEW_CONNECTIONS",
    "NEW_CONNECTIONS_QUEUED", "NOT_KEPT_ALIVE",
    "POOL_FULL",
    "POOL_IDLE_SHARE", "PURE_PYTHON_FALLBACK", "QUEUE_FULL", "QUEUE_LOCKSTEP",
    "PROXIED_INTERNAL", "REDIRECT_FOLLOWED", "UNCOMPRESSED_BODIES", "REPEATED_REQUEST", "REQUESTS_FAILED",
    "REQUEST_BODY_STALL",
    "RETRY_BACKOFF", "SATURATED_MIN_QUEUE", "SATURATED_UTILIZATION",
    "SEQUENTIAL_CALLS", "AWAITED_IN_TURN", "BATCH_BARRIER", "FANOUT_TAIL", "fanout_tails", "SERIAL_BOTTLENECK", "SERVER_NAGLE", "SERVER_POOL_FULL", "SESSION_PER_REQUEST", "SLEEP_POLL", "SLOW_PATHS",
    "SMALL_BODY_READS", "SMALL_READS_MIN", "SMALL_READ_BYTES", "STARVED_SHARE",
    "STORM_MAX_MEAN_RUN_S", "STORM_MIN_SWITCHES", "SWITCH_STORM",
    "THREADPOOL_SATURATED", "THREADPOOL_TINY_TASKS", "TOP_HOLDERS", "WORKERS_BUSY_SHARE", "WORKERS_INPUT_SHARE",
    "WORKERS_SATURATED", "WRITE_BLOCKED", "after_stalls_told", "blocked_reads_in_c_sections",
    "compute",
    "connection_churn", "connection_leak", "connection_pool_full", "cpu_starved",
    "critical_path",
    "deadlock_risks", "delayed_ack_stall", "duplicates_in_flight", "gil_contended", "greenlet_leaks",
    "lock_contended",
    "loop_blocked", "loop_held", "loop_saturated", "new_connections_queued", "not_kept_alive",
    "pool_full",
    "queue_lockstep", "request_body_stall", "request_pieces_stall",
    "proxied_internal", "redirects_followed", "uncompressed_bodies", "repeated_requests", "requests_failed", "retry_backoff", "serial_bottleneck", "server_nagle",
    "sequential_calls", "awaited_in_turn", "batch_barrier", "server_pool_full",
    "session_per_request", "sleep_polls", "slow_paths", "small_body_reads", "sort_findings",
    "switch_storms", "threadpool_saturated", "threadpool_tiny_tasks", "without_outweighed_limits",
    "without_caches_told", "without_calls_told", "without_lingers_told", "without_polls_told", "without_reads_told", "without_repeats_told", "without_slices_told",
    "without_stretches_told",
    "workers_saturated", "write_blocked",
]


def compute(profile: Profile) -> list[Finding]:
    """All findings of *profile*, hazards first, then by cost.  A finder that raises (a
    bug of ours on a profile nobody foresaw) costs its own findings only: the others
    are kept, and ``profile.meta["findings_errors"]`` names it and its exception, so a
    Tracer's stop() never raises into the program and ``geventperf run`` still writes
    the profile."""
    out: list[Finding] = []
    errors: list[str] = []
    for finder in FINDERS:
        try:
            out.extend(finder(profile))
        except Exception as exc:  # noqa: BLE001 - see above
            errors.append(f"{finder.__name__}: {type(exc).__name__}: {exc}")
    try:  # after the others: what the leaked greenlets caused is the leak's cost
        out.extend(greenlet_leaks(profile, out))
    except Exception as exc:  # noqa: BLE001 - see above
        errors.append(f"greenlet_leaks: {type(exc).__name__}: {exc}")
    try:
        out = without_outweighed_limits(without_repeats_told(without_calls_told(
            without_slices_told(without_reads_told(without_stretches_told(
                without_tiny_tasks_told(without_polls_told(without_lingers_told(
                    without_caches_told(out))))))))), profile)
        out = after_joined_told(after_repeats_told(after_stalls_told(out)))
    except Exception as exc:  # noqa: BLE001 - the findings as found, not dropped
        errors.append(f"merging: {type(exc).__name__}: {exc}")
    if errors:
        profile.meta["findings_errors"] = errors
    return sort_findings(out)


def without_reads_told(found: list[Finding]) -> list[Finding]:
    """*found* without the small-body-reads findings whose line a CPU finding already
    tells as iterating a body in small pieces (its ``small_reads_site``): one cause,
    one finding, the one whose cost counts the loop's queueing."""
    told = {f.extra.get("small_reads_site") for f in found if f.kind != SMALL_BODY_READS}
    return [f for f in found
            if f.kind != SMALL_BODY_READS or f.extra.get("site") not in told - {None}]


def without_stretches_told(found: list[Finding]) -> list[Finding]:
    """*found* without the critical-path findings whose line another finding tells for
    the same greenlet (a job's calls in turn: ``sequential-calls`` tells the calls, with
    the pool's size as how many at once), or tells as the calls of a setter the others
    awaited (a refresh the workers all waited for: not calls to make together, but
    calls nobody should wait for).  That finding inherits the place at the front: its
    time was the run's wall clock all the same."""
    kept = []
    for f in found:
        if f.kind == CRITICAL_PATH:
            other = next((o for o in found if o.kind != CRITICAL_PATH and (
                (o.extra.get("site") == f.extra.get("site")
                 and o.greenlet in (None, f.greenlet))
                or o.extra.get("setter_site") == f.extra.get("site"))), None)
            if other is not None and f.extra.get("site") is not None:
                other.extra["ranks_first"] = other.extra.get("ranks_first") \
                    or f.extra["ranks_first"]
                continue
        kept.append(f)
    return kept


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Hazards first, then ranks_first, then by cost; a finding whose extra names a kind
    to rank after, or a list of kinds (``ranks_after``: a lock whose holds the loop's CPU
    stretched), moves to just after the first finding of one of them, when there is one
    below it."""
    ranked = sorted(findings, key=lambda f: (not f.extra.get("hazard", f.kind in HAZARDS),
                                             not f.extra.get("ranks_first", False),
                                             -f.cost_s, _KIND_ORDER.get(f.kind, 99),
                                             f.message))
    for f in [f for f in ranked if f.extra.get("ranks_after")]:
        kinds = f.extra["ranks_after"]
        kinds = {kinds} if isinstance(kinds, str) else set(kinds)
        after = next((i for i, o in enumerate(ranked) if o.kind in kinds), None)
        if after is not None and after > ranked.index(f) and not f.extra.get(
                "hazard", f.kind in HAZARDS):
            ranked.remove(f)
            ranked.insert(after, f)  # (after the removal, that index is just past it)
    return ranked


FINDERS: tuple[Callable[[Profile], list[Finding]], ...] = (
    deadlock_risks, blocked_reads_in_c_sections, loop_saturated, loop_blocked, gil_contended,
    loop_held, switch_storms, small_body_reads, threadpool_saturated, threadpool_tiny_tasks,
    pool_full,
    connection_pool_full, lock_contended, serial_bottleneck, workers_saturated,
    queue_lockstep, sleep_polls, sequential_calls, awaited_in_turn, batch_barrier, fanout_tails,
    session_per_request,
    connection_churn, not_kept_alive, connection_leak, new_connections_queued,
    requests_failed, delayed_ack_stall,
    request_body_stall, request_pieces_stall, server_nagle, server_pool_full, retry_backoff, repeated_requests,
    duplicates_in_flight, proxied_internal, redirects_followed, uncompressed_bodies, slow_paths, cpu_starved,
    write_blocked, critical_path)
# Every kind, in their order at equal cost (the metrics publish each one, 0 when absent).
KINDS = (DEADLOCK_RISK, GREENLET_LEAK, CRITICAL_PATH, LOOP_SATURATED, BLOCKED_READ, BLOCKING_CALL, GIL_CONTENDED, GC_PAUSE,
         LOOP_BLOCKED, LOOP_HELD, THREADPOOL_SATURATED, THREADPOOL_TINY_TASKS, POOL_FULL,
         CONNECTION_POOL_FULL,
         LOCK_CONTENDED, SERIAL_BOTTLENECK, WRITE_BLOCKED, WORKERS_SATURATED, QUEUE_LOCKSTEP,
         QUEUE_FULL,
         SLEEP_POLL,
         SEQUENTIAL_CALLS, AWAITED_IN_TURN, BATCH_BARRIER, FANOUT_TAIL, SESSION_PER_REQUEST,
         CONNECTION_CHURN, NOT_KEPT_ALIVE, NEW_CONNECTIONS_QUEUED,
         CONNECTION_LEAK, REQUESTS_FAILED, DELAYED_ACK_STALL, REQUEST_BODY_STALL,
         SERVER_NAGLE, SERVER_POOL_FULL, RETRY_BACKOFF, REPEATED_REQUEST, DUPLICATE_IN_FLIGHT,
         PROXIED_INTERNAL,
         REDIRECT_FOLLOWED, UNCOMPRESSED_BODIES,
         SMALL_BODY_READS, SWITCH_STORM,
         PURE_PYTHON_FALLBACK, CHARSET_DETECTION, CPU_STARVED)
_KIND_ORDER = {kind: rank for rank, kind in enumerate(KINDS)}
