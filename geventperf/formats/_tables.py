"""The report's tables as plain rows of display strings, shared by text and html.

Each table keeps its worst rows (the limits below) and remembers how many it had, so
both renderers can say "... and K more" instead of silently dropping rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from geventperf.formats._frames import (
    call_site,
    clip_left,
    display_name,
    format_bytes,
    format_seconds,
)
from geventperf.profile import Profile

# Enough rows to find the culprit without scrolling a terminal's worth of noise.
MAX_GREENLETS = 20
MAX_SECTIONS = 20
MAX_WAIT_SITES = 10
MAX_READ_HOSTS = 10
# Greenlet names are cut (from the left) to this in the 100-column text report, so the
# "#id" that tells two "worker"s apart survives; the HTML report has room for more.
NAME_CHARS = 28


@dataclass
class Table:
    title: str
    columns: list[str]
    # One letter per column: "l" left-aligned text, "r" right-aligned number.
    align: str
    # The column that gives up width when the table is too wide (names, call sites).
    flex: int
    rows: list[list[str]]
    total: int

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


def greenlet_table(profile: Profile, limit: int = MAX_GREENLETS,
                   name_chars: int = NAME_CHARS) -> Table | None:
    if not profile.greenlets:
        return None
    ranked = sorted(profile.greenlets, key=lambda g: g.run_s + g.wait_s, reverse=True)
    rows = [[f"{clip_left(display_name(g.name) or '?', name_chars)} #{g.id}", format_seconds(g.run_s + g.wait_s),
             format_seconds(g.run_s), format_seconds(g.cpu_s), format_seconds(g.wait_s),
             str(g.switches), format_seconds(g.longest_run_s)] for g in ranked[:limit]]
    return Table(f"GREENLETS (worst first by wall time = run + wait; {len(ranked)} traced)",
                 ["greenlet", "wall", "run", "CPU", "wait", "switches", "longest slice"],
                 "lrrrrrr", 0, rows, len(ranked))


def section_table(profile: Profile, limit: int = MAX_SECTIONS) -> Table | None:
    if not profile.sections:
        return None
    ranked = sorted(profile.sections, key=lambda s: s.wall_s, reverse=True)
    rows = [[s.name, "C" if s.c else "", str(s.calls), format_seconds(s.wall_s),
             format_seconds(s.run_s), format_seconds(s.cpu_s), format_seconds(s.wait_s),
             str(s.switches)] for s in ranked[:limit]]
    return Table("SECTIONS (C = a C call expected never to yield)",
                 ["section", "C?", "calls", "wall", "run", "CPU", "wait", "switches"],
                 "lcrrrrrr", 0, rows, len(ranked))


def wait_site_table(profile: Profile, limit: int = MAX_WAIT_SITES) -> Table | None:
    if not profile.waits:
        return None
    ranked = sorted(profile.waits, key=lambda w: w.wait_s, reverse=True)
    total = sum(w.wait_s for w in ranked)
    rows = []
    for w in ranked[:limit]:
        rows.append([format_seconds(w.wait_s), str(w.count), call_site(w.stack)])
    return Table(f"TOP WAIT SITES (where greenlets yielded to the hub: "
                 f"{format_seconds(total)} over {len(ranked)} stacks)",
                 ["wait", "count", "your code  ->  where it yielded to the hub"], "rrl", 2, rows, len(ranked))


def read_table(profile: Profile, limit: int = MAX_READ_HOSTS) -> Table | None:
    if not profile.reads:
        return None
    by_host: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for record in profile.reads:
        totals = by_host[str(record.get("host", "?"))]
        # A record is one body unless the tracer aggregated them ("bodies").
        totals["bodies"] += _number(record.get("bodies"), default=1)
        for key in ("bytes", "reads", "reads_waited", "wall_s"):
            totals[key] += _number(record.get(key))
    ranked = sorted(by_host.items(), key=lambda item: item[1]["bytes"], reverse=True)
    rows = []
    for host, t in ranked[:limit]:
        average = t["bytes"] / t["reads"] if t["reads"] else 0
        rows.append([host, f"{t['bodies']:.0f}", format_bytes(t["bytes"]),
                     f"{t['reads']:.0f}", format_bytes(average), f"{t['reads_waited']:.0f}",
                     format_seconds(t["wall_s"])])
    return Table("ADAPTER READS (response bodies read by GeventAdapter)",
                 ["host", "bodies", "bytes", "reads", "avg read", "reads waited", "wall"],
                 "lrrrrrr", 0, rows, len(ranked))


def all_tables(profile: Profile) -> list[Table]:
    tables = [greenlet_table(profile), section_table(profile), wait_site_table(profile),
              read_table(profile)]
    return [t for t in tables if t is not None]


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)
