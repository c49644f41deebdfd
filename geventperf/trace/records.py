"""The tracer's per-greenlet, per-stack and per-section bookkeeping (plain Python
objects; ``_ctrace.c`` has C twins of Record and Row with the same attributes)."""

from __future__ import annotations

import time
from typing import Any

from geventperf import latency
from geventperf.trace.cpuclock import CpuSpread
from geventperf.trace.waits import FIRST_POLL_BLOCKED_MIN_S, WaitSplit


class Record:
    """Bookkeeping of one greenlet while tracing.  Holds no reference to it."""

    __slots__ = ("gid", "key", "name", "origin", "parent", "is_hub", "finished", "weak",
                 "run", "cpu", "wait", "switches", "longest",
                 "t_in", "cpu_in", "t_out", "wait_row", "open", "c_depth", "c_pending",
                 "event_wait", "ready_wait", "delayed", "ready_in", "ready_max", "out_idx",
                 "polls_out", "ready_at_once", "sec_closed", "hist")

    def __init__(self, gid: int, key: int) -> None:
        self.gid, self.key = gid, key
        self.name: str | None = None
        self.origin = ""
        self.parent: int | None = None
        self.is_hub = False
        self.finished = False  # its greenlet is gone (the C hot path's cache checks it)
        self.weak: Any = None
        self.run = self.cpu = self.wait = self.longest = 0.0
        self.switches = 0
        self.t_in = self.cpu_in = 0.0
        self.t_out: float | None = None  # None: not waiting (running, new or finished)
        self.wait_row: list[Any] | None = None  # stack row the current wait belongs to
        self.open: list[OpenSection] = []  # open sections, innermost last
        self.c_depth = 0  # open C sections, so the hot path tests one int
        self.c_pending: list[Any] | None = None  # C-switch record awaiting its wait
        # the wait split (trace/waits.py): totals, the ready wait before the current
        # slice, the index of its last logged slice, its ready-wait histogram
        self.event_wait = self.ready_wait = self.delayed = 0.0
        self.ready_in = self.ready_max = 0.0
        self.out_idx = -1  # blame-log index of its latest slice
        self.polls_out = -1  # polls seen when it last switched out
        self.ready_at_once = False  # spawned: ready from its spawn on
        # section name -> time inside it during the current slice, for sections closed
        # in this slice (the blame of a slice is shared by the sections it ran)
        self.sec_closed: dict[str, float] | None = None
        self.hist: list[int] | None = None


class Folded:
    """The totals of finished greenlets of one name, once too many were kept one by
    one (long-running services spawn a greenlet per request)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.n = self.switches = 0
        self.run = self.cpu = self.wait = self.longest = 0.0
        self.event_wait = self.ready_wait = self.delayed = self.ready_max = 0.0
        self.hist = [0] * latency.NBUCKETS

    def add(self, rec: Any) -> None:
        self.n += 1
        self.switches += rec.switches
        self.run += rec.run
        self.cpu += rec.cpu
        self.wait += rec.wait
        self.longest = max(self.longest, rec.longest)
        self.event_wait += rec.event_wait
        self.ready_wait += rec.ready_wait
        self.delayed += rec.delayed
        self.ready_max = max(self.ready_max, rec.ready_max)
        for i, count in enumerate(rec.hist or ()):
            self.hist[i] += count


class Row:
    """Totals of one switch-out stack."""

    __slots__ = ("n_out", "run", "cpu", "n_wait", "wait", "ev", "rd", "delayed",
                 "self_ready", "gid")

    def __init__(self) -> None:
        self.n_out = self.n_wait = 0
        self.run = self.cpu = self.wait = self.ev = self.rd = self.delayed = 0.0
        self.self_ready = False  # a wait here is sleep(0): ready at once
        self.gid = 0  # the last greenlet that switched out here


class OpenSection:
    """One open section of one greenlet: the counters at entry."""

    __slots__ = ("owner", "name", "c", "parser_lock", "t0", "run0", "cpu0", "wait0", "sw0",
                 "ev0", "rd0", "recursive")

    def __init__(self, owner: object, name: str, c: bool, parser_lock: object) -> None:
        # parser_lock: for an lxml parse of a file-like source, the parser whose lock
        # it holds (see sections.DEFAULT_PARSER_LOCK); None for anything else.
        self.owner, self.name, self.c, self.parser_lock = owner, name, c, parser_lock


class State:
    """What the trace function mutates, shared with section enter/exit and the loop
    watchers (the C hot path's ``Hot`` has the same attributes and methods)."""

    __slots__ = ("cur", "switches", "errors", "on", "ws", "cpu")

    def __init__(self) -> None:
        self.cur: Record | None = None
        self.switches = 0
        self.errors = 0
        self.on = False
        self.ws = WaitSplit()
        self.cpu = CpuSpread()

    def cpu_start(self) -> None:
        self.cpu.start(time.perf_counter(), self.ws.idle)

    def cpu_sync(self) -> None:
        """The interval CPU clock: credit everything up to now (trace/cpuclock.py)."""
        self.cpu.sync(self.cur, time.perf_counter(), self.ws.idle)

    @property
    def cpu_reads(self) -> int:
        return self.cpu.reads

    def poll_begin(self) -> None:
        self.ws.poll_begin(time.perf_counter())

    def poll_begin_pending(self) -> None:
        self.ws.poll_begin(time.perf_counter(), True)

    def poll_end(self) -> None:
        ws, now = self.ws, time.perf_counter()
        if not ws.seen_begin and self.cur is not None:
            # Watchers started mid-iteration miss the first poll's beginning: it began
            # after the hub's current slice did (an upper bound on that one's idle).
            t0 = self.cur.t_in
            ws.poll_begin(t0, pending=now - t0 < FIRST_POLL_BLOCKED_MIN_S)
        ws.poll_end(now)
