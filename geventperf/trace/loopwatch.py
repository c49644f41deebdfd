"""Hub idle, measured around the backend poll itself.

The poll (``epoll_wait`` and friends) is where the hub blocks when nothing is ready.
gevent's loop runs *prepare* watchers just before it and *check* watchers just after
it; the time between the two is idle, and the end of each poll is when the hub could
first know which greenlets became runnable (``geventperf.trace.waits``).

* libev (gevent's default): a prepare watcher at the lowest priority, so it runs after
  gevent's own prepare watcher (which runs the callback queue and switches into
  greenlets), and a check watcher at the highest, so it runs before any I/O watcher
  wakes a greenlet.
* libuv: prepare watchers are not supported; the loop runs its callback queue in
  ``loop._run_callbacks`` right before polling, so the poll begins when that returns.
  A poll whose timeout libuv has already set to zero (``uv_backend_timeout``: callbacks
  or expired timers waiting) returns at once with what was pending; and gevent only
  queues timer and I/O callbacks (``loop._queued_callbacks``) to run after the poll.
  Either way the wake-ups it delivers were pending before it began (*begin_pending*),
  however long the call took: libuv's callbacks cross cffi, so time alone (which
  decides for libev) cannot tell here.

In both, the first greenlet switch after a poll began also ends it (see the trace
function): nothing switches while the hub is blocked in the poll, so that switch is
the poll's end at the latest.  Watchers are unreferenced (they never keep the loop
alive) and are stopped, and the wrapper removed, when tracing stops.
"""

from __future__ import annotations

import sys
from typing import Any, Callable


def _priority(loop: Any, name: str, default: int) -> int:
    module = __import__(type(loop).__module__, fromlist=["_"])
    value = getattr(module, name, default)
    return value if isinstance(value, int) else default


class LoopWatch:
    """Calls *begin* just before and *end* just after every poll of *hub*'s loop."""

    def __init__(self, hub: Any, begin: Callable[[], Any], begin_pending: Callable[[], Any],
                 end: Callable[[], Any]) -> None:
        self.loop = hub.loop
        self.kind = f"{type(self.loop).__module__}.{type(self.loop).__name__}"
        self._begin, self._begin_pending, self._end = begin, begin_pending, end
        self._watchers: list[Any] = []
        self._wrapped = False
        try:
            self._install()
        except BaseException:
            self.close()
            raise

    def _install(self) -> None:
        loop = self.loop
        try:
            prepare = loop.prepare(ref=False, priority=_priority(loop, "MINPRI", -2))
        except TypeError:  # libuv: "prepare watchers are not currently supported"
            prepare = None
        if prepare is not None:
            prepare.start(self._begin)
            self._watchers.append(prepare)
        else:
            original = loop._run_callbacks
            begin, begin_pending = self._begin, self._begin_pending
            lib = getattr(sys.modules.get(type(loop).__module__), "libuv", None)
            timeout = getattr(lib, "uv_backend_timeout", None)
            ptr = loop.ptr

            def _run_callbacks() -> None:
                try:
                    original()
                finally:
                    pending = getattr(loop, "_queued_callbacks", None) or (
                        timeout is not None and timeout(ptr) == 0)
                    (begin_pending if pending else begin)()
            loop._run_callbacks = _run_callbacks  # an instance attribute: removed at close
            self._wrapped = True
        check = loop.check(ref=False, priority=_priority(loop, "MAXPRI", 2))
        check.start(self._end)
        self._watchers.append(check)

    def close(self) -> None:
        for watcher in self._watchers:
            try:
                watcher.stop()
                watcher.close()
            except Exception:  # a loop being destroyed: nothing left to stop
                pass
        self._watchers = []
        if self._wrapped:
            try:
                del self.loop._run_callbacks
            except AttributeError:
                pass
            self._wrapped = False
