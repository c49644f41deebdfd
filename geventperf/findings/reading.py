"""Reading and switching: C parsers waiting on the network, bodies read in small
pieces, and call sites that switch far more often than they work."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, NamedTuple

from geventperf.findings.common import (
    BLOCKED_READ,
    CONNECTION_GREENLET,
    COST_MEANING,
    SMALL_BODY_READS,
    SWITCH_STORM,
    _base_name,
    _by_name,
    _events,
    _f,
    _finding,
    _greenlets_named,
    _names,
    _read_site,
    _stands_for,
    block_threshold,
    cpu_wait,
)
from geventperf.frames import is_machinery, user_site
from geventperf.profile import CALL_FOR, Finding, Profile

# A switch costs ~1-10 us of hub round trip; below 1000 yields at one site that is at
# most a few ms of overhead, not worth a person's attention.
STORM_MIN_SWITCHES = 1000
# switch-storm's cost meaning, when it also counts the in-process server's reads of the
# same requests (_echoes_told).
SERVER_SIDE_COST = ("; with the same, for this process's own server reading those requests "
                    "(both ends of the round trips)")
# ... and the switching itself took at least this share of the loop's busy time (the
# run less the hub's idle waits and its waits for a CPU): a request/reply protocol's
# round trips, 20 us of work each, whose switches took 0.019 s of a loop busy 2.3 s
# (0.8 %), are no storm however many greenlets queued behind the work (an unseen chat
# service's healthy clients were told one, "45 % of the run", as its only finding; an
# unseen job queue's healthy workers two, at 0.2-0.3 %).  Two queue-bound greenlets
# handing items back and forth spend 5-6 % of theirs switching.  Of the busy time, not
# the run's length: a run that also waits 0.3 s on a slow server hid that ping-pong's
# 1 % of its length on a slower machine (a flaky test in CI).
STORM_MIN_SWITCHING_SHARE = 0.02
# Under ~50 us of work between yields the switching dominates the work itself.
STORM_MAX_MEAN_RUN_S = 50e-6
# ... and the yields come straight back: a yield that waits a millisecond or more on
# average for its event (a 5 ms ticker, a paced reply) is pacing, not churning.
STORM_MAX_MEAN_EVENT_WAIT_S = 1e-3
# A loop yielding with gevent.sleep(0) that does under this much between yields does
# nothing but test something: a spin-wait on a condition another greenlet sets (an
# unseen coordinator polled a done flag with 1.1 us between 1.2 M yields).
SPIN_MAX_MEAN_RUN_S = 5e-6
# Waits that a request or a connection makes once each (frame labels end with these):
# http.client reading the response's status line waits for the server's reply; a
# connect waits for the handshake.  Thousands of them are thousands of requests, not a
# storm: the switch is the waiting itself, and no read size or batching changes it.
ONCE_PER_REQUEST = (":HTTPResponse._read_status", ":HTTPResponse.begin",
                    ":SocketMixin._internal_connect", ":SocketMixin.connect",
                    # urllib3's check of a pooled connection before its reuse: a poll
                    # through gevent's hub per request (an unseen stock checker's 1 091
                    # were told "the small-chunk read pattern", and reads of any size
                    # change nothing)
                    ":is_connection_dropped", ":HTTPConnection.is_connected")
# A join wakes once per greenlet that finished: 2 000 wake-ups of a joinall are 2 000
# greenlets done, not a storm, and nothing the program could batch.
JOIN_CALLS = ("joinall", "join")
# So do a gevent Pool's own waits (its frames in gevent/pool.py: a free slot per job
# spawned into a full pool, Pool.map's results) and a loop over its imap, whose
# iterator greenlet the waiting greenlet spawned: one wake-up per job started or
# finished.  A clean Pool(20).imap_unordered over 1500 calls ran 2386 of each, 8 and
# 26 us apart, and came first in a report with nothing wrong.
POOL_FRAME = re.compile(r"[/\\]gevent[/\\]pool\.py:\d+:")
# ... and gevent's subprocess reading a child's output (communicate(), check_output()):
# one wake-up per piece the child wrote, at the child's pace (openssl's progress dots
# made a 9-19 ms "storm" at a clean run's start).
CHILD_OUTPUT_FRAME = re.compile(r"[/\\]gevent[/\\]subprocess\.py:\d+:"
                                r"_CommunicatingGreenlets\.")
# At most this many wake-ups per greenlet the waiting one spawned: one per result.
WAKES_PER_CHILD = 1.1
IMAP_GREENLET = re.compile(r"^gevent\._(gevent_c_)?imap\.IMap\w*\._run$")
# Frames of requests' own body reads, where a storm is the small-chunk read pattern
# that GeventAdapter cures.
_REQUESTS_READERS = ("/urllib3/", "/requests/", "/http/client.py",
                     "/geventperf/adapter.py")
# Body reads through urllib3 smaller than this on average are "small": requests' own
# piece is 10 KiB, lxml asks for a few KiB; GeventAdapter reads 512 KiB.
SMALL_READ_BYTES = 64 * 1024
# Reads under this size on average were asked for by the caller (iter_content(
# chunk_size=1024), a parser on response.raw), and only the caller can make them
# larger: half the piece requests' .content reads in (its CONTENT_CHUNK_SIZE, 10 KiB),
# whose reads average a little under it (a body's last piece, the empty read that finds
# its end).
CALLER_PIECE_BYTES = 5 * 1024
# Fewer reads than this at one call site cost too little to report.
SMALL_READS_MIN = 100
# Nor are bodies read in at most this many reads each on average: larger reads cannot
# make a body that arrived in one piece take fewer (1000 bodies of 2 KiB read in 1000
# reads are small reads of small bodies, not a body read in small pieces), and a second
# read is often only the empty one that finds the body's end.
SMALL_READS_PER_BODY_MIN = 2
# The reads' own time must be at least this share of the run: larger reads save at most
# that (an unseen feed refresher read 300 bodies in pieces of 9.8 KiB, 55 ms of a 3.3 s
# run, 1.7 %: mounting GeventAdapter changed its run by 3 %, within noise, and the
# finding was all its report said of a healthy program).
SMALL_READS_RUN_SHARE = 0.05

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


def switch_storms(profile: Profile) -> list[Finding]:
    """One call site yielding very often with tiny work between yields."""
    hub = profile.greenlet(profile.hub["id"]) if profile.hub.get("id") is not None else None
    busy_hub = (hub.run_s - (profile.hub.get("idle_s") or 0.0)) if hub else 0.0
    per_switch = busy_hub / hub.switches if hub and hub.switches else 0.0
    # the loop's busy time: the run less the hub's idle waits and the waits for a CPU
    loop_busy = max(0.0, profile.duration_s - (profile.hub.get("idle_s") or 0.0)
                    - cpu_wait(profile))
    waits = {tuple(w.stack): w for w in profile.waits}
    iterating = {g.parent for g in profile.greenlets
                 if g.parent is not None and IMAP_GREENLET.search(g.name)}
    children: dict[int, int] = {}  # greenlets each one spawned (gevent notes the parent)
    for g in profile.greenlets:
        if g.parent is not None:
            children[g.parent] = children.get(g.parent, 0) + _stands_for(g.name)
    storms: list[_Storm] = []
    for r in profile.runs:
        if r.count < STORM_MIN_SWITCHES or not r.stack or r.stack[0].startswith("<") \
                or _once_per_request(r.stack) or POOL_FRAME.search(r.stack[0]) \
                or any(CHILD_OUTPUT_FRAME.search(f) for f in r.stack):
            continue
        mean_run = r.run_s / r.count
        if mean_run >= STORM_MAX_MEAN_RUN_S:
            continue
        w = waits.get(tuple(r.stack))
        own_line = w is not None and w.call in (None, CALL_FOR) \
            and user_site(r.stack).user == r.stack[0]
        if w is not None and (w.call in JOIN_CALLS or own_line and (
                r.greenlet in iterating
                or r.count <= WAKES_PER_CHILD * children.get(r.greenlet, 0))):
            # a join, a loop over an imap, or a compiled wait at the program's own line
            # waking about once per greenlet it spawned (gevent.iwait, gevent.wait on
            # them: an unseen crawler's loop over iwait of 4 000 fetches was told a storm)
            continue
        mean_event = (w.event_wait_s / w.count) if w is not None and w.count \
            and w.event_wait_s is not None else None
        if mean_event is not None and mean_event >= STORM_MAX_MEAN_EVENT_WAIT_S:
            continue
        switching = r.count * per_switch
        if per_switch and switching < STORM_MIN_SWITCHING_SHARE * loop_busy:
            continue  # the switching itself took little of the loop: the work is the story
        # others queued behind these slices, and behind the hub's loop iterations the
        # yields made it run (its share of the hub's switches) ...
        queued = (r.delayed_others_s or 0.0) + (
            (hub.delayed_others_s or 0.0) * min(1.0, r.count / hub.switches)
            if hub and hub.switches else 0.0)
        # ... for the switching's share of the time those slices and their switches
        # took: fewer round trips leave the slices' own work to do (an unseen job
        # queue's workers did 15-30 us of it per FETCH reply on a loop 99 % busy, and
        # the others' queueing behind all of it put a healthy run's storms at 24 % and
        # 22 % of the run: batching gained nothing)
        # (a spin-wait's slices do nothing but test: all of the queueing is waste)
        if per_switch and not _spins(r.stack, mean_run):
            queued *= per_switch / (per_switch + mean_run)
        site = user_site(r.stack).user or r.stack[0]
        who = _storm_who(profile, r.greenlet)
        story, fix = _storm_story(r.stack, mean_event, mean_run)
        message = (f"{who} switched out {r.count} times at {site} with "
                   f"{mean_run * 1e6:.1f} us of work between switches on average: "
                   f"{story} The switching took {switching:.3f} s of the loop's time"
                   + (f", and others queued {queued:.3f} greenlet-seconds behind these "
                      "slices and the hub's rounds they made" if queued else "") + ".")
        storms.append(_Storm(message, fix, switching + queued, r, dict(
            greenlet=r.greenlet, count=r.count, mean_run_s=mean_run, run_s=r.run_s,
            site=site, hub_s_per_switch=per_switch, switching_s=switching,
            others_ready_wait_s=queued, spin=_spins(r.stack, mean_run),
            min_switches=STORM_MIN_SWITCHES, max_mean_run_s=STORM_MAX_MEAN_RUN_S)))
    return [_finding(SWITCH_STORM, f"{s.message} Fix: {s.fix}", s.cost, s.run.stack, **s.extra)
            for s in _echoes_told(profile, storms)]


class _Storm(NamedTuple):
    message: str  # without its fix
    fix: str
    cost: float
    run: Any  # the runs row
    extra: dict[str, Any]


def _echoes_told(profile: Profile, storms: list[_Storm]) -> list[_Storm]:
    """*storms* with a server connection's reads (gevent's per-connection greenlets)
    told in the clients' costliest storm of reads, when this process ran both ends of a
    request/reply protocol: one cause, and the clients' loop is the one to batch (an
    unseen cart pricer's in-process store ranked first, "read larger pieces")."""
    def server_side(s: _Storm) -> bool:
        g = profile.greenlet(s.run.greenlet) if s.run.greenlet is not None else None
        return g is not None and g.name.endswith(CONNECTION_GREENLET) \
            and _read_site(s.run.stack) is not None
    echoes = [s for s in storms if server_side(s)]
    clients = [s for s in storms if not server_side(s) and _read_site(s.run.stack) is not None]
    if not echoes or not clients:
        return storms
    top = max(clients, key=lambda s: s.cost)
    echoed = sum(s.cost for s in echoes)
    told = top._replace(
        message=f"{top.message} This process's own server read those requests at "
        f"{echoes[0].extra['site']} ({sum(s.run.count for s in echoes)} switches more, "
        f"{echoed:.3f} s of switching and queueing, counted here): both ends of each round "
        "trip.", cost=top.cost + echoed,
        extra={**top.extra, "server_side_s": echoed,
               # (what loop-saturated leaves out, as it did the echoes' own findings)
               "switching_s": top.extra["switching_s"] + sum(
                   s.extra["switching_s"] for s in echoes),
               "others_ready_wait_s": top.extra["others_ready_wait_s"] + sum(
                   s.extra["others_ready_wait_s"] for s in echoes),
               "cost_meaning": COST_MEANING[SWITCH_STORM] + SERVER_SIDE_COST})
    return [told if s is top else s for s in storms if s not in echoes]


def _storm_who(profile: Profile, gid: Any) -> str:
    """Who switched out at a storm's stack: the last greenlet that did, and how many of
    its name there were (a stack's count is all of theirs: 24 connections' reads were
    told as one greenlet's 104 689)."""
    g = profile.greenlet(gid) if gid is not None else None
    if g is None:
        return "greenlets"
    more = _greenlets_named(profile, {_base_name(g.name)}) - 1
    return _names(profile, [gid]) + (f" and {more} more of that name" if more > 0 else "")


def _once_per_request(stack: list[str]) -> bool:
    """Whether *stack* waits where each request or connection waits once (above the
    program's own code)."""
    for entry in stack:
        if entry.endswith(ONCE_PER_REQUEST):
            return True
        if not is_machinery(entry):  # the program's own frame: not above it
            return False
    return False


def _spins(stack: list[str], mean_run: float) -> bool:
    """Whether a storm is a spin-wait: gevent.sleep(0) (or a timer that never waits)
    with almost nothing done between yields."""
    paths = " ".join(stack[:6])
    return ("/gevent/hub.py" in paths and ":sleep" in paths and mean_run < SPIN_MAX_MEAN_RUN_S
            and _read_site(stack) is None)


def _storm_story(stack: list[str], mean_event: float | None,
                 mean_run: float) -> tuple[str, str]:
    paths = " ".join(stack[:6])
    read_site = _read_site(stack)
    whole = " ".join(stack)
    if read_site is not None and any(r in whole for r in _REQUESTS_READERS):
        return ("the small-chunk read pattern: each small read finds the socket empty and "
                "goes through the hub.", "read in large pieces (geventperf.mount(session): "
                "GeventAdapter, 512 KiB reads) instead of many small read()/iter_content() "
                "calls.")
    if read_site is not None:  # the program's own socket reads
        return ("each read found no data yet and waited through the hub: either a "
                "request/reply protocol doing one round trip per item (each read waits for "
                "the reply to what was just sent), or data arriving in pieces read as they "
                "come.", "fewer round trips: batch or pipeline the requests (send many, "
                "then read the replies), or read larger pieces when the data streams.")
    if "/gevent/hub.py" in paths and ":sleep" in paths:
        how = "gevent.sleep(0)" if mean_event == 0.0 else "gevent.sleep on very short timers"
        wait_instead = ("wait on what it polls for: a gevent.event.Event (event.wait() "
                        "here, event.set() where the condition becomes true), an "
                        "AsyncResult, a Queue's get(), or gevent.joinall on the greenlets "
                        "it waits for; the loop then sleeps until woken and costs nothing "
                        "meanwhile")
        if _spins(stack, mean_run):
            return (f"a loop that does almost nothing but yield with {how}: most likely "
                    "a spin-wait polling a condition another greenlet sets (a flag, a "
                    "counter, a list filling up); each yield is a round trip through the "
                    "hub, and the loop never sleeps in its poll while it spins.",
                    f"{wait_instead}. (Do not just drop the yield: the condition could then "
                    "never change.)")
        return (f"a tight loop yielding with {how}; each yield is a round trip "
                "through the hub that does no work.", "yield less often (every N items, "
                f"or after some milliseconds of work); if the loop polls a condition, "
                f"{wait_instead}.")
    if any(m in paths for m in ("/gevent/queue.py", "/gevent/event.py", "/gevent/lock.py",
                                "/gevent/_semaphore", "/gevent/_event")):
        return ("greenlets handing items to each other one at a time; every hand-off is a "
                "round trip through the hub.", "hand off batches, or call the function "
                "directly instead of a queue round trip per item.")
    return ("the switching costs more than the work between switches.",
            "do more work per switch: batch the items, or yield less often.")


def _size(nbytes: float) -> str:
    """A read's size as a person reads it: bytes under a KiB (one-byte reads are no
    "0.0 KiB")."""
    if round(nbytes) >= 1024:
        return f"{nbytes / 1024:.1f} KiB"
    return f"{nbytes:.0f} byte" + ("" if round(nbytes) == 1 else "s")


def caller_small_read_sites(profile: Profile) -> frozenset[str]:
    """The program's lines whose body reads were small ones of their own asking (a mean
    under CALLER_PIECE_BYTES, over at least SMALL_READS_MIN reads): iter_content(n),
    raw.read(n) or a parser pulling small pieces."""
    return frozenset(str(ev.get("site")) for ev in _events(profile, "body-reads")
                     if int(ev.get("reads", 0)) >= SMALL_READS_MIN
                     and int(ev.get("bytes", 0)) / int(ev["reads"]) < CALLER_PIECE_BYTES)


def small_body_reads(profile: Profile) -> list[Finding]:
    """Response bodies read through urllib3 in many small pieces (requests' default
    ``.content``, or a parser pulling from ``response.raw``)."""
    out = []
    for ev in _events(profile, "body-reads"):
        reads, nbytes = int(ev.get("reads", 0)), int(ev.get("bytes", 0))
        bodies, seconds = max(1, int(ev.get("bodies", 0))), _f(ev, "read_s")
        if reads < SMALL_READS_MIN or nbytes / reads >= SMALL_READ_BYTES \
                or reads <= SMALL_READS_PER_BODY_MIN * bodies:
            continue
        # Time running inside the reads where the tracer measured the waits in them;
        # the whole time inside them in older profiles.
        cost = _f(ev, "run_s", seconds)
        if cost < block_threshold(profile) or cost < SMALL_READS_RUN_SHARE * profile.duration_s:
            continue  # (an unseen job's 57 KiB reads of 64 KiB asked: 35 ms in 1.25 s)
        site = str(ev.get("site", "?"))
        mean = nbytes / reads
        fix = ("read bodies in large pieces: geventperf.mount(session) (512 KiB reads, "
               "Content-Length bodies into one buffer), then parse the bytes."
               if mean >= CALLER_PIECE_BYTES else
               f"the code at {site} asks for {_size(mean)} per call "
               "(iter_content(chunk_size=...), raw.read(n), or a parser reading "
               "response.raw): ask for large pieces (iter_content(chunk_size=512 * 1024)) "
               "or read the body whole (response.content) and parse the bytes; "
               "geventperf.mount(session) makes .content's reads large, not a caller's "
               "own small ones.")
        message = (
            f"{bodies} response bodies ({nbytes / 2**20:.1f} MiB) were read in {reads} "
            f"reads of {_size(mean)} on average ({reads / bodies:.0f} per "
            f"body) through urllib3's HTTPResponse.read, called from {site}; each read is a "
            f"trip through requests, urllib3 and http.client. Fix: {fix}")
        out.append(_finding(SMALL_BODY_READS, message, cost, [site], reads=reads,
                            bytes=nbytes, bodies=bodies, read_s=seconds, site=site,
                            mean_read_bytes=nbytes / reads, small_read_bytes=SMALL_READ_BYTES))
    return out
