"""findings.py: pure functions over hand-built profiles (no tracer involved)."""

from __future__ import annotations

import copy

import pytest

from geventperf import findings
from geventperf.profile import Finding, GreenletStats, Profile, StackTime

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
                         "greenlet": 3, "count": 42, "wait_s": 0.8, "event_wait_s": 0.6,
                         "ready_wait_s": 0.2, "file_like": True, "stack": READ_STACK}])
    [f] = findings.blocked_reads_in_c_sections(p)
    assert f.kind == "blocked-read-in-c-section" and f.greenlet == 3
    # the cost is the event wait: the queueing behind others is another cause's
    assert f.section == "lxml.etree.parse" and f.cost_s == 0.6 and f.stack == READ_STACK
    assert f.extra["read_site"] == f"{URLLIB3}:1134:HTTPResponse.read"
    assert f.extra["caller"] == f"{APP}:43:fetch_and_parse"
    assert "42 time(s)" in f.message and "0.600 s" in f.message
    assert "'app.fetch' (#3)" in f.message and "GeventAdapter" in f.message
    assert f.extra["cost_meaning"] in f.message and f.extra["hazard"] is False


def test_blocked_reads_of_one_cause_are_one_finding_naming_the_greenlets():
    event = {"kind": "c-section-switch", "section": "lxml.etree.parse", "greenlet": 3,
             "count": 10, "wait_s": 0.5, "event_wait_s": 0.4, "file_like": True,
             "stack": READ_STACK}
    other_site = dict(event, greenlet=4, stack=READ_STACK[:-1] + [f"{APP}:99:elsewhere"])
    p = profile(events=[event, dict(event, greenlet=4, event_wait_s=0.3), other_site])
    merged, apart = sorted(findings.blocked_reads_in_c_sections(p), key=lambda f: -f.cost_s)
    assert merged.extra["greenlets"] == 2 and merged.cost_s == pytest.approx(0.7)
    assert merged.extra["names"] == {"app.fetch": pytest.approx(0.7)}
    assert "2 greenlets named 'app.fetch'" in merged.message and merged.extra["count"] == 20
    assert apart.extra["greenlets"] == 1 and apart.extra["caller"] == f"{APP}:99:elsewhere"


def test_loop_blocked_tells_blocking_calls_from_cpu():
    stack = ["/venv/gevent/hub.py:159:sleep", f"{APP}:20:job"]
    p = profile(events=[
        {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.1, "run_s": 0.3,
         "cpu_s": 0.01, "section": None, "stack": stack, "delayed_others_s": 0.6},
        {"kind": "blocked-slice", "greenlet": 4, "start_s": 0.5, "run_s": 0.2,
         "cpu_s": 0.19, "section": "parse", "stack": [f"{APP}:30:parse"],
         "delayed_others_s": 0.2}],
        meta={"block_threshold_s": 0.05, "monkey_patched": ["socket"]})
    blocking, cpu = sorted(findings.loop_blocked(p), key=lambda f: -f.cost_s)
    assert blocking.kind == "blocking-call" and blocking.greenlet == 3
    assert blocking.extra["cause"] == "blocking-call" and blocking.cost_s == 0.6
    assert blocking.extra["blocking_s"] == pytest.approx(0.29)
    assert f"{APP}:20:job" in blocking.message  # first frame outside gevent
    assert "time module is not monkey-patched" in blocking.message
    assert cpu.kind == "loop-blocked" and cpu.extra["cause"] == "cpu"
    assert cpu.section == "parse" and "process pool" in cpu.message


def test_time_off_cpu_waiting_for_a_cpu_is_not_a_blocking_call():
    event = {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 0.6,
             "cpu_s": 0.2, "runqueue_s": 0.4, "section": None, "stack": [f"{APP}:20:job"],
             "delayed_others_s": 1.0}
    [f] = findings.loop_blocked(profile(events=[event]))
    assert f.kind == "loop-blocked" and f.extra["cause"] == "cpu"
    # the reader learns the slice was mostly a wait for a CPU, not 0.6 s of work
    assert "0.200 s of CPU, and 0.400 s waiting for a CPU" in f.message
    [g] = findings.loop_blocked(profile(events=[dict(event, runqueue_s=0.0)]))
    assert g.kind == "blocking-call"
    [h] = findings.loop_blocked(profile(events=[dict(event, cpu_s=0.55, runqueue_s=0.05)]))
    assert "(0.550 s of CPU)" in h.message  # scheduling noise is not named


def test_a_long_slice_that_delayed_nobody_is_not_a_finding():
    event = {"kind": "blocked-slice", "greenlet": 1, "start_s": 0.0, "run_s": 0.4,
             "cpu_s": 0.4, "section": None, "stack": [f"{APP}:1:<module>"],
             "delayed_others_s": 0.0}
    assert findings.loop_blocked(profile(events=[event])) == []
    # under one block threshold of others' waiting in all: not worth a finding
    assert findings.loop_blocked(profile(events=[dict(event, delayed_others_s=0.049)])) == []
    [f] = findings.loop_blocked(profile(events=[dict(event, delayed_others_s=0.05)]))
    assert f.cost_s == 0.05


def test_loop_blocked_groups_slices_of_one_site_and_keeps_the_worst():
    """Profiles written before the wait split have no delayed_others_s: the slices'
    run time is the cost then."""
    event = {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 0.1,
             "cpu_s": None, "section": None, "stack": [f"{APP}:20:job"]}
    worse = dict(event, greenlet=4, run_s=0.4)
    [f] = findings.loop_blocked(profile(events=[event, worse]))
    assert f.extra["count"] == 2 and f.cost_s == pytest.approx(0.5)
    assert f.greenlet == 4 and f.extra["cause"] == "unknown"
    assert "cpu_clock=True" in f.message and "2 greenlets named 'app.fetch'" in f.message


def saturated_profile(ready: float, event: float, utilization: float) -> Profile:
    p = profile(hub={"id": 2, "run_s": 0.1, "cpu_s": 0.1, "idle_s": 0.0,
                     "utilization": utilization, "polls": 10})
    p.greenlets[2].ready_wait_s, p.greenlets[2].event_wait_s = ready, event
    p.greenlets[2].delayed_others_s, p.greenlets[2].cpu_s = 0.5, 1.5
    p.greenlets[3].ready_wait_s, p.greenlets[3].event_wait_s = ready, event
    p.greenlets[3].delayed_others_s, p.greenlets[3].cpu_s = ready, 0.1
    p.greenlets[2].run_s = p.greenlets[3].run_s = 1.0
    p.runs = [StackTime(stack=[f"{APP}:30:crunch"], count=5, run_s=1.0, delayed_others_s=2.0)]
    return p


def test_loop_saturated_names_the_holders_and_ranks_first():
    p = saturated_profile(ready=2.0, event=0.2, utilization=0.97)
    [f] = findings.loop_saturated(p)
    assert f.kind == "loop-saturated" and f.cost_s == pytest.approx(4.0)
    assert "'app.fetch' (x2: ran 2.000 s while 1.2 others were ready" in f.message
    assert f"{APP}:30:crunch" in f.message
    assert f.extra["holders"] == {"app.fetch": pytest.approx(2.5)}
    assert "process" in f.message  # the cure is on the CPU side
    p.events = [{"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 0.3,
                 "cpu_s": 0.3, "section": None, "stack": [f"{APP}:30:crunch"],
                 "delayed_others_s": 0.9}]
    assert [x.kind for x in findings.compute(p)] == ["loop-saturated", "loop-blocked"]


@pytest.mark.parametrize("ready, event, utilization", [
    (2.0, 0.2, 0.55),   # the loop was idle enough
    (0.3, 0.2, 0.97),   # under one greenlet queued on average (0.6 s over a 2 s run)
    (2.0, 2.5, 0.97),   # waiting was mostly for events
])
def test_loop_saturated_needs_a_busy_loop_and_a_real_queue(ready, event, utilization):
    assert findings.loop_saturated(saturated_profile(ready, event, utilization)) == []


def test_switch_storm_thresholds():
    mean_ok = findings.STORM_MAX_MEAN_RUN_S / 2
    n = findings.STORM_MIN_SWITCHES
    assert findings.switch_storms(storm_profile(n - 1, (n - 1) * mean_ok)) == []
    assert findings.switch_storms(storm_profile(n, n * findings.STORM_MAX_MEAN_RUN_S)) == []
    [f] = findings.switch_storms(storm_profile(n, n * mean_ok))
    assert f.extra["count"] == n and f.extra["mean_run_s"] == pytest.approx(mean_ok)
    assert f"{APP}:12:read_small" in f.message
    # the program's own socket reads: a round trip per item, or pieces read as they come
    assert "round trip" in f.message and "GeventAdapter" not in f.message


@pytest.mark.parametrize("idle_s, cpu_wait_s, told", [
    # the queue ping-pong's figures: 10 000 switches at 0.75 us of the hub's time each,
    # 5 000 of them at one site (0.00375 s), in a 0.36 s run that also waited 0.30 s on
    # a slow server: 1 % of the run's length, 6 % of the loop's busy time
    (0.30, None, True),
    # the same switching in a loop busy all along: under 2 % of its busy time
    (0.0, None, False),
    # ... busy "all along" only because the thread waited for a CPU: it is not the
    # loop's time, and the switching is 6 % of what is
    (0.0, 0.30, True)])
def test_a_storm_is_weighed_against_the_loops_busy_time(idle_s, cpu_wait_s, told):
    p = storm_profile(5000, 5000 * 1.5e-6)
    p.duration_s = 0.36
    p.hub = {"id": 2, "idle_s": idle_s, "cpu_wait_s": cpu_wait_s}
    p.greenlets[1].run_s, p.greenlets[1].switches = idle_s + 10000 * 0.75e-6, 10000
    assert bool(findings.switch_storms(p)) is told


HTTP_CLIENT = "/usr/lib/python3.11/http/client.py"


@pytest.mark.parametrize("inner, counted", [
    # requests' body read in small pieces: GeventAdapter's cure
    ([f"{GEVENT}:687:SocketMixin.recv_into", f"{SOCKET}:706:SocketIO.readinto",
      f"{URLLIB3}:1134:HTTPResponse.read"], "small-chunk read"),
    # the wait for each response's status line, and each connect: once per request
    ([f"{GEVENT}:687:SocketMixin.recv_into", f"{SOCKET}:706:SocketIO.readinto",
      f"{HTTP_CLIENT}:286:HTTPResponse._read_status", f"{HTTP_CLIENT}:325:HTTPResponse.begin",
      f"{URLLIB3}:500:HTTPConnection.getresponse"], None),
    ([f"{GEVENT}:631:SocketMixin._internal_connect", f"{GEVENT}:581:SocketMixin.connect",
      "/venv/lib/python3.11/site-packages/urllib3/util/connection.py:73:create_connection"],
     None),
])
def test_a_storm_of_waits_each_request_makes_once_is_no_storm(inner, counted):
    stack = inner + [f"{APP}:12:fetch"]
    p = profile(runs=[StackTime(stack=stack, count=5000, run_s=0.05, greenlet=3)],
                waits=[StackTime(stack=stack, count=5000, wait_s=0.5, event_wait_s=0.4,
                                 ready_wait_s=0.1)])
    found = findings.switch_storms(p)
    if counted is None:
        assert found == []
    else:
        [f] = found
        assert counted in f.message and "GeventAdapter" in f.message


def test_switch_storm_costs_the_hubs_time_per_switch():
    p = storm_profile(2000, 0.01)
    p.hub = {"id": 2, "run_s": 0.5, "cpu_s": 0.1, "idle_s": 0.3, "utilization": 0.85}
    p.greenlets[1].run_s, p.greenlets[1].switches = 0.5, 4000
    [f] = findings.switch_storms(p)
    assert f.extra["hub_s_per_switch"] == pytest.approx(0.2 / 4000)
    assert f.cost_s == pytest.approx(2000 * 0.2 / 4000)


@pytest.mark.parametrize("frame, story, not_story", [
    ("/venv/lib/python3.11/site-packages/gevent/hub.py:159:sleep", "gevent.sleep(0)",
     "GeventAdapter"),
    ("/venv/lib/python3.11/site-packages/gevent/queue.py:300:Queue.get", "hand off batches",
     "GeventAdapter"),
])
def test_switch_storm_tells_the_story_of_its_own_site(frame, story, not_story):
    stack = [frame, f"{APP}:12:loop"]
    p = profile(runs=[StackTime(stack=stack, count=5000, run_s=0.01, greenlet=3)],
                waits=[StackTime(stack=stack, count=5000, wait_s=0.2, event_wait_s=0.0,
                                 ready_wait_s=0.2)])
    [f] = findings.switch_storms(p)
    assert story in f.message and not_story not in f.message
    assert "'app.fetch' (#3)" in f.message and f.greenlet == 3


def test_switch_storm_ignores_placeholder_stacks():
    p = profile(runs=[StackTime(stack=["<greenlet exit>"], count=10**6, run_s=0.001)])
    assert findings.switch_storms(p) == []


def test_deadlock_risk_ranks_above_every_cost():
    stack = [f"{APP}:43:fetch_and_parse"]
    p = profile(events=[
        {"kind": "lxml-concurrent-parse", "greenlet": 3, "other": 4,
         "section": "lxml.etree.parse", "stack": stack, "guarded": False, "at_s": 0.1},
        {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 1.0,
         "cpu_s": 1.0, "section": None, "stack": stack, "delayed_others_s": 5.0}])
    result = findings.compute(p)
    assert [f.kind for f in result] == ["c-section-deadlock-risk", "loop-blocked"]
    risk = result[0]
    assert risk.cost_s < result[1].cost_s and risk.extra["hazard"] is True
    assert risk.extra["count"] == 1 and risk.extra["other_greenlet"] == 4
    assert risk.extra["guarded"] is False and risk.extra["greenlets"] == 2
    assert "deadlocks" in risk.message and "2 greenlets named 'app.fetch'" in risk.message


def test_deadlock_risk_guarded_says_the_guard_kept_it_alive():
    p = profile(events=[{"kind": "lxml-concurrent-parse", "greenlet": 4, "other": 3,
                         "section": "lxml.etree.parse", "stack": [], "guarded": True}])
    [f] = findings.deadlock_risks(p)
    assert f.extra["guarded"] is True and "lxml_guard=True" in f.message
    assert "stayed alive only because" in f.message and f.extra["hazard"] is True


def test_compute_sorts_worst_first_and_is_pure():
    p = storm_profile(5000, 0.01)
    p.events = [{"kind": "c-section-switch", "section": "json.loads", "greenlet": 3,
                 "count": 1, "wait_s": 3.0, "file_like": False, "stack": READ_STACK}]
    before = copy.deepcopy(p.to_dict())
    result = findings.compute(p)
    assert [f.kind for f in result] == ["blocked-read-in-c-section", "switch-storm"]
    assert [f.cost_s for f in result] == sorted((f.cost_s for f in result), reverse=True)
    assert p.to_dict() == before


def test_order_is_total_hazards_then_cost_then_kind_then_message():
    def f(kind, cost, message, hazard=False):
        return Finding(kind=kind, message=message, cost_s=cost, extra={"hazard": hazard})
    items = [f("switch-storm", 1.0, "b"), f("loop-blocked", 1.0, "z"),
             f("switch-storm", 1.0, "a"), f("c-section-deadlock-risk", 0.0, "r", True),
             f("small-body-reads", 2.0, "m")]
    order = [(x.kind, x.message) for x in findings.sort_findings(items)]
    assert order == [("c-section-deadlock-risk", "r"), ("small-body-reads", "m"),
                     ("loop-blocked", "z"), ("switch-storm", "a"), ("switch-storm", "b")]
    assert findings.sort_findings(list(reversed(items))) == findings.sort_findings(items)


def test_unknown_and_malformed_events_are_ignored():
    p = profile(events=[{"kind": "from-the-future", "x": 1}, {"no": "kind"}])
    assert findings.compute(p) == []


def test_yields_that_wait_for_their_event_are_pacing_not_a_storm():
    """10 tickers on 5 ms timers switch often with little work between, but every
    yield waits its 5 ms: nothing is churning."""
    stack = ["/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep", f"{APP}:22:tick"]
    runs = [StackTime(stack=stack, count=1500, run_s=0.01, greenlet=3)]
    paced = StackTime(stack=stack, count=1500, wait_s=7.6, event_wait_s=7.5, ready_wait_s=0.1)
    assert findings.switch_storms(profile(runs=runs, waits=[paced])) == []
    churning = StackTime(stack=stack, count=1500, wait_s=0.3, event_wait_s=0.1,
                         ready_wait_s=0.2)
    [f] = findings.switch_storms(profile(runs=runs, waits=[churning]))
    assert "very short timers" in f.message


def test_loop_saturated_leaves_to_a_long_slice_the_queueing_it_caused():
    """One hog slice explains the ready wait: it is a loop-blocked finding, and no
    loop-saturated finding tells the same cause again with the wrong cure."""
    p = saturated_profile(ready=2.0, event=0.2, utilization=0.97)
    hog = {"kind": "blocked-slice", "greenlet": 3, "start_s": 0.0, "run_s": 1.0,
           "cpu_s": 1.0, "section": None, "stack": [f"{APP}:30:crunch"],
           "delayed_others_s": 3.5}
    p.events = [hog]
    assert [f.kind for f in findings.compute(p)] == ["loop-blocked"]
    p.events = [dict(hog, delayed_others_s=1.0)]  # explains a quarter: still saturated
    kinds = [f.kind for f in findings.compute(p)]
    assert kinds == ["loop-saturated", "loop-blocked"]
    assert findings.compute(p)[0].cost_s == pytest.approx(3.0)


HASH_STACK = [f"{GEVENT}:159:sleep", f"{APP}:22:hash_passwords"]


def held_profile(hasher_run=0.5, hasher_slices=20, hasher_delayed=4.0, fetch_delayed=1.0,
                 fetch_run=0.025, utilization=0.5, **kwargs) -> Profile:
    """A 'hasher' (#5) among two request handlers (#3, #4) of 100 slices each (0.25 ms
    by default)."""
    p = profile(**kwargs)
    p.hub = {"id": 2, "utilization": utilization}
    fetch = dict(run_s=fetch_run, cpu_s=fetch_run, switches=100, longest_run_s=0.001,
                 event_wait_s=3.0, ready_wait_s=2.5, delayed_others_s=fetch_delayed / 2)
    p.greenlets = [GreenletStats(id=1, name="main", parent=None, switches=1, run_s=0.001,
                                 event_wait_s=2.0, ready_wait_s=0.0, delayed_others_s=0.0),
                   GreenletStats(id=2, name="hub", parent=1),
                   GreenletStats(id=3, name="app.fetch", parent=1, **fetch),
                   GreenletStats(id=4, name="app.fetch", parent=1, **fetch),
                   GreenletStats(id=5, name="app.hasher", parent=1, run_s=hasher_run,
                                 cpu_s=hasher_run, switches=hasher_slices,
                                 longest_run_s=0.03, event_wait_s=0.0, ready_wait_s=0.1,
                                 delayed_others_s=hasher_delayed)]
    p.runs = [StackTime(stack=HASH_STACK, count=hasher_slices, run_s=hasher_run,
                        cpu_s=hasher_run, delayed_others_s=hasher_delayed, greenlet=5)]
    return p


@pytest.mark.parametrize("queued, told", [(0.0175, True), (0.0, False)])
def test_slices_over_the_threshold_only_for_want_of_a_cpu_stay_loop_helds(queued, told):
    # the hasher's 20 slices are 50 ms here, over the 0.05 s threshold: with 17.5 ms of
    # each spent waiting for a CPU (two hogs) they had a CPU 32.5 ms, which loop-blocked
    # leaves to a crowded machine, so loop-held weighs them; without that wait they are
    # loop-blocked's and none are left here
    from tests.test_mut_findings import blocked_slice
    p = held_profile(hasher_run=1.0)
    p.events = [blocked_slice(5, 0.05, 0.05 - queued, 0.2, runqueue_s=queued)
                for _ in range(20)]
    assert (not findings.loop_blocked(p)) is told
    assert bool(findings.loop_held(p)) is told


def test_the_gil_is_weighed_against_the_run_a_cpu_would_have_given():
    # off the CPU 0.1875 s (cpu_wait 0.8125 of gil_profile's 1.0 s): an eighth of the 2 s
    # run is 0.25, but of the 1.1875 s it would have taken with a CPU to itself, 0.148;
    # the threads' 0.3125 s of CPU trade the lock with it (at most twice it)
    from tests.test_mut_findings import gil_profile
    [f] = findings.gil_contended(gil_profile(cpu_wait=0.8125, checksum_cpu=0.0625))
    assert f.extra["off_cpu_s"] == 0.1875


def test_loop_held_names_the_greenlet_whose_shorter_slices_others_queued_behind():
    [f] = findings.loop_held(held_profile())
    assert f.kind == "loop-held" and f.greenlet == 5 and f.stack == HASH_STACK
    # 25 ms slices against the handlers' 0.25 ms: 100x; 4.0 of the 5.0 s delayed: 80 %
    assert f.cost_s == 4.0 and f.extra["mean_slice_s"] == 0.025
    assert f.extra["others_mean_slice_s"] == pytest.approx((0.025 * 2 + 0.001) / 201, rel=1e-12)
    assert "'app.hasher' (#5) held the loop in 20 slices of 25.0 ms" in f.message
    assert "80% of all such waiting" in f.message and "It was CPU work" in f.message
    assert f"{APP}:22:hash_passwords" in f.message and "gevent.sleep(0)" in f.message
    assert f.extra["cost_meaning"] in f.message
    assert [g.kind for g in findings.compute(held_profile())] == ["loop-held"]


@pytest.mark.parametrize("change", [
    dict(hasher_delayed=0.4),  # a small share of the queueing (0.4 of 1.4 s: 29 %)
    dict(hasher_run=0.03, fetch_run=0.001),  # 1.5 ms slices (100x): under HELD_MIN_SLICE_S
    dict(hasher_run=0.05, fetch_run=0.05),  # 2.5 ms slices, but only 5x the others' 0.5 ms
    dict(hasher_delayed=0.04, fetch_delayed=0.0),  # all of it, but under the threshold
])
def test_loop_held_needs_long_slices_that_caused_most_of_the_queueing(change):
    assert findings.loop_held(held_profile(**change)) == []


def test_loop_held_counts_only_what_other_names_queued():
    """Peers that queue behind each other are no one holder's doing: the hasher's
    figure is at most the handlers' ready wait, and with the handlers hardly queued
    there is no finding."""
    p = held_profile()
    for g in p.greenlets[2:4]:
        g.ready_wait_s = 1.25
    [f] = findings.loop_held(p)
    assert f.cost_s == 2.5 and "other greenlets waited 2.500 greenlet-seconds" in f.message
    for g in p.greenlets[2:4]:
        g.ready_wait_s = 0.02
    assert findings.loop_held(p) == []


def test_loop_held_leaves_a_saturated_loop_to_loop_saturated():
    p = held_profile(utilization=0.95)
    for g in p.greenlets[2:4]:  # the handlers queued far more than they waited for I/O
        g.event_wait_s, g.ready_wait_s = 0.1, 3.0
    assert [f.kind for f in findings.compute(p)] == ["loop-saturated"]
    assert findings.loop_held(p) == []


def test_loop_held_leaves_out_what_its_long_slices_are_loop_blocked_for():
    p = held_profile(events=[{"kind": "blocked-slice", "greenlet": 5, "run_s": 0.0625,
                              "cpu_s": 0.0625, "stack": HASH_STACK,
                              "delayed_others_s": 1.5}])
    blocked = findings.loop_blocked(p)
    assert [f.cost_s for f in blocked] == [1.5]
    [held] = findings.loop_held(p)
    # the 19 other slices: 0.4375 s of running, 2.5 of the 4.0 greenlet-s of queueing
    assert held.cost_s == 2.5 and held.extra["slices"] == 19
    assert held.extra["run_s"] == 0.4375 and held.extra["longer_slices"] == 1
    assert "in 19 slices of 23.0 ms on average" in held.message
    assert "(1 longer slices are left to the loop-blocked finding)" in held.message
    assert [f.kind for f in findings.compute(p)] == ["loop-held", "loop-blocked"]


@pytest.mark.parametrize("cpu_s, told, fix", [
    (0.5, "It was CPU work (0.500 s of CPU in 0.500 s of running)", "with gevent.sleep(0.001)"),
    (0.125, "It was mostly off the CPU (0.125 s of CPU in 0.500 s of running), in a "
            "non-cooperative call", "monkey-patch first"),
    (None, "CPU and blocking cannot be told apart (cpu_clock=False)", "")])
def test_loop_held_tells_cpu_work_from_a_blocking_call(cpu_s, told, fix):
    p = held_profile()
    p.greenlets[4].cpu_s = cpu_s
    [f] = findings.loop_held(p)
    assert told in f.message and fix in f.message and f.extra["cpu_s"] == cpu_s
    assert f"ended at {APP}:22:hash_passwords" in f.message


def test_a_finder_that_raises_costs_only_its_own_findings(monkeypatch):
    # a bug in one finder on a profile nobody foresaw: the other findings are kept, the
    # failure is named in the profile's meta and in the report, and nothing raises
    def broken(profile):
        raise ZeroDivisionError("float division by zero")

    good = Finding(kind="loop-blocked", message="held", cost_s=1.0)
    monkeypatch.setattr(findings, "FINDERS", (broken, lambda profile: [good]))
    profile = Profile(duration_s=1.0)
    assert findings.compute(profile) == [good]
    assert profile.meta["findings_errors"] == [
        "broken: ZeroDivisionError: float division by zero"]
    profile.findings = [good]
    text = profile.render("text")
    assert "findings incomplete: 1 finder(s) failed" in text
    assert "broken: ZeroDivisionError: float division by zero" in " ".join(text.split())


def test_few_urls_repeated_are_told_once_when_a_pool_full_finding_tells_the_cache():
    from geventperf.findings.held import CACHE_TOLD
    from geventperf.findings.repeated import without_caches_told
    few = Finding(kind="repeated-request", message="", extra={"few_urls": True})
    pool = Finding(kind="pool-full", message=f"... {CACHE_TOLD} skips 114 of them ...")
    plain = Finding(kind="pool-full", message="a larger pool")
    assert without_caches_told([few, pool]) == [pool]
    assert without_caches_told([few, plain]) == [few, plain]
    # a sequential-calls finding telling the cache mid-message keeps the repeats' own
    # finding, which it ranks after (an unseen billing run's FX cache keyed on a
    # timestamp was told beneath a stampede and "make them together")
    in_turn = Finding(kind="sequential-calls", message=f"... {CACHE_TOLD} skips 1583 ...")
    assert without_caches_told([few, in_turn]) == [few, in_turn]


def test_a_bottleneck_whose_calls_stalled_on_the_wire_ranks_after_the_stall():
    """Before (an unseen service's load clients, every answer 42 ms late on Nagle and a
    delayed ACK): serial-bottleneck first, "do that work concurrently", the stall second;
    the stall's cure alone took the run from 3.8 to 1.9 s."""
    def told(stall_site, kind=findings.DELAYED_ACK_STALL):
        busy = Finding(kind=findings.SERIAL_BOTTLENECK, message="Many waited.", cost_s=98.7,
                       stack=[], extra={"site": "app.py:131:client"})
        stall = Finding(kind=kind, message="Stall.", cost_s=52.9, stack=[],
                        extra={"site": stall_site})
        return findings.sort_findings(findings.after_stalls_told([busy, stall]))
    for kind in (findings.DELAYED_ACK_STALL, findings.REQUEST_BODY_STALL):
        first, second = told("app.py:131:client", kind)
        assert (first.kind, second.kind) == (kind, findings.SERIAL_BOTTLENECK)
        assert f"stalled on the wire (the {kind} finding): cure that first" in second.message
    for other in ("app.py:77:push", None):  # the stall at another line, or at none
        first, second = told(other)
        assert first.kind == findings.SERIAL_BOTTLENECK and "on the wire" not in first.message


@pytest.mark.parametrize("pool, literal", [
    ("http://127.0.0.1:8080", True), ("http://[::1]:80", True), ("https://a:443", False),
    ("http://example.com:80", False), ("not a url", False)])
def test_a_connection_to_an_ip_address_pays_no_name_lookup(pool, literal):
    """An unseen relay's report said each request made again paid a name lookup of
    127.0.0.1: connection-not-kept-alive names the lookup only for a host name."""
    from geventperf.findings.connections import _ip_literal
    assert _ip_literal(pool) is literal


def test_a_saturated_loop_ranks_after_a_slow_path_holding_much_of_its_cpu():
    from geventperf.findings.saturated import SLOW_PATH_LEADS_SHARE, _after_slow_paths
    lead = SLOW_PATH_LEADS_SHARE
    slow = [Finding(kind="pure-python-fallback", message="m", extra={"cpu_share": lead}),
            Finding(kind="charset-detection", message="m", extra={"cpu_share": lead - 1e-6})]
    assert _after_slow_paths(slow) == {"ranks_after": ["pure-python-fallback"]}
    assert _after_slow_paths(slow[1:]) == {}
    saturated = Finding(kind="loop-saturated", message="m", cost_s=1.698,
                        extra={"ranks_after": ["pure-python-fallback"]})
    fallback = Finding(kind="pure-python-fallback", message="m", cost_s=1.641)
    assert findings.sort_findings([saturated, fallback]) == [fallback, saturated]


@pytest.mark.parametrize("source, told", [
    ("        with self.conn:", True), ("    db.commit()", True),
    ("        with self.db:", True), ("        with self.db.cursor() as c:", False),
    ('    cur.execute("COMMIT")', True), ("    with self.lock:", False),
    ("    os.system('sync')", False)])
def test_a_blocking_call_found_committing_is_told_to_commit_per_batch(tmp_path, source, told):
    from geventperf.findings import blockingstory
    from geventperf.profile import Profile
    path = tmp_path / "store.py"
    path.write_text("class Store:\n    def upsert(self, row):\n" + source + "\n")
    line = f"{path}:3:Store.upsert"
    seen = blockingstory.Seen(line=line, looks=48, total=53, stack=[line])
    story = blockingstory.blocking_story(Profile(duration_s=1.0), line, seen)
    assert ("committing a database transaction" in story
            and "one transaction per batch of records" in story) is told, story


@pytest.mark.parametrize("source, told", [
    ("        self.db.execute(", True), ('    rows = cur.fetchall()', True),
    ('    cur.execute("COMMIT")', False),  # a commit: committing's story
    ("    os.system('sync')", False)])
def test_a_blocking_call_found_running_a_statement_names_it_and_the_threadpool(
        tmp_path, source, told):
    # an unseen thumbnail service's sqlite write, waiting out another process's lock:
    # "found it at ...:321" with the generic cures, the threadpool last
    from geventperf.findings import blockingstory
    from geventperf.profile import Profile
    path = tmp_path / "index.py"
    path.write_text("class Index:\n    def record(self, row):\n" + source + "\n")
    line = f"{path}:3:Index.record"
    seen = blockingstory.Seen(line=line, looks=48, total=49, stack=[line])
    story = blockingstory.blocking_story(Profile(duration_s=1.0), line, seen)
    assert f"(48 of 49), `{source.strip()}`" in story, story
    assert ("running a database statement" in story
            and "Fix: run the statements in gevent.get_hub().threadpool" in story) is told, \
        story


@pytest.mark.parametrize("source, patched, told", [
    ("    rc = os.system('curl -sSf -T %s %s' % (\n        path, url))", ["socket"], True),
    ("    subprocess.run(['tar', 'xf', path], check=True)", ["socket"], True),
    ("    subprocess.run(['tar', 'xf', path], check=True)", ["socket", "subprocess"], False),
    ("    os.fsync(fd)", ["socket"], False)])
def test_a_blocking_call_found_waiting_for_a_child_is_told_gevent_subprocess(
        tmp_path, source, patched, told):
    # an unseen CI publisher's os.system("curl -T ...") per file ran its uploaders one at
    # a time: told among ten causes; gevent.subprocess took 78 % off the run
    from geventperf.findings import blockingstory
    from geventperf.profile import Profile
    path = tmp_path / "publish.py"
    path.write_text("import os, subprocess\ndef push(path, url):\n" + source + "\n")
    line = f"{path}:3:push"
    seen = blockingstory.Seen(line=line, looks=103, total=105, stack=[line])
    profile = Profile(duration_s=1.0)
    profile.meta["monkey_patched"] = patched
    story = blockingstory.blocking_story(profile, line, seen)
    assert ("waiting for a child process" in story
            and "Fix: start it with gevent.subprocess" in story) is told, story


def test_a_loop_saturated_by_requests_tells_the_same_answers_fetched_again_first():
    # requests_saturated's loop (half its CPU in requests' layers), its one host's 400
    # GETs asking for 20 URLs: a cache comes before a cheaper Session
    from tests.test_mut_findings import requests_saturated
    p = requests_saturated()
    p.events = [{"kind": "urllib3-pool", "pool": "http://fx:80", "calls": 400, "gets": 400,
                 "distinct_gets": 20, "top_gets": [["/rate?d=1", 30]]}]
    [found] = findings.loop_saturated(p)
    cache = found.message.index("The 400 GET requests to http://fx:80 asked for only 20 "
                                "different URLs")
    assert cache < found.message.index("geventperf.Session()"), found.message
    p.events[0]["distinct_gets"] = 101  # under 4 each: no such sentence
    [found] = findings.loop_saturated(p)
    assert "different URLs" not in found.message


def test_a_loop_saturated_by_requests_tells_another_hosts_repeats_with_its_line():
    """Before (an unseen beacon collector: its campaign lookups, 2 117 GETs for 24 URLs,
    beside a geo host asked more, of too many URLs to count): "82 % of the CPU inside
    requests" first, the cache a finding of its own after it."""
    from tests.test_mut_findings import requests_saturated
    p = requests_saturated()
    p.events = [{"kind": "urllib3-pool", "pool": "http://geo:80", "calls": 3500,
                 "gets": 3500, "distinct_gets": None},
                {"kind": "urllib3-pool", "pool": "http://campaign:80", "calls": 2117,
                 "gets": 2117, "distinct_gets": 24, "top_gets": [["/c?s=news", 106]],
                 "call_sites": [["/srv/beacons.py:282:campaign", 64]]}]
    [found] = findings.loop_saturated(p)
    cache = found.message.index(
        "The 2117 GET requests to http://campaign:80 (from /srv/beacons.py:282:campaign) "
        "asked for only 24 different URLs")
    assert cache < found.message.index("geventperf.Session()"), found.message


@pytest.mark.parametrize("line, after, told", [
    ("        job = lane.get()", "        results.put(job())", False),
    ("        client = lane.get()", "        lane.put(client)", True)])
def test_peers_taking_work_nobody_puts_back_are_no_pool_too_small(tmp_path, line, after,
                                                                   told):
    # handoff_profile's peers (test_mut_findings), their get() at a real line: a worker
    # taking jobs from its lane, fed from elsewhere, is idle capacity; one giving the
    # item back is a pool of items
    from tests.test_mut_findings import handoff_profile
    path = tmp_path / "dispatch.py"
    path.write_text("\n" * 77 + "def consume(lane, results):\n    while True:\n" + line +
                    "\n" + after + "\n")
    p = handoff_profile()
    p.greenlet(3).name = "app.fetch"
    consume = f"{path}:80:consume"
    for rows in (p.waits, p.runs):
        for w in rows:
            w.stack = [consume if f.endswith(":80:consume") else f for f in w.stack]
    assert bool(findings.serial_bottleneck(p)) is told


def test_the_same_answers_fetched_again_come_right_after_the_calls_in_turns_figures():
    from geventperf.findings.sequential import _repeats_first
    repeats = " Those 40 GET requests asked for only 2 different URLs."
    told = "Figures (3 ms per call). A greenlet waits on one thing at a time, so..."
    assert _repeats_first(told, repeats) == (
        "Figures (3 ms per call). Those 40 GET requests asked for only 2 different URLs. "
        "A greenlet waits on one thing at a time, so...")
    assert _repeats_first("Figures, 3 ms each. A greenlet waits on one thing at a time",
                          "") == "Figures, 3 ms each. A greenlet waits on one thing at a time"
    # a figure without its period before the sentence gets one; no such sentence: at the end
    assert _repeats_first("Figures A greenlet waits on one thing at a time", repeats) \
        .startswith("Figures. Those 40")
    assert _repeats_first("Figures.", repeats) == "Figures." + repeats


@pytest.mark.parametrize("calls, held_s, once", [(1, 0.031, True), (2, 0.4, True),
                                                  (3, 0.031, False), (1, 0.5, False),
                                                  (0, 0.031, False)])
def test_a_lock_held_for_a_call_or_two_in_all_is_a_one_time_set_up(calls, held_s, once):
    # a 5 s run: its first token fetched under a single flight (waits: connect, head,
    # body) is no pace, under a tenth of the run and two calls; more, longer, or no call
    from geventperf.findings import limits
    holding = limits.Holding(lock=None, by_caller={("app.py:170:get", "app.py:189:call"):
                                                   [3, held_s, calls]},
                             cpu=None, slept=None, block=None)
    assert limits._held_once(Profile(duration_s=5.0), holding) is once


@pytest.mark.parametrize("sites, guessed", [
    (None, True),  # an older profile: no call sites to check
    ([[f"{APP}:67:lookup", 10]], True),  # the holders' line
    ([[f"{APP}:67:lookup", 6], [f"{APP}:120:poll", 4]], False)])
def test_a_semaphores_width_is_guessed_only_from_a_pool_its_holders_alone_used(sites,
                                                                             guessed):
    # lock_contended_by_a_semaphore_letting_few_calls_through's profile, its pool's peak
    # of 2 of 10: a poller's calls outside the lock make that peak no holders' count
    from tests.test_mut_findings import contend, pool_profile
    p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
    contend(p, 12)
    p.waits[0].call = "with"
    p.runs[0].greenlet = 3
    p.waits.append(StackTime(stack=[f"{GEVENT}:687:SocketMixin.recv_into",
                                    f"{APP}:67:lookup", f"{APP}:90:resolve"],
                             count=10, wait_s=1.25, event_wait_s=1.25, ready_wait_s=0.0))
    p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 10,
                 "maxsize": 10, "peak_in_use": 2}]
    if sites is not None:
        p.events[0]["call_sites"] = sites
    [f] = findings.lock_contended(p)
    assert ("a Semaphore(2) limiting" in f.message) is guessed, f.message


def test_needless_calls_take_no_share_of_the_queueing_behind_long_slices():
    # 4 greenlet-seconds of queueing, 3 of them behind a slice over the threshold (a
    # blocking call's): half the calls skipped take half of the other 1, with half of
    # the line's 2 s wait
    from geventperf.findings.repeated import skipped_cost
    from tests.test_mut_findings import blocked_slice
    p = profile(events=[blocked_slice(3, 0.2, 0.0, 3.0)])
    p.greenlets[2].ready_wait_s, p.greenlets[3].ready_wait_s = 2.5, 1.5
    pool = {"kind": "urllib3-pool", "pool": "http://a:80", "calls": 10}
    assert skipped_cost(p, [pool], 2.0, 10, 5) == (1.5, 0.5)


def test_jobs_joining_greenlets_another_finding_tells_rank_after_it():
    # the unseen notification service's figures: the jobs' joins cost 255 s, the sends'
    # waits for a connection 217 s, beneath the line the joined greenlets mostly
    # waited at (its function named by its code's name there)
    from geventperf.findings.limits import JOINED_NOT_EXPLAINED, after_joined_told
    joined = Finding(kind="pool-full", cost_s=255.0, message=(
        "Each job waited for the slowest of the greenlets it started, at app.py:380:handle, "
        "holding its slot meanwhile. A gevent Pool was full: the jobs were waiting, and "
        + JOINED_NOT_EXPLAINED + "the greenlets paced the work. [cost 255 s]"),
        extra={"joined_in_slots": True, "joined_mostly_at": [
            "app.py:317:Providers.send_email", "app.py:391:Dispatcher.deliver"]})
    connections = Finding(kind="connection-pool-full", message="c", cost_s=217.0,
                          extra={"site": "app.py:317:send_email"})
    elsewhere = Finding(kind="repeated-request", message="r", cost_s=240.0,
                        extra={"site": "app.py:90:other"})
    ranked = findings.sort_findings(after_joined_told([joined, connections, elsewhere]))
    assert ranked == [elsewhere, connections, joined]
    assert joined.message.startswith(
        "Each job waited for the slowest of the greenlets it started, at app.py:380:handle, "
        "holding its slot meanwhile. The greenlets the jobs joined mostly waited at "
        "app.py:317:send_email, which the connection-pool-full finding tells: cure that "
        "first"), joined.message
    assert JOINED_NOT_EXPLAINED not in joined.message and joined.message.endswith("[cost 255 s]")
    # nothing at those lines: the order is the costs'
    connections.extra["site"] = "app.py:318:send_sms"
    joined.extra.pop("ranks_after")
    assert findings.sort_findings(after_joined_told([joined, connections])) == [joined,
                                                                               connections]



@pytest.mark.parametrize("peak, told", [(None, False), (2, True), (8, True), (9, False)])
def test_callers_of_requests_get_need_a_connection_each_only_when_alive_at_once(peak, told):
    # session_per_request_not_for_a_few_calls_or_short_waits' 16 connections made by 9
    # greenlets: a connection each, none to save; but where the pool watch saw at most 2
    # in use at once, the 9 came one after another, and a shared Session keeps 2 (an
    # unseen gateway's greenlet per backend call: 3 360 connections, 107 at once); at 8,
    # 16 is just twice what one Session keeps (REUSE_RATIO), at 9 (every caller) under
    from tests.test_mut_findings import _named_callers, api_profile
    p = _named_callers(api_profile(), 7)
    if peak is not None:
        p.events = [{"kind": "urllib3-pool", "pool": "https://a:443", "calls": 16,
                     "peak_in_use": peak}]
    assert bool(findings.session_per_request(p)) is told


def test_a_loop_held_by_code_with_a_cheaper_way_says_it_first():
    # held_profile's hasher, its CPU in copy.deepcopy under its own line (an unseen
    # gateway's template deep-copied per request, one slice each: "cut it into pieces"
    # was no fix for a single deepcopy call)
    from tests.test_mut_findings import cpu_samples
    p = held_profile()
    p.cpu_samples = cpu_samples([(["/usr/lib/python3.11/copy.py:128:deepcopy",
                                   f"{APP}:23:render"], "app.hasher", 8, 0.5),
                                 ([f"{APP}:40:handler"], "app.fetch", 8, 0.5)])
    [f] = findings.loop_held(p)
    assert "Fix: first make that code cheaper (it deep-copies an object" in f.message, \
        f.message
    assert f.message.index("deep-copies") < f.message.index("smaller pieces")


def test_a_saturated_loop_computing_with_the_statistics_module_is_told_running_sums():
    # an unseen gateway's z-score per device reading: statistics.pstdev over its window
    # (exact arithmetic with fractions), 85 % of the CPU, told the generic menu
    from tests.test_mut_findings import cpu_samples, saturated
    p = saturated()
    for g in (3, 4, 5, 1):
        p.greenlet(g).cpu_s = p.greenlet(g).run_s
    p.cpu_samples = cpu_samples([(["/usr/lib/python3.11/statistics.py:318:_exact_ratio",
                                   "/usr/lib/python3.11/statistics.py:934:pstdev",
                                   f"{APP}:77:RollingStats.zscore"], "app.fetch", 8, 1.0)])
    [f] = findings.loop_saturated(p)
    assert "it computes statistics with the statistics module" in f.message, f.message
    assert f.message.index("keep running sums") < f.message.index("In figures"), f.message


# Three crawlers' calls in turn (tests/diagnosis/crawlers_in_turn.py's shape): 120 waits
# for an answer at one line, 2.46 greenlet-s over a 1 s run, on a pool keeping 10.
CRAWLER_CALL = ["/v/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into",
                "/py/http/client.py:323:HTTPResponse.begin",
                "/v/site-packages/requests/sessions.py:671:Session.get",
                f"{APP}:46:item", f"{APP}:54:crawl"]


def crawlers_profile(*, busy: float = 0.1, peak: int = 3, crawlers: int = 3,
                     fed: bool = False) -> Profile:
    p = Profile(duration_s=1.0, switches=400)
    p.hub = {"id": 2, "utilization": busy, "idle_s": 1.0 - busy}
    p.greenlets = [GreenletStats(id=1, name="main", parent=None),
                   GreenletStats(id=2, name="hub", parent=None)] + [
        GreenletStats(id=3 + i, name="crawler", parent=1, wait_s=2.46 / crawlers,
                      event_wait_s=2.46 / crawlers) for i in range(crawlers)]
    p.waits = [StackTime(stack=CRAWLER_CALL, count=120, wait_s=2.46, event_wait_s=2.46)]
    p.runs = [StackTime(stack=CRAWLER_CALL, count=120, run_s=0.05, greenlet=3)]
    if fed:  # each took its item from a queue first (a wait at its own line)
        take = [f"{APP}:50:work"]
        p.waits.append(StackTime(stack=take, count=120, wait_s=0.01, event_wait_s=0.01))
        p.runs.append(StackTime(stack=take, count=120, run_s=0.01, greenlet=3))
    p.events = [{"kind": "urllib3-pool", "pool": "http://127.0.0.1:8080", "calls": 120,
                 "peak_in_use": peak, "maxsize": 10, "call_sites": [[f"{APP}:46:item", 120]]}]
    return p


def test_a_few_greenlets_making_their_calls_in_turn_are_told_with_their_count():
    [f] = findings.sequential_calls(crawlers_profile())
    assert f.kind == "sequential-calls" and f.extra["callers"] == 3, f
    assert f.extra["calls"] == 120 and f.extra["site"] == f"{APP}:46:item"
    # the waiting less what the pool's ten at once would have left of it
    assert f.cost_s == pytest.approx(2.46 * (1 - 2.46 / 10))
    assert "in each of 3 greenlets named 'crawler'" in f.message, f.message
    assert "n about 3" in f.message, f.message  # 10 connections over the 3 at once


@pytest.mark.parametrize("shape", [
    {"busy": 0.8},  # the loop had no room: made together, they would queue behind it
    {"peak": 6},  # over half the pool's 10 in use: little room to make them together
    {"crawlers": 1},  # one greenlet's loop is _job_calls_in_turn's, with its own gates
    {"fed": True},  # workers fed by a queue: workers-saturated's story
])
def test_callers_in_turn_are_not_told_outside_their_shape(shape):
    assert not findings.sequential_calls(crawlers_profile(**shape))


def test_a_bottleneck_paced_by_a_stall_says_so_before_its_cost_note():
    from geventperf.findings.common import _finding
    from geventperf.findings.handoff import after_stalls_told
    site = f"{APP}:40:fetch"
    bottleneck = _finding("serial-bottleneck", "The workers waited on 'load'.", 3.0, [],
                          site=site, cost_meaning="waiting")
    stall = _finding("delayed-ack-stall", "Delayed-ACK stall.", 2.0, [], site=site)
    after_stalls_told([bottleneck, stall])
    assert bottleneck.extra["ranks_after"] == "delayed-ack-stall"
    assert bottleneck.message == (
        f"The workers waited on 'load'. Their calls at {site} stalled on the wire (the "
        "delayed-ack-stall finding): cure that first, and their pace with it. "
        "[cost 3.000 s: waiting]"), bottleneck.message


def test_a_full_connection_pool_whose_requests_stalled_ranks_after_the_stall():
    """Before (an unseen flag service's pool of 8, every answer on its host 42 ms late on
    a delayed ACK): "no other finding explains their waits ... (the network was not the
    slow part)", beside that stall, whose cure alone gained as much as a larger pool."""
    from geventperf.findings.common import _finding
    from geventperf.findings.handoff import after_stalls_told
    from geventperf.findings.limits import POOL_NOT_EXPLAINED
    site = f"{APP}:256:OverridesClient.for_user"

    def told(stall_site):
        pool = _finding("connection-pool-full", f"Pool full{POOL_NOT_EXPLAINED}. Fix: larger.",
                        145.0, [], site=site, cost_meaning="waiting")
        stall = _finding("delayed-ack-stall", "Delayed-ACK stall.", 78.0, [],
                         site=stall_site)
        return pool, findings.sort_findings(after_stalls_told([pool, stall]))
    pool, ranked = told(f"{APP}:256:for_user")  # (a call site names the code's name)
    assert [f.kind for f in ranked] == ["delayed-ack-stall", "connection-pool-full"]
    assert pool.message == (
        f"Pool full. Fix: larger. Each request at {APP}:256:for_user held its connection "
        "while its answer stalled on the wire (the delayed-ack-stall finding): cure that "
        "first, and each holds it for less; then see whether the pool still fills. "
        "[cost 145.000 s: waiting]"), pool.message
    pool, ranked = told(f"{APP}:99:other")
    assert ranked[0] is pool and POOL_NOT_EXPLAINED in pool.message


def test_requests_cpu_from_a_session_made_per_call_ranks_after_that_finding(monkeypatch):
    # an unseen price pusher's loop, 96 % of its CPU in requests for a Session made per
    # call: told "geventperf.Session()" first (8 % off its run), where one Session
    # shared by the calls took 32 % (imported inside loop_saturated: patched there)
    from geventperf.findings import connections
    from tests.test_mut_findings import requests_saturated
    per_call = Finding(kind="session-per-request", message="s", cost_s=0.1)
    monkeypatch.setattr(connections, "session_per_request", lambda profile: [per_call])
    [saturated] = findings.loop_saturated(requests_saturated())
    assert saturated.extra["ranks_after"] == ["session-per-request"]
    assert "for a Session made per call (session-per-request, told before this finding)" \
        in saturated.message, saturated.message
    assert findings.sort_findings([saturated, per_call]) == [per_call, saturated]
    monkeypatch.setattr(connections, "session_per_request", lambda profile: [])
    [alone] = findings.loop_saturated(requests_saturated())
    assert "ranks_after" not in alone.extra and "made per call" not in alone.message


# A handler of an in-process server, waiting inside the application (its own I/O).
STAND_IN_HANDLER = ["/v/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into",
                    f"{APP}:68:indexer_app",
                    "/v/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application"]


def as_stand_in(p: Profile, gid: int, caller: str | None) -> Profile:
    """*p* with greenlet *gid* a connection of an in-process server on port 8080, which
    the program calls through requests from the line *caller* (None: nobody does)."""
    p.greenlet(gid).name = "gevent.baseserver._handle_and_close_when_done"
    p.events = [{"kind": "pywsgi-responses", "served": 40, "ports": [8080]}] + (
        [{"kind": "urllib3-pool", "pool": "http://127.0.0.1:8080", "calls": 40,
          "call_sites": [[caller, 40]]}] if caller else [])
    return p


def test_an_in_process_stand_in_servers_connection_is_no_feeder():
    # handoff_profile's feeder made an in-process server's connection, busy in its
    # handler (an unseen feed relay's indexer, asleep answering the relay's own posts,
    # was named a pace-setter "busy 89 %"); while nobody calls that server through
    # requests, it may be one (a webhook receiver that enqueues)
    from tests.test_mut_findings import handoff_profile

    def relay(called: bool) -> list[Finding]:
        p = handoff_profile(feeder_stack=STAND_IN_HANDLER)
        return findings.serial_bottleneck(as_stand_in(p, 3, f"{APP}:90:push" if called
                                                      else None))

    assert not relay(called=True)
    [told] = relay(called=False)
    assert told.extra["feeders"] == [3], told


def test_a_full_connection_pool_names_its_smallest_size():
    # an unseen sync's three adapters on one host kept 4, 10 and 10: the pools table
    # showed 10, and the 4 blocked its 40 workers
    from geventperf.findings.limits import _blocking_sizes
    from geventperf.formats._tables import pool_table
    host = {"kind": "urllib3-pool", "pool": "http://up:80", "calls": 684, "pools": 3,
            "maxsize": 10, "minsize": 4, "block": True, "peak_in_use": 10}
    p = Profile(duration_s=1.0, events=[host])
    assert _blocking_sizes(p) == "; here http://up:80's smallest pool keeps 4 (its largest 10)"
    assert pool_table(p).rows[0][4] == "4-10"
    host["minsize"] = 10
    assert _blocking_sizes(p) == "; here http://up:80's pool keeps 10"
    assert pool_table(p).rows[0][4] == "10"
    host["block"] = False  # it does not wait for a connection: no size to blame
    assert _blocking_sizes(p) == ""


def test_full_connection_pools_name_the_line_that_made_them_once_for_hosts_alike():
    """Unseen testers of two rounds were sent to the request's line, not to the line
    mounting the adapter with pool_maxsize=2; three hosts of one adapter read as three."""
    from geventperf.findings.limits import _blocking_sizes
    made = "/srv/job.py:177:__init__"
    hosts = [{"kind": "urllib3-pool", "pool": f"http://up{n}:80", "calls": 100 - n,
              "maxsize": 8, "minsize": 8, "block": True, "made_at": [[made, 8]]}
             for n in range(3)]
    p = Profile(duration_s=1.0, events=hosts)
    assert _blocking_sizes(p) == ("; here the pools of http://up0:80, http://up1:80 and "
                                  f"http://up2:80 keep 8 each, made at {made}")
    hosts[2]["made_at"] = [["/srv/job.py:90:setup", 8]]  # another adapter's line
    assert _blocking_sizes(p) == (
        "; here the pools of http://up0:80 and http://up1:80 keep 8 each, made at "
        f"{made}, http://up2:80's pool keeps 8, made at /srv/job.py:90:setup")
    hosts[2]["made_at"] = [["<unknown>", 8]]  # made outside the program: no line
    assert _blocking_sizes(p).endswith("http://up2:80's pool keeps 8"), _blocking_sizes(p)


def test_calls_in_turn_through_a_helper_name_the_lines_that_called_it():
    # an unseen product page's five calls in turn, each through its one-line fetch
    # wrapper: told at the wrapper, where no fix goes
    from geventperf.findings.sequential import _called_from
    fetch = f"{APP}:97:fetch"

    def rows(*callers: str) -> list[StackTime]:
        return [StackTime(stack=["/py/http/client.py:323:HTTPResponse.begin", fetch, caller,
                                 f"{APP}:127:app"]) for caller in callers]

    lined_up = rows(f"{APP}:103:page", f"{APP}:107:page", f"{APP}:104:page")
    assert _called_from(lined_up, fetch) == f", called from {APP}:page at lines 103, 104 and 107"
    assert _called_from(rows(f"{APP}:103:page.<locals>.<listcomp>"), fetch) == ""  # a loop
    assert _called_from(rows(f"{APP}:103:page", f"{APP}:40:other"), fetch) == ""


@pytest.mark.parametrize("source_calls, source_distinct, told", [
    (9, 9, True),  # a source paged through, each page asked once: no load test
    (9, 5, False),  # a few things asked again elsewhere too: a load test, a poll
    (4, 4, False)])  # too few pages to tell
def test_few_urls_asked_again_beside_a_paged_source_are_told(source_calls, source_distinct,
                                                             told):
    # an unseen catalog job paged 9 times through its events, then looked 4 000
    # products up for 61 different ones behind a cache that never hit: "FINDINGS: none"
    from geventperf.findings.repeated import _few_asked
    lookups = {"kind": "urllib3-pool", "pool": "http://a:80", "calls": 4000, "gets": 4000,
               "distinct_gets": 61}
    source = {"kind": "urllib3-pool", "pool": "http://src:80", "calls": source_calls,
              "gets": source_calls, "distinct_gets": source_distinct}
    rows = [(["GET /products/P0", 2206, f"{APP}:126:product"], "http://a:80")]
    found = _few_asked(Profile(duration_s=1.0), [lookups, source], rows, lookups, 4000, 61,
                       True)
    assert (found is not None) is told, found
    if told:
        assert found[0] == 4000 - 61 and found[5] == f"{APP}:126:product"


def test_the_waiters_namesakes_are_no_second_pace_setter_beside_a_lead_of_another_name():
    # handoff_profile's waiter (app.fetch #4) busy too, at calls of its own: credited
    # with its peers' calls through the stacks they share, it read as a second feeder
    # beside the lead (an unseen audit job's 8 enrichers, idle two thirds of the run,
    # "busy 86 %" beside the cursor reader they waited for)
    from tests.test_mut_findings import handoff_profile
    # (its 400 waits for items against the reader's 12 wake-ups: no source by that count,
    # a page of items per wake)
    p = handoff_profile(consume_waits=400)
    p.greenlet(3).name = "app.reader"
    call = [f"{GEVENT}:687:SocketMixin.recv_into", f"{APP}:111:enrich"]
    p.waits.append(StackTime(stack=call, count=40, wait_s=1.6, event_wait_s=1.6,
                             ready_wait_s=0.0))
    p.runs.append(StackTime(stack=call, count=40, greenlet=4))
    p.greenlet(4).event_wait_s = 3.0 + 1.6
    [f] = findings.serial_bottleneck(p)
    assert f.extra["feeders"] == [3], f.message
    assert "'app.fetch' (#4)" not in f.message.split("meanwhile")[1], f.message


@pytest.mark.parametrize("url, paged", [
    ("/changes?limit=25&cursor=eyJhZnRlciI6IDI1fQ%3D%3D", ("cursor", ("limit", 25))),
    ("/audit/events?after=81723", ("after", None)),
    ("/changes?offset=500&limit=25", None),  # an offset: pages that can go together
    ("/changes?page=3", None)])
def test_pages_fetched_by_a_cursor_are_told_from_the_urls_the_line_asked(url, paged):
    from geventperf.findings.paging import cursor_paging
    p = Profile(events=[{"kind": "urllib3-pool", "pool": "http://feed:80",
                         "call_sites": [[f"{APP}:94:follow", 40]], "top_gets": [[url, 1]]}])
    found = cursor_paging(p, f"{APP}:94:Relay.follow")
    assert ((found.cursor, found.size) if found else None) == paged, found
    assert cursor_paging(p, f"{APP}:95:Relay.follow") is None  # another line's calls


def test_a_feeder_paging_by_a_cursor_is_told_as_the_floor_not_to_work_concurrently():
    # handoff_profile's feeder, its line's requests paging by a cursor (an unseen feed
    # relay's follower and an unseen audit job's reader were told to do their work
    # concurrently: more workers gained nothing or ran slower)
    from tests.test_mut_findings import handoff_profile
    p = handoff_profile()
    p.greenlet(3).name = "app.reader"
    p.events = [{"kind": "urllib3-pool", "pool": "http://feed:80", "calls": 12,
                 "call_sites": [[f"{APP}:20:produce", 12]],
                 "top_gets": [["/changes?limit=25&cursor=MjU%3D", 1]]}]
    [f] = findings.serial_bottleneck(p)
    assert "page by a cursor (cursor=..., limit=25)" in f.message, f.message
    assert "do that work concurrently" not in f.message, f.message


def test_calls_in_turn_paging_by_a_cursor_are_told_as_their_floor():
    # crawlers_profile's calls, their URLs carrying a cursor: no "make them together"
    p = crawlers_profile()
    p.events[0]["top_gets"] = [["/items?per_page=50&page_token=Zm9v", 1]]
    [f] = findings.sequential_calls(p)
    assert "page by a cursor (page_token=..., per_page=50)" in f.message, f.message
    assert "a larger per_page=" in f.message and "calls together" not in f.message


def test_a_full_pool_spawned_into_by_an_imap_names_the_line_that_iterated_it():
    # the slot waits are the imap's own greenlet's (#3), started by main (#1), which
    # waited for its results right at its own line: an unseen enrichment job's Pool(4)
    # was told "inside gevent's Pool.imap", no line of the program's
    from tests.test_mut_findings import MAP_SLOT_STACK, pool_profile
    p = pool_profile(1.5, [(MAP_SLOT_STACK, 1.5)])
    p.runs[0].greenlet = 3
    p.greenlet(3).name = "gevent._gevent_c_imap.IMapUnordered._run"
    loop = [f"{APP}:159:run"]
    p.waits.append(StackTime(stack=loop, count=40, wait_s=1.5, event_wait_s=1.5,
                             ready_wait_s=0.0, call="for"))
    p.runs.append(StackTime(stack=loop, count=40, greenlet=1))
    [f] = findings.pool_full(p)
    assert f"for the pool used at {APP}:159:run" in f.message, f.message
    p.greenlet(3).name = "app.spawner"  # not an imap's greenlet: no line to name
    [g] = findings.pool_full(p)
    assert "for the pool used at" not in g.message, g.message


def test_a_full_pool_fed_by_several_requests_handlers_says_it_is_shared_by_them():
    # an unseen search gateway's module-level Pool(4) of price lookups, fed by every
    # request's imap: told a larger Pool, not that each request queued behind others'
    from tests.test_mut_findings import MAP_SLOT_STACK, pool_profile
    p = pool_profile(1.5, [(MAP_SLOT_STACK, 1.5)])
    p.runs[0].greenlet = 3
    imap = "gevent._gevent_c_imap.IMapUnordered._run"
    p.greenlet(3).name = p.greenlet(4).name = imap
    connection = "gevent.baseserver._handle_and_close_when_done"
    p.greenlets += [GreenletStats(id=6, name=connection, parent=2),
                    GreenletStats(id=7, name=connection, parent=2)]
    p.greenlet(3).parent, p.greenlet(4).parent = 6, 7
    [f] = findings.pool_full(p)
    assert "one Pool shared by the service's concurrent requests (2 connections'" \
        in f.message, f.message
    p.greenlet(4).parent = 6  # one connection's: no sharing to tell
    [g] = findings.pool_full(p)
    assert "shared by the service's concurrent requests" not in g.message, g.message


def test_an_in_process_stand_in_servers_connection_feeds_no_workers():
    # workers_profile's feeder (main, busy at its listen line) made a connection of an
    # in-process server the program calls, busy in its handler: a stand-in for the
    # workers' upstream (an unseen fingerprinting job's origin was named "most likely
    # what fed them", and the job told to add workers that gained nothing)
    from tests.test_mut_findings import workers_profile

    def run(called: bool) -> list[Finding]:
        p = workers_profile()
        p.waits[2].stack, p.runs[2].stack = list(STAND_IN_HANDLER), list(STAND_IN_HANDLER)
        return findings.workers_saturated(as_stand_in(p, 1, f"{APP}:20:produce" if called
                                                      else None))

    assert not run(called=True)
    [told] = run(called=False)  # a server the program does not call: it may feed them
    assert told.extra["feeder"] == 1 and "To tell which: run once with half the workers" \
        in told.message, told.message


@pytest.mark.parametrize("statement, told", [
    ('        log.debug(f"verdict: "\n                  f"{json.dumps(body, indent=2)}")', True),
    ('        text = (f"verdict: "\n                f"{json.dumps(body, indent=2)}")', False)])
def test_json_encoded_for_a_log_message_built_before_the_call_says_so_first(
        tmp_path, statement, told):
    # an unseen fraud screen's disabled debug log built json.dumps(indent=2, ...) of
    # every verdict, over two lines: told only json's slow encoder, whose fix (no
    # indent=) left the run 29 % slower than not building the message at all
    from tests.test_mut_findings import JSON_ENC, sampled
    path = tmp_path / "screen.py"
    path.write_text("def ask(body):\n" + statement + "\n")
    line = f"{path}:3:ask"  # the sampled line: the statement's second
    [f] = findings.slow_paths(sampled([([f"{JSON_ENC}:200:_iterencode_dict", line], "j", 5,
                                        0.125)], {"json_c": True}))
    assert ("it builds a log message before the logging call" in f.message) is told, \
        f.message
    assert "json.dumps(obj) without indent=" in f.message


def test_a_statement_over_several_lines_is_read_whole(tmp_path):
    from geventperf.frames import statement_source
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    y = g(x,\n          1)\n    return y\n")
    assert statement_source(f"{path}:3:f") == "y = g(x, 1)"
    assert statement_source(f"{path}:4:f") == "return y"
    assert statement_source(f"{tmp_path}/absent.py:3:f") == ""


@pytest.mark.parametrize("block", [
    "    match x:\n        case 1:\n            pass\n",
    "    try:\n        pass\n    except* ValueError:\n        pass\n",
    "    if x:\n        pass\n",
], ids=["match", "try-star", "if"])
def test_a_compound_statements_header_is_read_alone(tmp_path, block):
    # its header line is not the statement: the whole block would read as one line
    from geventperf.frames import statement_source
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n" + block)
    assert statement_source(f"{path}:2:f") == block.splitlines()[0].strip()


@pytest.mark.parametrize("decorator, different, told", [
    ("functools.lru_cache(maxsize=256)", 530, "it keeps 256 results, fewer than the 530"),
    ("functools.lru_cache(maxsize=1024)", 530, "what it is keyed on"),
    ("functools.cache", None, "what it is keyed on"),
    ("functools.lru_cache(maxsize=SIZE)", 530, "either it keeps fewer results"),
    (None, 530, ""),
])
def test_a_cache_already_around_repeated_requests_is_told(tmp_path, decorator, different,
                                                          told):
    # an unseen export builder's lru_cache(maxsize=256) cycled through 320 assets and
    # never hit: told "a cache in front of the call", the real cause a hint among four
    from geventperf.findings.repeated import _cache_around, _cached_already
    path = tmp_path / "export.py"
    path.write_text((f"@{decorator}\n" if decorator else "") +
                    "def asset(key):\n    return http.get(key).content\n\n"
                    "def build(keys):\n    return [asset(k) for k in keys]\n")
    body = 3 if decorator else 2
    stack = ["/v/site-packages/requests/sessions.py:671:Session.get", f"{path}:{body}:asset",
             f"{path}:{body + 3}:build.<locals>.<listcomp>"]
    said = _cached_already(_cache_around(stack), "http://assets", different)
    assert (told in said) if told else said == "", said
    if told:
        assert said.startswith(f"asset is cached already ({decorator} at {path}:1)"), said


def test_a_kept_sessions_pools_made_again_are_no_session_made_per_call(monkeypatch):
    # pools a kept Session's PoolManager closed and made again (evicted): requests' CPU
    # is not a Session made per call, and the saturation does not rank after them
    from geventperf.findings import connections
    from tests.test_mut_findings import requests_saturated
    evicted = Finding(kind="session-per-request", message="s", cost_s=0.1,
                      extra={"evicted": True})
    monkeypatch.setattr(connections, "session_per_request", lambda profile: [evicted])
    [saturated] = findings.loop_saturated(requests_saturated())
    assert "ranks_after" not in saturated.extra
    assert "made per call" not in saturated.message, saturated.message


def test_a_blocking_call_told_first_does_not_rank_after_new_sessions(tmp_path, monkeypatch):
    # an unseen rollout's commit per record led its saturation (44.66 s), which ranked
    # after session-per-request's 1.68 s, whose cure gained nothing
    from geventperf.findings import connections
    from tests.test_partly_blocking import held
    per_call = Finding(kind="session-per-request", message="s", cost_s=0.1)
    monkeypatch.setattr(connections, "session_per_request", lambda profile: [per_call])
    p, _path = held(tmp_path, 0.25, "commit")
    [saturated] = findings.loop_saturated(p)
    assert saturated.message.startswith("The loop was saturated. The greenlets holding it "
                                        "were off the CPU"), saturated.message
    assert "ranks_after" not in saturated.extra


@pytest.mark.parametrize("kept, told", [(None, True), (10, True), (11, False), (160, False)])
def test_pools_made_again_are_closed_past_what_their_manager_keeps(kept, told):
    # 11 hosts, each reached through 24 pools for 40 requests: past requests' default of
    # 10 hosts (and an older profile's, which does not say), one Session's PoolManager
    # closed them; within the pool_connections its manager kept (the pool watch's
    # "kept"), they were not closed by it (an unseen rollout's Sessions kept 160 and
    # were told "keeps pools for 10 of them")
    from tests.test_mut_findings import churn_profile, urllib3_pool
    events = [urllib3_pool(f"https://h{i}:443", 40, 3, 10, 0, pools=24) for i in range(11)]
    for e in events:
        e["checkouts"], e["kept"] = 40, kept
    found = findings.session_per_request(churn_profile(events, lookups=9))
    assert any(f.extra.get("evicted") for f in found) is told, found
    if told:
        assert f"PoolManager keeps pools for {kept or 10} of them" in found[0].message


def test_connections_requests_functions_opened_are_counted_per_calling_line():
    # each connection waits once at each step (the lookup, the connect): per line the
    # step waited most often, summed over the lines (an unseen media job's 4 522
    # connections from six lines were told as "at least 1510", its largest line's)
    from tests.test_mut_findings import API_CALL, APP, CONNECT_STACK, LOOKUP_STACK, profile
    other_line = [*API_CALL[:-1], f"{APP}:25:other_worker"]
    p = profile(waits=[
        StackTime(stack=list(LOOKUP_STACK), count=16, wait_s=0.5, event_wait_s=0.5),
        StackTime(stack=list(CONNECT_STACK), count=15, wait_s=0.125, event_wait_s=0.125),
        StackTime(stack=[*LOOKUP_STACK[:-len(API_CALL)], *other_line], count=30, wait_s=0.5,
                  event_wait_s=0.5)])
    [found] = findings.session_per_request(p)
    assert found.extra["connections"] == 16 + 30, found.extra
    assert "at least 46 connections were opened" in found.message, found.message


def test_a_gc_pause_in_code_that_copies_as_it_runs_names_the_copy_first():
    # an unseen validator deep-copied a 3 400-contig reference per sample: 3 266
    # collections, told "that code is not the cause" and gc.freeze(); sharing the
    # reference read-only left 64.  Without CPU samples in such code, the start-up heap's
    # story stays.
    from tests.test_mut_findings import blocked_slice, cpu_samples, profile
    p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.375, gc_generation=2)])
    p.meta["gc"] = {"collections": [3000, 250, 25], "total_s": 1.0, "longest_s": 0.375,
                    "longest_generation": 2}
    [before] = findings.loop_blocked(p)
    assert "that code is not the cause" in before.message, before.message
    p.cpu_samples = cpu_samples([(["/usr/lib/python3.11/copy.py:128:deepcopy",
                                   f"{APP}:23:resolve"], "app.fetch", 8, 0.5)])
    [f] = findings.loop_blocked(p)
    assert f.kind == "gc-pause" and "that code is not the cause" not in f.message, f.message
    assert "it deep-copies an object" in f.message, f.message
    assert f.message.index("deep-copies") < f.message.index("Fix: after that cheaper code, "
                                                             "call gc.freeze()"), f.message
    assert f.stack[0].endswith("copy.py:128:deepcopy"), f.stack


def test_redirects_of_links_handed_out_per_item_are_no_moved_address():
    """Before (an unseen podcast directory's per-episode tracking links, 937 URLs each
    asked once, each a 302 to its CDN): "a configured address that moved ... the
    configured base URL updated", where no address was configured."""
    from tests.test_mut_findings import profile

    def told(gets, distinct, kept=0):
        return findings.redirects_followed(profile(events=[{
            "kind": "urllib3-pool", "pool": "http://trk:80", "calls": 40, "redirects": 40,
            "gets": gets, "distinct_gets": distinct, "redirected_to": [["http://cdn:80", 40]],
            "redirects_kept_path": kept,
            "trails": {"new": [1, 0, 0.0, 0.0, 0.0], "reused": [39, 0, 0.0, 0.0, 0.8]}}]))
    for distinct in (40, 36, None):  # each, nearly each, or too many to count
        [links] = told(40, distinct)
        assert "no configured address moved" in links.message, links.message
        assert "base URL" not in links.message, links.message
    [moved] = told(40, 2)  # two URLs, asked again and again: an address that moved
    assert "the configured base URL updated to http://cdn:80" in moved.message, moved.message
    # forty items' paths, each sent to the same path on the new host: a moved address
    [moved] = told(40, 40, kept=40)
    assert "the configured base URL updated to http://cdn:80" in moved.message, moved.message


def test_a_full_pool_whose_jobs_queued_at_a_bottlenecks_hand_off_gives_way_to_it():
    """Before (an unseen podcast indexer's crawlers, in a Pool, putting into the queue of
    one slow writer): "no other finding explains their waits, so the pool's size paced
    the work", where a larger Pool would only have queued more crawlers at the put."""
    from geventperf.findings.common import _finding
    from geventperf.findings.limits import without_outweighed_limits
    put = f"{APP}:181:FeedCrawler.crawl"

    def kept(handoff_site, cost):
        pool = _finding("pool-full", "A gevent Pool was full.", 7.0, [], jobs_site=put)
        bottleneck = _finding("serial-bottleneck", "Many waited for a few.", cost, [],
                              site=f"{APP}:154:IndexWriter.run", handoff_site=handoff_site)
        return [f.kind for f in without_outweighed_limits([bottleneck, pool])]
    assert kept(put, 84.0) == ["serial-bottleneck"]
    assert kept(f"{APP}:99:other", 84.0) == ["serial-bottleneck", "pool-full"]
    assert kept(put, 5.0) == ["serial-bottleneck", "pool-full"]  # (costing less)


def test_health_and_metrics_probes_are_no_repeated_request():
    """Before (an unseen reconciliation job's probe of its own /healthz and /metrics, 298
    times): "a cache in front of the call would skip 296 of them", first, ahead of its
    real cache bug; a probe asks again by design, its answer the state of now."""
    from geventperf.findings.held import is_probe, repeats_told
    from tests.test_mut_findings import repeated_profile
    for url in ("GET /healthz", "/health", "http://a:80/readyz?verbose=1", "/metrics",
                "GET /api/v1/ping", "/jobs/7/status/"):
        assert is_probe(url), url
    for url in ("GET /health/records", "/metrics/cpu.json", "/pings", "/v1/items/7"):
        assert not is_probe(url), url
    told = repeated_profile()
    assert findings.repeated_requests(told)  # the POST alike: told
    probe = repeated_profile()
    probe.events[0]["same_requests"][0][0] = "GET /healthz"
    assert not findings.repeated_requests(probe)
    polled = {"kind": "urllib3-pool", "pool": "http://127.0.0.1:8080", "calls": 298,
              "gets": 298, "distinct_gets": 2, "top_gets": [["/healthz", 149], ["/metrics", 149]]}
    probe.events = [polled]
    assert repeats_told(probe, any_host=True) == ""
    polled["top_gets"] = [["/v1/config", 149], ["/metrics", 149]]
    assert "asked for only 2 different URLs" in repeats_told(probe, any_host=True)


def _one_off_pool(host="http://store:80", gets=2558, distinct=262, changed=0):
    return {"kind": "urllib3-pool", "pool": host, "calls": gets, "gets": gets,
            "distinct_gets": None, "oneoff_gets": gets, "distinct_oneoff": distinct,
            "oneoff_sites": [[f"{APP}:167:fetch_original", gets]],
            "oneoff_changed": [200, changed, "/originals/a.png?X-Expires=*&X-Nonce=*"],
            "set_aside": [["X-Expires", gets], ["X-Nonce", gets]],
            "call_sites": [[f"{APP}:167:fetch_original", 64]]}


def test_one_off_urls_lead_the_cache_story_of_a_saturated_loop():
    """Before (an unseen thumbnail service's originals fetched under signed URLs, 2 558
    for 262 images): the saturated loop's cache story named its catalog's 90 URLs and
    its own load clients, not the cache keyed on signed URLs."""
    from geventperf.findings.held import asked_one_off, repeats_told
    from tests.test_mut_findings import profile
    catalog = {"kind": "urllib3-pool", "pool": "http://catalog:80", "calls": 900,
               "gets": 900, "distinct_gets": 90, "top_gets": [["/v1/products/1", 82]],
               "call_sites": [[f"{APP}:154:product", 64]]}
    p = profile(events=[catalog, _one_off_pool()])
    told = repeats_told(p, any_host=True)
    assert told.startswith(" The 2558 GET requests to http://store:80 (from "
                           f"{APP}:167:fetch_original) each carried values new at every "
                           "request (X-Expires, X-Nonce)"), told
    assert "Likewise the 900 GET requests to http://catalog:80" in told, told
    # answers that changed, or too few asks each (a cold start's two), are not told
    assert asked_one_off(_one_off_pool(changed=60)) is None
    assert asked_one_off(_one_off_pool(gets=524)) is None  # 2x each
    assert asked_one_off(_one_off_pool(gets=656)) == (656, 262, ["X-Expires", "X-Nonce"])


def test_lookups_posted_again_and_again_lead_the_cache_story_of_a_saturated_loop():
    """Before (an unseen translation proxy POSTing its memory lookups 5 077 times for
    1 121 segments, behind a cache keyed on each segment's id): the saturated loop was
    told as requests' CPU only, its repeats a second finding."""
    from geventperf.findings.held import repeats_told
    from tests.test_mut_findings import profile
    posted = {"kind": "urllib3-pool", "pool": "http://tm:80", "calls": 1268, "gets": 0,
              "distinct_gets": 0, "others": 1268, "distinct_sent": 120, "keyed": 1268,
              "distinct_keys": 120, "call_sites": [[f"{APP}:242:machine_translate", 64]]}
    told = repeats_told(profile(events=[posted]), any_host=True)
    assert told == (
        f" The 1268 requests to http://tm:80 (from {APP}:242:machine_translate) were only "
        "120 different ones by method, URL and body (11 each on average): if the answers "
        "hold between calls, a cache in front of the call skips 1148 of them -- keyed on "
        "what the answer depends on only (a key holding a timestamp, a request or trace "
        "id, or a fresh object never hits)."), told
    posted["distinct_keys"] = 1000  # about one each: varied lookups, no cache story
    assert repeats_told(profile(events=[posted]), any_host=True) == ""
