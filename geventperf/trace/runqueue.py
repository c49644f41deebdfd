"""How long this thread waited for a CPU: Linux's per-thread scheduler statistics.

A loop-blocking slice's wall time minus its CPU time is off-CPU time: a blocking call
*or* the thread waiting for a CPU on a busy machine.  ``/proc/thread-self/schedstat``
counts the latter (``run_delay``, nanoseconds spent runnable but not running), so the
findings can tell a blocking call from a crowded machine.  Read only when a slice was
long (rare): never on the hot path.  None where the file does not exist.
"""

from __future__ import annotations

SCHEDSTAT = "/proc/thread-self/schedstat"


def run_delay_s(native_id: int | None = None) -> float | None:
    """Seconds this thread (or the thread of *native_id*, ``threading.get_native_id()``)
    has spent waiting on a run queue, or None if unknown."""
    path = SCHEDSTAT if native_id is None else f"/proc/self/task/{native_id}/schedstat"
    try:
        with open(path, "rb") as fh:
            fields = fh.read(128).split()
        return int(fields[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None
