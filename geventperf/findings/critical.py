"""One greenlet alone on the run's critical path (``critical-path``), from the timeline.

Every other finding costs what greenlets waited for one another: greenlet-seconds of
queueing, of slots, of locks.  A program that does one thing at a time delays nobody by
that measure, and its wall clock is exactly that one thing: a warm-up priming a cache
one call after another before serving, a drain polling ``len(pool)`` with
``gevent.sleep(0.25)``, a shutdown joining idle workers one timeout at a time, a batch
loop re-parsing its config on every pass.  The loop sits idle (or runs that one
greenlet) and the report said nothing (three of four such unseen programs: "FINDINGS:
none", or a full Pool whose larger size gained 13 % where the drain's fix gained 50 %).

From the timeline's slices, each of which says where its greenlet went on to wait
(``Slice.wait``), every greenlet is, at each moment, running or ready (RUN), waiting on
its own I/O or timer (OWN; SOCKET for a socket or poll wait), waiting for greenlets to
end (DRIVE: a join, a pool's join or map), waiting on someone for a shared thing (DEP:
an event, a lock, a pool's slot, a full queue's put), waiting for work (FOR_WORK: a
queue's get) or idle (IDLE: a server connection waiting for its client's next request).
Where exactly one greenlet is in flight (RUN, OWN or SOCKET) and no other waits on
someone (a bottleneck, which queue-full, lock-contended and serial-bottleneck tell),
that time is its alone: nothing else overlapped it, so it is the run's wall clock, and
a fix takes off what it makes overlap or skips.  Alone time is counted by the program's line it waited at,
over every greenlet that waited there in turn (twelve shippers each draining alone while
a supervisor joined them one by one), with what the joining greenlets waited at, and
with the CPU right after each wait that is no longer than the wait.  Where
nobody is in flight and ``main`` waits on others, those others waited for work: only a
timeout could end the wait.

In-process servers (tests and demos start their upstreams in the program) answer a
greenlet's calls in greenlets of their own: while the one greenlet waits on a socket,
server connections in flight are its calls being answered, not concurrent work.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, NamedTuple

from geventperf.findings.common import (
    CONNECTION_GREENLET,
    CRITICAL_PATH,
    END_CALLS,
    _finding,
    block_threshold,
)
from geventperf.findings.cpuhot import _in_client, hot_code
from geventperf.findings.limits import awaits_answer
from geventperf.findings.loop import (
    SLEEP_FRAME,
)
from geventperf.frames import is_idle_server_wait, is_machinery, parse_frame, user_site
from geventperf.profile import CALL_FOR, Finding, Profile, StackTime, greenlet_label
from geventperf.sampling.views import chains, samples_of

# A greenlet's alone time at one line (or on the CPU) is a finding from this share of
# the run's wall clock ...
ALONE_MIN_SHARE = 0.1
# ... in at least this many separate waits (or run slices): a loop doing one thing at a
# time, not a server parked in serve_forever() ...
ALONE_MIN_TURNS = 8
# ... none of which held more than this share of it: not a start-up's one long parse
# (two unseen services' 0.5-0.9 s start-ups, 97 % of their alone CPU in one slice, were
# rightly never blamed).
ALONE_MAX_TURN_SHARE = 0.5
# From this share of the run it comes before every greenlet-second cost: for that much
# of the wall clock the one greenlet was all the program did, time no fix elsewhere
# (a pool's size, the loop's CPU) wins back (an unseen warm-up of 180 calls in turn,
# 34 % of the run, was ranked under a loop-saturated cost whose fix gained 17 %; the
# warm-up's, 40 %).
ALONE_FIRST_SHARE = 0.25
# A greenlet's alone CPU is its own story only when at most this share of its sampled
# CPU ran inside the HTTP client: past it, the CPU is its calls' own (requests' per-call
# work between a job's calls in turn: an unseen-like job of 150 calls in turn spent
# 27 % of its run there), told with the calls.
CLIENT_CPU_SHARE = 0.5
# A greenlet's sleeps alone are told from this mean per sleep: a poll whose work ended
# that late wastes little each time, and a dispatcher pacing arrivals (a greenlet every
# 8 ms, each ended in 3) is alone between them by design: 1.7 ms a sleep, 800 of them.
SLEEP_MIN_ALONE_S = 0.01
# The CPU between a stretch's waits is told from this share of its time.
CPU_BETWEEN_TOLD = 0.05
# What the others waited at while main waited on them is tallied over this many
# stretches at most (each visits every greenlet).
MAX_TALLIED = 2000
# Where the greenlets joining the one alone waited is tallied while at most this many
# join (a driver or two; more are a tree of joins, no one's story).
MAX_DRIVERS = 4

RUN, OWN, SOCKET, DRIVE, DEP, FOR_WORK, IDLE, ABSENT = (
    "run", "own", "socket", "drive", "dep", "for-work", "idle", "absent")
IN_FLIGHT = frozenset({RUN, OWN, SOCKET})

# Waits for greenlets to end: a join, gevent.joinall/wait/iwait, a pool's join or map.
_DRIVE_FRAME = re.compile(r"[/\\]gevent[/\\](greenlet\.py:\d+:Greenlet\.(join|get|kill)|"
                          r"_hub_primitives\.py:\d+:\w+|pool\.py:\d+:(Group\.join|"
                          r"Group\.kill|GroupMappingMixin\.\w+))")
# Waits on other greenlets: gevent's pools, queues, events, locks.
_DEP_FRAME = re.compile(r"[/\\]gevent[/\\](pool|queue|event|lock|_semaphore|greenlet|"
                        r"_hub_primitives|_abstract_linkable|baseserver)\.py:")
# ... or a compiled primitive's method called straight from the program's line.
_DEP_CALLS = frozenset({"get", "put", "join", "joinall", "wait", "acquire", "with", "kill",
                        CALL_FOR})
# Of those, a consumer waiting for work (a queue's get): idle until fed, where the others
# wait on someone (a full queue's put, a lock, a gate) -- a bottleneck, whose findings
# (queue-full, lock-contended, serial-bottleneck) tell it.
_QUEUE_GET = re.compile(r"[/\\]gevent[/\\]queue\.py:\d+:\w*Queue\.(get|peek)\w*$")
# Work a thread does (gevent's resolver, a threadpool's apply): in flight, although a
# pool's frames wait for it.
_THREAD_WORK = re.compile(r"[/\\]gevent[/\\](threadpool\.py|resolver[/\\])")
_SOCKET_FRAME = re.compile(r"[/\\]gevent[/\\](_socketcommon|_socket3|select|_ssl3|ssl)\.py:")
_ACCEPT = re.compile(r":(\w+\.)?accept$")
# Frames that tell a wait's kind: a few innermost ones (the program's line is below).
_INNER = 3


def wait_class(wait: StackTime) -> str:
    """What a wait row was: IDLE, FOR_WORK, DRIVE, DEP, SOCKET or OWN (module
    docstring)."""
    stack = wait.stack
    inner = stack[:_INNER]
    if is_idle_server_wait(stack) or any(_ACCEPT.search(f) for f in inner):
        return IDLE
    if any(_THREAD_WORK.search(f) for f in stack[:2 * _INNER]):
        return OWN
    if any(_SOCKET_FRAME.search(f) for f in inner[:2]):
        return SOCKET
    if any(_QUEUE_GET.search(f) for f in inner[:2]):
        return FOR_WORK
    if any(_DRIVE_FRAME.search(f) for f in inner[:2]):
        return DRIVE
    if any(_DEP_FRAME.search(f) for f in inner[:2]):
        return DEP
    if wait.call in _DEP_CALLS and stack and user_site(stack[:1]).library is None:
        # the program's own frame waited on a compiled primitive: a Queue.get or a
        # for loop over a queue, a join
        if wait.call in ("get", CALL_FOR):
            return FOR_WORK
        return DRIVE if wait.call in END_CALLS else DEP
    return OWN


# The calls that wait for a whole group of greenlets at once: a critical path under one
# of them is a batch's slowest member, not greenlets joined one at a time (an unseen
# batch submitter, told "joined one at a time ... gevent.joinall", already called it).
ALL_AT_ONCE = frozenset({"joinall", "wait", "iwait"})


class Stretch(NamedTuple):
    """Alone time at one place: a line of the program's (over every greenlet that waited
    there alone, in turn) or one greenlet's CPU."""

    gid: int              # the greenlet alone there longest
    state: str            # RUN, OWN, SOCKET, DRIVE or DEP
    line: str | None      # the program's line it waited at (None: on the CPU)
    seconds: float
    turns: int            # separate waits (or run slices) alone there
    calls: int            # of those, waits for an HTTP response's head: calls made
    longest: float        # the longest of them
    first_s: float        # when the first of them began, from the run's start
    last_s: float         # when the last of them ended
    waits: list[int]      # indices of the profile's waits rows waited at
    greenlets: int        # how many greenlets were alone there
    driver: str | None    # where greenlets joining them waited, at least half the time
    cpu: float            # of the seconds, CPU right after those waits (building the next)
    driver_call: str | None = None  # the call the driver waited in there ("joinall")


class _Tally:
    """What alone_stretches adds up for one place."""

    def __init__(self, t0: float) -> None:
        self.seconds = self.longest = self.this_turn = self.cpu = 0.0
        self.turns = self.calls = 0
        self.first, self.last, self.since = t0, t0, None
        self.rows: set[int] = set()
        self.by_gid: dict[int, float] = defaultdict(float)
        self.drivers: dict[str, float] = defaultdict(float)
        self.driver_calls: dict[str, str | None] = {}

    def add(self, gid: int, wait: int | None, since: float, t0: float, t1: float,
            head: bool) -> None:
        self.seconds += t1 - t0
        self.by_gid[gid] += t1 - t0
        if wait is not None:
            self.rows.add(wait)
        if self.since != (gid, since):
            self.since = (gid, since)
            self.turns += 1
            self.calls += head
            self.this_turn = 0.0
        self.this_turn += t1 - t0
        self.longest = max(self.longest, self.this_turn)
        self.last = t1

    def glue(self, t0: float, t1: float) -> None:
        """The alone CPU right after one of its waits (not a turn of its own)."""
        self.seconds += t1 - t0
        self.cpu += t1 - t0
        self.this_turn += t1 - t0
        self.longest = max(self.longest, self.this_turn)
        self.last = t1

    def stretch(self, state: str, line: str | None) -> Stretch:
        driver = max(self.drivers, key=self.drivers.__getitem__) if self.drivers else None
        if driver is not None and self.drivers[driver] < self.seconds / 2:
            driver = None
        return Stretch(max(self.by_gid, key=self.by_gid.__getitem__), state, line,
                       self.seconds, self.turns, self.calls, self.longest, self.first,
                       self.last, sorted(self.rows), len(self.by_gid), driver, self.cpu,
                       self.driver_calls.get(driver) if driver is not None else None)


def alone_stretches(profile: Profile) -> tuple[list[Stretch], dict[str, float]]:
    """The alone time by place, most first, and (for main's waits on others with nobody
    in flight) what the others waited at: line -> seconds."""
    kinds = [wait_class(w) for w in profile.waits]
    sleeps = {i for i, w in enumerate(profile.waits) if _slept([w])}
    heads = {i for i, w in enumerate(profile.waits) if awaits_answer(w)}
    hub = profile.hub.get("id")
    server = {g.id for g in profile.greenlets if CONNECTION_GREENLET in g.name}
    main = next((g.id for g in profile.greenlets if g.name == "main" and g.parent is None),
                None)
    events = _transitions(profile, kinds, hub)
    if not events:
        return [], {}
    state: dict[int, tuple[str, int | None, float]] = {}  # gid -> (state, wait, since)
    flying: set[int] = set()                          # in flight, not server connections
    flying_servers: set[int] = set()
    blocked: set[int] = set()  # waiting on someone (DEP), main aside: a bottleneck's story
    driving: set[int] = set()  # waiting for greenlets to end (DRIVE)
    # Sleeping since a moment nothing else was in flight: what such a sleep waits for is
    # elsewhere (a server starting in another process, polled every 50 ms), and its
    # fix saves a poll's interval at most.  A sleep that outlived the work in flight
    # when it began (a drain's poll) is the one that wastes its alone time.
    slept_alone: set[int] = set()
    # Waiting for work (a queue's get): a sleep while some do is a feeder's or a
    # pacer's, which they wait on by design (an unseen quota client's pacer released a
    # permit every 40 ms to workers waiting in get(): told first, removing it ran 6 %
    # slower and drew 676 "429 Too Many Requests")
    for_work: set[int] = set()
    tallies: dict[tuple[str, str | None, int | None], _Tally] = {}
    waited_alone: dict[int, Any] = {}  # gid -> its current wait's key, if alone in it
    glued: dict[int, Any] = {}  # gid -> the key of the alone wait its running follows
    others_at: dict[str, float] = defaultdict(float)
    tallied = 0
    line_of: dict[int, str | None] = {}

    def line(wait: int | None) -> str | None:
        if wait is None:
            return None
        if wait not in line_of:
            line_of[wait] = user_site(profile.waits[wait].stack).user
        return line_of[wait]

    def charge(t0: float, t1: float) -> None:
        nonlocal tallied
        if t1 <= t0 or blocked:
            return
        if len(flying) == 1:
            gid = next(iter(flying))
            if gid in slept_alone or (state[gid][0] != SOCKET and flying_servers) \
                    or (for_work and state[gid][1] in sleeps):
                return
        elif not flying and not flying_servers and main in state \
                and state[main][0] in (DEP, DRIVE):
            gid = main
            if tallied < MAX_TALLIED:
                tallied += 1
                for other, (st, w, _) in state.items():
                    if other != main and st == FOR_WORK and w is not None:
                        others_at[line(w) or "?"] += t1 - t0
        else:
            return
        st, wait, since = state[gid]
        at = line(wait)
        key = (st, at, gid if at is None else None)
        if st == RUN and gid in glued:
            # its CPU right after an alone wait, alone too: that loop's own (building
            # the next call), which a fix that overlaps the waits overlaps as well (an
            # unseen sync's checkpoint loop: 1.15 s of waits told, 1.46 s saved)
            tallies[glued[gid]].glue(t0, t1)
            return
        tally = tallies.get(key)
        if tally is None:
            tally = tallies[key] = _Tally(t0)
        tally.add(gid, wait, since, t0, t1, wait in heads)
        if st != RUN:
            waited_alone[gid] = key
        if gid != main and driving:
            # (main joining a supervisor that joins the workers: the supervisor's join)
            drivers = (driving - {main}) or driving
            if len(drivers) <= MAX_DRIVERS:
                for d in drivers:
                    at = line(state[d][1]) or "?"
                    tally.drivers[at] += t1 - t0
                    if state[d][1] is not None:
                        tally.driver_calls[at] = profile.waits[state[d][1]].call

    t_prev = events[0][0]
    for t, gid, st, wait, length in events:
        charge(t_prev, t)
        t_prev = max(t_prev, t)
        if wait in sleeps and not (flying | flying_servers) - {gid}:
            slept_alone.add(gid)
        else:
            slept_alone.discard(gid)
        for members, member in ((flying_servers if gid in server else flying,
                                 st in IN_FLIGHT),
                                (blocked, st == DEP and gid != main),
                                (for_work, st == FOR_WORK),
                                (driving, st == DRIVE)):
            if member:
                members.add(gid)
            else:
                members.discard(gid)
        waited = t - state[gid][2] if gid in state else 0.0
        state[gid] = (st, wait, t)
        resumed_from = waited_alone.pop(gid, None)
        # (glued when no longer than the wait: building the next call, not work of its
        # own, such as a batch loop's reload after its post)
        if st == RUN and resumed_from is not None and length <= waited:
            glued[gid] = resumed_from
        else:
            glued.pop(gid, None)
    charge(t_prev, profile.duration_s)
    stretches = [tally.stretch(st, at) for (st, at, _gid), tally in tallies.items()]
    stretches.sort(key=lambda s: -s.seconds)
    return stretches, dict(others_at)


def _transitions(profile: Profile, kinds: list[str],
                 hub: Any) -> list[tuple[float, int, str, int | None, float]]:
    """(time, greenlet, state from then on, wait row, how long a RUN lasts) for every
    greenlet's slices but the hub's, in time order; empty when no slice says where it
    waited (a profile written before slices did)."""
    by_greenlet: dict[int, list[Any]] = defaultdict(list)
    told = False
    for s in profile.slices:
        if s.greenlet != hub:
            by_greenlet[s.greenlet].append(s)
            told = told or s.wait is not None
    if not told:
        return []
    window = min(s.start_s - (s.ready_s or 0.0) for ss in by_greenlet.values()
                 for s in ss) if profile.slices_dropped else 0.0
    out: list[tuple[float, int, str, int | None, float]] = []
    for gid, slices in by_greenlet.items():
        slices.sort(key=lambda s: s.start_s)
        last = len(slices) - 1
        if profile.slices_dropped:  # what it did before its first kept slice is not
            # known: in flight, so that no one looks alone for want of a record
            out.append((window, gid, OWN, None, 0.0))
        for i, s in enumerate(slices):
            ready = s.ready_s or 0.0
            out.append((s.start_s - ready, gid, RUN, None, ready + s.duration_s))
            end = s.start_s + s.duration_s
            if s.wait is not None:
                out.append((end, gid, kinds[s.wait], s.wait, 0.0))
            else:  # it ended (nothing after it), or where it waited is not known
                out.append((end, gid, ABSENT if i == last else OWN, None, 0.0))
    out.sort(key=lambda e: e[0])
    return out


def critical_path(profile: Profile) -> list[Finding]:
    duration = profile.duration_s
    if duration <= 0:
        return []
    stretches, others_at = alone_stretches(profile)
    names = {g.id: g.name for g in profile.greenlets}
    floor = max(ALONE_MIN_SHARE * duration, block_threshold(profile))
    out = []
    for s in stretches:
        if s.seconds < floor or s.turns < ALONE_MIN_TURNS \
                or s.longest > ALONE_MAX_TURN_SHARE * s.seconds:
            continue
        name = names.get(s.gid) or ""
        if _slept([profile.waits[i] for i in s.waits]) \
                and s.seconds < SLEEP_MIN_ALONE_S * s.turns:
            continue
        hot = None
        if s.state == RUN:  # told only as the program's own code, from the samples,
            # and costed at its share (an unseen ledger replay's alone CPU was 0.54 s,
            # the named function's part of it 0.08 s)
            hot = hot_code(profile, {name})
            if hot is None or _client_share(profile, name) > CLIENT_CPU_SHARE \
                    or s.seconds * hot.share < floor:
                continue
        out.append(_told(profile, s, name, hot, others_at))
    return out


def _slept(waits: list[StackTime]) -> bool:
    return any(SLEEP_FRAME.search(f.replace("\\", "/")) for w in waits for f in w.stack[:1])


def _client_share(profile: Profile, name: str) -> float:
    """The share of greenlet *name*'s sampled CPU that ran inside the HTTP client."""
    samples = samples_of(profile)
    total = client = 0.0
    for chain in chains(samples) if samples is not None else ():
        if chain.greenlet == name:
            total += chain.cpu_s
            if _in_client(chain.labels):
                client += chain.cpu_s
    return client / total if total else 0.0


def _caller(stack: list[str], line: str) -> str | None:
    """The first frame of the program's below *line* in another function (the loop that
    called the waiting function), if any."""
    if line not in stack:
        return None
    function = parse_frame(line)[::2]
    for frame in stack[stack.index(line) + 1:]:
        if not is_machinery(frame) and parse_frame(frame)[::2] != function \
                and not frame.startswith("<"):
            return frame
    return None


def _told(profile: Profile, s: Stretch, name: str, hot: Any,
          others_at: dict[str, float]) -> Finding:
    duration = profile.duration_s
    who = greenlet_label(name, s.gid)
    cost = s.seconds * hot.share if hot is not None else s.seconds
    share = cost / duration
    waits = [profile.waits[i] for i in s.waits]
    alone_who = f"{who} was the only greenlet" if s.greenlets == 1 else (
        f"{s.greenlets} greenlets such as {who} were, one after another, the only greenlet")
    head = (f"For {s.seconds:.3f} s of the {duration:.3f} s run "
            f"({s.seconds / duration:.0%}, between "
            f"{s.first_s:.2f} s and {s.last_s:.2f} s into it), {alone_who} in flight")
    if profile.slices_dropped:
        head += " (in the timeline the tracer kept: the run's last slices)"
    stack = max(waits, key=lambda w: w.wait_s).stack if waits else []
    if s.state == RUN:
        what = (f"{head}: it ran on the CPU, in {s.turns} stretches, while no other greenlet "
                f"ran or waited on I/O, so its CPU was the run's wall clock")
        fix = ("Do that work less often: keep what does not change between passes (a "
               "config or rules file parsed once and reloaded only when it changes, "
               "compiled patterns kept), or do it once before the loop")
        stack = hot.stack
        caller = _caller(stack, hot.line)
        called = f", called from {caller}" if caller is not None else ""
        message = (f"{what} ({hot.told()}{called}): that code's part, {cost:.3f} s, is the "
                   f"cost. {fix}.")
    else:
        calls = s.calls
        line = s.line or "?"
        caller = _caller(stack, line)
        if caller is not None:
            line += f" (called from {caller})"
        if s.state in (DEP, DRIVE):
            what = (f"{head}: it waited at {line} {s.turns} times while nothing else was in "
                    f"flight: what it waited on was waiting for work itself")
            if others_at:
                at = max(others_at, key=others_at.__getitem__)
                what += f" (the others waited at {at})"
            fix = ("so each wait ended only by its timeout. Wake what it waits on (a "
                   "sentinel per worker in their queue, or kill them) and wait for them "
                   "all at once: gevent.joinall(workers, timeout=...)")
        elif s.driver is not None and s.greenlets > 1 and s.driver_call in ALL_AT_ONCE:
            what = (f"{head}: each waited at {line} ({s.turns} times in all) while "
                    f"{s.driver} waited for them all at once ({s.driver_call}()): each time "
                    "the others had ended, and the last did its last step alone")
            fix = ("a batch lasts as long as its slowest member. If the items are "
                   "independent, feed them all through one gevent.pool.Pool "
                   "(imap_unordered) so that a slow one holds one slot, not the batch; "
                   "else bound the slow ones (a timeout, a hedged second request)")
        elif s.driver is not None and s.greenlets > 1:
            what = (f"{head}: each waited at {line} ({s.turns} times in all) while "
                    f"{s.driver} waited for it to end: the greenlets were joined one at a "
                    f"time, and each did its last step alone")
            fix = ("tell them all first (stop, signal or start each), then wait for all at "
                   "once: gevent.joinall(greenlets, timeout=...), so that their last steps "
                   "overlap")
        elif _slept(waits):
            what = (f"{head}: it slept in gevent.sleep at {line} {s.turns} times "
                    f"({s.seconds / s.turns:.3f} s each on average) while nothing else "
                    f"was in flight")
            fix = ("a sleep that polls (for the work to end, a flag, a result) finds it "
                   "done that late each time. Wait on the thing itself: "
                   "pool.join(timeout=...), gevent.joinall(greenlets, timeout=...) or an "
                   "Event the work sets; a sleep that spaces calls on purpose (a rate "
                   "limit) is that rate's cost")
        elif calls:
            what = (f"{head}: it waited at {line} {s.turns} times ({calls} calls, one after "
                    f"another) while no other greenlet ran or waited on I/O")
            fix = ("if the calls do not need each other's answers, make them together "
                   "(gevent.pool.Pool(n).imap_unordered over the items, n what the "
                   "upstream serves at once) or ask for them in one call (a bulk or "
                   "batch endpoint); if each needs the one before (a cursor's pages), "
                   "ask for larger pages (a limit= or page_size= parameter); a warm-up "
                   "that primes a cache this way delays everything after it")
        else:
            what = (f"{head}: it waited at {line} {s.turns} times, one after another, "
                    f"while no other greenlet ran or waited on I/O")
            fix = "make those waits together, fewer or shorter"
        between = (f" ({s.cpu:.3f} s of that time on the CPU between the waits)"
                   if s.cpu >= CPU_BETWEEN_TOLD * s.seconds else "")
        message = f"{what}{between}; {fix}."
    message += (" Nothing else overlapped that time: it is wall-clock time, not "
                "greenlet-seconds of queueing; a fix takes off what it makes overlap or "
                "skips, and nothing where the work is the program's pace on purpose.")
    return _finding(CRITICAL_PATH, message, cost, stack, greenlet=s.gid,
                    site=s.line, state=s.state, turns=s.turns, wall_share=share,
                    ranks_first=share >= ALONE_FIRST_SHARE)
