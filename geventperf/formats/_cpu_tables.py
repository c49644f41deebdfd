"""The CPU samples as the reports show them: a top-functions table (text and HTML) and
one icicle tree per greenlet name (HTML), both from the same samples."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from geventperf.formats._frames import clip_left, format_seconds, frame_label, short_path
from geventperf.formats._tables import NAME_CHARS, Table
from geventperf.frames import is_profiler_own, parse_frame
from geventperf.profile import Profile
from geventperf.sampling.views import (
    by_function,
    by_greenlet,
    chains,
    function_of,
    samples_of,
)

# Functions listed in the terminal report: the hot ones, not the long tail.
MAX_FUNCTIONS = 15
# Greenlet names named beside a function.
MAX_NAMES_PER_FUNCTION = 2
# Icicle nodes narrower than this share of their tree are left out (a browser cannot
# show them, and a long run has thousands).
MIN_NODE_SHARE = 0.005
# Deepest icicle level drawn; deeper frames are folded into their ancestor.
MAX_ICICLE_DEPTH = 48


def sampling_note(profile: Profile) -> str:
    """One line on how the CPU was sampled, or why it was not ("" if not asked)."""
    samples = getattr(profile, "cpu_samples", None)
    if samples is None:
        return ""
    if samples.unavailable:
        return f"CPU samples: none ({samples.unavailable})"
    share = samples.overhead_s / samples.cpu_s if samples.cpu_s else 0.0
    mean = samples.cpu_s / samples.count if samples.count else 0.0
    asked = f"interval {format_seconds(samples.interval_s)}" if samples.interval_s else ""
    if asked and samples.final_interval_s is not None and \
            samples.final_interval_s > samples.interval_s * (1 + 1e-9):
        asked += f", raised to {format_seconds(samples.final_interval_s)} by the CPU budget"
    # The kernel fires the timer on its tick, so the mean gap can exceed the interval.
    return (f"CPU samples: {samples.count} over {format_seconds(samples.cpu_s)} of CPU, one "
            f"per {format_seconds(mean)} on average ({asked}); the sampler used "
            f"{format_seconds(samples.overhead_s)} ({share:.1%})")


def cpu_function_table(profile: Profile, limit: int = MAX_FUNCTIONS) -> Table | None:
    samples = samples_of(profile)
    if samples is None:
        return None
    total = samples.cpu_s or 1.0
    names: dict[tuple[str, int, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    # a function's self CPU by line: a C call's CPU is its calling line's, and a
    # function's first line alone would leave the reader to guess which call it was
    lines: dict[tuple[str, int, str], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for chain in chains(samples):
        if chain.labels:
            func = function_of(chain.labels[0], chain.first_lines[0])
            names[func][chain.greenlet] += chain.cpu_s
            lines[func][parse_frame(chain.labels[0]).line] += chain.cpu_s
    funcs = by_function(samples)
    rows, subrows = [], []
    for f in funcs[:limit]:
        where = f"{f.function} ({short_path(f.path)}:{f.first_line})" if f.path != "~" \
            else f.function
        top = sorted(names.get((f.path, f.first_line, f.function), {}).items(),
                     key=lambda kv: -kv[1])[:MAX_NAMES_PER_FUNCTION]
        if is_profiler_own(f.path):
            where += " [geventperf's own: the profiler's cost]"
        rows.append([format_seconds(f.self_s), f"{f.self_s / total:.1%}",
                     format_seconds(f.cumulative_s), where])
        # under the function: the greenlet names whose own CPU it was, the tail of
        # each (the function a greenlet runs tells them apart)
        hot = max(lines.get((f.path, f.first_line, f.function), {}).items(),
                  key=lambda kv: kv[1], default=None)
        subrows.append("; ".join(
            ([f"in {', '.join(clip_left(name, NAME_CHARS) for name, _ in top)}"] if top else [])
            + ([f"self CPU {hot[1] / f.self_s:.0%} at line {hot[0]}"]
               if hot and hot[0] and f.self_s > 0 else [])))
    own = sum(f.self_s for f in funcs if is_profiler_own(f.path))
    profiler = (f" geventperf's own tracing took {own / total:.1%} of the sampled CPU "
                "(its functions are marked): the profiler's cost, charged to the greenlets "
                "it ran in, not the program's work." if own else "")
    return Table(
        title="TOP FUNCTIONS BY CPU (sampled)",
        columns=["self CPU", "self %", "cumulative", "function"],
        align="rrrl", flex=3, rows=rows, total=len(funcs), subrows=subrows,
        note=f"{sampling_note(profile)}. Self: CPU in the function's own code (a C call "
             "it made included); cumulative: CPU anywhere beneath it; under each function, the "
             "greenlet names whose own CPU it was and the line that took most of its self CPU."
             + profiler)


def icicles(profile: Profile) -> list[dict[str, Any]]:
    """Per greenlet name, largest first: ``{"name", "cpu", "tree"}`` where a tree node is
    ``[label, seconds, children]`` (outermost frame at the root)."""
    samples = samples_of(profile)
    if samples is None:
        return []
    out = []
    for name, seconds in by_greenlet(samples).items():
        root: dict[str, Any] = {"s": 0.0, "c": {}}
        for chain in chains(samples):
            if chain.greenlet != name:
                continue
            node = root
            node["s"] += chain.cpu_s
            for label in list(reversed(chain.labels))[:MAX_ICICLE_DEPTH]:
                node = node["c"].setdefault(frame_label(label), {"s": 0.0, "c": {}})
                node["s"] += chain.cpu_s
        out.append({"name": name, "cpu": format_seconds(seconds),
                    "tree": _prune(name, root, root["s"] * MIN_NODE_SHARE)})
    return out


def _prune(label: str, node: dict[str, Any], floor: float) -> list[Any]:
    children = [_prune(child, sub, floor) for child, sub in
                sorted(node["c"].items(), key=lambda kv: -kv[1]["s"]) if sub["s"] >= floor]
    return [label, round(node["s"], 6), children]
