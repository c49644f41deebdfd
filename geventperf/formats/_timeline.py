"""Per-greenlet lanes of run slices, and the waits between them, for timeline formats.

A Profile records run slices only; a greenlet's waits are the gaps between its
consecutive run slices.  When the tracer recorded a slice's ready wait (``ready_s``),
the gap splits in two: event wait from the previous slice's end to
``start - ready_s``, then ready wait (ready but queued) up to the slice's start.
Timestamps can overlap by a rounding error, so every lane is made strictly sequential
here once, and chrome / speedscope / html draw from that.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple

from geventperf.formats._fields import slice_ready
from geventperf.formats._frames import (
    EVENT_WAIT_NAME,
    HUB_WAIT_NAME,
    READY_WAIT_NAME,
    greenlet_names,
    hub_ids,
)
from geventperf.profile import Finding, Profile

# Gaps shorter than this are clock noise between two slices, not a wait worth drawing.
MIN_GAP_S = 1e-9

# Kinds of wait a gap can be; the names are the pseudo-frames of the viewer formats.
EVENT, READY, WAIT = "event", "ready", "wait"
WAIT_FRAMES = {EVENT: EVENT_WAIT_NAME, READY: READY_WAIT_NAME, WAIT: HUB_WAIT_NAME}


class Run(NamedTuple):
    start: float
    duration: float
    section: str | None
    # Ready wait just before this slice (None: not recorded).
    ready: float | None = None


@dataclass
class Lane:
    gid: int
    name: str
    is_hub: bool
    # Run slices sorted by start, non-overlapping.
    slices: list[Run] = field(default_factory=list)

    def waits(self) -> Iterator[tuple[float, float, str]]:
        """(start_s, duration_s, kind) of each wait between consecutive run slices
        (and the ready wait before the first, from spawn to first run): kind ``event``
        and ``ready`` when the slice's ready wait is known, else ``wait``.  The hub has no waits: its gaps are the time the other greenlets ran."""
        if self.is_hub:
            return
        previous_end = None
        first = self.slices[0] if self.slices else None
        if first is not None and first.ready is not None:
            # spawned, not yet run (from the start of the trace at the earliest)
            ready = min(first.ready, max(first.start, 0.0))
            if ready > MIN_GAP_S:
                yield first.start - ready, ready, READY
        for run in self.slices:
            if previous_end is not None and run.start - previous_end > MIN_GAP_S:
                gap = run.start - previous_end
                if run.ready is None:
                    yield previous_end, gap, WAIT
                else:
                    ready = min(run.ready, gap)
                    if gap - ready > MIN_GAP_S:
                        yield previous_end, gap - ready, EVENT
                    if ready > MIN_GAP_S:
                        yield run.start - ready, ready, READY
            previous_end = run.start + run.duration


def build_lanes(profile: Profile) -> list[Lane]:
    """One lane per greenlet that has slices: the hub first, then by first run."""
    names = greenlet_names(profile)
    hubs = hub_ids(profile)
    raw: dict[int, list[Run]] = defaultdict(list)
    for s in profile.slices:
        raw[s.greenlet].append(Run(s.start_s, max(s.duration_s, 0.0), s.section,
                                   slice_ready(s)))
    lanes = []
    for gid, slices in raw.items():
        slices.sort(key=lambda item: item[0])
        lanes.append(Lane(gid, names.get(gid, f"greenlet-{gid}"), gid in hubs,
                          _sequential(slices)))
    lanes.sort(key=lambda lane: (not lane.is_hub, lane.slices[0][0], lane.gid))
    return lanes


def _sequential(slices: list[Run]) -> list[Run]:
    """Clip each slice to start no earlier than the previous one ended: one greenlet
    cannot run twice at once, so any overlap is measurement rounding."""
    out = []
    previous_end = float("-inf")
    for start, duration, section, ready in slices:
        end = start + duration
        start = max(start, previous_end)
        out.append(Run(start, max(end - start, 0.0), section, ready))
        previous_end = max(end, start)
    return out


def finding_time(finding: Finding, lanes_by_gid: dict[int, Lane]) -> float:
    """Where on the time axis to mark a finding.

    Findings carry no timestamp of their own unless the tracer adds one (``at_s`` /
    ``start_s`` in its extra fields); otherwise mark the greenlet's longest slice inside
    the finding's section (or overall), which is where the problem is most visible."""
    for key in ("at_s", "start_s", "time_s"):
        value = finding.extra.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    lane = lanes_by_gid.get(finding.greenlet) if finding.greenlet is not None else None
    if lane is None or not lane.slices:
        return 0.0
    candidates = [s for s in lane.slices if finding.section and s[2] == finding.section] \
        or lane.slices
    longest = max(candidates, key=lambda s: s[1])
    return longest[0]
