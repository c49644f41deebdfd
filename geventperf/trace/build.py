"""Turn a Tracer's tables into a plain :class:`~geventperf.profile.Profile`.

Runs at ``stop()`` and at ``snapshot()``: nothing here is on the hot path.  It reads
the tracer's tables (records, stack rows, sections, events) and the wait split's
totals, the same for the C and the Python hot path.

At ``stop()`` (*final*) the running slice, the open waits and the blame still pending
are closed into the records.  A snapshot closes nothing: it counts what is closed
(slices that ended, waits that ended, blame settled) plus, taken in the traced
thread, the caller's own running slice (the interval CPU clock is read for it).  So every figure of a later snapshot is at
least that of an earlier one, as counters exported to a metrics system must be.
"""

from __future__ import annotations

import gc
import itertools
import operator
import os
import sys
import threading
import time
from typing import Any

from geventperf import findings as _findings
from geventperf import latency
from geventperf.profile import (
    GreenletStats,
    Profile,
    SectionStats,
    Slice,
    StackTime,
    most_first,
)
from geventperf.trace.childcpu import children_cpu_s
from geventperf.trace.runqueue import run_delay_s


def build_profile(tr: Any, now: float, own: bool = True, final: bool = True,
                  with_slices: bool = True) -> Profile:
    """The profile at *now*; *own*: built in the traced thread (from another thread,
    a snapshot leaves the running slice out: its CPU clock is not ours to read)."""
    # Building allocates a few objects per greenlet and stack, none of them cyclic
    # garbage; left on, the cyclic collector runs every few hundred of them and, in a
    # service holding thousands of greenlets, walks its whole heap each time: a
    # snapshot of 3 000 greenlets took 3x longer.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(tr, now, own, final, with_slices)
    finally:
        if collecting:
            gc.enable()


def _build(tr: Any, now: float, own: bool, final: bool, with_slices: bool) -> Profile:
    st = tr._st
    ws = st if tr._c else st.ws  # the wait split: Hot (C) or WaitSplit (Python)
    split = tr._loop_error is None
    cpu_clock = tr.cpu_clock
    live = list(tr._live.values())  # one copy: a snapshot may run in another thread
    if final:
        running = _close_running_slice(tr, now)
        for rec in live:  # still suspended at stop: waited until the end
            if rec.t_out is not None:
                tr._close_wait(rec, now - rec.t_out)
            rec.weak = None  # no callbacks after stop
        ws.settle_all()
    else:
        running, live = _running_view(tr, live, now) if own else (None, live)
    raw_slices = (st.slices() if tr._c else list(tr._slices)) if with_slices else []
    if running is not None and tr.max_slices and with_slices:
        raw_slices.append(running)
        del raw_slices[:-tr.max_slices]

    finished = list(tr._finished)
    greenlets: list[GreenletStats] = []
    by_name: dict[str, list[Any]] = {}
    if not final:  # the rows of finished greenlets that can no longer change, kept
        greenlets, by_name, finished = tr._snap_cache.settled(finished, ws.fin, split,
                                                              cpu_clock)
    for r in finished + live:
        greenlets.append(greenlet_row(r, split, cpu_clock))
        _add_hist(by_name, r.name or "greenlet", r.hist, r.ready_max)
    greenlets.sort(key=operator.attrgetter("id"))
    next_gid = tr._next_gid
    for name, f in list(tr._folded.items()):
        greenlets.append(GreenletStats(
            id=next_gid, name=f"{name} [{f.n} finished greenlets folded]",
            parent=None, run_s=f.run, cpu_s=f.cpu if cpu_clock else None, wait_s=f.wait,
            switches=f.switches, longest_run_s=f.longest, origin=f.origin,
            event_wait_s=f.event_wait if split else None,
            ready_wait_s=f.ready_wait if split else None,
            delayed_others_s=f.delayed if split else None))
        next_gid += 1
        _add_hist(by_name, name, f.hist, f.ready_max)

    duration = now - tr._t0
    hub = {"id": None, "run_s": 0.0, "cpu_s": None, "idle_s": None, "utilization": None,
           "polls": None, "cpu_wait_s": None}
    watched = tr._loopwatch is not None and split
    for r in itertools.chain(live, tr._finished):  # the hub: alive, nearly always
        if r.is_hub:
            hub.update(id=r.gid, run_s=r.run, cpu_s=r.cpu if cpu_clock else None)
            break
    delay = run_delay_s(tr._native_id) if tr._run_delay_t0 is not None else None
    hub["cpu_wait_s"] = None if delay is None else max(0.0, delay - tr._run_delay_t0)
    # the whole process's CPU (every thread's): what the loop's thread did not use of it
    # ran in other threads (findings/gil.py)
    hub["process_cpu_s"] = time.process_time() - tr._process_cpu0
    # the child processes' (a local upstream, a subprocess per call): competitors of
    # the program's own for the machine's cores (findings/starved.py, cpu-starved)
    hub["children_cpu_s"] = max(0.0, children_cpu_s() - tr._children_cpu0)
    if watched:
        hub.update(idle_s=ws.idle, polls=ws.polls,
                   utilization=max(0.0, 1.0 - ws.idle / duration) if duration > 0 else None)

    section_blame = ws.section_blame
    sections = [SectionStats(
        name=name, c=bool(c), calls=calls, wall_s=wall, run_s=run, wait_s=wait,
        switches=sw, cpu_s=scpu if cpu_clock else None,
        event_wait_s=ev if split else None, ready_wait_s=rd if split else None,
        delayed_others_s=section_blame.get(name, 0.0) if split else None)
        for name, (c, calls, wall, run, scpu, wait, sw, ev, rd)
        in list(tr._section_table.items())]
    sections.sort(key=lambda s: -s.wall_s)
    labels = tr._labeler()
    waits, runs, wait_of_key = _stack_tables(tr, labels, split)
    total = st.switches + (running is not None)  # every switch closed a slice,
    # and so did stop()
    t0 = tr._t0
    slices = [Slice(greenlet=g, start_s=start - t0, duration_s=d, section=s,
                    ready_s=ready if split else None, wait=wait_of_key.get(key))
              for g, start, d, s, ready, key in raw_slices]
    profile = Profile(
        duration_s=duration, switches=st.switches, hub=hub, greenlets=greenlets,
        sections=sections, waits=waits, runs=runs, reads=_reads(tr), slices=slices,
        slices_dropped=max(0, total - len(slices)) if with_slices else 0,
        trace_errors=st.errors,
        events=_events(tr, labels, ws),
        ready_latency=_latency(ws, by_name) if split else None,
        meta={**_meta(tr, ws, split), "alive_at_end": _alive_at_end(tr, live) if final else None},
        cpu_samples=tr._sampler.result() if getattr(tr, "_sampler", None) else None)
    profile.findings = _findings.compute(profile)
    return profile


def greenlet_row(r: Any, split: bool, cpu_clock: bool) -> GreenletStats:
    """A record's row of the profile."""
    return GreenletStats(
        id=r.gid, name=r.name or "greenlet", parent=r.parent, run_s=r.run,
        cpu_s=r.cpu if cpu_clock else None, wait_s=r.wait, switches=r.switches,
        longest_run_s=r.longest, origin=r.origin,
        event_wait_s=r.event_wait if split and not r.is_hub else None,
        ready_wait_s=r.ready_wait if split and not r.is_hub else None,
        delayed_others_s=r.delayed if split else None)


class SnapshotCache:
    """The rows of finished greenlets for snapshots, each built once.

    A finished greenlet's figures are final once the blame of its last slice is
    settled (``out_idx`` before the wait split's ``fin``); greenlets finish in the
    order of their last slices, so the settled ones are a prefix of the tracer's
    finished list, which only grows.  A service snapshotting every second with 10 000
    finished greenlets kept then rebuilds only what changed since the last one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # snapshots may come from two threads at once
        self._done = 0
        self._rows: list[GreenletStats] = []
        self._hists: dict[str, list[Any]] = {}

    def settled(self, finished: list[Any], fin: int, split: bool, cpu_clock: bool
                ) -> tuple[list[GreenletStats], dict[str, list[Any]], list[Any]]:
        """(rows of the settled prefix, their histograms by name, the records after
        it); the first two are copies the caller may extend."""
        with self._lock:
            done = self._done
            while done < len(finished) and 0 <= finished[done].out_idx < fin:
                r = finished[done]
                self._rows.append(greenlet_row(r, split, cpu_clock))
                _add_hist(self._hists, r.name or "greenlet", r.hist, r.ready_max)
                done += 1
            self._done = done
            hists = {name: [list(counts), peak] for name, (counts, peak)
                     in self._hists.items()}
            return list(self._rows), hists, finished[done:]


def _close_running_slice(tr: Any, now: float) -> tuple[Any, ...] | None:
    cur = tr._st.cur
    if cur is None or cur.key not in tr._live:
        return None
    ran = now - cur.t_in
    cur.cpu = tr._cpu_now(cur)
    cur.run += ran
    cur.longest = max(cur.longest, ran)
    return (cur.gid, cur.t_in, ran, cur.open[-1].name if cur.open else None, cur.ready_in,
            None)


# What a greenlet's row of the profile reads from its record.
_VIEW_FIELDS = ("gid", "key", "name", "origin", "parent", "is_hub", "run", "cpu", "wait",
                "switches", "longest", "event_wait", "ready_wait", "delayed", "hist",
                "ready_max")


class _RecordView:
    """A copy of a record's figures, so a snapshot can add the running slice without
    touching the record the hot path keeps updating."""

    def __init__(self, rec: Any) -> None:
        for field in _VIEW_FIELDS:
            setattr(self, field, getattr(rec, field))
        self.hist = list(self.hist) if self.hist else None


def _running_view(tr: Any, live: list[Any],
                  now: float) -> tuple[tuple[Any, ...] | None, list[Any]]:
    """For a snapshot in the traced thread: *live* with the caller's running slice
    added to a copy of its record, and that slice."""
    cur = tr._st.cur
    if cur is None or cur.key not in tr._live:
        return None, live
    cpu = tr._cpu_now(cur)  # before the copy: the interval clock credits the record
    view = _RecordView(cur)
    ran = now - cur.t_in
    view.run += ran
    view.longest = max(view.longest, ran)
    view.cpu = cpu
    return ((cur.gid, cur.t_in, ran, cur.open[-1].name if cur.open else None, cur.ready_in,
             None), [view if rec is cur else rec for rec in live])


def _add_hist(by_name: dict[str, list[Any]], name: str, hist: Any, ready_max: float) -> None:
    if not hist or not any(hist):
        return
    acc = by_name.get(name)
    if acc is None:
        by_name[name] = [list(hist), ready_max]
        return
    acc[0] = list(map(operator.add, acc[0], hist))  # per record: no Python-level loop
    acc[1] = max(acc[1], ready_max)


def _latency(ws: Any, by_name: dict[str, list[Any]]) -> dict[str, Any]:
    return {"bounds_s": [b if b != float("inf") else None for b in latency.UPPER_BOUNDS_S],
            "overall": latency.summary(list(ws.hist), ws.hist_max),
            "by_name": {name: latency.summary(counts, peak)
                        for name, (counts, peak) in by_name.items()}}


def _stack_tables(tr: Any, labels: Any, split: bool
                  ) -> tuple[list[StackTime], list[StackTime], dict[Any, int]]:
    """The wait and run tables, and a stack row's key -> index in the wait table (what
    a slice that ended at that row went on to wait at)."""
    cpu_clock = tr.cpu_clock
    waits_by: dict[tuple[str, ...], StackTime] = {}
    runs_by: dict[tuple[str, ...], StackTime] = {}
    key_waits: list[tuple[Any, StackTime]] = []
    for key, row in list(tr._stacks.items()):
        stack = tuple(labels.stack(key))  # offsets of one line share a label
        if row.n_wait:
            w = waits_by.get(stack)
            call = labels.call(key)
            if w is None:
                w = waits_by[stack] = StackTime(
                    stack=list(stack), event_wait_s=0.0 if split else None,
                    ready_wait_s=0.0 if split else None, call=call)
            elif w.call != call:  # two calls on one line: neither is sure
                w.call = None
            key_waits.append((key, w))
            w.count += row.n_wait
            w.wait_s += row.wait
            if split:
                w.event_wait_s += row.ev
                w.ready_wait_s += row.rd
        if row.n_out:
            r = runs_by.get(stack)
            if r is None:
                r = runs_by[stack] = StackTime(stack=list(stack),
                                               cpu_s=0.0 if cpu_clock else None,
                                               delayed_others_s=0.0 if split else None)
            r.count += row.n_out
            r.run_s += row.run
            r.greenlet = row.gid or r.greenlet
            if cpu_clock:
                r.cpu_s += row.cpu
            if split:
                r.delayed_others_s += row.delayed
    waits, runs = list(waits_by.values()), list(runs_by.values())
    waits.sort(key=lambda w: -w.wait_s)
    runs.sort(key=lambda r: -r.run_s)
    index = {id(w): i for i, w in enumerate(waits)}
    return waits, runs, {key: index[id(w)] for key, w in key_waits}


def _events(tr: Any, labels: Any, ws: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for (section_name, gid), (count, wait, key, file_like, ev, rd) in list(tr._c_switch.items()):
        events.append({"kind": "c-section-switch", "section": section_name,
                       "greenlet": gid, "count": count, "wait_s": wait,
                       "event_wait_s": ev, "ready_wait_s": rd,
                       "file_like": file_like, "stack": labels.stack(key)})
    long_charge, long_span = ws.long_charge, ws.long_span
    for _ran, _seq, (gid, start, run, rcpu, key, section_name, runqueue, collected,
                     generation, inside, looks, idx) in sorted(list(tr._blocked),
                                                               reverse=True):
        events.append({"kind": "blocked-slice", "greenlet": gid, "start_s": start,
                       "run_s": run, "cpu_s": rcpu, "section": section_name,
                       # seconds of it inside each section (open at its end or closed
                       # during it): where a slice that ended elsewhere spent its time
                       "sections_s": inside,
                       # the stacks the stall watch saw while it ran (Tracer(stall_watch=))
                       "stall_looks": looks,
                       "runqueue_s": runqueue,
                       # the cyclic garbage collector's part of it (trace/gcwatch.py)
                       "gc_s": collected, "gc_generation": generation,
                       # others' ready wait during this slice (None: not measured)
                       "delayed_others_s": long_charge.get(idx, 0.0)
                       if tr._loop_error is None else None,
                       # the longest any one of them waited within it
                       "longest_wait_s": long_span.get(idx, 0.0)
                       if tr._loop_error is None else None,
                       "stack": labels.stack(key)})
    events.extend(list(tr._deadlock_events))
    for site, (reads, nbytes, bodies, seconds, running) in list(tr._body_reads.items()):
        # read_s: wall inside the reads; run_s: of it, running (not switched out)
        events.append({"kind": "body-reads", "site": site, "reads": reads,
                       "bytes": nbytes, "bodies": bodies, "read_s": seconds,
                       "run_s": running})
    events.extend(tr._extra_events())
    return events


def _reads(tr: Any) -> list[dict[str, Any]]:
    return [{"host": host, "bodies": b, "bytes": nbytes, "reads": r,
             "reads_waited": None if unknown and not waited else waited, "wall_s": wall}
            for host, (b, nbytes, r, waited, wall, unknown) in list(tr._reads.items())]


def _alive_at_end(tr: Any, live: list[Any]) -> dict[str, int]:
    """The greenlets still alive (suspended) when tracing stopped, counted by name, most
    first; the hub and the greenlet that stopped the tracer apart.  A program done with
    its work leaves none; a server leaves its idle workers; hundreds of one name
    waiting are often a leak (a result nobody sets)."""
    cur = tr._st.cur
    counts: dict[str, int] = {}
    for r in live:
        if not r.is_hub and r is not cur:
            counts[r.name or "greenlet"] = counts.get(r.name or "greenlet", 0) + 1
    return most_first(counts)


def _meta(tr: Any, ws: Any, split: bool) -> dict[str, Any]:
    import platform
    import socket
    gevent = sys.modules.get("gevent")
    return {
        "pid": os.getpid(), "argv": list(sys.argv), "started_at": tr._wall_start,
        "host": socket.gethostname(), "python": platform.python_version(),
        "gevent": getattr(gevent, "__version__", None),
        "hot_path": "c" if tr._c else "pure",
        # the hot path's wall clock: the TSC where the kernel keeps time by it
        # (trace/wallclock.py), else clock_gettime (C) or time.perf_counter (pure)
        "wall_clock": ws.wall_clock if tr._c else {"source": "perf_counter"},
        "loop": tr._loopwatch.kind if tr._loopwatch is not None else None,
        "wait_split": split, "wait_split_error": tr._loop_error,
        "unattributed_ready_s": ws.unattributed,
        "gc": tr._gc_watch.as_dict(),
        # the run's first slice when it was long: the program starting (imports, set-up)
        "startup_s": tr._startup_s,
        "monkey_patched": sorted(getattr(sys.modules.get("gevent.monkey"), "saved", {})),
        # the cores the process may run on: what its threads and children compete for
        "cpus": _cpus(),
        "block_threshold_s": tr.block_threshold, "cpu_clock": tr.cpu_clock,
        "cpu_clock_mode": tr.cpu_mode, "cpu_clock_reads": tr._st.cpu_reads,
        "stacks": tr.stacks, "max_stack_depth": tr.max_stack_depth,
        "max_slices": tr.max_slices, "lxml_guard": tr.lxml_guard,
        "stall_watch": tr.stall_watch, "stall_watch_errors": tr._stall_errors,
        "sections_wrapped": list(tr._section_names),
        "greenlets_folded": sum(f.n for f in tr._folded.values()),
        "stacks_overflowed": tr._stacks_overflowed(),
        "c_switch_records_dropped": tr._c_switch_dropped,
        "sections_left_open": tr._sections_left_open,
        # the greenlets a gevent Pool started, by name (its spawner may start others)
        "pool_jobs": most_first(dict(tr._pool_jobs)),
        "tracing_aborted": tr._aborted, "first_trace_error": tr._first_error}


def _cpus() -> int | None:
    """The CPUs this process may run on (its affinity where the platform says), None
    where unknown."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()
