"""Tests that kill mutmut survivors of geventperf/profile.py (tox -e mutation): what a
user of ``Profile.load``/``loads`` relies on -- every malformed field refused with a
ProfileError naming it, word for word; numbers at the range limit and one step past;
optional fields absent in older files taking their defaults; a full round trip; the
lookups."""

from __future__ import annotations

import json
import os

import pytest

import geventperf.profile as profile_module
from geventperf.profile import (
    MAX_PROFILE_BYTES,
    MAX_PROFILE_NUMBER,
    SCHEMA_VERSION,
    Finding,
    GreenletStats,
    Profile,
    ProfileError,
    Slice,
    StackTime,
    merge_profiles,
)
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.profile_factory import small_profile


def set_at(path, value):
    """A change to the small profile's dict: set the value at *path* (keys and indexes)."""
    def change(d):
        *parents, last = path
        for key in parents:
            d = d[key]
        d[last] = value
    return change


def delete_at(path):
    def change(d):
        *parents, last = path
        for key in parents:
            d = d[key]
        del d[last]
    return change



# (what is wrong, the change to a valid profile's dict (None: not an object at all),
#  the error after the source name)
MALFORMED = [
    ("top level a list", None,
     'not a geventperf profile: top level is list, expected an object'),
    ("no schema", delete_at(["geventperf_schema"]),
     "not a geventperf profile: no 'geventperf_schema' field"),
    ("schema true", set_at(["geventperf_schema"], True),
     'unsupported geventperf profile schema True (this version reads schema 1)'),
    ("schema 1.0", set_at(["geventperf_schema"], 1.0),
     'unsupported geventperf profile schema 1.0 (this version reads schema 1)'),
    ("schema 2", set_at(["geventperf_schema"], 2),
     'unsupported geventperf profile schema 2 (this version reads schema 1)'),
    ("hub a list", set_at(["hub"], []),
     "field 'hub' must be an object"),
    ("duration a string", set_at(["duration_s"], "1"),
     "field 'duration_s' must be a finite number, got '1'"),
    ("duration missing", delete_at(["duration_s"]),
     "field 'duration_s' must be a finite number, got None"),
    ("switches a float", set_at(["switches"], 1.5),
     "field 'switches' must be an integer, got 1.5"),
    ("switches true", set_at(["switches"], True),
     "field 'switches' must be an integer, got True"),
    ("hub id a float", set_at(["hub", "id"], 1.5),
     "field 'id' must be an integer, got 1.5"),
    ("hub run_s null", set_at(["hub", "run_s"], None),
     "field 'run_s' must be a finite number, got None"),
    ("hub polls a string", set_at(["hub", "polls"], "7"),
     "field 'polls' must be an integer, got '7'"),
    ("greenlets missing", delete_at(["greenlets"]),
     "field 'greenlets' must be a list, got NoneType"),
    ("greenlets an object", set_at(["greenlets"], {}),
     "field 'greenlets' must be a list, got dict"),
    ("a greenlet a list", set_at(["greenlets", 0], []),
     "entries of 'greenlets' must be objects, got list"),
    ("greenlet name a number", set_at(["greenlets", 0, "name"], 5),
     "field 'name' must be a string, got 5"),
    ("greenlet origin null", set_at(["greenlets", 0, "origin"], None),
     "field 'origin' must be a string, got None"),
    ("greenlet event wait a string", set_at(["greenlets", 0, "event_wait_s"], "x" * 60),
     "field 'event_wait_s' must be a finite number, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("section c missing", delete_at(["sections", 0, "c"]),
     "field 'c' of a section must be true or false"),
    ("section c 1", set_at(["sections", 0, "c"], 1),
     "field 'c' of a section must be true or false"),
    ("a section a string", set_at(["sections", 0], "s"),
     "entries of 'sections' must be objects, got str"),
    ("waits missing", delete_at(["waits"]),
     "field 'waits' must be a list, got NoneType"),
    ("a wait a string", set_at(["waits", 0], "w"),
     "entries of 'waits' must be objects, got str"),
    ("wait stack a string", set_at(["waits", 0, "stack"], "a"),
     "a 'stack' must be a list of strings"),
    ("wait stack of numbers", set_at(["waits", 0, "stack"], [1]),
     "a 'stack' must be a list of strings"),
    ("wait count missing", delete_at(["waits", 0, "count"]),
     "field 'count' must be an integer, got None"),
    ("runs an object", set_at(["runs"], {}),
     "field 'runs' must be a list, got dict"),
    ("findings missing", delete_at(["findings"]),
     "field 'findings' must be a list, got NoneType"),
    ("a finding a string", set_at(["findings", 0], "f"),
     "entries of 'findings' must be objects, got str"),
    ("finding kind missing", delete_at(["findings", 0, "kind"]),
     "field 'kind' must be a string, got None"),
    ("finding greenlet a string", set_at(["findings", 0, "greenlet"], "3"),
     "field 'greenlet' must be an integer, got '3'"),
    ("finding section a number", set_at(["findings", 0, "section"], 3),
     "field 'section' must be a string, got 3"),
    ("a read a list", set_at(["reads"], [[1]]),
     "entries of 'reads' must be objects, got list"),
    ("slices an object", set_at(["slices"], {}),
     "field 'slices' must be a list, got dict"),
    ("a slice of 3", set_at(["slices", 0], [1, 0.0, 0.5]),
     'a timeline slice must be [greenlet, start_s, duration_s, section, ready_s, wait]'),
    ("a slice of 7", set_at(["slices", 0], [1, 0.0, 0.5, None, None, None, None]),
     'a timeline slice must be [greenlet, start_s, duration_s, section, ready_s, wait]'),
    ("a slice's wait a float", set_at(["slices", 0], [1, 0.0, 0.5, None, None, 0.5]),
     "field 'wait' must be an integer, got 0.5"),
    ("a slice's wait past the waits", set_at(["slices", 0], [1, 0.0, 0.5, None, None, 99]),
     "a timeline slice's wait 99 is not an index of the profile's 2 waits"),
    ("a slice's section a number", set_at(["slices", 0], [1, 0.0, 0.5, 7]),
     "a timeline slice's section must be a string or null"),
    ("a slice's greenlet a string", set_at(["slices", 0], ["1", 0.0, 0.5, None]),
     "field 'greenlet' must be an integer, got '1'"),
    ("a slice's ready a string", set_at(["slices", 0], [1, 0.0, 0.5, None, "r"]),
     "field 'ready_s' must be a finite number, got 'r'"),
    ("slices_dropped a float", set_at(["slices_dropped"], 0.5),
     "field 'slices_dropped' must be an integer, got 0.5"),
    ("trace_errors null", set_at(["trace_errors"], None),
     "field 'trace_errors' must be an integer, got None"),
    ("meta a list", set_at(["meta"], []),
     "field 'meta' must be an object, got list"),
    ("an event a number", set_at(["events"], [1]),
     "entries of 'events' must be objects, got int"),
    ("latency a list", set_at(["ready_latency"], []),
     "entries of 'ready_latency' must be objects, got list"),
    ("latency by_name a list", set_at(["ready_latency"], {"by_name": []}),
     "field 'by_name' must be an object, got list"),
    ("latency counts negative", set_at(["ready_latency"], {"overall": {"counts": [1, -1], "n": 0}}),
     'ready_latency counts must be a list of integers >= 0'),
    ("latency counts floats", set_at(["ready_latency"], {"overall": {"counts": [1.0], "n": 1}}),
     'ready_latency counts must be a list of integers >= 0'),
    ("latency counts missing", set_at(["ready_latency"], {"by_name": {"w": {"n": 1}}}),
     'ready_latency counts must be a list of integers >= 0'),
    ("latency n missing", set_at(["ready_latency"], {"overall": {"counts": [1]}}),
     "field 'n' must be an integer, got None"),
    ("latency p99 a string", set_at(["ready_latency"], {"overall": {"counts": [1], "n": 1, "p99_s": "x"}}),
     "field 'p99_s' must be a finite number, got 'x'"),
    ("latency max a string", set_at(["ready_latency"], {"overall": {"counts": [1], "n": 1, "max_s": "x"}}),
     "field 'max_s' must be a finite number, got 'x'"),
    ("latency p50 a string", set_at(["ready_latency"], {"overall": {"counts": [1], "n": 1, "p50_s": "x"}}),
     "field 'p50_s' must be a finite number, got 'x'"),
    ("latency p90 a string", set_at(["ready_latency"], {"overall": {"counts": [1], "n": 1, "p90_s": "x"}}),
     "field 'p90_s' must be a finite number, got 'x'"),
    ("latency summary a list", set_at(["ready_latency"], {"overall": [1]}),
     "entries of 'ready_latency' must be objects, got list"),
]


@pytest.mark.parametrize("name, change, message", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_each_malformed_field_is_refused_by_name(name, change, message):
    data = small_profile().to_dict()
    if change is None:
        data = [data]
    else:
        change(data)
    with pytest.raises(ProfileError) as info:
        Profile.loads(json.dumps(data), source="run.json")
    assert str(info.value) == f"run.json: {message}"
    with pytest.raises(ProfileError) as info:
        Profile.from_dict(data)
    assert str(info.value) == message


def test_an_infinite_figure_is_refused_as_json_and_as_a_dict():
    data = small_profile().to_dict()
    data["findings"][0]["cost_s"] = float("inf")
    with pytest.raises(ProfileError) as info:
        Profile.loads(json.dumps(data))
    assert str(info.value) == "<string>: JSON constant Infinity is not allowed in a profile"
    with pytest.raises(ProfileError) as info:
        Profile.from_dict(data)
    assert str(info.value) == "field 'cost_s' must be a finite number, got inf"


def test_a_full_profile_round_trips_field_for_field():
    profile = small_profile()
    profile.findings.append(Finding(kind="k", message="m", greenlet=2, section="s",
                                    stack=["a", "b"], cost_s=0.5, extra={"x": [1, 2]}))
    profile.slices.append(Slice(2, 0.5, 0.25, section=None, ready_s=0.125))
    profile.slices.append(Slice(2, 0.75, 0.25, section=None, ready_s=None, wait=0))
    profile.reads = [{"host": "h:80", "bytes": 3}]
    profile.events = [{"kind": "e", "v": 1}]
    profile.slices_dropped, profile.trace_errors = 3, 2
    profile.hub.update(utilization=0.5, polls=7)
    data = profile.to_dict()
    assert data["geventperf_schema"] == SCHEMA_VERSION == 1
    loaded = Profile.loads(json.dumps(data))
    assert loaded.to_dict() == data
    assert loaded.findings[-1] == profile.findings[-1]
    assert loaded.slices[-2] == Slice(2, 0.5, 0.25, None, 0.125)
    assert loaded.slices[-1] == Slice(2, 0.75, 0.25, None, None, wait=0)
    assert loaded.slices[0] == profile.slices[0]


def test_fields_absent_from_older_files_take_their_defaults():
    data = small_profile().to_dict()
    for key in ("runs", "reads", "slices", "events", "slices_dropped", "trace_errors",
                "meta", "ready_latency", "cpu_samples", "hub"):
        del data[key]
    del data["greenlets"][0]["origin"]
    for key in ("event_wait_s", "ready_wait_s", "delayed_others_s", "cpu_s"):
        del data["greenlets"][0][key]
    for key in ("stack", "cost_s"):
        del data["findings"][0][key]
    for key in ("wait_s", "run_s", "cpu_s", "greenlet"):
        del data["waits"][0][key]
    without_slices = Profile.loads(json.dumps(data))
    assert without_slices.slices == []
    data["slices"] = [[2, 0.5, 0.25, "sec"]]   # four fields: no ready_s
    p = Profile.loads(json.dumps(data))
    assert (p.runs, p.reads, p.events, p.slices_dropped, p.trace_errors, p.meta) == \
        ([], [], [], 0, 0, {})
    assert p.ready_latency is None and p.cpu_samples is None
    assert p.hub == {"id": None, "run_s": 0.0, "cpu_s": None, "idle_s": None,
                     "utilization": None, "polls": None, "cpu_wait_s": None,
                     "process_cpu_s": None, "children_cpu_s": None}
    g = p.greenlets[0]
    assert (g.origin, g.cpu_s, g.event_wait_s, g.ready_wait_s, g.delayed_others_s) == \
        ("", None, None, None, None)
    assert (p.findings[0].stack, p.findings[0].cost_s) == ([], 0.0)
    w = p.waits[0]
    assert (w.wait_s, w.run_s, w.cpu_s, w.greenlet) == (0.0, 0.0, None, None)
    assert p.slices == [Slice(2, 0.5, 0.25, "sec", None)]


def test_a_findings_field_named_extra_is_kept_as_an_extra_figure():
    data = small_profile().to_dict()
    data["findings"][0]["extra"] = 5
    finding = Profile.loads(json.dumps(data)).findings[0]
    assert finding.extra == {"extra": 5}
    assert finding.to_dict()["extra"] == 5


def test_latency_counts_of_zero_and_summaries_left_out_load():
    data = small_profile().to_dict()
    summary = {"counts": [0, 3], "n": 3, "max_s": 0.5, "p50_s": None}
    data["ready_latency"] = {"bounds_s": [1e-06], "overall": summary,
                             "by_name": {"w": summary, "x": None}}
    assert Profile.loads(json.dumps(data)).ready_latency == data["ready_latency"]


@pytest.mark.parametrize("literal, message", [
    ("1e400", "number 1e400 is out of range for a profile (largest magnitude "
              "9223372036854775808)"),
    ("-1e19", "number -1e19 is out of range for a profile (largest magnitude "
              "9223372036854775808)"),
    ("9223372036854775809", "integer of 19 digits (9223372036854775809...) is out of "
                            "range for a profile (largest magnitude 9223372036854775808)"),
    ("-99999999999999999999", "integer of 20 digits (-9999999999999999999...) is out of "
                              "range for a profile (largest magnitude 9223372036854775808)"),
    ("NaN", "JSON constant NaN is not allowed in a profile"),
    ("-Infinity", "JSON constant -Infinity is not allowed in a profile"),
])
def test_numbers_past_the_range_are_refused_word_for_word(literal, message):
    raw = json.dumps(small_profile().to_dict()).replace('"switches":', f'"x": {literal}, '
                                                        '"switches":', 1)
    with pytest.raises(ProfileError) as info:
        Profile.loads(raw)
    assert str(info.value) == f"<string>: {message}"


@pytest.mark.parametrize("literal", [str(MAX_PROFILE_NUMBER), str(-MAX_PROFILE_NUMBER),
                                     "9.223372036854775808e18", "-9.223372036854775808e18"])
def test_numbers_at_the_range_limit_load(literal):
    data = small_profile().to_dict()
    raw = json.dumps(data).replace('"meta": {', f'"meta": {{"x": {literal}, ', 1)
    assert json.loads(literal) == Profile.loads(raw).meta["x"]
    assert abs(Profile.loads(raw).meta["x"]) == MAX_PROFILE_NUMBER


@pytest.mark.parametrize("encode", [
    lambda text: text, lambda text: text.encode("utf-8"), lambda text: text.encode("utf-16"),
    lambda text: text.encode("utf-8-sig")], ids=["str", "utf-8", "utf-16", "utf-8-bom"])
def test_lone_surrogates_are_refused_in_every_encoding(encode):
    data = small_profile().to_dict()
    data["meta"]["name"] = "\ud800x"
    raw = json.dumps(data)          # ASCII, the surrogate written as a \u escape
    with pytest.raises(ProfileError) as info:
        Profile.loads(encode(raw))
    assert str(info.value) == ("<string>: string '\\ud800x' holds a lone UTF-16 "
                               "surrogate, which is not text")
    # the same text with a whole character, escaped or not, in keys and lists too
    data["meta"] = {"\u00e9t\u00e9": ["caf\u00e9", {"k\u00e9": "\U0001f600"}]}
    for text in (json.dumps(data), json.dumps(data, ensure_ascii=False)):
        assert Profile.loads(encode(text)).meta == data["meta"]


def test_a_surrogate_in_a_key_is_refused_too():
    data = small_profile().to_dict()
    data["meta"] = {"ok": [{"\udc00": 1}]}
    with pytest.raises(ProfileError, match="holds a lone UTF-16 surrogate"):
        Profile.loads(json.dumps(data))


def test_load_names_the_file_in_every_error(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("[1,")
    with pytest.raises(ProfileError) as info:
        Profile.load(path)
    assert str(info.value) == f"{path}: not valid JSON (Expecting value: line 1 column 4 " \
                              "(char 3))"
    missing = tmp_path / "missing.json"
    with pytest.raises(ProfileError) as info:
        Profile.load(missing)
    assert str(info.value) == f"cannot read profile {missing}: No such file or directory"
    small_profile().save(path)
    assert Profile.load(str(path)).to_dict() == small_profile().to_dict()
    # one byte over the limit: refused by its size, unread (a sparse file)
    with open(path, "wb") as fh:
        fh.truncate(MAX_PROFILE_BYTES + 1)
    with pytest.raises(ProfileError) as info:
        Profile.load(path)
    assert str(info.value) == (f"{path}: {MAX_PROFILE_BYTES + 1} bytes is larger than any "
                               f"profile geventperf writes (limit {MAX_PROFILE_BYTES})")
    os.unlink(path)


def test_save_writes_compact_json_and_refuses_nan(tmp_path):
    path = tmp_path / "run.json"
    profile = small_profile()
    profile.save(path)
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(profile.to_dict(), separators=(",", ":"))
    profile.duration_s = float("nan")
    with pytest.raises(ValueError):
        profile.save(path)


def test_lookups_by_id_and_name():
    profile = small_profile()
    first, second = profile.greenlets[0], profile.greenlets[1]
    assert profile.greenlet(first.id) is first and profile.greenlet(second.id) is second
    assert profile.greenlet(10 ** 6) is None
    section = profile.sections[0]
    assert profile.section_named(section.name) is section
    assert profile.section_named(section.name + "x") is None


# -- load's reading limit, with the limit lowered so the test reads a megabyte -------------

SMALL_LIMIT = 1 << 20


def test_an_unsized_file_is_read_up_to_the_limit_and_refused(monkeypatch):
    """/dev/zero has no size: load reads one byte past the limit and stops."""
    monkeypatch.setattr(profile_module, "MAX_PROFILE_BYTES", SMALL_LIMIT)
    with pytest.raises(ProfileError) as info:
        Profile.load("/dev/zero")
    assert str(info.value) == (f"/dev/zero: more than {SMALL_LIMIT} bytes, larger than any "
                               "profile geventperf writes")


def test_a_file_of_exactly_the_limit_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(profile_module, "MAX_PROFILE_BYTES", SMALL_LIMIT)
    path = tmp_path / "run.json"
    text = json.dumps(small_profile().to_dict())
    path.write_text(text + " " * (SMALL_LIMIT - len(text)))   # JSON allows the padding
    assert os.path.getsize(path) == SMALL_LIMIT
    assert Profile.load(path).to_dict() == small_profile().to_dict()
    path.write_text(text + " " * (SMALL_LIMIT + 1 - len(text)))
    with pytest.raises(ProfileError, match=f"^{path}: {SMALL_LIMIT + 1} bytes is larger"):
        Profile.load(path)


def test_a_lone_surrogate_in_a_long_string_is_quoted_to_forty_characters():
    data = small_profile().to_dict()
    data["meta"]["name"] = "\udc00" + "y" * 60
    with pytest.raises(ProfileError) as info:
        Profile.loads(json.dumps(data))
    assert str(info.value) == ("<string>: string " + repr("\udc00" + "y" * 39)
                               + " holds a lone UTF-16 surrogate, which is not text")


def test_cpu_samples_round_trip():
    profile = small_profile()
    profile.cpu_samples = CpuSamples(
        frames=["/app/x.py:3:spin"], first_lines=[1],
        stacks=[SampledStack(frames=[0], greenlet="w", sections=[], count=2, cpu_s=0.5)])
    loaded = Profile.loads(json.dumps(profile.to_dict()))
    assert loaded.cpu_samples.to_dict() == profile.cpu_samples.to_dict()


# -- merge: what the field-by-field merge tests leave open --------------------------------

def _run_profile(duration=1.0, **kw) -> Profile:
    return Profile(duration_s=duration, hub={"id": None, "run_s": 0.0, "cpu_s": None,
                                             "idle_s": None, "utilization": None,
                                             "polls": None}, **kw)


def test_merged_stacks_take_the_last_named_greenlet_renumbered():
    a = _run_profile(greenlets=[GreenletStats(id=1, name="a", parent=None)],
                     waits=[StackTime(stack=["s"], count=1, wait_s=1.0, greenlet=1)])
    b = _run_profile(greenlets=[GreenletStats(id=1, name="b", parent=None)],
                     waits=[StackTime(stack=["s"], count=1, wait_s=1.0, greenlet=1)])
    unnamed = _run_profile(waits=[StackTime(stack=["s"], count=1, wait_s=1.0)])
    assert merge_profiles([a, b]).waits[0].greenlet == 2     # b's 1, after a's ids
    assert merge_profiles([a, b, unnamed]).waits[0].greenlet == 2  # None changes nothing


def test_a_run_without_greenlets_or_hub_shifts_no_ids():
    empty = _run_profile()
    p = _run_profile(greenlets=[GreenletStats(id=1, name="a", parent=None)])
    assert [g.id for g in merge_profiles([empty, p]).greenlets] == [1]


def test_utilization_of_runs_that_traced_no_time_is_unknown():
    runs = [_run_profile(duration=0.0) for _ in range(2)]
    for run in runs:
        run.hub.update(idle_s=0.0, utilization=0.5)
    assert merge_profiles(runs).hub["utilization"] is None


def test_merged_waits_and_runs_are_largest_first():
    a = _run_profile(waits=[StackTime(stack=[s], count=1, wait_s=w)
                            for s, w in (("x", 0.25), ("y", 1.0), ("z", 0.5))],
                     runs=[StackTime(stack=[s], count=1, run_s=r)
                           for s, r in (("x", 0.5), ("y", 0.25), ("z", 1.0))])
    m = merge_profiles([a, _run_profile()])
    assert [w.stack[0] for w in m.waits] == ["y", "z", "x"]
    assert [r.stack[0] for r in m.runs] == ["z", "x", "y"]


def test_merged_ready_latency_keeps_the_bucket_bounds():
    one = {"counts": [1, 0], "n": 1, "max_s": 1e-6, "p50_s": 1e-6, "p90_s": 1e-6,
           "p99_s": 1e-6}
    a, b = _run_profile(), _run_profile()
    a.ready_latency = {"bounds_s": [1e-6, 2e-6], "by_name": {"w": one}, "overall": one}
    b.ready_latency = {"bounds_s": [1e-6, 2e-6], "by_name": {"w": one}, "overall": one}
    merged = merge_profiles([a, b]).ready_latency
    assert merged["bounds_s"] == [1e-6, 2e-6] and merged["overall"]["n"] == 2


def test_merged_cpu_samples_are_kept():
    a = _run_profile()
    a.cpu_samples = CpuSamples(
        frames=["/app/x.py:3:spin"], first_lines=[1],
        stacks=[SampledStack(frames=[0], greenlet="w", sections=[], count=2, cpu_s=0.5)])
    merged = merge_profiles([a, _run_profile()]).cpu_samples
    assert merged is not None and merged.cpu_s == 0.5 and merged.count == 2
