"""The terminal report: findings first, then where each greenlet's time went.

Plain text, at most 100 columns, readable without colour (it goes to stderr, CI logs
and bug reports).  Tables show the worst rows and say how many were left out.
"""

from __future__ import annotations

import textwrap

from geventperf.formats._frames import clip, format_seconds, frame_label, greenlet_names
from geventperf.formats._tables import Table, all_tables
from geventperf.profile import Finding, Profile

WIDTH = 100
# The innermost frames of a finding's stack: where it happened and who called it.
FINDING_FRAMES = 4
INDENT = " " * 5
# The worst findings of each kind are printed in full, the rest only counted.
MAX_FINDINGS_PER_KIND = 2
MAX_FINDINGS = 8
COLUMN_GAP = "  "


def render(profile: Profile) -> str:
    parts = [header(profile), _findings(profile)]
    if not profile.greenlets:
        parts.append("GREENLETS: none traced")
    parts += [_table(t) for t in all_tables(profile)]
    return "\n\n".join(parts) + "\n"


def header(profile: Profile) -> str:
    hub = profile.hub
    lines = [f"geventperf: {format_seconds(profile.duration_s)} traced, "
             f"{profile.switches} switches, {len(profile.greenlets)} greenlets"]
    command = command_line(profile)
    if command:
        lines.append(clip(f"command: {command}", WIDTH))
    lines.append(f"hub: ran {format_seconds(hub.get('run_s'))} "
                 f"(CPU {format_seconds(hub.get('cpu_s'))}), "
                 f"idle {format_seconds(hub.get('idle_s'))}; "
                 f"trace errors: {profile.trace_errors}")
    if profile.slices_dropped:
        lines.append(f"timeline truncated: {profile.slices_dropped} slices dropped "
                     "(totals are exact; only the timeline is partial)")
    left_open = profile.meta.get("sections_left_open")
    if isinstance(left_open, int) and left_open > 0:
        lines.append(f"sections left open: {left_open} entered by greenlets that died "
                     "without leaving them (counted up to the death; a missing exit?)")
    return "\n".join(lines)


def command_line(profile: Profile) -> str:
    command = profile.meta.get("argv") or profile.meta.get("command")
    if isinstance(command, list):
        command = " ".join(str(a) for a in command)
    return command if isinstance(command, str) else ""


def ranked_findings(profile: Profile) -> list[Finding]:
    return sorted(profile.findings, key=lambda f: f.cost_s, reverse=True)


def select_findings(profile: Profile) -> tuple[list[Finding], list[Finding]]:
    """(shown, folded): the worst few of each kind, then the rest.

    Findings repeat per greenlet (a hundred workers hitting the same parser make a
    hundred findings); the worst of each kind say it all, the others are counted."""
    shown: list[Finding] = []
    folded: list[Finding] = []
    per_kind: dict[str, int] = {}
    for finding in ranked_findings(profile):
        if per_kind.get(finding.kind, 0) < MAX_FINDINGS_PER_KIND and len(shown) < MAX_FINDINGS:
            per_kind[finding.kind] = per_kind.get(finding.kind, 0) + 1
            shown.append(finding)
        else:
            folded.append(finding)
    return shown, folded


def folded_summary(folded: list[Finding]) -> str:
    """``169 more: 94 c-section-deadlock-risk, 75 blocked-read-in-c-section``."""
    counts: dict[str, int] = {}
    for finding in folded:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{len(folded)} more: {kinds}"


def finding_place(profile: Profile, finding: Finding) -> str:
    names = greenlet_names(profile)
    where = []
    if finding.greenlet is not None:
        where.append(f"greenlet {names.get(finding.greenlet, '?')} (#{finding.greenlet})")
    if finding.section:
        where.append(f'section "{finding.section}"')
    return "  ".join(where)


def _findings(profile: Profile) -> str:
    if not profile.findings:
        return "FINDINGS: none"
    shown, folded = select_findings(profile)
    lines = [f"FINDINGS ({len(profile.findings)}, worst first)"]
    for number, finding in enumerate(shown, start=1):
        title = f"{number:>3}. {finding.kind}  cost {format_seconds(finding.cost_s)}"
        place = finding_place(profile, finding)
        if len(title) + 2 + len(place) <= WIDTH:
            lines.append(f"{title}  {place}".rstrip())
        else:  # a long greenlet or section name gets a line of its own
            lines.extend([title, clip(INDENT + place, WIDTH)])
        lines.extend(textwrap.wrap(finding.message, WIDTH, initial_indent=INDENT,
                                   subsequent_indent=INDENT) or [INDENT + "(no message)"])
        for depth, entry in enumerate(finding.stack[:FINDING_FRAMES]):
            prefix = "       at " if depth == 0 else "          "
            lines.append(clip(prefix + frame_label(entry), WIDTH))
        if len(finding.stack) > FINDING_FRAMES:
            lines.append(f"          ... {len(finding.stack) - FINDING_FRAMES} outer frames")
    if folded:
        lines.extend(textwrap.wrap(f"... and {folded_summary(folded)} (all of them are in "
                                   "the json and html formats)", WIDTH,
                                   subsequent_indent=INDENT))
    return "\n".join(lines)


def _table(table: Table) -> str:
    """Columns sized to their content; the flexible column gives up width to fit."""
    cells = [[clip(c, WIDTH) for c in row] for row in table.rows]
    widths = [max([len(name)] + [len(row[i]) for row in cells])
              for i, name in enumerate(table.columns)]
    others = sum(w for i, w in enumerate(widths) if i != table.flex)
    widths[table.flex] = max(min(widths[table.flex],
                                 WIDTH - others - len(COLUMN_GAP) * (len(widths) - 1)), 8)

    def line(row: list[str]) -> str:
        out = []
        for cell, width, align in zip(row, widths, table.align):
            cell = clip(cell, width)
            out.append(cell.rjust(width) if align == "r" else
                       cell.center(width) if align == "c" else cell.ljust(width))
        return COLUMN_GAP.join(out).rstrip()

    lines = [table.title, line(table.columns)] + [line(row) for row in cells]
    if table.hidden:
        lines.append(f"... and {table.hidden} more")
    return "\n".join(lines)
