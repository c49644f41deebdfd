"""The report's tables as plain rows of display strings, shared by text and html.

Each table keeps its worst rows (the limits below) and remembers how many it had, so
both renderers can say "... and K more" instead of silently dropping rows.  Every
table says what its figures are and what its total means: most are greenlet-seconds
summed over many greenlets, which can exceed the run's wall time many times over.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from geventperf.findings.common import folded_split
from geventperf.findings.connections import made_again
from geventperf.formats._fields import has_blame, has_split, num
from geventperf.formats._frames import (
    clip_left,
    display_name,
    format_bytes,
    format_seconds,
    frame_label,
    hub_ids,
)
from geventperf.frames import is_idle_server_wait, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows, status_pairs
from geventperf.profile import LOCK_CALLS, Profile

# Enough rows to find the culprit without scrolling a terminal's worth of noise.
MAX_GREENLETS = 20
MAX_SECTIONS = 20
MAX_WAIT_SITES = 10
MAX_HOLDERS = 10
MAX_READ_HOSTS = 10
MAX_POOL_HOSTS = 10
# Greenlet names are cut (from the left) to this in the 100-column text report, so the
# "#id" that tells two "worker"s apart survives; the HTML report has room for more.
NAME_CHARS = 28

SUMMED = ("Figures are greenlet-seconds summed over the group's greenlets: 50 greenlets "
          "waiting together for 1 s make 50 s.")
GLOSSARY = ("run = CPU + blocked (off the CPU while running: the whole loop stalled); "
            "event wait = waiting for I/O, a timer or a lock; ready wait = ready to run "
            "but queued while others held the loop; delayed others = others' ready wait "
            "while this one ran.")


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
    # What the figures mean and what the total is: printed under the title.
    note: str = ""
    # Cut the flexible column from the left: the tail of a dotted greenlet name is the
    # function, the part that tells rows apart.
    cut_left: bool = False
    # Per row, a continuation printed under the flexible column (text report only):
    # the library call beside the user's line, which a 100-column row has no room for.
    subrows: list[str] = field(default_factory=list)

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


def _fs(value: float | None) -> str:
    return format_seconds(value)


def _blocked(run: float, cpu: float | None) -> float | None:
    return None if cpu is None else max(run - cpu, 0.0)


@dataclass
class Group:
    """Greenlets that share a name, summed."""

    name: str
    ids: list[int] = field(default_factory=list)
    run_s: float = 0.0
    cpu_s: float | None = 0.0
    wait_s: float = 0.0
    event_wait_s: float | None = 0.0
    ready_wait_s: float | None = 0.0
    delayed_others_s: float | None = 0.0
    switches: int = 0
    longest_run_s: float = 0.0
    first_start_s: float = float("inf")
    # the greenlets it stands for: a folded entry ("[40 finished greenlets folded]")
    # counts as its 40
    n: int = 0

    @property
    def cost_s(self) -> float:
        """What the group cost the run: its own time (run + wait) plus the ready wait
        it caused others; the lanes and tables are ordered by it."""
        return self.run_s + self.wait_s + (self.delayed_others_s or 0.0)

    @property
    def label(self) -> str:
        return f"{self.name} #{self.ids[0]}" if self.n == 1 else self.name


def _add(total: float | None, value: float | None) -> float | None:
    return None if total is None or value is None else total + value


def greenlet_groups(profile: Profile) -> list[Group]:
    """The traced greenlets (not the hub) grouped by display name, costliest first."""
    hubs = hub_ids(profile)
    groups: dict[str, Group] = {}
    for g in profile.greenlets:
        if g.id in hubs:
            continue
        base, stands = folded_split(g.name)
        name = display_name(base) or f"greenlet-{g.id}"
        group = groups.setdefault(name, Group(name))
        group.ids.append(g.id)
        group.n += stands
        group.run_s += g.run_s
        group.cpu_s = _add(group.cpu_s, g.cpu_s)
        group.wait_s += g.wait_s
        group.event_wait_s = _add(group.event_wait_s, num(g, "event_wait_s"))
        group.ready_wait_s = _add(group.ready_wait_s, num(g, "ready_wait_s"))
        group.delayed_others_s = _add(group.delayed_others_s, num(g, "delayed_others_s"))
        group.switches += g.switches
        group.longest_run_s = max(group.longest_run_s, g.longest_run_s)
    return sorted(groups.values(), key=lambda grp: (-grp.cost_s, grp.name))


def greenlet_table(profile: Profile, limit: int = MAX_GREENLETS,
                   name_chars: int = NAME_CHARS) -> Table | None:
    groups = greenlet_groups(profile)
    if not groups:
        return None
    split, blame = has_split(profile.greenlets), has_blame(profile.greenlets)
    columns = ["greenlet (group)", "n", "CPU", "blocked"]
    columns += ["event wait", "ready wait"] if split else ["wait"]
    columns += ["delayed others"] if blame else []
    columns += ["switches", "longest"]
    rows = []
    for grp in groups[:limit]:
        row = [clip_left(grp.label, name_chars), str(grp.n), _fs(grp.cpu_s),
               _fs(_blocked(grp.run_s, grp.cpu_s))]
        row += [_fs(grp.event_wait_s), _fs(grp.ready_wait_s)] if split else [_fs(grp.wait_s)]
        row += [_fs(grp.delayed_others_s)] if blame else []
        row += [str(grp.switches), _fs(grp.longest_run_s)]
        rows.append(row)
    traced = sum(grp.n for grp in groups)
    return Table(f"GREENLETS by name ({traced} in {len(groups)} groups, hub apart; costliest "
                 "first: run + wait + delayed others)",
                 columns, "lr" + "r" * (len(columns) - 2), 0, rows, len(groups),
                 note=f"{SUMMED} {GLOSSARY} longest = the group's longest single run slice.",
                 cut_left=True)


def section_table(profile: Profile, limit: int = MAX_SECTIONS) -> Table | None:
    if not profile.sections:
        return None
    ranked = sorted(profile.sections, key=lambda s: s.wall_s, reverse=True)
    split, blame = has_split(profile.sections), has_blame(profile.sections)
    columns = ["section", "C?", "calls", "wall", "CPU", "blocked"]
    columns += ["event wait", "ready wait"] if split else ["wait"]
    columns += ["delayed others"] if blame else []
    columns += ["switches"]
    rows = []
    for s in ranked[:limit]:
        row = [s.name, "C" if s.c else "", str(s.calls), _fs(s.wall_s), _fs(s.cpu_s),
               _fs(_blocked(s.run_s, s.cpu_s))]
        row += [_fs(num(s, "event_wait_s")), _fs(num(s, "ready_wait_s"))] if split \
            else [_fs(s.wait_s)]
        row += [_fs(num(s, "delayed_others_s"))] if blame else []
        row += [str(s.switches)]
        rows.append(row)
    return Table("SECTIONS (C = a C call expected never to yield)", columns,
                 "lcr" + "r" * (len(columns) - 3), 0, rows, len(ranked),
                 note="Figures are summed over every call of the section, by every "
                      "greenlet (greenlet-seconds); wall = run + wait.")


# The key of a site's own line in Site.libraries: the stack ended in the user's frame,
# so what it waited in left no Python frame (gevent's locks, events and queues are C).
SELF = ""
# How the waits of server connections for their client's next request are shown.
IDLE_SITE = "(idle: server connections awaiting a request)"


@dataclass
class Site:
    """Stacks merged at the user's frame."""

    user: str | None
    count: int = 0
    seconds: float = 0.0
    idle: bool = False  # server connections waiting for their next request (frames.py)
    event_s: float | None = 0.0
    ready_s: float | None = 0.0
    cpu_s: float | None = 0.0
    delayed_s: float | None = 0.0
    # library frame -> seconds through it, to name the biggest
    libraries: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    yields: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # the waits' StackTime.call -> seconds, of the waits in the user's line itself
    self_calls: dict[str | None, float] = field(default_factory=lambda: defaultdict(float))

    def self_text(self) -> str:
        """What the line itself waited in (gevent's locks, events and queues are C):
        told by its most waited call where the bytecode said."""
        call = max(self.self_calls.items(), key=lambda kv: kv[1])[0] if self.self_calls \
            else None
        if call in LOCK_CALLS:
            return "taking a gevent lock or semaphore"
        if call is not None:
            return f"its {call}() call: a gevent event, queue, lock or greenlet"
        return "a gevent lock, event or queue"

    def library_text(self) -> str:
        if not self.libraries:
            return "(your own code yielded)"
        ranked = sorted(self.libraries.items(), key=lambda kv: -kv[1])
        others = f"  (+{len(ranked) - 1} other library calls)" if len(ranked) > 1 else ""
        if ranked[0][0] == SELF:
            return f"(mostly this line itself: {self.self_text()})" + others
        text = frame_label(ranked[0][0])
        inner = max(self.yields.items(), key=lambda kv: kv[1])[0] if self.yields else None
        if inner and inner != ranked[0][0]:
            text += f"  ->  {frame_label(inner)}"
        return text + others

    def user_text(self) -> str:
        if self.idle:
            return IDLE_SITE
        return frame_label(self.user) if self.user else "(no frame of yours recorded)"


def merge_sites(items: list[Any], weight: str) -> list[Site]:
    """*items* (StackTime) merged by their user frame, heaviest (by *weight*) first."""
    sites: dict[str | None, Site] = {}
    for item in items:
        where = user_site(item.stack)
        if weight == "wait" and is_idle_server_wait(item.stack):
            # one row of their own: merged by their innermost frame (a socket read),
            # they would hide among the waits that did make requests slow
            site = sites.setdefault(IDLE_SITE, Site(None, idle=True))
        else:
            key = where.user if where.user else (where.innermost or "")
            site = sites.setdefault(key, Site(where.user))
        site.count += item.count
        seconds = item.wait_s if weight == "wait" else item.run_s
        site.seconds += seconds
        site.event_s = _add(site.event_s, num(item, "event_wait_s"))
        site.ready_s = _add(site.ready_s, num(item, "ready_wait_s"))
        site.cpu_s = _add(site.cpu_s, item.cpu_s)
        site.delayed_s = _add(site.delayed_s, num(item, "delayed_others_s"))
        site.libraries[where.library or SELF] += seconds
        if where.library is None:
            site.self_calls[getattr(item, "call", None)] += seconds
        if where.innermost and where.innermost != where.user:
            site.yields[where.innermost] += seconds
    key = (lambda s: -s.seconds) if weight == "wait" else (lambda s: -(s.delayed_s or 0.0))
    return sorted(sites.values(), key=key)


def wait_site_table(profile: Profile, limit: int = MAX_WAIT_SITES,
                    joined: bool = True) -> Table | None:
    """Waits by the user's frame.  *joined*: one column "your code -> library call"
    (the 100-column text report); else two columns (HTML)."""
    if not profile.waits:
        return None
    sites = merge_sites(profile.waits, "wait")
    split = has_split(profile.waits)
    total = sum(s.seconds for s in sites)
    columns = ["wait"] + (["event wait", "ready wait"] if split else []) + ["count"]
    columns += ["your code (-> the library call it made -> where it yielded)"] if joined \
        else ["your code", "library call it made (->  where it yielded)"]
    rows, subrows = [], []
    for s in sites[:limit]:
        row = [_fs(s.seconds)] + ([_fs(s.event_s), _fs(s.ready_s)] if split else [])
        row.append(str(s.count))
        if joined:
            lib = s.library_text()
            row.append(s.user_text())
            subrows.append(lib if lib.startswith("(mostly") else
                           "" if lib.startswith("(") else "-> " + lib)
        else:
            row += [s.user_text(), s.library_text()]
        rows.append(row)
    stacks = len(profile.waits)
    return Table(f"TOP WAIT SITES by your code ({_fs(total)} of waiting over {len(sites)} "
                 f"sites from {stacks} stacks)",
                 columns, "r" * (len(columns) - (1 if joined else 2)) + ("l" if joined else "ll"),
                 len(columns) - 1, rows, len(sites), subrows=subrows,
                 note=f"The total {_fs(total)} is greenlet-seconds: every wait of every "
                      f"greenlet added up, so it can exceed the {_fs(profile.duration_s)} "
                      "run many times. \"Your code\" is the innermost frame outside gevent, "
                      "greenlet, urllib3, requests, http.client, ssl and socket: the line "
                      "you can change; rows with the same line are merged.")


def holder_table(profile: Profile, limit: int = MAX_HOLDERS) -> Table | None:
    """Who held the loop: run slices by where they ended, by others' ready wait."""
    if not profile.runs or not has_blame(profile.runs):
        return None
    sites = [s for s in merge_sites(profile.runs, "run") if (s.delayed_s or 0.0) > 0]
    if not sites:
        return None
    total = sum(s.delayed_s or 0.0 for s in sites)
    rows = [[_fs(s.delayed_s), _fs(s.seconds), _fs(s.cpu_s), str(s.count), s.user_text()]
            for s in sites[:limit]]
    subrows = ["" if s.library_text().startswith("(") else "-> " + s.library_text()
               for s in sites[:limit]]
    return Table(f"WHO HELD THE LOOP (others' ready wait while these ran: {_fs(total)})",
                 ["delayed others", "run", "CPU", "slices", "your code where the slice "
                  "ended"], "rrrrl", 4, rows, len(sites), subrows=subrows,
                 note="delayed others = greenlet-seconds other greenlets spent ready but "
                      "queued while a slice ending here ran (10 greenlets kept waiting "
                      "10 ms = 100 ms).")


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
                 "lrrrrrr", 0, rows, len(ranked),
                 note="wall is summed over bodies (read side by side, so it can exceed "
                      "the run).")


def pool_table(profile: Profile, limit: int = MAX_POOL_HOSTS) -> Table | None:
    """urllib3's connection pools by host (the pool watch's events), most requests
    first; None when the profile has none."""
    hosts = [e for e in profile.events if isinstance(e, dict)
             and e.get("kind") == POOL_EVENT and isinstance(e.get("pool"), str)]
    if not hosts:
        return None

    def requests(e: dict[str, Any]) -> float:
        # as the callers saw them; the checkouts in profiles written before calls were
        return _number(e.get("calls")) if "calls" in e else _number(e.get("checkouts"))

    def besides(e: dict[str, Any]) -> str:
        """urllib3's tries past the first inside the calls, and the error answers."""
        extra = _number(e.get("checkouts")) - requests(e)
        statuses, retried = _statuses(e.get("statuses")), _statuses(e.get("retried"))
        parts = ([f"retried {extra:.0f} (urllib3's Retry"
                  + (f", after {retried})" if retried else ")")]
                 if "calls" in e and extra > 0 else []) \
            + ([f"error answers {statuses}"] if statuses else [])
        # a proxy's pool: the host column is the proxy, not where the requests went
        if isinstance(e.get("proxy"), str):
            parts.append(f"through the proxy {e['proxy']} to {_counted(e.get('proxied'))}")
        if _number(e.get("redirects")) > 0:
            parts.append(f"redirects {_number(e['redirects']):.0f} to "
                         f"{_counted(e.get('redirected_to'))}")
        return "; ".join(parts)

    ranked = sorted(hosts, key=lambda e: -requests(e))
    def size(e: dict[str, Any]) -> str:
        """pool_maxsize; ``4-10`` for a host whose pools keep different sizes."""
        if "maxsize" not in e:
            return ""
        smallest, largest = _number(e.get("minsize")), _number(e["maxsize"])
        return f"{smallest:.0f}-{largest:.0f}" if 0 < smallest < largest else f"{largest:.0f}"

    rows = [[e["pool"], f"{requests(e):.0f}"]
            + [f"{_number(e[key]):.0f}" if key in e else "" for key in ("failed", "pools")]
            + [size(e)]
            + [f"{_number(e[key]):.0f}" if key in e else "" for key in
               ("peak_in_use", "opened")]
            + [f"{made_again(e)}" if isinstance(e.get("trails"), dict) else ""]
            + [f"{_number(e[key]):.0f}" if key in e else "" for key in
               ("discarded", "unreturned")]
            for e in ranked[:limit]]
    return Table("HTTP CONNECTION POOLS by host (urllib3's, while tracing)",
                 ["host", "requests", "failed", "pools", "size", "peak", "opened",
                  "made again", "discarded", "left out"],
                 "lrrrrrrrrr", 0, rows, len(ranked),
                 subrows=[besides(e) for e in ranked[:limit]],
                 note="requests as their callers saw them (under a host: urllib3's "
                      "attempts past the first inside them, its Retry, and the answers "
                      "with a status of 400 or more, status x count: a 503 raises "
                      "nothing); failed = raised instead of answering; pools = pool "
                      "objects seen (one per Session or adapter); size = pool_maxsize; "
                      "peak = connections "
                      "checked out at most at once; opened = connections the pools made; "
                      "made again = connected anew in a pooled connection the server (or a "
                      "Connection: close) had closed, counted from the responses timed on "
                      "new connections; "
                      "discarded = closed because they came back to a full pool; left out = "
                      "still checked out when tracing stopped (or at the snapshot).")


# Error statuses written under a host in the pools table, most first.
STATUSES_SHOWN = 4


def _counted(rows: Any) -> str:
    """``http://a:80 x12, http://b:80 x3`` from an event's ``[origin, count]`` rows (the
    first STATUSES_SHOWN; malformed ones skipped)."""
    return ", ".join(f"{key} x{n}" for key, n in count_rows(rows)[:STATUSES_SHOWN]) or "?"


def _statuses(pairs: Any) -> str:
    """``503x170 500x3`` from a pool event's ``statuses`` pairs (malformed ones skipped)."""
    return " ".join(f"{status}x{n}" for status, n in status_pairs(pairs)[:STATUSES_SHOWN])


def all_tables(profile: Profile) -> list[Table]:
    tables = [greenlet_table(profile), holder_table(profile), section_table(profile),
              wait_site_table(profile), read_table(profile), pool_table(profile)]
    return [t for t in tables if t is not None]


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)
