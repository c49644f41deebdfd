"""Tracer soak: a long run of short-lived greenlets, as a service spawning one per
request leaves the tracer on for hours, with snapshots taken every second.

Run as a script: ``python tests/tracer_soak.py --greenlets 200000``.  Prints one JSON
line: resident memory and the tracer's table sizes at checkpoints, the snapshots'
cost, and the final profile's greenlet count.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import gevent
from gevent.pool import Pool

from geventperf import Tracer

# Greenlets alive at once: a busy worker process.
CONCURRENCY = 200
# Resident memory and table sizes are taken at these fractions of the run; growth is
# measured from the first, once the tracer's capped tables (10 000 finished greenlets
# kept one by one) have filled.
CHECKPOINTS = (0.1, 0.5, 1.0)
SNAPSHOT_EVERY_S = 1.0
# One snapshot in this many also builds the timeline's run slices (the costly part).
SLICES_EVERY = 10


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def request(i: int) -> int:
    """A request's worth of switching: a couple of yields around a little work."""
    gevent.sleep(0)
    total = sum(range(i % 50))
    gevent.sleep(0)
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--greenlets", type=int, default=200_000)
    args = parser.parse_args()
    total = args.greenlets
    marks = [int(total * c) for c in CHECKPOINTS]
    points, snap_costs, snaps = [], [], 0
    with Tracer() as tracer:
        pool = Pool(CONCURRENCY)
        next_snap = time.perf_counter() + SNAPSHOT_EVERY_S
        for i in range(1, total + 1):
            pool.spawn(request, i)
            if time.perf_counter() >= next_snap:
                t0 = time.perf_counter()
                tracer.snapshot(slices=snaps % SLICES_EVERY == 0)
                snap_costs.append(time.perf_counter() - t0)
                snaps += 1
                next_snap = time.perf_counter() + SNAPSHOT_EVERY_S
            if i in marks:
                pool.join()
                if not points:
                    # The baseline must already hold one timeline snapshot's high-water
                    # mark: its 100 000 slices leave ~7 MiB of half-used allocator arenas
                    # behind, which is not growth, and whether the first periodic one
                    # ran before this checkpoint depends on the machine's speed.
                    tracer.snapshot(slices=True)
                points.append({"greenlets": i, "rss_mib": round(rss_mib(), 1),
                               **tracer._sizes()})
        pool.join()
    profile = tracer.profile
    kept = sum(1 for g in profile.greenlets if g.name.endswith(".request"))
    folded = profile.meta["greenlets_folded"]
    print(json.dumps({
        "greenlets": total, "checkpoints": points, "snapshots": snaps,
        "snapshot_ms_median": round(statistics.median(snap_costs) * 1e3, 2)
        if snap_costs else None,
        "snapshot_ms_max": round(max(snap_costs) * 1e3, 2) if snap_costs else None,
        "requests_kept": kept, "requests_folded": folded,
        "trace_errors": profile.trace_errors, "duration_s": round(profile.duration_s, 2),
        "hot_path": profile.meta["hot_path"]}))


if __name__ == "__main__":
    main()
