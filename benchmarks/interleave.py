"""Pairs of rounds timed back to back, for ratios a noisy shared machine cannot skew:
load that drifts over seconds hits both sides of a pair alike."""

from __future__ import annotations

import statistics
import time


def interleaved(benchmark, rounds, measured, partner):
    """Time *measured* rounds with a *partner* round run (and timed here) just before
    each, so both sides of a pair see the same machine.  Returns (median partner
    seconds, median of the per-pair ratios measured/partner), or (None, None) when
    nothing was timed (--benchmark-disable)."""
    partner_s: list[float] = []

    def partner_first():
        started = time.perf_counter()
        partner()
        partner_s.append(time.perf_counter() - started)

    benchmark.pedantic(measured, setup=partner_first, rounds=rounds, iterations=1)
    if benchmark.stats is None or not partner_s:
        return None, None
    measured_s = benchmark.stats.stats.data
    ratios = [m / p for m, p in zip(measured_s, partner_s)]
    return statistics.median(partner_s), statistics.median(ratios)
