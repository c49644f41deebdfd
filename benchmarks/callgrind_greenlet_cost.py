"""The tracer's added cost per spawned greenlet, in instructions (callgrind).

    python benchmarks/callgrind_greenlet_cost.py [CHECKOUT ...] [--greenlets 2000]
        [--options '{"cpu_clock": false}']

Timing cannot resolve a 5 % change of this cost on a shared machine (rounds move by
30 % with the load); instruction counts repeat within 0.5 %.  For each checkout (the
current one by default; each needs its C extension built in place), one interpreter
under ``valgrind --tool=callgrind`` spawns and joins trivial gevent greenlets untraced,
then traced, then stops the tracer; ``--dump-before=getppid`` cuts the count at marks
the workload makes with ``os.getppid()``.  Printed: instructions per greenlet untraced,
what tracing adds, and what stop() (the profile build) costs per greenlet.

Use ``cpu_clock=False`` (the default options here) to compare changes: valgrind runs
~50x slower, so wall-time-driven work (the interval CPU clock's reads, slices over
``block_threshold``) happens far more often than in a native run.  Not part of ``tox -e
bench``: it needs valgrind, and it compares trees, not geventperf with its alternatives.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

WORKLOAD = r'''
import json, os, sys
sys.path.insert(0, sys.argv[1])
import gevent, geventperf
assert geventperf.__file__.startswith(sys.argv[1]), geventperf.__file__
options, n = json.loads(sys.argv[2]), int(sys.argv[3])
BATCH = 100
def job():
    pass
def spawn_join():
    for _ in range(n // BATCH):
        gevent.joinall([gevent.spawn(job) for _ in range(BATCH)])
spawn_join()
warm = geventperf.Tracer(**options).start()  # warm the tracer's paths too
spawn_join()
warm.stop()
os.getppid()  # mark: untraced
spawn_join()
tracer = geventperf.Tracer(**options).start()
os.getppid()  # mark: traced
spawn_join()
os.getppid()  # mark: stop
tracer.stop()
os.getppid()
os._exit(0)
'''


def measure(checkout: str, options: str, greenlets: int, workdir: str) -> dict[str, int]:
    script = os.path.join(workdir, "workload.py")
    with open(script, "w") as f:
        f.write(WORKLOAD)
    out = os.path.join(workdir, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                    f"--callgrind-out-file={out}", sys.executable, script,
                    os.path.abspath(checkout), options, str(greenlets)],
                   check=True, capture_output=True)

    def total(part: int) -> int:
        with open(f"{out}.{part}") as f:
            return int(re.search(r"^totals:\s+(\d+)", f.read(), re.M).group(1))

    return {"untraced": total(2) // greenlets, "traced": total(3) // greenlets,
            "stop": total(4) // greenlets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="*", default=["."])
    parser.add_argument("--greenlets", type=int, default=2000)
    parser.add_argument("--options", default='{"cpu_clock": false}',
                        help="Tracer options as JSON")
    args = parser.parse_args()
    json.loads(args.options)  # fail early on a typo
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    for checkout in args.checkouts:
        with tempfile.TemporaryDirectory() as workdir:
            ir = measure(checkout, args.options, args.greenlets, workdir)
        print(f"{checkout}: untraced {ir['untraced']} instructions per greenlet, tracing "
              f"adds {ir['traced'] - ir['untraced']}, stop() costs {ir['stop']}")


if __name__ == "__main__":
    main()
