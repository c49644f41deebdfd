"""Collapsed stacks (``frame;frame;frame weight``), the input of flamegraph.pl,
inferno, speedscope and most flame graph viewers.

Outermost frame first; weights are integer microseconds of running time, and waits
appear as synthetic leaves under the frame that yielded: ``<event wait>`` (the event
had not happened) and ``<ready wait>`` (ready, queued behind others), or one ``<hub
wait>`` when the profile does not split them.  Stacks are
not per greenlet in a Profile, so there is no greenlet root frame.
"""

from __future__ import annotations

from collections import Counter

from geventperf.formats._frames import frame_label, wait_parts
from geventperf.profile import Profile

MICROSECONDS = 1_000_000


def _label(entry: str) -> str:
    # ";" separates frames and the last space separates the weight; newlines end lines.
    # Spaces inside a frame are fine (tools split on the last one).
    return " ".join(frame_label(entry).replace(";", ",").split())


def render(profile: Profile) -> str:
    weights: Counter[str] = Counter()
    for run in profile.runs:
        frames = [_label(e) for e in reversed(run.stack)] or ["<unknown stack>"]
        weights[";".join(frames)] += round(run.run_s * MICROSECONDS)
    for wait in profile.waits:
        frames = [_label(e) for e in reversed(wait.stack)]
        for name, seconds in wait_parts(wait):
            weights[";".join(frames + [name])] += round(seconds * MICROSECONDS)
    # A zero weight draws nothing and some tools reject it.
    lines = [f"{stack} {weight}" for stack, weight in sorted(weights.items()) if weight > 0]
    return "\n".join(lines) + "\n" if lines else ""
