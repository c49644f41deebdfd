"""Tracer: greenlet-switch accounting with ``greenlet.settrace``.

At every switch the tracer closes the run slice of the greenlet that left (wall time,
thread CPU time, the stack where it yielded) and the wait of the greenlet that
arrives.  Definitions (see also ``DESIGN.md``):

* ``run_s``: wall time while the greenlet was the running one;
* ``cpu_s``: ``time.thread_time()`` over the same slices (None with cpu_clock=False);
* ``wait_s``: time from a switch-out to the next switch-in of the same greenlet.  A
  greenlet that was already suspended when tracing started waits from the start; a
  greenlet spawned while tracing starts waiting at its first switch-in (the switch
  trace does not see the spawn), and a greenlet still suspended at ``stop()`` waits
  until then;
* ``switches``: switch-outs, the final exit included.

Everything the hot path keeps is plain numbers, code objects and small lists; greenlets
are keyed by ``id()`` and forgotten at their last switch (or, failing that, by a weakref
callback), so the tracer never keeps a greenlet alive.  ``stop()`` turns the records
into a plain :class:`~geventperf.profile.Profile`.
"""

from __future__ import annotations

import heapq
import os
import threading
import time
import weakref
from collections import deque
from typing import Any, Callable

import greenlet

from geventperf import bodyreads as _bodyreads
from geventperf import latency, readstats
from geventperf import sections as _sections
from geventperf.poolwatch import PoolWatch, wrap_pool_use
from geventperf.profile import Profile
from geventperf.sampling.sampler import interval_option, start_sampler
from geventperf.sections import get_ident
from geventperf.serverwatch import ServerWatch, wrap_server_writes
from geventperf.threadpoolwatch import ThreadpoolWatch
from geventperf.trace.build import SnapshotCache, build_profile
from geventperf.trace.childcpu import children_cpu_s
from geventperf.trace.cpuclock import CPU_PENDING_MAX, CPU_READ_INTERVAL_S
from geventperf.trace.gcwatch import GcWatch
from geventperf.trace.hook import make_trace
from geventperf.trace.loopwatch import LoopWatch
from geventperf.trace.records import Folded, Record, Row, State
from geventperf.trace.runqueue import run_delay_s
from geventperf.trace.sectionacct import SectionAccounting
from geventperf.trace.spawns import SpawnWatch
from geventperf.trace.stacks import (  # EXIT, OTHER: the stack labels, read here too
    EXIT,  # noqa: F401
    EXIT_KEY,
    OTHER,  # noqa: F401
    OTHER_KEY,
    FunctionNames,
    Labeler,
    loaded_hub_type,
    name_and_origin,
    yields_to_run_again,
)
from geventperf.trace.stallwatch import StallWatch
from geventperf.trace.waits import (
    BLAME_WINDOW,
    FIRST_POLL_BLOCKED_MIN_S,
    POLL_BLOCKED_MIN_S,
)
from geventperf.trace.wallclock import tsc_allowed
from geventperf.writewatch import WriteWatch, wrap_socket_writes

# Frames kept per switch-out stack.  gevent's own blocking path (socket.recv ->
# _wait -> hub.wait -> Waiter.get) is ~6 Python frames and requests/urllib3/http.client
# add ~10 more, so 24 reaches the caller's code while bounding the per-switch walk.
MAX_STACK_DEPTH = 24
# Distinct switch-out stacks kept; a program yielding from more places than this is
# summarised, the rest counted in one "<other>" entry so memory stays bounded.
MAX_STACKS = 10_000
# Finished greenlets kept one by one; beyond this they are folded per name, so a server
# spawning a greenlet per request keeps bounded memory over a long run.
MAX_GREENLET_RECORDS = 10_000
# Worst loop-blocking slices kept (a heap): enough for a report, bounded for soaks.
MAX_BLOCKED_SLICES = 100
# Exceptions inside the trace function before tracing gives up (a bug of ours must not
# cost the traced program more than a bounded amount of noise).
MAX_TRACE_ERRORS = 100
# Frames walked to find the function a raw greenlet runs (done once per greenlet).
MAX_ORIGIN_WALK = 256
# Spawns noted but not started yet: a program spawning faster than it starts would
# otherwise grow the table; past this the oldest are forgotten.
MAX_PENDING_SPAWNS = 10_000
DEFAULT_MAX_SLICES = 100_000
# Tracer(cpu_clock=...): how CPU time is measured (trace/cpuclock.py); the C hot path
# takes the index (0 means no CPU time).
CPU_CLOCK_MODES = ("interval", "switch")
DEFAULT_BLOCK_THRESHOLD_S = 0.05

# The hot path in C when built (setup.py, optional) and not disabled; the pure-Python
# one below behaves identically.  ``_ctrace`` is what Tracer.start() uses.
try:
    from geventperf import _ctrace as C_EXTENSION  # type: ignore[attr-defined]
except ImportError:
    C_EXTENSION = None
if C_EXTENSION is not None and getattr(C_EXTENSION, "NBUCKETS", None) != latency.NBUCKETS:
    C_EXTENSION = None  # built from another version of the sources: not ours to use
_ctrace = None if os.environ.get("GEVENTPERF_PURE") == "1" else C_EXTENSION



class TracerError(RuntimeError):
    """A Tracer was used in a way it cannot honour (second tracer in a thread, stop
    from another thread, profile before stop, ...)."""


class Tracer(SectionAccounting):
    """Greenlet-switch profiler for the thread that starts it.

    ``sections``: "auto" wraps the C parsers of :data:`sections.AUTO_SECTIONS`;
    a list of dotted names wraps those (each must exist); None/False wraps nothing.
    ``cpu_clock``: how CPU time is measured (``time.thread_time()``, a system call of
    0.3-1.7 us here).  "interval" (or True, the default): read at most once per
    millisecond and spread over the slices in between by their busy wall time, exact
    for slices of a millisecond or more (:mod:`geventperf.trace.cpuclock`); "switch":
    read at every switch (exact, and most of the tracer's cost per switch); False:
    no CPU time.
    ``stacks``: record where each switch-out happened (waits, runs, findings).
    ``block_threshold``: a run slice longer than this (seconds) blocked the loop.
    ``max_slices``: most recent run slices kept for timelines (aggregates stay exact).
    ``lxml_guard``: make concurrent ``lxml.etree.parse(fileobj)`` safe (see
    :func:`geventperf.sections._lxml_parse_wrapper`).
    ``cpu_samples``: sample the running stack every so many CPU seconds (True: the
    default interval, adapted to a 1 % CPU budget; see geventperf.sampling.sampler).
    ``stall_watch``: a watchdog thread looks at the traced thread's stack while one run
    slice holds the loop past half ``block_threshold``, so a blocking call is named
    where it blocked, not where its slice ended (:mod:`geventperf.trace.stallwatch`).
    """

    def __init__(self, sections: str | list[str] | tuple[str, ...] | None | bool = "auto",
                 cpu_clock: bool | str = "interval", stacks: bool = True,
                 block_threshold: float = DEFAULT_BLOCK_THRESHOLD_S,
                 max_slices: int = DEFAULT_MAX_SLICES, lxml_guard: bool = False,
                 max_stack_depth: int = MAX_STACK_DEPTH,
                 cpu_samples: bool | float = False, stall_watch: bool = False) -> None:
        # "auto" also counts urllib3's body reads (see geventperf.bodyreads).
        self._count_body_reads = sections is True or sections == "auto"
        if sections is True or sections == "auto":
            self._section_names, self._strict = tuple(_sections.AUTO_SECTIONS), False
        elif sections is None or sections is False:
            self._section_names, self._strict = (), False
        elif isinstance(sections, (list, tuple)) and all(isinstance(s, str) for s in sections):
            self._section_names, self._strict = tuple(sections), True
        else:
            raise ValueError(f"sections must be 'auto', None or a list of dotted names, "
                             f"got {sections!r}")
        if not isinstance(block_threshold, (int, float)) or not block_threshold > 0:
            raise ValueError(f"block_threshold must be a positive number of seconds, "
                             f"got {block_threshold!r}")
        if not isinstance(max_slices, int) or max_slices < 0:
            raise ValueError(f"max_slices must be an int >= 0, got {max_slices!r}")
        if not isinstance(max_stack_depth, int) or max_stack_depth < 1:
            raise ValueError(f"max_stack_depth must be an int >= 1, got {max_stack_depth!r}")
        if cpu_clock is True:
            cpu_clock = "interval"
        if cpu_clock is not False and cpu_clock is not None \
                and cpu_clock not in CPU_CLOCK_MODES:
            raise ValueError(f"cpu_clock must be one of {CPU_CLOCK_MODES} or False, "
                             f"got {cpu_clock!r}")
        self.cpu_mode: str | None = cpu_clock or None
        self.cpu_clock = self.cpu_mode is not None
        self.stacks = bool(stacks)
        self.block_threshold = float(block_threshold)
        self.max_slices = max_slices
        self.lxml_guard = bool(lxml_guard)
        self.max_stack_depth = max_stack_depth
        self._sample_interval = interval_option(cpu_samples)
        self._sampler: Any = None
        self.stall_watch = bool(stall_watch)
        self._stall: StallWatch | None = None
        self._stall_errors = 0  # the watch's own errors (it never raises), for meta
        # its looks at slices shorter than the threshold, and how many it could not keep
        self._stall_short: tuple[dict[tuple[str, ...], int], int] = ({}, 0)

        self._st: Any = State()
        self._c = False  # hot path in C (set by start())
        self._thread: int | None = None
        self._profile: Profile | None = None
        self._started = self._stopped = False
        self._prev: Any = None
        self._trace: Callable[[str, Any], None] | None = None
        self._patches: list[_sections.Patch] = []
        self._reset_tables()

    def _reset_tables(self) -> None:
        self._live: dict[int, Record] = {}  # id(greenlet) -> record, live greenlets
        self._finished: list[Record] = []
        self._folded: dict[str, list[Any]] = {}  # name -> [n, run, cpu, wait, sw, longest]
        self._next_gid = 1
        # Stack key -> Row.  Python: (id(code), lasti, ...); C: a 64-bit hash of them.
        self._stacks: dict[Any, Any] = {}
        # key -> (code objects, instruction offsets), innermost first
        self._stack_codes: dict[Any, tuple[list[Any], list[int]]] = {}
        # code object -> {offset: what it calls}, read from the bytecode once per code
        # for every build (a snapshot a second must not disassemble again)
        self._calls_by_code: dict[Any, dict[int, str | None]] = {}
        self._section_table: dict[str, list[Any]] = {}
        # Sections still open when their greenlet died (entered without a matching
        # exit): closed at the death and counted here.
        self._sections_left_open = 0
        # greenlets a gevent Pool started (trace/spawns.py), by name
        self._pool_jobs: dict[str, int] = {}
        # (gid, start, duration, section, ready wait, key of the stack row it ended at)
        self._slices: deque[tuple[Any, ...]] = deque(maxlen=self.max_slices)
        self._record_type: Any = Record
        self._row_type: Any = Row
        self._blocked: list[tuple[float, int, tuple[Any, ...]]] = []  # min-heap
        self._c_switch: dict[tuple[str, int], list[Any]] = {}
        self._c_switch_dropped = 0
        # gid -> (section name, parser lock) of lxml file parses suspended mid-read
        self._lxml_suspended: dict[int, tuple[str, object]] = {}
        self._deadlock_events: list[dict[str, Any]] = []
        self._reads: dict[str, list[Any]] = {}
        # call site -> [reads, bytes, bodies, seconds] of urllib3 body reads
        self._body_reads: dict[str, list[Any]] = {}
        self._seq = 0
        self._t0 = 0.0
        self._aborted = False
        self._first_error: str | None = None
        self._hub_type: Any = None
        self._loopwatch: LoopWatch | None = None
        self._loop_error: str | None = None
        self._startup_s: float | None = None
        # id(greenlet) -> (when it was started, whether a gevent Pool started it, whether
        # on a timer)
        self._spawns: dict[int, tuple[float, bool, bool]] = {}
        self._names = FunctionNames()
        self._spawn_watch = SpawnWatch(self._on_spawn)
        self._gc_watch = GcWatch(lambda: self._st.switches)
        self._threadpool = ThreadpoolWatch(greenlet_id=self._gid_of)
        self._pool_watch = PoolWatch()
        self._server_watch = ServerWatch()
        self._write_watch = WriteWatch(lambda: self._st.switches)
        self._snap_cache = SnapshotCache()
        self._run_delay: float | None = None
        self._run_delay_t0: float | None = None
        self._native_id: int | None = None
        self._run_delay_at = 0.0  # when it was read

    # -- lifecycle -----------------------------------------------------------------
    def __enter__(self) -> Tracer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def profile(self) -> Profile:
        if self._profile is None:
            state = "is still running" if self._started else "was never started"
            raise TracerError(f"Tracer.profile is available after stop(); this tracer {state}")
        return self._profile

    def start(self) -> Tracer:
        if self._started:
            raise TracerError("this Tracer was already started; create a new Tracer per run")
        ident = get_ident()
        other = _sections._tracers.get(ident)
        if other is not None:
            raise TracerError("another geventperf Tracer is already active in this thread; "
                              "stop it before starting a new one (greenlet.settrace is "
                              "per thread, one tracer per thread)")
        self._hub_type = loaded_hub_type()  # the hub need not exist yet: never create it
        self._patches = _sections.wrap_c_sections(self._section_names, self.lxml_guard,
                                                  self._strict)
        if self._count_body_reads:
            self._patches += _bodyreads.wrap_body_reads()
        self._patches += self._threadpool.wrap()
        self._patches += wrap_pool_use()
        self._patches += wrap_server_writes()
        self._patches += wrap_socket_writes()

        try:
            self._install(ident)
        except BaseException:  # leave nothing half-installed behind
            self._spawn_watch.close()
            readstats.remove_sink(self._on_read)
            if _sections._tracers.get(ident) is self:
                del _sections._tracers[ident]
            for patch in reversed(self._patches):
                patch.restore()
            self._patches = []
            raise
        return self

    def _install(self, ident: int) -> None:
        self._prev = greenlet.gettrace()
        self._c = _ctrace is not None
        if self._c:
            self._record_type, self._row_type = _ctrace.Record, _ctrace.Row
            self._st = self._trace = self._make_c_trace(self._prev)
            # sections.py calls these per wrapped call: the C ones touch no Python
            # attribute (in Python, a small json.loads cost 2.6 us more)
            self._section_enter = self._st.section_enter
            self._section_exit = self._st.section_exit
        else:
            self.__dict__.pop("_section_enter", None)  # the mixin's Python ones
            self.__dict__.pop("_section_exit", None)
            self._trace = make_trace(self, self._prev)
        st = self._st
        self._run_delay, self._run_delay_at = run_delay_s(), time.perf_counter()
        # the run's own wait for a CPU counts from here (hub["cpu_wait_s"]), read by
        # thread id so a snapshot from another thread reads the traced one's
        self._native_id, self._run_delay_t0 = threading.get_native_id(), self._run_delay
        self._spawn_watch.install()
        self._gc_watch.install()
        self._t0 = now = time.perf_counter()
        self._process_cpu0 = time.process_time()  # every thread's: gil.py compares
        self._children_cpu0 = children_cpu_s()  # its child processes': cpu-starved's
        self._wall_start = time.time()
        current = greenlet.getcurrent()
        rec = self._new_record(current, None, None)
        rec.t_in = now
        rec.cpu_in = time.thread_time() if self.cpu_mode == "switch" else 0.0
        st.cpu_start()
        st.cur, st.on = rec, True
        readstats.add_sink(self._on_read)
        _sections._tracers[ident] = self
        greenlet.settrace(self._trace)
        self._sampler = start_sampler(st, self._sample_interval)
        if self.stall_watch:
            self._stall_errors, self._stall_short = 0, ({}, 0)
            self._stall = StallWatch(ident, lambda: st.switches,
                                     lambda: st.cur is not None and st.cur.is_hub,
                                     self.block_threshold / 2, self.max_stack_depth)
            self._stall.start()
        self._started = True
        self._thread = ident

    def stop(self) -> Profile:
        """Stop tracing in this thread, restore what was patched, build the profile."""
        if not self._started:
            raise TracerError("Tracer.stop() called before start()")
        if self._stopped:
            return self.profile
        if get_ident() != self._thread:
            raise TracerError("Tracer.stop() must be called from the thread that started "
                              "it (greenlet.settrace is per thread; this is another thread)")
        self._stopped = True
        now = time.perf_counter()
        self._uninstall()
        for patch in reversed(self._patches):
            patch.restore()
        self._patches = []
        self._profile = build_profile(self, now)
        if self._c:  # the C callback may stay in someone's chain: let go of our tables
            self._st.release()
        self._reset_tables()  # drop code objects and records as soon as we can
        return self._profile

    def snapshot(self, slices: bool = True) -> Profile:
        """The profile so far, without stopping: callable from any greenlet, or from
        another thread (a metrics scrape).  It counts slices, waits and blame that
        have closed, plus the caller's own running slice when called in the traced
        thread, so each figure of a later snapshot is at least that of an earlier
        one (Prometheus counters).  ``slices=False`` leaves out the timeline's run
        slices (up to ``max_slices`` of them), the costly part for frequent calls.
        After stop() it returns the final profile."""
        if not self._started:
            raise TracerError("Tracer.snapshot() called before start()")
        if self._stopped:
            return self.profile
        return build_profile(self, time.perf_counter(), own=get_ident() == self._thread,
                             final=False, with_slices=slices)

    def reset(self) -> None:
        """Forget everything measured so far and go on tracing, as a new Tracer would
        from here (``meta.started_at`` and ``duration_s`` restart: a metrics exporter
        sees a new run).  Sections stay wrapped.  Call it in the traced thread, with
        this tracer's trace function still the installed one."""
        if not self._started or self._stopped:
            raise TracerError("Tracer.reset() needs a running tracer (after start(), "
                              "before stop())")
        if get_ident() != self._thread:
            raise TracerError("Tracer.reset() must be called from the thread that "
                              "started the tracer (greenlet.settrace is per thread)")
        if greenlet.gettrace() is not self._trace:
            raise TracerError("Tracer.reset(): another trace function was installed over "
                              "the tracer's and calls it; starting over would cut it off. "
                              "Stop this tracer and start a new one instead")
        self._uninstall()
        if self._c:
            self._st.release()
        threadpool = self._threadpool  # its spawn wrapper stays in place: keep it
        self._reset_tables()
        self._threadpool = threadpool
        threadpool.forget()
        self._pool_watch.forget()
        self._server_watch.forget()
        self._write_watch.forget()
        self._st = State()
        self._install(self._thread)  # type: ignore[arg-type]

    def _uninstall(self) -> None:
        st = self._st
        if not st.on and self._trace is None:
            return
        st.on = False  # also turns our callback into a pass-through if we stay chained
        if self._sampler is not None:
            self._sampler.stop()
        if self._stall is not None:
            self._stall.stop()
            self._stall_errors = self._stall.errors
            self._stall_short = self._stall.short_looks()
            self._stall = None
        if self._loopwatch is not None:
            self._loopwatch.close()
        self._spawn_watch.close()
        self._gc_watch.close()
        readstats.remove_sink(self._on_read)
        if _sections._tracers.get(self._thread) is self:  # type: ignore[arg-type]
            del _sections._tracers[self._thread]  # type: ignore[arg-type]
        if self._trace is not None and greenlet.gettrace() is self._trace:
            greenlet.settrace(self._prev)
        # else someone installed a trace function over ours and chains to it: ours stays
        # in their chain as a pass-through to the previous one.

    # -- the hot path --------------------------------------------------------------
    def _make_c_trace(self, prev: Any) -> Any:
        """The same callback as :meth:`_make_trace`, in C (``_ctrace.c``)."""
        return _ctrace.Hot(
            prev=prev, live=self._live, table=self._stacks, new_record=self._new_record,
            new_row=self._new_row, finish=self._finish, on_blocked=self._blocked_slice,
            on_c_switch=self._c_switch_out, on_c_resume=self._c_resume,
            on_error=self._trace_error, name_from_frames=self._name_from_frames,
            exit_key=EXIT_KEY, stacks=self.stacks,
            cpu_clock=CPU_CLOCK_MODES.index(self.cpu_mode) + 1 if self.cpu_mode else 0,
            cpu_interval=CPU_READ_INTERVAL_S, cpu_pending_max=CPU_PENDING_MAX,
            depth=self.max_stack_depth, threshold=self.block_threshold,
            max_slices=self.max_slices, poll_blocked_min=POLL_BLOCKED_MIN_S,
            first_poll_blocked_min=FIRST_POLL_BLOCKED_MIN_S, window=BLAME_WINDOW,
            tsc=tsc_allowed(), sections=self._section_table)

    # -- rarely called helpers of the hot path ---------------------------------------
    def _new_record(self, g: Any, origin: Any, resumed: Any) -> Any:
        """First sight of greenlet *g* (at a switch-in from *origin*, or as somebody's
        parent).  *resumed* is the frame *g* resumes, None if it is new."""
        key = id(g)
        rec = self._record_type(self._next_gid, key)
        self._next_gid += 1
        try:
            rec.weak = weakref.ref(g, lambda _ref, key=key: self._collected(key))
        except TypeError:  # a greenlet type without weakref support: rely on death
            pass
        hub_type = self._hub_type or loaded_hub_type()
        self._hub_type = hub_type
        if hub_type is not None and isinstance(g, hub_type):
            rec.is_hub, rec.name = True, "hub"
            self._watch_loop(g)
            self._gc_watch.start_up_ended()  # the first switch into the hub
        elif g.parent is None:
            rec.name = "main"
        else:
            name_and_origin(rec, g, self._names)
        if resumed is not None:
            # *g* resumes a frame, so it was suspended before tracing began: it has been
            # waiting since the start.  (A new greenlet has no frame below the tracer.)
            rec.t_out = self._t0
            if rec.name is None:
                self._name_from_frames(rec, resumed)
        # Only now, named: a snapshot from another thread (a metrics scrape) may run
        # between any two lines here, and one that saw the record unnamed would label
        # it "greenlet" - for good, in an exporter that keeps every label it gave.
        self._live[key] = rec
        spawning = getattr(g, "spawning_greenlet", None)  # gevent keeps a weakref
        spawner = spawning() if callable(spawning) else None
        rec.parent = self._parent_id(g, spawner if callable(spawning) else g.parent)
        if resumed is None and origin is not None:
            self._spawned(rec, g, origin, spawner)
        return rec

    def _on_spawn(self, g: Any, when: float, pooled: bool, later: bool) -> None:
        """*g* was started at *when*, by a gevent Pool if *pooled*, on a timer if *later*
        (trace/spawns.py)."""
        spawns = self._spawns
        if len(spawns) >= MAX_PENDING_SPAWNS:  # never started: forget the oldest
            del spawns[next(iter(spawns))]
        spawns[id(g)] = (when, pooled, later)

    def _spawned(self, rec: Any, g: Any, origin: Any, spawner: Any) -> None:
        """A new gevent greenlet starts (the hub runs the callback its spawn queued): it
        was ready from its spawn, in its spawner's latest slice.  With the spawn's time
        (trace/spawns.py) the ready wait starts there; without it (a greenlet started
        before tracing), when the spawner yielded (a lower bound)."""
        when, pooled, later = self._spawns.pop(id(g), (None, False, False))
        if pooled:
            name = rec.name or "greenlet"
            self._pool_jobs[name] = self._pool_jobs.get(name, 0) + 1
        hub = self._live.get(id(origin))
        s_rec = self._live.get(id(spawner)) if spawner is not None else None
        if hub is None or not hub.is_hub or s_rec is None or s_rec.out_idx < 0 \
                or s_rec.t_out is None:
            return
        if later:
            # started on a timer: it waited for the timer, an event a poll saw, and was
            # ready only from then (the wait split's rule for a timer; polls_out -1: a
            # poll came since), not from the spawn
            if when is not None:
                rec.t_out, rec.out_idx, rec.polls_out = when, s_rec.out_idx, -1
            return
        rec.t_out, rec.out_idx, rec.ready_at_once = s_rec.t_out, s_rec.out_idx, True
        if when is not None and s_rec.t_in <= when <= s_rec.t_out:
            rec.t_out = when  # and the rest of the spawner's slice delayed it:
            self._ws.charge_slice(s_rec.out_idx, s_rec.t_out - when)

    def _watch_loop(self, hub: Any) -> None:
        """Measure the hub's polls (hub idle, and the ready marks of the wait split)."""
        self._spawn_watch.install()  # gevent is loaded by now
        if self._loopwatch is not None or self._loop_error is not None:
            return
        try:
            st = self._st
            self._loopwatch = LoopWatch(hub, st.poll_begin, st.poll_begin_pending, st.poll_end)
        except Exception as exc:  # an unknown loop: the split is then not measured
            self._loop_error = f"{type(exc).__name__}: {exc}"

    def _parent_id(self, g: Any, parent: Any) -> int | None:
        """The gid of *g*'s parent (its spawner for gevent), recorded if new."""
        if parent is None or parent is g or parent.dead:
            return None
        rec = self._live.get(id(parent))
        if rec is None:
            rec = self._new_record(parent, None, None)
        return rec.gid

    def _name_from_frames(self, rec: Record, frame: Any) -> None:
        """Name a raw greenlet after the outermost frame it runs (its run function)."""
        n = 0
        while frame.f_back is not None and n < MAX_ORIGIN_WALK:
            frame = frame.f_back
            n += 1
        code = frame.f_code
        module = frame.f_globals.get("__name__", "?")
        rec.name = f"{module}.{code.co_qualname}"
        rec.origin = f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"

    def _new_row(self, key: Any, frame: Any) -> Any:
        """A stack seen for the first time: keep its code objects (which also keeps
        the ids in *key* from being reused while tracing)."""
        table = self._stacks
        if len(table) >= MAX_STACKS:
            key = OTHER_KEY
            row = table.get(key)
            if row is not None:
                return row
        row = table[key] = self._row_type()
        if frame is not None and key is not OTHER_KEY:
            row.self_ready = yields_to_run_again(frame)
            codes, offsets = [], []
            while frame is not None and len(codes) < self.max_stack_depth:
                codes.append(frame.f_code)
                offsets.append(frame.f_lasti)
                frame = frame.f_back
            self._stack_codes[key] = (codes, offsets)
        return row

    def _finish(self, rec: Record) -> None:
        """A greenlet died (or was collected): keep its figures, forget the greenlet."""
        self._live.pop(rec.key, None)
        rec.finished = True
        rec.weak = None
        rec.t_out = None
        rec.wait_row = None
        if rec.open:
            # Its last slice is already counted in rec.run / rec.cpu.
            now = time.perf_counter()
            for o in reversed(rec.open):
                self._account_section(rec, o, now, rec.run, rec.cpu)
            self._sections_left_open += len(rec.open)
            rec.open = []
            rec.c_depth = 0
        if len(self._finished) < MAX_GREENLET_RECORDS:
            self._finished.append(rec)
            return
        agg = self._folded.get(rec.name or "greenlet")
        if agg is None:
            agg = self._folded[rec.name or "greenlet"] = Folded(rec.origin)
        agg.add(rec)

    def _collected(self, key: int) -> None:
        rec = self._live.get(key)
        if rec is not None and self._st.on:
            if rec.t_out is not None:  # collected while suspended: it waited until now,
                # for an event that never came
                self._close_wait(rec, time.perf_counter() - rec.t_out)
            self._finish(rec)

    @staticmethod
    def _close_wait(rec: Any, waited: float) -> None:
        """A wait that ends without a switch-in (collection, stop): event wait."""
        rec.wait += waited
        rec.event_wait += waited
        row = rec.wait_row
        if row is not None:
            row.n_wait += 1
            row.wait += waited
            row.ev += waited

    def _blocked_slice(self, rec: Record, ran: float, ran_cpu: float | None,
                       key: Any) -> None:
        self._seq += 1
        opened = rec.open
        if rec.out_idx == 0:  # the run's first slice: the program's start-up
            self._startup_s = ran
        # Time the thread waited for a CPU during this slice: off-CPU time that is not a
        # blocking call.  Read only now (never per switch), the delay counter covers
        # everything since the last reading; this slice's part is estimated by its share
        # of that wall time (load spreads evenly enough), and is at most its off-CPU time.
        now = time.perf_counter()
        delay, runqueue = run_delay_s(), None
        if delay is not None and self._run_delay is not None:
            since = max(now - self._run_delay_at, ran)
            runqueue = min(max(0.0, ran - (ran_cpu or 0.0)),
                           (delay - self._run_delay) * ran / since)
        self._run_delay, self._run_delay_at = delay, now
        collected, generation = self._gc_watch.in_slice(self._st.switches)
        ws = self._ws
        # where the stall watch saw the thread while this slice ran (the switch count
        # moves only once this switch is accounted)
        looks = self._stall.take(self._st.switches) if self._stall is not None else []
        item = (ran, self._seq, (rec.gid, rec.t_in - self._t0, ran, ran_cpu, key,
                                 opened[-1].name if opened else None, runqueue,
                                 collected, generation, ws.slice_sections(rec.out_idx),
                                 looks, rec.out_idx))
        ws.watch(rec.out_idx)  # learn how long others were ready meanwhile
        if len(self._blocked) < MAX_BLOCKED_SLICES:
            heapq.heappush(self._blocked, item)
        else:
            dropped = heapq.heappushpop(self._blocked, item)
            ws.unwatch(dropped[2][-1])

    @property
    def _ws(self) -> Any:
        """The wait split's state: the C ``Hot`` itself, or the Python WaitSplit."""
        return self._st if self._c else self._st.ws

    def _trace_error(self, exc: BaseException) -> None:
        st = self._st
        st.errors += 1
        if self._first_error is None:  # kept (as text) so a bug report can quote it
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            where = f" at {tb.tb_frame.f_code.co_name}:{tb.tb_lineno}" if tb else ""
            self._first_error = f"{type(exc).__name__}: {exc}{where}"
        if st.errors >= MAX_TRACE_ERRORS and st.on:
            self._aborted = True
            self._uninstall()
            for patch in reversed(self._patches):
                patch.restore()
            self._patches = []

    def _body_read_row(self, site: str) -> list[Any]:
        """The row urllib3 body reads at *site* add to (bodyreads.py, once per response):
        [reads, bytes, bodies, seconds, seconds running]; past MAX_STACKS sites, OTHER's."""
        row = self._body_reads.get(site)
        if row is None:
            if len(self._body_reads) >= MAX_STACKS:
                site = OTHER
                row = self._body_reads.get(site)
            if row is None:
                row = self._body_reads[site] = [0, 0, 0, 0.0, 0.0]
        return row

    def _on_read(self, record: dict[str, Any]) -> None:
        host = str(record.get("host", "?"))
        agg = self._reads.get(host)
        if agg is None:
            agg = self._reads[host] = [0, 0, 0, 0, 0.0, False]
        agg[0] += 1
        agg[1] += int(record.get("bytes") or 0)
        agg[2] += int(record.get("reads") or 0)
        waited = record.get("reads_waited")
        if waited is None:
            agg[5] = True  # at least one body could not tell
        else:
            agg[3] += int(waited)
        agg[4] += float(record.get("wall_s") or 0.0)

    # -- building the profile ------------------------------------------------------
    def _labeler(self) -> Labeler:
        return Labeler(self._stack_codes, self._calls_by_code)

    def _stacks_overflowed(self) -> bool:
        return OTHER_KEY in self._stacks

    def _extra_events(self) -> list[dict[str, Any]]:
        """Events of the watchers beside the switch trace: gevent's threadpool, urllib3's
        connection pools, gevent's WSGI server's responses, requests written to sockets
        in pieces, and the
        stall watch's looks at slices shorter than the threshold (one ``stall-looks``
        event: stacks with their looks, most first)."""
        events = self._threadpool.events() + self._pool_watch.events() \
            + self._server_watch.events() + self._write_watch.events()
        short, dropped = self._stall.short_looks() if self._stall is not None \
            else self._stall_short
        if short:
            events.append({"kind": "stall-looks", "dropped": dropped,
                           "looks": [[list(stack), n] for stack, n in
                                     sorted(short.items(), key=lambda kv: -kv[1])]})
        return events

    def _gid_of(self, g: Any) -> int | None:
        rec = self._live.get(id(g))
        return rec.gid if rec is not None else None

    # -- introspection for tests and benchmarks ----------------------------------
    def _sizes(self) -> dict[str, int]:
        """Sizes of the internal tables (bounded-memory checks)."""
        return {"live": len(self._live), "finished": len(self._finished),
                "folded": len(self._folded), "stacks": len(self._stacks),
                "slices": self._st.slice_count if self._c else len(self._slices),
                "blocked": len(self._blocked),
                "c_switch": len(self._c_switch)}


