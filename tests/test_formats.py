"""Every output format, rendered from synthetic profiles built with profile.py's
dataclasses (so these tests do not depend on the tracer), checked against the
structure the consuming tool documents."""

from __future__ import annotations

import json
import marshal
import pstats
import random
import re

import pytest

import geventperf
from geventperf.formats import (
    FORMATS,
    SUFFIXES,
    format_for_path,
    formats_for_suffix,
    render,
    write,
)
from geventperf.formats._frames import short_path
from geventperf.profile import Finding, GreenletStats, Profile, Slice, StackTime
from tests.profile_factory import (
    HUB_ID,
    big_profile,
    hostile_profile,
    legacy_profile,
    small_profile,
    split_profile,
)

DESIGN_FORMATS = ("text", "json", "pstats", "collapsed", "speedscope", "chrome", "html")
HUB_WAIT_KEY = ("~", 0, "<hub wait>")


def no_slices_profile() -> Profile:
    profile = small_profile()
    profile.slices = []
    return profile


PROFILES = {"small": small_profile, "empty": Profile, "hostile": hostile_profile,
            "no-slices": no_slices_profile, "split": split_profile, "legacy": legacy_profile}


# -- registry -----------------------------------------------------------------------

def test_formats_are_the_design_list_and_exported():
    assert FORMATS == DESIGN_FORMATS
    assert geventperf.FORMATS == FORMATS


def test_unknown_format_names_the_known_ones():
    with pytest.raises(ValueError) as info:
        render(small_profile(), "yaml")
    for name in FORMATS:
        assert name in str(info.value)


@pytest.mark.parametrize("name, expected", [
    ("run.txt", "text"), ("run.json", "json"), ("run.pstats", "pstats"),
    ("run.prof", "pstats"), ("run.collapsed", "collapsed"), ("run.folded", "collapsed"),
    ("run.speedscope.json", "speedscope"), ("run.trace.json", "chrome"),
    ("RUN.PERFETTO.JSON", "chrome"), ("run.html", "html"), ("dir.v1/run.json", "json")])
def test_format_guessed_from_suffix(name, expected):
    assert format_for_path(name) == expected
    assert formats_for_suffix(name)[0] == expected


def test_more_specific_suffix_comes_first():
    assert formats_for_suffix("a.speedscope.json") == ("speedscope", "json")
    assert formats_for_suffix("a.exe") == ()


def test_unknown_suffix_lists_the_options():
    with pytest.raises(ValueError) as info:
        format_for_path("run.xyz")
    for suffix, _fmt in SUFFIXES:
        assert suffix in str(info.value)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_every_format_renders_every_profile_shape(fmt, kind):
    profile = PROFILES[kind]()
    output = render(profile, fmt)
    assert isinstance(output, bytes if fmt == "pstats" else str)
    has_stacks = bool(profile.waits or profile.runs)
    if fmt == "json":
        assert Profile.loads(output).to_dict() == profile.to_dict()
    elif fmt == "pstats":
        # pstats.Stats reads a marshalled dict, one entry per function
        stats = marshal.loads(output)
        assert isinstance(stats, dict) and bool(stats) == has_stacks
    elif fmt == "collapsed":
        lines = output.splitlines()
        assert all(re.fullmatch(r".+ \d+", line) for line in lines), lines
        assert bool(lines) == has_stacks
    elif fmt == "speedscope":
        check_speedscope(json.loads(output))
    elif fmt == "chrome":
        check_chrome(json.loads(output))
    else:  # text and html name every greenlet by its id
        assert output.startswith("geventperf: " if fmt == "text" else "<!DOCTYPE html>")
        for greenlet in profile.greenlets:
            assert f"#{greenlet.id}" in output, greenlet


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_guesses_the_format_and_profile_delegates(tmp_path, fmt):
    suffix = {"text": ".txt", "json": ".json", "pstats": ".pstats",
              "collapsed": ".folded", "speedscope": ".speedscope.json",
              "chrome": ".trace.json", "html": ".html"}[fmt]
    path = tmp_path / f"run{suffix}"
    profile = small_profile()
    assert write(profile, path) == fmt
    expected = render(profile, fmt)
    data = path.read_bytes()
    assert data == (expected if isinstance(expected, bytes) else expected.encode())
    assert profile.write(tmp_path / "other.bin", fmt) == fmt


def test_write_with_unknown_suffix_creates_no_file(tmp_path):
    with pytest.raises(ValueError):
        write(small_profile(), tmp_path / "run.xyz")
    assert not list(tmp_path.iterdir())


# -- text ---------------------------------------------------------------------------

def test_text_puts_findings_first_worst_first():
    text = render(small_profile(), "text")
    assert text.index("FINDINGS") < text.index("GREENLETS") < text.index("SECTIONS") \
        < text.index("TOP WAIT SITES") < text.index("ADAPTER READS")
    assert text.index("blocked-read-in-c-section") < text.index("switch-storm")
    # the top frame of the finding's stack, with the installed path shortened
    assert "generate (site-packages/requests/models.py:816)" in text


def test_text_shows_the_programs_line_under_deep_library_frames():
    """A finding's stack prints its innermost frames; the program's own line, where the
    fix goes, follows even when more library frames than those bury it."""
    lib = "/venv/lib/python3.11/site-packages/lib/mod.py"
    profile = small_profile()
    profile.findings = [Finding(kind="loop-blocked", message="m", greenlet=None, stack=[
        f"{lib}:{n}:f{n}" for n in range(1, 7)] + ["/srv/app/worker.py:12:fetch",
                                                  "/srv/app/worker.py:30:main"])]
    lines = render(profile, "text").splitlines()
    at = next(i for i, line in enumerate(lines) if "f1 (site-packages/lib/mod.py:1)" in line)
    assert [line.strip() for line in lines[at + 4:at + 7]] == [
        "... 2 library frames", "fetch (/srv/app/worker.py:12)", "... 1 outer frame"]


def test_text_shows_the_callers_line_in_another_file_of_the_program():
    """When the program's first line is in a helper module of its own (a store client),
    the stack also shows the first caller in another of its files (the loop to change),
    however deep, with the frames skipped between counted."""
    lib = "/venv/lib/python3.11/site-packages/gevent/_socketcommon.py"
    profile = small_profile()
    profile.findings = [Finding(kind="switch-storm", message="m", greenlet=None, stack=[
        f"{lib}:687:recv_into", "/srv/app/kv.py:134:_read_reply", "/srv/app/kv.py:155:execute",
        "/srv/app/kv.py:163:get", "/srv/app/kv.py:170:get_many", "/srv/app/cart.py:58:prices",
        "/srv/app/cart.py:98:worker"])]
    lines = render(profile, "text").splitlines()
    at = next(i for i, line in enumerate(lines) if "recv_into (" in line)
    assert [line.strip() for line in lines[at + 4:at + 7]] == [
        "... 1 frame", "prices (/srv/app/cart.py:58)", "... 1 outer frame"]


def test_text_wait_sites_lead_with_the_users_own_line():
    text = render(small_profile(), "text")
    sites = text[text.index("TOP WAIT SITES"):text.index("ADAPTER READS")]
    lines = sites.splitlines()
    row = next(i for i, line in enumerate(lines) if "fetch (/srv/app/worker.py:12)" in line)
    assert lines[row + 1].strip().startswith("-> content (site-packages/requests/models.py")
    assert "sleepy (/srv/app/worker.py:20)\n" in sites  # already the user's code


@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_text_fits_100_columns(kind):
    for line in render(PROFILES[kind](), "text").splitlines():
        assert len(line) <= 100, line


def test_text_header_figures():
    profile = small_profile()
    profile.trace_errors = 3
    profile.slices_dropped = 1234
    text = render(profile, "text")
    header = text.split("\n\n")[0]
    assert "500.0 ms traced" in header and "123 switches" in header
    assert "hub: ran 260.0 ms = idle in the poll 200.0 ms + working 60.0 ms (CPU 50.0 ms " \
        "+ blocked 10.0 ms)" in header
    assert "trace errors: 3" in header
    assert "timeline truncated: 1234 slices dropped" in header
    # more CPU than work: the poll's own processing ran on the CPU too, no negative block
    profile.hub["cpu_s"] = 0.07
    assert "+ working 60.0 ms (CPU 70.0 ms, the poll's own included)" in \
        " ".join(render(profile, "text").split())  # (wrapped at 100 columns)
    assert "timeline truncated" not in render(small_profile(), "text")


def test_text_and_html_headers_give_the_garbage_collection():
    profile = small_profile()
    assert "garbage collection" not in render(profile, "text").split("\n\n")[0]  # none
    profile.meta["gc"] = {"collections": [700, 60, 3], "total_s": 0.25, "longest_s": 0.125,
                          "longest_generation": 2}
    header = render(profile, "text").split("\n\n")[0]
    assert "garbage collection: 250.0 ms in 763 collections (700 / 60 / 3 by generation, " \
        "youngest first), longest 125.0 ms (generation 2)" in " ".join(header.split())
    assert "763 collections" in render(profile, "html")
    profile.meta["gc"]["collections"] = ["700", None]  # not written by geventperf: left out
    assert "garbage collection" not in render(profile, "text").split("\n\n")[0]


def test_text_greenlet_table_keeps_the_worst_and_counts_the_rest():
    text = render(big_profile(switches=2000), "text")
    section = text[text.index("GREENLETS"):text.index("SECTIONS")]
    assert "... and 280 more" in section
    rows = [line for line in section.splitlines() if line.startswith("worker-")]
    assert len(rows) == 20


def test_text_reads_are_summed_per_host():
    text = render(small_profile(), "text")
    row = next(line for line in text.splitlines() if line.startswith("127.0.0.1:8000"))
    assert row.split()[1:4] == ["2", "3.8", "MiB"]  # 2 bodies, 4 000 000 bytes
    assert " 302 " in row  # reads


def test_text_hostile_names_cannot_break_lines():
    text = render(hostile_profile(), "text")
    assert not any(line.startswith(('"\'&', ';x 1')) for line in text.splitlines())
    assert "<!-- ;x 1 \"'&" in text


def test_short_path_forms():
    assert short_path("/x/lib/python3.11/site-packages/requests/models.py") \
        == "site-packages/requests/models.py"
    assert short_path("/usr/lib/python3/dist-packages/lxml/etree.py") \
        == "site-packages/lxml/etree.py"
    long = "/very/long/directory/name/that/goes/on/and/on/forever/module/file.py"
    assert short_path(long) == ".../forever/module/file.py"
    assert short_path("<frozen runpy>") == "<frozen runpy>"


# -- json ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_json_round_trips_through_profile_load(kind):
    profile = PROFILES[kind]()
    loaded = Profile.loads(render(profile, "json"))
    assert loaded.to_dict() == profile.to_dict()


def test_json_has_the_design_schema_fields():
    data = json.loads(render(small_profile(), "json"))
    assert data["geventperf_schema"] == 1
    for key in ("duration_s", "switches", "hub", "greenlets", "sections", "waits",
                "findings", "reads"):
        assert key in data
    assert set(data["greenlets"][0]) >= {"id", "name", "parent", "run_s", "cpu_s", "wait_s",
                                         "switches", "longest_run_s"}


# -- pstats -------------------------------------------------------------------------

def load_stats(tmp_path, profile: Profile) -> pstats.Stats:
    path = tmp_path / "run.pstats"
    path.write_bytes(render(profile, "pstats"))
    return pstats.Stats(str(path))


def test_pstats_loads_with_hub_wait_called_from_the_yield_site(tmp_path):
    stats = load_stats(tmp_path, small_profile()).stats
    cc, nc, tt, ct, callers = stats[HUB_WAIT_KEY]
    assert tt == pytest.approx(0.35) and ct == pytest.approx(0.35)
    assert nc == 42
    generate = ("/venv/lib/python3.11/site-packages/requests/models.py", 816, "generate")
    sleepy = ("/srv/app/worker.py", 20, "sleepy")
    assert callers[generate][3] == pytest.approx(0.30)
    assert callers[sleepy][3] == pytest.approx(0.05)


def test_pstats_cumulative_time_adds_run_and_wait(tmp_path):
    stats = load_stats(tmp_path, small_profile())
    job = ("/srv/app/worker.py", 30, "job")
    _cc, _nc, tt, ct, callers = stats.stats[job]
    assert tt == 0 and not callers  # the root: no own time, no caller
    assert ct == pytest.approx(0.12 + 0.02 + 0.30 + 0.05)
    assert stats.total_tt == pytest.approx(0.12 + 0.02 + 0.30 + 0.05)
    parse = ("/srv/app/worker.py", 15, "parse")
    assert stats.stats[parse][2] == pytest.approx(0.12)
    assert stats.stats[parse][4][job][3] == pytest.approx(0.12)


def test_pstats_recursion_is_not_double_counted(tmp_path):
    rec = "/srv/r.py:5:recurse"
    profile = Profile(runs=[StackTime(stack=[rec, rec, rec, "/srv/r.py:1:main"], count=1,
                                      run_s=1.0)])
    stats = load_stats(tmp_path, profile).stats
    _cc, _nc, tt, ct, callers = stats[("/srv/r.py", 5, "recurse")]
    assert tt == pytest.approx(1.0) and ct == pytest.approx(1.0)
    assert callers[("/srv/r.py", 5, "recurse")][3] == pytest.approx(1.0)
    assert stats[("/srv/r.py", 1, "main")][3] == pytest.approx(1.0)


def test_pstats_prints_and_sorts(tmp_path, capsys):
    stats = load_stats(tmp_path, small_profile())
    stats.sort_stats("cumulative").print_stats(5)
    stats.print_callers("hub wait")
    out = capsys.readouterr().out
    assert "{hub wait}" in out and "generate" in out


# -- collapsed ----------------------------------------------------------------------

COLLAPSED_LINE = re.compile(r"^(?P<stack>[^\n]+) (?P<weight>\d+)$")


def parse_collapsed(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        match = COLLAPSED_LINE.match(line)
        assert match, line
        out[match["stack"]] = int(match["weight"])
    return out


def test_collapsed_outermost_first_with_hub_wait_leaf():
    stacks = parse_collapsed(render(small_profile(), "collapsed"))
    wait = ("job (/srv/app/worker.py:30);fetch (/srv/app/worker.py:12);"
            "content (site-packages/requests/models.py:899);"
            "generate (site-packages/requests/models.py:816);<hub wait>")
    assert stacks[wait] == 300_000
    assert stacks["job (/srv/app/worker.py:30);parse (/srv/app/worker.py:15)"] == 120_000
    assert sum(stacks.values()) == 490_000


def test_collapsed_hostile_names_stay_one_line_each():
    text = render(hostile_profile(), "collapsed")
    stacks = parse_collapsed(text)
    assert len(stacks) == len(text.splitlines()) == 4
    evil_run = next(s for s in stacks if "alert" in s and "<hub wait>" not in s)
    assert evil_run.count(";") == 0  # the ";" inside the name did not split a frame


# -- speedscope ---------------------------------------------------------------------

def check_speedscope(document: dict) -> None:
    """The structure of https://www.speedscope.app/file-format-schema.json."""
    assert document["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    frames = document["shared"]["frames"]
    assert isinstance(frames, list)
    for frame in frames:
        assert isinstance(frame["name"], str)
        assert isinstance(frame.get("file", ""), str)
        assert isinstance(frame.get("line", 0), int)
    assert isinstance(document["profiles"], list) and document["profiles"]
    for profile in document["profiles"]:
        assert profile["unit"] in ("none", "nanoseconds", "microseconds", "milliseconds",
                                   "seconds", "bytes")
        assert isinstance(profile["name"], str)
        assert profile["startValue"] <= profile["endValue"]
        if profile["type"] == "sampled":
            assert len(profile["samples"]) == len(profile["weights"])
            for stack in profile["samples"]:
                assert all(0 <= i < len(frames) for i in stack)
            assert all(w >= 0 for w in profile["weights"])
            assert profile["endValue"] == pytest.approx(sum(profile["weights"]))
        else:
            assert profile["type"] == "evented"
            open_frames: list[int] = []
            last = profile["startValue"]
            for event in profile["events"]:
                assert event["type"] in ("O", "C")
                assert 0 <= event["frame"] < len(frames)
                assert event["at"] >= last  # time order
                last = event["at"]
                if event["type"] == "O":
                    open_frames.append(event["frame"])
                else:  # closes the innermost open frame
                    assert open_frames.pop() == event["frame"]
            assert not open_frames
            assert last <= profile["endValue"]


@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_speedscope_structure(kind):
    check_speedscope(json.loads(render(PROFILES[kind](), "speedscope")))


def test_speedscope_profiles_per_greenlet_and_hub_wait_frame():
    document = json.loads(render(small_profile(), "speedscope"))
    names = [p["name"] for p in document["profiles"]]
    assert names[1:] == ["hub (#1)", "worker-a (#2)", "worker-b (#3)"]
    frames = [f["name"] for f in document["shared"]["frames"]]
    sampled = document["profiles"][0]
    hub_wait = frames.index("<hub wait>")
    waited = sum(w for s, w in zip(sampled["samples"], sampled["weights"]) if s[-1] == hub_wait)
    assert waited == pytest.approx(350_000)
    worker = document["profiles"][2]
    assert any(frames[e["frame"]] == "section: parse feed" for e in worker["events"])


# -- chrome -------------------------------------------------------------------------

def check_chrome(document: dict) -> list[dict]:
    """The Trace Event Format's JSON object form, as Perfetto and chrome://tracing read it."""
    assert document["displayTimeUnit"] in ("ms", "ns")
    events = document["traceEvents"]
    assert isinstance(events, list)
    by_tid: dict[int, list[dict]] = {}
    for event in events:
        assert event["ph"] in ("X", "i", "M"), event
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        assert isinstance(event["name"], str)
        if event["ph"] == "M":
            assert event["name"] in ("process_name", "thread_name", "thread_sort_index")
            assert isinstance(event["args"], dict)
        elif event["ph"] == "X":
            assert event["ts"] >= 0 and event["dur"] >= 0
            by_tid.setdefault(event["tid"], []).append(event)
        else:
            assert event["s"] in ("t", "p", "g") and event["ts"] >= 0
    for track in by_tid.values():  # one greenlet runs or waits at a time: no overlap
        track.sort(key=lambda e: e["ts"])
        for before, after in zip(track, track[1:]):
            assert before["ts"] + before["dur"] <= after["ts"] + 1e-3
    return events


@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_chrome_structure(kind):
    check_chrome(json.loads(render(PROFILES[kind](), "chrome")))


def test_chrome_tracks_runs_waits_and_findings():
    events = check_chrome(json.loads(render(small_profile(), "chrome")))
    names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert sorted(names.values()) == ["findings", "hub (#1)", "worker-a (#2)",
                                      "worker-b (#3)"]
    worker_a = next(t for t, n in names.items() if n.startswith("worker-a"))
    mine = [e for e in events if e["tid"] == worker_a and e["ph"] == "X"]
    runs = [e for e in mine if e["name"] in ("run", "parse feed")]
    waits = [e for e in mine if e["name"] == "wait"]
    assert len(runs) == 30 and len(waits) == 29  # the gaps between its 30 slices
    assert {e["name"] for e in runs} == {"run", "parse feed"}
    assert waits[0]["dur"] == pytest.approx(8000)  # 12 ms period - 4 ms slice, in us
    hub = next(t for t, n in names.items() if n.startswith("hub"))
    assert not [e for e in events if e["tid"] == hub and e["name"] == "wait"]
    instants = [e for e in events if e["ph"] == "i"]
    assert {e["name"] for e in instants} == {"blocked-read-in-c-section", "switch-storm"}
    blocked = next(e for e in instants if e["name"] == "blocked-read-in-c-section")
    assert blocked["tid"] == worker_a


def test_chrome_clips_overlapping_slices():
    profile = Profile(hub={"id": HUB_ID, "run_s": 0, "cpu_s": None, "idle_s": None},
                      greenlets=[GreenletStats(id=5, name="w", parent=None)],
                      slices=[Slice(5, 0.0, 0.002), Slice(5, 0.0015, 0.001)],
                      findings=[Finding(kind="loop-blocked", message="m", greenlet=None)])
    events = check_chrome(json.loads(render(profile, "chrome")))
    runs = [e for e in events if e["name"] == "run"]
    assert runs[1]["ts"] == pytest.approx(2000) and runs[1]["dur"] == pytest.approx(500)


def test_text_long_greenlet_names_keep_their_tail_and_id():
    profile = small_profile()
    name = "gevent.baseserver.BaseServer._handle_and_close_when_done"
    profile.greenlets[0].name = name
    row = next(line for line in render(profile, "text").splitlines() if "#2 " in line)
    # cut at the front: "..." then the name's tail, then its id
    shown = re.match(r"\s*\.\.\.(\S+) #2 ", row)
    assert shown, row
    assert name.endswith(shown.group(1)) and len(shown.group(1)) >= len("close_when_done")


def many_findings_profile() -> Profile:
    profile = small_profile()
    profile.findings = [Finding(kind="c-section-deadlock-risk", message=f"deadlock {i}",
                                greenlet=2, cost_s=1.0 + i) for i in range(30)]
    profile.findings += [Finding(kind="loop-blocked", message=f"blocked {i}", greenlet=3,
                                 cost_s=0.1 * i) for i in range(5)]
    return profile


def test_text_shows_the_worst_of_each_kind_and_counts_the_rest():
    text = render(many_findings_profile(), "text")
    findings = text[text.index("FINDINGS"):text.index("GREENLETS")]
    assert "FINDINGS (35, worst first)" in findings
    assert "deadlock 29" in findings and "deadlock 28" in findings
    assert "deadlock 27" not in findings  # two of a kind are enough
    assert "blocked 4" in findings and "blocked 3" in findings
    assert "... and 31 more: 28 c-section-deadlock-risk, 3 loop-blocked" in findings


def test_chrome_events_end_exactly_where_the_next_on_their_track_begins():
    """Times in fractions of a nanosecond (the tracer's TSC clock): a start and a
    duration each rounded to the nanosecond alone can end a step past the next event's
    start (0.6 + 0.6 ns: 1 + 1 against 1); the end rounded, less the start rounded,
    cannot."""
    from geventperf.formats.chrome import _us, _us_dur
    start, duration = 0.6e-9, 0.6e-9
    assert _us(start) + _us(duration) > _us(start + duration) + 1e-9  # the old way
    rng = random.Random(7)
    t = 0.0
    for _ in range(2000):
        duration = rng.uniform(0, 2e-6)
        assert _us(t) + _us_dur(t, duration) <= _us(t + duration) + 1e-9
        assert _us_dur(t, duration) >= 0
        t += duration


def test_alive_server_connections_awaiting_their_clients_are_not_told_as_a_leak():
    from geventperf.formats.text import alive_line
    from geventperf.profile import StackTime
    p = small_profile()
    p.meta["alive_at_end"] = {"gevent.baseserver._handle_and_close_when_done": 30}
    assert "a leak" in alive_line(p)  # no connection seen awaiting its client
    pywsgi = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py"
    p.waits.append(StackTime(stack=[f"{pywsgi}:723:WSGIHandler.read_requestline",
                                    f"{pywsgi}:774:WSGIHandler.handle_one_request"],
                             count=30, wait_s=3.0))
    line = alive_line(p)
    assert "kept alive by their clients" in line and "a leak" not in line
    p.meta["alive_at_end"]["app.worker"] = 2  # a worker of the program's, too
    assert "a leak" in alive_line(p)
