"""pprof (``profile.proto``, gzip-compressed): what continuous-profiling backends
ingest (Pyroscope, Parca, Grafana, Datadog) and ``go tool pprof`` reads.

Sample types, all in nanoseconds: ``cpu`` (sampled CPU stacks, labelled with the
greenlet name and the open sections), ``event-wait`` and ``ready-wait`` (hub wait at
the stack where a greenlet yielded: the awaited event had not happened / it had but
others held the loop), or one ``wait`` when the profile does not split waits.  A
profile without CPU samples gives ``cpu`` the CPU of run slices at the stack where they
switched out, labelled ``cpu_source=switch-out`` (where the greenlet yielded, not where
it burned the CPU).  Waits are not kept per greenlet, so they carry no greenlet label.
"""

from __future__ import annotations

import gzip
from typing import Any

from geventperf.formats._pprof_schema import messages
from geventperf.frames import parse_frame
from geventperf.profile import Profile
from geventperf.sampling.views import chains, function_of, samples_of

NANOSECONDS = 1_000_000_000
# gzip level: pprof files are read by tools, written once; level 6 is zlib's default
# balance (9 is slower for a few percent).
GZIP_LEVEL = 6
# How nested sections are joined into one "section" label value.
SECTION_JOINER = " > "


class _Builder:
    def __init__(self) -> None:
        self.m = messages()
        self.out = self.m["Profile"]()
        self._strings: dict[str, int] = {}
        self._functions: dict[tuple[str, int, str], int] = {}
        self._locations: dict[tuple[tuple[str, int, str], int], int] = {}
        # (path, function) -> first line, learnt from the samples: a wait stack's frame
        # of a function the samples saw is the same pprof Function
        self.first_lines: dict[tuple[str, str], int] = {}
        self.string("")  # string_table[0] must be ""

    def string(self, text: str) -> int:
        at = self._strings.get(text)
        if at is None:
            at = self._strings[text] = len(self.out.string_table)
            self.out.string_table.append(text)
        return at

    def value_type(self, target: Any, kind: str, unit: str) -> None:
        target.type, target.unit = self.string(kind), self.string(unit)

    def location(self, label: str, first_line: int = 0) -> int:
        frame = parse_frame(label)
        if frame.path and first_line:
            self.first_lines[(frame.path, frame.function)] = first_line
        first_line = first_line or self.first_lines.get((frame.path, frame.function), 0)
        func = function_of(label, first_line) if frame.path else ("", 0, frame.function)
        key = (func, frame.line)
        at = self._locations.get(key)
        if at is not None:
            return at
        fid = self._functions.get(func)
        if fid is None:
            fid = self._functions[func] = len(self._functions) + 1
            path, start, name = func
            self.out.function.add(id=fid, name=self.string(name),
                                  system_name=self.string(name),
                                  filename=self.string(path), start_line=start)
        at = self._locations[key] = len(self._locations) + 1
        loc = self.out.location.add(id=at)
        loc.line.add(function_id=fid, line=frame.line)
        return at

    def sample(self, stack: list[int], values: list[int], labels: dict[str, str]) -> None:
        if not any(values):
            return
        s = self.out.sample.add(location_id=stack, value=values)
        for key, value in labels.items():
            s.label.add(key=self.string(key), str=self.string(value))


def _ns(seconds: float | None) -> int:
    return max(0, round((seconds or 0.0) * NANOSECONDS))


def _split(profile: Profile) -> bool:
    return any(w.event_wait_s is not None for w in profile.waits) or not profile.waits


def build(profile: Profile) -> Any:
    """The Profile message (not yet serialised)."""
    b = _Builder()
    split = _split(profile)
    kinds = ["cpu", "event-wait", "ready-wait"] if split else ["cpu", "wait"]
    for kind in kinds:
        b.value_type(b.out.sample_type.add(), kind, "nanoseconds")
    width = len(kinds)
    samples = samples_of(profile)
    if samples is not None:
        for cpu in chains(samples):
            stack = [b.location(label, first)
                     for label, first in zip(cpu.labels, cpu.first_lines)]
            labels = {"greenlet": cpu.greenlet}
            if cpu.sections:
                labels["section"] = SECTION_JOINER.join(cpu.sections)
            b.sample(stack or [b.location("<unknown stack>")],
                     [_ns(cpu.cpu_s)] + [0] * (width - 1), labels)
        interval = samples.interval_s
        b.value_type(b.out.period_type, "cpu", "nanoseconds")
        b.out.period = _ns(interval)
    else:
        names = {g.id: g.name for g in profile.greenlets}
        for run in profile.runs:
            stack = [b.location(e) for e in run.stack] or [b.location("<unknown stack>")]
            labels = {"cpu_source": "switch-out"}
            if run.greenlet in names:
                labels["greenlet"] = names[run.greenlet]
            b.sample(stack, [_ns(run.cpu_s if run.cpu_s is not None else run.run_s)]
                     + [0] * (width - 1), labels)
    for wait in profile.waits:
        stack = [b.location(e) for e in wait.stack] or [b.location("<unknown stack>")]
        if split:
            values = [0, _ns(wait.event_wait_s), _ns(wait.ready_wait_s)]
        else:
            values = [0, _ns(wait.wait_s)]
        b.sample(stack, values, {})
    b.out.default_sample_type = b.string("cpu")
    b.out.duration_nanos = _ns(profile.duration_s)
    started = profile.meta.get("started_at") if isinstance(profile.meta, dict) else None
    if isinstance(started, (int, float)) and not isinstance(started, bool) and started > 0:
        b.out.time_nanos = _ns(started)
    b.out.comment.append(b.string("geventperf"))
    return b.out


def render(profile: Profile) -> bytes:
    return gzip.compress(build(profile).SerializeToString(), compresslevel=GZIP_LEVEL,
                         mtime=0)
