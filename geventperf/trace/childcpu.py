"""The CPU this process's child processes used (``hub["children_cpu_s"]``).

A traced thread that waited for a CPU (``cpu-starved``) may have waited for its own
program: a local upstream it started, a ``subprocess`` per request.  Those compete for
the machine's cores as any other process does, but their cure is in the program, not
on the machine, and a report must tell them apart.  This reads what the kernel keeps:
the children already reaped (``os.times``) and, on Linux, every live descendant's own
CPU (``/proc/PID/stat``), found through ``/proc/PID/task/TID/children`` rather than by
scanning all of ``/proc``: a read at start and one at stop, a handful of files each.
"""

from __future__ import annotations

import glob
import os

# Files read at most per call (a descendant's stat, and a children file per thread of
# it): a program's own children and theirs, not a process tree without end (a fork
# bomb, a pid reused into a loop) nor a JVM child's thousand threads, at start, stop
# and every snapshot.
MAX_READS = 1024
# A process's CPU ticks per second (utime and stime in /proc/PID/stat count them).
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def children_cpu_s() -> float:
    """Seconds of CPU used so far by this process's children: reaped ones (os.times)
    and live descendants (Linux; 0 for them elsewhere)."""
    times = os.times()
    return times.children_user + times.children_system + _live_descendants_s()


def _children_of(pid: int | str, budget: list[int]) -> list[int]:
    """*pid*'s children, one read per thread of it while *budget* (reads left) lasts."""
    out = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        try:
            with open(path, "rb") as fh:
                out += [int(p) for p in fh.read().split()]
        except (OSError, ValueError):
            continue  # a thread or process that ended meanwhile
    return out


def _cpu_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        # fields after the command's closing parenthesis (a name may hold spaces and
        # parentheses): state, ppid, ... utime is the 12th, stime the 13th
        fields = data[data.rindex(b")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


def _live_descendants_s() -> float:
    budget = [MAX_READS]
    seen: set[int] = set()
    todo = _children_of("self", budget)
    total = 0.0
    while todo and budget[0] > 0:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        budget[0] -= 1
        total += _cpu_of(pid)
        todo += _children_of(pid, budget)
    return total
