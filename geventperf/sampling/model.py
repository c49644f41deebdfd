"""CpuSamples: the sampled CPU stacks of a run, as a Profile keeps and saves them.

Samples are aggregated per (greenlet name, open sections, stack): a stack is a list of
indices into one shared ``frames`` table (each ``path:line:function``, innermost
first), so a long run with deep stacks stays small on disk.  ``cpu_s`` of an entry is
the thread CPU time its samples stand for: a typical tick's each, and a sample delayed
by a long C call (Python runs signal handlers between bytecodes) that call's whole CPU
(see ``Sampler._weigh``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geventperf.profile import (
    ProfileError,
    _int,
    _list,
    _num,
    _obj,
    _opt_int,
    _opt_num,
    _str,
)

# Name given to samples taken when no greenlet record was current (the sampler fired
# between the tracer's start and its first switch, or after an internal error).
UNKNOWN_GREENLET = "<unknown greenlet>"
# Frame standing for the frames past the sampler's depth limit (outermost end).
TRUNCATED = "<truncated>"
# Stack of samples that no longer fit the bounded stack table.
OTHER = "<other stacks>"


@dataclass
class SampledStack:
    """CPU samples of one greenlet name, in one nest of sections, at one stack."""

    frames: list[int]            # indices into CpuSamples.frames, innermost first
    greenlet: str                # the running greenlet's name ("hub" for the hub)
    sections: list[str]          # open sections, outermost first
    count: int = 0
    cpu_s: float = 0.0
    gid: int | None = None       # the last greenlet id sampled here


@dataclass
class CpuSamples:
    frames: list[str] = field(default_factory=list)
    # First line of each frame's function (pstats and pprof name functions by it);
    # 0 when unknown.
    first_lines: list[int] = field(default_factory=list)
    stacks: list[SampledStack] = field(default_factory=list)
    interval_s: float | None = None      # the configured (base) interval, CPU seconds
    budget: float | None = None          # the CPU share the sampler may use
    # The interval in force when sampling stopped (raised by the budget).
    final_interval_s: float | None = None
    overhead_s: float = 0.0              # CPU spent inside the sampler's handler
    errors: int = 0                      # exceptions inside the handler (never raised)
    dropped: int = 0                     # samples folded into OTHER (table full)
    mechanism: str = "setitimer(ITIMER_PROF)"
    # Why sampling did not run, when it did not (main thread only, SIGPROF taken...).
    unavailable: str | None = None
    # What the program's serialisation libraries ran with (sampling/libraries.py):
    # {"protobuf_backend": "python", "thrift_fastbinary": True, ...}
    libraries: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return sum(s.count for s in self.stacks)

    @property
    def cpu_s(self) -> float:
        return sum(s.cpu_s for s in self.stacks)

    def stack_labels(self, stack: SampledStack) -> list[str]:
        """The stack's frames as ``path:line:function`` strings, innermost first."""
        return [self.frames[i] for i in stack.frames]

    # -- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "frames": list(self.frames), "first_lines": list(self.first_lines),
            "stacks": [{"frames": list(s.frames), "greenlet": s.greenlet,
                        "sections": list(s.sections), "count": s.count, "cpu_s": s.cpu_s,
                        "gid": s.gid} for s in self.stacks],
            "interval_s": self.interval_s, "budget": self.budget,
            "final_interval_s": self.final_interval_s, "overhead_s": self.overhead_s,
            "errors": self.errors, "dropped": self.dropped, "mechanism": self.mechanism,
            "unavailable": self.unavailable, "libraries": dict(self.libraries),
        }

    @classmethod
    def from_dict(cls, value: Any) -> CpuSamples:
        """Parse the ``cpu_samples`` field of a profile, checking what renderers use."""
        data = _obj(value, "cpu_samples")
        frames = [_frame_label(f) for f in _list(data, "frames")]
        first_lines = _list(data, "first_lines", required=False) or [0] * len(frames)
        if len(first_lines) != len(frames) or not all(
                type(n) is int and n >= 0 for n in first_lines):
            raise ProfileError("cpu_samples 'first_lines' must be one integer >= 0 per frame")
        stacks = [_sampled_stack(s, len(frames)) for s in _list(data, "stacks")]
        unavailable = data.get("unavailable")
        if unavailable is not None and not isinstance(unavailable, str):
            raise ProfileError("cpu_samples 'unavailable' must be a string or null")
        return cls(frames=frames, first_lines=list(first_lines), stacks=stacks,
                   interval_s=_opt_num(data, "interval_s"), budget=_opt_num(data, "budget"),
                   final_interval_s=_opt_num(data, "final_interval_s"),
                   overhead_s=_num(data, "overhead_s", 0.0), errors=_int(data, "errors", 0),
                   dropped=_int(data, "dropped", 0),
                   mechanism=_str(data, "mechanism", "setitimer(ITIMER_PROF)"),
                   unavailable=unavailable, libraries=_libraries(data))


def _libraries(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("libraries", {})
    if not isinstance(value, dict) or not all(
            v is None or isinstance(v, (str, bool)) for v in value.values()):
        raise ProfileError("cpu_samples 'libraries' must map names to strings or booleans")
    return dict(value)


def _frame_label(value: Any) -> str:
    if not isinstance(value, str):
        raise ProfileError("cpu_samples 'frames' must be a list of strings")
    return value


def _sampled_stack(value: Any, nframes: int) -> SampledStack:
    s = _obj(value, "cpu_samples.stacks")
    frames = s.get("frames")
    if not isinstance(frames, list) or not all(
            type(i) is int and 0 <= i < nframes for i in frames):
        raise ProfileError(f"a cpu_samples stack's 'frames' must be indices into the "
                           f"{nframes} frames of the table")
    sections = s.get("sections", [])
    if not isinstance(sections, list) or not all(isinstance(x, str) for x in sections):
        raise ProfileError("a cpu_samples stack's 'sections' must be a list of strings")
    count = _int(s, "count")
    cpu = _num(s, "cpu_s")
    if count < 0 or cpu < 0:
        raise ProfileError("a cpu_samples stack's 'count' and 'cpu_s' must be >= 0")
    return SampledStack(frames=list(frames), greenlet=_str(s, "greenlet"),
                        sections=list(sections), count=count, cpu_s=cpu,
                        gid=_opt_int(s, "gid"))


def merge_samples(parts: list[tuple[CpuSamples | None, Any]]) -> CpuSamples | None:
    """Combine the samples of several profiles.  *parts* pairs each profile's samples
    with the function renumbering its greenlet ids.  Entries of the same greenlet name,
    sections and stack (compared as labels) are summed."""
    present = [(s, remap) for s, remap in parts if s is not None]
    if not present:
        return None
    out = CpuSamples(interval_s=present[0][0].interval_s, budget=present[0][0].budget,
                     mechanism=present[0][0].mechanism)
    index: dict[tuple[str, int], int] = {}
    by_key: dict[tuple[Any, ...], SampledStack] = {}
    reasons = []
    for samples, remap in present:
        mapping = []
        for label, first in zip(samples.frames, samples.first_lines):
            at = index.get((label, first))
            if at is None:
                at = index[(label, first)] = len(out.frames)
                out.frames.append(label)
                out.first_lines.append(first)
            mapping.append(at)
        for st in samples.stacks:
            frames = [mapping[i] for i in st.frames]
            key = (st.greenlet, tuple(st.sections), tuple(frames))
            acc = by_key.get(key)
            if acc is None:
                acc = by_key[key] = SampledStack(frames=frames, greenlet=st.greenlet,
                                                 sections=list(st.sections))
            acc.count += st.count
            acc.cpu_s += st.cpu_s
            acc.gid = remap(st.gid) if st.gid is not None else acc.gid
        for name, value in samples.libraries.items():  # disagreeing inputs: unknown
            out.libraries[name] = value if out.libraries.get(name, value) == value else None
        out.overhead_s += samples.overhead_s
        out.errors += samples.errors
        out.dropped += samples.dropped
        if samples.interval_s != out.interval_s:
            out.interval_s = None  # mixed settings: no one interval
        if samples.final_interval_s is not None:
            out.final_interval_s = max(out.final_interval_s or 0.0, samples.final_interval_s)
        if samples.unavailable:
            reasons.append(samples.unavailable)
    out.stacks = sorted(by_key.values(), key=lambda s: -s.cpu_s)
    if reasons and len(reasons) == len(present):
        out.unavailable = reasons[0]
    return out
