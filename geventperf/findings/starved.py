"""A process held off the CPU (cpu-starved): the traced thread's wait for a CPU, and who
competed with it for one (other processes, its own threads, children it started)."""

from __future__ import annotations

import re

from geventperf.findings.common import (
    COST_MEANING,
    CPU_STARVED,
    _f,
    _finding,
    _workers,
    block_threshold,
)
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

# The thread waiting for a CPU (hub["cpu_wait_s"]) is a finding from this share of the
# loop's busy time on: below it a shared machine's ordinary scheduling jitter, above it
# a crowded host or a CPU limit throttling the process is a cause of its own.
STARVED_SHARE = 0.25
# ... and of this share of the run's wall time: a loop mostly idle waits for a CPU a few
# hundred ms in a run of seconds at its wake-ups (0.3 s of a 6 s run, 27 % of the 18 %
# it was busy), which no machine change would buy back more than that of.
STARVED_RUN_SHARE = 0.1


def starved_share(profile: Profile) -> float:
    """Share of the loop's busy time the traced thread waited for a CPU; 0 unknown."""
    util, wait = profile.hub.get("utilization"), profile.hub.get("cpu_wait_s")
    busy = util * profile.duration_s if util is not None else 0.0
    if wait is None or busy <= 0:
        return 0.0
    return min(1.0, float(wait) / busy)


# cpu-starved's competitors are the program's own when its other threads and child
# processes used at least this share of the run in CPU (a quarter of a core): a local
# server it started, a subprocess per call, a thread re-sorting a list every 50 ms.
OWN_COMPETITOR_SHARE = 0.25


def cpu_starved(profile: Profile) -> list[Finding]:
    """The traced thread was ready to run but waited for a CPU for a large share of the
    loop's busy time: other processes, or a CPU limit (a container's quota) throttling
    the process.  Its greenlets queued meanwhile whatever the code did, so the cure is
    on the machine; loop-saturated leaves this share out."""
    share = starved_share(profile)
    wait = _f(profile.hub, "cpu_wait_s")
    if share < STARVED_SHARE or wait < STARVED_RUN_SHARE * profile.duration_s:
        return []
    threshold = block_threshold(profile)
    queued = share * sum(g.ready_wait_s or 0.0 for g in _workers(profile))
    cost = max(queued, wait)  # a lone greenlet queues for nobody, yet waited itself
    if cost < threshold:
        return []
    busy = _f(profile.hub, "utilization") * profile.duration_s
    threads, children = _own_competitors(profile)
    own = threads + children
    spawned = None
    if own >= OWN_COMPETITOR_SHARE * profile.duration_s and _own_fill(profile, own, wait):
        parts = [f"other threads used {threads:.3f} s of CPU" if threads else "",
                 f"child processes{'' if threads else ' used'} {children:.3f} s (a local "
                 "server it started, a subprocess per call)" if children else ""]
        held_by = ("its own process's other threads and children, besides any other "
                   "programs, held it off the CPU")
        spawned = _spawned_at(profile) if children >= threads else None
        cure = (
            f" Over the {profile.duration_s:.3f} s run "
            f"this process's {' and its '.join(p for p in parts if p)}, competitors of "
            "its own for the machine's cores"
            + (" (and threads running Python hold the interpreter lock the loop needs)"
               if threads else "")
            + (f". The children were started at {spawned[0]} (its greenlets waited "
               f"{spawned[1]:.3f} s there on child processes): {SPAWN_PER_CALL}"
               if spawned else "")
            + ". Cure those in the program first: less work in them, or run them "
            "elsewhere (another host, a CPU-limited process); then give the process the "
            "CPU its load needs.")
    else:
        held_by = ("other processes on the machine or a CPU limit (a container's CPU quota "
                   "throttling the process) held it off the CPU")
        cure = (" The cure is on the machine, not in the code: give the process the CPU "
                "its load needs (a higher CPU limit or request, fewer worker processes than "
                "cores; a throttled container shows nr_throttled in its cgroup's "
                "cpu.stat), or run it on a less crowded host.")
    lead = (f"A child process started per call at {spawned[0]} held this process off "
            "the CPU: " if spawned else "")
    message = (
        lead + f"{'the' if lead else 'The'} traced thread waited {wait:.3f} s for a CPU, "
        + (f"{share:.0%} of the {busy:.3f} s the loop was busy" if wait <= busy else
           f"more than the {busy:.3f} s the loop was busy (its wake-ups from the poll "
           "waited for one too)")
        + f": it was ready to run, but {held_by}, and its greenlets queued {queued:.3f} "
        f"greenlet-seconds meanwhile.{cure} "
        "Until then every ready wait in this profile includes this wait.")
    extra = {}
    if spawned:
        # the waits on the children started per call are that cause's too
        cost += spawned[1]
        extra = {"spawned_at": spawned[0], "spawned_wait_s": spawned[1],
                 "cost_meaning": COST_MEANING[CPU_STARVED] + SPAWNED_COST}
    # (at the line that starts them, where the fix goes)
    return [_finding(CPU_STARVED, message, cost, [spawned[0]] if spawned else [],
                     cpu_wait_s=wait, starved_share=share,
                     busy_s=busy, others_ready_wait_s=queued, own_threads_cpu_s=threads,
                     children_cpu_s=children, **extra)]


SPAWNED_COST = ", plus the greenlet-seconds spent waiting on the child processes started there"


# A child process's frames in a wait's stack (gevent's or the standard library's
# subprocess module: run, communicate, wait, the exec check of a new child).
SUBPROCESS_FRAME = re.compile(r"[/\\]subprocess\.py:\d+:")


# Where the program's greenlets waited on child processes at one line of theirs for at
# least this share of the run, in at least SPAWN_MIN_WAITS waits, the children are that
# line's: a process started per call (a child waited on a few times at one line, however
# long, is one process: an unseen service's main ran its load generator that way and
# was told "a process started per call").
SPAWN_WAIT_SHARE = 0.25


SPAWN_MIN_WAITS = 20


# What starting one per call costs, and its cure (cpu-starved's words).
SPAWN_PER_CALL = (
    "a process started per call pays its program's start-up each time (an interpreter's "
    "imports: tens of ms of CPU for what may be microseconds of work) and its fork in "
    "the loop's own thread, so keep a few long-lived helper processes and feed them "
    "over pipes, one item per line (or do the work in-process)")


def _spawned_at(profile: Profile) -> tuple[str, float] | None:
    """(the program's line, its greenlets' wait there) where the most waiting on child
    processes (SUBPROCESS_FRAME in the stack) was done, when that is SPAWN_WAIT_SHARE
    of the run or more (greenlet-seconds: several at once count each) in SPAWN_MIN_WAITS
    waits or more; else None."""
    at: dict[str, list[float]] = {}
    for w in profile.waits:
        line = user_site(w.stack).user
        if line and any(isinstance(f, str) and SUBPROCESS_FRAME.search(f) for f in w.stack):
            acc = at.setdefault(line, [0.0, 0.0])
            acc[0] += w.wait_s
            acc[1] += w.count
    if not at or not profile.duration_s:
        return None
    line, (waited, waits) = max(at.items(), key=lambda kv: kv[1][0])
    return (line, waited) if waited >= SPAWN_WAIT_SHARE * profile.duration_s \
        and waits >= SPAWN_MIN_WAITS else None
# ... and only where they and the loop could have filled the machine's cores: their CPU,
# the loop thread's and its wait for a CPU at least this share of the cores over the
# run (an unseen notification service's sidecar, a third of a core beside a loop that
# needed one, on 2 cores, was blamed while other programs ran a test suite there).
OWN_FILL_SHARE = 0.75


def _own_fill(profile: Profile, own: float, wait: float) -> bool:
    """Whether the process's own threads and children (*own* CPU seconds), with the
    loop's CPU and its *wait* for a CPU, used at least OWN_FILL_SHARE of the cores it
    may run on (``meta["cpus"]``) over the run; yes where the core count is unknown."""
    cpus = profile.meta.get("cpus")
    if not isinstance(cpus, int) or isinstance(cpus, bool) or cpus <= 0:
        return True
    loop = sum(g.cpu_s or 0.0 for g in profile.greenlets if g.id != profile.hub.get("id"))
    loop += _f(profile.hub, "cpu_s")
    return own + loop + wait >= OWN_FILL_SHARE * cpus * profile.duration_s


def _own_competitors(profile: Profile) -> tuple[float, float]:
    """(CPU seconds of this process's threads other than the loop's, of its child
    processes) over the run; 0 for what the profile does not have (older profiles, no
    CPU clock)."""
    return max(0.0, other_threads_cpu(profile) or 0.0), \
        max(0.0, _f(profile.hub, "children_cpu_s"))


def other_threads_cpu(profile: Profile) -> float | None:
    """CPU seconds this process's threads other than the loop's used over the run: the
    whole process's (``hub["process_cpu_s"]``) less the loop thread's, its greenlets'
    and the hub's; None where the profile lacks either."""
    hub = profile.hub
    loop = [g.cpu_s for g in profile.greenlets if g.id != hub.get("id")] + [hub.get("cpu_s")]
    process = hub.get("process_cpu_s")
    if not isinstance(process, (int, float)) or isinstance(process, bool) \
            or any(c is None for c in loop):
        return None
    return process - sum(loop)
