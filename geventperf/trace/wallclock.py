"""Whether the C hot path may read its wall clock from the TSC.

The hot path's wall clock is ``CLOCK_MONOTONIC`` (``time.perf_counter()``). Through the
vDSO, ``clock_gettime`` orders its TSC read with a fence, and the switch waits for it:
4-9 ns of the 50-70 the hot path adds per switch. Where the kernel itself keeps that
clock from the TSC, ``_ctrace.c`` reads the TSC directly and converts it at a rate
measured against the kernel's clock, re-anchored to it every 200 us (its "wall clock"
section says how, and when it gives the TSC up).

The kernel's choice of clock source is the test: it picks ``tsc`` only for an invariant
TSC in step on every CPU, and its watchdog drops it for another source when it drifts.
Virtual machines whose TSC the kernel does not trust run on ``kvm-clock`` or ``hpet``, and
the hot path then calls ``clock_gettime`` at every switch, as before.
"""

from __future__ import annotations

import os

CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#: Set to ``kernel`` to make the hot path call clock_gettime at every switch.
ENV = "GEVENTPERF_WALL_CLOCK"


def tsc_allowed(clocksource_path: str = CLOCKSOURCE) -> bool:
    """True when the kernel keeps time from the TSC and the user did not opt out."""
    if os.environ.get(ENV, "").strip().lower() == "kernel":
        return False
    if not hasattr(os, "uname") or os.uname().machine.lower() not in ("x86_64", "amd64"):
        return False
    try:  # bytes: a text read would import an encoding, and start() imports nothing
        with open(clocksource_path, "rb") as f:
            return f.read().strip() == b"tsc"
    except OSError:  # not Linux, or no sysfs
        return False
