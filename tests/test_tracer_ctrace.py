"""The C hot path (geventperf._ctrace) against the pure-Python one: same clocks, same
profile for the same workload, and the switch that selects between them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import gevent
import greenlet
import pytest

from geventperf import Tracer, section
from geventperf import tracer as tracer_mod
from geventperf.trace.wallclock import tsc_allowed
from tests import tracer_impl

# Runs each test taking `impl` on every hot path: the C extension and pure Python.
impl = tracer_impl.impl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def c_extension():
    """The built extension; fails without it (see tests/tracer_impl.py)."""
    tracer_impl.require_c_extension()
    return tracer_mod.C_EXTENSION


def selected_impl(env_pure: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "GEVENTPERF_PURE"}
    if env_pure is not None:
        env["GEVENTPERF_PURE"] = env_pure
    code = "from geventperf import tracer; print(tracer._ctrace is not None)"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_geventperf_pure_selects_the_python_hot_path():
    assert selected_impl("1") == "False"
    assert selected_impl("0") == selected_impl(None) == str(tracer_mod.C_EXTENSION is not None)


def test_c_clocks_are_the_python_clocks(c_extension):
    c = c_extension
    before, now, after = time.perf_counter(), c.monotonic(), time.perf_counter()
    assert before <= now <= after
    before, now, after = time.thread_time(), c.thread_time(), time.thread_time()
    assert before <= now <= after


# The TSC clock's bound on its distance from the kernel's (TSC_MAX_ERROR_S in _ctrace.c):
# an anchor finding it further off gives the TSC up.
TSC_MAX_ERROR_S = 5e-6


def test_the_tsc_clock_reads_the_kernel_clock(c_extension):
    """Bracketed by perf_counter reads over 30 ms: the first rate measurement (5 ms),
    then ~150 anchors. A preempted thread only widens the bracket. It never goes back
    (a timeline's events would overlap)."""
    c = c_extension
    if not c.wall_clock_state()["tsc"] or not tsc_allowed():
        pytest.skip("the kernel does not keep time by the TSC here")
    worst = 0.0
    last = steps_back = 0
    start = time.perf_counter()
    while time.perf_counter() - start < 0.03:
        before, now, after = time.perf_counter(), c.wall_time(True), time.perf_counter()
        worst = max(worst, before - now, now - after)
        steps_back += now < last
        last = now
    assert steps_back == 0
    state = c.wall_clock_state()
    assert not state["dropped"], state
    assert state["per_tick"] > 0 and state["anchors"] > 0, state
    assert worst <= TSC_MAX_ERROR_S, f"the TSC clock was {worst * 1e9:.0f} ns off"
    before, now, after = time.perf_counter(), c.wall_time(False), time.perf_counter()
    assert before <= now <= after


def run_tsc_child(c_extension, body: str) -> None:
    """Run *body* in a child process (the TSC clock is the process's) after the TSC's
    rate has been measured there; it must print "ok"."""
    if not c_extension.wall_clock_state()["tsc"] or not tsc_allowed():
        pytest.skip("the kernel does not keep time by the TSC here")
    code = textwrap.dedent("""\
        import time
        from geventperf import _ctrace as c
        start = time.perf_counter()
        while time.perf_counter() - start < 0.02:  # the rate is measured
            c.wall_time(True)
        assert c.wall_clock_state()["per_tick"] > 0
        """) + textwrap.dedent(body) + '\nprint("ok")\n'
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_a_tsc_off_the_kernel_clock_is_given_up_for_clock_gettime(c_extension):
    """A TSC that stops keeping the kernel's time (here: its rate made twice what was
    measured) is dropped at the next anchor, without going back past what it read; from
    then on every read is exact."""
    run_tsc_child(c_extension, """\
        c._skew_tsc_rate(2.0)
        last, back = 0.0, 0
        start = time.perf_counter()
        while time.perf_counter() - start < 0.005:  # many anchor periods
            now = c.wall_time(True)
            back += now < last
            last = now
        assert c.wall_clock_state()["dropped"], c.wall_clock_state()
        assert back == 0, back
        for _ in range(1000):
            before, now, after = time.perf_counter(), c.wall_time(True), time.perf_counter()
            assert before <= now <= after
        """)


def test_after_an_idle_gap_the_tsc_clock_reads_the_kernel_clock_again(c_extension):
    """A rate a little off (300 ppm, within what an anchor tolerates) over a 0.3 s gap
    with no read: the first read after it is the kernel's clock, not the error carried
    over the gap, and the clock neither goes back nor freezes."""
    run_tsc_child(c_extension, f"""\
        c._skew_tsc_rate(1.0003)
        before = c.wall_time(True)
        time.sleep(0.3)
        reads = []
        for _ in range(3000):
            reads.append((time.perf_counter(), c.wall_time(True), time.perf_counter()))
        assert not c.wall_clock_state()["dropped"], c.wall_clock_state()
        assert before < reads[0][1]
        assert all(a[1] < b[1] for a, b in zip(reads, reads[1:]))  # forward, not frozen
        worst = max(max(k0 - r, r - k1) for k0, r, k1 in reads)
        assert worst <= {TSC_MAX_ERROR_S!r}, worst
        """)


def test_the_profile_names_the_wall_clock_it_read(impl):
    with Tracer(sections=None) as tracer:
        gevent.sleep(0)
    clock = tracer.profile.meta["wall_clock"]
    if impl == "pure":
        assert clock == {"source": "perf_counter"}
    else:
        dropped = tracer_mod._ctrace.wall_clock_state()["dropped"]
        expected = "tsc" if tsc_allowed() and not dropped else "clock_gettime"
        assert clock["source"] == expected, clock


def workload() -> None:
    def job(n):
        with section("job"):
            for _ in range(n):
                gevent.sleep(0)

    def raw():
        greenlet.getcurrent().parent.switch()

    gevent.joinall([gevent.spawn(job, n) for n in (1, 2, 3)])
    g = greenlet.greenlet(raw)
    g.switch()
    g.switch()


def shape(p):
    """What must not depend on the implementation (times do)."""
    return {
        "greenlets": sorted((g.name, g.switches, g.parent is None) for g in p.greenlets),
        "switches": p.switches,
        "sections": [(s.name, s.calls, s.switches) for s in p.sections],
        "waits": sorted((tuple(w.stack), w.count) for w in p.waits),
        "runs": sorted((tuple(r.stack), r.count) for r in p.runs),
        "slices": len(p.slices),
    }


def traced() -> Tracer:
    with Tracer() as tracer:  # one call site, so the main greenlet's stacks match too
        workload()
    return tracer


def test_c_and_python_hot_paths_build_the_same_profile(c_extension, monkeypatch):
    tracers = []
    for hot_path in (c_extension, None):  # one loop: identical call sites
        monkeypatch.setattr(tracer_mod, "_ctrace", hot_path)
        tracers.append(traced())
    c_tracer, py_tracer = tracers
    assert c_tracer._c and not py_tracer._c
    assert shape(c_tracer.profile) == shape(py_tracer.profile)


def test_bad_switch_arguments_are_counted_not_raised(impl):
    with Tracer() as tracer:
        tracer._trace("switch", ("not", "greenlets", "at all"))
        tracer._trace("switch", None)
        gevent.sleep(0)  # and tracing carries on
    p = tracer.profile
    assert p.trace_errors == 2
    assert p.meta["first_trace_error"]
    assert p.switches >= 2


def test_the_fast_stack_walk_hashes_as_the_public_api_does(c_extension):
    """_ctrace walks CPython 3.11's interpreter frames directly (FAST_FRAME_WALK); it
    must see the same frames, with the same offsets, as PyFrame_GetBack: suspended
    greenlets, a generator and a coroutine below plain calls, and deep stacks cut at
    every depth."""
    def nest(levels, func):
        return func() if levels == 0 else nest(levels - 1, func)

    def gen():
        yield greenlet.getcurrent().parent.switch()

    def coro_body():
        async def coro():
            greenlet.getcurrent().parent.switch()
        c = coro()
        try:
            c.send(None)
        except StopIteration:
            pass

    suspended = []
    for body in (lambda: nest(30, greenlet.getcurrent().parent.switch),
                 lambda: nest(3, lambda: next(gen())),
                 lambda: nest(2, coro_body)):
        g = greenlet.greenlet(body)
        g.switch()
        suspended.append(g)
    frames = [g.gr_frame for g in suspended] + [sys._getframe()]
    for frame in frames:
        for depth in (1, 2, 5, 24, 40):
            fast, api = c_extension.stack_hashes(frame, depth)
            assert fast == api, (frame, depth)
    hashes = {c_extension.stack_hashes(f, 24)[0] for f in frames}
    assert len(hashes) == len(frames)  # different stacks, different hashes
    for g in suspended:
        g.throw(greenlet.GreenletExit)
    assert c_extension.FAST_FRAME_WALK == (sys.version_info[:2] == (3, 11))
