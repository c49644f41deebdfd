"""CPU time per greenlet without reading the thread CPU clock at every switch.

``clock_gettime(CLOCK_THREAD_CPUTIME_ID)`` (``time.thread_time``) is a system call, not
a vDSO read: 0.3-1.7 us here, several times what the rest of a switch's accounting
costs.  So by default (``Tracer(cpu_clock="interval")``) the clock is read at most once
per :data:`CPU_READ_INTERVAL_S` of wall time, and the CPU it measured since the last
read is spread over the run slices in between by their *busy* wall time: a slice's
wall minus the time the hub spent blocked in its backend poll during it (a blocked
poll burns no CPU; :mod:`geventperf.trace.loopwatch` measures it).

**When the clock is read at once** (exact to within one interval):

* a slice of at least the interval, or longer than ``block_threshold``, ends: the
  shorter slices since the last read (together under one interval) are taken as busy
  on the CPU for all their busy wall, and the long slice gets the rest.  Short slices
  between two yields are nearly always CPU work (the hub's blocked polls are left
  out), while a long one is where a blocking call hides; so the split of a
  loop-blocking slice between CPU and a blocking call is off by at most the non-CPU
  time of those short slices, always less than :data:`CPU_READ_INTERVAL_S`.
  (Sharing by wall instead would hand a slice that mostly slept a share of its
  CPU-dense neighbours' time, at every long slice: a systematic error.);
* a greenlet dies (its totals are final and may be folded into its name's);
* a section is entered or left (sections keep exact CPU), and at ``snapshot()`` and
  ``stop()``;
* :data:`CPU_PENDING_MAX` slices are waiting for their share.

**Error bound.**  Within one interval, CPU is shared by busy wall time, so a slice that
was busy without using the CPU (a non-cooperative blocking call, or the thread waiting
for a core on a loaded machine) is charged some of its neighbours' CPU, at most its
own busy wall time; the total over all greenlets stays exact.  Short slices of one
greenlet that alternate with CPU-hungry ones of another are the worst case.

``_ctrace.c`` implements exactly this in C; ``Tracer(cpu_clock="switch")`` reads the
clock at every switch instead (exact, and the cost the paragraph above describes).
"""

from __future__ import annotations

import time
from typing import Any, Callable

# Wall time between two reads of the thread CPU clock.  At most one read (0.3-1.7 us)
# per millisecond costs at most 0.2 % of a core, and bounds the error of a long
# slice's CPU (and so of the blocking part of a loop-blocking slice) to 1 ms.
CPU_READ_INTERVAL_S = 1e-3
# Slices waiting for their share of the next read at most: a sleep(0) storm switches
# about once per microsecond, so an interval rarely holds more than ~1 000 slices;
# past this the clock is read early, bounding memory and the work of one read.
CPU_PENDING_MAX = 4096


class CpuSpread:
    """The interval CPU clock's state: slices since the last read and their weights.

    The current slice is the one running now; ``slice_from`` is where its part not yet
    credited starts, ``slice_cpu`` what it was credited so far (a section's read
    mid-slice)."""

    def __init__(self, clock: Callable[[], float] = time.thread_time,
                 interval: float = CPU_READ_INTERVAL_S,
                 pending_max: int = CPU_PENDING_MAX) -> None:
        self.clock = clock
        self.interval = interval
        self.pending_max = pending_max
        self.pending: list[tuple[Any, Any, float]] = []  # (record, stack row, weight)
        self.weight = 0.0  # sum of the pending weights
        self.last = 0.0  # the clock at the last read
        self.read_at = 0.0  # wall time of the last read
        self.slice_from = self.slice_idle0 = self.slice_cpu = 0.0
        self.reads = 0

    def start(self, now: float, idle: float) -> None:
        self.last, self.read_at = self.clock(), now
        self.slice_from, self.slice_idle0, self.slice_cpu = now, idle, 0.0

    def _current_weight(self, now: float, idle: float) -> float:
        return max(0.0, (now - self.slice_from) - (idle - self.slice_idle0))

    def _read(self, now: float, cur: Any, weight: float, long_slice: bool = False) -> None:
        """Read the clock; give every pending slice, and *cur*'s current slice
        (*weight* of busy wall since ``slice_from``), its share: by busy wall, or, when
        the current slice is a long one, the pending ones their busy wall first."""
        cpu = self.clock()
        spent = cpu - self.last
        if long_slice and self.weight > 0.0:
            per = min(1.0, spent / self.weight)
            share = spent - self.weight * per
        elif self.weight + weight > 0.0:
            per = spent / (self.weight + weight)
            share = weight * per
        else:  # nothing was busy: whatever the clock moved belongs to the current one
            per, share = 0.0, spent
        for rec, row, w in self.pending:
            rec.cpu += w * per
            if row is not None:
                row.cpu += w * per
        if cur is not None:
            cur.cpu += share
            self.slice_cpu += share
        self.pending.clear()
        self.weight = 0.0
        self.last, self.read_at = cpu, now
        self.reads += 1

    def sync(self, cur: Any, now: float, idle: float) -> None:
        """Make ``cur.cpu`` exact up to *now* (sections, snapshot, stop)."""
        self._read(now, cur, self._current_weight(now, idle))
        self.slice_from, self.slice_idle0 = now, idle

    def end_slice(self, rec: Any, row: Any, now: float, idle: float, ran: float,
                  force: bool) -> float | None:
        """*rec*'s slice of *ran* seconds ends at *now*, at stack *row*.  Returns its
        CPU when the clock was read (a long slice, or *force*), else None: its share
        comes with a later read."""
        weight = self._current_weight(now, idle)
        ran_cpu = None
        long_slice = force or ran >= self.interval
        if long_slice or now - self.read_at >= self.interval \
                or len(self.pending) >= self.pending_max:
            self._read(now, rec, weight, long_slice)
            ran_cpu = self.slice_cpu
            if row is not None:
                row.cpu += ran_cpu
        else:
            if row is not None:
                row.cpu += self.slice_cpu  # what a section's read gave it already
            self.pending.append((rec, row, weight))
            self.weight += weight
        self.slice_from, self.slice_idle0, self.slice_cpu = now, idle, 0.0
        return ran_cpu
