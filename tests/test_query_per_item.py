"""A query made per item over the program's own connection (sequential.round_trips_per_item),
end to end through the CLI with ``tests/diagnosis/query_per_item.py``.

Before (an unseen order export's driver over raw TCP, its item query 8 times per job):
only cpu-starved was told, for the test's own store; one IN (...) query took 65 % off the
run.
"""

from __future__ import annotations

from tests.test_diagnosis import Workload, assert_first, findings_of, run_cli

PER_ITEM = Workload("query_per_item.py")
SEQUENTIAL_CALLS = "sequential-calls"


def test_a_query_per_item_is_told_at_its_line(tmp_path):
    profile = run_cli(PER_ITEM, tmp_path)
    first = assert_first(profile, PER_ITEM, SEQUENTIAL_CALLS)
    [loop] = PER_ITEM.lines("loop")
    assert first.extra["own_connection"] and first.extra["per_job"] == 96
    assert first.extra["round_trips"] == 8 * 96
    assert f"called from {PER_ITEM.path}:{loop}:export" in first.message, first.message
    assert "one query for all the items" in first.message


def test_one_query_for_all_the_items_is_not(tmp_path):
    profile = run_cli(PER_ITEM, tmp_path, "fixed=1")
    assert not [f for f in findings_of(profile, SEQUENTIAL_CALLS)
                if f.extra.get("own_connection")], profile.findings
