"""critical-path: one greenlet alone in flight, read from hand-built timelines (each
slice says where its greenlet went on to wait).  The real workloads are in
test_diagnosis.py (tests/diagnosis/lone_main.py)."""

from __future__ import annotations

import pytest

from geventperf import findings
from geventperf.findings.critical import (
    ALONE_MIN_TURNS,
    DEP,
    DRIVE,
    FOR_WORK,
    IDLE,
    OWN,
    SOCKET,
    alone_stretches,
    critical_path,
    wait_class,
)
from geventperf.profile import Finding, GreenletStats, Profile, Slice, StackTime

APP = "app.py"
GEVENT = "/venv/lib/python3.11/site-packages/gevent"
HTTP_CALL = [f"{GEVENT}/_socketcommon.py:687:SocketMixin.recv_into",
             "/usr/lib/python3.11/socket.py:706:SocketIO.readinto",
             "/usr/lib/python3.11/http/client.py:286:HTTPResponse._read_status",
             "/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin",
             f"{APP}:20:fetch", f"{APP}:30:warm"]
SLEEP = [f"{GEVENT}/hub.py:166:sleep", f"{APP}:40:drain", f"{APP}:50:main"]
JOIN = [f"{APP}:60:stop", f"{APP}:70:main"]
QUEUE_GET = [f"{APP}:80:worker"]
QUEUE_PUT = [f"{GEVENT}/queue.py:300:Queue.put", f"{APP}:90:produce"]
HANDLER_SLEEP = [f"{GEVENT}/hub.py:166:sleep", f"{APP}:100:upstream_app",
                 f"{GEVENT}/pywsgi.py:1057:WSGIHandler.run_application"]
IDLE_SERVER = [f"{GEVENT}/_socketcommon.py:687:SocketMixin.recv_into",
               "/usr/lib/python3.11/socket.py:706:SocketIO.readinto",
               f"{GEVENT}/pywsgi.py:723:WSGIHandler.read_requestline"]
WAITS = [StackTime(stack=HTTP_CALL, count=1, wait_s=1.0),         # 0
         StackTime(stack=SLEEP, count=1, wait_s=1.0),             # 1
         StackTime(stack=JOIN, count=1, wait_s=1.0, call="join"),  # 2
         StackTime(stack=QUEUE_GET, count=1, wait_s=1.0, call="get"),  # 3
         StackTime(stack=QUEUE_PUT, count=1, wait_s=1.0),         # 4
         StackTime(stack=HANDLER_SLEEP, count=1, wait_s=1.0),     # 5
         StackTime(stack=IDLE_SERVER, count=1, wait_s=1.0)]       # 6
CALL, POLL, JOINED, GET, PUT, HANDLER, IDLE_CONN = range(7)
MAIN, HUB, JOB, SERVER = 1, 2, 3, 4
TURN_S, RUN_S = 0.1, 0.001


def profile(slices: list[Slice], duration: float, dropped: int = 0) -> Profile:
    return Profile(duration_s=duration, slices=slices, slices_dropped=dropped,
                   waits=[StackTime(**vars(w)) for w in WAITS], hub={"id": HUB},
                   greenlets=[GreenletStats(id=MAIN, name="main", parent=None),
                              GreenletStats(id=HUB, name="hub", parent=MAIN),
                              GreenletStats(id=JOB, name="job", parent=MAIN),
                              GreenletStats(id=SERVER, parent=MAIN, name=(
                                  "gevent.baseserver._handle_and_close_when_done"))],
                   meta={"block_threshold_s": 0.05})


def main_turns(wait: int, turns: int = 20, turn_s: float = TURN_S) -> list[Slice]:
    """main runs a moment, then waits *turn_s* at row *wait*, *turns* times."""
    return [Slice(MAIN, i * turn_s, RUN_S, wait=wait) for i in range(turns)]


def beside(gid: int, wait: int, turns: int = 20, at: float = 0.01,
           turn_s: float = TURN_S) -> list[Slice]:
    """Greenlet *gid* runs *at* into each of main's turns and then waits at *wait*."""
    return [Slice(gid, i * turn_s + at, RUN_S, wait=wait) for i in range(turns)]


def only(found: list[Finding]) -> Finding:
    assert [f.kind for f in found] == ["critical-path"], found
    return found[0]


def test_wait_kinds():
    kinds = [wait_class(w) for w in WAITS]
    assert kinds == [SOCKET, OWN, DRIVE, FOR_WORK, DEP, OWN, IDLE]


def test_calls_in_turn_with_nothing_else_in_flight_are_the_runs_wall_clock():
    found = critical_path(profile(main_turns(CALL), duration=2.0))
    f = only(found)
    assert f.greenlet == MAIN and f.extra["site"] == f"{APP}:20:fetch"
    assert f.extra["state"] == SOCKET and f.extra["turns"] == 20
    # its running between the calls is the loop's too (building the next call)
    assert f.cost_s == pytest.approx(20 * TURN_S - RUN_S)
    assert f.extra["ranks_first"] and f.extra["wall_share"] == pytest.approx(0.9995)
    assert "(called from app.py:30:warm) 20 times (20 calls, one after another)" in f.message
    assert "(0.019 s of that time on the CPU between the waits)" not in f.message  # 1 %
    assert "Pool(n).imap_unordered" in f.message


def test_an_in_process_server_answering_the_call_is_not_concurrent_work():
    # its handler sleeps (an upstream's latency) while main waits on the socket
    slices = main_turns(CALL) + beside(SERVER, HANDLER)
    assert only(critical_path(profile(slices, 2.0))).extra["state"] == SOCKET


def test_another_greenlet_in_flight_makes_no_one_alone():
    slices = main_turns(CALL) + beside(JOB, CALL)
    assert critical_path(profile(slices, 2.0)) == []


def test_a_greenlet_blocked_on_the_one_in_flight_is_a_bottleneck_not_alone():
    # a producer waiting on a full queue: queue-full's story, not main's alone time
    slices = main_turns(CALL) + [Slice(JOB, 0.0005, RUN_S, wait=PUT)]
    assert critical_path(profile(slices, 2.0)) == []


def test_idle_server_connections_and_consumers_awaiting_work_leave_it_alone():
    slices = main_turns(CALL) + [Slice(SERVER, 0.0005, RUN_S, wait=IDLE_CONN),
                                 Slice(JOB, 0.0007, RUN_S, wait=GET)]
    assert only(critical_path(profile(slices, 2.0))).cost_s > 1.5


def test_a_sleep_that_outlived_the_work_is_its_alone_part():
    # each 0.1 s poll begins with the job in flight; the job's work ends 0.04 s in
    slices = main_turns(POLL)
    for i in range(20):  # a job of its own each time, which ends (its slice waits nowhere)
        slices += [Slice(100 + i, i * TURN_S + 0.0005, 0.0395, wait=None)]
    f = only(critical_path(profile(slices, 2.0)))
    assert f.extra["state"] == OWN and f.cost_s == pytest.approx(20 * 0.06, rel=0.01)
    assert "slept in gevent.sleep at app.py:40:drain" in f.message
    assert "pool.join(timeout=...)" in f.message


def test_a_sleep_begun_with_nothing_in_flight_waits_on_something_elsewhere():
    # a poll for a server starting in another process: the whole sleep alone
    assert critical_path(profile(main_turns(POLL), 2.0)) == []


def test_joins_of_workers_idle_in_get_end_only_by_their_timeouts():
    slices = main_turns(JOINED) + [Slice(JOB, 0.0005, RUN_S, wait=GET)]
    f = only(critical_path(profile(slices, 2.0)))
    assert f.extra["state"] == DRIVE and f.extra["site"] == f"{APP}:60:stop"
    assert "(the others waited at app.py:80:worker)" in f.message
    assert "gevent.joinall(workers, timeout=...)" in f.message


def test_greenlets_joined_one_at_a_time_are_told_with_their_joiner():
    """A supervisor stops and joins its shippers one by one (main joins the supervisor):
    each shipper drains alone, and the line is the shippers', the cause the join."""
    supervisor = 5
    slices = [Slice(MAIN, 0.0, RUN_S, wait=JOINED), Slice(supervisor, 0.0005, RUN_S,
                                                          wait=JOINED)]
    for i in range(10):
        slices += [Slice(100 + i, i * TURN_S + 0.001, RUN_S, wait=CALL),
                   Slice(100 + i, (i + 1) * TURN_S - 0.0005, 0.0001)]  # it ends
    p = profile(slices, 1.0)
    p.greenlets.append(GreenletStats(id=supervisor, name="supervisor", parent=MAIN))
    f = only(critical_path(p))
    assert f.extra["site"] == f"{APP}:20:fetch" and f.extra["state"] == SOCKET
    assert "10 greenlets such as" in f.message
    assert f"while {APP}:60:stop waited for it to end" in f.message
    assert "gevent.joinall(greenlets, timeout=...)" in f.message


def test_batches_joined_all_at_once_are_told_as_waiting_for_their_slowest():
    """The same timeline, the joiner waiting in joinall(): each batch's last member ran
    alone, a batch as slow as its slowest, not greenlets joined one at a time."""
    supervisor = 5
    slices = [Slice(MAIN, 0.0, RUN_S, wait=JOINED), Slice(supervisor, 0.0005, RUN_S,
                                                          wait=JOINED)]
    for i in range(10):
        slices += [Slice(100 + i, i * TURN_S + 0.001, RUN_S, wait=CALL),
                   Slice(100 + i, (i + 1) * TURN_S - 0.0005, 0.0001)]
    p = profile(slices, 1.0)
    p.waits[JOINED].call = "joinall"
    p.greenlets.append(GreenletStats(id=supervisor, name="supervisor", parent=MAIN))
    f = only(critical_path(p))
    assert f"while {APP}:60:stop waited for them all at once (joinall())" in f.message
    assert "joined one at a time" not in f.message
    assert "gevent.pool.Pool (imap_unordered)" in f.message


def test_too_few_turns_or_one_long_one_is_no_pattern():
    assert critical_path(profile(main_turns(CALL, turns=ALONE_MIN_TURNS - 1), 2.0)) == []
    start_up = [Slice(MAIN, 0.0, RUN_S, wait=CALL)] + [
        Slice(MAIN, 1.0 + i * 0.01, RUN_S, wait=CALL) for i in range(ALONE_MIN_TURNS)]
    assert critical_path(profile(start_up, 2.0)) == []  # 1 s of it in one wait


def test_under_a_tenth_of_the_run_is_no_finding():
    assert critical_path(profile(main_turns(CALL), duration=25.0)) == []


def test_a_profile_whose_slices_say_nothing_of_their_waits_has_no_stretches():
    slices = [Slice(s.greenlet, s.start_s, s.duration_s) for s in main_turns(CALL)]
    assert alone_stretches(profile(slices, 2.0)) == ([], {})
    assert critical_path(profile(slices, 2.0)) == []


def test_greenlets_whose_earlier_slices_were_dropped_count_as_in_flight_until_seen():
    # the job's first kept slice comes at the end: before it, what it did is unknown
    slices = main_turns(CALL) + [Slice(JOB, 1.99, RUN_S, wait=CALL)]
    assert critical_path(profile(slices, 2.0, dropped=1000)) == []
    # had nothing been dropped, the job was simply not born yet
    assert only(critical_path(profile(slices, 2.0))).greenlet == MAIN


def test_a_critical_path_another_finding_tells_gives_it_its_place():
    crit = Finding(kind="critical-path", message="c", greenlet=MAIN, cost_s=1.5,
                   extra={"site": f"{APP}:20:fetch", "ranks_first": True})
    calls = Finding(kind="sequential-calls", message="s", greenlet=MAIN, cost_s=1.4,
                    extra={"site": f"{APP}:20:fetch"})
    other = Finding(kind="critical-path", message="o", greenlet=MAIN, cost_s=0.5,
                    extra={"site": f"{APP}:40:drain", "ranks_first": False})
    assert findings.without_stretches_told([crit, calls, other]) == [calls, other]
    assert calls.extra["ranks_first"] is True
