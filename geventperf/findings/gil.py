"""The loop's thread waiting for the interpreter lock (``gil-contended``).

gevent's threadpool (``gevent.get_hub().threadpool``) runs tasks in real OS threads.
Offloading CPU-heavy *Python* there, to "keep the loop free", does the opposite: a
thread running Python holds the GIL, and the loop's thread, which needs it to run any
greenlet or the hub, gets it back only every switch interval (5 ms).  The loop's thread
then spends its time neither computing nor idle in its poll: it is running, off the
CPU, asleep on the lock, while greenlets queue.  The profile shows this as run time
without CPU -- in the greenlets (their ``blocked`` column) and in the hub -- over many
short slices rather than one long one, so no loop-blocking finding sees it, and the one
that does (``blocking-call``, for a long slice) would advise the very threadpool that
causes it.

The threadpool watch measures the CPU each task used in its worker thread.  When that
CPU (name lookups apart: they release the lock) is at least ``GIL_SHARE`` of the time
the loop's thread spent off the CPU while running (less the time it waited for a CPU
the machine did not have, ``cpu-starved``'s story), and that off-CPU time is at least
``GIL_MIN_OFF_SHARE`` of the run (less those waits for a CPU), the lock is the likely
wait: one finding, costed by the ready wait the loop's lost time made others queue (its
share of the loop's busy time).

Threads the program (or a library) starts itself hold the lock the same way, but no
task records their CPU.  The profile's ``hub["process_cpu_s"]`` (every thread's CPU over
the run) less the loop thread's own (its greenlets' and the hub's) is theirs; when no
threadpool task explains the off-CPU time, that figure stands in for the tasks' CPU,
with the same two thresholds.
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import (
    GIL_CONTENDED,
    _events,
    _f,
    _finding,
    _names,
    block_threshold,
    cpu_wait,
)
from geventperf.findings.starved import (
    other_threads_cpu,
)
from geventperf.profile import Finding, Profile

# The worker threads' CPU covers at least this share of the loop thread's off-CPU time.
GIL_SHARE = 0.5
# ... and that off-CPU time is at least this share of the run.  Threads running C code
# that releases the lock (hashlib on large buffers) still take it between calls, and
# the loop's thread then loses 10-12 % of a run to it; Python in the threads costs it
# most of the run (70-80 % in tests/diagnosis/gil_pool.py).
GIL_MIN_OFF_SHARE = 0.25
# ... or at least this share when the threads' CPU is at most GIL_TRADED_RATIO times that
# off-CPU time: Python threads and the loop's thread trade the lock, so the one's CPU is
# about the other's loss (1.1-1.2x in tests/diagnosis/gil_pool.py and gil_thread.py; an
# unseen router's stats thread: 0.93 s of CPU against the loop's 0.88 s off it, 22 % of
# the run, and moving the work back made the service 45 % faster), while C that
# releases the lock runs beside the loop for several times what the loop loses (4.5x
# and 27x at 9 % and 2 % of the run with hashlib in those two workloads).
GIL_TRADED_OFF_SHARE = 0.125
GIL_TRADED_RATIO = 2.0
# Functions named in the message, most CPU first.
TOP_FUNCTIONS = 3


def gil_evidence(profile: Profile) -> tuple[float, float, list[dict[str, Any]]] | None:
    """(the loop thread's off-CPU seconds while running, the worker threads' Python CPU
    seconds, the threadpool events of the functions that used it, most CPU first), or
    None unless they meet GIL_SHARE and GIL_MIN_OFF_SHARE (see the module's text)."""
    tasks = sorted((e for e in _events(profile, "threadpool")
                    if not e.get("dns") and _f(e, "cpu_s") > 0),
                   key=lambda e: -_f(e, "cpu_s"))
    hub = profile.hub
    runs = [(g.run_s, g.cpu_s) for g in profile.greenlets if g.id != hub.get("id")]
    # the hub's run time includes its idle time in the poll, off the CPU by design
    runs.append((_f(hub, "run_s") - _f(hub, "idle_s"), hub.get("cpu_s")))
    if not profile.duration_s or any(cpu is None for _run, cpu in runs):
        return None
    off = sum(max(0.0, run - cpu) for run, cpu in runs) - _f(hub, "cpu_wait_s")
    # shares of the run as it would have gone with a CPU to itself: a crowded machine's
    # waits for one are neither the lock's nor the run's (two CPU hogs stretched a 0.45 s
    # run to 0.70 s, and the lock's 0.12 s fell under a share of the longer run)
    run = profile.duration_s - cpu_wait(profile)
    if off < GIL_TRADED_OFF_SHARE * run:
        return None

    def explains(cpu: float) -> bool:
        return cpu >= GIL_SHARE * off and (off >= GIL_MIN_OFF_SHARE * run
                                           or cpu <= GIL_TRADED_RATIO * off)

    threads_cpu = sum(_f(e, "cpu_s") for e in tasks)
    if tasks and explains(threads_cpu):
        return off, threads_cpu, tasks
    # no task explains it: the threads the program started itself, by the process's CPU
    # (name lookups in the threadpool release the lock: not theirs)
    others = other_threads_cpu(profile)
    if others is None:
        return None
    dns = sum(_f(e, "cpu_s") for e in _events(profile, "threadpool") if e.get("dns"))
    others -= threads_cpu + dns
    if not explains(others):
        return None
    return off, others, []


def gil_contended(profile: Profile) -> list[Finding]:
    """One finding when the loop's thread waited for the GIL that threadpool tasks
    running Python held.  ``cost_s``: the run's ready wait times the share of the loop's
    busy time it spent off the CPU."""
    evidence = gil_evidence(profile)
    if evidence is None:
        return []
    off, threads_cpu, tasks = evidence
    duration = profile.duration_s
    idle = profile.hub.get("idle_s")
    busy = duration - idle if isinstance(idle, (int, float)) else duration
    ready = sum(g.ready_wait_s or 0.0 for g in profile.greenlets)
    cost = ready * min(1.0, off / busy) if busy > 0 else 0.0
    if cost < block_threshold(profile):
        return []
    if not tasks:
        return [_own_threads(off, threads_cpu, duration, cost)]
    top = tasks[0]
    names = ", ".join(f"{e.get('function')} ({_f(e, 'cpu_s'):.3f} s in "
                      f"{int(_f(e, 'tasks'))} tasks)" for e in tasks[:TOP_FUNCTIONS])
    sites = top.get("sites") or []
    site = sites[0][0] if sites and isinstance(sites[0], list) and sites[0] else None
    who = _names(profile, list(top.get("greenlet_ids") or [])) \
        if top.get("greenlet_ids") else "greenlets"
    message = (
        f"{_off_cpu(off, duration)} while gevent's threadpool ran Python for "
        f"{threads_cpu:.3f} s of CPU in its worker threads: {names}"
        + (f", sent there by {who} at {site}" if site else f", sent there by {who}")
        + f". {_lock_held(cost)} Fix: run CPU-heavy Python in processes (a "
        "concurrent.futures.ProcessPoolExecutor, multiprocessing), not in the threadpool, "
        "which suits calls that release the GIL (file and DNS I/O, C code such as zlib or "
        "hashlib on large buffers).")
    return [_finding(GIL_CONTENDED, message, cost, [site] if site else [],
                     greenlet=(top.get("greenlet_ids") or [None])[0], off_cpu_s=off,
                     threads_cpu_s=threads_cpu, function=top.get("function"),
                     site=site)]


def _own_threads(off: float, threads_cpu: float, duration: float, cost: float) -> Finding:
    """gil-contended when the threads that held the lock are not the threadpool's."""
    message = (
        f"{_off_cpu(off, duration)} while other threads of the process used "
        f"{threads_cpu:.3f} s of CPU: not gevent's threadpool, but threads the program or "
        f"a library started (threading's original Thread, or _thread). {_lock_held(cost)} "
        "Fix: run CPU-heavy Python in processes (a concurrent.futures.ProcessPoolExecutor, "
        "multiprocessing), not in threads beside the loop.")
    return _finding(GIL_CONTENDED, message, cost, [], off_cpu_s=off,
                    threads_cpu_s=threads_cpu, function=None, site=None)


def _off_cpu(off: float, duration: float) -> str:
    """The finding's opening: the loop thread's time off the CPU while running."""
    return (f"The loop's thread waited for the GIL: while running greenlets and the hub it "
            f"was off the CPU {off:.3f} s ({off / duration:.0%} of the run; not waiting for "
            "a CPU, not in a cooperative wait)")


def _lock_held(cost: float) -> str:
    """Why the loop's thread waited, and what it cost."""
    return ("A thread running Python holds the interpreter lock the loop's thread needs to "
            "run anything, and lets go of it only every few milliseconds, so greenlets "
            f"queued: up to {cost:.3f} greenlet-seconds of their ready wait.")
