"""Profile: save/load round trip of a traced run, the events field, and merge."""

from __future__ import annotations

import gevent
import pytest

from geventperf import Profile, ProfileError, Tracer, section
from geventperf.profile import (
    Finding,
    GreenletStats,
    SectionStats,
    Slice,
    StackTime,
    merge_profiles,
)


def traced_run() -> Profile:
    def job():
        with section("fetch"):
            gevent.sleep(0.01)

    with Tracer(block_threshold=1e-6) as tracer:  # every slice "blocks": events galore
        gevent.joinall([gevent.spawn(job) for _ in range(2)])
    return tracer.profile


def test_traced_profile_round_trips_through_a_file(tmp_path):
    p = traced_run()
    assert p.events and p.findings and p.slices and p.waits and p.runs
    path = tmp_path / "run.json"
    p.save(path)
    loaded = Profile.load(path)
    assert loaded.to_dict() == p.to_dict()
    assert loaded.section_named("fetch").calls == 2
    assert [f.kind for f in loaded.findings] == [f.kind for f in p.findings]


def test_events_must_be_objects():
    data = Profile().to_dict()
    data["events"] = [1]
    with pytest.raises(ProfileError, match="events"):
        Profile.from_dict(data)
    del data["events"]
    assert Profile.from_dict(data).events == []  # older files have none


def worker(n: int, duration: float) -> Profile:
    """A profile shaped like one worker process's: hub 1, main 2, jobs 3 and 4."""
    return Profile(
        duration_s=duration, switches=10 * n,
        hub={"id": 1, "run_s": 0.5, "cpu_s": 0.1, "idle_s": 0.4},
        greenlets=[GreenletStats(id=1, name="hub", parent=2, run_s=0.5),
                   GreenletStats(id=2, name="main", parent=None),
                   GreenletStats(id=3, name="job", parent=2, run_s=0.25),
                   GreenletStats(id=4, name="job", parent=3, run_s=0.25)],
        sections=[SectionStats(name="parse", c=True, calls=n, wall_s=1.0, run_s=0.5,
                               wait_s=0.5, switches=n, cpu_s=0.25)],
        waits=[StackTime(stack=["a.py:1:f"], count=n, wait_s=1.0)],
        runs=[StackTime(stack=["a.py:1:f"], count=n, run_s=0.5, cpu_s=0.25)],
        findings=[Finding(kind="loop-blocked", message=f"worker {n}", greenlet=3,
                          cost_s=float(n), extra={"count": n})],
        reads=[{"host": "h:80", "bodies": n, "bytes": 100 * n, "reads": 2 * n,
                "reads_waited": n, "wall_s": 0.5}],
        slices=[Slice(3, 0.0, 0.1, None)], slices_dropped=n, trace_errors=n,
        events=[{"kind": "lxml-concurrent-parse", "greenlet": 3, "other": 4}],
        meta={"pid": 1000 + n})


def test_merge_of_worker_profiles():
    a, b = worker(1, 3.0), worker(2, 2.0)
    m = merge_profiles([a, b])
    assert m.duration_s == 3.0 and m.switches == 30
    ids = [g.id for g in m.greenlets]
    assert ids == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [g.parent for g in m.greenlets] == [2, None, 2, 3, 6, None, 6, 7]
    assert m.hub["id"] == 1 and m.hub["ids"] == [1, 5]
    assert m.hub["run_s"] == 1.0 and m.hub["idle_s"] == pytest.approx(0.8)
    [parse] = m.sections
    assert (parse.calls, parse.wall_s, parse.switches, parse.cpu_s) == (3, 2.0, 3, 0.5)
    assert m.waits == [StackTime(stack=["a.py:1:f"], count=3, wait_s=2.0)]
    assert m.runs[0].run_s == 1.0 and m.runs[0].cpu_s == 0.5
    assert [f.message for f in m.findings] == ["worker 2", "worker 1"]  # worst first
    assert [f.greenlet for f in m.findings] == [7, 3]
    assert m.reads == [{"host": "h:80", "bodies": 3, "bytes": 300, "reads": 6,
                        "reads_waited": 3, "wall_s": 1.0}]
    assert [s.greenlet for s in m.slices] == [3, 7]
    assert m.slices_dropped == 3 and m.trace_errors == 3
    assert [(e["greenlet"], e["other"]) for e in m.events] == [(3, 4), (7, 8)]
    assert [s["pid"] for s in m.meta["sources"]] == [1001, 1002]
    # the inputs are untouched
    assert [g.id for g in b.greenlets] == [1, 2, 3, 4] and b.findings[0].greenlet == 3


def test_merge_marks_unmeasured_cpu_as_unmeasured():
    a, b = worker(1, 1.0), worker(1, 1.0)
    b.hub["cpu_s"] = b.hub["idle_s"] = None
    b.sections[0].cpu_s = None
    b.reads[0]["reads_waited"] = None
    m = Profile.merge([a, b])
    assert m.hub["cpu_s"] is None and m.sections[0].cpu_s is None
    assert m.reads[0]["reads_waited"] is None


def test_merge_of_traced_runs_saves_and_loads(tmp_path):
    m = Profile.merge([traced_run(), traced_run()])
    ids = [g.id for g in m.greenlets]
    assert len(ids) == len(set(ids))
    assert m.section_named("fetch").calls == 4
    m.save(tmp_path / "merged.json")
    assert Profile.load(tmp_path / "merged.json").section_named("fetch").calls == 4


def test_merge_needs_profiles():
    with pytest.raises(ValueError, match="at least one"):
        merge_profiles([])
    with pytest.raises(TypeError, match="Profile objects"):
        merge_profiles([{"duration_s": 1}])  # type: ignore[list-item]
