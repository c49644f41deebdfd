"""What CPU sampling costs on the feed workload (issue 15's goal: at most 1 % at the
default interval).

Group "feed: CPU sampling cost": the fixed feed workload under ``Tracer()`` (baseline)
and under ``Tracer(cpu_samples=True)``, rounds interleaved in pairs as in
``bench_feed.py`` (``sampling_cost_pct``: the median extra wall time of a sampled round
over its unsampled partner).  On a shared machine that figure carries a few percent of
noise either way, so the sampler's own measurement is recorded beside it:
``handler_cpu_pct``, the CPU spent inside the signal handler over the CPU sampled (the
kernel's signal delivery is not in it).
"""

from __future__ import annotations

import statistics

import geventperf
from benchmarks.bench_feed import (  # noqa: F401  (fixtures)
    QUICK_ROUND_JOBS,
    ROUND_JOBS,
    ROUNDS,
    feed_url,
    one_round,
    record,
    sessions,
)
from benchmarks.interleave import interleaved


def test_feed_traced_unsampled(benchmark, quick, feed_url, sessions):  # noqa: F811
    benchmark.group = "feed: CPU sampling cost (fixed workload, traced)"
    benchmark.extra_info["baseline"] = True
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    benchmark.pedantic(one_round, args=("fixed", sessions["fixed"], feed_url, jobs,
                                        geventperf.Tracer()),
                       rounds=1 if quick else ROUNDS, iterations=1)
    record(benchmark, jobs)


def test_feed_traced_sampled(benchmark, quick, feed_url, sessions):  # noqa: F811
    benchmark.group = "feed: CPU sampling cost (fixed workload, traced)"
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    handler_share: list[float] = []

    def sampled_round():
        tracer = geventperf.Tracer(cpu_samples=True)
        one_round("fixed", sessions["fixed"], feed_url, jobs, tracer)
        samples = tracer.profile.cpu_samples
        assert samples.unavailable is None and samples.errors == 0
        if samples.cpu_s:
            handler_share.append(samples.overhead_s / samples.cpu_s)

    unsampled_s, time_ratio = interleaved(
        benchmark, 1 if quick else ROUNDS, sampled_round,
        lambda: one_round("fixed", sessions["fixed"], feed_url, jobs, geventperf.Tracer()))
    if unsampled_s is not None:
        record(benchmark, jobs, interleaved_unsampled_jobs_per_s=round(jobs / unsampled_s, 1),
               sampling_cost_pct=round((time_ratio - 1) * 100, 1),
               handler_cpu_pct=round(statistics.median(handler_share) * 100, 2)
               if handler_share else None)
