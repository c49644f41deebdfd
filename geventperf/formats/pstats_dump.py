"""pstats: the marshal'd stats dict that ``pstats.Stats``, snakeviz and gprof2dot load.

A Profile has no call counts, it has stacks: ``runs`` (running time of slices that
ended at a stack) and ``waits`` (hub wait that started at a stack).  Each stack becomes
a call chain; running time is the innermost frame's own time, waiting is the own time
of synthetic ``<event wait>`` and ``<ready wait>`` functions (one ``<hub wait>`` when
the profile does not split waits) called from the frame that yielded, so a viewer
shows CPU work, I/O waiting and queueing apart.  "Calls" are observations: how many slices or
waits went through a function.

When the run was sampled (``Tracer(cpu_samples=...)``), the sampled CPU stacks replace
``runs``: own time is CPU in the function itself (the frame on top of a sample),
cumulative time CPU anywhere below it, each stack under a synthetic ``<cpu> NAME``
caller per greenlet name.  A run slice's off-CPU part (a blocking call) is then not
shown; waits are as above.

cProfile's layout, which pstats expects::

    stats[func] = (primitive_calls, calls, own_time, cumulative_time, callers)
    callers[caller_func] = (calls, primitive_calls, own_time, cumulative_time)

with ``func = (filename, line, function_name)``.
"""

from __future__ import annotations

import marshal
from collections import defaultdict

from geventperf.formats._frames import HUB_WAIT_NAME, wait_parts
from geventperf.frames import parse_frame
from geventperf.profile import Profile
from geventperf.sampling.views import chains, cpu_root, function_of, samples_of

FuncKey = tuple[str, int, str]

# pstats shows ("~", 0, "<name>") as a built-in, "{name}"; we use that for frames that
# are not Python code.
HUB_WAIT: FuncKey = ("~", 0, HUB_WAIT_NAME)
UNKNOWN_STACK: FuncKey = ("~", 0, "<unknown stack>")


class _Totals:
    """Observations, own time and cumulative time, summed per function and per edge."""

    def __init__(self) -> None:
        self.funcs: dict[FuncKey, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        self.edges: dict[FuncKey, dict[FuncKey, list[float]]] = defaultdict(
            lambda: defaultdict(lambda: [0, 0.0, 0.0]))

    def add(self, chain: list[FuncKey], count: int, seconds: float) -> None:
        """Add one stack, innermost first, whose innermost frame spent *seconds*.

        A recursive function appears several times in one chain; its cumulative time
        (and each caller->callee edge) counts once per chain, as cProfile does, so
        recursion is not double counted."""
        own = self.funcs[chain[0]]
        own[1] += seconds
        for func in set(chain):
            totals = self.funcs[func]
            totals[0] += count
            totals[2] += seconds
        seen: set[tuple[FuncKey, FuncKey]] = set()
        for depth in range(len(chain) - 1):
            callee, caller = chain[depth], chain[depth + 1]
            edge = self.edges[callee][caller]
            if depth == 0:
                edge[1] += seconds
            if (callee, caller) in seen:
                continue
            seen.add((callee, caller))
            edge[0] += count
            edge[2] += seconds

    def stats(self) -> dict[FuncKey, tuple]:
        out = {}
        for func, (calls, own, cumulative) in self.funcs.items():
            callers = {caller: (int(n), int(n), tt, ct)
                       for caller, (n, tt, ct) in self.edges.get(func, {}).items()}
            out[func] = (int(calls), int(calls), own, cumulative, callers)
        return out


def _key(entry: str, first_lines: dict[tuple[str, str], int] | None = None) -> FuncKey:
    frame = parse_frame(entry)
    if not frame.path:
        return ("~", 0, frame.function)
    # A function the samples saw is named by its first line, as they name it, so its
    # CPU and its waits are one entry; otherwise by the line the stack was at.
    line = first_lines.get((frame.path, frame.function), frame.line) if first_lines \
        else frame.line
    return (frame.path, line, frame.function)


def build_stats(profile: Profile) -> dict[FuncKey, tuple]:
    totals = _Totals()
    samples = samples_of(profile)
    first_lines: dict[tuple[str, str], int] = {}
    if samples is not None:
        for cpu in chains(samples):
            chain = [function_of(label, first)
                     for label, first in zip(cpu.labels, cpu.first_lines)]
            first_lines.update(((path, name), first) for path, first, name in chain if first)
            totals.add(chain + [("~", 0, cpu_root(cpu.greenlet))], max(cpu.count, 1),
                       cpu.cpu_s)
    for run in profile.runs if samples is None else ():
        chain = [_key(e) for e in run.stack] or [UNKNOWN_STACK]
        totals.add(chain, max(run.count, 1), run.run_s)
    for wait in profile.waits:
        stack = [_key(e, first_lines) for e in wait.stack]
        for name, seconds in wait_parts(wait):
            totals.add([("~", 0, name)] + stack, max(wait.count, 1), seconds)
    return totals.stats()


def render(profile: Profile) -> bytes:
    return marshal.dumps(build_stats(profile))
