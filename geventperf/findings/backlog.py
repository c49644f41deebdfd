"""The queue a stall leaves behind: greenlets that became ready while one slice held
the loop still queue after it ends, until the loop has worked the backlog off.

A service answering arrivals at 70 % of the loop's capacity, held 0.29 s by a full
garbage collection, has some sixty requests ready when the collection ends; they run
one by one while new ones keep arriving, and the queue takes about as long again
(ρ / (1 - ρ) times the stall) to drain.  Queueing theory puts the waiting after the
stall at ρ / (1 - ρ) times the waiting during it; an unseen worker measured it: its
stalls delayed others 4.6 greenlet-seconds while they lasted, and removing them (a
gc.freeze()) took 14.2 greenlet-seconds off the run's ready wait.  Counted as the
stall's, that backlog no longer reads as a saturated loop's.

From the timeline's run slices, each with the ready wait just before it: the ready
queue's length over time.  A stall's backlog runs from its end to the first moment the
queue is empty (at most BACKLOG_MAX_RATIO stalls long, and never into the next stall);
its cost is the queue's greenlet-seconds there beyond the run's usual queue length
(measured outside every stall and backlog, between the first greenlet ready and the
last: a start-up nobody queued behind would make any queue look unusual) over the same
time.
"""

from __future__ import annotations

import bisect
from typing import Any, Iterable, NamedTuple

from geventperf.profile import Profile

# A backlog lasts at most this many times its stall: ρ / (1 - ρ) is 9 at 90 % busy.  A
# loop that never empties its queue is saturated, and its queue is not one stall's.
BACKLOG_MAX_RATIO = 10.0


class _Queue(NamedTuple):
    """The ready queue's length as a step function: ``counts[i]`` greenlets ready from
    ``times[i]`` to ``times[i + 1]``; ``area[i]`` the greenlet-seconds before times[i];
    ``empty_at[i]`` the first j >= i with counts[j] == 0 (len(times): none)."""

    times: list[float]
    counts: list[int]
    area: list[float]
    empty_at: list[int]

    def integral(self, t: float) -> float:
        """Greenlet-seconds ready from the first edge to *t*."""
        i = bisect.bisect_right(self.times, t) - 1
        if i < 0:
            return 0.0
        return self.area[i] + self.counts[i] * (t - self.times[i])

    def emptied(self, t: float) -> float:
        """The first time at or after *t* when no greenlet was ready (inf: never)."""
        i = bisect.bisect_right(self.times, t) - 1
        if i < 0:
            return t
        j = self.empty_at[i]
        if j == i:
            return t
        return self.times[j] if j < len(self.times) else float("inf")


_cached: tuple[Any, int, _Queue] | None = None  # (slices list, its length, its queue)


def _queue(profile: Profile) -> _Queue:
    """The ready queue of *profile*'s timeline (the hub's own slices left out), built
    once per timeline: every loop finding asks for it."""
    global _cached
    slices = profile.slices
    if _cached is not None and _cached[0] is slices and _cached[1] == len(slices):
        return _cached[2]
    hub = profile.hub.get("id")
    steps: dict[float, int] = {}
    for s in slices:
        ready = s.ready_s or 0.0
        if s.greenlet != hub and ready > 0:
            steps[s.start_s - ready] = steps.get(s.start_s - ready, 0) + 1
            steps[s.start_s] = steps.get(s.start_s, 0) - 1
    times = sorted(steps)
    counts, area = [], []
    count, total = 0, 0.0
    for i, t in enumerate(times):
        if i:
            total += count * (t - times[i - 1])
        count += steps[t]
        counts.append(count)
        area.append(total)
    empty_at = [0] * len(times)
    nxt = len(times)
    for i in range(len(times) - 1, -1, -1):
        if counts[i] <= 0:
            nxt = i
        empty_at[i] = nxt
    queue = _Queue(times, counts, area, empty_at)
    _cached = (slices, len(slices), queue)
    return queue


def _windows(profile: Profile, queue: _Queue, stalls: list[tuple[float, float]]
             ) -> dict[tuple[float, float], tuple[float, float]]:
    """(start, end) of each of the sorted *stalls* -> (its end, the end of its backlog)."""
    out = {}
    for k, (start, end) in enumerate(stalls):
        stop = min(queue.emptied(end), end + BACKLOG_MAX_RATIO * (end - start),
                   stalls[k + 1][0] if k + 1 < len(stalls) else profile.duration_s)
        out[(start, end)] = (end, max(end, stop))
    return out


def _stalls(evs: Iterable[dict[str, Any]]) -> list[tuple[float, float]]:
    out = []
    for e in evs:
        start, run = e.get("start_s"), e.get("run_s")
        if isinstance(start, (int, float)) and isinstance(run, (int, float)) and run > 0:
            out.append((float(start), float(start) + float(run)))
    return out


def backlog_after(profile: Profile, evs: list[dict[str, Any]],
                  every: list[dict[str, Any]]) -> float:
    """Greenlet-seconds the ready queue stood above its usual length in the backlogs
    the long slices *evs* (``blocked-slice`` events) left; *every*: all the run's long
    slices, whose stalls and backlogs are left out of the usual length.  0 without a
    whole timeline."""
    if not profile.slices or profile.slices_dropped or not profile.duration_s:
        return 0.0
    queue = _queue(profile)
    if not queue.times:
        return 0.0
    windows = _windows(profile, queue, sorted(_stalls(every)))
    # the usual queue: its greenlet-seconds outside every stall and its backlog, per
    # second of that time, from the first greenlet ready to the last (a start-up that
    # nobody queued behind is no measure of it)
    first, last = queue.times[0], queue.times[-1]
    outside_s, outside = last - first, queue.integral(last)
    for (start, _), (_, stop) in windows.items():
        start, stop = max(start, first), min(stop, last)
        if stop > start:
            outside_s -= stop - start
            outside -= queue.integral(stop) - queue.integral(start)
    usual = max(0.0, outside) / outside_s if outside_s > 0 else 0.0
    excess = 0.0
    for stall in _stalls(evs):
        if stall in windows:
            end, stop = windows[stall]
            excess += max(0.0, queue.integral(stop) - queue.integral(end)
                          - usual * (stop - end))
    return excess
