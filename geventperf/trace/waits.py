"""Event wait vs ready wait, and who held the loop: the pure-Python reference.

``_ctrace.c`` implements exactly this in C (``Hot``); the Tracer uses one or the other.

**The rule.**  A greenlet switched out at ``t_out`` and switched back in at ``now`` waited
``now - t_out``.  It became *ready* (could have run) when the hub could first know it
could run, ``r = max(t_out, mark)``, where ``mark`` is set at the end of every backend
poll (see :mod:`geventperf.trace.loopwatch`):

* a poll that blocked (lasted at least :data:`POLL_BLOCKED_MIN_S`) found nothing ready
  when it began, so whatever it delivered happened during it: ``mark`` is its end;
* a poll that returned at once found events already pending, which happened at some
  point since the previous poll ended, while the loop was busy: ``mark`` is the end of
  the previous poll (an upper bound on the queueing, exact when the event came early);
  so is a poll that began with wake-ups already queued (libuv's expired timers);
* a greenlet that yielded with ``sleep(0)`` asked to run again at once: ``r = t_out``
  (its switch-out stack says so: the stack row is marked ``self_ready`` once, when
  the stack is first seen);
* a spawned greenlet was ready from its spawn (``Tracer._spawned``, ``spawns.py``);
* a greenlet woken with no poll in between, through the hub, was woken by another
  greenlet's action (an event set, a queue put, a link, a join): it was ready no
  earlier than when the hub regained control after that greenlet, ``r = max(t_out,
  start of the hub's slice)``; switched to directly, it waited for nothing: ``r = now``.

``event_wait = r - t_out`` and ``ready_wait = now - r``.  Error bound: a ready wait is
overstated by at most the busy stretch before a non-blocking poll, plus
:data:`POLL_BLOCKED_MIN_S` for a poll that blocked only briefly; it is never
understated by more than the rest of the waking greenlet's slice after it set the
event (when an event is set, its waiter's callback runs only once the setter yields).

**Blame.**  Every ready interval ``[r, now]`` is charged to whoever ran during it, in
proportion to the overlap: the greenlet (hub included: its callbacks), the stack where
that slice ended, and the section it ran in.  Intervals always end at the switch that
ends them, so each one is a suffix of the slices seen so far: a +1 at its first slice
in a difference array and a -1 after the last one give every slice its count of
overlapping ready intervals in O(1) per switch; a slice is settled (count times its
length charged) once no future interval can reach back to it, i.e. once it ends before
the current ``mark``.  A section is charged the share of each slice spent inside it
(the innermost one open when the slice ended, and every one closed during it).  At
most :data:`BLAME_WINDOW` slices wait to be settled; past that
the oldest are settled early and the part of a later interval reaching before them is
counted as ``unattributed_s``.
"""

from __future__ import annotations

from typing import Any

from geventperf import latency

# A poll shorter than this returned at once; longer, it blocked and what it delivered
# happened during it.  Measured between the watchers' callbacks, a non-blocking
# epoll_wait takes 2-5 us with the C hot path and 10-40 us with the pure-Python one
# (more on a loaded machine): this bound keeps both apart from a real wait.  It is also
# the largest ready wait a briefly blocking poll can add to a wake-up.
POLL_BLOCKED_MIN_S = 100e-6
# The first poll after the watchers go in (mid-iteration) is seen only at its end; its
# start is bounded by the hub's current slice, which also ran callbacks: a slice this
# short held no blocking poll (callbacks and a non-blocking poll take well under it).
FIRST_POLL_BLOCKED_MIN_S = 1e-3
# Slices awaiting their blame at most: one loop iteration rarely has more switches;
# bounds memory with 10 000 greenlets ready at once.
BLAME_WINDOW = 1 << 14


class WaitSplit:
    """The state the split and the blame need, updated by the trace function and by
    the loop watchers."""

    def __init__(self) -> None:
        self.poll_open = False
        self.seen_begin = False  # a poll's beginning was seen (see Tracer poll_end)
        self.poll_pending = False  # the poll began with wake-ups already queued
        self.poll_t0 = 0.0
        self.idle = 0.0
        self.polls = 0
        self.mark = -1.0  # no poll seen yet: every wait is ready at once
        self.mark_idx = 0
        self.last_check = -1.0
        self.last_check_idx = 0
        self.total = 0  # slices logged so far (global index of the next one)
        self.fin = 0  # first slice not settled
        self.acc = 0  # running sum of the difference array up to fin
        self.pend = 0  # intervals that end with the latest slice
        self.unattributed = 0.0
        self.log: list[Any] = [None] * BLAME_WINDOW
        self.diff = [0] * BLAME_WINDOW
        self.hist = [0] * latency.NBUCKETS
        self.hist_max = 0.0
        self.section_blame: dict[str, float] = {}
        # slice index -> others' ready wait during it, for the slices being watched
        # (the loop-blocking ones the tracer keeps for findings), and the longest any
        # one of those waits lasted within it
        self.long_charge: dict[int, float] = {}
        self.long_span: dict[int, float] = {}

    # -- the loop watchers -----------------------------------------------------
    def poll_begin(self, now: float, pending: bool = False) -> None:
        self.poll_open, self.poll_t0, self.poll_pending = True, now, pending
        self.seen_begin = True

    def poll_end(self, now: float) -> None:
        if not self.poll_open:
            return
        self.poll_open = False
        took = now - self.poll_t0
        self.idle += took
        self.polls += 1
        if took >= POLL_BLOCKED_MIN_S and not self.poll_pending:
            self.mark, self.mark_idx = now, self.total
        else:
            self.mark, self.mark_idx = self.last_check, self.last_check_idx
        self.last_check, self.last_check_idx = now, self.total
        self.settle(self.mark_idx)

    # -- the trace function ------------------------------------------------------
    def log_slice(self, rec: Any, row: Any, section: str | None, section_t0: float,
                  start: float, end: float) -> None:
        """A run slice of *rec* ended (it switches out) at stack *row*, inside
        *section* (entered at *section_t0*); ``rec.sec_closed`` holds the time spent in
        sections closed during the slice."""
        rec.polls_out = self.polls
        idx = rec.out_idx = self.total
        if idx - self.fin >= BLAME_WINDOW:
            self.settle(self.fin + 1)
        pos = idx % BLAME_WINDOW
        self.log[pos] = (rec, row, section, start, end, max(section_t0, start),
                         rec.sec_closed)
        rec.sec_closed = None
        self.diff[pos] = -self.pend
        self.pend = 0
        self.total = idx + 1

    def woke(self, rec: Any, now: float, origin: Any) -> float:
        """*rec* (not the hub) is switched in by *origin* after waiting since
        ``rec.t_out``; *origin*'s slice is the latest logged.  Splits and blames the
        wait; returns the ready part."""
        t_out = rec.t_out
        row = rec.wait_row
        first = self.total  # first slice fully inside the ready interval
        if rec.ready_at_once or (row is not None and row.self_ready):
            # sleep(0), or a spawn: ready at once
            ready_from, first = t_out, rec.out_idx + 1
            rec.ready_at_once = False
        elif self.polls != rec.polls_out:  # a poll since it yielded woke it
            if t_out < self.mark:
                ready_from, first = self.mark, self.mark_idx + 1
                if self.mark_idx < self.total:
                    entry = self.log[self.mark_idx % BLAME_WINDOW]
                    part = entry[4] - ready_from
                    self._charge(self.mark_idx, entry, part, part)
            else:  # already pending at the poll, and it yielded after the last one
                ready_from, first = t_out, rec.out_idx + 1
        elif origin.is_hub:  # woken by another greenlet's action, through the hub
            if origin.t_in >= t_out:
                ready_from, first = origin.t_in, self.total - 1
            else:
                ready_from, first = t_out, rec.out_idx + 1
        else:  # switched to directly
            ready_from = now
        if first < self.fin:  # reaches before the window (only after an overflow)
            start = self.log[self.fin % BLAME_WINDOW][3] if self.fin < self.total else now
            self.unattributed += max(0.0, start - ready_from)
            first = self.fin
        if first < self.total:
            self.diff[first % BLAME_WINDOW] += 1
            self.pend += 1
        ready = now - ready_from
        rec.event_wait += ready_from - t_out
        rec.ready_wait += ready
        b = latency.bucket(ready)
        self.hist[b] += 1
        if ready > self.hist_max:
            self.hist_max = ready
        if rec.hist is None:
            rec.hist = [0] * latency.NBUCKETS
        rec.hist[b] += 1
        if ready > rec.ready_max:
            rec.ready_max = ready
        return ready

    def settle(self, upto: int) -> None:
        """Charge every slice before index *upto* (no later interval reaches it)."""
        upto = min(upto, self.total)
        while self.fin < upto:
            pos = self.fin % BLAME_WINDOW
            self.acc += self.diff[pos]
            entry = self.log[pos]
            if self.acc > 0:
                length = entry[4] - entry[3]
                self._charge(self.fin, entry, self.acc * length, length)
            self.log[pos] = None
            self.fin += 1

    def charge_slice(self, idx: int, seconds: float) -> None:
        """Charge part of logged slice *idx* directly (a spawned greenlet's ready wait
        during the rest of its spawner's slice)."""
        if self.fin <= idx < self.total:
            self._charge(idx, self.log[idx % BLAME_WINDOW], seconds, seconds)
        else:
            self.unattributed += max(0.0, seconds)

    @property
    def unsettled(self) -> int:
        """Slices awaiting their blame (at most BLAME_WINDOW)."""
        return self.total - self.fin

    def settle_all(self) -> None:
        self.settle(self.total)

    def slice_sections(self, idx: int) -> dict[str, float]:
        """Seconds slice *idx* spent in each section (the one open when it ended, and
        those closed during it); {} once the slice has been settled."""
        if not self.fin <= idx < self.total:
            return {}
        _rec, _row, section, _start, end, section_from, closed = self.log[idx % BLAME_WINDOW]
        inside = dict(closed or {})
        if section is not None:
            inside[section] = inside.get(section, 0.0) + end - section_from
        return inside

    def watch(self, idx: int) -> None:
        self.long_charge[idx] = self.long_span[idx] = 0.0

    def unwatch(self, idx: int) -> None:
        self.long_charge.pop(idx, None)
        self.long_span.pop(idx, None)

    def _charge(self, idx: int, entry: Any, seconds: float, span: float) -> None:
        """*seconds* of others' ready wait during slice *idx*, the longest single one
        *span*."""
        if seconds <= 0.0:
            return
        if idx in self.long_charge:
            self.long_charge[idx] += seconds
            self.long_span[idx] = max(self.long_span[idx], span)
        rec, row, section, start, end, section_from, closed = entry
        rec.delayed += seconds
        if row is not None:
            row.delayed += seconds
        # sections, by the share of the slice spent in them: the innermost one open
        # when it ended, and those closed during it
        length = end - start
        if length <= 0.0:
            return
        blame = self.section_blame
        if section is not None:
            blame[section] = blame.get(section, 0.0) + seconds * (end - section_from) / length
        for name, inside in (closed or {}).items():
            blame[name] = blame.get(name, 0.0) + seconds * inside / length
