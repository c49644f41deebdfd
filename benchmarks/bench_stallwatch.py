"""What the stall watch costs (``Tracer(stall_watch=True)``, on in ``geventperf run``).

Group "stall watch cost": four greenlets burning 20 ms CPU chunks between
``gevent.sleep(0)`` under ``Tracer()`` (baseline) and under
``Tracer(stall_watch=True)``, rounds interleaved in pairs (``stall_watch_cost_pct``:
the median extra wall time of a watched round over its partner).  A CPU-bound loop is
the watch's worst case short of a stall: each of its wakes (every 25 ms) takes the GIL
from a thread that is using it.  ``process_cpu_cost_pct`` is the same pairs' extra
process CPU (the watch's own work).
"""

from __future__ import annotations

import statistics
import time

import gevent

import geventperf
from benchmarks.interleave import interleaved

ROUNDS = 7
CHUNKS, QUICK_CHUNKS = 25, 3
CHUNK_CPU_S = 0.02
GREENLETS = 4


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def chunks(n: int) -> None:
    for _ in range(n):
        burn(CHUNK_CPU_S)
        gevent.sleep(0)


def one_round(n: int, watch: bool, cpu: list[float]) -> None:
    started = time.process_time()
    with geventperf.Tracer(stall_watch=watch):
        gevent.joinall([gevent.spawn(chunks, n) for _ in range(GREENLETS)])
    cpu.append(time.process_time() - started)


def test_cpu_chunks_traced(benchmark, quick):
    benchmark.group = "stall watch cost (CPU-bound chunks, traced)"
    benchmark.extra_info["baseline"] = True
    n = QUICK_CHUNKS if quick else CHUNKS
    benchmark.pedantic(one_round, args=(n, False, []), rounds=1 if quick else ROUNDS,
                       iterations=1)


def test_cpu_chunks_traced_with_the_stall_watch(benchmark, quick):
    benchmark.group = "stall watch cost (CPU-bound chunks, traced)"
    n = QUICK_CHUNKS if quick else CHUNKS
    watched: list[float] = []
    unwatched: list[float] = []
    _, time_ratio = interleaved(benchmark, 1 if quick else ROUNDS,
                                lambda: one_round(n, True, watched),
                                lambda: one_round(n, False, unwatched))
    if time_ratio is not None:
        cpu_ratio = statistics.median(w / u for w, u in zip(watched, unwatched))
        benchmark.extra_info["stall_watch_cost_pct"] = round((time_ratio - 1) * 100, 2)
        benchmark.extra_info["process_cpu_cost_pct"] = round((cpu_ratio - 1) * 100, 2)
