"""What the formats and findings read from CPU samples: stacks per greenlet name and
CPU per function (self: the innermost frame; cumulative: anywhere on the stack, once
per sample even under recursion, as cProfile counts it)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator, NamedTuple

from geventperf.sampling.model import CpuSamples

# The synthetic outermost frame every CPU stack is drawn under in flame graphs and
# pstats, so each greenlet name is its own tree, apart from the wait views.
CPU_ROOT_PREFIX = "<cpu> "


class Chain(NamedTuple):
    greenlet: str
    sections: list[str]
    labels: list[str]        # path:line:function, innermost first
    first_lines: list[int]   # each frame's function's first line (0: unknown)
    count: int
    cpu_s: float


class FunctionCpu(NamedTuple):
    path: str
    first_line: int
    function: str
    self_s: float
    cumulative_s: float
    samples: int


def samples_of(profile: Any) -> CpuSamples | None:
    """The profile's CPU samples, or None when it has no sample at all."""
    samples = getattr(profile, "cpu_samples", None)
    return samples if samples is not None and samples.stacks else None


def chains(samples: CpuSamples) -> Iterator[Chain]:
    for st in samples.stacks:
        yield Chain(st.greenlet, list(st.sections), [samples.frames[i] for i in st.frames],
                    [samples.first_lines[i] for i in st.frames], st.count, st.cpu_s)


def cpu_root(greenlet: str) -> str:
    return f"{CPU_ROOT_PREFIX}{greenlet}"


def function_of(label: str, first_line: int) -> tuple[str, int, str]:
    """(path, first line, function) naming the function a frame label is in."""
    parts = label.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], first_line, parts[2] or "?"
    return "~", 0, label or "?"


def by_function(samples: CpuSamples) -> list[FunctionCpu]:
    """CPU per function, largest self time first."""
    own: dict[tuple[str, int, str], float] = defaultdict(float)
    cumulative: dict[tuple[str, int, str], float] = defaultdict(float)
    counts: dict[tuple[str, int, str], int] = defaultdict(int)
    for chain in chains(samples):
        funcs = [function_of(lab, first) for lab, first in zip(chain.labels, chain.first_lines)]
        if not funcs:
            continue
        own[funcs[0]] += chain.cpu_s
        for func in set(funcs):
            cumulative[func] += chain.cpu_s
            counts[func] += chain.count
    out = [FunctionCpu(path, first, name, own.get((path, first, name), 0.0), cum,
                       counts[(path, first, name)])
           for (path, first, name), cum in cumulative.items()]
    out.sort(key=lambda f: (-f.self_s, -f.cumulative_s, f.function))
    return out


def by_greenlet(samples: CpuSamples) -> dict[str, float]:
    """Sampled CPU per greenlet name, largest first."""
    totals: dict[str, float] = defaultdict(float)
    for st in samples.stacks:
        totals[st.greenlet] += st.cpu_s
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))
