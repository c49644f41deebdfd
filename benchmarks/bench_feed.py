"""The demo's feed workload: jobs per second, naive vs fixed, and the tracer's cost.

A pool of gevent greenlets fetches feeds from the feed server (a child process, so
parsing here cannot stall its trickle) and parses them with ujson and lxml, JSON and
XML alternating (see geventperf/feedworkload.py).  One round = ROUND_JOBS jobs on a
CONCURRENCY-greenlet pool; ``extra_info["jobs_per_s"]`` is ROUND_JOBS over the round's
median time, so the summary's ratios are throughput ratios.

* group "feed: naive vs fixed": the naive way (baseline) and the fixed way, untraced;
* group "feed: tracer cost": the fixed way untraced (baseline) and under
  ``geventperf.Tracer()`` in each clock mode (default, CPU clock read at every switch,
  no CPU clock); goal <= 1 % in the default mode.

The second row of each group also runs a round of the first row's kind before each
of its own rounds (pytest-benchmark's setup) and records the median ratio over those
interleaved pairs (``fixed_vs_naive``, ``tracer_cost_pct``): load that drifts on a
busy machine hits both sides of a pair alike.
"""

from __future__ import annotations

import pytest

import geventperf
from benchmarks.interleave import interleaved
from geventperf.feedserver import FeedServerProcess
from geventperf.feedworkload import make_session, run_jobs

# The demo's defaults (geventperf/demo.py, geventperf/feedserver.py), so these numbers
# and the demo's table describe the same workload.
CONCURRENCY = 50
# Short rounds, many of them: on a shared 2-core machine the load drifts, and more,
# shorter rounds give the median more to work with.  ~1 s per round.
ROUND_JOBS = 300
ROUNDS = 7
QUICK_ROUND_JOBS = 40
# A round that takes this long is a hang, not a measurement.
ROUND_DEADLINE_S = 60.0


@pytest.fixture(scope="module")
def feed_url():
    with FeedServerProcess() as server:
        yield server.url


@pytest.fixture(scope="module")
def sessions(feed_url):
    """One warmed-up session per mode: connections open, code paths warm."""
    made = {}
    for mode in ("naive", "fixed"):
        made[mode] = make_session(mode, CONCURRENCY)
        run_jobs(mode, made[mode], feed_url, CONCURRENCY, CONCURRENCY,
                 deadline=ROUND_DEADLINE_S)
    return made


def one_round(mode, session, url, jobs, tracer=None):
    """ROUND_JOBS jobs; fails loudly rather than timing a broken round."""
    if tracer is not None:
        tracer.start()
    try:
        latencies, errors, timed_out = run_jobs(mode, session, url, jobs, CONCURRENCY,
                                                deadline=ROUND_DEADLINE_S)
    finally:
        if tracer is not None:
            tracer.stop()
    assert not errors and not timed_out, (errors[:3], timed_out)
    assert len(latencies) == jobs
    return latencies


def record(benchmark, jobs, **extra):
    stats = benchmark.stats
    if stats is None:  # --benchmark-disable: nothing was timed
        return
    benchmark.extra_info["jobs_per_s"] = round(jobs / stats.stats.median, 1)
    benchmark.extra_info.update(extra)


def test_feed_naive(benchmark, quick, feed_url, sessions):
    benchmark.group = "feed: naive vs fixed (jobs/s)"
    benchmark.extra_info["baseline"] = True
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    benchmark.pedantic(one_round, args=("naive", sessions["naive"], feed_url, jobs),
                       rounds=1 if quick else ROUNDS, iterations=1)
    record(benchmark, jobs)


def test_feed_fixed(benchmark, quick, feed_url, sessions):
    benchmark.group = "feed: naive vs fixed (jobs/s)"
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    naive_s, time_ratio = interleaved(
        benchmark, 1 if quick else ROUNDS,
        lambda: one_round("fixed", sessions["fixed"], feed_url, jobs),
        lambda: one_round("naive", sessions["naive"], feed_url, jobs))
    if naive_s is not None:
        # fixed_vs_naive: throughput of fixed over naive, median over the pairs.
        record(benchmark, jobs, interleaved_naive_jobs_per_s=round(jobs / naive_s, 1),
               fixed_vs_naive=round(1 / time_ratio, 2))


def test_feed_fixed_untraced(benchmark, quick, feed_url, sessions):
    benchmark.group = "feed: tracer cost (fixed workload)"
    benchmark.extra_info["baseline"] = True
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    benchmark.pedantic(one_round, args=("fixed", sessions["fixed"], feed_url, jobs),
                       rounds=1 if quick else ROUNDS, iterations=1)
    record(benchmark, jobs)


# The tracer's clock modes (Tracer(cpu_clock=...)); the default is "interval".
TRACER_MODES = {"default": {}, "switch-clock": {"cpu_clock": "switch"},
                "no-cpu-clock": {"cpu_clock": False}}


@pytest.mark.parametrize("mode", list(TRACER_MODES))
def test_feed_fixed_traced(benchmark, quick, feed_url, sessions, mode):
    benchmark.group = "feed: tracer cost (fixed workload)"
    jobs = QUICK_ROUND_JOBS if quick else ROUND_JOBS
    options = TRACER_MODES[mode]
    untraced_s, time_ratio = interleaved(
        benchmark, 1 if quick else ROUNDS,
        lambda: one_round("fixed", sessions["fixed"], feed_url, jobs,
                          geventperf.Tracer(**options)),
        lambda: one_round("fixed", sessions["fixed"], feed_url, jobs))
    if untraced_s is not None:
        # tracer_cost_pct: extra wall time of a traced round, median over the pairs.
        record(benchmark, jobs, interleaved_untraced_jobs_per_s=round(jobs / untraced_s, 1),
               tracer_cost_pct=round((time_ratio - 1) * 100, 1))
