"""An upstream that queues what it cannot serve at once (held.upstream_queued), from the
pool watch's ``heads_by_load``.

End to end, ``tests/diagnosis/queued_upstream.py`` runs a Pool of 16 against an
upstream serving 2 at a time and against one with room (``tests/test_diagnosis.py``).
Here each condition is moved past its edge on a record built by hand.
"""

from __future__ import annotations

import pytest

from geventperf.findings.held import (
    QUEUED_MIN_LIGHT,
    QUEUED_MIN_LOADED,
    QUEUED_RATIO,
    upstream_queued,
)
from geventperf.poolwatch import LOAD_BUCKETS, load_bucket
from geventperf.profile import Profile

HOST = "http://127.0.0.1:8080"
LIGHT_MS, LOADED_MS = 20.0, 160.0


def record(light: int = 4, loaded: int = 100, light_ms: float = LIGHT_MS,
           loaded_ms: float = LOADED_MS, loaded_bucket: int = 4) -> Profile:
    """A host whose *light* heads were sent with 3-4 in flight, and *loaded* ones in
    *loaded_bucket* (9-16 in flight by default)."""
    buckets = [[0, 0.0] for _ in range(LOAD_BUCKETS)]
    buckets[2] = [light, light * light_ms / 1e3]
    buckets[loaded_bucket] = [loaded, loaded * loaded_ms / 1e3]
    return Profile(duration_s=2.0, events=[{"kind": "urllib3-pool", "pool": HOST,
                                             "heads_by_load": buckets}])


@pytest.mark.parametrize("in_flight, bucket", [
    (1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (16, 4), (17, 5),
    (10 ** 6, LOAD_BUCKETS - 1), (0, 0)])
def test_the_buckets_are_powers_of_two(in_flight, bucket):
    assert load_bucket(in_flight) == bucket


def test_answers_slower_with_many_in_flight_are_a_queue():
    queued = upstream_queued(record(), HOST)
    assert queued is not None
    assert (queued.light_in_flight, queued.loaded_in_flight) == (4, (9, 16))
    assert queued.light_ms == pytest.approx(LIGHT_MS)
    assert queued.loaded_ms == pytest.approx(LOADED_MS)


@pytest.mark.parametrize("change", [
    dict(loaded_ms=QUEUED_RATIO * LIGHT_MS * 0.99),  # as fast loaded: room to spare
    dict(loaded=QUEUED_MIN_LOADED - 1),  # too few heads at the top to judge
    dict(light=QUEUED_MIN_LIGHT - 1),  # too few sent while the pool filled
    dict(loaded_bucket=3),  # 5-8 in flight: no bucket at a quarter of it beside 3-4
], ids=["as-fast", "few-loaded", "few-light", "no-quarter"])
def test_it_is_no_queue(change):
    assert upstream_queued(record(**change), HOST) is None


def test_at_the_ratio_it_is_a_queue():
    assert upstream_queued(record(loaded_ms=QUEUED_RATIO * LIGHT_MS * 1.01), HOST)


@pytest.mark.parametrize("heads", [None, "x", [[1, 2, 3]], [[1, -1.0]], [[True, 0.1]],
                                   [[1, float("nan")]]])
def test_a_broken_record_says_nothing(heads):
    p = Profile(duration_s=1.0, events=[{"kind": "urllib3-pool", "pool": HOST,
                                         "heads_by_load": heads}])
    assert upstream_queued(p, HOST) is None
    assert upstream_queued(record(), "http://elsewhere:1") is None
