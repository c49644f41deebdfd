"""What one metrics scrape costs the traced process: the loop is held for that long.

    python benchmarks/metrics_scrape_cost.py [--live 100,1000,10000] [--finished 20000]

For each number of live greenlets: that many greenlets, each switched a few times and
then suspended on an event (a server's idle connections), after ``--finished``
greenlets that ran and ended (records the tracer keeps, then folds per name), under
the default Tracer.  Printed, median over ``--reps`` calls, in ms:

* ``snapshot``: ``tracer.snapshot(slices=False)``, what geventperf.metrics takes;
* ``scrape``: ``prometheus_client.generate_latest`` of a registry holding
  geventperf.metrics' collector (the snapshot plus the figures and the text);
* ``snapshot+slices``: ``tracer.snapshot()`` with the timeline's run slices (up to
  ``max_slices``, 100 000 by default), which metrics never read.

Not part of ``tox -e bench``: a figure for the README, not a ratio against a baseline.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gevent
import gevent.event
import prometheus_client

import geventperf
import geventperf.metrics

# Switches per greenlet before it settles: enough to fill stack and wait tables.
SWITCHES_EACH = 5
# Greenlet names in the workload: a server has a few kinds of greenlets, not one per
# request (names are what the per-name metrics label).
NAMES = 8


def median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def measure(live: int, finished: int, reps: int) -> dict[str, float]:
    stop = gevent.event.Event()
    arrived = [0]

    def worker(kind: int, stay: bool) -> None:
        for _ in range(SWITCHES_EACH):
            gevent.sleep(0)
        if stay:
            arrived[0] += 1
            stop.wait()

    tracer = geventperf.Tracer().start()
    try:
        done = [gevent.spawn(worker, i % NAMES, False) for i in range(finished)]
        for i, g in enumerate(done):
            g.name = f"job-{i % NAMES}"
        gevent.joinall(done)
        waiting = [gevent.spawn(worker, i % NAMES, True) for i in range(live)]
        for i, g in enumerate(waiting):
            g.name = f"conn-{i % NAMES}"
        while arrived[0] < live:  # every one of them switched and now waits
            gevent.sleep(0.001)
        registry = prometheus_client.CollectorRegistry()
        geventperf.metrics.register(tracer, registry)
        out = {
            "snapshot": median_ms(lambda: tracer.snapshot(slices=False), reps),
            "scrape": median_ms(lambda: prometheus_client.generate_latest(registry), reps),
            "snapshot+slices": median_ms(tracer.snapshot, reps),
            "switches": tracer.snapshot(slices=False).switches,
        }
        stop.set()
        gevent.joinall(waiting)
    finally:
        tracer.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--live", default="100,1000,10000")
    ap.add_argument("--finished", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=11)
    args = ap.parse_args()
    print(f"{'live':>6} {'finished':>8} {'switches':>8} {'snapshot':>9} {'scrape':>7} "
          f"{'snapshot+slices':>15}   (ms, median of {args.reps})")
    for live in (int(x) for x in args.live.split(",")):
        r = measure(live, args.finished, args.reps)
        print(f"{live:>6} {args.finished:>8} {r['switches']:>8} {r['snapshot']:>9.2f} "
              f"{r['scrape']:>7.2f} {r['snapshot+slices']:>15.2f}")


if __name__ == "__main__":
    main()
