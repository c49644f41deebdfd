"""gevent's threadpool while tracing: who waited for a worker thread, and how long.

Blocking calls that gevent cannot make cooperative run on the hub's threadpool
(``gevent.get_hub().threadpool``, 10 threads by default): gevent's default resolver
(``gevent.resolver.thread``: every ``getaddrinfo`` of a new connection), and whatever
the program sends there (``threadpool.apply(func)``, ``spawn``).  When more tasks come
than the pool has threads, ``ThreadPool.spawn`` makes the caller wait for a free
worker: a greenlet wait at ``spawn`` with the hub idle, which looks like nothing at all
in a switch profile.  :class:`ThreadpoolWatch` wraps ``ThreadPool.spawn`` while tracing
(without importing gevent.threadpool: now if the program has imported it, else when it
does, see :mod:`geventperf.lazywrap`) and records per pool and per queued function:
tasks, the pool's maxsize, the queue depth met at spawn, the time queued before a
worker thread started the task, the time it ran in the thread (and the CPU it used
there: Python running in a worker thread holds the interpreter lock the loop's thread
needs) and the time until its result was ready.  :func:`threadpool_saturated` and
``gil_contended`` turn those events into findings.

Only spawns made in the OS thread that called :meth:`ThreadpoolWatch.wrap` are
recorded (a tracer traces its own thread).  Worker threads touch only their own task's
two timestamps; everything else is kept under a lock, so :meth:`events` may be called
from any thread.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from typing import Any, Callable

import greenlet
from gevent.monkey import get_original

from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded
from geventperf.sections import get_ident

EVENT_KIND = "threadpool"
FINDING_KIND = "threadpool-saturated"
SPAWN = "gevent.threadpool.ThreadPool.spawn"

# -- memory bounds (per ThreadpoolWatch) ------------------------------------------------
# Pools recorded one by one; tasks of further pools are folded into one "<other pools>"
# record.  A program has the hub's pool per thread and perhaps a few of its own.
MAX_POOLS = 32
# Functions recorded one by one per pool; others are folded into "<other functions>".
# Threadpool work is a handful of blocking calls, not thousands of distinct functions.
MAX_FUNCTIONS = 64
# Tasks between spawn and result kept to fold their wait so far into events() (tasks
# still queued when tracing stops are the worst waits of all); beyond, a task is still
# counted when its result comes, only not while in flight.
MAX_PENDING = 10_000
# Spawning call sites kept per function (most tasks first).
MAX_SITES = 4
# Distinct spawning greenlets counted per function, and ids / names kept to name them.
MAX_GREENLETS_COUNTED = 4096
MAX_GREENLETS_NAMED = 16
# Frames walked up from spawn() to find the caller outside gevent (the resolver path,
# socket -> _socketcommon -> resolver -> threadpool.apply -> spawn, is ~5 deep).
MAX_SITE_DEPTH = 16

OTHER_POOLS = "<other pools>"
OTHER_FUNCTIONS = "<other functions>"

# gevent's thread resolver runs these C functions of _socket on the pool (a program may
# also run socket's Python ones there itself).
DNS_FUNCTIONS = frozenset({"getaddrinfo", "gethostbyname", "gethostbyname_ex",
                           "gethostbyaddr", "getnameinfo"})
DNS_MODULES = frozenset({"_socket", "socket"})
RESOLVER_MODULE = "gevent.resolver.thread"
_RESOLVER_FILE = os.path.join("gevent", "resolver", "thread.py")

_Lock: Callable[[], Any] = get_original("_thread", "allocate_lock")
_perf = time.perf_counter
# The calling thread's own CPU clock: read in the worker thread around each task.
_thread_cpu = time.thread_time
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _Function:
    """Aggregates of one queued function in one pool."""

    __slots__ = ("name", "dns", "resolver", "tasks", "finished", "abandoned", "saturated",
                 "depth_max", "depth_sum", "queued_s", "queued_max_s", "slot_wait_s",
                 "run_s", "run_max_s", "cpu_s", "result_s", "result_max_s", "sites",
                 "greenlets", "greenlet_ids", "greenlet_names")

    def __init__(self, name: str, dns: bool) -> None:
        self.name, self.dns, self.resolver = name, dns, None
        self.tasks = self.finished = self.abandoned = self.saturated = 0
        self.depth_max = self.depth_sum = 0
        self.queued_s = self.queued_max_s = self.slot_wait_s = 0.0
        self.run_s = self.run_max_s = self.result_s = self.result_max_s = 0.0
        self.cpu_s = 0.0  # of the finished tasks, in their worker threads
        self.sites: dict[str, int] = {}
        self.greenlets: set[int] = set()
        self.greenlet_ids: list[int] = []
        self.greenlet_names: list[str] = []

    def copy(self) -> _Function:
        out = _Function(self.name, self.dns)
        for slot in self.__slots__:
            value = getattr(self, slot)
            setattr(out, slot, value.copy() if isinstance(value, (dict, set, list)) else value)
        return out


class _Pool:
    __slots__ = ("seq", "label", "default", "maxsize", "waiting", "functions")

    def __init__(self, seq: int, label: str, default: bool) -> None:
        self.seq, self.label, self.default = seq, label, default
        self.maxsize = 0
        self.waiting = 0  # greenlets inside spawn() still waiting for a worker slot
        self.functions: dict[str, _Function] = {}


class _Task:
    """What the pool runs instead of *func*: notes when a worker started and ended it,
    and the worker thread's CPU over it.  Called in a worker thread; writes only its own
    timestamps."""

    __slots__ = ("func", "pool", "fn", "t_call", "t_queued", "t_start", "t_end", "cpu")

    def __init__(self, func: Any, pool: _Pool, fn: _Function, t_call: float) -> None:
        self.func, self.pool, self.fn, self.t_call = func, pool, fn, t_call
        self.t_queued: float | None = None
        self.t_start: float | None = None
        self.t_end: float | None = None
        self.cpu: float | None = None  # set when the task ends

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.t_start = _perf()
        cpu0 = _thread_cpu()
        try:
            return self.func(*args, **kwargs)
        finally:
            self.cpu = _thread_cpu() - cpu0
            self.t_end = _perf()

    def __repr__(self) -> str:  # gevent names the function in its error reports
        return repr(self.func)


class ThreadpoolWatch:
    """Records gevent threadpool use while wrapped (see the module docstring).

    ``wrap()`` -> patches whose ``restore()`` stops the recording; ``events()`` -> plain
    JSON-serialisable dicts, one per (pool, function), ``"kind": "threadpool"``.
    *greenlet_id*, if given, maps the spawning greenlet to the id the profile uses for
    it (the tracer's), so findings can name greenlets as the report does.
    """

    def __init__(self, greenlet_id: Callable[[Any], int | None] | None = None) -> None:
        self._greenlet_id = greenlet_id
        self._lock = _Lock()
        self._pools: dict[int, _Pool] = {}  # id(ThreadPool) -> record
        self._pending: set[_Task] = set()
        self._thread: int | None = None
        self._closed_at: float | None = None
        self.errors = 0  # our own failures, swallowed (never raised into the program)

    # -- lifecycle ----------------------------------------------------------------------
    def wrap(self) -> list[Patch]:
        """Start recording spawns made in this OS thread; returns what to restore."""
        ident = get_ident()
        with _registry_lock:
            if _active.get(ident) is not None or self._thread is not None:
                return []  # one watch per thread (one tracer per thread)
            if not _users:
                _shared.extend(wrap_when_loaded([SPAWN], _make_spawn))
            _users.append(self)
            _active[ident] = self
        self._thread = ident
        return [_Unwrap(self)]

    def _unwrap(self) -> None:
        with _registry_lock:
            if self._closed_at is not None:
                return
            self._closed_at = _perf()
            if _active.get(self._thread) is self:  # type: ignore[arg-type]
                del _active[self._thread]  # type: ignore[arg-type]
            if self in _users:
                _users.remove(self)
            if not _users:
                for patch in reversed(_shared):
                    patch.restore()
                _shared.clear()

    def forget(self) -> None:
        """Drop what was recorded so far (Tracer.reset); keep watching.  Tasks still
        in flight finish into records no longer reported."""
        with self._lock:
            self._pools.clear()
            self._pending.clear()

    # -- called by the spawn wrapper (the watched thread) ------------------------------
    def _submitting(self, threadpool: Any, func: Any, frame: Any) -> _Task | None:
        try:
            now = _perf()
            name, dns = function_name(func), is_dns_function(func)
            site, via_resolver = _spawn_site(frame)
            current = greenlet.getcurrent()
            gid = self._greenlet_id(current) if self._greenlet_id is not None else None
            try:
                in_flight = len(threadpool)  # queued and running tasks
                maxsize = int(threadpool.maxsize)
            except Exception:  # noqa: BLE001 - a pool we do not understand
                in_flight, maxsize = 0, 0
            with self._lock:
                if self._closed_at is not None:
                    return None
                pool = self._pool(threadpool)
                pool.maxsize = max(pool.maxsize, maxsize) if pool.label == OTHER_POOLS \
                    else maxsize
                depth = in_flight + pool.waiting  # tasks ahead of this one
                pool.waiting += 1
                fn = self._function(pool, name, dns or via_resolver)
                if via_resolver:
                    fn.resolver = RESOLVER_MODULE
                fn.tasks += 1
                fn.depth_sum += depth
                fn.depth_max = max(fn.depth_max, depth)
                if maxsize and depth >= maxsize:
                    fn.saturated += 1
                if site is not None and (site in fn.sites or len(fn.sites) < MAX_SITES):
                    fn.sites[site] = fn.sites.get(site, 0) + 1
                key = gid if gid is not None else id(current)
                if key not in fn.greenlets and len(fn.greenlets) < MAX_GREENLETS_COUNTED:
                    fn.greenlets.add(key)
                    if gid is not None and len(fn.greenlet_ids) < MAX_GREENLETS_NAMED:
                        fn.greenlet_ids.append(gid)
                    if len(fn.greenlet_names) < MAX_GREENLETS_NAMED:
                        gname = greenlet_name(current)
                        if gname not in fn.greenlet_names:
                            fn.greenlet_names.append(gname)
                task = _Task(func, pool, fn, now)
                if len(self._pending) < MAX_PENDING:
                    self._pending.add(task)
            return task
        except Exception:  # noqa: BLE001 - the program's spawn goes on unwatched
            self.errors += 1
            return None

    def _submitted(self, task: _Task, result: Any) -> None:
        try:
            task.t_queued = _perf()
            with self._lock:
                task.pool.waiting -= 1
            result.rawlink(functools.partial(self._ready, task))
        except Exception:  # noqa: BLE001
            self.errors += 1

    def _abandoned(self, task: _Task) -> None:
        """spawn() raised (e.g. the greenlet was killed waiting for a slot): its wait
        was real, it ran nowhere."""
        try:
            queued = _perf() - task.t_call
            with self._lock:
                task.pool.waiting -= 1
                self._pending.discard(task)
                if self._closed_at is None:
                    fn = task.fn
                    fn.abandoned += 1
                    fn.queued_s += queued
                    fn.queued_max_s = max(fn.queued_max_s, queued)
                    fn.slot_wait_s += queued
        except Exception:  # noqa: BLE001
            self.errors += 1

    def _ready(self, task: _Task, _result: Any) -> None:
        """The result reached the hub (a link of the AsyncResult, in the hub)."""
        try:
            now = _perf()
            with self._lock:
                self._pending.discard(task)
                if self._closed_at is not None:
                    return
                _fold(task.fn, task, now, finished=True)
        except Exception:  # noqa: BLE001
            self.errors += 1

    def _pool(self, threadpool: Any) -> _Pool:
        pool = self._pools.get(id(threadpool))
        if pool is None:
            if len(self._pools) >= MAX_POOLS:
                pool = self._pools.get(0)
                if pool is None:
                    pool = self._pools[0] = _Pool(0, OTHER_POOLS, False)
                return pool
            hub = getattr(threadpool, "hub", None)
            default = getattr(hub, "_threadpool", None) is threadpool
            seq = len(self._pools) + 1
            label = "the hub's threadpool" if default else f"ThreadPool #{seq}"
            pool = self._pools[id(threadpool)] = _Pool(seq, label, default)
        return pool

    @staticmethod
    def _function(pool: _Pool, name: str, dns: bool) -> _Function:
        fn = pool.functions.get(name)
        if fn is None:
            if len(pool.functions) >= MAX_FUNCTIONS:
                name = OTHER_FUNCTIONS
                fn = pool.functions.get(name)
            if fn is None:
                fn = pool.functions[name] = _Function(name, dns)
        return fn

    # -- results ------------------------------------------------------------------------
    def events(self) -> list[dict[str, Any]]:
        """One dict per (pool, function), tasks still in flight included with their
        wait so far (up to now, or to when recording stopped)."""
        with self._lock:
            cutoff = self._closed_at if self._closed_at is not None else _perf()
            copies = {id(fn): fn.copy() for pool in self._pools.values()
                      for fn in pool.functions.values()}
            for task in self._pending:
                fn = copies.get(id(task.fn))
                if fn is not None:
                    _fold(fn, task, cutoff, finished=False)
            out = []
            for pool in self._pools.values():
                for original in pool.functions.values():
                    out.append(_event(pool, copies[id(original)]))
        return out


def _fold(fn: _Function, task: _Task, now: float, finished: bool) -> None:
    """Add *task*'s times (measured up to *now*) to *fn*."""
    start, end = task.t_start, task.t_end
    queued = (start if start is not None else now) - task.t_call
    ran = ((end if end is not None else now) - start) if start is not None else 0.0
    # In spawn() until it returned; the worker may start the task a moment before our
    # clock read after spawn() returned, so never past the start.
    slot = min(task.t_queued if task.t_queued is not None else now,
               start if start is not None else now) - task.t_call
    fn.queued_s += queued
    fn.queued_max_s = max(fn.queued_max_s, queued)
    fn.slot_wait_s += slot
    fn.run_s += ran
    fn.run_max_s = max(fn.run_max_s, ran)
    if task.cpu is not None:
        fn.cpu_s += task.cpu
    if finished:
        fn.finished += 1
        total = now - task.t_call
        fn.result_s += total
        fn.result_max_s = max(fn.result_max_s, total)


def _event(pool: _Pool, fn: _Function) -> dict[str, Any]:
    sites = sorted(fn.sites.items(), key=lambda kv: -kv[1])
    return {
        "kind": EVENT_KIND,
        "pool": pool.label,
        "pool_seq": pool.seq,
        "default_pool": pool.default,
        "maxsize": pool.maxsize,
        "function": fn.name,
        "dns": fn.dns,
        "resolver": fn.resolver,
        "tasks": fn.tasks,
        "finished": fn.finished,
        "unfinished": fn.tasks - fn.finished - fn.abandoned,
        "abandoned": fn.abandoned,
        "saturated": fn.saturated,
        "depth_max": fn.depth_max,
        "depth_mean": fn.depth_sum / fn.tasks if fn.tasks else 0.0,
        "queued_s": fn.queued_s,
        "queued_max_s": fn.queued_max_s,
        "slot_wait_s": fn.slot_wait_s,
        "run_s": fn.run_s,
        "run_max_s": fn.run_max_s,
        "cpu_s": fn.cpu_s,
        "result_s": fn.result_s,
        "result_max_s": fn.result_max_s,
        "sites": [[site, count] for site, count in sites],
        "greenlets": len(fn.greenlets),
        "greenlet_ids": list(fn.greenlet_ids),
        "greenlet_names": list(fn.greenlet_names),
    }


# -- naming -----------------------------------------------------------------------------

def _unwrap_callable(func: Any) -> Any:
    for _ in range(8):  # partials and bound methods, a few levels
        inner = getattr(func, "func", None)
        if isinstance(func, functools.partial) and inner is not None:
            func = inner
            continue
        break
    return getattr(func, "__func__", func)


def function_name(func: Any) -> str:
    """``module.qualname`` of what a task runs (through partials and bound methods)."""
    target = _unwrap_callable(func)
    qualname = getattr(target, "__qualname__", None) or getattr(target, "__name__", None)
    if not isinstance(qualname, str):  # a callable object
        target = type(target)
        qualname = target.__qualname__
    module = getattr(target, "__module__", None)
    return f"{module}.{qualname}" if isinstance(module, str) and module else qualname


def is_dns_function(func: Any) -> bool:
    """``_socket.getaddrinfo`` and friends (what gevent's thread resolver runs), or
    ``socket``'s Python ones."""
    target = _unwrap_callable(func)
    return getattr(target, "__name__", None) in DNS_FUNCTIONS \
        and getattr(target, "__module__", None) in DNS_MODULES


def greenlet_name(g: Any) -> str:
    """gevent's ``name`` if set, else the function the greenlet runs, else main."""
    attrs = getattr(g, "__dict__", None) or {}
    name = attrs.get("name")
    if isinstance(name, str):
        return name
    run = attrs.get("_run")
    if run is not None:
        return function_name(run)
    return "main" if getattr(g, "parent", None) is None else type(g).__name__


def _spawn_site(frame: Any) -> tuple[str | None, bool]:
    """(the first frame outside gevent and geventperf, as path:line:function; whether
    gevent's thread resolver is on the way)."""
    gevent_dir = _gevent_dir()
    via_resolver = False
    for _ in range(MAX_SITE_DEPTH):
        if frame is None:
            break
        path = frame.f_code.co_filename
        if path.endswith(_RESOLVER_FILE):
            via_resolver = True
        if not (gevent_dir and path.startswith(gevent_dir)) and not path.startswith(_OWN_DIR):
            code = frame.f_code
            name = getattr(code, "co_qualname", code.co_name)  # co_qualname: 3.11+
            return f"{path}:{frame.f_lineno}:{name}", via_resolver
        frame = frame.f_back
    return None, via_resolver


def _gevent_dir() -> str | None:
    module = sys.modules.get("gevent")
    path = getattr(module, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None


# -- the shared spawn wrapper ------------------------------------------------------------

_registry_lock = _Lock()
_active: dict[int, ThreadpoolWatch] = {}  # OS thread -> the watch recording there
_users: list[ThreadpoolWatch] = []  # watches wrapped and not yet restored
_shared: list[Patch] = []  # the patches of ThreadPool.spawn, while someone watches


class _Unwrap(Patch):
    __slots__ = ("watch",)

    def __init__(self, watch: ThreadpoolWatch) -> None:  # noqa: D107 - replaces nothing
        self.watch = watch

    def restore(self) -> None:
        self.watch._unwrap()


def _make_spawn(dotted: str, original: Any) -> Any:
    if is_ours(original):
        return None  # a tracer in another thread wrapped it already

    def spawn(self: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
        watch = _active.get(get_ident()) if _active else None
        if watch is None:
            return original(self, func, *args, **kwargs)
        task = watch._submitting(self, func, sys._getframe(1))
        if task is None:
            return original(self, func, *args, **kwargs)
        try:
            result = original(self, task, *args, **kwargs)
        except BaseException:
            watch._abandoned(task)
            raise
        watch._submitted(task, result)
        return result

    return mark_wrapper(spawn, original)
