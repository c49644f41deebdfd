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
the Pool's jobs sleeping in their slots); and whether it was a start on a timer
(``gevent.spawn_later``, ``Greenlet.start_later``): such a greenlet is not ready until
its timer fires (an unseen notification gateway's greenlets spawned 0.05-0.4 s later
were counted ready, "queueing", all that time: a saturated loop where the loop was 2 %
busy).
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

from geventperf.sections import get_ident
from geventperf.trace.stacks import calls_in

# Frames looked at above the hook: gevent's compiled Greenlet calls it straight from
# start() or start_later(), so the first Python frame is their caller (Pool.start, the
# program's line calling spawn_later); gevent in pure Python (GEVENT_PURE_PYTHON) adds
# its own Greenlet.start(_later), spawn_later and _call_spawn_callbacks.
CALLER_FRAMES = 4
# gevent's greenlet module in pure Python: its frames are passed over.
GEVENT_GREENLET = ("/gevent/greenlet.py", "\\gevent\\greenlet.py")
# The calls that start a greenlet on a timer, by the name the caller calls them (or a
# name ending in one: an alias such as ``from gevent import spawn_later as later_spawn``).
LATER = ("spawn_later", "start_later")
# Code objects whose calls (trace/stacks.calls_in) are kept: the lines that spawn.
CALLS_KEPT = 1024
# id(code) -> (code, its calls): by identity, since hashing a code object hashes its
# bytecode and constants (an lru_cache on the code itself cost some 18 000 instructions
# per spawn, callgrind); the code is kept so that its id is not reused meanwhile.
_calls: dict[int, tuple[Any, dict[int, str | None]]] = {}


def _calls_of(code: Any) -> dict[int, str | None]:
    kept = _calls.get(id(code))
    if kept is not None and kept[0] is code:
        return kept[1]
    if len(_calls) >= CALLS_KEPT:
        _calls.clear()
    calls = calls_in(code, plain=True)
    _calls[id(code)] = (code, calls)
    return calls


class SpawnWatch:
    """Calls ``on_spawn(greenlet, when, pooled, later)`` for greenlets started in this
    thread: *pooled* when a gevent Pool started it, *later* when it starts on a timer."""

    def __init__(self, on_spawn: Callable[[Any, float, bool, bool], None]) -> None:
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
                self._on_spawn(greenlet, time.perf_counter(), *self._how_started())
            except Exception:  # never raise into the spawning program
                pass

    def _how_started(self) -> tuple[bool, bool]:
        """(whether gevent's Pool.start is among the callers of the hook, whether it
        was a start on a timer: a call named in LATER, in gevent's pure-Python frames or
        at a caller's instruction)."""
        pool_start = self._pool_start
        if pool_start is None:  # (gevent.pool may be imported after the hook went in)
            start = getattr(getattr(sys.modules.get("gevent.pool"), "Pool", None), "start",
                            None)
            pool_start = self._pool_start = getattr(start, "__code__", None)
        frame = sys._getframe(2)  # (1 is _started)
        for _ in range(CALLER_FRAMES):
            if frame is None:
                break
            code = frame.f_code
            if code is pool_start:
                return True, False
            if code.co_name in LATER:
                return False, True
            if not code.co_filename.endswith(GEVENT_GREENLET):
                # the first caller outside gevent's greenlet module: the call it made
                called = _calls_of(code).get(frame.f_lasti)
                return False, called is not None and called.endswith(LATER)
            frame = frame.f_back
        return False, False
