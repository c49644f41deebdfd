"""The tracer's added cost per switch, before and after a change, in the same run.

    python benchmarks/ab_switch_cost.py OLD_CHECKOUT NEW_CHECKOUT [--reps 7]

Each checkout must have its C extension built in place (``python setup.py build_ext
--inplace``).  Every measurement runs in a fresh interpreter that imports geventperf
from the checkout given; the two checkouts alternate, ``--reps`` times, so drifting
load on a shared machine hits both alike.  Three workloads, each timed as the median
of several rounds inside the interpreter:

* ``raw``: two raw greenlets switching to each other (bench_tracer.py's loop): the
  hot path alone;
* ``deep``: ``raw`` with both greenlets 20 calls deep, as a service's code is when it
  yields (the tracer walks up to ``max_stack_depth`` frames at a switch-out);
* ``hub``: four gevent greenlets yielding with ``gevent.sleep(0)`` through the hub:
  the hot path plus the wait split's poll and wake-up bookkeeping.

Printed: ns per switch for each mode (``--stat min``: the fastest of an
interpreter's rounds, the figure other users of a shared machine move least) (no tracer, a no-op C trace function, the tracer
by default, with the CPU clock read at every switch and with ``cpu_clock=False``) and
the tracer's added ns (mode minus no tracer), medians over the repetitions.  Not part of ``tox -e bench``: it compares two
trees, not geventperf with its alternatives.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

MODES = ("none", "noop", "default", "switch-clock", "no-cpu-clock")
KINDS = ("raw", "deep", "hub")

WORKLOAD = r'''
import operator, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import gevent, greenlet, geventperf
from geventperf import Tracer
assert geventperf.__file__.startswith(sys.argv[1]), geventperf.__file__
kind, mode, stat = sys.argv[2], sys.argv[3], sys.argv[4]
RAW_SWITCHES, HUB_YIELDS, ROUNDS = 20_000, 3_000, 9

def nest(levels, func):
    return func() if levels == 0 else nest(levels - 1, func)

def raw_round(levels=0):
    def pong():
        while True:
            ping_g.switch()
    def ping():
        start = time.perf_counter()
        for _ in range(RAW_SWITCHES // 2):
            pong_g.switch()
        return time.perf_counter() - start
    pong_g = greenlet.greenlet(lambda: nest(levels, pong))
    ping_g = greenlet.greenlet(lambda: nest(levels, ping))
    elapsed = ping_g.switch()
    pong_g.throw(greenlet.GreenletExit)
    return elapsed / RAW_SWITCHES

def hub_round():
    def job():
        for _ in range(HUB_YIELDS):
            gevent.sleep(0)
    start = time.perf_counter()
    gevent.joinall([gevent.spawn(job) for _ in range(4)])
    return (time.perf_counter() - start) / (4 * HUB_YIELDS * 2)  # there and back

one_round = {"raw": raw_round, "deep": lambda: raw_round(20), "hub": hub_round}[kind]
gevent.sleep(0)
results = []
for _ in range(ROUNDS):
    if mode == "none":
        results.append(one_round())
    elif mode == "noop":
        greenlet.settrace(operator.is_)  # a no-op trace function in C
        try:
            results.append(one_round())
        finally:
            greenlet.settrace(None)
    else:
        # switch-clock: the CPU clock read at every switch (cpu_clock=True in trees
        # from before the interval clock, where that was the default)
        clock = {"default": None, "switch-clock": "switch", "no-cpu-clock": False}[mode]
        try:
            tracer = Tracer(sections=None) if clock is None else Tracer(
                sections=None, cpu_clock=clock)
        except ValueError:
            tracer = Tracer(sections=None, cpu_clock=True)
        with tracer:
            results.append(one_round())
print(getattr(statistics, stat, min)(results) * 1e9)
'''


def measure(tree: str, kind: str, mode: str, stat: str) -> float:
    out = subprocess.run([sys.executable, "-c", WORKLOAD, tree, kind, mode, stat],
                         capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="comma-separated workloads to run (default: all)")
    parser.add_argument("--modes", default=",".join(MODES[1:]),
                        help="comma-separated tracer modes beside 'none' (default: all)")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="how an interpreter sums up its rounds: min is the "
                             "figure least moved by other users of a shared machine's CPUs")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    modes = ("none", *args.modes.split(","))
    trees = {"old": args.old, "new": args.new}
    results: dict[tuple[str, str, str], list[float]] = {}
    for _ in range(args.reps):
        for name, tree in trees.items():
            for kind in kinds:
                for mode in modes:
                    if kind == "hub" and mode == "noop":
                        continue  # gevent's own switches are not a no-op's business
                    results.setdefault((kind, name, mode), []).append(
                        measure(tree, kind, mode, args.stat))
    print(f"ns per switch ({args.stat} of each interpreter's rounds), medians of "
          f"{args.reps} alternating repetitions")
    for kind in kinds:
        for name in trees:
            base = statistics.median(results[(kind, name, "none")])
            row = [f"{kind:3} {name:3}  no tracer {base:6.0f}"]
            for mode in modes[1:]:
                if (kind, name, mode) in results:
                    added = statistics.median(results[(kind, name, mode)]) - base
                    row.append(f"{mode} +{added:.0f}")
            print("  ".join(row))


if __name__ == "__main__":
    main()
