"""Garbage collection while tracing: how long the cyclic collector ran, and how much
of it fell inside each run slice.

A collection runs in whichever greenlet allocates past the collector's threshold, inside
that greenlet's run slice.  A full (generation 2) pass over a large heap -- a service's
in-memory cache, a big parsed document kept alive -- holds the loop for hundreds of
milliseconds in code that did nothing slow itself, and without this the findings would
send the reader to that innocent code.  ``gc.callbacks`` reports every collection's
start and stop: the watch sums them (per generation, the longest) and keeps the time
collected in the current slice, keyed by the tracer's switch count (it changes at every
switch), so a long slice can say how much of it was the collector.  Two Python calls
per collection; nothing per switch.  Collections made by other threads are not counted:
they stall the traced thread on the GIL, which its slices show as time off the CPU.

Whether a full pass walked a heap built at start-up (``gc.freeze()`` takes it out of
the collector's sight) or data in flight during the run (it cannot) shows in the heap's
size: ``sys.getallocatedblocks()`` when start-up ended (the program first yielded to
the hub) and at the start of each full collection.  It walks pymalloc's pools (2 ms for
10 million blocks here, against 380 ms for the full collection of that heap), so it is
read only then.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any, Callable

from geventperf.sections import get_ident

# Generations CPython reports (0, 1, 2); a later version's extra ones count as the oldest.
GENERATIONS = 3


class GcWatch:
    """Collections in the thread that installed it, while installed."""

    def __init__(self, slice_key: Callable[[], int]) -> None:
        self._slice_key = slice_key
        self._thread: int | None = None
        self._t0: float | None = None  # the collection in progress began then
        self.collections = [0] * GENERATIONS
        self.total_s = 0.0
        self.longest_s = 0.0
        self.longest_generation: int | None = None
        self._key = -1  # the slice the figures below belong to
        self._key_s = 0.0
        self._key_generation = -1
        # pymalloc's allocated blocks when start-up ended, and at most at the start of a
        # full collection (None: not read)
        self.start_up_blocks: int | None = None
        self.full_blocks_max: int | None = None

    def start_up_ended(self) -> None:
        """The program first yielded to the hub: its start-up heap is built."""
        if self.start_up_blocks is None:
            self.start_up_blocks = sys.getallocatedblocks()

    def install(self) -> None:
        if self._thread is None:
            self._thread = get_ident()
            gc.callbacks.append(self._callback)

    def close(self) -> None:
        if self._thread is not None:
            self._thread = None
            try:
                gc.callbacks.remove(self._callback)
            except ValueError:  # someone cleared the list: nothing left to remove
                pass

    def in_slice(self, key: int) -> tuple[float, int | None]:
        """Seconds collected during the slice of switch count *key*, and the oldest
        generation collected in it (None: no collection)."""
        if key != self._key:
            return 0.0, None
        return self._key_s, self._key_generation

    def as_dict(self) -> dict[str, Any]:
        return {"collections": list(self.collections), "total_s": self.total_s,
                "longest_s": self.longest_s, "longest_generation": self.longest_generation,
                "start_up_blocks": self.start_up_blocks,
                "full_blocks_max": self.full_blocks_max}

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        try:  # never raise into the collecting program
            if get_ident() != self._thread:
                return
            if phase == "start":
                if info.get("generation", 0) >= GENERATIONS - 1:
                    blocks = sys.getallocatedblocks()
                    self.full_blocks_max = max(self.full_blocks_max or 0, blocks)
                self._t0 = time.perf_counter()
                return
            t0, self._t0 = self._t0, None
            if t0 is None:  # installed mid-collection
                return
            took = time.perf_counter() - t0
            generation = min(int(info.get("generation", GENERATIONS - 1)), GENERATIONS - 1)
            self.collections[generation] += 1
            self.total_s += took
            if took > self.longest_s:
                self.longest_s, self.longest_generation = took, generation
            key = self._slice_key()
            if key != self._key:
                self._key, self._key_s, self._key_generation = key, 0.0, -1
            self._key_s += took
            self._key_generation = max(self._key_generation, generation)
        except Exception:
            pass
