"""The CPU sampler: a ``SIGPROF`` handler on a CPU-time interval timer.

Why a signal and not a sampler thread (measured, see README "CPU samples"): the
kernel's ``ITIMER_PROF`` ticks only while the process uses CPU, so an idle gevent
worker costs nothing, and the handler runs *in* the main thread, in whichever
greenlet is running, so the stack it sees is the running greenlet's and the greenlet
record the tracer keeps current (``State.cur``) is the one to tag it with.  A thread
would need the GIL to read ``sys._current_frames()``, wake up while the program idles,
and cannot tell which greenlet the main thread runs without racing the switch.

Python runs signal handlers between bytecodes of the main thread, so a tick during a
C call is handled when the call returns, in the Python frame that made it: the call is
charged to that frame.  Several ticks during one long call collapse into one; such a
sample is therefore weighted by the thread CPU time since the previous sample, and
every other sample by a typical tick's (see ``CpuSampler._weigh``).  Which samples
collapsed ticks is counted, not guessed, where the ``_sigticks`` extension is built:
on a busy machine the kernel also leaves long gaps with no tick at all, and those
samples must not carry their gap.

Safety (each one tested in ``tests/test_sampling_safety.py``):

* ``SA_RESTART`` (``signal.siginterrupt(SIGPROF, False)``): a tick during a blocking
  system call restarts it instead of failing it with ``EINTR`` in C code that does
  not retry;
* the handler never raises into the program (errors are counted; after
  ``MAX_HANDLER_ERRORS`` the sampler stops itself), takes no lock, never switches
  greenlets, and keeps no greenlet or frame: only code objects and offsets;
* its cost is bounded by a CPU budget: the interval grows when the handler's measured
  cost would exceed ``budget`` of the CPU (the adaptive interval of Datadog's
  profiler);
* it does not take ``SIGPROF`` or ``ITIMER_PROF`` from someone else (another
  profiler): if either is in use, sampling is off and ``unavailable`` says why; it
  restores the handler and timer it found when it stops.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Callable

from geventperf.sampling.libraries import facts
from geventperf.sampling.model import (
    OTHER,
    TRUNCATED,
    UNKNOWN_GREENLET,
    CpuSamples,
    SampledStack,
)
from geventperf.trace.gcwatch import GcWatch
from geventperf.trace.stacks import Labeler

try:  # optional C extension (setup.py): counts the ticks the kernel delivers
    from geventperf import _sigticks as SIGTICKS  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised where the extension is not built
    SIGTICKS = None

# 10 ms of CPU between samples (100 Hz, pprof's and Go's default): 100 samples per
# CPU-second, enough to rank functions within a second of load, while a sample
# (15-45 us with delivery, deeper stacks costing more) costs 0.15-0.45 % of the CPU.
DEFAULT_INTERVAL_S = 0.010
# Without the tick count (no _sigticks), a sample whose CPU gap exceeds this many
# typical gaps is taken for collapsed ticks (a long C call): it keeps its whole gap as
# its weight (see CpuSampler._weigh).
COLLAPSED_TICKS = 3.0
# How fast the typical gap follows a change (of the interval, or the machine's load).
TYPICAL_SMOOTHING = 0.05
# At most 1 % of the CPU for sampling (the goal; Datadog's default budget).
DEFAULT_BUDGET = 0.01
# Smallest interval accepted: below ~1 ms the kernel's tick granularity (HZ=250-1000)
# makes ticks uneven, and the handler's cost becomes a large share.
MIN_INTERVAL_S = 0.0005
# The budget never pushes the interval past this: a sample per second still ranks the
# top functions of a long run.
MAX_INTERVAL_S = 1.0
# Frames kept per sample, innermost first.  requests + urllib3 + http.client + gevent's
# socket path is ~25 frames; 64 reaches the application's own frames beneath them.
MAX_SAMPLE_DEPTH = 64
# Distinct (greenlet name, sections, stack) entries kept; the rest go to one OTHER
# entry so a long, varied run keeps bounded memory.
MAX_SAMPLED_STACKS = 20_000
# Handler errors before the sampler turns itself off: a bug of ours must cost the
# traced program only a bounded amount of noise.
MAX_HANDLER_ERRORS = 100
# Weight of the latest handler cost in its moving average (about 20 samples' memory):
# the interval follows a lasting change in stack depth, not one slow sample.
COST_SMOOTHING = 0.05
# What a sample costs beyond the handler's own code, which the handler cannot time:
# the kernel's signal delivery and Python's trampoline into the handler (measured here
# with os.kill loops: 3.5 us per signal for an empty handler, 0.8 us of it the kill).
# Counted in the budget so the adapted interval covers the whole cost.
SIGNAL_DELIVERY_COST_S = 3e-6
# Where the moving average of a sample's cost starts: a typical sample (measured with
# benchmarks/sample_cost.py: 18 us per signal at 30 frames, delivery included).  Not
# the first sample's cost: that one runs cold (first dict entries, first label
# lookups), often ten times slower, and would throttle sampling from the start.
TYPICAL_SAMPLE_COST_S = 18e-6
# The interval grows at most this factor per sample, so no single slow sample (a page
# fault, a cold cache) stretches it far; lasting costs still raise it within a few.
MAX_GROWTH_PER_SAMPLE = 2.0
# The timer is re-armed only when the interval the budget asks for differs from the
# current one by more than this share: each re-arm is a system call.
REARM_CHANGE = 0.25

_OTHER_KEY = (OTHER, (), ())
# The section wrappers that geventperf puts around C parsers (sections.py): a sample
# whose innermost Python frame is one of them was taken in the wrapped C function.
SECTION_WRAPPERS_FILE = "/geventperf/sections.py"
# Suffix of the frame that stands for that C function, named after its section.
C_FUNCTION_SUFFIX = " [C]"


def unavailable_reason() -> str | None:
    """Why a sampler cannot start in this thread now; None when it can."""
    if not hasattr(signal, "setitimer") or not hasattr(signal, "SIGPROF"):
        return "this platform has no setitimer(ITIMER_PROF) / SIGPROF"
    if threading.current_thread() is not threading.main_thread():
        return ("CPU sampling needs the main thread: Python runs signal handlers only "
                "there, and this tracer runs in another thread")
    current = signal.getsignal(signal.SIGPROF)
    if current not in (signal.SIG_DFL, signal.SIG_IGN, None) and not _left_by_fork(current):
        return (f"SIGPROF already has a handler ({getattr(current, '__qualname__', current)}"
                ", another profiler?): left alone, no CPU samples")
    if signal.getitimer(signal.ITIMER_PROF) != (0.0, 0.0):
        return "ITIMER_PROF is already armed by someone else: left alone, no CPU samples"
    return None


def _left_by_fork(handler: Any) -> bool:
    """A handler of a sampler started in the parent of this forked process: the fork
    kept the handler but not the timer (interval timers are not inherited), so it
    samples nothing here and may be replaced (and is put back at stop)."""
    owner = getattr(handler, "__self__", None)
    return isinstance(owner, CpuSampler) and owner._pid != os.getpid()


class CpuSampler:
    """Samples the running Python stack every *interval_s* of CPU time.

    *current* returns the tracer's record of the running greenlet (``.gid``,
    ``.name``, ``.open``: open sections with ``.name``) or None."""

    def __init__(self, current: Callable[[], Any], interval_s: float = DEFAULT_INTERVAL_S,
                 budget: float = DEFAULT_BUDGET, max_depth: int = MAX_SAMPLE_DEPTH) -> None:
        if not isinstance(interval_s, (int, float)) or isinstance(interval_s, bool) \
                or not MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S:
            raise ValueError(f"CPU sampling interval must be {MIN_INTERVAL_S}-"
                             f"{MAX_INTERVAL_S} s, got {interval_s!r}")
        if not isinstance(budget, (int, float)) or isinstance(budget, bool) \
                or not 0 < budget <= 1:
            raise ValueError(f"CPU sampling budget must be a share in (0, 1], got {budget!r}")
        self._current = current
        self.interval_s = float(interval_s)
        self.budget = float(budget)
        self.max_depth = max_depth
        self._interval = self.interval_s  # in force now
        # (greenlet name, sections, (code, lasti, code, lasti, ...)) -> [count, cpu, gid]
        self._table: dict[tuple[Any, ...], list[Any]] = {}
        self._last_cpu = 0.0
        # A sample's weight (see _weigh): the CPU a tick usually stands for, and the
        # totals measured and given out, to scale the given back to the measured.
        # The typical gap starts at the interval asked for, not at the first gap: that
        # one may be ticks collapsed in a C call, and every later ordinary sample then
        # weighed that much (a 4-call PBKDF2 greenlet lost a third of its CPU to the
        # samples around it under load).
        self._typical = self.interval_s
        self._measured_s = self._given_s = 0.0
        self.ticks_counted = False  # whether _sigticks counts deliveries (start)
        self._cost = TYPICAL_SAMPLE_COST_S  # moving average of a sample's CPU
        self.overhead_s = 0.0
        self.errors = 0
        self.dropped = 0
        self.running = False
        self.unavailable: str | None = None
        self._prev_handler: Any = None
        self._prev_timer: tuple[float, float] = (0.0, 0.0)
        self._pid = os.getpid()
        self._labeler = Labeler({})  # line numbers looked up once per code object

    # -- lifecycle -----------------------------------------------------------------
    def start(self) -> bool:
        """Install the handler and arm the timer; False (with ``unavailable`` set) when
        sampling cannot run here.  Never raises for that reason."""
        reason = unavailable_reason()
        if reason is not None:
            self.unavailable = reason
            return False
        self._prev_handler = signal.getsignal(signal.SIGPROF)
        self._pid = os.getpid()
        self._last_cpu = time.thread_time()
        signal.signal(signal.SIGPROF, self._on_sigprof)
        signal.siginterrupt(signal.SIGPROF, False)  # SA_RESTART: see the module doc
        # (after siginterrupt, which rewrites the action: the wrapper copies its flags)
        self.ticks_counted = SIGTICKS is not None and SIGTICKS.install()
        self._prev_timer = signal.setitimer(signal.ITIMER_PROF, self._interval, self._interval)
        self.running = True
        return True

    def stop(self) -> None:
        """Disarm the timer first (no tick may find the old handler gone), then put
        back the handler and timer found at start."""
        if not self.running:
            return
        self.running = False
        if self.ticks_counted:
            SIGTICKS.remove()  # (leaves a handler installed since alone)
        if signal.getsignal(signal.SIGPROF) != self._on_sigprof:
            return  # someone took SIGPROF over since (another profiler): theirs stay,
            # their timer too
        signal.setitimer(signal.ITIMER_PROF, 0.0, 0.0)
        signal.signal(signal.SIGPROF, self._prev_handler
                      if self._prev_handler is not None else signal.SIG_DFL)
        if self._prev_timer != (0.0, 0.0):
            signal.setitimer(signal.ITIMER_PROF, *self._prev_timer)

    # -- the handler ---------------------------------------------------------------
    def _on_sigprof(self, signum: int, frame: Any) -> None:
        now = time.thread_time()
        try:
            weight = self._weigh(now - self._last_cpu,
                                 SIGTICKS.take() if self.ticks_counted else None)
            self._last_cpu = now
            # A tick that fires while this handler runs (or a function it calls) runs
            # it again inside itself, and that nested run may carry the whole CPU gap
            # (a C call's, collapsed): it belongs to the program the outer run
            # interrupted, not to the sampler.  So do the samples the tracer's own
            # garbage-collection callback takes.
            while frame is not None and (frame.f_code.co_filename == _OWN_FILE
                                         or frame.f_code in _OWN_CODES):
                frame = frame.f_back
            codes: list[Any] = []
            depth = self.max_depth
            while frame is not None and depth:
                codes.append(frame.f_code)
                codes.append(frame.f_lasti)
                frame = frame.f_back
                depth -= 1
            if frame is not None:
                codes.append(TRUNCATED)
            rec = self._current()
            if rec is None:
                name, gid, sections = UNKNOWN_GREENLET, None, ()
            else:
                opened = rec.open
                name, gid = rec.name or "greenlet", rec.gid
                sections = tuple([o.name for o in opened]) if opened else ()
            key = (name, sections, tuple(codes))
            table = self._table
            row = table.get(key)
            if row is None:
                if len(table) >= MAX_SAMPLED_STACKS:
                    self.dropped += 1
                    key = _OTHER_KEY
                    row = table.get(key)
                if row is None:
                    row = table[key] = [0, 0.0, None]
            row[0] += 1
            row[1] += weight
            row[2] = gid
            self._adapt(time.thread_time() - now)
        except Exception:  # never into the program (KeyboardInterrupt and the like
            # raised by the program's own handlers inside ours are theirs: not caught)
            self.errors += 1
            if self.errors >= MAX_HANDLER_ERRORS:
                self.unavailable = f"stopped after {self.errors} errors in the sampler"
                self.stop()

    def _adapt(self, cost: float) -> None:
        """Keep the handler's share of the CPU under the budget: interval >= cost /
        budget, never below the configured interval."""
        self.overhead_s += cost
        cost += SIGNAL_DELIVERY_COST_S
        self._cost += COST_SMOOTHING * (cost - self._cost)
        wanted = min(MAX_INTERVAL_S, MAX_GROWTH_PER_SAMPLE * self._interval,
                     max(self.interval_s, self._cost / self.budget))
        # (only while running: a late tick handled after stop() must not re-arm a
        # timer whose signal nobody handles any more, which would kill the process)
        if self.running and abs(wanted - self._interval) > REARM_CHANGE * self._interval:
            self._interval = wanted
            signal.setitimer(signal.ITIMER_PROF, wanted, wanted)

    # -- the result ----------------------------------------------------------------
    def _weigh(self, spent: float, delivered: int | None) -> float:
        """A sample's weight from the thread CPU *spent* since the previous one, and
        the ticks *delivered* since (None when they are not counted).

        Ticks collapsed into one sample (a long C call, handled when it returns) carry
        all of it.  Otherwise a sample stands for one tick's worth, the moving average:
        on a busy machine ticks land unevenly against the thread's CPU clock, and
        weighting each by its own gap made two greenlets burning CPU 1:3 come out
        between 1:2.5 and 1:4 under two CPU hogs while the counts of samples stayed
        within 1:3 +- 6 %.  A long gap alone does not mean collapsed ticks: under two
        hogs the kernel delivered no tick for 50-250 ms of CPU some 20 times a run,
        and charging those gaps whole moved the 1:3 of CPU to 1:2.4-1:3.8.  So where
        the deliveries are counted, only a sample that more than one tick waited for
        carries its gap.  result() scales the weights so their total is the CPU
        measured."""
        typical = self._typical
        self._measured_s += spent
        if delivered is None:
            collapsed = spent > COLLAPSED_TICKS * typical
        else:
            collapsed = delivered > 1
        weight = spent if collapsed else typical
        # Collapsed gaps move the average too, as far as COLLAPSED_TICKS typical ones:
        # where the kernel's tick is coarser than the interval asked for (4 ms ticks
        # under a 1 ms interval), every gap first looks collapsed, and the average must
        # still climb to the real tick.
        self._typical = typical + (min(spent, COLLAPSED_TICKS * typical) - typical) \
            * TYPICAL_SMOOTHING
        self._given_s += weight
        return weight

    def result(self) -> CpuSamples:
        """The samples as plain data (labels looked up now, once per code object)."""
        labeler = self._labeler
        out = CpuSamples(interval_s=self.interval_s, budget=self.budget,
                         final_interval_s=self._interval, overhead_s=self.overhead_s,
                         errors=self.errors, dropped=self.dropped,
                         unavailable=self.unavailable, libraries=facts())
        index: dict[Any, int] = {}
        merged: dict[tuple[Any, ...], SampledStack] = {}
        scale = self._measured_s / self._given_s if self._given_s > 0 else 1.0

        def frame_index(label: str, first: int) -> int:
            at = index.get((label, first))
            if at is None:
                at = index[(label, first)] = len(out.frames)
                out.frames.append(label)
                out.first_lines.append(first)
            return at

        # list(): one C call, so a tick (a handler adding a key) cannot land inside
        # the iteration when a snapshot is taken while sampling runs.
        for (name, sections, codes), (count, cpu, gid) in list(self._table.items()):
            frames = []
            for i in range(0, len(codes) - 1, 2):
                code = codes[i]
                frames.append(frame_index(labeler.label(code, codes[i + 1]),
                                          code.co_firstlineno))
            if codes and codes[-1] is TRUNCATED:
                frames.append(frame_index(TRUNCATED, 0))
            if sections and codes and codes[0] is not TRUNCATED and \
                    codes[0].co_filename.replace("\\", "/").endswith(SECTION_WRAPPERS_FILE):
                # The wrapper is where Python handed over to the C parser: the CPU is
                # the parser's, shown as its own frame under the wrapper.
                frames.insert(0, frame_index(sections[-1] + C_FUNCTION_SUFFIX, 0))
            if name == OTHER:
                frames = [frame_index(OTHER, 0)]
            # offsets of one line share a label: their samples are one entry
            entry = merged.get((name, sections, tuple(frames)))
            if entry is None:
                entry = merged[(name, sections, tuple(frames))] = SampledStack(
                    frames=frames, greenlet=name, sections=list(sections))
            entry.count += count
            entry.cpu_s += cpu * scale
            entry.gid = gid if gid is not None else entry.gid
        out.stacks = sorted(merged.values(), key=lambda s: -s.cpu_s)
        if not self.running:  # let the code objects go
            self._table = {}
            self._labeler = Labeler({})
        return out



# The handler's file: its frames, and those of every function it calls (the weighing,
# the interval's adaptation, the lambda that reads the running greenlet), are skipped
# in a sample (see _on_sigprof).
_OWN_FILE = CpuSampler._on_sigprof.__code__.co_filename
# Other frames of geventperf's own run inside the program: skipped, the sample is their
# caller's.  The garbage-collection watch's callback is the first Python code to run
# inside a C call that allocates (a parser building objects), so a tick that came due
# during the call is handled there: all of the C call's samples would be the
# callback's.
_OWN_CODES = frozenset({GcWatch._callback.__code__})


def interval_option(value: Any) -> float | None:
    """The Tracer's ``cpu_samples`` argument as an interval: True for the default, a
    number of CPU seconds, False/None/0 for no sampling.  ValueError otherwise."""
    if value is None or value is False or (value == 0 and not isinstance(value, bool)):
        return None
    if value is True:
        return DEFAULT_INTERVAL_S
    if isinstance(value, (int, float)) and MIN_INTERVAL_S <= value <= MAX_INTERVAL_S:
        return float(value)
    raise ValueError(f"cpu_samples must be True, False or an interval of {MIN_INTERVAL_S}-"
                     f"{MAX_INTERVAL_S} CPU seconds, got {value!r}")


def start_sampler(state: Any, interval_s: float | None,
                  budget: float = DEFAULT_BUDGET) -> CpuSampler | None:
    """A started sampler tagging samples with ``state.cur`` (the tracer's running
    greenlet record); None when *interval_s* is None.  A sampler that could not start
    is returned too: its result says why (``unavailable``)."""
    if interval_s is None:
        return None
    sampler = CpuSampler(lambda: state.cur, interval_s, budget)
    sampler.start()
    return sampler
