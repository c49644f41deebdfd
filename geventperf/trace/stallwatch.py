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
count, for the tracer to attach to the slice's event if the slice turns out long.

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
        self._stopping = False
        self._done: Any = None  # a real (unpatched) lock, released when the thread ends
        self.errors = 0

    def start(self) -> None:
        allocate = get_original("_thread", "allocate_lock")
        start_thread = get_original("_thread", "start_new_thread")
        self._done = allocate()
        self._done.acquire()
        start_thread(self._run, ())

    def stop(self) -> None:
        self._stopping = True
        if self._done is not None:
            if self._done.acquire(True, STOP_TIMEOUT_S):
                self._done.release()
            self._done = None

    def take(self, key: int) -> list[list[str]]:
        """The looks at slice *key* (the tracer's switch count during it); forgets it
        and every earlier slice's."""
        looks = self._looks.pop(key, [])
        for old in [k for k in list(self._looks) if k < key]:
            self._looks.pop(old, None)
        return looks

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
        looks = self._looks.get(key)
        if looks is None:
            if len(self._looks) >= MAX_SLICES_KEPT:
                self._looks.pop(next(iter(self._looks)), None)
            looks = self._looks[key] = []
        if len(looks) >= MAX_LOOKS_PER_SLICE:
            return
        frame = sys._current_frames().get(self._thread_id)
        try:
            if frame is not None:
                looks.append(frame_labels(frame, self._depth))
        finally:
            del frame  # keep no frame of the program's
