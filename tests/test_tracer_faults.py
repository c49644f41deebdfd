"""The tracer under faults: greenlets killed or dying inside sections, other threads'
hubs, gevent's monitor thread.  The traced program must behave as without the tracer
and the profile must stay consistent.

Consistency, stated: in one thread exactly one greenlet runs at any moment, so the
run time of all greenlets, hub included, adds up to the traced duration.  Tolerance:
5 % of the duration plus 10 ms (the tracer's own start and stop, and clock reads that
straddle a switch).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import weakref

import gevent
import pytest

from geventperf import Tracer, section
from geventperf.profile import Profile
from tests import tracer_impl

impl = tracer_impl.impl

TOTALS_SHARE = 0.05
TOTALS_SLACK_S = 0.010
# How long a greenlet is kept waiting inside a section before it is killed, timed by
# the test on the tracer's clock (perf_counter), not trusted to a timer: a loaded
# machine may run the victim late, after most of a fixed sleep had passed already.
KEPT_WAITING_S = 0.010
# Float sums of the same readings may differ in the last bits.
FLOAT_SLACK_S = 1e-9


def assert_totals_add_up(profile: Profile) -> None:
    ran = sum(g.run_s for g in profile.greenlets if g.id != profile.hub["id"]) \
        + profile.hub["run_s"]
    slack = TOTALS_SHARE * profile.duration_s + TOTALS_SLACK_S
    assert abs(ran - profile.duration_s) <= slack, (ran, profile.duration_s)


def test_totals_add_up_on_a_mixed_workload(impl):
    def mixed(n: int) -> int:
        total = 0
        for i in range(n):
            total += sum(range(2000))
            gevent.sleep(0.001 if i % 3 else 0)
        return total

    with Tracer() as tracer:
        jobs = [gevent.spawn(mixed, 30) for _ in range(10)]
        gevent.joinall(jobs)
    assert all(job.successful() for job in jobs)
    assert_totals_add_up(tracer.profile)
    assert tracer.profile.trace_errors == 0


def test_greenlet_killed_inside_a_section(impl):
    entered = []

    def worker() -> None:
        with section("doomed"):
            entered.append(time.perf_counter())
            gevent.sleep(10)

    with Tracer() as tracer:
        doomed = gevent.spawn(worker)
        while not entered or time.perf_counter() - entered[0] < KEPT_WAITING_S:
            gevent.sleep(0.001)  # the doomed greenlet is now waiting inside "doomed"
        killed_at = time.perf_counter()
        doomed.kill(timeout=5)
        with section("doomed"):  # the same section still works afterwards
            gevent.sleep(0.001)
    assert len(entered) == 1 and doomed.dead and doomed.successful()  # GreenletExit: success
    p = tracer.profile
    doomed_stats = p.section_named("doomed")
    assert doomed_stats.calls == 2 and doomed_stats.switches >= 2
    # the killed greenlet waited inside it from its sleep until the kill, less the
    # instants it ran there (same clock, so exact)
    assert doomed_stats.wait_s > 0
    assert doomed_stats.wait_s + doomed_stats.run_s + FLOAT_SLACK_S >= killed_at - entered[0]
    assert doomed_stats.wall_s + FLOAT_SLACK_S >= killed_at - entered[0] >= KEPT_WAITING_S
    assert p.trace_errors == 0
    assert_totals_add_up(p)


def test_section_left_open_by_a_greenlet_that_dies(impl):
    slept = []

    def leaky() -> None:
        section("never closed").__enter__()  # a bug in the program, not ours
        before = time.perf_counter()
        gevent.sleep(0.005)
        slept.append(time.perf_counter() - before)

    with Tracer() as tracer:
        job = gevent.spawn(leaky)
        ref = weakref.ref(job)
        job.join()
        del job
        for _ in range(3):
            gevent.sleep(0)
        gc.collect()
        assert ref() is None  # the open section does not keep the dead greenlet alive
        with section("after"):
            gevent.sleep(0.001)
    p = tracer.profile
    left_open = p.section_named("never closed")
    # Closed at the greenlet's death: counted, with the time it spent inside.
    assert left_open is not None and left_open.calls == 1
    assert left_open.wait_s > 0 and left_open.wall_s + FLOAT_SLACK_S >= slept[0]
    assert left_open.wall_s + FLOAT_SLACK_S >= left_open.wait_s + left_open.run_s
    assert p.meta["sections_left_open"] == 1
    assert "sections left open: 1" in p.render("text")
    assert p.section_named("after").calls == 1
    assert p.trace_errors == 0
    assert_totals_add_up(p)


def test_section_accounting_failure_is_a_trace_error_not_the_programs(impl):
    """A failure inside the tracer's section accounting (here a corrupted table row)
    never raises into the wrapped call: the call returns, the error is counted and
    quoted, and other sections go on being counted."""
    with Tracer() as tracer:
        tracer._section_table["broken"] = "not a row"
        with section("broken"):  # its exit fails in the tracer, not here
            gevent.sleep(0.001)
        del tracer._section_table["broken"]  # so that the profile can be built
        with section("fine"):
            gevent.sleep(0.001)
    p = tracer.profile
    assert p.trace_errors == 1
    assert "TypeError" in p.meta["first_trace_error"]
    assert p.section_named("fine").calls == 1


def test_hubs_of_threadpool_threads_are_left_alone(impl):
    """greenlet.settrace is per thread: greenlets switching in gevent's threadpool threads
    (each with a hub of its own) are not traced by the main thread's tracer, and a
    tracer of their own in such a thread works beside it."""
    results = {}

    def in_thread(name: str) -> int:
        with Tracer(sections=None) as own:
            jobs = [gevent.spawn(gevent.sleep, 0.002) for _ in range(5)]
            gevent.joinall(jobs)
        results[name] = own.profile
        return threading.get_ident()

    with Tracer() as tracer:
        pool = gevent.get_hub().threadpool
        idents = [pool.spawn(in_thread, f"t{i}") for i in range(2)]
        gevent.sleep(0.001)
        thread_ids = [r.get(timeout=30) for r in idents]
    assert all(tid != threading.get_ident() for tid in thread_ids)
    main = tracer.profile
    assert main.trace_errors == 0
    assert_totals_add_up(main)
    for profile in results.values():
        assert profile.trace_errors == 0
        assert len([g for g in profile.greenlets if g.name.endswith("sleep")]) >= 5
        assert_totals_add_up(profile)
    # None of the threads' greenlets leaked into the main thread's profile.
    assert not [g for g in main.greenlets if g.name.endswith("sleep")]


# gevent starts its monitor thread itself when the hub first runs (with
# GEVENT_MONITOR_THREAD_ENABLE); starting it by hand before the hub runs races its
# first check, which kills the monitor when the hub is not running yet.
MONITOR_SCRIPT = textwrap.dedent("""
    import sys, time, gevent
    from geventperf import Tracer
    def block():
        time.sleep(0.5)  # unpatched: blocks the loop, which both monitors must see
    def tick():  # has timers due meanwhile: the block holds it up (a finding needs that)
        for _ in range(40):
            gevent.sleep(0.01)
    gevent.sleep(0.1)  # the hub runs and starts gevent's monitor, whose trace function
    with Tracer() as tracer:  # ours must then chain to
        assert gevent.get_hub().periodic_monitoring_thread is not None
        ticker = gevent.spawn(tick)
        gevent.spawn(block).join()
        ticker.join()
        gevent.sleep(0.3)  # give gevent's monitor thread time to report
    kinds = [f.kind for f in tracer.profile.findings]
    print("kinds", ",".join(kinds), "errors", tracer.profile.trace_errors, flush=True)
""")


def test_gevent_monitor_thread_keeps_working_beside_the_tracer(tmp_path):
    script = tmp_path / "monitor.py"
    script.write_text(MONITOR_SCRIPT)
    env = dict(os.environ, GEVENT_MONITOR_THREAD_ENABLE="1", GEVENT_MAX_BLOCKING_TIME="0.05")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "blocking-call" in done.stdout and "errors 0" in done.stdout
    # gevent's own monitor, whose trace function ours chains to, still saw the block and
    # knew which greenlet it was.  Without the chain it never sees a switch after ours
    # is installed, so every report blames the stale "main" and none names the block.
    # Only "one report names it" is asserted, not "every report": on a loaded machine
    # the OS can hold any greenlet off the CPU past the 50 ms limit, and gevent then
    # rightly reports that one too (seen once in 30 runs beside two CPU hogs).
    reports = [line for line in done.stderr.splitlines() if "appears to be blocked" in line]
    assert reports, done.stderr[-3000:]
    assert any(": block>" in line for line in reports), reports


@pytest.mark.parametrize("how", ["exception", "exit"])
def test_program_errors_pass_through_and_restore_everything(impl, how):
    import json
    original = json.loads

    def failing() -> None:
        with section("work"):
            gevent.sleep(0)
            if how == "exception":
                raise ValueError("the program's own error")
            raise SystemExit(3)

    with pytest.raises(ValueError if how == "exception" else SystemExit) as info:
        with Tracer() as tracer:
            assert json.loads is not original  # wrapped while tracing
            failing()
    assert json.loads is original
    if how == "exit":
        assert info.value.code == 3
    assert tracer.profile.section_named("work").calls == 1
