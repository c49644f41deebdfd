"""The interval CPU clock (geventperf/trace/cpuclock.py): its rule on a made-up clock,
and its accuracy against exact accounting on real gevent workloads, in every clock mode
and on both hot paths.

The exact accounting is taken in the same run: a reference trace function, installed
over the Tracer's and chaining to it, reads ``time.thread_time()`` at every switch and
charges the CPU since the previous switch to the greenlet that switched out.  Both read
their clocks before the Tracer's bookkeeping, so both charge that work to the greenlet
switched to (installed the other way round, the reference would charge it to the one
leaving, and on a loaded machine that difference alone exceeds the bound).
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import gevent
import greenlet
import pytest

from geventperf import Tracer
from geventperf.trace.cpuclock import CpuSpread
from geventperf.trace.runqueue import run_delay_s
from tests import tracer_impl
from tests.clocks import CPU_MODES

impl = tracer_impl.impl

# The bound: per greenlet, CPU within 5 % or 2 ms (the larger) of exact.
CPU_SHARE_BOUND = 0.05
CPU_ABS_BOUND_S = 2e-3
# Plus, on a crowded machine, the time the thread waited for a CPU during the run
# (Linux's run_delay): a slice shorter than the read interval that lost the CPU for
# part of it looks busy without burning CPU, and takes that much of its neighbours'
# share.  Measured, not guessed: on a quiet machine it is ~0 and the bound is the
# issue's.  (Seen: 2.04 ms on a 2 ms bound with the load average at 6.)
# CPU bursts between yields, in ms (0.2-20 ms: from below the read interval, where
# slices share a reading, to loop-blocking lengths); each worker starts elsewhere in
# the cycle and repeats it, so the workers' slices interleave at every length.
BURSTS_MS = (0.2, 0.5, 1.0, 2.0, 5.0, 20.0, 0.3, 0.2, 3.0, 0.7)


def burn(seconds: float) -> None:
    """Use *seconds* of this thread's CPU (exact whatever the machine's load)."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass


class ExactCpu:
    """The reference: CPU per greenlet with a clock read at every switch; then calls
    the trace function it was installed over."""

    def __init__(self, chain: Any) -> None:
        self.cpu: dict[Any, float] = {}
        self.chain = chain
        self.last = time.thread_time()

    def __call__(self, event: str, args: Any) -> None:
        if event in ("switch", "throw"):
            now = time.thread_time()
            origin = args[0]
            self.cpu[origin] = self.cpu.get(origin, 0.0) + now - self.last
            self.last = now
        self.chain(event, args)


class Run(NamedTuple):
    profile: Any
    exact: dict[str, float]  # the reference's CPU per worker name
    returned: dict[str, Any]  # what each worker returned
    crowded_s: float  # the thread's run_delay during the run


def run_with_reference(mode: str, workers: dict[str, Any]) -> Run:
    """Run the *workers* (name -> function) under a Tracer in clock *mode* chained to
    the reference."""
    delay0 = run_delay_s() or 0.0
    with Tracer(cpu_clock=mode, block_threshold=0.01) as tracer:
        reference = ExactCpu(chain=greenlet.gettrace())
        greenlet.settrace(reference)
        try:
            jobs = []
            for name, func in workers.items():
                job = gevent.Greenlet(func)
                job.name = name
                jobs.append(job)
                job.start()
            gevent.joinall(jobs, raise_error=True)
        finally:
            greenlet.settrace(reference.chain)
    return Run(tracer.profile, {job.name: reference.cpu.get(job, 0.0) for job in jobs},
               {job.name: job.value for job in jobs}, (run_delay_s() or 0.0) - delay0)


def assert_close(run: Run) -> None:
    exact = run.exact
    got = {g.name: g.cpu_s for g in run.profile.greenlets if g.name in exact}
    assert sorted(got) == sorted(exact)
    for name, truth in exact.items():
        bound = max(CPU_SHARE_BOUND * truth, CPU_ABS_BOUND_S) + run.crowded_s
        assert abs(got[name] - truth) <= bound, (name, got[name], truth, got, exact)


def bursty(offset: int, scale: float, pause: float) -> Any:
    def work() -> float:
        used = 0.0
        for i in range(len(BURSTS_MS) * 2):
            ms = BURSTS_MS[(i + offset) % len(BURSTS_MS)] * scale
            before = time.thread_time()
            burn(ms / 1000)
            used += time.thread_time() - before
            gevent.sleep(pause if i % 2 else 0)  # a timer through the hub's poll, or
            # straight back to the ready queue
        return used
    return work


@pytest.mark.parametrize("cpu_mode", CPU_MODES)
def test_cpu_of_bursty_greenlets_matches_exact_accounting(impl, cpu_mode):
    workers = {f"burst-{i}": bursty(offset=3 * i, scale=1 + i / 2, pause=0.0005)
               for i in range(4)}
    run = run_with_reference(cpu_mode, workers)
    assert_close(run)
    profile = run.profile
    for g in profile.greenlets:  # the bursts measured inside each worker, in its slices
        if g.name in run.exact:
            assert g.cpu_s >= run.returned[g.name] - CPU_ABS_BOUND_S - run.crowded_s
    if cpu_mode == "interval":  # and the clock was read far less than once a switch
        assert 0 < profile.meta["cpu_clock_reads"] < profile.switches / 2


def blocker(rounds: int, sleep_s: float) -> Any:
    def work() -> None:
        for i in range(rounds):
            burn(0.001 + 0.001 * (i % 3))
            time.sleep(sleep_s)  # not patched: blocks the loop, off the CPU
            gevent.sleep(0)
    return work


@pytest.mark.parametrize("cpu_mode", CPU_MODES)
def test_loop_blocking_call_keeps_its_cpu_apart(impl, cpu_mode):
    rounds, sleep_s = 12, 0.004
    workers = {"blocker": blocker(rounds, sleep_s),
               "burst-0": bursty(offset=0, scale=1, pause=0),
               "burst-1": bursty(offset=5, scale=0.5, pause=0.0005)}
    run = run_with_reference(cpu_mode, workers)
    assert_close(run)
    profile = run.profile
    g = next(g for g in profile.greenlets if g.name == "blocker")
    # off the CPU for the sleeps: wall minus CPU holds them (the CPU clock and the wall
    # clock disagree by up to a few percent over short spans: tests/clocks.py)
    assert g.run_s - g.cpu_s >= 0.9 * rounds * sleep_s


# -- the rule, on a made-up clock ------------------------------------------------------

class Rec:
    def __init__(self) -> None:
        self.cpu = 0.0


class FakeClock:
    def __init__(self) -> None:
        self.value = 0.0

    def __call__(self) -> float:
        return self.value


def test_spread_shares_a_reading_by_busy_wall_and_reads_long_slices_at_once():
    clock = FakeClock()
    spread = CpuSpread(clock=clock, interval=1e-3, pending_max=100)
    spread.start(now=0.0, idle=0.0)
    a, b, hub = Rec(), Rec(), Rec()
    row_a = Rec()
    # three short slices: a 0.2 ms, the hub 0.3 ms of which 0.2 blocked in a poll, b 0.2
    assert spread.end_slice(a, row_a, now=0.0002, idle=0.0, ran=0.0002, force=False) is None
    assert spread.end_slice(hub, None, now=0.0005, idle=0.0002, ran=0.0003,
                            force=False) is None
    assert spread.end_slice(b, None, now=0.0007, idle=0.0002, ran=0.0002,
                            force=False) is None
    assert a.cpu == b.cpu == hub.cpu == 0.0 and spread.reads == 0
    # a's next slice lasts 2 ms: read at once; busy wall 0.2 + 0.1 + 0.2 + 2.0 ms
    clock.value = 0.0025
    ran_cpu = spread.end_slice(a, row_a, now=0.0027, idle=0.0002, ran=0.002, force=False)
    per = 0.0025 / 0.0025
    assert ran_cpu == pytest.approx(0.002 * per)
    assert a.cpu == pytest.approx(0.0022 * per) and row_a.cpu == pytest.approx(0.0022 * per)
    assert hub.cpu == pytest.approx(0.0001 * per) and b.cpu == pytest.approx(0.0002 * per)
    assert spread.reads == 1 and not spread.pending


def test_a_long_slice_gets_what_its_short_predecessors_did_not_use():
    """The blocking call's case: a long slice that mostly slept, after CPU-dense short
    ones.  Shared by wall, the sleeper would take most of its neighbours' CPU."""
    clock = FakeClock()
    spread = CpuSpread(clock=clock, interval=1e-3)
    spread.start(now=0.0, idle=0.0)
    burst, sleeper = Rec(), Rec()
    spread.end_slice(burst, None, now=0.0005, idle=0.0, ran=0.0005, force=False)
    clock.value = 0.0015  # 0.5 ms of the burst, 1 ms of the sleeper's 5 ms slice
    ran_cpu = spread.end_slice(sleeper, None, now=0.0055, idle=0.0, ran=0.005, force=False)
    assert ran_cpu == pytest.approx(0.001) and sleeper.cpu == pytest.approx(0.001)
    assert burst.cpu == pytest.approx(0.0005)


def test_spread_sync_credits_the_running_slice_and_forced_reads():
    clock = FakeClock()
    spread = CpuSpread(clock=clock, interval=1e-3, pending_max=2)
    spread.start(now=0.0, idle=0.0)
    a, b = Rec(), Rec()
    spread.end_slice(a, None, now=0.0001, idle=0.0, ran=0.0001, force=False)
    clock.value = 0.0003
    spread.sync(b, now=0.0003, idle=0.0)  # b entered a section: exact up to now
    assert a.cpu == pytest.approx(0.0001) and b.cpu == pytest.approx(0.0002)
    clock.value = 0.0004
    ran_cpu = spread.end_slice(b, None, now=0.0004, idle=0.0, ran=0.0003, force=True)
    assert ran_cpu == pytest.approx(0.0003) and b.cpu == pytest.approx(0.0003)
    # pending_max bounds the slices waiting: the third one forces a read
    spread.end_slice(a, None, now=0.0005, idle=0.0, ran=0.0001, force=False)
    spread.end_slice(b, None, now=0.0006, idle=0.0, ran=0.0001, force=False)
    assert spread.reads == 2 and len(spread.pending) == 2
    clock.value = 0.0007
    assert spread.end_slice(a, None, now=0.0007, idle=0.0, ran=0.0001,
                            force=False) is not None
    assert spread.reads == 3 and a.cpu + b.cpu == pytest.approx(0.0007)


def test_spread_gives_an_all_idle_reading_to_the_current_slice():
    clock = FakeClock()
    spread = CpuSpread(clock=clock, interval=1e-3)
    spread.start(now=0.0, idle=0.0)
    hub = Rec()
    clock.value = 1e-5  # the poll's own few microseconds
    spread.end_slice(hub, None, now=0.005, idle=0.005, ran=0.005, force=False)
    assert hub.cpu == pytest.approx(1e-5)
