"""When greenlets were spawned: the start of their first (ready) wait.

A greenlet spawned with gevent can run from its spawn on: the hub starts it from a
callback the spawn queued, so everything that runs before that callback delays it
(start delay is ready wait).  The switch trace sees a greenlet only when it first
runs, so while tracing gevent's own hook, ``Greenlet.add_spawn_callback``, notes the
time of every ``start()`` (``gevent.spawn``, pools, ``Greenlet(...).start()``) made in
the traced thread; what is noted is dropped at the greenlet's first switch-in.  gevent
is not imported for this: the hook goes in when the tracer starts if gevent is loaded,
else when the tracer first sees the hub.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

from geventperf.sections import get_ident


class SpawnWatch:
    """Calls ``on_spawn(greenlet, when)`` for greenlets started in this thread."""

    def __init__(self, on_spawn: Callable[[Any, float], None]) -> None:
        self._on_spawn = on_spawn
        self._thread: int | None = None
        self._greenlet_class: Any = None

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
                self._on_spawn(greenlet, time.perf_counter())
            except Exception:  # never raise into the spawning program
                pass
