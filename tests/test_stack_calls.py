"""``StackTime.call``: what a wait's innermost frame was calling, from its bytecode
(geventperf/trace/stacks.py), on both hot paths, through JSON and merges."""

from __future__ import annotations

import dataclasses
import dis
import json
import textwrap

import gevent
import gevent.lock
import gevent.queue
import pytest

from geventperf import Tracer
from geventperf.profile import CALL_FOR, CALL_WITH, Profile, ProfileError
from geventperf.trace.stacks import calls_in
from tests import tracer_impl

impl = tracer_impl.impl

SOURCE = textwrap.dedent("""
    def f(sem, cfg, get, locks, key, q):
        with sem:
            pass
        sem.acquire(timeout=cfg.timeout)
        sem.acquire(timeout=get())
        locks[key].acquire()
        cfg.a.b.acquire(blocking=True)
        sem.acquire(
            timeout=cfg.timeout)
        q.get()
        cfg.event.wait(get(1))
        get()
        for item in q:
            pass
""")


def _calls_by_line() -> dict[int, list[str | None]]:
    namespace: dict = {}
    exec(compile(SOURCE, "<calls>", "exec"), namespace)
    code = namespace["f"].__code__
    calls = calls_in(code)
    found: dict[int, list[str | None]] = {}
    for ins in dis.get_instructions(code):
        if ins.opname in ("CALL", "BEFORE_WITH", "FOR_ITER") \
                and ins.positions.lineno is not None:
            found.setdefault(ins.positions.lineno, []).append(calls[ins.offset])
    return found


def test_the_call_is_read_from_the_instruction_the_frame_is_at():
    lines = _calls_by_line()
    # each line's calls, innermost (evaluated) first; the with block's exit call last
    assert lines[3] == [CALL_WITH, None]  # BEFORE_WITH, then __exit__'s call
    assert lines[5] == ["acquire"]  # not cfg.timeout's attribute
    assert lines[6] == [None, "acquire"]  # get() is no method; the outer call is
    assert lines[7] == ["acquire"]
    assert lines[8] == ["acquire"]  # cfg.a.b.acquire: the longest attribute
    assert lines[9] == ["acquire"]  # a call over two lines
    assert lines[11] == ["get"]
    assert lines[12] == [None, "wait"]
    assert lines[13] == [None]
    assert lines[14] == [CALL_FOR]


def test_only_with_entries_and_calls_are_read_and_an_unreadable_code_has_none():
    calls = calls_in(_calls_by_line.__code__)
    opnames = {ins.offset: ins.opname for ins in dis.get_instructions(_calls_by_line)}
    assert calls and {opnames[offset] for offset in calls} <= {"CALL", "BEFORE_WITH",
                                                               "FOR_ITER"}
    assert calls_in("not a code object") == {}


def _waits_by_call(profile: Profile) -> dict[str | None, float]:
    out: dict[str | None, float] = {}
    for w in profile.waits:
        if w.stack and "test_stack_calls.py" in w.stack[0]:
            out[w.call] = out.get(w.call, 0.0) + w.wait_s
    return out


def test_a_traced_run_records_what_each_wait_called(impl):
    semaphore = gevent.lock.BoundedSemaphore(1)
    queue = gevent.queue.Queue()

    def with_block():
        with semaphore:
            gevent.sleep(0.02)

    def acquire():
        semaphore.acquire()
        try:
            gevent.sleep(0.02)
        finally:
            semaphore.release()

    def consumer():
        queue.get()

    def iterating():
        for _item in queue:
            return

    with Tracer() as tracer:
        jobs = [gevent.spawn(f) for f in (with_block, acquire, with_block, consumer,
                                          iterating)]
        gevent.sleep(0.05)
        queue.put(1)
        queue.put(2)
        gevent.joinall(jobs)
    waits = _waits_by_call(tracer.profile)
    assert waits.get(CALL_WITH, 0) > 0 and waits.get("acquire", 0) > 0, waits
    assert waits.get("get", 0) >= 0.04, waits
    assert waits.get(CALL_FOR, 0) >= 0.04, waits  # the for loop's wait for an item
    assert waits.get("joinall", 0) > 0, waits  # the main greenlet's own wait


def test_the_call_survives_json_and_merges():
    profile = _profile_with_calls()
    expected = {tuple(w.stack): w.call for w in profile.waits}
    assert sorted(expected.values(), key=str) == [None, CALL_WITH]

    def calls(p: Profile) -> dict:
        return {tuple(w.stack): w.call for w in p.waits}

    assert calls(Profile.from_dict(json.loads(json.dumps(profile.to_dict())))) == expected
    older = profile.to_dict()
    for w in older["waits"]:
        del w["call"]  # a file written before the field
    assert set(calls(Profile.from_dict(older)).values()) == {None}
    assert calls(Profile.merge([Profile.from_dict(older), profile])) == expected
    bad = profile.to_dict()
    bad["waits"][0]["call"] = 3
    with pytest.raises(ProfileError, match="call"):
        Profile.from_dict(bad)


def _profile_with_calls() -> Profile:
    """A real profile cut to two waits of this file: one entering a with block, one
    whose call is unknown."""
    semaphore = gevent.lock.BoundedSemaphore(1)

    def holder():
        with semaphore:
            gevent.sleep(0.03)

    with Tracer() as tracer:
        gevent.joinall([gevent.spawn(holder), gevent.spawn(holder)])
    profile = tracer.profile
    [entered] = [w for w in profile.waits if w.call == CALL_WITH]
    [joined] = [w for w in profile.waits if w.call == "joinall"]
    profile.waits = [entered, dataclasses.replace(joined, call=None)]
    for s in profile.slices:  # their waits' indices were into the rows cut away
        s.wait = None
    return profile


def test_an_instruction_of_no_line_is_labelled_with_the_line_before_it():
    """A loop's JUMP_BACKWARD has no line, and it is where Python runs signal handlers:
    a CPU sample of a hot loop lands there.  It is labelled with the loop body's last
    line, not the function's def line (an unseen ingester's list scan was reported at
    its def line)."""
    import dis

    from geventperf.trace.stacks import Labeler

    def scan(items, seen):
        found = 0
        for item in items:
            if item in seen:
                found += 1
        return found

    code = scan.__code__
    jumps = [ins for ins in dis.get_instructions(code) if ins.opname.startswith("JUMP_BACK")]
    assert jumps, "no backward jump to test"
    unlined = [ins.offset for ins in jumps
               if all(line is None for start, end, line in code.co_lines()
                      if start <= ins.offset < end)]
    label = Labeler({}).label(code, (unlined or [jumps[0].offset])[0])
    line = int(label.rsplit(":", 2)[1])
    assert line != code.co_firstlineno, label
    assert code.co_firstlineno < line <= code.co_firstlineno + 5, label
