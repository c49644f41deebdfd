"""A pool's jobs queueing for connections of the program's own pool that each job held
across an upstream call (limits.held_across_taken), end to end through the CLI with
``tests/diagnosis/held_connection.py``; and a stand-in upstream's sleeping handler is
no pacer (held.pacing_sleeper).

Before (an unseen payments worker holding its transaction's connection across a risk
service's HTTP call): pool-full with "a larger Pool" as the fix, +1 %; scoring before the
transaction took 43 % off the run.
"""

from __future__ import annotations

from geventperf.findings.limits import HELD_ACROSS_IN_SLOTS
from tests.test_diagnosis import POOL_FULL, Workload, assert_first, findings_of, run_cli

HELD = Workload("held_connection.py")


def test_a_connection_held_across_an_upstream_call_is_told_with_the_calls_line(tmp_path):
    profile = run_cli(HELD, tmp_path)
    first = assert_first(profile, HELD, POOL_FULL, marker="spawn", greenlet="main")
    [block] = HELD.lines("block")
    [culprit] = HELD.lines("culprit")
    assert first.extra["held_across_taken"].endswith(f"held_connection.py:{block}:settle")
    assert f"held_connection.py:{culprit}:settle: 160 calls of" in first.message
    fix = HELD_ACROSS_IN_SLOTS.split("{site}")[0]
    assert fix in first.message and "pacer" not in first.message, first.message


def test_the_call_made_before_the_block_is_no_connection_held(tmp_path):
    profile = run_cli(HELD, tmp_path, "fixed=1")
    assert not [f for f in findings_of(profile, POOL_FULL)
                if f.extra.get("held_across_taken")], profile.findings
