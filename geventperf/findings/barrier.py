"""A greenlet waiting for batches of greenlets it spawned, each batch as slow as its
slowest member (``batch-barrier``), from the timeline's run slices.

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
waits, on average at most half that many.  A pool that starts a new greenlet as each
one ends keeps its peak alive and is no such case.
"""

from __future__ import annotations

import statistics
from typing import Any, NamedTuple

from geventperf.findings.common import BATCH_BARRIER, _base_name, _finding
from geventperf.findings.handoff import stacks_left
from geventperf.findings.limits import event_wait
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile, greenlet_label

# At least this many of a spawner's greenlets alive at once: a batch, not a helper or two.
MIN_PEAK = 8
# The spawner waited for them at least this share of the run ...
BARRIER_RUN_SHARE = 0.25
# ... while on average at most this share of the peak was still running: a single
# batch whose lives spread evenly keeps half its peak running, a loop of batches each
# held by one slow member a sixth (50 at once, 8 on average).
USED_SHARE = 0.25
# ... over at least this many batches: times the running count climbed from a quarter of
# the peak or less to half of it or more (one fan-out waiting on its slowest part is a
# request's own latency, not a loop of batches).
MIN_BATCHES = 3
# A batch's members each live less than this share of the run.
MEMBER_MAX_SHARE = 0.5


def batch_barrier(profile: Profile) -> list[Finding]:
    """Spawners that waited on batches whose members mostly ended early, one finding
    per name.  ``cost_s``: the seconds a pool as large as the peak, starting one as each
    ends, would have saved at most (the waits less the children's lives over the peak),
    summed over the spawners of the name."""
    duration = profile.duration_s
    if not profile.slices or profile.slices_dropped or not duration:
        return []  # lives are only known from a whole timeline
    lives: dict[int, list[float]] = {}
    runs: dict[int, list[tuple[float, float]]] = {}
    for s in profile.slices:
        start = s.start_s - (s.ready_s or 0.0)
        life = lives.setdefault(s.greenlet, [start, s.start_s + s.duration_s])
        life[0] = min(life[0], start)
        life[1] = max(life[1], s.start_s + s.duration_s)
        runs.setdefault(s.greenlet, []).append((s.start_s, s.start_s + s.duration_s))
    children: dict[int, list[int]] = {}
    for g in profile.greenlets:
        life = lives.get(g.id)
        # a greenlet alive through most of the run is a worker or a helper, no batch's
        if isinstance(g.parent, int) and life is not None \
                and life[1] - life[0] < MEMBER_MAX_SHARE * duration:
            children.setdefault(g.parent, []).append(g.id)
    hub = profile.hub.get("id")
    by_name: dict[str, list[Batches]] = {}
    for parent, kids in children.items():
        spawner = profile.greenlet(parent)
        if spawner is None or parent == hub or len(kids) < MIN_PEAK or parent not in runs:
            continue
        found = _batches(profile, spawner, [lives[k] for k in kids], runs[parent])
        if found is not None:
            by_name.setdefault(_base_name(spawner.name), []).append(found)
    return [_told(profile, group) for group in by_name.values()]


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
             runs: list[tuple[float, float]]) -> Batches | None:
    duration = profile.duration_s
    edges = sorted([(a, 1) for a, _b in lives] + [(b, -1) for _a, b in lives])
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
    # the spawner's waits: the gaps between its slices
    runs = sorted(runs)
    gaps = [(a[1], b[0]) for a, b in zip(runs, runs[1:]) if b[0] > a[1]]
    waited = alive_time = 0.0
    for (g0, g1), overlap in zip(gaps, _alive_over(edges, gaps)):
        if overlap > 0:
            waited += g1 - g0
            alive_time += overlap
    if waited < BARRIER_RUN_SHARE * duration:
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
    where, stack = _wait_site(profile, spawner.id)
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


def _wait_site(profile: Profile, gid: int) -> tuple[str | None, list[str]]:
    """The program's line where greenlet *gid* waited most (of the wait stacks it was
    the last to leave), and that stack."""
    mine = stacks_left(profile).get(gid, set())
    rows = [w for w in profile.waits if tuple(w.stack) in mine]
    if not rows:
        return None, []
    worst = max(rows, key=event_wait)
    return user_site(worst.stack).user, list(worst.stack)
