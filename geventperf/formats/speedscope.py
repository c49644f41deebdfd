"""speedscope's file format (https://www.speedscope.app/file-format-schema.json).

Profiles in the file:

1. "all greenlets": a sampled profile of the stacks, running time at the frame where a
   slice ended and waits as ``<event wait>`` and ``<ready wait>`` leaves (one ``<hub
   wait>`` leaf when the profile does not split them), weights in microseconds.  Stacks
   are not kept per greenlet by the tracer, so this one covers them all.
2. when the run was sampled, one sampled profile per greenlet name, "CPU: NAME": its
   sampled CPU stacks, weights in microseconds of CPU (the first is made active);
3. one evented profile per greenlet with timeline slices: ``run`` (or the section it
   ran in) and ``<event wait>`` / ``<ready wait>`` (or ``<hub wait>``) frames, in time order, so the "Time Order" view is the
   greenlet's timeline.
"""

from __future__ import annotations

import json
from typing import Any

from geventperf.formats._frames import short_path, wait_parts
from geventperf.formats._timeline import WAIT_FRAMES, build_lanes
from geventperf.frames import parse_frame
from geventperf.profile import Profile
from geventperf.sampling.views import by_greenlet, chains, samples_of

SCHEMA_URL = "https://www.speedscope.app/file-format-schema.json"
MICROSECONDS = 1_000_000
# Microsecond values are kept to the nanosecond: finer digits are clock noise and
# only make the file larger.
DECIMALS = 3


class _FrameTable:
    """speedscope's shared.frames: each distinct frame once, referred to by index."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self._index: dict[tuple, int] = {}

    def index(self, name: str, file: str | None = None, line: int | None = None) -> int:
        key = (name, file, line)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.frames)
            frame: dict[str, Any] = {"name": name}
            if file:
                frame["file"] = file
            if line:
                frame["line"] = line
            self.frames.append(frame)
        return found

    def entry(self, entry: str) -> int:
        frame = parse_frame(entry)
        return self.index(frame.function, short_path(frame.path) or None, frame.line or None)


def _us(seconds: float) -> float:
    return round(seconds * MICROSECONDS, DECIMALS)


def _sampled(profile: Profile, table: _FrameTable) -> dict[str, Any]:
    samples: list[list[int]] = []
    weights: list[float] = []
    for run in profile.runs:
        if run.run_s > 0:
            stack = [table.entry(e) for e in reversed(run.stack)] or \
                [table.index("<unknown stack>")]
            samples.append(stack)
            weights.append(_us(run.run_s))
    for wait in profile.waits:
        stack = [table.entry(e) for e in reversed(wait.stack)]
        for name, seconds in wait_parts(wait):
            if seconds > 0:
                samples.append(stack + [table.index(name)])
                weights.append(_us(seconds))
    return {"type": "sampled", "name": "all greenlets: running time and waits by stack",
            "unit": "microseconds", "startValue": 0, "endValue": round(sum(weights), DECIMALS),
            "samples": samples, "weights": weights}


def _cpu_profiles(profile: Profile, table: _FrameTable) -> list[dict[str, Any]]:
    samples = samples_of(profile)
    if samples is None:
        return []
    out = []
    for name in by_greenlet(samples):
        stacks: list[list[int]] = []
        weights: list[float] = []
        for cpu in chains(samples):
            if cpu.greenlet == name and cpu.cpu_s > 0:
                stacks.append([table.entry(e) for e in reversed(cpu.labels)] or
                              [table.index("<unknown stack>")])
                weights.append(_us(cpu.cpu_s))
        out.append({"type": "sampled", "name": f"CPU: {name}", "unit": "microseconds",
                    "startValue": 0, "endValue": round(sum(weights), DECIMALS),
                    "samples": stacks, "weights": weights})
    return out


def _evented(lane, table: _FrameTable) -> dict[str, Any]:
    run_frame = table.index("run")
    spans = [(start, duration, table.index(f"section: {section}") if section else run_frame)
             for start, duration, section, _ready in lane.slices]
    spans += [(start, duration, table.index(WAIT_FRAMES[kind]))
              for start, duration, kind in lane.waits()]
    spans.sort(key=lambda span: span[0])
    events: list[dict[str, Any]] = []
    last = 0.0
    for start, duration, frame in spans:
        # Open/close must be in time order and nested; rounding must not reorder them.
        opened = max(_us(start), last)
        last = max(_us(start + duration), opened)
        events.append({"type": "O", "frame": frame, "at": opened})
        events.append({"type": "C", "frame": frame, "at": last})
    start_value = events[0]["at"] if events else 0
    return {"type": "evented", "name": f"{lane.name} (#{lane.gid})", "unit": "microseconds",
            "startValue": start_value, "endValue": last if events else 0, "events": events}


def build_document(profile: Profile) -> dict[str, Any]:
    table = _FrameTable()
    profiles = [_sampled(profile, table)]
    cpu = _cpu_profiles(profile, table)
    profiles += cpu
    profiles += [_evented(lane, table) for lane in build_lanes(profile)]
    return {"$schema": SCHEMA_URL, "shared": {"frames": table.frames},
            "profiles": profiles, "name": "geventperf profile",
            "activeProfileIndex": 1 if cpu else 0,
            "exporter": "geventperf"}


def render(profile: Profile) -> str:
    return json.dumps(build_document(profile), separators=(",", ":"), allow_nan=False)
