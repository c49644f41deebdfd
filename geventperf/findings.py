"""Findings: pure functions from a Profile to things a person can act on.

Each function reads only the profile (its aggregates and ``events``, the raw
observations the tracer recorded for this purpose) and returns ``Finding`` objects;
:func:`compute` runs them all and sorts worst first (``cost_s``, the wall time the
finding explains).  Nothing here touches a tracer, a frame or a greenlet.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from geventperf.profile import Finding, Profile

BLOCKED_READ = "blocked-read-in-c-section"
DEADLOCK_RISK = "c-section-deadlock-risk"
LOOP_BLOCKED = "loop-blocked"
SWITCH_STORM = "switch-storm"
SMALL_BODY_READS = "small-body-reads"

# A switch costs ~1-10 us of hub round trip; below 1000 yields at one site that is at
# most a few ms of overhead, not worth a person's attention.
STORM_MIN_SWITCHES = 1000
# Under ~50 us of work between yields the switching dominates the work itself: the
# small-chunk read pattern (8 KiB recv() calls each finding the socket empty).
STORM_MAX_MEAN_RUN_S = 50e-6
# A loop-blocking slice is "a blocking call" rather than "CPU" when more than this
# share of its wall time was not spent on the CPU.
BLOCKING_SHARE = 0.5
# Body reads through urllib3 smaller than this on average are "small": requests' own
# piece is 10 KiB, lxml asks for a few KiB; GeventAdapter reads 512 KiB.
SMALL_READ_BYTES = 64 * 1024
# Fewer reads than this at one call site cost too little to report.
SMALL_READS_MIN = 100
# The tracer's default when a profile does not say (see Tracer(block_threshold=)).
DEFAULT_BLOCK_THRESHOLD_S = 0.05

# Frames that are machinery, skipped when naming the place a person should look at.
_MACHINERY = ("/gevent/", "/greenlet/", "/geventperf/")
# Frames that read from the network; the innermost one is "the read call site".
_READERS = ("/socket.py", "/ssl.py", "/http/client.py", "/urllib3/", "/requests/",
            "/geventperf/adapter.py", "/gevent/_socket", "/gevent/_ssl")


def compute(profile: Profile) -> list[Finding]:
    """All findings of *profile*, worst first."""
    out: list[Finding] = []
    for finder in FINDERS:
        out.extend(finder(profile))
    return sort_findings(out)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.cost_s, _KIND_ORDER.get(f.kind, 99), f.message))


def blocked_reads_in_c_sections(profile: Profile) -> list[Finding]:
    """A greenlet was switched out while inside a C section: a C parser read from a
    file-like object whose ``read()`` waited on the hub."""
    out = []
    for ev in _events(profile, "c-section-switch"):
        stack = list(ev.get("stack") or [])
        read_site = _read_site(stack)
        caller = _first_outside(stack, _MACHINERY + _READERS)
        section, count, wait = ev.get("section"), int(ev.get("count", 0)), _f(ev, "wait_s")
        message = (
            f"{_gname(profile, ev.get('greenlet'))} was switched out {count} time(s) inside "
            f"C section '{section}' and waited {wait:.3f} s there: the parser read its "
            f"input through {read_site or 'a Python read()'}"
            + (f" (parser called at {caller})" if caller else "")
            + ". Reading the network from inside a C parser blocks the parse on every "
            "packet (and can deadlock lxml). Read the body first, e.g. "
            "session.mount(..., geventperf.GeventAdapter()) and response.content, then "
            "parse the bytes (lxml.etree.fromstring(body), json.loads(body)).")
        out.append(Finding(kind=BLOCKED_READ, message=message, greenlet=ev.get("greenlet"),
                           section=section, stack=stack, cost_s=wait,
                           extra={"count": count, "wait_s": wait, "read_site": read_site,
                                  "caller": caller, "file_like": bool(ev.get("file_like")),
                                  "fix": "read the body first, then parse bytes"}))
    return out


def deadlock_risks(profile: Profile) -> list[Finding]:
    """Two greenlets inside ``lxml.etree.parse(fileobj)`` at once."""
    groups: dict[tuple[Any, Any, bool], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "lxml-concurrent-parse"):
        groups[(ev.get("greenlet"), ev.get("other"), bool(ev.get("guarded")))].append(ev)
    out = []
    for (gid, other, guarded), evs in groups.items():
        stack = list(evs[0].get("stack") or [])
        where = _first_outside(stack, _MACHINERY) or (stack[0] if stack else "?")
        outcome = ("Tracer(lxml_guard=True) gave the second parse its own parser, so it "
                   "did not deadlock; without the guard it would have" if guarded else
                   "this deadlocks the thread on lxml's per-thread parser lock (an OS lock "
                   "gevent does not patch)")
        message = (
            f"{_gname(profile, gid)} entered lxml.etree.parse(<file-like>) at {where} while "
            f"{_gname(profile, other)} was suspended inside one ({len(evs)} time(s)): "
            f"{outcome}. Fix: read the body first and parse bytes "
            "(lxml.etree.fromstring(response.content)), or pass a parser per call "
            "(lxml.etree.parse(f, lxml.etree.XMLParser())).")
        out.append(Finding(kind=DEADLOCK_RISK, message=message, greenlet=gid,
                           section=evs[0].get("section"), stack=stack,
                           cost_s=0.0 if guarded else profile.duration_s,
                           extra={"count": len(evs), "other_greenlet": other,
                                  "guarded": guarded}))
    return out


def loop_blocked(profile: Profile) -> list[Finding]:
    """Run slices longer than the block threshold, grouped by where they ended."""
    threshold = _f(profile.meta, "block_threshold_s", DEFAULT_BLOCK_THRESHOLD_S)
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "blocked-slice"):
        groups[tuple(ev.get("stack") or ())].append(ev)
    out = []
    for stack, evs in groups.items():
        worst = max(evs, key=lambda e: _f(e, "run_s"))
        run = sum(_f(e, "run_s") for e in evs)
        cpus = [e.get("cpu_s") for e in evs]
        cpu = None if any(c is None for c in cpus) else sum(float(c) for c in cpus)
        blocking = None if cpu is None else max(0.0, run - cpu)
        where = _first_outside(list(stack), _MACHINERY) or (stack[0] if stack else "?")
        if blocking is None:
            cause = ("CPU or a blocking call cannot be told apart (cpu_clock=False)")
            fix = "profile with cpu_clock=True to tell CPU from blocking calls"
        elif blocking > BLOCKING_SHARE * run:
            cause = (f"{blocking:.3f} s of it was off the CPU: a non-cooperative blocking "
                     "call (unpatched time.sleep, file or DNS I/O, a C library doing its "
                     "own network I/O)")
            fix = ("monkey-patch early (gevent.monkey.patch_all()) or run the call in "
                   "gevent.get_hub().threadpool")
        else:
            cause = f"{cpu:.3f} s of it was CPU work that never yielded"
            fix = ("split the work, yield with gevent.sleep(0) between pieces, or move it "
                   "to a process pool")
        message = (
            f"{_gname(profile, worst.get('greenlet'))} blocked the event loop for "
            f"{_f(worst, 'run_s'):.3f} s without yielding"
            + (f" ({len(evs)} slices over {threshold:g} s, {run:.3f} s in total)"
               if len(evs) > 1 else "")
            + f"; the slice ended at {where}. {cause[0].upper()}{cause[1:]}. "
            f"Every other greenlet waited meanwhile. Fix: {fix}.")
        out.append(Finding(kind=LOOP_BLOCKED, message=message, greenlet=worst.get("greenlet"),
                           section=worst.get("section"), stack=list(stack), cost_s=run,
                           extra={"count": len(evs), "run_s": run, "cpu_s": cpu,
                                  "blocking_s": blocking,
                                  "longest_s": _f(worst, "run_s"),
                                  "threshold_s": threshold,
                                  "cause": "unknown" if blocking is None else
                                  ("blocking-call" if blocking > BLOCKING_SHARE * run
                                   else "cpu")}))
    return out


def switch_storms(profile: Profile) -> list[Finding]:
    """One call site yielding very often with tiny work between yields."""
    waits = {tuple(w.stack): w for w in profile.waits}
    out = []
    for r in profile.runs:
        if r.count < STORM_MIN_SWITCHES or not r.stack or r.stack[0].startswith("<"):
            continue
        mean_run = r.run_s / r.count
        if mean_run >= STORM_MAX_MEAN_RUN_S:
            continue
        w = waits.get(tuple(r.stack))
        wait = w.wait_s if w is not None else 0.0
        site = _read_site(r.stack) or _first_outside(r.stack, _MACHINERY) or r.stack[0]
        caller = _first_outside(r.stack, _MACHINERY + _READERS)
        message = (
            f"{r.count} switch-outs at {site}"
            + (f" (called from {caller})" if caller and caller != site else "")
            + f" with {mean_run * 1e6:.1f} us of work between them on average; greenlets "
            f"waited {wait:.3f} s after yielding there. This is the small-chunk read "
            "pattern: each small read finds the socket empty and goes through the hub. "
            "Read in large pieces (geventperf.GeventAdapter, default 512 KiB reads) "
            "instead of many small read()/iter_content() calls.")
        out.append(Finding(kind=SWITCH_STORM, message=message, greenlet=None, section=None,
                           stack=list(r.stack), cost_s=wait,
                           extra={"count": r.count, "mean_run_s": mean_run, "wait_s": wait,
                                  "run_s": r.run_s, "site": site,
                                  "min_switches": STORM_MIN_SWITCHES,
                                  "max_mean_run_s": STORM_MAX_MEAN_RUN_S}))
    return out


def small_body_reads(profile: Profile) -> list[Finding]:
    """Response bodies read through urllib3 in many small pieces (requests' default
    ``.content``, or a parser pulling from ``response.raw``)."""
    out = []
    for ev in _events(profile, "body-reads"):
        reads, nbytes = int(ev.get("reads", 0)), int(ev.get("bytes", 0))
        if reads < SMALL_READS_MIN or nbytes / reads >= SMALL_READ_BYTES:
            continue
        bodies, seconds = max(1, int(ev.get("bodies", 0))), _f(ev, "read_s")
        site = str(ev.get("site", "?"))
        message = (
            f"{bodies} response bodies ({nbytes / 2**20:.1f} MiB) were read in {reads} "
            f"reads of {nbytes / reads / 1024:.1f} KiB on average ({reads / bodies:.0f} per "
            f"body) through urllib3's HTTPResponse.read, called from {site}; "
            f"{seconds:.3f} s (summed over greenlets) were spent inside them. Each read "
            "is a trip through "
            "requests, urllib3 and http.client, and under gevent each one that finds "
            "the socket empty waits on the hub. Read bodies in large pieces: "
            "geventperf.mount(session) (512 KiB reads, Content-Length bodies into one "
            "buffer), then parse the bytes.")
        out.append(Finding(kind=SMALL_BODY_READS, message=message, stack=[site],
                           cost_s=seconds,
                           extra={"reads": reads, "bytes": nbytes, "bodies": bodies,
                                  "read_s": seconds, "site": site,
                                  "mean_read_bytes": nbytes / reads,
                                  "small_read_bytes": SMALL_READ_BYTES}))
    return out


FINDERS: tuple[Callable[[Profile], list[Finding]], ...] = (
    deadlock_risks, blocked_reads_in_c_sections, loop_blocked, switch_storms,
    small_body_reads)
_KIND_ORDER = {DEADLOCK_RISK: 0, BLOCKED_READ: 1, SMALL_BODY_READS: 2, LOOP_BLOCKED: 3,
               SWITCH_STORM: 4}


# -- helpers ------------------------------------------------------------------------

def _events(profile: Profile, kind: str) -> list[dict[str, Any]]:
    return [e for e in profile.events if isinstance(e, dict) and e.get("kind") == kind]


def _f(obj: dict[str, Any], key: str, default: float = 0.0) -> float:
    value = obj.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else default


def _gname(profile: Profile, gid: Any) -> str:
    g = profile.greenlet(gid) if isinstance(gid, int) else None
    return f"greenlet '{g.name}' (#{gid})" if g is not None else f"greenlet #{gid}"


def _read_site(stack: list[str]) -> str | None:
    """The outermost network-reading frame before the caller's own code: the call a
    person recognises (``urllib3 ... read``, ``http/client.py ... readinto``)."""
    site = None
    for entry in stack:  # innermost first
        path = entry.replace("\\", "/")
        if any(r in path for r in _READERS):
            site = entry
        elif site is not None and not any(m in path for m in _MACHINERY):
            break
    return site


def _first_outside(stack: list[str], skip: tuple[str, ...]) -> str | None:
    for entry in stack:
        path = entry.replace("\\", "/")
        if not any(s in path for s in skip) and not entry.startswith("<"):
            return entry
    return None
