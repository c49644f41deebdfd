"""A watchdog thread that looks at the traced thread's stack while one run slice holds
the loop: where a long slice actually was, not only where it ended.

The switch trace sees a slice at its two ends.  A greenlet that calls an unpatched
``time.sleep`` (or reads a file, resolves a name, waits in a C library's own socket)
and then yields is recorded where it yielded, the line after the culprit or the top of
its loop; its CPU samples see nothing, since a blocked thread uses no CPU.  This thread
wakes every half block threshold; when the tracer's switch count has not moved since
its previous wake, one slice has held the loop at least that long, and it reads that
thread's stack (``sys._current_frames()``: a blocking call has released the GIL, so the
look is at once; a CPU-bound slice gives the GIL up within the interpreter's switch
interval).  The looks are kept as ``path:line:function`` labels by the slice's switch
count, for the tracer to attach to the slice's event if the slice turns out long.  The
looks at slices that do not (held the loop past half the threshold, not past all of
it) are tallied by stack in ``short``: many blocking calls of 20-40 ms (a database
driver's queries) saturate a loop without one slice over the threshold, and their line
is as much the finding's as a long slice's.

gevent's own monitor thread (``GEVENT_MONITOR_THREAD_ENABLE``) looks the same way; this
one keeps its looks for the findings instead of printing them.  It costs one wake and a
GIL hand-off every half threshold (25 ms by default), and a stack walk per look.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from geventperf.sections import get_original
from geventperf.trace.stacks import frame_labels

# Looks kept per slice: a long CPU slice moves; a few looks tell where it mostly was.
MAX_LOOKS_PER_SLICE = 8
# Slices with looks kept at once: those the tracer has not taken yet (a slice looked
# at but shorter than the threshold is never taken; the oldest go first).
MAX_SLICES_KEPT = 64
# Distinct stacks tallied in ``short``: more are counted in ``short_dropped`` only.
MAX_SHORT_STACKS = 256
# How long stop() waits for the thread to notice (it wakes every interval).
STOP_TIMEOUT_S = 1.0


class StallWatch:
    """Looks at thread *thread_id*'s stack when *switches()* has not moved between two
    wakes *interval* seconds apart."""

    def __init__(self, thread_id: int, switches: Callable[[], int],
                 running_hub: Callable[[], bool], interval: float, depth: int) -> None:
        self._thread_id = thread_id
        self._switches = switches
        self._running_hub = running_hub  # the hub's own slice (the loop idle): no look
        self._interval = interval
        self._depth = depth
        self._looks: dict[int, list[list[str]]] = {}
        # looks at slices never taken (shorter than the threshold): stack -> looks
        self.short: dict[tuple[str, ...], int] = {}
        self.short_dropped = 0
        self._stopping = False
        self._done: Any = None  # a real (unpatched) lock, released when the thread ends
        # a real lock too: take() (the traced thread) and _look (this one) both move
        # slices out of _looks
        self._lock = get_original("_thread", "allocate_lock")()
        self.errors = 0

    def start(self) -> None:
        start_thread = get_original("_thread", "start_new_thread")
        self._done = get_original("_thread", "allocate_lock")()
        self._done.acquire()
        start_thread(self._run, ())

    def stop(self) -> None:
        self._stopping = True
        if self._done is not None:
            if self._done.acquire(True, STOP_TIMEOUT_S):
                self._done.release()
            self._done = None
        with self._lock:  # the slices left were short (or the last one, still open)
            for looks in self._looks.values():
                self._tally(looks)
            self._looks.clear()

    def take(self, key: int) -> list[list[str]]:
        """The looks at slice *key* (the tracer's switch count during it); every
        earlier slice's, never taken, go to ``short``."""
        with self._lock:
            looks = self._looks.pop(key, [])
            for old in [k for k in self._looks if k < key]:
                self._tally(self._looks.pop(old))
        return looks

    def short_looks(self) -> tuple[dict[tuple[str, ...], int], int]:
        """A copy of ``short`` and ``short_dropped``, safe while the thread runs."""
        with self._lock:
            return dict(self.short), self.short_dropped

    def _tally(self, looks: list[list[str]]) -> None:
        """Adds a short slice's *looks* to ``short`` (under the lock)."""
        for look in looks:
            stack = tuple(look)
            if stack in self.short or len(self.short) < MAX_SHORT_STACKS:
                self.short[stack] = self.short.get(stack, 0) + 1
            else:
                self.short_dropped += 1

    def _run(self) -> None:
        sleep = get_original("time", "sleep")
        last = None
        try:
            while not self._stopping:
                sleep(self._interval)
                try:
                    key = self._switches()
                    if key == last and not self._running_hub():
                        self._look(key)
                    last = key
                except Exception:  # never let a bug of ours end the program's process
                    self.errors += 1
        finally:
            self._done.release()

    def _look(self, key: int) -> None:
        with self._lock:
            looks = self._looks.get(key)
            if looks is None:
                if len(self._looks) >= MAX_SLICES_KEPT:  # the oldest, never taken: short
                    self._tally(self._looks.pop(next(iter(self._looks))))
                looks = self._looks[key] = []
            if len(looks) >= MAX_LOOKS_PER_SLICE:
                return
        frame = sys._current_frames().get(self._thread_id)
        try:
            if frame is not None:
                looks.append(frame_labels(frame, self._depth))
        finally:
            del frame  # keep no frame of the program's
