"""The terminal report: findings first, then where each greenlet's time went.

Plain text, at most 100 columns, readable without colour (it goes to stderr, CI logs
and bug reports).  Tables show the worst rows and say how many were left out.
"""

from __future__ import annotations

import textwrap

from geventperf.findings import sort_findings
from geventperf.findings.common import CONNECTION_GREENLET, COST_MEANING, STACK_SLICE_END
from geventperf.formats._cpu_tables import cpu_function_table, sampling_note
from geventperf.formats._fields import has_split, meta_text, num, ready_latency, utilization
from geventperf.formats._frames import (
    clip,
    clip_left,
    format_seconds,
    frame_label,
    greenlet_names,
    is_library_frame,
)
from geventperf.formats._glance import at_a_glance
from geventperf.formats._tables import Table, all_tables, greenlet_groups
from geventperf.frames import is_idle_server_wait, parse_frame
from geventperf.profile import Finding, Profile, by_generation

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
    cpu = cpu_function_table(profile)
    if cpu is not None:
        parts.append(_table(cpu))
    elif sampling_note(profile):  # asked for, but none taken: say why
        parts.append(clip(sampling_note(profile), WIDTH))
    return "\n\n".join(parts) + "\n"


def header(profile: Profile) -> str:
    lines = [f"geventperf: {format_seconds(profile.duration_s)} traced (wall clock), "
             f"{profile.switches} switches, {len(profile.greenlets)} greenlets"
             + (f"; tracer: {hot_path(profile)}" if hot_path(profile) else "")]
    command = command_line(profile)
    if command:  # whole: a command is copied from here, so it is wrapped, never cut
        flat = clip(command, len(command))  # control characters flattened, nothing cut
        lines.extend(textwrap.wrap(f"command: {flat}", WIDTH, subsequent_indent=INDENT,
                                   break_on_hyphens=False))
    about = run_about(profile)
    if about:
        lines.append(clip(about, WIDTH))
    for line in loop_lines(profile) + [hub_line(profile), totals_line(profile),
                                       gc_line(profile)]:
        lines.extend(textwrap.wrap(line, WIDTH, subsequent_indent=INDENT))
    alive = alive_line(profile)
    if alive:
        lines.extend(textwrap.wrap(alive, WIDTH, subsequent_indent=INDENT))
    stall_errors = profile.meta.get("stall_watch_errors")
    lines.append(f"trace errors: {profile.trace_errors}"
                 + (f" (and {stall_errors} in the stall watch's looks)"
                    if isinstance(stall_errors, int) and stall_errors else ""))
    failed = profile.meta.get("findings_errors")
    if isinstance(failed, list) and failed:
        lines.extend(textwrap.wrap(
            f"findings incomplete: {len(failed)} finder(s) failed, a geventperf bug (the "
            "findings below are the others'; please report it with this profile): "
            + "; ".join(str(e) for e in failed), WIDTH, subsequent_indent=INDENT))
    if profile.slices_dropped:
        lines.append(f"timeline truncated: {profile.slices_dropped} slices dropped "
                     "(totals are exact; only the timeline is partial)")
    left_open = profile.meta.get("sections_left_open")
    if isinstance(left_open, int) and left_open > 0:
        lines.append(f"sections left open: {left_open} entered by greenlets that died "
                     "without leaving them (counted up to the death; a missing exit?)")
    return "\n".join(lines)


# Names listed in the "still alive" line, most first.
ALIVE_NAMES_SHOWN = 3


def alive_line(profile: Profile) -> str:
    """The greenlets still alive when tracing stopped (meta.alive_at_end), or ""."""
    alive = profile.meta.get("alive_at_end")
    if not isinstance(alive, dict):
        return ""
    counts = [(name, n) for name, n in alive.items()
              if isinstance(name, str) and isinstance(n, int) and n > 0]
    if not counts:
        return ""
    shown = ", ".join(f"{n} '{name}'" for name, n in counts[:ALIVE_NAMES_SHOWN])
    more = len(counts) - ALIVE_NAMES_SHOWN
    head = (f"still alive when tracing stopped: {sum(n for _, n in counts)} greenlet(s) "
            f"({shown}{f' and {more} more name(s)' if more > 0 else ''}): ")
    # a server's connections alone, with connections seen awaiting their clients' next
    # requests: kept-alive connections, not a leak (two unseen services' in-process
    # servers' 30 and 40 were read as a possible leak)
    if all(CONNECTION_GREENLET in name for name, _n in counts) \
            and any(is_idle_server_wait(w.stack) for w in profile.waits):
        return head + ("a server's connections, most likely kept alive by their clients and "
                       "awaiting their next requests (idle, not a cost): TOP WAIT SITES' "
                       "idle row")
    return head + ("a server's idle workers, or, where the program was done with them, a "
                   "leak (a result or event nobody set): TOP WAIT SITES says where they wait")


def _own_frames(stack: list[str]) -> list[int]:
    """The indexes of a stack's first frame of the program's own and of the first after
    it in another of the program's files (its caller there)."""
    first = next((i for i, entry in enumerate(stack) if not is_library_frame(entry)), None)
    if first is None:
        return []
    path = parse_frame(stack[first]).path
    caller = next((i for i in range(first + 1, len(stack))
                   if not is_library_frame(stack[i]) and parse_frame(stack[i]).path != path),
                  None)
    return [first] + ([caller] if caller is not None else [])


def hot_path(profile: Profile) -> str:
    """How the tracer ran, said as the tracer's own (an unseen reader took a bare "hot
    path: C extension" for a finding about the program's C extensions)."""
    value = meta_text(profile, "hot_path")
    return {"c": "its C hot path", "pure": "pure-Python fallback (slower)"}.get(value, value)


def run_about(profile: Profile) -> str:
    """``host h  Python 3.11.7  gevent 26.9.0 (loop libev-cext)  2026-11-23 01:30 UTC``."""
    parts = []
    if meta_text(profile, "host"):
        parts.append(f"host {meta_text(profile, 'host')}")
    if meta_text(profile, "python"):
        parts.append(f"Python {meta_text(profile, 'python')}")
    if meta_text(profile, "gevent"):
        loop = meta_text(profile, "loop")
        parts.append(f"gevent {meta_text(profile, 'gevent')}" + (f" (loop {loop})" if loop else ""))
    when = run_date(profile)
    if when:
        parts.append(when)
    return "  ".join(parts)


def run_date(profile: Profile) -> str:
    for key in ("date", "started", "start_time", "started_at"):
        value = profile.meta.get(key)
        if isinstance(value, str) and value:
            return value.replace("T", " ").replace("Z", " UTC")[:40].strip()
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            import datetime
            try:
                stamp = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
            except (OverflowError, OSError, ValueError):
                continue
            return stamp.strftime("%Y-%m-%d %H:%M UTC")
    return ""


def loop_lines(profile: Profile) -> list[str]:
    """Loop utilization, hub idle and polls; the ready-wait distribution."""
    util = utilization(profile)
    idle = num(profile.hub, "idle_s")
    lines = []
    if util is not None:
        polls = num(profile.hub, "polls")
        lines.append(f"loop: busy {util:.1%} of the run (utilization: not idle in the poll); "
                     f"hub idle {format_seconds(idle)}"
                     + (f"; {polls:.0f} polls" if polls is not None else ""))
    else:
        lines.append("loop: utilization not measured (hub idle unknown in this profile)")
    latency = ready_latency(profile)
    if latency:
        lines.append(f"ready wait per wake-up (ready until it ran): "
                     f"p50 {format_seconds(num(latency, 'p50_s'))}, "
                     f"p99 {format_seconds(num(latency, 'p99_s'))}, "
                     f"max {format_seconds(num(latency, 'max_s'))} "
                     f"over {num(latency, 'n'):.0f} wake-ups")
    return lines


def hub_line(profile: Profile) -> str:
    """The hub's time as parts of a whole: idle apart, then work = CPU + blocked."""
    hub = profile.hub
    run, cpu, idle = num(hub, "run_s") or 0.0, num(hub, "cpu_s"), num(hub, "idle_s")
    if idle is None:
        return (f"hub: ran {format_seconds(run)} (CPU {format_seconds(cpu)}); "
                "idle not measured")
    work = max(run - idle, 0.0)
    if cpu is None:
        parts = "CPU not measured"
    elif cpu > work:  # the poll's own processing (events, callbacks) ran on the CPU too
        parts = f"CPU {format_seconds(cpu)}, the poll's own included"
    else:
        parts = f"CPU {format_seconds(cpu)} + blocked {format_seconds(work - cpu)}"
    return (f"hub: ran {format_seconds(run)} = idle in the poll {format_seconds(idle)} "
            f"+ working {format_seconds(work)} ({parts})")


def totals_line(profile: Profile) -> str:
    """The workers' time summed over greenlets, said to be a sum."""
    groups = greenlet_groups(profile)
    if not groups:
        return ""
    count = sum(g.n for g in groups)
    run = sum(g.run_s for g in groups)
    cpu = None if any(g.cpu_s is None for g in groups) else sum(g.cpu_s for g in groups)
    text = (f"greenlets ({count}, hub apart), summed over greenlets: run "
            f"{format_seconds(run)} (CPU {format_seconds(cpu)})")
    if has_split(profile.greenlets):
        event = sum(g.event_wait_s or 0.0 for g in groups)
        ready = sum(g.ready_wait_s or 0.0 for g in groups)
        text += f", event wait {format_seconds(event)}, ready wait {format_seconds(ready)}"
    else:
        text += f", wait {format_seconds(sum(g.wait_s for g in groups))}"
    return text + " (greenlet-seconds: 50 greenlets waiting 1 s together make 50 s)"


def gc_figures(profile: Profile) -> tuple[str, str] | None:
    """The cyclic garbage collector's time in the traced thread, and what it was made
    of; None if the profile has no collections recorded."""
    counts = profile.gc_collections()
    if not sum(counts):
        return None  # not recorded, none made, or not a profile this version wrote
    gc = profile.meta["gc"]
    longest_gen = gc.get("longest_generation")
    return (format_seconds(num(gc, "total_s")),
            f"{sum(counts)} collections ({by_generation(counts)}), longest "
            f"{format_seconds(num(gc, 'longest_s'))}"
            + (f" (generation {longest_gen})" if isinstance(longest_gen, int) else ""))


def gc_line(profile: Profile) -> str:
    figures = gc_figures(profile)
    return f"garbage collection: {figures[0]} in {figures[1]}" if figures else ""


def command_line(profile: Profile) -> str:
    """The command as the user typed it (meta "command"), else the traced argv."""
    command = profile.meta.get("command") or profile.meta.get("argv")
    if isinstance(command, list):
        command = " ".join(str(a) for a in command)
    return command if isinstance(command, str) else ""


def ranked_findings(profile: Profile) -> list[Finding]:
    """In the findings' own order (geventperf.findings.sort_findings): hazards first (a
    deadlock risk costs nothing until it hangs), then a critical path that held a
    quarter of the run, then by cost."""
    return sort_findings(profile.findings)


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


def is_hazard(finding: Finding) -> bool:
    return finding.extra.get("hazard") is True


# Which of its stories a finding of a kind that tells several is, for its title: readers
# skimming the kinds took "serial-bottleneck" for one slow consumer when its message
# told a batcher that lingers (two unseen testers).  The first flag set wins.
STORIES = {
    "serial-bottleneck": (("linger", "a batcher that lingers"),
                          ("result", "a result awaited together"),
                          ("gate", "a gate closed around each refresh"),
                          ("dealt_out", "work dealt out in advance"),
                          ("peers", "peers sharing a pool of items")),
    # the kind reads "make the pool larger" to a skimming reader; the tail's cure is not
    # (an unseen sync's stragglers, 2 % of its answers, 73 % of their time)
    "pool-full": (("slow_tail", "a slow tail"),
                  ("slept_in_slots", "jobs asleep in their slots"),
                  ("joined_in_slots", "jobs joining what they started"),
                  ("lingered_in_slots", "jobs waiting on a lingering batcher"),
                  ("paced_in_slots", "jobs waiting on a pacer"),
                  ("held_across_taken", "a connection held across other calls")),
    # a saturated loop whose lead is a call blocking the thread (a commit per record):
    # two unseen testers read the kind as a CPU problem, the message's fix
    # notwithstanding
    "loop-saturated": (("blocking_calls", "blocking calls"),),
    # the machine's kind read as "the host is overloaded" when the children the program
    # started per call were what held it off the CPU (an unseen certificate inventory's
    # openssl per certificate: its cause came in the message's third sentence)
    "cpu-starved": (("spawned_at", "its own child process per call"),),
    # the kind reads "use a faster encoder" when the whole document written again at
    # each change is the cause (an unseen moderation service's verdict store)
    "pure-python-fallback": (("saved_whole", "a whole document written per change"),),
    "lock-contended": (("permits_leaked", "permits leaked"),
                       ("rate_limit", "a rate limit"),
                       ("logging_lock", "a slow log handler"),
                       ("held_across_s", "held across waits")),
}


def story_of(finding: Finding) -> str | None:
    """The story of *finding* among its kind's (STORIES), from its extra's flags."""
    return next((story for flag, story in STORIES.get(finding.kind, ())
                 if finding.extra.get(flag)), None)


def _written_meaning(finding: Finding) -> str:
    """What *finding* says its cost counts (``extra["cost_meaning"]``); "" in a finding
    written before findings said so."""
    meaning = finding.extra.get("cost_meaning")
    return meaning if isinstance(meaning, str) else ""


def cost_meaning(finding: Finding) -> str:
    """``cost 31.4 s: time this cause added to the run, ...`` for every finding; a
    finding written before findings said so gets the generic meaning."""
    meaning = _written_meaning(finding) or (
        "seconds of wall time this finding explains (summed over the greenlets it "
        "touched, so it can exceed the run)")
    return f"cost {format_seconds(finding.cost_s)} = {meaning}"


# From this many times the run's length, a cost reads as greenlets that lost it all run
# long (a sum over many greenlets); under it, a cost of wall-clock seconds (one
# greenlet's, or the loop's) as a share of the run's length.
GREENLETS_FROM = 1.5


def cost_scale(profile: Profile, finding: Finding) -> str:
    """*finding*'s cost on the run's scale: "about 40 greenlets the whole run" (182
    greenlet-seconds over a 4.57 s run), "like one greenlet for 78% of the run" (a sum of
    greenlet-seconds under the run's length) or "31% of the run's length" (wall-clock
    seconds); "" when the run has no length.  Every unseen tester read "cost 182 s" on a
    4.6 s run as time a fix saves, even beside the note saying otherwise; this says what
    the figure amounts to.  (An unseen game lobby's handlers waited 3.3 greenlet-seconds
    on a 4.2 s run, told "78% of the run's length", which its tester read as wall time.)"""
    duration = profile.duration_s
    if not (isinstance(duration, (int, float)) and duration > 0) or not finding.cost_s > 0:
        return ""
    ratio = finding.cost_s / duration
    meaning = _written_meaning(finding) or COST_MEANING.get(finding.kind, "")
    summed = meaning.startswith("greenlet-seconds")
    if ratio >= GREENLETS_FROM or (summed and ratio >= 1):
        return f"about {ratio:.0f} greenlets the whole run" if ratio >= 10 \
            else f"about {ratio:.1f} greenlets the whole run"
    if summed:
        return f"like one greenlet for {max(ratio, 0.01):.0%} of the run"
    return f"{max(ratio, 0.01):.0%} of the run's length"


def cost_with_scale(profile: Profile, finding: Finding) -> str:
    """"182 s (about 40 greenlets the whole run)": the cost and its cost_scale."""
    scale = cost_scale(profile, finding)
    return format_seconds(finding.cost_s) + (f" ({scale})" if scale else "")


def meaning_in_message(finding: Finding) -> bool:
    """True when the message already says what its cost means (no second copy)."""
    meaning = _written_meaning(finding)
    return bool(meaning) and meaning in finding.message


def finding_place(profile: Profile, finding: Finding) -> str:
    names = greenlet_names(profile)
    where = []
    touched = finding.extra.get("greenlets")
    if isinstance(touched, int) and not isinstance(touched, bool) and touched > 1:
        named = finding.extra.get("names")
        label = ""
        if isinstance(named, dict) and named:
            top = max(named, key=lambda k: named[k] if isinstance(named[k], (int, float)) else 0)
            label = f" (mostly {top})" if len(named) > 1 else f" ({top})"
        where.append(f"{touched} greenlets{label}")
    elif finding.greenlet is not None:
        where.append(f"greenlet {names.get(finding.greenlet, '?')} (#{finding.greenlet})")
    if finding.section:
        where.append(f'section "{finding.section}"')
    return "  ".join(where)


# What the text report says after "FINDINGS: none": where the time went instead, from
# the HTML report's answers at a glance.
NO_FINDING_ANSWERS = ("I/O or queueing?", "Where was the waiting?", "Who held the loop?",
                      "Where did the CPU go?")


def _findings(profile: Profile) -> str:
    if not profile.findings:
        lines = ["FINDINGS: none (no cause this profiler knows of; where the time went:)"]
        for question, answer in at_a_glance(profile):
            if question in NO_FINDING_ANSWERS:
                lines.extend(textwrap.wrap(f"{question} {answer}", WIDTH,
                                           initial_indent=INDENT, subsequent_indent=INDENT))
        return "\n".join(lines)
    shown, folded = select_findings(profile)
    lines = [f"FINDINGS ({len(profile.findings)}, worst first)"]
    # (every unseen tester read "cost 84 s" on a 6 s run as run time a fix would save)
    note = ("A cost is greenlet-seconds: time summed over the greenlets that lost it, so it "
            f"can exceed the {format_seconds(profile.duration_s)} run (in brackets: how many "
            "greenlets losing it all run long that amounts to); costs rank the causes, "
            "they are not the run time a fix saves.")
    if any(f.extra.get("ranks_first") for f in shown):
        note += (" A critical-path cost is the exception: one greenlet alone, so wall-clock "
                 "time (a fix takes off what it makes overlap or skips); from a quarter of "
                 "the run it comes first.")
    lines.extend(textwrap.wrap(note, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT))
    for number, finding in enumerate(shown, start=1):
        story = story_of(finding)
        title = f"{number:>3}. {finding.kind}{f' ({story})' if story else ''}" \
                f"{'  HAZARD' if is_hazard(finding) else ''}  " \
                f"cost {cost_with_scale(profile, finding)}"
        place = finding_place(profile, finding)
        if len(title) + 2 + len(place) <= WIDTH:
            lines.append(f"{title}  {place}".rstrip())
        else:  # a long greenlet or section name gets a line of its own
            lines.extend([title, clip(INDENT + place, WIDTH)])
        lines.extend(textwrap.wrap(finding.message, WIDTH, initial_indent=INDENT,
                                   subsequent_indent=INDENT) or [INDENT + "(no message)"])
        if not meaning_in_message(finding):
            lines.extend(textwrap.wrap(cost_meaning(finding), WIDTH, initial_indent=INDENT,
                                       subsequent_indent=INDENT))
        # a stack that is only where the slices ended (a wait) says so: the reader
        # must not take it for where the time went
        first, rest = ("  slices ended at ", " " * 18) \
            if finding.extra.get("stack_is") == STACK_SLICE_END else ("       at ", " " * 10)
        stack = finding.stack
        for depth, entry in enumerate(stack[:FINDING_FRAMES]):
            lines.append(clip((rest if depth else first) + frame_label(entry), WIDTH))
        # the program's own line, where the fix goes, even when library frames bury it;
        # and when that is a helper module of the program's, the first caller in another
        # file of it (an unseen cart pricer's loop of one GET per item sat three frames
        # past its store client's read, cut off as "... 3 outer frames")
        shown = FINDING_FRAMES
        for at in _own_frames(stack):
            if at >= shown:
                if at > shown:
                    hidden = at - shown
                    what = "library frame" if all(is_library_frame(f) for f in
                                                  stack[shown:at]) else "frame"
                    lines.append(f"{rest}... {hidden} {what}{'s' if hidden > 1 else ''}")
                lines.append(clip(rest + frame_label(stack[at]), WIDTH))
                shown = at + 1
        if len(stack) > shown:
            outer = len(stack) - shown
            lines.append(f"{rest}... {outer} outer frame{'s' if outer > 1 else ''}")
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
        for index, (cell, width, align) in enumerate(zip(row, widths, table.align)):
            cut_left = table.cut_left and index == table.flex
            cell = clip_left(cell, width) if cut_left else clip(cell, width)
            out.append(cell.rjust(width) if align == "r" else
                       cell.center(width) if align == "c" else cell.ljust(width))
        return COLUMN_GAP.join(out).rstrip()

    lines = textwrap.wrap(table.title, WIDTH, subsequent_indent="  ") or [""]
    if table.note:
        lines.extend(textwrap.wrap(table.note, WIDTH, initial_indent="  ",
                                   subsequent_indent="  "))
    lines.append(line(table.columns))
    indent = sum(w + len(COLUMN_GAP) for w in widths[:table.flex]) + 2
    for index, row in enumerate(cells):
        lines.append(line(row))
        extra = table.subrows[index] if index < len(table.subrows) else ""
        if extra:
            lines.append(clip(" " * indent + extra, WIDTH))
    if table.hidden:
        lines.append(f"... and {table.hidden} more")
    return "\n".join(lines)
