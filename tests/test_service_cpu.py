"""A service profiled under its own in-process load generator (the round-AE..AH blind
programs' shape): the load generator's requests and CPU are not the service's, the
service's calls to in-process stand-ins for its upstreams are; a cache already warm
after one burst of duplicates at start-up is no cache missing; the repeats a cache skips
lend the loop's queueing only as far as requests' CPU made it."""

from __future__ import annotations

from geventperf import findings
from geventperf.findings.held import one_burst_each
from geventperf.findings.ownclients import (
    is_load_generator,
    load_generator_lines,
    load_test_hosts,
)
from geventperf.findings.repeated import _skips_most, skipped_cost
from geventperf.profile import Finding, StackTime
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.test_findings import APP
from tests.test_mut_findings import profile, requests_saturated
from tests.test_ownclients import HEAD, pool, served

LOAD_LINE = f"{APP}:351:worker"
FORWARD_LINE = f"{APP}:222:forward_http"
HANDLER = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application"
REQUESTS = "/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request"


def service():
    """A service on port 8080 whose handlers forward to a stand-in upstream in the same
    process (port 9090), under a load generator calling 8080 from LOAD_LINE."""
    waits = [StackTime(stack=[*HEAD, FORWARD_LINE, f"{APP}:299:app", HANDLER], count=50,
                       wait_s=2.0, event_wait_s=2.0),
             StackTime(stack=[*HEAD, LOAD_LINE], count=50, wait_s=3.0, event_wait_s=3.0)]
    events = served(8080, pool("http://127.0.0.1:8080", [(LOAD_LINE, 64)]),
                    pool("http://127.0.0.1:9090", [(FORWARD_LINE, 64)]))
    events[0]["ports"] = [8080, 9090]
    return profile(waits=waits, events=events)


def test_a_stand_in_upstream_the_handlers_call_is_no_load_test_host():
    """Before (an unseen resolver proxy forwarding to two in-process upstreams): both
    were left out as a load test's, and their 3 260 lookups behind a cache keyed on each
    query's random id went untold."""
    p = service()
    assert [e["pool"] for e in load_test_hosts(p)] == ["http://127.0.0.1:8080"]
    assert load_generator_lines(p) == {LOAD_LINE.rsplit(":", 1)[0]}


def test_a_sample_is_the_load_generators_at_its_line_outside_a_handler():
    lines = {LOAD_LINE.rsplit(":", 1)[0]}
    assert is_load_generator([REQUESTS, LOAD_LINE], lines)
    assert not is_load_generator([REQUESTS, FORWARD_LINE, HANDLER], lines)
    # the load generator's line inside a handler: a handler calling its own service
    assert not is_load_generator([REQUESTS, LOAD_LINE, HANDLER], lines)


def test_a_load_generators_cpu_is_left_out_of_the_services_hot_code(tmp_path):
    """Before (an unseen resolver proxy: its load clients burned 47 % of the sampled
    CPU): its blocklist scan, 41 % of the service's own CPU, was under the 25 % a hot
    function needs, and the finding blamed requests' per-request work instead."""
    from geventperf.findings.cpuhot import hot_code
    p = service()
    p.events[1]["call_sites"] = [[LOAD_LINE, 64]]
    scan = f"{APP}:200:Blocklist.blocked"
    p.cpu_samples = CpuSamples(frames=[REQUESTS, LOAD_LINE, scan, f"{APP}:299:app", HANDLER],
                               first_lines=[1] * 5, stacks=[
        SampledStack(frames=[0, 1], greenlet="load", sections=[], count=50, cpu_s=0.5, gid=3),
        SampledStack(frames=[2, 3, 4], greenlet="handler", sections=[], count=20, cpu_s=0.2,
                     gid=4),
        SampledStack(frames=[0, 3, 4], greenlet="handler", sections=[], count=30, cpu_s=0.3,
                     gid=4)])
    hot = hot_code(p, {"load", "handler"})
    assert hot is not None and hot.line == scan and round(hot.share, 2) == 0.4, hot
    # and requests' share is the service's: its 0.3 s of 0.5 s, not 0.8 s of 1 s
    from geventperf.findings.saturated import _client_cpu_shares
    assert [round(x, 2) for x in _client_cpu_shares(p)] == [0.0, 0.6]


def test_repeats_in_one_burst_per_url_are_a_cold_caches_stampede():
    """Before (an unseen weather service's 24 workers asked each of 80 stations about 5
    times at start-up, all at once, then hit their cache for the rest of the run):
    "a cache in front of the call" on a healthy program."""
    burst = {"duplicates": 314, "duplicate_peak": 5}
    assert one_burst_each(burst, 394, 80)
    # a cache that never hits: some of its asks overlap, most come one after another
    assert not one_burst_each({"duplicates": 3562, "duplicate_peak": 7}, 4753, 80)
    assert not one_burst_each({"duplicates": 100, "duplicate_peak": 5}, 394, 80)
    assert not one_burst_each({}, 394, 80)  # older files: not counted


def test_a_cache_skipping_a_fifth_of_a_lines_calls_does_not_outrank_making_them_together():
    repeat = Finding(kind="repeated-request", message="m", extra={"gets": 320, "distinct": 7})
    assert not _skips_most(repeat, 1600)  # an unseen product page: 313 of 1 600
    assert _skips_most(Finding(kind="repeated-request", message="m",
                               extra={"gets": 1500, "distinct": 300}), 1500)
    assert _skips_most(Finding(kind="repeated-request", message="m", extra={}), 1600)


def test_repeats_lend_the_queueing_only_as_far_as_requests_cpu_made_it():
    """Before (an unseen thumbnail service saturated by an ETag computed a byte at a
    time): its repeated fetches of the originals took all the loop's queueing for their
    share and were told first."""
    p = requests_saturated()
    events = [{"kind": "urllib3-pool", "pool": "http://media:80", "calls": 100}]
    everything, all_queueing = skipped_cost(p, events, 0.0, 100, 50, only_requests=False)
    weighed, queueing = skipped_cost(p, events, 0.0, 100, 50)
    assert all_queueing > 0 and everything == all_queueing
    # requests_saturated's samples: half the CPU in requests' layers
    assert abs(queueing - all_queueing / 2) < 1e-9 and weighed == queueing


def test_a_saturated_loop_names_the_scan_matching_patterns_per_element(tmp_path):
    """Before (an unseen resolver proxy matched each name against 1 500 blocklist globs
    with fnmatch.fnmatchcase): the scan was no search, its CPU beneath the line in
    fnmatch's Python code."""
    from geventperf.frames import searched_collection
    from tests.test_linear_search import with_samples_at
    path = tmp_path / "blocklist.py"
    path.write_text("import fnmatch, re\n"
                    "class Exchange:\n"
                    "    def blocked(self, name):\n"
                    "        for pattern in self.patterns:\n"
                    "            if fnmatch.fnmatchcase(name, pattern):\n"
                    "                return True\n"
                    "        for rx in self.compiled:\n"
                    "            if rx.search(name):\n"
                    "                return True\n"
                    "        for word in name.split():\n"
                    "            if re.match('x', word):\n"
                    "                return True\n")
    assert searched_collection(f"{path}:5:Exchange.blocked") == "self.patterns"
    assert searched_collection(f"{path}:8:Exchange.blocked") == "self.compiled"
    assert searched_collection(f"{path}:11:Exchange.blocked") is None  # a call's result
    p = with_samples_at(path, 5)
    for stack in p.cpu_samples.stacks[:1]:
        p.cpu_samples.frames.append("/usr/lib/python3.11/fnmatch.py:74:fnmatchcase")
        stack.frames.insert(0, len(p.cpu_samples.frames) - 1)
    p.cpu_samples.first_lines.append(1)
    [f] = findings.loop_saturated(p)
    assert "it searches self.patterns one element at a time" in f.message, f.message
    assert "fnmatch.translate each glob" in f.message


def test_a_saturated_loop_counts_repeated_gets_past_the_url_table_by_their_keys():
    """Before (an unseen flag service's 4 173 lookups for 500 users, behind a cache whose
    TTL of 30 was read as milliseconds): too many URLs to count one by one, and the
    saturated loop told requests' CPU alone, the repeats a finding after it."""
    from geventperf.findings.held import repeats_told
    p = requests_saturated()
    lookups = {"kind": "urllib3-pool", "pool": "http://attrs:80", "calls": 4173,
               "gets": 4173, "distinct_gets": None, "others": 0, "keyed": 4173,
               "distinct_keys": 500, "call_sites": [[f"{APP}:236:_fetch", 64]]}
    p.events = [lookups]
    assert repeats_told(p, any_host=True).startswith(
        f" The 4173 GET requests to http://attrs:80 (from {APP}:236:_fetch) asked for "
        "only 500 different URLs (8 each on average)")
    # a cold cache's burst at start-up, each URL's asks all in flight at once: no repeat
    p.events = [dict(lookups, gets=2500, keyed=2500, duplicates=2000,
                     duplicate_peak=5)]
    assert repeats_told(p, any_host=True) == ""
    # other methods beside the GETs: the keys are not the GETs' URLs, but all the
    # requests' by method, URL and body (a lookup POSTed is told so too)
    p.events = [dict(lookups, others=10, keyed=4183)]
    assert repeats_told(p, any_host=True).startswith(
        f" The 4183 requests to http://attrs:80 (from {APP}:236:_fetch) were only 500 "
        "different ones by method, URL and body (8 each on average)")


def test_a_host_the_program_writes_to_serves_state_no_cache_may_keep():
    """Before (an unseen reconcile controller re-reading each resource's actual state
    from its agents, 4-13 % of its requests to them writes): "cache them", first, in
    all five of its programs."""
    from geventperf.findings.held import writes_state
    agent = {"gets": 1964, "others": 87, "distinct_sent": 85}
    assert writes_state(agent)
    assert writes_state(dict(agent, distinct_sent=None))  # too many to count: varied
    # one token POST again and again is a repeat of its own, no state written
    assert not writes_state(dict(agent, distinct_sent=1))
    assert not writes_state({"gets": 1964, "others": 0})  # a host of lookups
    assert not writes_state({"gets": 1964, "others": 10, "distinct_sent": 10})  # under 1 %


def test_a_comparing_line_whose_cpu_ran_in_another_library_is_no_search(tmp_path):
    """An unseen timeline service's near-duplicate check compared authors with == in a
    loop, its CPU in difflib beneath the line: difflib's story, not a search."""
    from tests.test_linear_search import SOURCE, with_samples_at
    path = tmp_path / "exchange.py"
    path.write_text(SOURCE)
    p = with_samples_at(path, 5)
    p.cpu_samples.frames.append("/usr/lib/python3.11/difflib.py:620:SequenceMatcher.ratio")
    p.cpu_samples.first_lines.append(1)
    p.cpu_samples.stacks[0].frames.insert(0, len(p.cpu_samples.frames) - 1)
    [f] = findings.loop_saturated(p)
    assert "one element at a time" not in f.message, f.message
    assert "it compares texts with difflib" in f.message, f.message


def test_a_saturated_loop_names_the_next_repeating_host_too():
    """An unseen beacon collector's geo lookups (2 975 asked again) and campaign lookups
    (2 093, behind a cache keyed on click ids, the planted cause): which costs more is
    not known from the counts, so both are named."""
    from geventperf.findings.held import repeats_told
    p = requests_saturated()
    p.events = [{"kind": "urllib3-pool", "pool": "http://geo:80", "calls": 3503,
                 "gets": 3503, "distinct_gets": 528, "call_sites": [[f"{APP}:270:geo", 64]]},
                {"kind": "urllib3-pool", "pool": "http://campaign:80", "calls": 2117,
                 "gets": 2117, "distinct_gets": 24,
                 "call_sites": [[f"{APP}:282:campaign", 64]]}]
    told = repeats_told(p, any_host=True)
    assert told.startswith(f" The 3503 GET requests to http://geo:80 (from {APP}:270:geo)")
    assert told.endswith(f" Likewise the 2117 GET requests to http://campaign:80 (from "
                         f"{APP}:282:campaign): 24 different URLs."), told


def test_a_saturated_loop_tells_no_repeats_of_a_host_the_program_writes_to():
    from geventperf.findings.held import repeats_told
    p = requests_saturated()
    p.events = [{"kind": "urllib3-pool", "pool": "http://agent:80", "calls": 2051,
                 "gets": 1964, "distinct_gets": 227, "others": 87, "distinct_sent": 85}]
    assert repeats_told(p, any_host=True) == ""
    p.events[0]["others"] = 0
    assert repeats_told(p, any_host=True) != ""
