"""Profile.merge, field by field: every figure that merge sums is checked summed (the
fields are enumerated from the dataclasses, so a field added later is covered too),
every "not measured" (None) stays not measured, and the maxima stay maxima.

Values are distinct binary fractions, so sums are exact and no two fields can be
mistaken for each other."""

from __future__ import annotations

import itertools
import json
from dataclasses import fields

import pytest

from geventperf.profile import (
    GreenletStats,
    Profile,
    SectionStats,
    Slice,
    StackTime,
    merge_profiles,
)

# Fields that identify a row rather than measure it.
KEYS = {"name", "c", "stack", "greenlet", "call"}


def numeric_fields(cls) -> list[str]:
    return [f.name for f in fields(cls) if f.name not in KEYS]


def filled(cls, base: float, **keys):
    """An instance of *cls* with every measured field a distinct exact value."""
    values = {}
    for i, name in enumerate(numeric_fields(cls)):
        is_int = name in ("calls", "switches", "count")
        values[name] = int(base) * (i + 1) if is_int else base * (i + 1) / 64
    return cls(**keys, **values)


def pair() -> tuple[Profile, Profile]:
    a = Profile(duration_s=2.0, switches=10, slices_dropped=3, trace_errors=1,
                hub={"id": 2, "run_s": 0.5, "cpu_s": 0.25, "idle_s": 1.25, "polls": 7},
                greenlets=[GreenletStats(id=1, name="main", parent=None),
                           GreenletStats(id=2, name="hub", parent=None),
                           GreenletStats(id=3, name="w", parent=1)],
                sections=[filled(SectionStats, 3.0, name="s", c=False),
                          filled(SectionStats, 5.0, name="only-a", c=True)],
                waits=[filled(StackTime, 7.0, stack=["f:1:a"])],
                runs=[filled(StackTime, 9.0, stack=["f:2:b"])],
                reads=[{"host": "h:80", "bodies": 2, "bytes": 100, "reads": 4,
                        "reads_waited": 1, "wall_s": 0.5}],
                slices=[Slice(3, 0.0, 0.5)])
    b = Profile(duration_s=3.0, switches=20, slices_dropped=5, trace_errors=2,
                hub={"id": 1, "run_s": 0.75, "cpu_s": 0.125, "idle_s": 2.5, "polls": 11},
                greenlets=[GreenletStats(id=1, name="hub", parent=None),
                           GreenletStats(id=2, name="main", parent=None),
                           GreenletStats(id=3, name="w", parent=2)],
                sections=[filled(SectionStats, 11.0, name="s", c=True)],
                waits=[filled(StackTime, 13.0, stack=["f:1:a"]),
                       filled(StackTime, 17.0, stack=["f:9:z"])],
                runs=[filled(StackTime, 19.0, stack=["f:2:b"])],
                reads=[{"host": "h:80", "bodies": 1, "bytes": 28, "reads": 3,
                        "reads_waited": 2, "wall_s": 0.25}],
                slices=[Slice(3, 0.0, 0.25)])
    return a, b


@pytest.mark.parametrize("name", numeric_fields(SectionStats))
def test_every_section_figure_is_summed(name):
    a, b = pair()
    m = merge_profiles([a, b])
    merged = m.section_named("s")
    assert getattr(merged, name) == \
        getattr(a.section_named("s"), name) + getattr(b.section_named("s"), name)
    assert merged.c is True  # a C section in either run is a C section
    assert m.section_named("only-a") == a.section_named("only-a")


@pytest.mark.parametrize("table", ["waits", "runs"])
@pytest.mark.parametrize("name", numeric_fields(StackTime))
def test_every_stack_figure_is_summed(table, name):
    a, b = pair()
    m = merge_profiles([a, b])
    stack = getattr(a, table)[0].stack
    [merged] = [st for st in getattr(m, table) if st.stack == stack]
    [in_b] = [st for st in getattr(b, table) if st.stack == stack]
    assert getattr(merged, name) == getattr(getattr(a, table)[0], name) + getattr(in_b, name)


def test_stacks_of_one_run_only_are_kept_as_they_were():
    a, b = pair()
    m = merge_profiles([a, b])
    [only_b] = [st for st in m.waits if st.stack == ["f:9:z"]]
    assert only_b == b.waits[1]
    assert len(m.waits) == 2 and len(m.runs) == 1


def test_top_level_and_hub_figures_are_summed():
    a, b = pair()
    a.hub["process_cpu_s"], b.hub["process_cpu_s"] = 1.5, 0.25
    m = merge_profiles([a, b])
    assert m.hub["process_cpu_s"] == 1.5 + 0.25
    assert (m.switches, m.slices_dropped, m.trace_errors) == (30, 8, 3)
    assert m.duration_s == 3.0  # the workers ran side by side: the longest
    assert m.hub["run_s"] == 0.5 + 0.75
    assert m.hub["cpu_s"] == 0.25 + 0.125
    assert m.hub["idle_s"] == 1.25 + 2.5
    assert m.hub["polls"] == 7 + 11
    assert m.meta["merged"] == 2


def test_reads_are_summed_per_host():
    a, b = pair()
    m = merge_profiles([a, b])
    assert m.reads == [{"host": "h:80", "bodies": 3, "bytes": 128, "reads": 7,
                        "reads_waited": 3, "wall_s": 0.75}]


def test_greenlet_ids_stay_unique_and_parents_follow():
    a, b = pair()
    m = merge_profiles([a, b])
    ids = [g.id for g in m.greenlets]
    assert len(set(ids)) == len(ids) == 6
    by_id = {g.id: g for g in m.greenlets}
    workers = [g for g in m.greenlets if g.name == "w"]
    assert [by_id[g.parent].name for g in workers] == ["main", "main"]
    assert [by_id[h].name for h in m.hub["ids"]] == ["hub", "hub"]
    assert {s.greenlet for s in m.slices} == {g.id for g in workers}


@pytest.mark.parametrize("name", [n for n in numeric_fields(SectionStats)
                                  if n not in ("calls", "wall_s", "run_s", "wait_s",
                                               "switches")])
def test_a_figure_not_measured_in_one_run_is_not_measured_merged(name):
    a, b = pair()
    setattr(b.sections[0], name, None)
    m = merge_profiles([a, b])
    assert getattr(m.section_named("s"), name) is None


@pytest.mark.parametrize("key", ["cpu_s", "idle_s", "process_cpu_s"])
def test_hub_figure_not_measured_in_one_run_is_not_measured_merged(key):
    a, b = pair()
    a.hub.setdefault(key, 0.5)
    b.hub[key] = None
    assert merge_profiles([a, b]).hub[key] is None


def test_merge_of_one_profile_keeps_its_figures():
    a, _ = pair()
    m = Profile.merge([a])
    assert m.sections == sorted(a.sections, key=lambda s: -s.wall_s)
    assert m.waits == a.waits and m.runs == a.runs and m.switches == a.switches


def test_merged_findings_come_in_the_findings_order():
    from geventperf import findings
    from geventperf.profile import Finding

    a, b = pair()
    a.findings = [Finding(kind="switch-storm", message="s", cost_s=2.0),
                  Finding(kind="c-section-deadlock-risk", message="d", cost_s=0.0,
                          extra={"hazard": True})]
    b.findings = [Finding(kind="loop-blocked", message="l", cost_s=1.0)]
    merged = merge_profiles([a, b]).findings
    assert [f.message for f in merged] == \
        [f.message for f in findings.sort_findings(a.findings + b.findings)] == ["d", "s", "l"]


# -- what merge copies rather than sums (found by `tox -e mutation`) ----------------------

def test_findings_slices_and_events_are_copied_whole():
    from geventperf.profile import Finding

    a, b = pair()
    a.findings = [Finding(kind="switch-storm", message="m", greenlet=3, section="sec",
                          stack=["f:1:a"], cost_s=1.5, extra={"count": 7})]
    a.slices = [Slice(3, 0.25, 0.5, section="sec", ready_s=0.125)]
    a.events = [{"kind": "blocked-slice", "greenlet": 3, "other": 1, "run_s": 0.5}]
    m = merge_profiles([b, a])  # a second: its ids move up by b's three
    [f] = m.findings
    assert (f.kind, f.message, f.greenlet, f.section, f.stack, f.cost_s, f.extra) == \
        ("switch-storm", "m", 6, "sec", ["f:1:a"], 1.5, {"count": 7})
    assert m.slices[-1] == Slice(6, 0.25, 0.5, section="sec", ready_s=0.125)
    assert m.events == [{"kind": "blocked-slice", "greenlet": 6, "other": 4, "run_s": 0.5}]


def test_slice_waits_point_at_the_same_stacks_in_the_merged_waits():
    a, b = pair()
    a.slices = [Slice(3, 0.0, 0.5, wait=0)]                      # f:1:a
    b.slices = [Slice(3, 0.0, 0.25, wait=1), Slice(3, 0.5, 0.25, wait=0)]  # f:9:z, f:1:a
    m = merge_profiles([a, b])
    assert [m.waits[s.wait].stack for s in m.slices] == [["f:1:a"], ["f:9:z"], ["f:1:a"]]
    assert Profile.loads(json.dumps(m.to_dict())).slices == m.slices


def test_every_new_stack_of_a_run_is_kept():
    a, b = pair()
    a.waits = [filled(StackTime, 7.0, stack=["new:1:x"]), filled(StackTime, 7.0,
                                                                 stack=["new:2:y"])]
    m = merge_profiles([b, a])
    assert {tuple(w.stack) for w in m.waits} == {("f:1:a",), ("f:9:z",), ("new:1:x",),
                                                  ("new:2:y",)}


def test_hub_run_missing_in_one_run_counts_as_none_of_it():
    a, b = pair()
    del b.hub["run_s"]
    assert merge_profiles([a, b]).hub["run_s"] == 0.5


def test_reads_largest_is_a_maximum_unknown_stays_unknown_and_hosts_default():
    a, b = pair()
    a.reads = [{"host": "h:80", "largest_read": 100, "bytes": 1, "reads_waited": None,
                "framing": "chunked"},
               {"bytes": 5}]
    b.reads = [{"host": "h:80", "largest_read": 40, "bytes": 2, "reads_waited": 3,
                "framing": "length"}]
    m = merge_profiles([a, b])
    by_host = {r["host"]: r for r in m.reads}
    assert by_host["h:80"] == {"host": "h:80", "largest_read": 100, "bytes": 3,
                               "reads_waited": None, "framing": None}
    assert by_host["?"] == {"host": "?", "bytes": 5}
    b.reads[0]["largest_read"] = 400
    assert {r["host"]: r for r in merge_profiles([a, b]).reads}["h:80"]["largest_read"] \
        == 400


def test_ready_latency_histograms_are_summed():
    from geventperf import latency

    a, b = pair()
    one = latency.summary([1] + [0] * (latency.NBUCKETS - 1), 1e-6)
    two = latency.summary([0, 2] + [0] * (latency.NBUCKETS - 2), 2e-6)
    a.ready_latency = {"bounds_s": None, "by_name": {"w": one}, "overall": one}
    b.ready_latency = {"bounds_s": None, "by_name": {"w": two, "x": two}, "overall": two}
    m = merge_profiles([a, b])
    assert m.ready_latency["overall"]["n"] == 3
    assert m.ready_latency["overall"]["counts"][:2] == [1, 2]
    assert m.ready_latency["by_name"]["w"]["n"] == 3 and m.ready_latency["by_name"]["x"] == two
    assert merge_profiles([a, pair()[1]]).ready_latency["overall"] == one  # b had none


def test_merge_refuses_nothing_and_non_profiles_saying_so():
    with pytest.raises(ValueError, match="needs at least one profile"):
        merge_profiles([])
    with pytest.raises(TypeError, match="takes Profile objects, got dict"):
        merge_profiles([Profile(), {"duration_s": 1}])  # type: ignore[list-item]


def test_merged_utilization_is_the_share_of_all_traced_time_not_idle():
    a, b = pair()
    a.hub["utilization"], b.hub["utilization"] = 0.375, 0.1667
    m = merge_profiles([a, b])
    # idle 1.25 + 2.5 s of 2 + 3 s traced
    assert m.hub["utilization"] == 1.0 - (1.25 + 2.5) / (2.0 + 3.0)
    del b.hub["utilization"]  # not measured in one run: not measured merged
    assert merge_profiles([a, b]).hub["utilization"] is None


def test_ids_move_past_each_runs_largest_id_hub_included():
    a, b = pair()
    a.hub["id"] = 9  # a hub id above every greenlet id of its run
    c, _ = pair()
    m = merge_profiles([a, b, c])
    # a uses ids up to 9, b 10..12, c 13..15
    assert m.hub["ids"] == [9, 10, 14]
    assert sorted(g.id for g in m.greenlets) == [1, 2, 3, 10, 11, 12, 13, 14, 15]


def test_runs_without_a_hub_merge_to_no_hub_id():
    a, b = Profile(duration_s=1.0), Profile(duration_s=2.0)
    a.hub["id"] = b.hub["id"] = None
    m = merge_profiles([a, b])
    assert m.hub["id"] is None and m.hub["ids"] == []


def test_a_read_field_of_one_run_only_is_kept():
    a, b = pair()
    a.reads[0]["framing"] = "chunked"
    assert merge_profiles([a, b]).reads[0]["framing"] == "chunked"


# One host's read records in three runs: the middle one could not measure the counts the
# adapter's reader gives (None), the last one is of an older profile without them.
READ_RECORDS = [
    {"host": "h:80", "bodies": 2, "bytes": 100, "reads": 4, "largest_read": 64,
     "reads_waited": 1, "wall_s": 0.5},
    {"host": "h:80", "bodies": 1, "bytes": 28, "reads": None, "largest_read": None,
     "reads_waited": None, "wall_s": 0.25},
    {"host": "h:80", "bodies": 4, "bytes": 8, "wall_s": 0.125},
]


@pytest.mark.parametrize("order", list(itertools.permutations(range(len(READ_RECORDS)))))
def test_read_fields_merge_the_same_in_any_order(order):
    """A field unknown (None) in one run is unknown in the merge, whichever run comes
    first; sums and maxima over the runs that have the field."""
    runs = []
    for i in order:
        run = Profile(duration_s=1.0)
        run.reads = [dict(READ_RECORDS[i])]
        runs.append(run)
    assert merge_profiles(runs).reads == [
        {"host": "h:80", "bodies": 7, "bytes": 136, "reads": None, "largest_read": None,
         "reads_waited": None, "wall_s": 0.875}]
    # without the run that could not measure: the counts are summed, the largest kept
    known = [run for run in runs if run.reads[0]["bytes"] != 28]
    assert merge_profiles(known).reads == [
        {"host": "h:80", "bodies": 6, "bytes": 108, "reads": 4, "largest_read": 64,
         "reads_waited": 1, "wall_s": 0.625}]


def test_merge_error_messages_are_exact():
    with pytest.raises(ValueError, match=r"^merge_profiles\(\) needs at least one profile$"):
        merge_profiles([])


def test_run_stacks_name_their_renumbered_greenlet():
    a, b = pair()
    b.runs = [StackTime(stack=["f:7:q"], count=1, run_s=0.5, greenlet=3)]
    m = merge_profiles([a, b])
    [r] = [r for r in m.runs if r.stack == ["f:7:q"]]
    assert r.greenlet == 6  # b's greenlet 3 after a's three ids


def test_garbage_collection_figures_are_summed_and_the_longest_kept():
    a, b = Profile(duration_s=1.0), Profile(duration_s=1.0)
    a.meta["gc"] = {"collections": [8, 2, 1], "total_s": 0.25, "longest_s": 0.125,
                    "longest_generation": 2, "start_up_blocks": 100, "full_blocks_max": 900}
    b.meta["gc"] = {"collections": [4, 1, 0], "total_s": 0.0625, "longest_s": 0.03125,
                    "longest_generation": 1, "start_up_blocks": 50, "full_blocks_max": 60}
    # a heap's size is one process's: the one with the longest collection's
    assert merge_profiles([a, b]).meta["gc"] == {
        "collections": [12, 3, 1], "total_s": 0.3125, "longest_s": 0.125,
        "longest_generation": 2, "start_up_blocks": 100, "full_blocks_max": 900}
    # one run without them (an older profile), or with figures that are not numbers: none
    assert "gc" not in merge_profiles([a, Profile(duration_s=1.0)]).meta
    b.meta["gc"]["collections"] = ["x"]
    assert "gc" not in merge_profiles([a, b]).meta
