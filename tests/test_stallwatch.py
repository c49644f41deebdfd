"""The stall watch (geventperf/trace/stallwatch.py): a watchdog thread that looks at the
traced thread's stack while one run slice holds the loop, so a blocking call is named
where it blocked; its looks reach the slice's event, and the thread ends with the
tracer."""

from __future__ import annotations

import sys
import time

import gevent
import pytest
from gevent import monkey

from geventperf import Tracer
from geventperf.sections import get_ident
from geventperf.trace.stallwatch import MAX_LOOKS_PER_SLICE, StallWatch
from tests import tracer_impl

impl = tracer_impl.impl
blocking_sleep = monkey.get_original("time", "sleep")
INTERVAL_S = 0.01


def threads() -> int:
    """Threads of this process Python knows, including those started with _thread
    (which threads() leaves out)."""
    return len(sys._current_frames())


def threads_become(count: int) -> bool:
    """Whether threads() reaches *count* within a second (a thread shows once it runs)."""
    deadline = time.monotonic() + 1.0
    while threads() != count and time.monotonic() < deadline:
        blocking_sleep(0.005)
    return threads() == count


def _here() -> str:
    """This frame's label, as a look records it."""
    frame = sys._getframe(1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}:{frame.f_code.co_qualname}"


def test_a_look_while_the_switch_count_stands_still():
    switches = [0]
    watch = StallWatch(get_ident(), lambda: switches[0], lambda: False, INTERVAL_S, 8)
    before = threads()
    watch.start()
    assert threads_become(before + 1)
    try:
        where = _here(); blocking_sleep(0.1)  # noqa: E702 -- the look's line
        switches[0] = 1  # a switch: the slice ended
        looks = watch.take(0)
        assert 1 <= len(looks) <= MAX_LOOKS_PER_SLICE
        assert all(look[0] == where for look in looks), looks
        assert watch.take(0) == []  # taken once
    finally:
        watch.stop()
    assert threads_become(before)  # the thread ended with stop()
    assert watch.errors == 0


def test_no_look_while_the_hub_runs_or_switches_go_on():
    switches = [0]
    hub = [True]
    watch = StallWatch(get_ident(), lambda: switches[0], lambda: hub[0], INTERVAL_S, 8)
    watch.start()
    try:
        blocking_sleep(0.05)  # the hub's slice (the loop idle): nothing to say
        hub[0] = False
        for n in range(1, 11):  # a switch every 5 ms: no slice held the loop
            switches[0] = n
            blocking_sleep(INTERVAL_S / 2)
        assert all(watch.take(n) == [] for n in range(11))
    finally:
        watch.stop()


def test_taking_a_slice_forgets_the_earlier_ones():
    switches = [0]
    watch = StallWatch(get_ident(), lambda: switches[0], lambda: False, INTERVAL_S, 8)
    watch.start()
    try:
        blocking_sleep(0.05)
        switches[0] = 5
        blocking_sleep(0.05)
        switches[0] = 6
        assert watch.take(5)  # slice 0's looks go with it, to the short slices' tally
        assert watch.take(0) == []
        assert sum(watch.short.values()) >= 1
    finally:
        watch.stop()


def test_looks_at_slices_never_taken_are_tallied_by_stack():
    """Slices past half the threshold but not past it are never taken (no event):
    their looks are counted by stack, as many as the watch could keep."""
    switches = [0]
    watch = StallWatch(get_ident(), lambda: switches[0], lambda: False, INTERVAL_S, 8)
    watch.start()
    try:
        for n in range(1, 4):
            where = _here(); blocking_sleep(0.05)  # noqa: E702 -- the looks' line
            switches[0] = n
    finally:
        watch.stop()  # the last slice's looks go to the tally at stop
    short, dropped = watch.short_looks()
    assert dropped == 0 and len(short) == 1, short
    [(stack, looks)] = short.items()
    assert stack[0] == where and 3 <= looks <= 3 * MAX_LOOKS_PER_SLICE


def test_short_slices_that_blocked_reach_the_profile(impl):
    def keeper(where):
        for _ in range(4):
            gevent.sleep(0.001)
            where.append(_here()); blocking_sleep(0.03)  # noqa: E702

    where: list[str] = []
    with Tracer(stall_watch=True, block_threshold=0.04) as tracer:
        gevent.joinall([gevent.spawn(keeper, where), gevent.spawn(gevent.sleep, 0.15)])
    p = tracer.profile
    assert not [e for e in p.events if e["kind"] == "blocked-slice"]  # all under 40 ms
    [ev] = [e for e in p.events if e["kind"] == "stall-looks"]
    assert ev["dropped"] == 0
    assert any(stack[0] == where[0] and n >= 1 for stack, n in ev["looks"]), ev


def test_an_error_in_a_look_is_counted_not_raised():
    def broken() -> int:
        raise RuntimeError("ours")

    watch = StallWatch(get_ident(), broken, lambda: False, INTERVAL_S, 8)
    watch.start()
    blocking_sleep(0.05)
    watch.stop()
    assert watch.errors >= 1


def test_the_watchs_errors_reach_the_profile_and_the_report(impl, monkeypatch):
    def broken(self, key: int) -> None:
        raise RuntimeError("ours")

    with Tracer(stall_watch=True, block_threshold=0.04) as tracer:
        gevent.spawn(blocking_sleep, 0.06).join()
    assert tracer.profile.meta["stall_watch_errors"] == 0
    assert "stall watch" not in tracer.profile.render("text")
    monkeypatch.setattr(StallWatch, "_look", broken)
    with Tracer(stall_watch=True, block_threshold=0.04) as tracer:
        gevent.spawn(blocking_sleep, 0.06).join()
    errors = tracer.profile.meta["stall_watch_errors"]
    assert errors >= 1
    assert f"trace errors: 0 (and {errors} in the stall watch's looks)" in \
        tracer.profile.render("text")


def test_a_blocking_call_is_seen_where_it_blocked(impl):
    def keeper(where):
        for _ in range(2):
            gevent.sleep(0.001)  # where the slices end: the loop's top
            where.append(_here()); blocking_sleep(0.08)  # noqa: E702

    where: list[str] = []
    with Tracer(stall_watch=True, block_threshold=0.04) as tracer:
        gevent.joinall([gevent.spawn(keeper, where), gevent.spawn(gevent.sleep, 0.1)])
    p = tracer.profile
    gid = next(g.id for g in p.greenlets if g.name.endswith(".keeper"))
    events = [e for e in p.events if e["kind"] == "blocked-slice" and e["greenlet"] == gid]
    assert len(events) == 2
    for e in events:
        assert e["stall_looks"] and all(look[0] == where[0] for look in e["stall_looks"])
    [f] = [f for f in p.findings if f.kind == "blocking-call"]
    assert f.stack[0] == where[0] and f"found it at {where[0]} (" in f.message


def test_without_the_watch_there_is_no_thread_and_no_look(impl):
    before = threads()
    with Tracer(block_threshold=0.04) as tracer:
        assert threads() == before
        gevent.spawn(blocking_sleep, 0.06).join()
    assert all(e.get("stall_looks") == [] for e in tracer.profile.events
               if e["kind"] == "blocked-slice")


@pytest.mark.parametrize("stop", ["stop", "reset"])
def test_the_watch_ends_with_the_tracer(impl, stop):
    before = threads()
    tracer = Tracer(stall_watch=True)
    tracer.start()
    try:
        assert threads_become(before + 1)
        if stop == "reset":
            tracer.reset()  # a new watch for the new run, the old one gone
            assert threads_become(before + 1)
    finally:
        tracer.stop()
    assert threads_become(before)
