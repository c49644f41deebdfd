"""One table of ratios over every benchmark of the run.

Each benchmark names its group (``benchmark.group``) and may mark itself as the
group's baseline with ``benchmark.extra_info["baseline"] = True``.  The table shows the
median time of each row and how many times faster than the baseline it ran (>1 is
faster), measured in the same run.  Scalar ``extra_info`` figures (peak memory, jobs
per second, ns per switch) are shown beside the row.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable


def _fmt_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _extras(info: dict[str, Any]) -> str:
    shown = []
    for key, value in info.items():
        if key == "baseline" or isinstance(value, (dict, list)):
            continue
        shown.append(f"{key}={value:.3g}" if isinstance(value, float) else f"{key}={value}")
    return " ".join(shown)


def print_summary(benchmarks: list[Any], write: Callable[[str], None]) -> None:
    groups: dict[str, list[Any]] = defaultdict(list)
    for bench in benchmarks:
        groups[bench.group or "(no group)"].append(bench)
    write("")
    write("geventperf benchmark summary (medians; x = times faster than the group's baseline)")
    for name in sorted(groups):
        rows = groups[name]
        baseline = next((b for b in rows if b.extra_info.get("baseline")), None)
        write(f"-- {name}" + (f"  (baseline: {baseline.name})" if baseline else ""))
        for bench in sorted(rows, key=lambda b: b.stats.median):
            ratio = ""
            if baseline is not None:
                ratio = f"{baseline.stats.median / bench.stats.median:6.2f}x"
            write(f"   {bench.name:<58} {_fmt_time(bench.stats.median):>10} {ratio:>8}  "
                  f"{_extras(bench.extra_info)}")
