"""The CPU of the traced program's child processes (``hub["children_cpu_s"]``): reaped
ones through os.times, live descendants through /proc, each against the CPU the child
measured itself (ground truth)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from geventperf import Tracer
from geventperf.trace.childcpu import children_cpu_s

# A child burns CPU until its own clock has counted this much, then reports it.
BURN_S = 0.3
BURN = ("import time, sys\n"
        "while time.process_time() < {s}: pass\n"
        "print(time.process_time()); sys.stdout.flush()\n"
        "{then}")
# The kernel counts a process's CPU in ticks (1/100 s here, SC_CLK_TCK), per child.
TICK_S = 0.01


def test_a_reaped_childs_cpu_is_counted():
    with Tracer() as tracer:
        done = subprocess.run([sys.executable, "-c", BURN.format(s=BURN_S, then="")],
                              capture_output=True, text=True, check=True)
    own = float(done.stdout)
    assert tracer.profile.hub["children_cpu_s"] == pytest.approx(own, abs=3 * TICK_S)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_live_childs_cpu_since_the_start_is_counted():
    # started before tracing, burning BURN_S first; once traced, told to burn as much
    # again; still alive (asleep) when tracing stops: its CPU since the start counts
    child = subprocess.Popen(
        [sys.executable, "-c", BURN.format(s=BURN_S, then=(
            "sys.stdin.readline()\n"
            f"while time.process_time() < {2 * BURN_S}: pass\n"
            "print(time.process_time()); sys.stdout.flush()\n"
            "time.sleep(60)"))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        first = float(child.stdout.readline())
        with Tracer() as tracer:
            child.stdin.write("go\n")
            child.stdin.flush()
            second = float(child.stdout.readline())  # (asleep from here)
        # what it burned between its two reports, give or take the lines' own CPU
        assert tracer.profile.hub["children_cpu_s"] == pytest.approx(
            second - first, abs=3 * TICK_S)
    finally:
        child.kill()
        child.wait()


def test_no_child_is_no_cpu():
    before = children_cpu_s()
    assert children_cpu_s() - before == pytest.approx(0.0, abs=TICK_S)
