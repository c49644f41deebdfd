"""One self-contained HTML file: summary, findings, tables and a zoomable per-greenlet
timeline drawn on a <canvas>.

No network fetches: the CSS and JavaScript are inline in report.html, and the data is
embedded as JSON in a ``<script type="application/json">`` element.  Everything the
page shows is computed here; the script only draws it.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from geventperf.formats import _tables
from geventperf.formats._frames import format_seconds, frame_label
from geventperf.formats._timeline import build_lanes, finding_time
from geventperf.formats.text import command_line, finding_place, folded_summary, select_findings
from geventperf.profile import Profile

TEMPLATE = "report.html"
DATA_MARK = "/*GEVENTPERF_DATA*/"
TITLE_MARK = "<!--GEVENTPERF_TITLE-->"
MICROSECONDS = 1_000_000
DECIMALS = 3  # nanosecond resolution in microsecond units
# A report for a person, not a data dump: tables keep more rows than the terminal.
HTML_TABLE_ROWS = 200
# Long names wrap in an HTML table cell; only absurd ones are cut.
HTML_NAME_CHARS = 200

# Inside <script> the HTML parser only looks for "</script" (and "<!--" tricks), but
# escaping every "<", ">" and "&" as a JSON \u003c-style escape is simpler to trust:
# no hostile name can end the element or open a comment, and JSON.parse restores them.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _us(seconds: float) -> float:
    return round(seconds * MICROSECONDS, DECIMALS)


def build_data(profile: Profile) -> dict[str, Any]:
    lanes = build_lanes(profile)
    sections: dict[str, int] = {}
    c_sections = {s.name for s in profile.sections if s.c}
    lane_data = []
    for lane in lanes:
        starts, durations, kinds = [], [], []
        for start, duration, section in lane.slices:
            starts.append(_us(start))
            durations.append(_us(duration))
            kinds.append(sections.setdefault(section, len(sections)) if section else -1)
        lane_data.append({"id": lane.gid, "name": lane.name, "hub": lane.is_hub,
                          "s": starts, "d": durations, "k": kinds})
    lane_index = {lane.gid: i for i, lane in enumerate(lanes)}
    lanes_by_gid = {lane.gid: lane for lane in lanes}
    shown, folded = select_findings(profile)
    findings = [{"kind": f.kind, "cost": format_seconds(f.cost_s),
                 "where": finding_place(profile, f), "message": f.message,
                 "frames": [frame_label(e) for e in f.stack],
                 "lane": lane_index.get(f.greenlet, -1) if f.greenlet is not None else -1,
                 "t": _us(finding_time(f, lanes_by_gid))}
                for f in shown + folded]
    hub = profile.hub
    summary = [["traced", format_seconds(profile.duration_s)],
               ["switches", str(profile.switches)],
               ["greenlets", str(len(profile.greenlets))],
               ["hub ran", f"{format_seconds(hub.get('run_s'))} "
                           f"(CPU {format_seconds(hub.get('cpu_s'))})"],
               ["hub idle", format_seconds(hub.get("idle_s"))],
               ["trace errors", str(profile.trace_errors)]]
    end = max([profile.duration_s] + [s[0] + s[1] for lane in lanes for s in lane.slices[-1:]])
    return {
        "command": command_line(profile),
        "summary": summary,
        "findings": findings,
        "findings_open": len(shown),
        "findings_folded": folded_summary(folded) if folded else "",
        "tables": [{"title": t.title, "columns": t.columns, "align": t.align, "rows": t.rows,
                    "hidden": t.hidden} for t in all_tables_for_html(profile)],
        "timeline": {"end": _us(end), "lanes": lane_data,
                     "sections": [{"name": name, "c": name in c_sections}
                                  for name in sections],
                     "dropped": profile.slices_dropped,
                     "dropped_note": (f"Timeline truncated: {profile.slices_dropped} run "
                                      "slices were dropped by the tracer's bounded record. "
                                      "The totals are exact; the timeline shows part of "
                                      "the run.") if profile.slices_dropped else ""},
    }


def all_tables_for_html(profile: Profile) -> list[_tables.Table]:
    return [t for t in (_tables.greenlet_table(profile, HTML_TABLE_ROWS, HTML_NAME_CHARS),
                        _tables.section_table(profile, HTML_TABLE_ROWS),
                        _tables.wait_site_table(profile, HTML_TABLE_ROWS),
                        _tables.read_table(profile, HTML_TABLE_ROWS)) if t is not None]


def script_safe_json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)


def render(profile: Profile) -> str:
    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    command = command_line(profile)
    title = "geventperf report" + (f": {command[:120]}" if command else "")
    # Data first: its JSON has every "<" escaped, so it cannot contain the title mark,
    # while a title could contain the data mark.
    page = template.replace(DATA_MARK, script_safe_json(build_data(profile)), 1)
    return page.replace(TITLE_MARK, html.escape(title), 1)
