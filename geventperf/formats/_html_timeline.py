"""The HTML report's timeline data: the hub lane, and one lane per group of greenlets
that share a name (expandable to its members), costliest first.

The page bins these slices into pixel columns and draws, per column, the share of
time spent running, ready-waiting and event-waiting (the hub: working and idle), so a
whole-run view of thousands of short slices looks like what happened instead of a
solid bar.  Times are microseconds from the start of the trace.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from geventperf.formats._fields import num
from geventperf.formats._frames import format_seconds
from geventperf.formats._tables import greenlet_groups
from geventperf.formats._timeline import Lane, build_lanes, finding_time
from geventperf.profile import Profile

MICROSECONDS = 1_000_000
DECIMALS = 3  # nanosecond resolution in microsecond units


def _us(seconds: float) -> float:
    return round(seconds * MICROSECONDS, DECIMALS)


def _member(lane: Lane, sections: dict[str, int]) -> dict[str, Any]:
    starts, durations, kinds, ready = [], [], [], []
    for run in lane.slices:
        starts.append(_us(run.start))
        durations.append(_us(run.duration))
        kinds.append(sections.setdefault(run.section, len(sections)) if run.section else -1)
        ready.append(-1 if run.ready is None else _us(run.ready))
    return {"id": lane.gid, "name": lane.name, "s": starts, "d": durations, "k": kinds,
            "r": ready}


def _max_alive(lanes: list[Lane]) -> int:
    """Most members alive at once (first ready to last slice end): the group lane's
    full height stands for that many greenlets."""
    edges = []
    for lane in lanes:
        first = lane.slices[0]
        edges.append((first.start - (first.ready or 0.0), 1))
        edges.append((lane.slices[-1].start + lane.slices[-1].duration, -1))
    edges.sort()
    alive = best = 0
    for _, step in edges:
        alive += step
        best = max(best, alive)
    return max(best, 1)


def hub_idle(profile: Profile, hub: Lane, others: list[Lane]) -> tuple[list[float], str]:
    """Idle seconds at the start of each hub slice, and how they were placed.

    The tracer measures the hub's idle time in total.  Within a hub slice the poll
    comes first and the wake-ups it delivers make greenlets ready when it returns, so
    the part of a hub slice before the first ready wait that starts in it is drawn as
    idle, scaled so the drawn total is the measured one.  Without ready waits the
    measured share is spread evenly over the hub's slices."""
    measured = num(profile.hub, "idle_s")
    run = sum(r.duration for r in hub.slices)
    if measured is None or run <= 0:
        return [0.0] * len(hub.slices), "hub idle was not measured in this profile"
    ready_starts = sorted(r.start - r.ready for lane in others for r in lane.slices
                          if r.ready is not None and r.ready > 0)
    if not ready_starts:
        share = min(measured / run, 1.0)
        return [r.duration * share for r in hub.slices], (
            f"hub idle {format_seconds(measured)} measured in total, spread evenly over "
            "the hub's slices")
    estimate = []
    for r in hub.slices:
        index = bisect_left(ready_starts, r.start)
        first = ready_starts[index] if index < len(ready_starts) else float("inf")
        estimate.append(min(max(first - r.start, 0.0), r.duration))
    total = sum(estimate)
    factor = measured / total if total > 0 else 0.0
    idle = [min(e * factor, r.duration) for e, r in zip(estimate, hub.slices)]
    return idle, (f"hub idle {format_seconds(measured)} measured; drawn where the hub "
                  "ran before the first greenlet it woke became ready")


def timeline_data(profile: Profile) -> tuple[dict[str, Any], dict[int, int], dict[int, float]]:
    """(timeline JSON, greenlet id -> group index, id(finding) -> marker time in us)."""
    lanes = build_lanes(profile)
    sections: dict[str, int] = {}
    hub = next((lane for lane in lanes if lane.is_hub), None)
    workers = [lane for lane in lanes if not lane.is_hub]
    by_gid = {lane.gid: lane for lane in workers}
    stats = {g.id: g for g in profile.greenlets}

    def cost(lane: Lane) -> float:
        g = stats.get(lane.gid)
        if g is None:
            return sum(r.duration for r in lane.slices)
        return g.run_s + g.wait_s + (num(g, "delayed_others_s") or 0.0)

    groups, group_of = [], {}
    seen: set[int] = set()
    for group in greenlet_groups(profile):
        members = sorted((by_gid[i] for i in group.ids if i in by_gid), key=cost, reverse=True)
        if not members:
            continue
        seen.update(m.gid for m in members)
        groups.append((group, members))
    for lane in workers:  # slices of greenlets the stats do not list
        if lane.gid not in seen:
            from geventperf.formats._tables import Group
            groups.append((Group(lane.name, [lane.gid]), [lane]))
    group_data = []
    for index, (group, members) in enumerate(groups):
        for m in members:
            group_of[m.gid] = index
        first = min(m.slices[0].start - (m.slices[0].ready or 0.0) for m in members)
        split = group.event_wait_s is not None and group.ready_wait_s is not None
        parts = [f"CPU {format_seconds(group.cpu_s)}" if group.cpu_s is not None else
                 f"run {format_seconds(group.run_s)}"]
        parts += [f"event wait {format_seconds(group.event_wait_s)}",
                  f"ready wait {format_seconds(group.ready_wait_s)}"] if split else \
            [f"wait {format_seconds(group.wait_s)}"]
        if group.delayed_others_s is not None:
            parts.append(f"delayed others {format_seconds(group.delayed_others_s)}")
        group_data.append({
            "name": group.name, "n": group.n, "drawn": len(members),
            "cost": _us(group.cost_s), "first": _us(first),
            "scale": _max_alive(members),
            "totals": ", ".join(parts) + (" (summed over its greenlets)"
                                          if group.n > 1 else ""),
            "members": [_member(m, sections) for m in members]})
    hub_data = None
    if hub is not None:
        idle, note = hub_idle(profile, hub, workers)
        hub_data = {**_member(hub, sections), "i": [_us(v) for v in idle], "note": note}
    end = max([profile.duration_s] + [r.start + r.duration for lane in lanes
                                      for r in lane.slices[-1:]])
    c_sections = {s.name for s in profile.sections if s.c}
    all_lanes = {lane.gid: lane for lane in lanes}
    times = {id(f): _us(finding_time(f, all_lanes)) for f in profile.findings}
    data = {"end": _us(end), "hub": hub_data, "groups": group_data,
            "sections": [{"name": name, "c": name in c_sections} for name in sections],
            "dropped": profile.slices_dropped,
            "dropped_note": (f"Timeline truncated: {profile.slices_dropped} run slices "
                             "were dropped by the tracer's bounded record. The totals are "
                             "exact; the timeline shows part of the run.")
            if profile.slices_dropped else ""}
    return data, group_of, times
