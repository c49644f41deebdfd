"""Collapsed stacks (``frame;frame;frame weight``), the input of flamegraph.pl,
inferno, speedscope and most flame graph viewers.

Outermost frame first; weights are integer microseconds of running time, and hub wait
appears as a synthetic leaf ``<hub wait>`` under the frame that yielded.  Stacks are
not per greenlet in a Profile, so there is no greenlet root frame.
"""

from __future__ import annotations

from collections import Counter

from geventperf.formats._frames import HUB_WAIT_NAME, frame_label
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
        frames = [_label(e) for e in reversed(wait.stack)] + [HUB_WAIT_NAME]
        weights[";".join(frames)] += round(wait.wait_s * MICROSECONDS)
    # A zero weight draws nothing and some tools reject it.
    lines = [f"{stack} {weight}" for stack, weight in sorted(weights.items()) if weight > 0]
    return "\n".join(lines) + "\n" if lines else ""
