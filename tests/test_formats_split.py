"""The reports' new figures (issue 11 and 13): the event/ready split of waits, blame,
loop utilization and metadata in the text report, wait sites merged at the user's own
frame, and the split wait pseudo-frames of the viewer formats.  Built from
tests/profile_factory.py's split_profile (and legacy_profile, a file from before)."""

from __future__ import annotations

import json
import pstats

import pytest

from geventperf.formats import _tables, render
from geventperf.formats._frames import format_seconds, frame_label
from geventperf.frames import is_machinery, user_site
from geventperf.profile import Finding, StackTime
from tests.profile_factory import APP_PATH, legacy_profile, small_profile, split_profile
from tests.test_formats import HUB_WAIT_KEY, check_chrome, parse_collapsed

# -- wait sites by the user's frame ------------------------------------------------------

def test_wait_sites_identical_at_the_users_frame_merge():
    """Three stacks that differ only inside gevent (recv_into from three library
    paths) are one row at the user's line, with the waits and counts added."""
    profile = small_profile()
    gevent_recv = "/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:400:recv_into"
    user = f"{APP_PATH}:44:download"
    profile.waits = [StackTime(stack=[gevent_recv, f"/usr/lib/python3.11/socket.py:{n}:read",
                                      user], count=10, wait_s=1.0) for n in (700, 701, 702)]
    table = _tables.wait_site_table(profile)
    assert table.total == 1 and table.rows[0] == ["3.00 s", "30",
                                                   "download (/srv/app/worker.py:44)"]
    assert table.subrows[0].startswith("-> read (")
    assert "recv_into" in table.subrows[0] and "(+2 other library calls)" in table.subrows[0]
    assert "greenlet-seconds" in table.note and "exceed" in table.note


@pytest.mark.parametrize("entry, machinery", [
    ("/v/lib/python3.11/site-packages/gevent/hub.py:166:sleep", True),
    ("/v/lib/python3.11/site-packages/urllib3/response.py:1:read", True),
    ("/usr/lib/python3.11/http/client.py:1:readinto", True),
    ("/usr/lib/python3.11/ssl.py:1:recv_into", True),
    ("/work/main/geventperf/sections.py:1:wrapper", True),
    ("/work/main/geventperf/feedworkload.py:65:naive_job", False),
    ("/v/lib/python3.11/site-packages/locust/user/task.py:1:execute_task", False),
    ("/srv/app/worker.py:3:job", False),
    ("<frozen runpy>:1:_run_code", False),
])
def test_machinery_frames(entry, machinery):
    assert is_machinery(entry) is machinery


def test_user_site_names_the_users_frame_and_the_call_it_made():
    stack = ["/v/site-packages/gevent/_socketcommon.py:1:recv_into",
             "/v/site-packages/requests/models.py:2:content", f"{APP_PATH}:12:fetch",
             f"{APP_PATH}:30:job"]
    assert user_site(stack) == (f"{APP_PATH}:12:fetch",
                                "/v/site-packages/requests/models.py:2:content", stack[0])
    assert user_site([f"{APP_PATH}:1:x"]) == (f"{APP_PATH}:1:x", None, f"{APP_PATH}:1:x")
    assert user_site(stack[:2]).user is None and user_site([]).user is None
    # geventperf's section wrapper around a C parser is skipped for the call it made
    wrapped = [stack[0], "/v/site-packages/urllib3/response.py:3:read",
               "/work/main/geventperf/sections.py:9:wrapper", f"{APP_PATH}:95:parse_feed"]
    assert user_site(wrapped).library == "/v/site-packages/urllib3/response.py:3:read"


def test_wait_site_that_yielded_in_the_users_own_line_says_so():
    """gevent's locks are compiled: a wait on one ends in the user's frame itself."""
    profile = small_profile()
    profile.waits = [StackTime(stack=[f"{APP_PATH}:92:job", f"{APP_PATH}:1:main"], count=9,
                               wait_s=5.0),
                     StackTime(stack=["/v/site-packages/requests/sessions.py:1:get",
                                      f"{APP_PATH}:92:job"], count=9, wait_s=1.0)]
    table = _tables.wait_site_table(profile)
    assert table.total == 1 and table.rows[0][0] == "6.00 s"
    assert table.subrows[0].startswith("(mostly this line itself: a gevent lock")
    # where the bytecode told what the line called, it says so
    profile.waits[0].call = "with"
    table = _tables.wait_site_table(profile)
    assert table.subrows[0].startswith("(mostly this line itself: taking a gevent lock")
    profile.waits[0].call = "get"
    table = _tables.wait_site_table(profile)
    assert table.subrows[0].startswith("(mostly this line itself: its get() call")



# -- the text report's header, groups, findings and holders --------------------------

def test_text_header_with_the_wait_split():
    header = render(split_profile(), "text").split("\n\n")[0]
    lines = header.splitlines()
    assert lines[0].endswith("tracer: its C hot path")
    assert lines[1] == "command: geventperf run worker.py --fast"
    assert "host buildhost  Python 3.11.7  gevent 26.9.0 (loop libev-cext)" in lines[2]
    assert "loop: busy 60.0% of the run" in header and "hub idle 200.0 ms; 57 polls" in header
    assert "p50 1.0 ms, p99 9.0 ms" in header
    assert "summed over greenlets: run 240.0 ms (CPU 210.0 ms), event wait 140.0 ms, " \
           "ready wait 210.0 ms" in " ".join(header.split())


def test_text_old_profile_without_the_split_says_what_is_missing():
    text = render(legacy_profile(), "text")
    assert "loop: utilization not measured" in text and "idle not measured" in text
    greenlets = text[text.index("GREENLETS"):text.index("SECTIONS")]
    assert "ready wait" not in greenlets.splitlines()[-3] and " wait " in greenlets
    assert "WHO HELD THE LOOP" not in text


def test_text_greenlet_groups_sum_their_members_and_say_so():
    profile = split_profile()
    for g in profile.greenlets:
        g.name = "job"
    text = render(profile, "text")
    section = text[text.index("GREENLETS"):text.index("WHO HELD")]
    row = next(line for line in section.splitlines() if line.startswith("job "))
    # CPU 110 + 100 ms; event 100 + 40; ready 200 + 10; delayed 40 + 200; switches 121
    assert row.split() == ["job", "2", "210.0", "ms", "30.0", "ms", "140.0", "ms", "210.0",
                           "ms", "240.0", "ms", "121", "4.0", "ms"]
    assert "summed over the group's greenlets" in " ".join(section.split())


def test_text_findings_say_what_their_cost_means():
    text = render(split_profile(), "text")
    block = text[text.index("FINDINGS"):text.index("GREENLETS")]
    assert block.count("cost 150.0 ms = time this cause added to the run") == 1
    legacy = render(small_profile(), "text")
    assert "summed over the greenlets it touched" in " ".join(legacy.split())


def test_text_hazards_come_first_and_merged_findings_count_greenlets():
    profile = split_profile()
    profile.findings.append(Finding(kind="c-section-deadlock-risk", message="may hang",
                                    cost_s=0.0, extra={"hazard": True, "greenlets": 7,
                                                       "names": {"worker-a": 5, "x": 2}}))
    block = render(profile, "text")
    assert block.index("c-section-deadlock-risk  HAZARD") < block.index("blocked-read-in")
    assert "7 greenlets (mostly worker-a)" in block


def test_text_who_held_the_loop():
    text = render(split_profile(), "text")
    held = text[text.index("WHO HELD THE LOOP"):text.index("SECTIONS")]
    first = held.splitlines()[4]
    assert first.split()[:2] == ["210.0", "ms"] and "parse (/srv/app/worker.py:15)" in first


# -- the event/ready split in the viewer formats ---------------------------------------

def test_collapsed_splits_waits_into_event_and_ready_leaves():
    stacks = parse_collapsed(render(split_profile(), "collapsed"))
    prefix = ("job (/srv/app/worker.py:30);fetch (/srv/app/worker.py:12);"
              "content (site-packages/requests/models.py:899);"
              "generate (site-packages/requests/models.py:816);")
    assert stacks[prefix + "<event wait>"] == 100_000
    assert stacks[prefix + "<ready wait>"] == 200_000
    assert not any(stack.endswith("<hub wait>") for stack in stacks)
    assert sum(stacks.values()) == 490_000  # the same total as unsplit


def test_pstats_has_event_and_ready_wait_functions(tmp_path):
    path = tmp_path / "split.prof"
    path.write_bytes(render(split_profile(), "pstats"))
    stats = pstats.Stats(str(path)).stats
    assert HUB_WAIT_KEY not in stats
    assert stats[("~", 0, "<event wait>")][2] == pytest.approx(0.14)
    assert stats[("~", 0, "<ready wait>")][2] == pytest.approx(0.21)


def test_speedscope_and_chrome_draw_ready_wait_before_each_slice():
    profile = split_profile()
    document = json.loads(render(profile, "speedscope"))
    frames = [f["name"] for f in document["shared"]["frames"]]
    assert "<event wait>" in frames and "<ready wait>" in frames
    worker = document["profiles"][2]
    opened = [frames[e["frame"]] for e in worker["events"] if e["type"] == "O"]
    # each wait after the first slice: event wait, then 1 ms ready wait, then the run
    assert opened[1:4] == ["<event wait>", "<ready wait>", "run"]
    events = check_chrome(json.loads(render(profile, "chrome")))
    ready = [e for e in events if e["name"] == "ready wait"]
    assert ready and all(e["dur"] == pytest.approx(1000) for e in ready)
    event = [e for e in events if e["name"] == "event wait"]
    assert event and all(e["dur"] == pytest.approx(7000) for e in event)
    assert not [e for e in events if e["name"] == "wait"]


def test_no_findings_says_where_the_time_went_instead():
    """A run with no finding (a slow service called, consumers idle on a queue) is no
    blank: the text report says whether greenlets waited for I/O or queued, and where."""
    profile = split_profile()
    profile.findings = []
    text = render(profile, "text")
    block = text[text.index("FINDINGS: none"):].split("\n\n")[0]
    assert "I/O or queueing? " in block and "event wait" in block, block
    assert "Where was the waiting? " in block and "fetch" in block, block
    # and who the others queued behind: the queueing has a holder even with no finding
    assert "Who held the loop? worker-b" in block, block


def test_no_findings_names_a_second_wait_site_holding_a_quarter():
    """An unseen service's handlers waited 34 % at an Event a refresher kept clear,
    under the 47 % at their upstream call: the second line is named too, from a quarter
    of all waiting on, and not under it."""
    profile = split_profile()
    profile.findings = []
    profile.waits[1].wait_s = profile.waits[1].event_wait_s = 0.1  # 0.1 of 0.4: a quarter
    block = " ".join(render(profile, "text").split("FINDINGS: none")[1].split("\n\n")[0]
                     .split())
    assert f"; next 100.0 ms (25%) at sleepy ({APP_PATH}:20)" in block, block
    profile.waits[1].wait_s = profile.waits[1].event_wait_s = 0.09
    block = " ".join(render(profile, "text").split("FINDINGS: none")[1].split("\n\n")[0]
                     .split())
    assert "; next" not in block, block


def test_no_findings_names_the_code_the_holder_burned_the_cpu_in():
    """An unseen minting job's PBKDF2 held everyone up in each job's last slice, half
    the run, under every finding's gate: the holder's sampled hot line is named."""
    from geventperf.sampling.model import CpuSamples, SampledStack
    profile = split_profile()
    profile.findings = []
    profile.cpu_samples = CpuSamples(
        frames=[f"{APP_PATH}:17:derive_key", f"{APP_PATH}:30:mint"], first_lines=[1, 1],
        stacks=[SampledStack(frames=[0, 1], greenlet="worker-b", sections=[], count=6,
                             cpu_s=0.06, gid=3)])
    text = render(profile, "text")
    block = " ".join(text[text.index("FINDINGS: none"):].split("\n\n")[0].split())
    assert f"at {APP_PATH}:17:derive_key" in block, block
    # and where the busy loop's CPU went, whoever waited (an unseen export's serial phase
    # in its main greenlet kept nobody waiting); not for a loop busy under a quarter
    assert ("Where did the CPU go? the loop was busy 60% of the run; CPU samples put "
            f"100% of their sampled CPU (6 samples in all) at {APP_PATH}:17:derive_key"
            in block), block
    profile.hub["utilization"] = 0.24
    text = render(profile, "text")
    assert "Where did the CPU go?" not in text, text


def test_no_findings_says_how_many_calls_each_greenlet_made_in_turn_at_the_top_line():
    """An unseen device sync's tenant greenlets (started with gevent.spawn, no Pool)
    walked a cursor in pages of 25, 160 calls each at one line, and no finding was
    told: the glance gives the calls per greenlet there and the levers, from
    held.CALLS_EACH_TOLD calls each on, and nothing under it."""
    from geventperf.findings.held import CALLS_EACH_TOLD
    from geventperf.formats._glance import at_a_glance
    profile = split_profile()
    profile.findings = []
    head = "/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin"
    profile.waits[0].stack = [head, *profile.waits[0].stack]
    profile.runs[1].stack = list(profile.waits[0].stack)
    profile.runs[1].greenlet = 2  # worker-a left that stack: it waited there
    profile.waits[0].count = CALLS_EACH_TOLD  # all made by worker-a, the only one so named
    where = dict(at_a_glance(profile))["Where was the waiting?"]
    line = frame_label(user_site(profile.waits[0].stack).user)
    assert f"At {line}, that is {CALLS_EACH_TOLD} calls per job at that line, one after " \
        "another" in where and "ask for larger pages" in where \
        and "each greenlet waits through fewer round trips" in where, where
    # ... not when the program's own server answered as many: its load generator (an
    # unseen price service's 16 in-process clients were told "ask for larger pages")
    served = {"kind": "pywsgi-responses", "responses": CALLS_EACH_TOLD, "kept": 0,
              "nagle": 0, "connections": 1, "servers": 1}
    profile.events = [dict(served, served=CALLS_EACH_TOLD)]
    assert "calls per job" not in dict(at_a_glance(profile))["Where was the waiting?"]
    profile.events = [dict(served, served=CALLS_EACH_TOLD - 1)]
    assert "calls per job" in dict(at_a_glance(profile))["Where was the waiting?"]
    profile.events = []
    profile.waits[0].count = CALLS_EACH_TOLD - 1
    where = dict(at_a_glance(profile))["Where was the waiting?"]
    assert "calls per job" not in where, where


def test_no_findings_counts_a_server_connections_calls_per_request_served():
    """A server's connection greenlet serves request after request on its kept-alive
    connection: its calls are counted per request the in-process WSGI server answered,
    not per greenlet (an unseen gateway's handlers, one call per request, were told "62
    calls per job"); nothing when that count is unknown (two servers' answers are not
    told apart)."""
    from geventperf.findings.common import CONNECTION_GREENLET
    from geventperf.findings.held import CALLS_EACH_TOLD
    from geventperf.formats._glance import at_a_glance
    profile = split_profile()
    profile.findings = []
    head = "/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin"
    profile.waits[0].stack = [head, *profile.waits[0].stack]
    profile.runs[1].stack = list(profile.waits[0].stack)
    profile.runs[1].greenlet = 2
    profile.greenlet(2).name = f"gevent.{CONNECTION_GREENLET}"
    profile.waits[0].count = 4 * CALLS_EACH_TOLD

    def where(served, servers=1):
        profile.events = [{"kind": "pywsgi-responses", "served": served, "responses": served,
                           "kept": 0, "nagle": 0, "connections": 1, "servers": servers}]
        return dict(at_a_glance(profile))["Where was the waiting?"]

    told = where(4)
    assert (f"that is {CALLS_EACH_TOLD} calls per request served at that line, one after "
            "another") in told and "fetch them together inside the request" in told, told
    assert "calls per" not in where(5)  # 8 per request: under CALLS_EACH_TOLD
    assert "calls per" not in where(4, servers=2)
    profile.events = []
    assert "calls per" not in dict(at_a_glance(profile))["Where was the waiting?"]


PYWSGI = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py"
IDLE_STACK = [f"{PYWSGI}:723:WSGIHandler.read_requestline",
              f"{PYWSGI}:774:WSGIHandler.handle_one_request"]


def test_idle_server_connections_are_not_where_the_waiting_was():
    """A service's kept-alive connections wait for their client's next request most of
    the time: one row of their own, marked idle, and the glance names the wait that
    made requests slow instead (the handler's upstream call)."""
    from geventperf.formats._glance import at_a_glance
    profile = split_profile()
    profile.findings = []
    biggest = max(w.wait_s for w in profile.waits)
    profile.waits.append(StackTime(stack=["/x/socket.py:706:SocketIO.readinto", *IDLE_STACK],
                                   count=3, wait_s=10 * biggest, event_wait_s=10 * biggest,
                                   ready_wait_s=0.0))
    sites = _tables.merge_sites(profile.waits, "wait")
    assert sites[0].idle and sites[0].user_text() == _tables.IDLE_SITE
    assert not any(site.idle for site in sites[1:])
    where = dict(at_a_glance(profile))["Where was the waiting?"]
    assert "fetch" in where and "idle, not a cost" in where, where
    assert render(profile, "text").count(_tables.IDLE_SITE) == 1
    # the greenlet that waited there (told by the run slice that ended at that stack)
    # lost that time to nobody: its group's waits are told without it
    idle_stack = profile.waits[-1].stack
    profile.runs.append(StackTime(stack=idle_stack, count=3, run_s=0.001, greenlet=2))
    waiter = profile.greenlet(2)
    waiter.wait_s += 10 * biggest
    waiter.event_wait_s += 10 * biggest
    glance = dict(at_a_glance(profile))
    group = next(g for g in _tables.greenlet_groups(profile) if 2 in g.ids)
    assert glance["Who lost the most time?"].startswith(
        f"{group.label} ({len(group.ids)} greenlet"), glance
    assert f"waited {format_seconds(group.wait_s - 10 * biggest)} (besides " \
        f"{format_seconds(10 * biggest)} awaiting their clients' next requests: idle)" \
        in glance["Who lost the most time?"], glance
    event = max(0.0, group.event_wait_s - 10 * biggest)
    assert f"(event wait {format_seconds(event)}," in glance["I/O or queueing?"], glance



def test_a_stack_that_is_where_slices_ended_is_said_to_be():
    """A loop finding without CPU samples or stall looks shows where its slices ended
    (a wait): the reports say so, so the reader does not take it for where the time
    went."""
    from geventperf.findings.common import STACK_CPU_SAMPLES, STACK_SLICE_END
    from geventperf.formats.html_report import findings_data
    profile = split_profile()
    wait = [f"{APP_PATH}:12:fetch", f"{APP_PATH}:3:main"]
    profile.findings = [
        Finding(kind="loop-held", message="m", cost_s=2.0, stack=wait,
                extra={"stack_is": STACK_SLICE_END}),
        Finding(kind="loop-saturated", message="n", cost_s=1.0, stack=wait,
                extra={"stack_is": STACK_CPU_SAMPLES})]
    lines = render(profile, "text").splitlines()
    ended = [i for i, line in enumerate(lines) if line.startswith("  slices ended at ")]
    assert len(ended) == 1 and lines[ended[0] + 1].startswith(" " * 18 + "main ("), lines
    assert sum(line.startswith("       at ") for line in lines) == 1
    data, _shown, _folded = findings_data(profile, {})
    assert [f["slice_end"] for f in data] == [True, False]


def test_a_finding_of_a_kind_with_several_stories_says_which_in_its_title():
    """Two unseen testers skimming the kinds took serial-bottleneck for one slow consumer
    where its message told a batcher that lingers: the title names the story."""
    profile = split_profile()
    linger = Finding(kind="serial-bottleneck", message="m", cost_s=1.0, stack=[],
                     extra={"linger": "app.py:9:run", "gate": False, "peers": False})
    feeder = Finding(kind="serial-bottleneck", message="m", cost_s=0.5, stack=[],
                     extra={"gate": False, "peers": False})
    profile.findings = [linger, feeder]
    text = render(profile, "text")
    assert "1. serial-bottleneck (a batcher that lingers)  cost" in text, text
    assert "2. serial-bottleneck  cost" in text, text



def test_a_full_pool_says_its_story_in_its_title():
    """A full pool whose jobs waited on a slow tail (or slept, joined, ...) is titled so:
    "pool-full" alone reads as "make the pool larger" to a reader skimming the kinds."""
    profile = split_profile()
    profile.findings = [
        Finding(kind="pool-full", message="m", cost_s=1.0, stack=[],
                extra={"slow_tail": True, "slept_in_slots": False}),
        Finding(kind="pool-full", message="m", cost_s=0.75, stack=[],
                extra={"slept_in_slots": True})]
    text = render(profile, "text")
    assert "1. pool-full (a slow tail)  cost" in text, text
    assert "2. pool-full (jobs asleep in their slots)  cost" in text, text
    profile.findings = [Finding(kind="pool-full", message="m", cost_s=0.5, stack=[],
                                extra={"slept_in_slots": False, "joined_in_slots": False})]
    assert "1. pool-full  cost" in render(profile, "text")


def test_a_saturated_loop_led_by_blocking_calls_says_so_in_its_title():
    """Two unseen testers read "loop-saturated" as a CPU problem where its message led
    with a commit per record blocking the thread."""
    profile = split_profile()
    profile.findings = [Finding(kind="loop-saturated", message="m", cost_s=1.0, stack=[],
                                extra={"blocking_calls": True})]
    assert "1. loop-saturated (blocking calls)  cost" in render(profile, "text")
    profile.findings[0].extra["blocking_calls"] = False
    assert "1. loop-saturated  cost" in render(profile, "text")


@pytest.mark.parametrize("kind, cost_s, scale", [
    ("pool-full", 80.0, "80.00 s (about 20 greenlets the whole run)"),  # 80 greenlet-s, 4 s
    ("pool-full", 8.0, "8.00 s (about 2.0 greenlets the whole run)"),
    ("pool-full", 5.0, "5.00 s (about 1.2 greenlets the whole run)"),
    # a sum of greenlet-seconds under the run's length is no share of the run's wall time
    ("pool-full", 1.0, "1.00 s (like one greenlet for 25% of the run)"),
    ("pool-full", 0.0001, "100 us (like one greenlet for 1% of the run)"),  # never "0%"
    # wall-clock seconds under GREENLETS_FROM: a share of the run's length
    ("critical-path", 5.0, "5.00 s (125% of the run's length)"),
    ("critical-path", 1.0, "1.00 s (25% of the run's length)"),
    ("critical-path", 8.0, "8.00 s (about 2.0 greenlets the whole run)"),
])
def test_a_cost_says_what_it_amounts_to_on_the_run(kind, cost_s, scale):
    """Unseen testers of three rounds read "cost 182 s" on a 4.6 s run as time a fix
    saves, the note above the findings notwithstanding: the title says how many
    greenlets losing it all run long the cost amounts to, in the HTML report too."""
    profile = split_profile()
    profile.duration_s = 4.0
    profile.findings = [Finding(kind=kind, message="m", cost_s=cost_s, stack=[])]
    assert f"1. {kind}  cost {format_seconds(cost_s)}" in render(profile, "text")
    assert f"cost {scale}" in render(profile, "text"), render(profile, "text")
    from geventperf.formats.html_report import findings_data
    data, _shown, _folded = findings_data(profile, {})
    assert data[0]["cost"] == scale


def test_a_cost_on_a_run_without_length_has_no_scale():
    profile = split_profile()
    profile.duration_s = 0.0
    profile.findings = [Finding(kind="pool-full", message="m", cost_s=1.0, stack=[])]
    text = render(profile, "text")
    assert "1. pool-full  cost 1.00 s" in text and "cost 1.00 s (" not in text, text
