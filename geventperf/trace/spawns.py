"""When greenlets were spawned: the start of their first (ready) wait.

A greenlet spawned with gevent can run from its spawn on: the hub starts it from a
callback the spawn queued, so everything that runs before that callback delays it
(start delay is ready wait).  The switch trace sees a greenlet only when it first
runs, so while tracing gevent's own hook, ``Greenlet.add_spawn_callback``, notes the
time of every ``start()`` (``gevent.spawn``, pools, ``Greenlet(...).start()``) made in
the traced thread; what is noted is dropped at the greenlet's first switch-in.  gevent
is not imported for this: the hook goes in when the tracer starts if gevent is loaded,
else when the tracer first sees the hub.

It also notes whether the start was a gevent ``Pool``'s (``Pool.start`` calls it, for
``spawn``, ``map``, ``imap`` and the rest): gevent records only the spawner, and a
spawner that fills a Pool may start other greenlets beside it (an unseen status backend
spawned its status-page pollers with ``gevent.spawn``, and their sleeps were told as
the Pool's jobs sleeping in their slots).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

from geventperf.sections import get_ident

# Frames looked at above the hook for gevent's Pool.start: gevent's compiled Greenlet
# calls the hook straight from start(), so Pool.start is the first Python frame; gevent
# in pure Python (GEVENT_PURE_PYTHON) adds Greenlet.start and _call_spawn_callbacks.
POOL_START_FRAMES = 4


class SpawnWatch:
    """Calls ``on_spawn(greenlet, when, pooled)`` for greenlets started in this thread,
    *pooled* when a gevent Pool started it."""

    def __init__(self, on_spawn: Callable[[Any, float, bool], None]) -> None:
        self._on_spawn = on_spawn
        self._thread: int | None = None
        self._greenlet_class: Any = None
        self._pool_start: Any = None  # the code of gevent.pool.Pool.start, once loaded

    def install(self) -> bool:
        """Hook in if gevent is loaded; True once hooked."""
        if self._greenlet_class is not None:
            return True
        cls = getattr(sys.modules.get("gevent.greenlet"), "Greenlet", None)
        if cls is None or not hasattr(cls, "add_spawn_callback"):
            return False
        self._thread = get_ident()  # the tracer's thread: install runs in it
        cls.add_spawn_callback(self._started)
        self._greenlet_class = cls
        return True

    def close(self) -> None:
        if self._greenlet_class is not None:
            self._greenlet_class.remove_spawn_callback(self._started)
            self._greenlet_class = None

    def _started(self, greenlet: Any) -> None:
        if get_ident() == self._thread:  # the hook is global: other threads' are not ours
            try:
                self._on_spawn(greenlet, time.perf_counter(), self._from_pool())
            except Exception:  # never raise into the spawning program
                pass

    def _from_pool(self) -> bool:
        """Whether gevent's Pool.start is among the callers of the hook."""
        code = self._pool_start
        if code is None:
            start = getattr(getattr(sys.modules.get("gevent.pool"), "Pool", None), "start",
                            None)
            code = self._pool_start = getattr(start, "__code__", None)
            if code is None:  # no Pool yet (gevent.pool not imported): none started it
                return False
        frame = sys._getframe(2)  # (1 is _started)
        for _ in range(POOL_START_FRAMES):
            if frame is None:
                return False
            if frame.f_code is code:
                return True
            frame = frame.f_back
        return False
