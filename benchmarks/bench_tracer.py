"""Tracer hot path: nanoseconds per greenlet switch.

Two raw greenlets switch to each other SWITCHES times per round (each ``switch()`` is
one traced switch); every row runs the same loop with a different trace function
installed:

* no trace function (the baseline);
* a no-op ``greenlet.settrace`` function (the floor of any Python tracer);
* geventperf ``Tracer()`` (default: cpu_clock=True, stacks=True);
* geventperf ``Tracer(cpu_clock=False)``;
* geventperf ``Tracer(cpu_clock=False, stacks=False)``;
* yappi in greenlet mode (skipped if yappi is not installed).

The greenlets are shallow (2 frames each), so the stack walk is as short as it gets;
real gevent stacks are 10-24 frames, which the ``geventperf-default-depth20`` row
measures (the walk stops at MAX_STACK_DEPTH = 24 frames).
``extra_info["ns_per_switch"]`` is the median over rounds measured inside the loop, so
it is there with --benchmark-disable too.  Run::

    python -m pytest benchmarks/bench_tracer.py --benchmark-enable --benchmark-only

Measured 2026-11-21 (2-core VM shared with other jobs, load ~1.8; C hot path; medians,
ns per switch; overhead = row - no tracer):

    no tracer 191 | no-op settrace 409 (noisy; +160..220 in other runs)
    geventperf cpu_clock=False, stacks=False 429 (+238) | cpu_clock=False 458 (+267)
    geventperf default 1550 (+1360) | default at depth 20: 1980 (+1790)
    yappi greenlet mode 3610 (+3420)

The CPU clock is a system call (~0.7 us here under load), most of the default's cost.
The pure-Python fallback (GEVENTPERF_PURE=1) adds ~2-3 us per switch.
"""

from __future__ import annotations

import operator
import statistics
import time
from typing import Any, Callable

import gevent
import greenlet
import pytest

from geventperf import Tracer
from geventperf import tracer as tracer_mod

GROUP = "tracer: ns per greenlet switch"
SWITCHES = 20_000  # per round: ~5-60 ms, long enough to swamp timer noise
QUICK_SWITCHES = 2_000
ROUNDS = 15
DEEP = 20  # frames below each greenlet's run function in the -depth20 row


def ping_pong(switches: int, depth: int = 0) -> Callable[[], float]:
    """A round: two fresh greenlets switch *switches* times, each *depth* frames below
    its run function; returns seconds."""

    def nested(levels: int, func: Callable[[], Any]) -> Any:
        return func() if levels <= 0 else nested(levels - 1, func)

    def round_() -> float:
        def pong() -> None:
            while True:
                ping_g.switch()

        def ping() -> float:
            return nested(depth, ping_loop)

        def ping_loop() -> float:
            start = time.perf_counter()
            for _ in range(switches // 2):
                pong_g.switch()
            return time.perf_counter() - start

        pong_g = greenlet.greenlet(lambda: nested(depth, pong))
        ping_g = greenlet.greenlet(ping)
        elapsed = ping_g.switch()
        pong_g.throw(greenlet.GreenletExit)  # end it now, not at collection time
        return elapsed

    return round_


class _NoopTrace:
    """A no-op trace function in C (operator.is_ takes two arguments and does
    nothing): the floor of any tracer on greenlet.settrace."""

    def start(self) -> None:
        self.previous = greenlet.settrace(operator.is_)

    def stop(self) -> None:
        greenlet.settrace(self.previous)


class _Yappi:
    def __init__(self) -> None:
        self.yappi = pytest.importorskip("yappi", reason="yappi not installed")

    def start(self) -> None:
        self.yappi.set_context_backend("greenlet")
        self.yappi.set_clock_type("cpu")
        self.yappi.start()

    def stop(self) -> None:
        self.yappi.stop()
        self.yappi.clear_stats()


class _Tracer:
    def __init__(self, **options: Any) -> None:
        self.options = options

    def start(self) -> None:
        self.tracer = Tracer(sections=None, max_slices=1_000, **self.options).start()

    def stop(self) -> None:
        self.tracer.stop()


ROWS: dict[str, Callable[[], Any]] = {
    "no-tracer": lambda: None,
    "noop-settrace": _NoopTrace,
    "geventperf-default": _Tracer,
    "geventperf-switch-clock": lambda: _Tracer(cpu_clock="switch"),
    "geventperf-no-cpu-clock": lambda: _Tracer(cpu_clock=False),
    "geventperf-no-cpu-no-stacks": lambda: _Tracer(cpu_clock=False, stacks=False),
    # the default at a gevent-like depth: the stack walk reads 20+ frames per switch
    "geventperf-default-depth20": _Tracer,
    "yappi-greenlet": _Yappi,
}


@pytest.mark.parametrize("row", list(ROWS))
def test_switch_cost(benchmark, row, quick):
    switches = QUICK_SWITCHES if quick else SWITCHES
    probe = ROWS[row]()
    timings: list[float] = []
    run = ping_pong(switches, DEEP if row.endswith("-depth20") else 0)

    def timed() -> None:
        timings.append(run())

    benchmark.group = GROUP  # before the run: pytest-benchmark reads it then
    if probe is not None:
        probe.start()
    try:
        benchmark.pedantic(timed, rounds=3 if quick else ROUNDS, iterations=1,
                           warmup_rounds=1)
    finally:
        if probe is not None:
            probe.stop()
    benchmark.extra_info["ns_per_switch"] = statistics.median(timings) / switches * 1e9
    benchmark.extra_info["switches_per_round"] = switches
    benchmark.extra_info["hot_path"] = "c" if tracer_mod._ctrace is not None else "python"
    if row == "no-tracer":
        benchmark.extra_info["baseline"] = True
    assert timings and all(t > 0 for t in timings)


# The interleaved table: every mode once per repetition, in turn, so load that drifts
# over seconds hits all alike; the goals are stated as ratios of added cost to the
# no-op C trace function's.
TABLE_MODES: dict[str, Callable[[], Any]] = {
    mode: ROWS[row] for mode, row in (
        ("none", "no-tracer"), ("noop-c", "noop-settrace"), ("default", "geventperf-default"),
        ("switch-clock", "geventperf-switch-clock"),
        ("no-cpu-clock", "geventperf-no-cpu-clock"), ("yappi", "yappi-greenlet"))}
TABLE_REPS = 9
TABLE_ROUNDS = 3  # rounds per mode and repetition; their median is the repetition's


def test_switch_cost_interleaved(benchmark, quick):
    """extra_info: for each mode and depth, the added ns per switch over no tracer
    (median over the repetitions) and, for the tracer's modes, that over the no-op C
    trace function's added ns."""
    switches = QUICK_SWITCHES if quick else SWITCHES
    reps = 2 if quick else TABLE_REPS
    modes = dict(TABLE_MODES)
    try:
        modes["yappi"]()
    except pytest.skip.Exception:
        del modes["yappi"]
    per_switch: dict[tuple[str, int], list[float]] = {}

    def table() -> None:
        for depth in (0, DEEP):
            run = ping_pong(switches, depth)
            for _ in range(reps):
                for mode, make in modes.items():
                    probe = make()
                    if probe is not None:
                        probe.start()
                    try:
                        taken = statistics.median(run() for _ in range(TABLE_ROUNDS))
                    finally:
                        if probe is not None:
                            probe.stop()
                    per_switch.setdefault((mode, depth), []).append(taken / switches * 1e9)

    benchmark.group = GROUP + " (interleaved table)"
    benchmark.pedantic(table, rounds=1, iterations=1)
    for depth in (0, DEEP):
        base = statistics.median(per_switch[("none", depth)])
        benchmark.extra_info[f"none_ns@{depth}"] = round(base)
        added = {mode: statistics.median(per_switch[(mode, depth)]) - base
                 for mode in modes if mode != "none"}
        for mode, ns in added.items():
            benchmark.extra_info[f"{mode}_added_ns@{depth}"] = round(ns)
        for mode in ("default", "switch-clock", "no-cpu-clock"):
            benchmark.extra_info[f"{mode}_vs_noop@{depth}"] = round(
                added[mode] / added["noop-c"], 2)
    benchmark.extra_info["hot_path"] = "c" if tracer_mod._ctrace is not None else "python"
    assert all(len(v) == reps for v in per_switch.values())


def _added_table(benchmark: Any, group: str, modes: dict[str, dict[str, Any] | None],
                 measure: Callable[[], float], reps: int, digits: int,
                 before: Callable[[str], None] | None = None) -> None:
    """Run *measure* (seconds per operation) under each mode in turn, *reps* times
    (median of TABLE_ROUNDS each; mode None: no tracer), after one warm-up; extra_info:
    µs with no tracer and what each mode adds, medians over the repetitions."""
    per: dict[str, list[float]] = {mode: [] for mode in modes}
    hot_path = "c" if tracer_mod._ctrace is not None else "python"  # before any *before*

    def table() -> None:
        measure()  # warm up gevent's and the tracer's paths
        for _ in range(reps):
            for mode, options in modes.items():
                if before is not None:
                    before(mode)
                tracer = None if options is None else Tracer(**options).start()
                try:
                    taken = statistics.median(measure() for _ in range(TABLE_ROUNDS))
                finally:
                    if tracer is not None:
                        tracer.stop()
                per[mode].append(taken * 1e6)

    benchmark.group = group
    benchmark.pedantic(table, rounds=1, iterations=1)
    base = statistics.median(per["none"])
    benchmark.extra_info["none_us"] = round(base, digits)
    for mode in modes:
        if mode != "none":
            benchmark.extra_info[f"{mode}_added_us"] = round(
                statistics.median(per[mode]) - base, digits)
    benchmark.extra_info["hot_path"] = hot_path
    assert all(len(v) == reps for v in per.values())


# What the tracer adds per greenlet, beyond its switches: a record (name, origin,
# spawner, weakref) when the greenlet first runs, and its folding when it dies.  A
# service that spawns a greenlet per request or connection pays this on each one.
SPAWN_BATCH = 100  # greenlets spawned, then joined, at a time (a pool's burst)
SPAWN_BATCHES = 20
QUICK_SPAWN_BATCHES = 2
SPAWN_MODES: dict[str, dict[str, Any] | None] = {
    "none": None, "default": {}, "no-cpu-clock": {"cpu_clock": False}}


def spawn_join(batches: int) -> float:
    """Seconds per greenlet to spawn and join *batches* x SPAWN_BATCH trivial ones."""

    def job() -> None:
        pass

    start = time.perf_counter()
    for _ in range(batches):
        gevent.joinall([gevent.spawn(job) for _ in range(SPAWN_BATCH)])
    return (time.perf_counter() - start) / (batches * SPAWN_BATCH)


def test_greenlet_cost_interleaved(benchmark, quick):
    """extra_info: µs per greenlet with no tracer, and what each mode adds (median
    over repetitions that run every mode in turn); the tracer is started before and
    stopped after the timed spawns, so its profile build is not counted here."""
    batches = QUICK_SPAWN_BATCHES if quick else SPAWN_BATCHES
    reps = 2 if quick else TABLE_REPS
    _added_table(benchmark, "tracer: µs per spawned greenlet (interleaved table)",
                 SPAWN_MODES, lambda: spawn_join(batches), reps, digits=2)


# What a wrapped C section (json.loads, lxml, ...) adds per call, beyond the call: the
# section's enter and exit, with its CPU read at both in the clock modes that read it.
# A service parsing many small documents (JSON lines) pays it on each one.
SECTION_CALLS = 20_000
QUICK_SECTION_CALLS = 2_000
SECTION_DOC = '{"id": 17, "tags": ["a", "b", "c"], "name": "' + "x" * 40 + '"}'
SECTION_MODES: dict[str, dict[str, Any] | None] = {
    "none": None, "default": {}, "no-cpu-clock": {"cpu_clock": False},
    # the pure-Python hot path: what the C section path saves, in the same run
    "default-python": {}}


def json_calls(calls: int) -> float:
    """Seconds per json.loads of a small document (wrapped as a section when traced)."""
    import json
    start = time.perf_counter()
    for _ in range(calls):
        json.loads(SECTION_DOC)
    return (time.perf_counter() - start) / calls


def test_section_cost_interleaved(benchmark, quick, monkeypatch):
    """extra_info: µs per json.loads with no tracer, and what each mode adds (median
    over repetitions that run every mode in turn)."""
    calls = QUICK_SECTION_CALLS if quick else SECTION_CALLS
    reps = 2 if quick else TABLE_REPS
    c_path = tracer_mod._ctrace

    def on_path(mode: str) -> None:
        monkeypatch.setattr(tracer_mod, "_ctrace", None if mode.endswith("-python") else c_path)

    _added_table(benchmark, "tracer: µs per wrapped json.loads (interleaved table)",
                 SECTION_MODES, lambda: json_calls(calls), reps, digits=3, before=on_path)
