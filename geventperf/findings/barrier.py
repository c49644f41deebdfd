"""A greenlet waiting for batches of greenlets it spawned, each batch as slow as its
slowest member (``batch-barrier``), or for each one before it starts the next
(``awaited-in-turn``), from the timeline's run slices.

``for batch in chunks(items, 50): gevent.joinall([gevent.spawn(check, x) for x in
batch])`` runs 50 calls at once only at each batch's start: the fast ones end, and the
slots they held stay empty until the slowest of the 50 ends.  With a few slow calls
(a 400 ms tail behind a 20 ms median) the job runs a handful of calls at a time while
it means to run 50, and every table says "waiting at Session.get", which reads as a
slow upstream.

The run slices give each spawned greenlet's life (from the start of its first slice,
less the ready wait before it, to the end of its last) and the spawner's waits (the
gaps between its slices).  The finding needs a spawner that waited for its children a
large share of the run while, at their peak, many were alive at once, and, over its
waits, on average at most 60 % of that many (USED_SHARE).  A pool that starts a new
greenlet as each one ends keeps its peak alive and is no such case.

``{p: submit(p).get() for p in parts}`` awaits each call as it is made: the spawner's
greenlets live one after another, never two at once, while it waits through their
lives, and the calls' latencies add up where they would overlap.  The finding needs at
least three such greenlets per spawner, each mostly waiting itself (CPU work would not
overlap on one loop anyway).  Whether a greenlet needs the previous one's result is not
recorded: the message says so.
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import defaultdict
from typing import Any, Callable, NamedTuple

from geventperf.dataflow import gated
from geventperf.findings.common import (
    AWAITED_IN_TURN,
    BATCH_BARRIER,
    _base_name,
    _finding,
    block_threshold,
)
from geventperf.findings.handoff import is_handoff, stacks_left
from geventperf.findings.held import asleep_in_program
from geventperf.findings.limits import event_wait, is_limit_wait, pool_held_back
from geventperf.frames import is_idle_server_wait, socket_read_depth, user_site
from geventperf.profile import Finding, Profile, greenlet_label

# At least this many of a spawner's greenlets alive at once: a batch, not a helper or two.
MIN_PEAK = 8
# The spawner waited for them at least this share of the run ...
BARRIER_RUN_SHARE = 0.25
# ... while on average at most this share of the peak was still running, so that a
# pool as large as the peak would save at least the rest of the waiting: a loop of
# batches each held by one slow member keeps a sixth running (50 at once, 8 on
# average); an unseen batch submitter's batches of 50, each with a 160 ms straggler
# among 20-60 ms fetches, kept 24 running, and a Pool(50) took 69 % off its run (at a
# quarter, the share first chosen, it was told only as a critical path).  Batches of
# even members keep nearly all running (MIN_BATCHES keeps out a single batch).
USED_SHARE = 0.6
# ... over at least this many batches: times the running count climbed from a quarter of
# the peak or less to half of it or more (one fan-out waiting on its slowest part is a
# request's own latency, not a loop of batches).
MIN_BATCHES = 3
# A batch's members each live less than this share of the run.
MEMBER_MAX_SHARE = 0.5
# A spawner asleep at its own line's gevent.sleep for at least this share of its waiting
# paced itself (a dispatcher spawning on a schedule, a rate limiter): it waited on its
# timer, not on its greenlets, whose lives overlapped its sleeps by chance (an unseen
# dispatcher spawning every 5 ms read as batches and as greenlets awaited in turn).
PACED_SHARE = 0.5
# At least this share of the spawner's waiting while its greenlets were alive was at
# hand-offs (a join, joinall, a result's get; where the timeline does not say, counted
# so): it waited for them, not for input of its own while they ran (an unseen RPC
# server's connection spawned a greenlet per request frame and read the next frame
# meanwhile: told as batches waiting for their slowest, and a Pool gained nothing).
HANDOFF_WAIT_SHARE = 0.5
# awaited-in-turn: at least this many greenlets of one spawner, never two alive at once
# (two is a call and its retry) ...
MIN_IN_TURN = 3
# ... while it sat waiting through at least this share of their lives (not working
# beside them) ...
IN_TURN_WAITED_SHARE = 0.8
# ... and they ran at most this share of their lives (waiting on the network or a
# timer, which together would overlap; CPU work on one loop would not) ...
IN_TURN_CHILD_RUN_SHARE = 0.5
# ... costing the spawners of one name at least this share of the run (and a block
# threshold): a handler or two awaiting a few lookups in turn is no pattern.
IN_TURN_RUN_SHARE = 0.25


# A join wakes its waiter in the loop turn in which the greenlet ended: made ready at
# most this long after that end, it was woken by the end (in gevent's traces, at or
# before it: the turn's start).  An unseen batcher fixed to block on its queue spawned
# one sender per batch; its closed-loop clients' next items came 7-15 ms after each
# sender ended, and it was told as awaiting its senders one at a time.
JOIN_WAKE_S = 0.001


def batch_barrier(profile: Profile) -> list[Finding]:
    """Spawners that waited on batches whose members mostly ended early, one finding
    per name.  ``cost_s``: the seconds a pool as large as the peak, starting one as each
    ends, would have saved at most (the waits less the children's lives over the peak),
    summed over the spawners of the name."""
    by_name: dict[str, list[Batches]] = {}
    for spawner, kids, lives, runs in _spawners(profile, MIN_PEAK):
        found = _batches(profile, spawner, [lives[k] for k in kids], runs)
        if found is not None:
            by_name.setdefault(_base_name(spawner.name), []).append(found)
    return [_told(profile, group) for group in by_name.values()]


# A run slice: its start and end, how long it was ready before it ran (None in profiles
# written before the wait split), and the ``waits`` row it went on to wait at (None:
# unknown).
Run = tuple[float, float, float | None, int | None]


def _spawners(profile: Profile, min_children: int
              ) -> list[tuple[Any, list[int], dict[int, list[float]], list[Run]]]:
    """(spawner, its short-lived children's ids, every greenlet's life, the spawner's
    run slices) for the greenlets (the hub apart) that spawned at least *min_children*
    greenlets living under MEMBER_MAX_SHARE of the run; none without a whole timeline."""
    duration = profile.duration_s
    if not profile.slices or profile.slices_dropped or not duration:
        return []  # lives are only known from a whole timeline
    lives: dict[int, list[float]] = {}
    runs: dict[int, list[Run]] = {}
    for s in profile.slices:
        start = s.start_s - (s.ready_s or 0.0)
        life = lives.setdefault(s.greenlet, [start, s.start_s + s.duration_s])
        life[0] = min(life[0], start)
        life[1] = max(life[1], s.start_s + s.duration_s)
        runs.setdefault(s.greenlet, []).append((s.start_s, s.start_s + s.duration_s,
                                                s.ready_s, s.wait))
    children: dict[int, list[int]] = {}
    for g in profile.greenlets:
        life = lives.get(g.id)
        # a greenlet alive through most of the run is a worker or a helper, no batch's
        if isinstance(g.parent, int) and life is not None \
                and life[1] - life[0] < MEMBER_MAX_SHARE * duration:
            children.setdefault(g.parent, []).append(g.id)
    hub = profile.hub.get("id")
    out = []
    candidates = [p for p, kids in children.items()
                  if p != hub and len(kids) >= min_children and p in runs]
    paced = _paced(profile, candidates) if candidates else set()
    for parent in candidates:
        spawner = profile.greenlet(parent)
        if spawner is not None and parent not in paced:
            out.append((spawner, children[parent], lives, runs[parent]))
    return out


def _paced(profile: Profile, gids: list[int]) -> set[int]:
    """The greenlets of *gids* that slept at their own line for at least PACED_SHARE of
    their waiting (of the stacks each was the last to leave)."""
    rows = _waits_of(profile)
    out = set()
    for gid in gids:
        waited = sum(event_wait(w) for w in rows.get(gid, ()))
        slept = sum(event_wait(w) for w in rows.get(gid, ()) if asleep_in_program(w))
        if waited > 0 and slept >= PACED_SHARE * waited:
            out.add(gid)
    return out


def _edges(lives: list[list[float]]) -> list[tuple[float, int]]:
    """(time, +1 born / -1 ended) for *lives*, sorted: an end before a birth at one time."""
    return sorted([(a, 1) for a, _b in lives] + [(b, -1) for _a, b in lives])


def _ready_at(runs: list[Run]) -> dict[float, float]:
    """When a greenlet was made ready to run (its run's start less its ready wait), by
    the run's start, where recorded."""
    return {start: start - ready for start, _end, ready, _wait in runs if ready is not None}


def _woken_by_end(profile: Profile, woke: float, ended: float,
                  ready_at: dict[float, float]) -> bool:
    """Whether a wait that ended with the run starting at *woke* was ended by a greenlet
    that ended at *ended*: made ready at most JOIN_WAKE_S after it (where the timeline
    says when it was made ready; else run within a block threshold of it)."""
    if woke < ended:
        return False
    return ready_at[woke] - ended <= JOIN_WAKE_S if woke in ready_at \
        else woke - ended <= block_threshold(profile)


def _reading_gaps(profile: Profile, runs: list[Run]) -> list[bool]:
    """For each of _gaps(runs), whether that wait read a socket right from the
    program's code (frames.socket_read_depth), or was a server connection's wait for
    its client's next request (frames.is_idle_server_wait): its own input, not another
    greenlet (an unseen provider stand-in's handlers, each scheduling a callback with
    spawn_later and answering, were told they awaited each callback in turn)."""
    waits = profile.waits
    return [isinstance(w, int) and 0 <= w < len(waits)
            and (socket_read_depth(waits[w].stack) is not None
                 or is_idle_server_wait(waits[w].stack)) for w in _gap_waits(runs)]


def _gaps(runs: list[Run]) -> list[tuple[float, float]]:
    """The waits between a greenlet's sorted run slices."""
    return [(a[1], b[0]) for a, b in _gap_pairs(runs)]


def _gap_waits(runs: list[Run]) -> list[int | None]:
    """For each of _gaps(runs), where that wait was: the ``waits`` row its run slice
    went on to (the slice's ``wait``), None where not recorded."""
    return [a[3] for a, _b in _gap_pairs(runs)]


def _gap_pairs(runs: list[Run]) -> list[tuple[Run, Run]]:
    """The greenlet's sorted run slices that a wait separates, in pairs."""
    runs = sorted(runs, key=lambda r: r[0])
    return [(a, b) for a, b in zip(runs, runs[1:]) if b[0] > a[1]]


# The greenlet a gevent Pool's map (or imap) runs its round in.
POOL_ROUND = re.compile(r"\.GroupMappingMixin\.__(map|imap)|\.(IMap|IMapUnordered)\b")


def awaited_in_turn(profile: Profile) -> list[Finding]:
    """Spawners that waited for their greenlets one at a time (spawn, wait for it, spawn
    the next), one finding per name.  ``cost_s``: the seconds they waited with one of
    them alive, less each chain's longest life (all at once would take about that),
    summed over the spawners of the name."""
    spawners = _spawners(profile, MIN_IN_TURN)
    heaviest = _heaviest_waits(profile) if spawners else {}
    by_name: dict[str, list[InTurn]] = {}
    full = bool(spawners) and pool_held_back(profile)
    for spawner, kids, lives, runs in spawners:
        # rounds of a Pool's map that waited for its slots: each already filled them, so
        # started together they would queue behind the same slots, and only each round's
        # drain is saved (pool-full tells the limit; an unseen tracker's four polling
        # rounds, each reading what the one before found, were told "could save 7.03 s")
        if full and all(POOL_ROUND.search(g.name) for k in kids
                        if (g := profile.greenlet(k)) is not None):
            continue
        found = _in_turn(profile, spawner, kids, [lives[k] for k in kids], runs)
        # a spawner held at a limit (a Pool(1)'s feeder at Pool.add): pool-full's waits
        wait = heaviest.get(spawner.id)
        if found is not None and not (wait is not None and is_limit_wait(wait)):
            by_name.setdefault(_base_name(spawner.name), []).append(found)
    out = []
    # the line told is where a spawner waited for its greenlets (a greenlet's get or
    # join: a hand-off), not its heaviest wait of any kind (an unseen report builder's
    # spawn-then-get helper was told at the plan lookup it also made, a DNS wait)
    awaited = _heaviest_waits(profile, is_handoff) if by_name else {}
    for group in by_name.values():
        cost = sum(t.cost for t in group)
        if cost >= max(IN_TURN_RUN_SHARE * profile.duration_s, block_threshold(profile)):
            found = _told_in_turn(group, cost, awaited, heaviest)
            # a loop that goes on only when each answer allows (a staged rollout's waves,
            # each checked before the next) needs each before the next: not a cause (an
            # unseen release train's 28 gated steps were told to start together, 89 % of
            # its run, where that would have dropped its safety checks)
            if not gated(found.stack):
                out.append(found)
    return out


class InTurn(NamedTuple):
    """One spawner's chains of greenlets awaited in turn."""

    spawner: Any
    waited: float  # seconds it waited with one of them alive
    spans: list[float]  # their lives
    cost: float  # the waits less each chain's longest life


def _in_turn(profile: Profile, spawner: Any, kids: list[int], lives: list[list[float]],
             runs: list[Run]) -> InTurn | None:
    """The spawner's chains of greenlets awaited in turn: each born after the one before
    ended, with no wait of the spawner's own between (a worker looping over jobs that
    each spawn one greenlet waits on its queue or its next call in between: no chain)."""
    gaps = _gaps(runs)
    starts = [g0 for g0, _g1 in gaps]
    reading = _reading_gaps(profile, runs)
    # when it was made ready to run at the end of each wait (its run's start less its
    # ready wait), by the run's start: when recorded, a wake-up that came later than
    # JOIN_WAKE_S after a greenlet's end was no join's
    ready_at = _ready_at(runs)
    order = sorted(range(len(lives)), key=lambda i: lives[i][0])
    chains = [[order[0]]]
    for prev, nxt in zip(order, order[1:]):
        ended, born = lives[prev][1], lives[nxt][0]
        # the wait it was in when the greenlet ended: it waited for that end when it woke
        # soon after (a scheduler sleeping its period out woke for its timer instead)
        at = bisect.bisect_right(starts, ended) - 1
        # (not while it read its own socket: a connection awaiting its peer's next line
        # wakes so often that some wake-up follows every end -- an unseen hub's handler
        # reading its publisher's lines, its webhooks spawned and never awaited, was told
        # it waited for each in turn)
        awaited = at >= 0 and not reading[at] \
            and _woken_by_end(profile, gaps[at][1], ended, ready_at)
        after = at + 1  # its first wait begun after the end
        waited_between = after < len(gaps) and gaps[after][1] <= born
        if born >= ended and awaited and not waited_between:
            chains[-1].append(nxt)
        else:
            chains.append([nxt])
    chains = [c for c in chains if len(c) >= MIN_IN_TURN]
    if not chains:
        return None
    chained = [lives[i] for c in chains for i in c]
    spans = [b - a for a, b in chained]
    waited = sum(_alive_over(_edges(chained), gaps))
    # it sat waiting through their lives (not working beside them), and they waited
    # too (on the network, a timer): at once, they would have overlapped
    ran = sum(g.run_s for c in chains for i in c
              if (g := profile.greenlet(kids[i])) is not None)
    if waited < IN_TURN_WAITED_SHARE * sum(spans) or ran > IN_TURN_CHILD_RUN_SHARE * sum(spans):
        return None
    longest = sum(max(lives[i][1] - lives[i][0] for i in c) for c in chains)
    return InTurn(spawner, waited, spans, max(0.0, waited - longest))


def _told_in_turn(group: list[InTurn], cost: float, *heaviest: dict[int, Any]) -> Finding:
    """One finding for the spawners of one name, told by the one that lost most, at the
    line where the costliest spawner with a recorded wait waited most, by the first of
    *heaviest* (_heaviest_waits) that has one: a stack knows only the last greenlet
    that left it."""
    group = sorted(group, key=lambda t: -t.cost)
    worst = group[0]
    where, stack = next((site for waits in heaviest for t in group
                         if (site := _wait_site(waits.get(t.spawner.id)))[0]), (None, []))
    kids = sum(len(t.spans) for t in group)
    spans = [d for t in group for d in t.spans]
    who = (greenlet_label(worst.spawner.name, worst.spawner.id) if len(group) == 1
           else f"{len(group)} greenlets such as '{_base_name(worst.spawner.name)}'")
    each = f" ({kids / len(group):.1f} each)" if len(group) > 1 else ""
    message = (
        f"Spawned greenlets were waited for one at a time: {who} spawned {kids} "
        f"greenlets{each} and waited for each before starting the next, one alive at a "
        "time" + (f", waiting most at {where}" if where else "")
        + f". Their lives (median {statistics.median(spans) * 1e3:.0f} ms, mostly "
        "waiting themselves) added up instead of overlapping: "
        f"{sum(t.waited for t in group):.3f} greenlet-seconds of waiting where, started "
        "together, each run of them would have taken about as long as its longest one. "
        "Fix: start them all, then wait for them together (gevent.joinall, or call "
        ".get() on each only after the loop that spawns them), unless each needs the one "
        "before it.")
    return _finding(AWAITED_IN_TURN, message, cost, stack, greenlet=worst.spawner.id,
                    spawners=len(group), children=kids, waited_s=sum(t.waited for t in group),
                    site=where)


class Batches(NamedTuple):
    """What one spawner's batches were."""

    spawner: Any
    waited: float  # seconds it waited with some of them running
    mean_alive: float  # of them running meanwhile, on average
    peak: int
    batches: int
    spans: list[float]  # their lives
    cost: float


def _batches(profile: Profile, spawner: Any, lives: list[list[float]],
             runs: list[Run]) -> Batches | None:
    duration = profile.duration_s
    edges = _edges(lives)
    alive = peak = 0
    for _t, step in edges:
        alive += step
        peak = max(peak, alive)
    if peak < MIN_PEAK:
        return None
    batches, low, alive = 0, True, 0
    for _t, step in edges:
        alive += step
        if low and alive >= peak / 2:
            batches, low = batches + 1, False
        elif alive <= peak / 4:
            low = True
    if batches < MIN_BATCHES:
        return None
    gaps, at = _gaps(runs), _gap_waits(runs)  # the spawner's waits, and where each was
    handoffs = {i for i, w in enumerate(profile.waits) if is_handoff(w)}
    waited = alive_time = for_them = 0.0
    for (g0, g1), overlap, row in zip(gaps, _alive_over(edges, gaps), at):
        if overlap > 0:
            waited += g1 - g0
            alive_time += overlap
            for_them += g1 - g0 if row is None or row in handoffs else 0.0
    if waited < BARRIER_RUN_SHARE * duration or for_them < HANDOFF_WAIT_SHARE * waited:
        return None
    mean_alive = alive_time / waited
    if mean_alive > USED_SHARE * peak:
        return None
    spans = [b - a for a, b in lives]
    return Batches(spawner, waited, mean_alive, peak, batches, spans,
                   max(0.0, waited - sum(spans) / peak))


def _told(profile: Profile, group: list[Batches]) -> Finding:
    """One finding for the spawners of one name, told by the one that lost most."""
    worst = max(group, key=lambda b: b.cost)
    spawner, peak = worst.spawner, worst.peak
    cost = sum(b.cost for b in group)
    where, stack = _wait_site(_heaviest_waits(profile).get(spawner.id))
    others = (f" (and {len(group) - 1} other greenlet{'s' if len(group) > 2 else ''} of "
              "its name the same way)" if len(group) > 1 else "")
    message = (
        f"Batches waited for their slowest: {greenlet_label(spawner.name, spawner.id)}"
        f"{others} waited {worst.waited:.3f} s ({worst.waited / profile.duration_s:.0%} of "
        f"the run) for greenlets it spawned in {worst.batches} batches, "
        f"{len(worst.spans)} in all and up to {peak} at once"
        + (f", most at {where}" if where else "")
        + f", yet while it waited only {worst.mean_alive:.1f} of them were still running "
        "on average: each batch lasted as long as its slowest member (their lives: median "
        f"{statistics.median(worst.spans) * 1e3:.0f} ms, longest "
        f"{max(worst.spans) * 1e3:.0f} ms), and the slots of those done early stayed "
        "empty. Fix: if the items are independent, feed them all through one "
        f"gevent.pool.Pool({peak}) (imap_unordered, or spawn as slots free) so that a slow "
        "one holds one slot, not the batch; if a batch's results are needed together, "
        "bound its slow members (a timeout, a hedged second request).")
    return _finding(BATCH_BARRIER, message, cost, stack, greenlet=spawner.id, peak=peak,
                    batches=worst.batches, mean_alive=worst.mean_alive,
                    waited_s=worst.waited, children=len(worst.spans), spawners=len(group),
                    site=where)


def _alive_over(edges: list[tuple[float, int]], gaps: list[tuple[float, float]]
                ) -> list[float]:
    """For each of the sorted, disjoint *gaps*, the greenlet-seconds alive within it,
    from the sorted (time, +1 born / -1 ended) *edges*: one sweep over both."""
    out, alive, i = [], 0, 0
    for g0, g1 in gaps:
        while i < len(edges) and edges[i][0] <= g0:
            alive += edges[i][1]
            i += 1
        t, inside = g0, 0.0
        while i < len(edges) and edges[i][0] < g1:
            inside += alive * (edges[i][0] - t)
            t = edges[i][0]
            alive += edges[i][1]
            i += 1
        out.append(inside + alive * (g1 - t))
    return out


def _waits_of(profile: Profile) -> dict[int, list[Any]]:
    """Greenlet id -> the ``waits`` rows of the stacks it was the last to leave, in one
    pass over the rows."""
    owners: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for gid, stacks in stacks_left(profile).items():
        for stack in stacks:
            owners[stack].append(gid)
    out: dict[int, list[Any]] = defaultdict(list)
    for w in profile.waits:
        for gid in owners.get(tuple(w.stack), ()):
            out[gid].append(w)
    return out


def _heaviest_waits(profile: Profile, kept: Callable[[Any], bool] | None = None
                    ) -> dict[int, Any]:
    """Greenlet id -> its heaviest ``waits`` row by event wait (of the stacks it was the
    last to leave, those *kept* only; the first of equals)."""
    out = {}
    for gid, rows in _waits_of(profile).items():
        rows = [w for w in rows if kept is None or kept(w)]
        if rows:
            out[gid] = max(rows, key=event_wait)
    return out


def _wait_site(heaviest: Any) -> tuple[str | None, list[str]]:
    """The program's line of a greenlet's heaviest wait row (_heaviest_waits; None:
    it has none), and that row's stack."""
    if heaviest is None:
        return None, []
    return user_site(heaviest.stack).user, list(heaviest.stack)
