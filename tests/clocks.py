"""Tolerances for comparing clock readings in tests on a shared, loaded machine.

The rules the tracer tests follow so that load cannot fail them:

* A region a test measures from inside a greenlet lies inside the tracer's slice, read
  on the same clock, so ``tracer's figure >= test's figure`` is exact.  No test bounds
  a figure from above by the test's own figure plus a few milliseconds: the operating
  system may preempt the process for any length of time outside the measured region.
  Attribution to the wrong greenlet is caught instead by the exact lower bounds of the
  greenlet that lost the time, together with the totals adding up to the duration.
* CPU time never exceeds wall time over the same slice, but the two are different
  kernel clocks, so the comparison has the tolerance below.
"""

from __future__ import annotations

import time

from geventperf.trace.cpuclock import CPU_READ_INTERVAL_S

# Both clocks' resolution as the OS reports it (1 ns each on Linux).
CLOCK_RESOLUTION_S = (time.get_clock_info("thread_time").resolution
                      + time.get_clock_info("perf_counter").resolution)
# thread_time (the scheduler's per-thread CPU accounting) and perf_counter
# (CLOCK_MONOTONIC) are read one after the other at each end of a slice, so the CPU
# reading covers a few instructions more (under 1 us) ...
CLOCK_READ_GAP_S = 20e-6
# ... and the two clock sources drift apart: on this project's 2-core VM with both
# cores busy, thread_time ran ahead of perf_counter by up to 20 us over a 10 ms spin
# (0.2 %).  Five times that:
CPU_AHEAD_OF_WALL_SHARE = 0.01


def cpu_fits_in_wall(cpu_s: float, wall_s: float) -> bool:
    """CPU seconds measured over a slice are no more than its wall seconds (within the
    clocks' disagreement above)."""
    return cpu_s <= wall_s * (1 + CPU_AHEAD_OF_WALL_SHARE) + CLOCK_RESOLUTION_S \
        + CLOCK_READ_GAP_S


# The Tracer's CPU clock modes (Tracer(cpu_clock=...)); tests of CPU figures run in each.
CPU_MODES = ("interval", "switch")


def cpu_slack_s(mode: str) -> float:
    """How far a slice's CPU may be from the truth in clock *mode*.  "switch" reads the
    clock at both ends: exact.  "interval" (trace/cpuclock.py) reads it when a slice of
    at least the interval ends, and shares the reading with the slices since the last
    read, which together lasted less than one interval: off by less than that."""
    return CPU_READ_INTERVAL_S if mode == "interval" else 0.0
