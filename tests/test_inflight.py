"""duplicate-in-flight: requests sent while one alike still waits for its answer.

``tests/diagnosis/flag_stampede.py`` (run through the real CLI, as the diagnosis suite
runs its workloads) serves requests whose handlers read feature flags from a cache of
0.25 s, against a kept-alive raw-socket server on 127.0.0.1 whose flags answer takes
100 ms: refilled by every handler that finds it expired, by one refresh at a time, or
not cached at all.
"""

from __future__ import annotations

import pytest

from geventperf import Profile, findings
from geventperf.findings.inflight import DUPLICATES_MIN
from geventperf.profile import Finding
from tests.servers import RawServer
from tests.test_diagnosis import (
    Workload,
    _respond_kept,
    assert_first,
    assert_no_network_blame,
    listing,
    run_cli,
)

STAMPEDE = Workload("flag_stampede.py")
HANDLERS = 30
# render_stampede.py's items
ITEMS_RENDERED = 24


@pytest.fixture(scope="module")
def store():
    with RawServer(_respond_kept, keep_alive=True) as srv:
        yield srv


def _run(tmp_path, store: RawServer, cache: str) -> Profile:
    return run_cli(STAMPEDE, tmp_path, f"account={store.url}/slow?delay=0.08",
                   f"flags={store.url}/slow?delay=0.1&flags=1", f"cache={cache}")


def _pool(profile: Profile) -> dict:
    [event] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    return event


def test_a_cache_every_caller_refills_at_its_expiry_is_told_first(tmp_path, store):
    profile = _run(tmp_path, store, "ttl")
    pool = _pool(profile)
    [(url, duplicates)] = pool["duplicated"]
    assert url == "/slow?delay=0.1&flags=1" and duplicates == pool["duplicates"]
    assert duplicates >= DUPLICATES_MIN and 2 <= pool["duplicate_peak"] <= HANDLERS, pool
    [(site, n)] = pool["duplicate_sites"]
    assert site.endswith(":load_flags") and n == duplicates
    first = assert_first(profile, STAMPEDE, findings.DUPLICATE_IN_FLIGHT)
    assert f"{duplicates} GET requests for {pool['pool']}{url} were sent while one alike " \
        "was still waiting for its answer" in first.message, first.message
    assert "a gevent.event.AsyncResult per key" in first.message
    assert 0 < first.cost_s and first.extra["site"] == site
    assert_no_network_blame(profile, STAMPEDE, innocent=())
    # the same figures from a program that asked that one URL only, a load test
    # hammering it from every greenlet: nothing else to compare it with, not told
    assert findings.duplicates_in_flight(profile)
    pool.update(calls=pool["top_gets"][0][1], gets=pool["top_gets"][0][1], distinct_gets=1)
    assert pool["top_gets"][0][0] == url and findings.duplicates_in_flight(profile) == []


def test_one_refresh_at_a_time_is_not_told(tmp_path, store):
    profile = _run(tmp_path, store, "single")
    assert _pool(profile)["duplicates"] < DUPLICATES_MIN, _pool(profile)
    assert not [f for f in profile.findings if f.kind == findings.DUPLICATE_IN_FLIGHT], \
        listing(profile)


def test_no_cache_at_all_is_told_as_a_repeated_request_only(tmp_path, store):
    profile = _run(tmp_path, store, "none")
    assert _pool(profile)["duplicates"] >= DUPLICATES_MIN  # the shape is there too
    kinds = [f.kind for f in profile.findings]
    assert findings.REPEATED_REQUEST in kinds, listing(profile)
    assert findings.DUPLICATE_IN_FLIGHT not in kinds, listing(profile)


def test_a_hosts_few_urls_fetched_again_and_again_tell_their_duplicates_too():
    """An unseen pricing API's 1 600 calls for 4 URLs with no cache, 1 537 of them while
    one alike was in flight: repeated-request (no cache at all) tells them; the
    duplicates from the same line at the same host are not a second finding."""
    from geventperf.findings.inflight import without_repeats_told
    host, site = "http://127.0.0.1:9", "app.py:110:price"
    repeats = Finding(kind="repeated-request", message="r", cost_s=62.0, stack=[],
                      extra={"host": host, "site": site, "few_urls": True})
    duplicates = Finding(kind="duplicate-in-flight", message="d", cost_s=18.0, stack=[],
                         extra={"host": host, "site": site, "request": "GET /rate?c=1",
                                "duplicates": 410, "asked": 426})
    elsewhere = Finding(kind="duplicate-in-flight", message="e", cost_s=5.0, stack=[],
                        extra={"host": host, "site": "app.py:7:other", "request": "GET /x",
                               "duplicates": 40, "asked": 40})
    assert without_repeats_told([repeats, duplicates, elsewhere]) == [repeats, elsewhere]


RENDERS = Workload("render_stampede.py")


def test_a_cache_of_many_keys_each_missed_together_is_told_first(tmp_path, store):
    # 16 edges ask for each of 24 new items at once: each item's original is fetched up
    # to 16 times together, no URL near DUPLICATES_MIN, hundreds in all
    profile = run_cli(RENDERS, tmp_path, f"store={store.url}/slow?delay=0.06&size=20000")
    pool = _pool(profile)
    assert pool["duplicated"][0][1] < DUPLICATES_MIN <= pool["duplicates"], pool
    first = assert_first(profile, RENDERS, findings.DUPLICATE_IN_FLIGHT)
    assert f"{pool['duplicates']} of the {pool['gets']} GET requests to {pool['pool']} " \
        f"(for {ITEMS_RENDERED} different URLs)" in first.message, first.message
    assert first.extra["host_duplicates"] == pool["duplicates"]


def test_one_render_per_key_at_a_time_is_not_told(tmp_path, store):
    profile = run_cli(RENDERS, tmp_path, f"store={store.url}/slow?delay=0.06&size=20000",
                      "flight=single")
    assert _pool(profile)["duplicates"] == 0, _pool(profile)
    assert not [f for f in profile.findings if f.kind == findings.DUPLICATE_IN_FLIGHT], \
        listing(profile)



@pytest.mark.parametrize("distinct, told", [(24, "24 different URLs"),
                                            (None, "more than 256 different URLs")])
def test_a_spread_stampede_counts_the_urls_only_where_they_were_counted(distinct, told):
    # (an unseen tile proxy's hosts asked for too many URLs to count: "for 0 different
    # URLs" was printed)
    from geventperf.findings.inflight import _urls
    assert _urls({"distinct_gets": distinct}) == told
