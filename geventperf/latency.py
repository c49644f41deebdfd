"""Ready-wait (scheduler latency) histograms: log-2 buckets from 1 us to 10 s.

A greenlet's *ready wait* is the time from when the hub could first know it could run
to when it ran (see ``geventperf.tracer``).  Each wake-up adds one count to the bucket
of its ready wait, as Go's ``/sched/latencies:seconds`` and HdrHistogram do: fixed
memory however long the run, mergeable across processes, percentiles within a factor
of two.  The C hot path (``_ctrace.c``) uses the same bucket rule.
"""

from __future__ import annotations

import math
from typing import Any

# Bucket 0 holds waits under 1 us (below the clocks' useful resolution for this);
# bucket i (1 <= i < NBUCKETS - 1) holds [2**(i-1), 2**i) us; the last one everything
# from 2**(NBUCKETS-2) us, about 16.8 s, up: 10 s lands in bucket 24.
NBUCKETS = 26
UNIT_S = 1e-6
UPPER_BOUNDS_S = [UNIT_S * 2 ** i for i in range(NBUCKETS - 1)] + [math.inf]
PERCENTILES = (("p50_s", 0.50), ("p90_s", 0.90), ("p99_s", 0.99))


def bucket(seconds: float) -> int:
    """The bucket of a ready wait of *seconds* (same rule as ``_ctrace.c``)."""
    if seconds < UNIT_S:
        return 0
    exp = math.frexp(seconds / UNIT_S)[1]  # x = m * 2**exp, 0.5 <= m < 1
    return exp if exp < NBUCKETS else NBUCKETS - 1


def summary(counts: list[int], max_s: float) -> dict[str, Any]:
    """Counts plus percentiles.  A percentile is the upper bound of the bucket it falls
    in (capped at the largest wait seen): an overestimate by at most 2x."""
    n = sum(counts)
    out: dict[str, Any] = {"n": n, "counts": list(counts), "max_s": max_s}
    for key, q in PERCENTILES:
        out[key] = None
        if n:
            rank, seen = q * n, 0
            for i, c in enumerate(counts):
                seen += c
                if seen >= rank:
                    out[key] = min(UPPER_BOUNDS_S[i], max_s)
                    break
    return out


def merge(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """Sum two summaries made by :func:`summary` (None where one side has none)."""
    if not a:
        return dict(b) if b else None
    if not b:
        return dict(a)
    counts = [int(x) + int(y) for x, y in zip(_counts(a), _counts(b))]
    return summary(counts, max(float(a.get("max_s") or 0.0), float(b.get("max_s") or 0.0)))


def _counts(s: dict[str, Any]) -> list[int]:
    counts = list(s.get("counts") or [])
    return (counts + [0] * NBUCKETS)[:NBUCKETS]
