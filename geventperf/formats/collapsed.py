"""Collapsed stacks (``frame;frame;frame weight``), the input of flamegraph.pl,
inferno, speedscope and most flame graph viewers.

Outermost frame first; weights are integer microseconds of running time, and waits
appear as synthetic leaves under the frame that yielded: ``<event wait>`` (the event
had not happened) and ``<ready wait>`` (ready, queued behind others), or one ``<hub
wait>`` when the profile does not split them.  Wait stacks are
not per greenlet in a Profile, so they have no greenlet root frame.

When the run was sampled, the sampled CPU stacks replace the running time at switch-out
stacks: one tree per greenlet name, rooted at ``<cpu> NAME`` (weights: microseconds of
CPU), apart from the waits.
"""

from __future__ import annotations

from collections import Counter

from geventperf.formats._frames import frame_label, wait_parts
from geventperf.profile import Profile
from geventperf.sampling.views import chains, cpu_root, samples_of

MICROSECONDS = 1_000_000


def _label(entry: str) -> str:
    # ";" separates frames and the last space separates the weight; newlines end lines.
    # Spaces inside a frame are fine (tools split on the last one).
    return " ".join(frame_label(entry).replace(";", ",").split())


def render(profile: Profile) -> str:
    weights: Counter[str] = Counter()
    samples = samples_of(profile)
    if samples is not None:
        for cpu in chains(samples):
            frames = [_label(cpu_root(cpu.greenlet))] + [_label(e) for e in reversed(cpu.labels)]
            weights[";".join(frames)] += round(cpu.cpu_s * MICROSECONDS)
    for run in profile.runs if samples is None else ():
        frames = [_label(e) for e in reversed(run.stack)] or ["<unknown stack>"]
        weights[";".join(frames)] += round(run.run_s * MICROSECONDS)
    for wait in profile.waits:
        frames = [_label(e) for e in reversed(wait.stack)]
        for name, seconds in wait_parts(wait):
            weights[";".join(frames + [name])] += round(seconds * MICROSECONDS)
    # A zero weight draws nothing and some tools reject it.
    lines = [f"{stack} {weight}" for stack, weight in sorted(weights.items()) if weight > 0]
    return "\n".join(lines) + "\n" if lines else ""
