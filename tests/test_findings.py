"""findings.py: pure functions over hand-built profiles (no tracer involved)."""

from __future__ import annotations

import copy

import pytest

from geventperf import findings
from geventperf.profile import GreenletStats, Profile, StackTime

APP = "/srv/app/worker.py"
GEVENT = "/venv/lib/python3.11/site-packages/gevent/_socketcommon.py"
SOCKET = "/usr/lib/python3.11/socket.py"
URLLIB3 = "/venv/lib/python3.11/site-packages/urllib3/response.py"
READ_STACK = [f"{GEVENT}:687:SocketMixin.recv_into", f"{SOCKET}:706:SocketIO.readinto",
              f"{URLLIB3}:1134:HTTPResponse.read",
              "/work/geventperf/sections.py:234:wrapper", f"{APP}:43:fetch_and_parse"]


def profile(**kwargs) -> Profile:
    p = Profile(duration_s=2.0, greenlets=[
        GreenletStats(id=1, name="main", parent=None),
        GreenletStats(id=2, name="hub", parent=1),
        GreenletStats(id=3, name="app.fetch", parent=1),
        GreenletStats(id=4, name="app.fetch", parent=1)],
        meta={"block_threshold_s": 0.05})
    for key, value in kwargs.items():
        setattr(p, key, value)
    return p


def storm_profile(count: int, run_s: float) -> Profile:
    stack = [f"{GEVENT}:687:SocketMixin.recv", f"{APP}:12:read_small"]
    return profile(runs=[StackTime(stack=stack, count=count, run_s=run_s, cpu_s=run_s)],
                   waits=[StackTime(stack=stack, count=count, wait_s=1.5)])


def test_blocked_read_names_the_read_site_and_the_fix():
    p = profile(events=[{"kind": "c-section-switch", "section": "lxml.etree.parse",
                         "greenlet": 3, "count": 42, "wait_s": 0.8, "file_like": True,
                         "stack": READ_STACK}])
    [f] = findings.blocked_reads_in_c_sections(p)
    assert f.kind == "blocked-read-in-c-section" and f.greenlet == 3
    assert f.section == "lxml.etree.parse" and f.cost_s == 0.8 and f.stack == READ_STACK
    assert f.extra["read_site"] == f"{URLLIB3}:1134:HTTPResponse.read"
    assert f.extra["caller"] == f"{APP}:43:fetch_and_parse"
    assert "42 time(s)" in f.message and "0.800 s" in f.message
    assert "'app.fetch' (#3)" in f.message and "GeventAdapter" in f.message


def test_loop_blocked_tells_blocking_calls_from_cpu():
    stack = ["/venv/gevent/hub.py:159:sleep", f"{APP}:20:job"]
    p = profile(events=[
        {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.1, "run_s": 0.3,
         "cpu_s": 0.01, "section": None, "stack": stack},
        {"kind": "blocked-slice", "greenlet": 4, "start_s": 0.5, "run_s": 0.2,
         "cpu_s": 0.19, "section": "parse", "stack": [f"{APP}:30:parse"]}])
    blocking, cpu = findings.loop_blocked(p)
    assert blocking.extra["cause"] == "blocking-call" and blocking.greenlet == 3
    assert blocking.extra["blocking_s"] == pytest.approx(0.29)
    assert f"{APP}:20:job" in blocking.message  # first frame outside gevent
    assert cpu.extra["cause"] == "cpu" and cpu.section == "parse"
    assert "process pool" in cpu.message


def test_loop_blocked_groups_slices_of_one_site_and_keeps_the_worst():
    event = {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 0.1,
             "cpu_s": None, "section": None, "stack": [f"{APP}:20:job"]}
    worse = dict(event, greenlet=4, run_s=0.4)
    [f] = findings.loop_blocked(profile(events=[event, worse]))
    assert f.extra["count"] == 2 and f.cost_s == pytest.approx(0.5)
    assert f.greenlet == 4 and f.extra["cause"] == "unknown"
    assert "cpu_clock=True" in f.message


def test_switch_storm_thresholds():
    mean_ok = findings.STORM_MAX_MEAN_RUN_S / 2
    n = findings.STORM_MIN_SWITCHES
    assert findings.switch_storms(storm_profile(n - 1, (n - 1) * mean_ok)) == []
    assert findings.switch_storms(storm_profile(n, n * findings.STORM_MAX_MEAN_RUN_S)) == []
    [f] = findings.switch_storms(storm_profile(n, n * mean_ok))
    assert f.extra["count"] == n and f.cost_s == 1.5
    assert f.extra["mean_run_s"] == pytest.approx(mean_ok)
    assert f"{APP}:12:read_small" in f.message


def test_switch_storm_ignores_placeholder_stacks():
    p = profile(runs=[StackTime(stack=["<greenlet exit>"], count=10**6, run_s=0.001)])
    assert findings.switch_storms(p) == []


def test_deadlock_risk_unguarded_is_the_worst_finding():
    stack = [f"{APP}:43:fetch_and_parse"]
    p = profile(events=[
        {"kind": "lxml-concurrent-parse", "greenlet": 3, "other": 4,
         "section": "lxml.etree.parse", "stack": stack, "guarded": False, "at_s": 0.1},
        {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 1.0,
         "cpu_s": 1.0, "section": None, "stack": stack}])
    result = findings.compute(p)
    assert [f.kind for f in result] == ["c-section-deadlock-risk", "loop-blocked"]
    risk = result[0]
    assert risk.extra == {"count": 1, "other_greenlet": 4, "guarded": False}
    assert "deadlocks" in risk.message and "(#4)" in risk.message
    assert risk.cost_s == p.duration_s


def test_deadlock_risk_guarded_says_the_guard_worked():
    p = profile(events=[{"kind": "lxml-concurrent-parse", "greenlet": 4, "other": 3,
                         "section": "lxml.etree.parse", "stack": [], "guarded": True}])
    [f] = findings.deadlock_risks(p)
    assert f.extra["guarded"] is True and "lxml_guard=True" in f.message


def test_compute_sorts_worst_first_and_is_pure():
    p = storm_profile(5000, 0.01)
    p.events = [{"kind": "c-section-switch", "section": "json.loads", "greenlet": 3,
                 "count": 1, "wait_s": 3.0, "file_like": False, "stack": READ_STACK}]
    before = copy.deepcopy(p.to_dict())
    result = findings.compute(p)
    assert [f.kind for f in result] == ["blocked-read-in-c-section", "switch-storm"]
    assert [f.cost_s for f in result] == sorted((f.cost_s for f in result), reverse=True)
    assert p.to_dict() == before


def test_unknown_and_malformed_events_are_ignored():
    p = profile(events=[{"kind": "from-the-future", "x": 1}, {"no": "kind"}])
    assert findings.compute(p) == []
