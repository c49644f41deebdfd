"""One self-contained HTML file: a header saying what ran where, the answers a reader
wants first, findings, tables and a zoomable timeline drawn on a <canvas>.

No network fetches: the CSS and JavaScript are inline in report.html, and the data is
embedded as JSON in a ``<script type="application/json">`` element.  Every figure
and sentence is computed here; the script only bins run slices and waits into pixel
columns and draws them (see :mod:`geventperf.formats._html_timeline`).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from geventperf.findings.common import STACK_SLICE_END
from geventperf.formats import _cpu_tables, _tables
from geventperf.formats._fields import has_split, num, ready_latency, utilization
from geventperf.formats._frames import format_seconds, frame_label
from geventperf.formats._glance import at_a_glance
from geventperf.formats._html_timeline import timeline_data
from geventperf.formats.text import (
    command_line,
    cost_meaning,
    cost_with_scale,
    finding_place,
    folded_summary,
    gc_figures,
    hot_path,
    hub_line,
    is_hazard,
    meaning_in_message,
    meta_text,
    run_date,
    select_findings,
    totals_line,
)
from geventperf.profile import Profile

TEMPLATE = "report.html"
DATA_MARK = "/*GEVENTPERF_DATA*/"
TITLE_MARK = "<!--GEVENTPERF_TITLE-->"
# A report for a person, not a data dump: tables keep more rows than the terminal.
HTML_TABLE_ROWS = 200
# Long names wrap in an HTML table cell; only absurd ones are cut.
HTML_NAME_CHARS = 200
# A browser tab shows ~30 characters; the title names the run in whole words.
TITLE_CHARS = 48

# Inside <script> the HTML parser only looks for "</script" (and "<!--" tricks), but
# escaping every "<", ">" and "&" as a JSON \u003c-style escape is simpler to trust:
# no hostile name can end the element or open a comment, and JSON.parse restores them.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def page_title(profile: Profile) -> str:
    """``geventperf: demo, naive run``: the command cut at a whole word."""
    command = command_line(profile)
    if command.startswith("geventperf "):
        command = command[len("geventperf "):]
    if command.startswith("run "):
        command = command[len("run "):]
    words, title = command.split(), ""
    for word in words:
        candidate = f"{title} {word}".strip()
        if len(candidate) > TITLE_CHARS:
            title = (title or word[:TITLE_CHARS]) + " ..."
            break
        title = candidate
    return f"geventperf: {title}" if title else "geventperf report"


def about(profile: Profile) -> list[list[str]]:
    """(label, value) pairs of the header line: what ran, where, when, how long."""
    pairs = [["duration", f"{format_seconds(profile.duration_s)} (wall clock, traced)"]]
    for label, key in (("host", "host"), ("Python", "python"), ("gevent", "gevent"),
                       ("loop", "loop")):
        if meta_text(profile, key):
            pairs.append([label, meta_text(profile, key)])
    if hot_path(profile):
        pairs.append(["tracer", hot_path(profile)])
    if run_date(profile):
        pairs.append(["date", run_date(profile)])
    return pairs


def summary(profile: Profile) -> list[list[str]]:
    """(label, value, explanation) of the headline figures, each with its unit."""
    hub = profile.hub
    util = utilization(profile)
    items = [["traced", format_seconds(profile.duration_s), "wall clock"]]
    items.append(["loop utilization", "-" if util is None else f"{util:.1%}",
                  "share of the run the loop was not idle in its poll"])
    items.append(["hub idle", format_seconds(num(hub, "idle_s")),
                  "blocked in the poll with nothing to do"])
    latency = ready_latency(profile)
    if latency:
        items.append(["ready wait per wake-up",
                      f"p50 {format_seconds(num(latency, 'p50_s'))} / p99 "
                      f"{format_seconds(num(latency, 'p99_s'))}",
                      f"from ready to running, over {num(latency, 'n'):.0f} wake-ups"])
    items.append(["greenlets", str(len(profile.greenlets)),
                  f"{len(_tables.greenlet_groups(profile))} groups by name, hub apart"])
    items.append(["switches", str(profile.switches), "greenlet switches traced"])
    gc = gc_figures(profile)
    if gc:
        items.append(["garbage collection", gc[0], f"in the traced thread: {gc[1]}"])
    items.append(["trace errors", str(profile.trace_errors), "inside the tracer"])
    failed = profile.meta.get("findings_errors")
    if isinstance(failed, list) and failed:
        items.append(["findings incomplete", f"{len(failed)} finder(s) failed",
                      "a geventperf bug; the other findings are shown: "
                      + "; ".join(str(e) for e in failed)])
    return items


def findings_data(profile: Profile,
                  time_of: dict[int, float]) -> tuple[list[dict[str, Any]], int, str]:
    shown, folded = select_findings(profile)
    findings = [{"kind": f.kind, "hazard": is_hazard(f), "cost": cost_with_scale(profile, f),
                 "cost_meaning": "" if meaning_in_message(f) else cost_meaning(f),
                 "where": finding_place(profile, f),
                 "message": f.message, "frames": [frame_label(e) for e in f.stack],
                 "slice_end": f.extra.get("stack_is") == STACK_SLICE_END,
                 "gid": f.greenlet, "t": time_of.get(id(f), 0.0)}
                for f in shown + folded]
    return findings, len(shown), folded_summary(folded) if folded else ""


def build_data(profile: Profile) -> dict[str, Any]:
    timeline, _group_of, time_of = timeline_data(profile)
    findings, findings_open, findings_folded = findings_data(profile, time_of)
    return {
        "title": page_title(profile),
        "command": command_line(profile),
        "about": about(profile),
        "summary": summary(profile),
        "hub_line": hub_line(profile),
        "totals_line": totals_line(profile),
        "split": has_split(profile.greenlets),
        "glance": at_a_glance(profile),
        "findings": findings,
        "findings_open": findings_open,
        "findings_folded": findings_folded,
        "tables": [{"title": t.title, "note": t.note, "columns": t.columns, "align": t.align,
                    "rows": t.rows, "hidden": t.hidden, "flex": t.flex, "subrows": t.subrows}
                   for t in all_tables_for_html(profile)],
        "timeline": timeline,
        "cpu_note": _cpu_tables.sampling_note(profile),
        "icicles": _cpu_tables.icicles(profile),
    }


def all_tables_for_html(profile: Profile) -> list[_tables.Table]:
    return [t for t in (_tables.greenlet_table(profile, HTML_TABLE_ROWS, HTML_NAME_CHARS),
                        _tables.holder_table(profile, HTML_TABLE_ROWS),
                        _tables.section_table(profile, HTML_TABLE_ROWS),
                        _tables.wait_site_table(profile, HTML_TABLE_ROWS, joined=False),
                        _tables.read_table(profile, HTML_TABLE_ROWS),
                        _tables.pool_table(profile, HTML_TABLE_ROWS),
                        _cpu_tables.cpu_function_table(profile, HTML_TABLE_ROWS))
            if t is not None]


def script_safe_json(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)


def render(profile: Profile) -> str:
    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    # Data first: its JSON has every "<" escaped, so it cannot contain the title mark,
    # while a title could contain the data mark.
    page = template.replace(DATA_MARK, script_safe_json(build_data(profile)), 1)
    return page.replace(TITLE_MARK, html.escape(page_title(profile)), 1)
