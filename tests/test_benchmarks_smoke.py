"""Every benchmark runs once (``--benchmark-disable``: each body once, untimed, all
sizes), in its own process: the benchmarks monkey-patch gevent, the test process must
stay unpatched."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The smoke pass runs each benchmark once; minutes here mean a benchmark hangs.
SMOKE_TIMEOUT_S = 600


def test_every_benchmark_runs_once():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "benchmarks", "--benchmark-disable",
         "-q", "-p", "no:cacheprovider", "-o", "addopts="],
        cwd=ROOT, capture_output=True, text=True, timeout=SMOKE_TIMEOUT_S)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert " passed" in out.stdout and " failed" not in out.stdout
    assert " skipped" not in out.stdout, out.stdout[-2000:]  # every row ran
