"""Loop-blocking slices that grow through the run: work that grows with something the
program keeps adding to (a registry, a cache, metric labels taking new values).

An unseen service's /metrics render held the loop 54 ms early in its run and 247 ms at
its end (a series per raw URL path); told to cut the render into pieces (+2 %), where a
route template as the label gained 43 %.
"""

from __future__ import annotations

import pytest

from geventperf import findings
from geventperf.findings.loop import GROWTH_MIN_SLICES, GROWTH_RATIO
from geventperf.findings.saturated import _grown_told
from geventperf.profile import Finding
from tests.test_mut_findings import blocked_slice, profile


def growing(late_s: float, count: int = GROWTH_MIN_SLICES):
    """*count* CPU slices of greenlet #3, 0.25 s apart: the earlier half 0.1 s each, the
    later half *late_s* each."""
    half = count // 2
    return profile(events=[
        blocked_slice(3, 0.1 if i < half else late_s, 0.1 if i < half else late_s, 0.25,
                      start_s=0.25 * i)
        for i in range(count)])


def test_slices_that_grow_are_told():
    [f] = findings.loop_blocked(growing(0.1 * GROWTH_RATIO))
    assert f.extra["grew"] == [pytest.approx(0.1), pytest.approx(0.15)]
    assert "Those slices grew through the run: 0.100 s on average in its earlier half, " \
        "0.150 s in its later" in f.message, f.message


@pytest.mark.parametrize("late_s, count", [
    (0.1 * GROWTH_RATIO * 0.99, GROWTH_MIN_SLICES),  # not grown enough
    (0.3, GROWTH_MIN_SLICES - 1),  # too few slices to tell
])
def test_slices_that_do_not_grow_are_not(late_s, count):
    [f] = findings.loop_blocked(growing(late_s, count))
    assert "grew" not in f.extra and "grew through the run" not in f.message, f.message


def test_a_saturated_loop_tells_its_long_slices_growth_first():
    """loop-saturated leads with the growth of the long slices it counts."""
    same = [Finding(kind="loop-blocked", message="b", cost_s=1.0,
                    extra={"count": 9, "longest_s": 0.25, "threshold_s": 0.05,
                           "grew": [0.1, 0.2]})]
    told = _grown_told(same)
    assert told.startswith(" the top holder's longest slices grew through the run, 0.100 s "
                           "on average in its earlier half and 0.200 s in its later"), told
    assert "bound what grows, first" in told, told
    same[0].extra.pop("grew")
    assert _grown_told(same) == ""
