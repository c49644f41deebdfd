"""Findings: pure functions from a Profile to causes a person can act on.

Each finder reads only the profile (its aggregates and ``events``, the raw
observations the tracer recorded for this purpose) and returns ``Finding`` objects;
nothing here touches a tracer, a frame or a greenlet.

**One finding per cause.**  Observations of one cause are merged across the greenlets
they touched (by kind, section and the user's call site); the finding says how many
greenlets, under which names, with a figure per name.

**One cost unit.**  ``cost_s`` is the time the cause added to the run, in
greenlet-seconds: summed over the greenlets that lost it, so it can exceed the run's
wall time (ten greenlets held up 0.3 s each cost 3 greenlet-seconds).  What each kind
counts is written in ``extra["cost_meaning"]`` and in its message; none counts the
queueing that *other* causes made (the wait split of ``geventperf.trace.waits``).

**Order.**  Hazards (a deadlock risk, guarded or not) come first, then cost, largest
first; ties by kind, then by message, so the order is total.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

BLOCKED_READ = "blocked-read-in-c-section"
DEADLOCK_RISK = "c-section-deadlock-risk"
LOOP_BLOCKED = "loop-blocked"
BLOCKING_CALL = "blocking-call"
LOOP_SATURATED = "loop-saturated"
SWITCH_STORM = "switch-storm"
SMALL_BODY_READS = "small-body-reads"
THREADPOOL_SATURATED = "threadpool-saturated"
HAZARDS = frozenset({DEADLOCK_RISK})

COST_MEANING = {
    DEADLOCK_RISK: "a hazard, ranked above every cost; the figure is how long the parses "
                   "involved were suspended inside lxml (greenlet-seconds)",
    BLOCKED_READ: "greenlet-seconds spent suspended inside the C section waiting for its "
                  "input (event wait; queueing behind other greenlets not counted)",
    LOOP_BLOCKED: "greenlet-seconds other greenlets spent ready to run but held up by "
                  "these slices",
    BLOCKING_CALL: "greenlet-seconds other greenlets spent ready to run but held up while "
                   "the call blocked the thread",
    LOOP_SATURATED: "greenlet-seconds greenlets spent ready to run but queued behind others "
                    "(all the run's ready wait)",
    SWITCH_STORM: "seconds of loop time spent switching: switch-outs times the hub's mean "
                  "time per switch",
    SMALL_BODY_READS: "seconds the reading greenlets spent inside the reads, network waits "
                      "left out (a large read waits for the network as long)",
}

# A switch costs ~1-10 us of hub round trip; below 1000 yields at one site that is at
# most a few ms of overhead, not worth a person's attention.
STORM_MIN_SWITCHES = 1000
# Under ~50 us of work between yields the switching dominates the work itself.
STORM_MAX_MEAN_RUN_S = 50e-6
# A loop-blocking slice is "a blocking call" rather than "CPU" when more than this
# share of its wall time was off the CPU (and not waiting for a CPU: see runqueue_s).
BLOCKING_SHARE = 0.5
# Long slices are a finding only when others lost at least one block threshold
# (greenlet-seconds) to them: the threshold is what the user calls "long enough to
# matter", and a long slice while nothing else could run (start-up, a lone greenlet)
# hurt nobody.
# The loop is saturated when it was busy (not idle in the poll) at least this share of
# the run (not 0.9 or more: a run that alternates saturated and quiet stretches is idle
# in the quiet ones, and its saturated stretch still deserves the finding), ready wait
# is the larger part of all waiting,
SATURATED_UTILIZATION = 0.75
# and on average at least one greenlet stood in the ready queue (ready greenlet-seconds
# per second of the run): with fewer, the loop is busy but nobody queues for long.
SATURATED_MIN_QUEUE = 1.0
# Holders named in a loop-saturated finding.
TOP_HOLDERS = 3
# Body reads through urllib3 smaller than this on average are "small": requests' own
# piece is 10 KiB, lxml asks for a few KiB; GeventAdapter reads 512 KiB.
SMALL_READ_BYTES = 64 * 1024
# Fewer reads than this at one call site cost too little to report.
SMALL_READS_MIN = 100
# The tracer's default when a profile does not say (see Tracer(block_threshold=)).
DEFAULT_BLOCK_THRESHOLD_S = 0.05

# Paths of frames that read from the network; the outermost run of them before the
# user's code is "the read call site" a person recognises.
_READERS = ("/socket.py", "/ssl.py", "/http/client.py", "/urllib3/", "/requests/",
            "/geventperf/adapter.py", "/gevent/_socket", "/gevent/_ssl")


def compute(profile: Profile) -> list[Finding]:
    """All findings of *profile*, hazards first, then by cost."""
    out: list[Finding] = []
    for finder in FINDERS:
        out.extend(finder(profile))
    return sort_findings(out)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (not f.extra.get("hazard", f.kind in HAZARDS),
                                           -f.cost_s, _KIND_ORDER.get(f.kind, 99), f.message))


def _finding(kind: str, message: str, cost: float, stack: list[str], **extra: Any) -> Finding:
    greenlet, section = extra.pop("greenlet", None), extra.pop("section", None)
    extra.setdefault("cost_meaning", COST_MEANING.get(kind, ""))
    extra.setdefault("hazard", kind in HAZARDS)
    return Finding(kind=kind, message=f"{message} [cost {cost:.3f} s: "
                   f"{extra['cost_meaning']}]", greenlet=greenlet, section=section,
                   stack=list(stack), cost_s=cost, extra=extra)


# -- hazards ----------------------------------------------------------------------------

def deadlock_risks(profile: Profile) -> list[Finding]:
    """Two greenlets inside ``lxml.etree.parse(fileobj)`` with one parser lock."""
    groups: dict[tuple[Any, bool], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "lxml-concurrent-parse"):
        where = user_site(list(ev.get("stack") or [])).user
        groups[(where, bool(ev.get("guarded")))].append(ev)
    suspended = {(e.get("section"), e.get("greenlet")): _f(e, "wait_s")
                 for e in _events(profile, "c-section-switch")}
    out = []
    for (where, guarded), evs in groups.items():
        gids = sorted({e.get("greenlet") for e in evs} | {e.get("other") for e in evs},
                      key=str)
        cost = sum(suspended.get((evs[0].get("section"), g), 0.0) for g in gids)
        outcome = ("the process stayed alive only because Tracer(lxml_guard=True) gave the "
                   "second parse a parser of its own: without the guard this thread "
                   "deadlocks on lxml's parser lock (an OS lock gevent does not patch)"
                   if guarded else "this deadlocks the thread on lxml's parser lock (an OS "
                   "lock gevent does not patch)")
        message = (
            f"{_names(profile, gids)} entered lxml.etree.parse(<file-like>) at "
            f"{where or '?'} while another was suspended inside one with the same parser "
            f"({len(evs)} time(s)): {outcome}. Fix the code before the guard is turned "
            "off: read the body first and parse bytes (lxml.etree.fromstring("
            "response.content)), or pass a parser per call (lxml.etree.parse(f, "
            "lxml.etree.XMLParser())).")
        out.append(_finding(DEADLOCK_RISK, message, cost, list(evs[0].get("stack") or []),
                            greenlet=evs[0].get("greenlet"), section=evs[0].get("section"),
                            count=len(evs), other_greenlet=evs[0].get("other"),
                            guarded=guarded, greenlets=len(gids)))
    return out


# -- waiting inside C -------------------------------------------------------------------

def blocked_reads_in_c_sections(profile: Profile) -> list[Finding]:
    """Greenlets switched out inside a C section: a C parser read from a file-like
    object whose ``read()`` waited on the hub.  One finding per section and caller."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "c-section-switch"):
        caller = user_site(list(ev.get("stack") or [])).user
        groups[(ev.get("section"), caller)].append(ev)
    out = []
    for (section, caller), evs in groups.items():
        # Event wait where the profile has the split; the whole wait in older ones.
        waits = {id(e): _f(e, "event_wait_s", _f(e, "wait_s")) for e in evs}
        worst = max(evs, key=lambda e: waits[id(e)])
        cost = sum(waits.values())
        count = sum(int(e.get("count", 0)) for e in evs)
        stack = list(worst.get("stack") or [])
        read_site = _read_site(stack)
        message = (
            f"{_names(profile, [e.get('greenlet') for e in evs])} "
            f"{'was' if len(evs) == 1 else 'were'} switched out {count} time(s) inside C "
            f"section '{section}', waiting "
            f"{cost:.3f} s in all for input the parser read through "
            f"{read_site or 'a Python read()'}"
            + (f" (parser called at {caller})" if caller else "")
            + ". A C parser reading the network stops mid-parse on every packet (and "
            "lxml's parser lock can deadlock). Fix: read the body first, e.g. "
            "geventperf.mount(session) (GeventAdapter) and response.content, then parse the "
            "bytes "
            "(lxml.etree.fromstring(body), json.loads(body)).")
        out.append(_finding(BLOCKED_READ, message, cost, stack, greenlet=worst.get("greenlet"),
                            section=section, count=count, wait_s=cost, read_site=read_site,
                            caller=caller, greenlets=len(evs),
                            names=_by_name(profile, evs, waits),
                            file_like=any(e.get("file_like") for e in evs),
                            fix="read the body first, then parse bytes"))
    return out


# -- holding the loop ---------------------------------------------------------------------

def loop_blocked(profile: Profile) -> list[Finding]:
    """Run slices longer than the block threshold that held up greenlets ready to run,
    merged by the user's frame where they ended; CPU and non-cooperative blocking calls
    are told apart (``loop-blocked`` / ``blocking-call``)."""
    threshold = _f(profile.meta, "block_threshold_s", DEFAULT_BLOCK_THRESHOLD_S)
    groups: dict[tuple[str, Any], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "blocked-slice"):
        stack = list(ev.get("stack") or [])
        site = user_site(stack).user or (stack[0] if stack else "?")
        groups[(_cause(ev), site)].append(ev)
    out = []
    patched = profile.meta.get("monkey_patched")
    for (cause, site), evs in groups.items():
        worst = max(evs, key=lambda e: _f(e, "run_s"))
        run = sum(_f(e, "run_s") for e in evs)
        hurt = [e.get("delayed_others_s") for e in evs]
        cost = run if None in hurt else sum(float(h) for h in hurt)  # older profiles: run
        if None not in hurt and cost < threshold:
            continue  # nobody (or hardly anybody) was ready meanwhile
        cpu = None if any(e.get("cpu_s") is None for e in evs) else \
            sum(_f(e, "cpu_s") for e in evs)
        who = _names(profile, [e.get("greenlet") for e in evs])
        held = (f"held the loop {run:.3f} s without yielding"
                + (f" ({len(evs)} slices over {threshold:g} s, longest "
                   f"{_f(worst, 'run_s'):.3f} s)" if len(evs) > 1 else ""))
        hurt_text = "" if None in hurt else f", while others were ready to run: {cost:.3f} " \
            "greenlet-seconds of their waiting"
        kind = BLOCKING_CALL if cause == "blocking-call" else LOOP_BLOCKED
        if cause == "blocking-call":
            off = run - (cpu or 0.0) - sum(_f(e, "runqueue_s") for e in evs)
            unpatched = (" The time module is not monkey-patched here, so time.sleep is "
                         "the blocking one." if isinstance(patched, list)
                         and "time" not in patched else "")
            tail = (f"{off:.3f} s of it was off the CPU in a non-cooperative call (time.sleep "
                    "unpatched, file or DNS I/O, a lock, a C library doing its own "
                    f"network I/O) made before the slice ended at {site}.{unpatched} Fix: "
                    "monkey-patch first (gevent.monkey.patch_all() before other imports), "
                    "use the cooperative call (gevent.sleep, gevent.socket), or run it in "
                    "gevent.get_hub().threadpool.")
        elif cause == "cpu":
            tail = (f"It was CPU work ({cpu:.3f} s of CPU); the slice ended at {site}. Fix: "
                    "split the work and yield (gevent.sleep(0)) between pieces, or move it "
                    "to a process pool.")
        else:
            tail = (f"The slice ended at {site}; CPU and blocking cannot be told apart "
                    "(cpu_clock=False): profile with cpu_clock=True.")
        out.append(_finding(kind, f"{who} {held}{hurt_text}. {tail}", cost, list(
            worst.get("stack") or []), greenlet=worst.get("greenlet"),
            section=worst.get("section"), count=len(evs), run_s=run, cpu_s=cpu,
            longest_s=_f(worst, "run_s"), threshold_s=threshold, cause=cause,
            blocking_s=None if cpu is None else max(0.0, run - cpu - sum(
                _f(e, "runqueue_s") for e in evs)),
            active_s=run, greenlets=len({e.get("greenlet") for e in evs})))
    return out


def loop_saturated(profile: Profile) -> list[Finding]:
    """The loop was nearly always busy and greenlets mostly waited in its ready queue:
    name who held it, by the others' ready wait their run slices overlapped."""
    util = profile.hub.get("utilization")
    workers = [g for g in profile.greenlets if g.id != profile.hub.get("id")
               and g.ready_wait_s is not None and g.event_wait_s is not None]
    ready = sum(g.ready_wait_s or 0.0 for g in workers)
    event = sum(g.event_wait_s or 0.0 for g in workers)
    duration = profile.duration_s
    if util is None or util < SATURATED_UTILIZATION or ready <= event or not duration \
            or ready < SATURATED_MIN_QUEUE * duration:
        return []
    holders: dict[str, list[Any]] = {}
    for g in profile.greenlets:
        if g.delayed_others_s:
            acc = holders.setdefault(_base_name(g.name), [0.0, 0.0, 0, g.id])
            acc[0] += g.delayed_others_s
            acc[1] += g.run_s
            acc[2] += 1
    top = sorted(holders.items(), key=lambda kv: -kv[1][0])[:TOP_HOLDERS]
    # delayed / run: how many others stood ready, on average, while the holder ran
    named = "; ".join(f"'{name}' (x{n}: ran {run:.3f} s while {d / run:.1f} others were ready "
                      f"on average, {d:.3f} greenlet-s of their waiting)"
                      for name, (d, run, n, _gid) in top if run > 0)
    sections = sorted((s for s in profile.sections if s.delayed_others_s),
                      key=lambda s: -(s.delayed_others_s or 0.0))[:TOP_HOLDERS]
    inside = ", ".join(f"'{s.name}' ({s.delayed_others_s:.3f} greenlet-s)" for s in sections)
    top_gid = top[0][1][3] if top else None
    runs = sorted((r for r in profile.runs if r.delayed_others_s), key=lambda r: -(
        r.delayed_others_s or 0.0))
    stack = runs[0].stack if runs else []
    where = user_site(stack).user if stack else None
    message = (
        f"The loop was saturated: busy {util:.0%} of the run, and greenlets waited "
        f"{ready:.3f} greenlet-seconds ready to run but queued, against {event:.3f} s "
        f"waiting for I/O, timers or locks. Who held the loop: {named}"
        + (f"; inside sections {inside}" if inside else "")
        + (f"; the slices that delayed most ended at {where}" if where else "")
        + ". The cure is on the CPU side, not the I/O side: less work per request in "
        "these greenlets, fewer greenlets per process and more processes, or CPU-heavy "
        "work moved out of the loop (a process pool).")
    return [_finding(LOOP_SATURATED, message, ready, stack, greenlet=top_gid,
                     utilization=util, ready_wait_s=ready, event_wait_s=event,
                     active_s=util * duration,
                     holders={name: d for name, (d, _r, _n, _g) in top},
                     sections={s.name: s.delayed_others_s for s in sections})]


# -- too many small steps ---------------------------------------------------------------

def switch_storms(profile: Profile) -> list[Finding]:
    """One call site yielding very often with tiny work between yields."""
    hub = profile.greenlet(profile.hub["id"]) if profile.hub.get("id") is not None else None
    busy_hub = (hub.run_s - (profile.hub.get("idle_s") or 0.0)) if hub else 0.0
    per_switch = busy_hub / hub.switches if hub and hub.switches else 0.0
    out = []
    for r in profile.runs:
        if r.count < STORM_MIN_SWITCHES or not r.stack or r.stack[0].startswith("<"):
            continue
        mean_run = r.run_s / r.count
        if mean_run >= STORM_MAX_MEAN_RUN_S:
            continue
        cost = r.count * per_switch
        site = user_site(r.stack).user or r.stack[0]
        who = _names(profile, [r.greenlet]) if r.greenlet is not None else "greenlets"
        story, fix = _storm_story(r.stack)
        message = (f"{who} switched out {r.count} times at {site} with "
                   f"{mean_run * 1e6:.1f} us of work between switches on average: "
                   f"{story} Fix: {fix}")
        out.append(_finding(SWITCH_STORM, message, cost, r.stack, greenlet=r.greenlet,
                            count=r.count, mean_run_s=mean_run, run_s=r.run_s, site=site,
                            hub_s_per_switch=per_switch, min_switches=STORM_MIN_SWITCHES,
                            max_mean_run_s=STORM_MAX_MEAN_RUN_S))
    return out


def _storm_story(stack: list[str]) -> tuple[str, str]:
    paths = " ".join(stack[:6])
    if _read_site(stack) is not None:
        return ("the small-chunk read pattern: each small read finds the socket empty and "
                "goes through the hub.", "read in large pieces (geventperf.mount(session): "
                "GeventAdapter, 512 KiB reads) instead of many small read()/iter_content() "
                "calls.")
    if "/gevent/hub.py" in paths and ":sleep" in paths:
        return ("a tight loop yielding with gevent.sleep(0); each yield is a round trip "
                "through the hub that does no work.", "yield less often (every N items, "
                "or after some milliseconds of work), or not at all where nothing waits.")
    if any(m in paths for m in ("/gevent/queue.py", "/gevent/event.py", "/gevent/lock.py",
                                "/gevent/_semaphore", "/gevent/_event")):
        return ("greenlets handing items to each other one at a time; every hand-off is a "
                "round trip through the hub.", "hand off batches, or call the function "
                "directly instead of a queue round trip per item.")
    return ("the switching costs more than the work between switches.",
            "do more work per switch: batch the items, or yield less often.")


def small_body_reads(profile: Profile) -> list[Finding]:
    """Response bodies read through urllib3 in many small pieces (requests' default
    ``.content``, or a parser pulling from ``response.raw``)."""
    out = []
    for ev in _events(profile, "body-reads"):
        reads, nbytes = int(ev.get("reads", 0)), int(ev.get("bytes", 0))
        if reads < SMALL_READS_MIN or nbytes / reads >= SMALL_READ_BYTES:
            continue
        bodies, seconds = max(1, int(ev.get("bodies", 0))), _f(ev, "read_s")
        # Time running inside the reads where the tracer measured the waits in them;
        # the whole time inside them in older profiles.
        cost = _f(ev, "run_s", seconds)
        site = str(ev.get("site", "?"))
        message = (
            f"{bodies} response bodies ({nbytes / 2**20:.1f} MiB) were read in {reads} "
            f"reads of {nbytes / reads / 1024:.1f} KiB on average ({reads / bodies:.0f} per "
            f"body) through urllib3's HTTPResponse.read, called from {site}; each read is a "
            "trip through requests, urllib3 and http.client. Fix: read bodies in large "
            "pieces: geventperf.mount(session) (512 KiB reads, Content-Length bodies into "
            "one buffer), then parse the bytes.")
        out.append(_finding(SMALL_BODY_READS, message, cost, [site], reads=reads,
                            bytes=nbytes, bodies=bodies, read_s=seconds, site=site,
                            mean_read_bytes=nbytes / reads, small_read_bytes=SMALL_READ_BYTES))
    return out


def _threadpool_saturated(profile: Profile) -> list[Finding]:
    """gevent's threadpool full while greenlets waited on it (geventperf.threadpoolwatch)."""
    try:
        from geventperf.threadpoolwatch import threadpool_saturated
    except ImportError:
        return []
    found = threadpool_saturated(profile)
    for f in found:
        f.extra.setdefault("hazard", False)
    return found


FINDERS: tuple[Callable[[Profile], list[Finding]], ...] = (
    deadlock_risks, blocked_reads_in_c_sections, loop_saturated, loop_blocked,
    switch_storms, small_body_reads, _threadpool_saturated)
_KIND_ORDER = {DEADLOCK_RISK: 0, LOOP_SATURATED: 1, BLOCKED_READ: 2, BLOCKING_CALL: 3,
               LOOP_BLOCKED: 4, THREADPOOL_SATURATED: 5, SMALL_BODY_READS: 6,
               SWITCH_STORM: 7}


# -- helpers ------------------------------------------------------------------------

def _events(profile: Profile, kind: str) -> list[dict[str, Any]]:
    return [e for e in profile.events if isinstance(e, dict) and e.get("kind") == kind]


def _f(obj: dict[str, Any], key: str, default: float = 0.0) -> float:
    value = obj.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else default


def _cause(ev: dict[str, Any]) -> str:
    """What a long slice was: CPU, a blocking call, or unknown (no CPU clock).  Time the
    thread waited for a CPU (``runqueue_s``, a busy machine) is neither."""
    if ev.get("cpu_s") is None:
        return "unknown"
    run = _f(ev, "run_s")
    off = run - _f(ev, "cpu_s") - _f(ev, "runqueue_s")
    return "blocking-call" if off > BLOCKING_SHARE * run else "cpu"


def _base_name(name: str) -> str:
    """A folded entry's name without its " [N finished greenlets folded]" suffix."""
    return name.split(" [", 1)[0]


def _names(profile: Profile, gids: list[Any]) -> str:
    """How a finding names the greenlets it touched: "greenlet 'x' (#3)" for one,
    "10 greenlets named 'x'" (or "... named 'x' (4), 'y' (2)") for several."""
    ids = [g for g in dict.fromkeys(gids) if g is not None]
    if len(ids) == 1:
        g = profile.greenlet(ids[0]) if isinstance(ids[0], int) else None
        return f"greenlet '{g.name}' (#{ids[0]})" if g else f"greenlet #{ids[0]}"
    counts: dict[str, int] = defaultdict(int)
    for gid in ids:
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        counts[_base_name(g.name) if g else "?"] += 1
    if len(counts) == 1:
        return f"{len(ids)} greenlets named '{next(iter(counts))}'"
    parts = ", ".join(f"'{n}' ({c})" for n, c in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{len(ids)} greenlets named {parts}"


def _by_name(profile: Profile, evs: list[dict[str, Any]], figs: dict[int, float]
             ) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for e in evs:
        gid = e.get("greenlet")
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        out[_base_name(g.name) if g else "?"] += figs[id(e)]
    return dict(out)


def _read_site(stack: list[str]) -> str | None:
    """The outermost network-reading frame before the caller's own code: the call a
    person recognises (``urllib3 ... read``, ``http/client.py ... readinto``)."""
    site = None
    for entry in stack:  # innermost first
        path = entry.replace("\\", "/")
        if any(r in path for r in _READERS):
            site = entry
        elif site is not None and not any(m in path for m in ("/gevent/", "/greenlet/",
                                                               "/geventperf/")):
            break
    return site
