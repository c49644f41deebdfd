"""Chrome trace event JSON, loadable in Perfetto (ui.perfetto.dev) and chrome://tracing.

One track per greenlet (the hub first): its run slices as complete ("X") events named
by the section they ran in, else "run"; its waits (the gaps between its run slices) as
"X" events named "event wait" and "ready wait" (or "wait" when the profile does not
split them); findings as instant ("i") events; track and process names as
metadata ("M") events.  Timestamps and durations are microseconds, as the format says.
Track ids are small sequential numbers: greenlet ids can be addresses, too large for
some viewers; the id is kept in the track name.
"""

from __future__ import annotations

import json
from typing import Any

from geventperf.formats._frames import frame_label
from geventperf.formats._timeline import EVENT, READY, WAIT, build_lanes, finding_time
from geventperf.formats.text import command_line
from geventperf.profile import Profile

MICROSECONDS = 1_000_000
DECIMALS = 3  # nanosecond resolution; more digits are clock noise
PID = 1
# Findings about no greenlet go on a track of their own above the others.
FINDINGS_TID = 0
# Event names of waits: queueing and I/O apart when the tracer split them.
WAIT_NAMES = {EVENT: "event wait", READY: "ready wait", WAIT: "wait"}


def _us(seconds: float) -> float:
    return round(seconds * MICROSECONDS, DECIMALS)


def _us_dur(start: float, duration: float) -> float:
    """The duration as the rounded end less the rounded start, so that an event ends
    where the next one on its track begins (each rounded on its own, they could overlap
    by a rounding step)."""
    return round(_us(start + duration) - _us(start), DECIMALS)


def _metadata(name: str, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": PID, "tid": tid, "args": args}


def build_events(profile: Profile) -> list[dict[str, Any]]:
    lanes = build_lanes(profile)
    title = "geventperf"
    command = command_line(profile)
    if command:
        title += ": " + command[:200]
    events = [_metadata("process_name", FINDINGS_TID, {"name": title}),
              _metadata("thread_name", FINDINGS_TID, {"name": "findings"}),
              _metadata("thread_sort_index", FINDINGS_TID, {"sort_index": FINDINGS_TID})]
    tids: dict[int, int] = {}
    for tid, lane in enumerate(lanes, start=1):
        tids[lane.gid] = tid
        events.append(_metadata("thread_name", tid, {"name": f"{lane.name} (#{lane.gid})"}))
        events.append(_metadata("thread_sort_index", tid, {"sort_index": tid}))
        for start, duration, section, _ready in lane.slices:
            event: dict[str, Any] = {"name": section or "run", "cat": "section" if section
                                     else "run", "ph": "X", "ts": _us(start),
                                     "dur": _us_dur(start, duration), "pid": PID, "tid": tid}
            if section:
                event["args"] = {"section": section}
            events.append(event)
        for start, duration, kind in lane.waits():
            events.append({"name": WAIT_NAMES[kind], "cat": "wait", "ph": "X",
                           "ts": _us(start), "dur": _us_dur(start, duration), "pid": PID,
                           "tid": tid})
    lanes_by_gid = {lane.gid: lane for lane in lanes}
    for finding in profile.findings:
        tid = tids.get(finding.greenlet, FINDINGS_TID) if finding.greenlet is not None \
            else FINDINGS_TID
        events.append({"name": finding.kind, "cat": "finding", "ph": "i", "s": "t",
                       "ts": _us(finding_time(finding, lanes_by_gid)),
                       "pid": PID, "tid": tid,
                       "args": {"message": finding.message, "cost_s": finding.cost_s,
                                "section": finding.section,
                                "stack": [frame_label(e) for e in finding.stack]}})
    return events


def render(profile: Profile) -> str:
    document = {"traceEvents": build_events(profile), "displayTimeUnit": "ms",
                "otherData": {"generator": "geventperf",
                              "slices_dropped": profile.slices_dropped}}
    return json.dumps(document, separators=(",", ":"), allow_nan=False)
