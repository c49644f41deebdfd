"""Event wait vs ready wait, hub idle and blame, on workloads whose truth is known by
construction (tests/waitsplit_scenarios.py), on libev and libuv, both hot paths and
both clock modes.  Each run is a fresh interpreter (the loop is chosen per process).
Shares and orderings only: a loaded 2-core machine stretches every time.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from geventperf import Profile
from geventperf.profile import GreenletStats
from tests.tracer_impl import IMPLS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOOPS = ["libev-cext", "libuv-cffi"]
RUN_TIMEOUT_S = 120

# Behind two CPU hogs, a waiter's wake-up (timer due, reply arrived) waits for the hog's
# 20 ms slice to end, against a 4-7 ms timer or a sub-millisecond reply: most of its
# waiting is queueing (measured 0.93).  Alone, it is the other way round (measured
# 0.04-0.13 on an idle machine; up to 0.34 with both cores busy elsewhere, since a
# descheduled process leaves its woken greenlets ready but not running, which is ready
# wait too).  Each line sits clear of what it separates.
QUEUED_READY_SHARE = 0.6
ALONE_READY_SHARE = 0.5


def run(name: str, tmp_path, loop: str = "libev-cext", impl: str = "c",
        cpu_clock: bool = True) -> Profile:
    out = tmp_path / f"{name}-{loop}-{impl}.json"
    env = dict(os.environ, GEVENT_LOOP=loop, GEVENTPERF_PURE="1" if impl == "pure" else "0")
    cmd = [sys.executable, "-m", "tests.waitsplit_scenarios", name, str(out)]
    if not cpu_clock:
        cmd.append("--no-cpu-clock")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    profile = Profile.load(out)
    assert profile.meta["hot_path"] == impl and profile.trace_errors == 0
    assert loop.split("-")[0] in profile.meta["loop"]
    return profile


def named(p: Profile, name: str) -> list[GreenletStats]:
    found = [g for g in p.greenlets if g.name == name]
    assert found, f"no greenlet named {name!r}"
    return found


def ready_share(greenlets: list[GreenletStats]) -> float:
    ready = sum(g.ready_wait_s for g in greenlets)
    return ready / (ready + sum(g.event_wait_s for g in greenlets))


def assert_split_adds_up(p: Profile) -> None:
    for g in p.greenlets:
        if g.id == p.hub["id"]:
            assert g.event_wait_s is None and g.ready_wait_s is None
            continue
        assert g.event_wait_s >= 0 and g.ready_wait_s >= 0
        assert g.event_wait_s + g.ready_wait_s == pytest.approx(g.wait_s, abs=1e-9)
    for w in p.waits:
        assert w.event_wait_s + w.ready_wait_s == pytest.approx(w.wait_s, abs=1e-9)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("loop", LOOPS)
def test_waiters_behind_cpu_hogs_mostly_queue_and_the_hogs_are_blamed(tmp_path, loop, impl):
    # The hogs run back to back with no poll between them: the whole 0.32 s of queueing
    # hangs on the one poll after them, which expired timers make return at once.  On
    # this project's shared host that poll sometimes lasted 0.35 ms (no collection ran;
    # cause not found, the host most likely), past POLL_BLOCKED_MIN_S: read as a poll
    # that blocked, it made the timers' waits event waits (in about 1 run of 6 on libev,
    # either hot path; a known limit of the split, told in the closing note that added
    # this).  One more run then; twice in a row fails.
    for _attempt in range(2):
        p = run("hogs", tmp_path, loop, impl)
        if ready_share(named(p, "timer-waiter")) > QUEUED_READY_SHARE:
            break
    assert_split_adds_up(p)
    waiters = named(p, "timer-waiter") + named(p, "socket-waiter")
    assert ready_share(named(p, "timer-waiter")) > QUEUED_READY_SHARE
    assert ready_share(named(p, "socket-waiter")) > QUEUED_READY_SHARE
    # the hogs held the loop while the waiters were ready: most of that waiting is
    # charged to them (the rest to the hub's callbacks and to the waiters' own slices)
    hogs = named(p, "hog")
    ready = sum(g.ready_wait_s for g in waiters)
    assert sum(g.delayed_others_s for g in hogs) > 0.5 * ready
    assert max(waiters, key=lambda g: g.delayed_others_s).delayed_others_s < \
        min(g.delayed_others_s for g in hogs)
    crunch = p.section_named("crunch")
    assert crunch.delayed_others_s > 0.5 * ready  # the hogs' time was inside it
    # every wake-up is in the histogram, and the queueing shows in its tail
    overall = p.ready_latency["overall"]
    assert overall["n"] == sum(overall["counts"]) > 0
    assert overall["p99_s"] >= overall["p50_s"] and overall["max_s"] >= 0.5 * 0.02
    assert set(p.ready_latency["by_name"]) >= {"timer-waiter", "socket-waiter"}
    assert p.hub["utilization"] > 0.5 and p.hub["polls"] > 0


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("loop", LOOPS)
def test_waiters_alone_wait_on_events_and_the_hub_idles(tmp_path, loop, impl):
    p = run("idle", tmp_path, loop, impl)
    assert_split_adds_up(p)
    waiters = named(p, "timer-waiter") + named(p, "socket-waiter")
    assert ready_share(waiters) < ALONE_READY_SHARE
    # the hub blocked in its poll most of the run: idle measured around the poll
    assert p.hub["idle_s"] > 0.5 * p.duration_s
    assert p.hub["utilization"] == pytest.approx(1 - p.hub["idle_s"] / p.duration_s)


@pytest.mark.parametrize("loop", LOOPS)
def test_hub_idle_is_measured_without_the_cpu_clock(tmp_path, loop):
    p = run("idle", tmp_path, loop, cpu_clock=False)
    assert p.hub["cpu_s"] is None and p.hub["idle_s"] > 0.5 * p.duration_s
    waiters = named(p, "timer-waiter") + named(p, "socket-waiter")
    assert ready_share(waiters) < ALONE_READY_SHARE


@pytest.mark.parametrize("impl", IMPLS)
def test_sleep0_is_ready_at_once(tmp_path, impl):
    p = run("sleep0", tmp_path, impl=impl)
    yielders = named(p, "yielder")
    assert sum(g.event_wait_s for g in yielders) == 0.0
    assert sum(g.ready_wait_s for g in yielders) > 0


@pytest.mark.parametrize("impl", IMPLS)
def test_start_delay_of_spawned_greenlets_is_ready_wait_caused_by_the_spawner(tmp_path, impl):
    p = run("spawn", tmp_path, impl=impl)
    spawned = named(p, "spawned")
    main = named(p, "main")[0]
    from tests.clocks import CPU_AHEAD_OF_WALL_SHARE
    from tests.waitsplit_scenarios import SPAWN_BURN_S, SPAWNED
    # each waited for the spawner's burn: thread CPU time, so at least that in wall,
    # less what the CPU clock can run ahead of the wall clock
    burn_wall = SPAWN_BURN_S * (1 - CPU_AHEAD_OF_WALL_SHARE)
    assert all(g.ready_wait_s >= burn_wall for g in spawned)
    assert main.delayed_others_s >= SPAWNED * burn_wall
    [ev] = [e for e in p.events if e["kind"] == "blocked-slice" and e["greenlet"] == main.id]
    assert ev["longest_wait_s"] >= burn_wall  # each waited through the whole burn
    blocked = [f for f in p.findings if f.kind == "loop-blocked"]
    assert blocked and blocked[0].greenlet == main.id


@pytest.mark.parametrize("impl", IMPLS)
def test_a_long_slice_that_spawns_only_at_its_end_blocked_nobody(tmp_path, impl):
    """A start-up: CPU, then spawns just before yielding.  The spawned greenlets waited
    for the spawning only, not for the burn: the slice is recorded with that short
    longest wait, and no loop-blocked finding blames the start-up."""
    p = run("late_spawn", tmp_path, impl=impl)
    main = named(p, "main")[0]
    from tests.clocks import CPU_AHEAD_OF_WALL_SHARE
    from tests.waitsplit_scenarios import SPAWN_BURN_S, SPAWNED
    [ev] = [e for e in p.events if e["kind"] == "blocked-slice" and e["greenlet"] == main.id]
    assert ev["run_s"] >= 2 * SPAWN_BURN_S * (1 - CPU_AHEAD_OF_WALL_SHARE)
    assert 0 < ev["longest_wait_s"] < SPAWN_BURN_S
    assert 0 < ev["delayed_others_s"] <= SPAWNED * ev["longest_wait_s"]
    assert not [f for f in p.findings if f.kind == "loop-blocked"], p.findings


def test_profiles_written_before_the_split_load_with_the_new_fields_empty():
    old = {"geventperf_schema": 1, "duration_s": 1.0, "switches": 2,
           "hub": {"id": 2, "run_s": 0.5, "cpu_s": 0.1, "idle_s": 0.4},
           "greenlets": [{"id": 1, "name": "main", "parent": None, "run_s": 0.5,
                          "cpu_s": 0.4, "wait_s": 0.5, "switches": 1,
                          "longest_run_s": 0.5}],
           "sections": [{"name": "s", "c": False, "calls": 1, "wall_s": 0.1, "run_s": 0.1,
                         "wait_s": 0.0, "switches": 0}],
           "waits": [{"stack": ["a.py:1:f"], "count": 1, "wait_s": 0.5}],
           "findings": [], "slices": [[1, 0.0, 0.5, None]]}
    p = Profile.from_dict(old)
    g = p.greenlets[0]
    assert (g.event_wait_s, g.ready_wait_s, g.delayed_others_s) == (None, None, None)
    assert p.sections[0].ready_wait_s is None and p.waits[0].event_wait_s is None
    assert p.hub["utilization"] is None and p.ready_latency is None
    assert p.slices[0].ready_s is None
    # and a profile with the split merges with it: unknown stays unknown
    merged = Profile.merge([p, p])
    assert merged.greenlets[0].ready_wait_s is None and merged.hub["utilization"] is None
    for fmt in ("text", "json", "collapsed", "pstats"):
        assert p.render(fmt)


def test_merge_sums_the_split_and_the_histograms(tmp_path):
    p = run("hogs", tmp_path)
    merged = Profile.merge([p, p])
    assert merged.sections[0].ready_wait_s == pytest.approx(2 * p.sections[0].ready_wait_s)
    assert merged.sections[0].delayed_others_s == \
        pytest.approx(2 * p.sections[0].delayed_others_s)
    assert merged.waits[0].event_wait_s == pytest.approx(2 * p.waits[0].event_wait_s)
    overall = merged.ready_latency["overall"]
    assert overall["counts"] == [2 * c for c in p.ready_latency["overall"]["counts"]]
    assert overall["max_s"] == p.ready_latency["overall"]["max_s"]
    assert merged.hub["idle_s"] == pytest.approx(2 * p.hub["idle_s"])
    assert merged.hub["polls"] == 2 * p.hub["polls"]
    assert merged.hub["utilization"] == pytest.approx(p.hub["utilization"])
    loaded = Profile.loads(merged.render("json"))
    assert loaded.ready_latency == merged.ready_latency


@pytest.mark.parametrize("impl", IMPLS)
def test_ten_thousand_greenlets_ready_at_once_stay_bounded(impl, monkeypatch):
    """10 000 greenlets all ready together (spawned in one go, each yielding with
    sleep(0)) is more slices in one loop iteration than the blame window holds: the
    window stays its size, the oldest slices are settled early, and every greenlet's
    wait still splits and adds up."""
    import gevent

    from geventperf import Tracer
    from geventperf import tracer as tracer_mod
    from geventperf.trace.waits import BLAME_WINDOW
    if impl == "pure":
        monkeypatch.setattr(tracer_mod, "_ctrace", None)
    count = 10_000

    def job() -> None:
        for _ in range(3):
            gevent.sleep(0)

    with Tracer() as tracer:
        gevent.joinall([gevent.spawn(job) for _ in range(count)])
        assert tracer._ws.unsettled <= BLAME_WINDOW
        if impl == "pure":
            assert len(tracer._ws.log) == BLAME_WINDOW
    p = tracer.profile
    assert p.trace_errors == 0
    jobs = [g for g in p.greenlets if g.name.endswith(".job")]
    assert sum(1 for _ in jobs) + p.meta["greenlets_folded"] >= count
    assert all(g.event_wait_s + g.ready_wait_s == pytest.approx(g.wait_s, abs=1e-9)
               for g in jobs)
    assert p.meta["unattributed_ready_s"] >= 0
    assert p.ready_latency["overall"]["n"] >= count
