"""What one CPU sample costs, and the two ways of taking samples compared.

    python benchmarks/sample_cost.py [--rounds 7]

1. **Per signal**: ``os.kill(os.getpid(), SIGUSR1)`` in a loop, timed on the thread CPU
   clock, with the signal ignored, with an empty Python handler, and with the sampler's
   handler at a stack ~30 frames deep (the kill itself is the first figure; delivery
   and Python's trampoline the second minus the first; the sampler's own code the
   third minus the second).
2. **Signal vs thread**: a CPU-bound gevent workload (ten greenlets parsing JSON and
   summing, ``sleep(0)`` between) run bare, under the ``SIGPROF`` sampler, and under a
   sampler thread that reads ``sys._current_frames()`` every interval doing the same
   stack walk, rounds interleaved; medians of wall time and process CPU, and samples.

Not part of ``tox -e bench``: on a shared machine the second part's percentages move
by several points between runs; the first part is what the sampler's budget uses.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import threading
import time

import gevent

from geventperf.sampling.sampler import CpuSampler

KILLS = 20_000
STACK_DEPTH = 25
JOB_ROUNDS = 40
GREENLETS = 10
DOC = json.dumps([{"id": i, "name": f"item {i}", "tags": ["a", "b", "c"]}
                  for i in range(2000)])


def per_signal(handler) -> float:
    signal.signal(signal.SIGUSR1, handler)
    pid, kill, sig = os.getpid(), os.kill, signal.SIGUSR1
    started = time.thread_time()
    for _ in range(KILLS):
        kill(pid, sig)
    return (time.thread_time() - started) / KILLS


def deep(n: int, call):
    return deep(n - 1, call) if n else call()


def workload() -> None:
    def job() -> None:
        for _ in range(JOB_ROUNDS):
            json.loads(DOC)
            sum(i * i for i in range(3000))
            gevent.sleep(0)
    gevent.joinall([gevent.spawn(job) for _ in range(GREENLETS)])


class ThreadSampler:
    """The alternative: a thread that wakes every interval (also while the program
    idles) and, holding the GIL, walks the main thread's frames."""

    def __init__(self, interval: float) -> None:
        self.interval, self.samples, self.done = interval, 0, False
        self.table: dict = {}
        self.main = threading.main_thread().ident
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.done:
            time.sleep(self.interval)
            frame = sys._current_frames().get(self.main)
            codes: list = []
            while frame is not None and len(codes) < 128:
                codes += (frame.f_code, frame.f_lasti)
                frame = frame.f_back
            self.table[tuple(codes)] = self.table.get(tuple(codes), 0) + 1
            self.samples += 1

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.done = True
        self.thread.join()


def timed(kind: str, interval: float) -> tuple[float, float, int]:
    sampler = None
    if kind == "signal":
        sampler = CpuSampler(lambda: None, interval, budget=1.0)
        sampler.start()
    elif kind == "thread":
        sampler = ThreadSampler(interval)
        sampler.start()
    wall, cpu = time.perf_counter(), time.process_time()
    workload()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    samples = 0
    if sampler is not None:
        sampler.stop()
        samples = sampler.samples if kind == "thread" else sampler.result().count
    return wall, cpu, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--interval", type=float, default=0.01)
    args = parser.parse_args()

    sampler = CpuSampler(lambda: None, 0.01)
    costs: dict[str, list[float]] = {"signal ignored (the kill alone)": [],
                                     "empty Python handler": [],
                                     f"sampler handler, {STACK_DEPTH + 5} frames deep": []}
    for _ in range(args.rounds):
        for label, handler in zip(costs, (signal.SIG_IGN, lambda s, f: None,
                                          sampler._on_sigprof)):
            costs[label].append(deep(STACK_DEPTH, lambda h=handler: per_signal(h)))
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    print("per signal (thread CPU, medians):")
    for label, values in costs.items():
        print(f"  {label:40s} {statistics.median(values) * 1e6:6.1f} us")

    workload()  # warm up
    results: dict[str, list[tuple[float, float, int]]] = {"none": [], "signal": [],
                                                          "thread": []}
    for _ in range(args.rounds):
        for kind in results:
            results[kind].append(timed(kind, args.interval))
    base_wall = statistics.median(r[0] for r in results["none"])
    base_cpu = statistics.median(r[1] for r in results["none"])
    print(f"CPU-bound gevent workload, interval {args.interval * 1e3:g} ms (medians of "
          f"{args.rounds}):")
    for kind, rows in results.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        print(f"  {kind:7s} wall {wall:.3f} s ({(wall / base_wall - 1) * 100:+.1f} %), "
              f"process CPU {cpu:.3f} s ({(cpu / base_cpu - 1) * 100:+.1f} %), samples "
              f"{statistics.median(r[2] for r in rows):.0f}")


if __name__ == "__main__":
    main()
