"""Profile: the plain, saveable result of a tracing run.

A Profile holds numbers, names and strings only: no tracer, no frames, no live
greenlets.  The tracer produces one; findings, formats and the CLI read it.  The JSON
form is schema version 1 of ``DESIGN.md``; fields may be added, never renamed.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from geventperf import latency

SCHEMA_VERSION = 1

# A saved profile of a long soak is a few MiB; anything far larger is not one of ours
# (or is hostile) and is refused before it is parsed.
MAX_PROFILE_BYTES = 256 * 1024 * 1024

# Largest magnitude of a number in a profile: 2**63, what a 64-bit counter holds, and
# far beyond any time in seconds.  Larger numbers (1e308, 4000-digit integers) are
# corrupt or hostile, and would overflow the renderers' float arithmetic.
MAX_PROFILE_NUMBER = 2 ** 63


class ProfileError(ValueError):
    """A profile file could not be loaded: unreadable, corrupt, foreign or too large."""


# Ends the name the tracer gives a greenlet that runs a threading.Thread:
# monkey-patching makes a thread a greenlet of the loop, which its figures mean
# nothing without (trace/stacks.py names them; findings say what it means).
THREAD_SUFFIX = " (thread)"
# The stack of a run slice that ended as its greenlet exited (nothing was yielded to).
EXIT = "<greenlet exit>"


def most_first(counts: dict[str, int]) -> dict[str, int]:
    """*counts* by name, the largest first (names in order among equals)."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def greenlet_label(name: str | None, gid: Any) -> str:
    """A greenlet as every report and message names it: ``greenlet 'name' (#id)``."""
    return f"greenlet '{name}' (#{gid})" if name else f"greenlet #{gid}"


@dataclass
class GreenletStats:
    id: int
    name: str
    parent: int | None
    run_s: float = 0.0
    cpu_s: float | None = 0.0
    wait_s: float = 0.0
    switches: int = 0
    longest_run_s: float = 0.0
    # Where the greenlet's function was defined, ``path:line:function``; "" if unknown.
    origin: str = ""
    # wait_s split (None in profiles written before the split, and for the hub, whose
    # "wait" is time others ran): the awaited event had not happened yet (I/O, timer,
    # lock) / it had, but others held the loop (queueing).
    event_wait_s: float | None = None
    ready_wait_s: float | None = None
    # Greenlet-seconds of others' ready wait that overlapped this greenlet's run slices:
    # how much it held the loop while others were ready to run.
    delayed_others_s: float | None = None


@dataclass
class SectionStats:
    name: str
    c: bool
    calls: int = 0
    wall_s: float = 0.0
    run_s: float = 0.0
    wait_s: float = 0.0
    switches: int = 0
    cpu_s: float | None = 0.0
    # The same split and blame as GreenletStats, over the time inside the section.
    event_wait_s: float | None = None
    ready_wait_s: float | None = None
    delayed_others_s: float | None = None


def by_generation(counts: list[int]) -> str:
    """``12 / 3 / 0 by generation, youngest first``: Profile.gc_collections in words."""
    return f"{' / '.join(str(c) for c in counts)} by generation, youngest first"


# StackTime.call of a wait that entered a with block.
CALL_WITH = "with"
# ... and of one that asked a for loop's iterator for its next item: a C iterator's
# __next__, such as a gevent Queue's (a consumer waiting for work) or an imap's.
CALL_FOR = "for"
# The calls that take a lock: a wait in one of them, made from the program's own line
# (a compiled lock's, such as a gevent Semaphore's), waited for the lock's holder.
LOCK_CALLS = frozenset({CALL_WITH, "acquire"})


@dataclass
class StackTime:
    """Time attributed to one stack (innermost frame first, ``path:line:function``).

    In ``waits`` it is hub wait that started at that stack (split into event and ready
    wait); in ``runs`` it is running time of slices that ended (switched out) at that
    stack, and the others' ready wait those slices delayed.
    """

    stack: list[str]
    count: int = 0
    wait_s: float = 0.0
    run_s: float = 0.0
    cpu_s: float | None = None
    event_wait_s: float | None = None
    ready_wait_s: float | None = None
    delayed_others_s: float | None = None
    # In ``runs``: the last greenlet that switched out at this stack (None if unknown).
    greenlet: int | None = None
    # In ``waits``: what the innermost frame was calling when it switched out, where its
    # bytecode tells: "with" (entering a with block: the wait is in a C ``__enter__``,
    # such as a gevent semaphore's) or the method's name ("acquire", "get", "wait");
    # None otherwise, and in files written before this field.
    call: str | None = None


@dataclass
class Finding:
    kind: str
    message: str
    greenlet: int | None = None
    section: str | None = None
    stack: list[str] = field(default_factory=list)
    # How bad it is, in seconds of wall time it explains; findings sort worst first.
    cost_s: float = 0.0
    # Kind-specific figures (counts, thresholds, suggested fix); flattened into JSON.
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.extra)
        out.update(kind=self.kind, message=self.message, greenlet=self.greenlet,
                   section=self.section, stack=list(self.stack), cost_s=self.cost_s)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        known = {f.name for f in fields(cls)} - {"extra"}
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(kind=_str(data, "kind"), message=_str(data, "message"),
                   greenlet=_opt_int(data, "greenlet"),
                   section=_opt_str(data, "section"),
                   stack=_stack(data.get("stack", [])),
                   cost_s=_num(data, "cost_s", 0.0), extra=extra)


@dataclass
class Slice:
    """One run slice of a greenlet, for timelines.  Times are seconds from the start."""

    greenlet: int
    start_s: float
    duration_s: float
    section: str | None = None
    # Ready wait just before this slice: the greenlet could run from start_s - ready_s
    # on but others held the loop (None: not measured, or it was not waiting).
    ready_s: float | None = None
    # Where the greenlet went on to wait when this slice ended: an index into the
    # profile's ``waits`` (None: unknown, it ended or it is still running).
    wait: int | None = None

    def to_list(self) -> list[Any]:
        out = [self.greenlet, self.start_s, self.duration_s, self.section, self.ready_s]
        return out if self.wait is None else out + [self.wait]


@dataclass
class Profile:
    duration_s: float = 0.0
    switches: int = 0
    # idle_s: time blocked in the backend poll, measured around the poll itself;
    # utilization: 1 - idle_s / duration_s; polls: loop iterations seen; cpu_wait_s:
    # time the traced thread waited for a CPU (runnable, not running: other processes
    # or a CPU limit), from Linux's schedstat; process_cpu_s: the whole process's CPU
    # (every thread's) over the run; children_cpu_s: its child processes' (reaped, and
    # on Linux live descendants') over the run; None where unknown.
    hub: dict[str, Any] = field(default_factory=lambda: {
        "id": None, "run_s": 0.0, "cpu_s": None, "idle_s": None, "utilization": None,
        "polls": None, "cpu_wait_s": None, "process_cpu_s": None, "children_cpu_s": None})
    greenlets: list[GreenletStats] = field(default_factory=list)
    sections: list[SectionStats] = field(default_factory=list)
    waits: list[StackTime] = field(default_factory=list)
    runs: list[StackTime] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    reads: list[dict[str, Any]] = field(default_factory=list)
    slices: list[Slice] = field(default_factory=list)
    # Run slices the bounded timeline record had to drop; aggregates stay exact.
    slices_dropped: int = 0
    # Exceptions raised inside the trace function (counted, never propagated).
    trace_errors: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    # Raw observations the findings are computed from (switch-outs inside C sections,
    # loop-blocking slices, concurrent lxml file parses): plain dicts with a "kind",
    # kept so findings stay pure functions of the profile.
    events: list[dict[str, Any]] = field(default_factory=list)
    # Ready wait per wake-up: {"bounds_s": [...], "overall": summary, "by_name":
    # {greenlet name: summary}}, summaries as geventperf.latency.summary makes them.
    ready_latency: dict[str, Any] | None = None
    # Sampled CPU stacks per greenlet (geventperf.sampling.model.CpuSamples); None when
    # the run was not sampled (and in profiles written before sampling existed).
    cpu_samples: Any = None

    # -- lookups ---------------------------------------------------------------
    def greenlet(self, gid: int) -> GreenletStats | None:
        for g in self.greenlets:
            if g.id == gid:
                return g
        return None

    def section_named(self, name: str) -> SectionStats | None:
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def gc_collections(self) -> list[int]:
        """The traced thread's garbage collections per generation, youngest first
        (``meta["gc"]``); empty where none were recorded (an older file, or one this
        version did not write)."""
        gc = self.meta.get("gc")
        counts = gc.get("collections") if isinstance(gc, dict) else None
        return counts if isinstance(counts, list) and all(type(c) is int for c in counts) \
            else []

    # -- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "geventperf_schema": SCHEMA_VERSION,
            "duration_s": self.duration_s,
            "switches": self.switches,
            "hub": dict(self.hub),
            "greenlets": [asdict(g) for g in self.greenlets],
            "sections": [asdict(s) for s in self.sections],
            "waits": [asdict(w) for w in self.waits],
            "runs": [asdict(r) for r in self.runs],
            "findings": [f.to_dict() for f in self.findings],
            "reads": [dict(r) for r in self.reads],
            "slices": [s.to_list() for s in self.slices],
            "slices_dropped": self.slices_dropped,
            "trace_errors": self.trace_errors,
            "meta": dict(self.meta),
            "events": [dict(e) for e in self.events],
            "ready_latency": self.ready_latency,
            "cpu_samples": self.cpu_samples.to_dict() if self.cpu_samples is not None
            else None,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Profile:
        """Build a Profile from parsed JSON, checking every field it uses."""
        if not isinstance(data, dict):
            raise ProfileError(f"not a geventperf profile: top level is {type(data).__name__}, "
                               "expected an object")
        version = data.get("geventperf_schema")
        if version is None:
            raise ProfileError("not a geventperf profile: no 'geventperf_schema' field")
        if type(version) is not int or version != SCHEMA_VERSION:  # true == 1.0 == 1
            raise ProfileError(f"unsupported geventperf profile schema {version!r} "
                               f"(this version reads schema {SCHEMA_VERSION})")
        try:
            hub = data.get("hub", {})
            if not isinstance(hub, dict):
                raise ProfileError("field 'hub' must be an object")
            waits = [_stack_time(w) for w in _list(data, "waits")]
            return cls(
                duration_s=_num(data, "duration_s"),
                switches=_int(data, "switches"),
                hub={"id": _opt_int(hub, "id"), "run_s": _num(hub, "run_s", 0.0),
                     "cpu_s": _opt_num(hub, "cpu_s"), "idle_s": _opt_num(hub, "idle_s"),
                     "utilization": _opt_num(hub, "utilization"),
                     "polls": _opt_int(hub, "polls"),
                     "cpu_wait_s": _opt_num(hub, "cpu_wait_s"),
                     "process_cpu_s": _opt_num(hub, "process_cpu_s"),
                     "children_cpu_s": _opt_num(hub, "children_cpu_s")},
                greenlets=[_greenlet(g) for g in _list(data, "greenlets")],
                sections=[_section(s) for s in _list(data, "sections")],
                waits=waits,
                runs=[_stack_time(r) for r in _list(data, "runs", required=False)],
                findings=[Finding.from_dict(_obj(f, "findings")) for f in _list(data, "findings")],
                reads=[_obj(r, "reads") for r in _list(data, "reads", required=False)],
                slices=[_slice(s, len(waits)) for s in _list(data, "slices", required=False)],
                slices_dropped=_int(data, "slices_dropped", 0),
                trace_errors=_int(data, "trace_errors", 0),
                meta=_dict_field(data, "meta"),
                events=[_obj(e, "events") for e in _list(data, "events", required=False)],
                ready_latency=_latency(data.get("ready_latency")),
                cpu_samples=_cpu_samples(data.get("cpu_samples")),
            )
        except ProfileError:
            raise
        except (TypeError, ValueError, KeyError, OverflowError) as exc:  # a shape we did not foresee
            raise ProfileError(f"malformed geventperf profile: {exc}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the profile as JSON (schema version 1)."""
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, separators=(",", ":"), allow_nan=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Profile:
        """Read a profile saved by :meth:`save`.

        Only JSON is read (nothing is executed); a file that is unreadable, not JSON,
        too large, too deeply nested or of another schema raises :class:`ProfileError`.
        """
        try:
            size = os.path.getsize(path)
            if size > MAX_PROFILE_BYTES:
                raise ProfileError(f"{os.fspath(path)}: {size} bytes is larger than any "
                                   f"profile geventperf writes (limit {MAX_PROFILE_BYTES})")
            with open(path, "rb") as fh:
                # At most one byte past the limit: a FIFO or /dev/zero has no size.
                raw = fh.read(MAX_PROFILE_BYTES + 1)
            if len(raw) > MAX_PROFILE_BYTES:
                raise ProfileError(f"{os.fspath(path)}: more than {MAX_PROFILE_BYTES} "
                                   "bytes, larger than any profile geventperf writes")
        except OSError as exc:
            raise ProfileError(f"cannot read profile {os.fspath(path)}: {exc.strerror or exc}") \
                from None
        return cls.loads(raw, source=os.fspath(path))

    @classmethod
    def loads(cls, raw: bytes | str, source: str = "<string>") -> Profile:
        try:
            data = json.loads(raw, parse_constant=_reject_constant, parse_float=_parse_float,
                              parse_int=_parse_int)
            if _may_hold_escapes(raw):
                _reject_lone_surrogates(data)
        except RecursionError:
            raise ProfileError(f"{source}: JSON nested too deeply to be a profile") from None
        except ProfileError as exc:
            raise ProfileError(f"{source}: {exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProfileError(f"{source}: not valid JSON ({exc})") from None
        try:
            return cls.from_dict(data)
        except RecursionError:
            raise ProfileError(f"{source}: JSON nested too deeply to be a profile") from None
        except ProfileError as exc:
            raise ProfileError(f"{source}: {exc}") from None

    @classmethod
    def merge(cls, profiles: list[Profile]) -> Profile:
        """Combine the profiles of several processes; see :func:`merge_profiles`."""
        return merge_profiles(profiles)

    # -- rendering -----------------------------------------------------------------
    def render(self, fmt: str = "text") -> str | bytes:
        """Render in one of :data:`geventperf.FORMATS`."""
        from geventperf.formats import render
        return render(self, fmt)

    def write(self, path: str | os.PathLike[str], fmt: str | None = None) -> str:
        """Write the profile to *path*; the format is guessed from the suffix when not
        given.  Returns the format used."""
        from geventperf.formats import write
        return write(self, path, fmt)


# -- validation helpers: each raises ProfileError naming the field --------------------

def _reject_constant(name: str) -> float:
    raise ProfileError(f"JSON constant {name} is not allowed in a profile")


def _parse_float(text: str) -> float:
    value = float(text)   # 1e999 is inf: json.loads never calls parse_constant for it
    if not abs(value) <= MAX_PROFILE_NUMBER:
        raise ProfileError(f"number {text:.40} is out of range for a profile "
                           f"(largest magnitude {MAX_PROFILE_NUMBER})")
    return value


def _parse_int(text: str) -> int:
    # Checked on the digits first: converting a 4000-digit literal costs time, and one
    # over 4300 digits raises int()'s own ValueError.
    if len(text.lstrip("-")) > len(str(MAX_PROFILE_NUMBER)) or \
            abs(int(text)) > MAX_PROFILE_NUMBER:
        raise ProfileError(f"integer of {len(text.lstrip('-'))} digits ({text:.20}...) is "
                           f"out of range for a profile (largest magnitude "
                           f"{MAX_PROFILE_NUMBER})")
    return int(text)


def _may_hold_escapes(raw: bytes | str) -> bool:
    """False when *raw* has no \\u escape, so no lone surrogate: the common case skips
    the walk of :func:`_reject_lone_surrogates` (as long as the parse itself)."""
    if isinstance(raw, str):
        return "\\u" in raw
    if json.detect_encoding(raw) == "utf-8":
        return b"\\u" in raw
    return True   # UTF-16/32 or a UTF-8 BOM: walk


def _reject_lone_surrogates(data: Any) -> None:
    """A "\\ud800" escape decodes to a lone surrogate, which no UTF-8 output (the text
    report on stdout) can encode: refuse it while loading, not while rendering."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise ProfileError(f"string {item[:40]!r} holds a lone UTF-16 "
                                       "surrogate, which is not text") from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _num(obj: dict[str, Any], key: str, default: float | None = None) -> float:
    value = obj.get(key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise ProfileError(f"field {key!r} must be a finite number, got {value!r:.40}")
    return float(value)


def _opt_num(obj: dict[str, Any], key: str) -> float | None:
    return None if obj.get(key) is None else _num(obj, key)


def _int(obj: dict[str, Any], key: str, default: int | None = None) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"field {key!r} must be an integer, got {value!r:.40}")
    return value


def _opt_int(obj: dict[str, Any], key: str) -> int | None:
    return None if obj.get(key) is None else _int(obj, key)


def _str(obj: dict[str, Any], key: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise ProfileError(f"field {key!r} must be a string, got {value!r:.40}")
    return value


def _dict_field(obj: dict[str, Any], key: str) -> dict[str, Any]:
    value = obj.get(key, {})
    if not isinstance(value, dict):
        raise ProfileError(f"field {key!r} must be an object, got {type(value).__name__}")
    return value


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    return None if obj.get(key) is None else _str(obj, key)


def _list(obj: dict[str, Any], key: str, required: bool = True) -> list[Any]:
    if key not in obj and not required:
        return []
    value = obj.get(key)
    if not isinstance(value, list):
        raise ProfileError(f"field {key!r} must be a list, got {type(value).__name__}")
    return value


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProfileError(f"entries of {where!r} must be objects, got {type(value).__name__}")
    return value


def _stack(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ProfileError("a 'stack' must be a list of strings")
    return list(value)


def _greenlet(value: Any) -> GreenletStats:
    g = _obj(value, "greenlets")
    return GreenletStats(id=_int(g, "id"), name=_str(g, "name"), parent=_opt_int(g, "parent"),
                         run_s=_num(g, "run_s"), cpu_s=_opt_num(g, "cpu_s"),
                         wait_s=_num(g, "wait_s"), switches=_int(g, "switches"),
                         longest_run_s=_num(g, "longest_run_s"),
                         origin=_str(g, "origin", ""), **_split(g))


def _section(value: Any) -> SectionStats:
    s = _obj(value, "sections")
    c = s.get("c")
    if not isinstance(c, bool):
        raise ProfileError("field 'c' of a section must be true or false")
    return SectionStats(name=_str(s, "name"), c=c, calls=_int(s, "calls"),
                        wall_s=_num(s, "wall_s"), run_s=_num(s, "run_s"),
                        wait_s=_num(s, "wait_s"), switches=_int(s, "switches"),
                        cpu_s=_opt_num(s, "cpu_s"), **_split(s))


def _stack_time(value: Any) -> StackTime:
    w = _obj(value, "waits")
    return StackTime(stack=_stack(w.get("stack")), count=_int(w, "count"),
                     wait_s=_num(w, "wait_s", 0.0), run_s=_num(w, "run_s", 0.0),
                     cpu_s=_opt_num(w, "cpu_s"), greenlet=_opt_int(w, "greenlet"),
                     call=_opt_str(w, "call"), **_split(w))


# Fields added with the event/ready wait split: optional, None in older files.
SPLIT_FIELDS = ("event_wait_s", "ready_wait_s", "delayed_others_s")


def _split(obj: dict[str, Any]) -> dict[str, float | None]:
    return {k: _opt_num(obj, k) for k in SPLIT_FIELDS}


def _latency(value: Any) -> dict[str, Any] | None:
    """The ready-wait histograms: checked for shape (counts are integers, figures
    numbers), since renderers do arithmetic on them."""
    if value is None:
        return None
    lat = _obj(value, "ready_latency")
    by_name = _dict_field(lat, "by_name")
    for summary in [lat.get("overall")] + list(by_name.values()):
        if summary is None:
            continue
        summary = _obj(summary, "ready_latency")
        counts = summary.get("counts")
        if not isinstance(counts, list) or not all(
                type(c) is int and c >= 0 for c in counts):
            raise ProfileError("ready_latency counts must be a list of integers >= 0")
        _int(summary, "n")
        for key in ("max_s", "p50_s", "p90_s", "p99_s"):
            _opt_num(summary, key)
    return lat


def _cpu_samples(value: Any) -> Any:
    if value is None:
        return None
    from geventperf.sampling.model import CpuSamples  # it builds on this module's checks
    return CpuSamples.from_dict(value)


def _slice(value: Any, n_waits: int) -> Slice:
    if not isinstance(value, list) or len(value) not in (4, 5, 6):
        raise ProfileError("a timeline slice must be [greenlet, start_s, duration_s, section"
                           ", ready_s, wait]")
    gid, start, duration, section = value[:4]
    holder = {"greenlet": gid, "start_s": start, "duration_s": duration,
              "ready_s": value[4] if len(value) >= 5 else None,
              "wait": value[5] if len(value) == 6 else None}
    if section is not None and not isinstance(section, str):
        raise ProfileError("a timeline slice's section must be a string or null")
    wait = _opt_int(holder, "wait")
    if wait is not None and not 0 <= wait < n_waits:
        raise ProfileError(f"a timeline slice's wait {wait} is not an index of the profile's"
                           f" {n_waits} waits")
    return Slice(greenlet=_int(holder, "greenlet"), start_s=_num(holder, "start_s"),
                 duration_s=_num(holder, "duration_s"), section=section,
                 ready_s=_opt_num(holder, "ready_s"), wait=wait)


# -- merging the profiles of several processes ----------------------------------------

def merge_profiles(profiles: list[Profile]) -> Profile:
    """One profile from several (e.g. one per worker process).

    ``duration_s`` is the longest one (the workers ran side by side); greenlet ids are
    renumbered so they stay unique (parents, findings, slices and events follow);
    sections, waits and runs are summed by name / stack; hub figures and reads (per
    host) are summed; findings are concatenated and sorted as findings are (hazards
    first, then cost); timeline slices keep their own process's clock.  ``meta["sources"]`` lists each input's
    meta, ``hub["ids"]`` the renumbered hub of each.
    """
    profiles = list(profiles)
    if not profiles:
        raise ValueError("merge_profiles() needs at least one profile")
    for p in profiles:
        if not isinstance(p, Profile):
            raise TypeError(f"merge_profiles() takes Profile objects, got {type(p).__name__}")
    out = Profile(duration_s=max(p.duration_s for p in profiles))
    sections: dict[str, SectionStats] = {}
    waits: dict[tuple[str, ...], StackTime] = {}
    runs: dict[tuple[str, ...], StackTime] = {}
    reads: dict[str, dict[str, Any]] = {}
    slice_waits: list[tuple[Slice, tuple[str, ...]]] = []
    hub_ids: list[int] = []
    hub_cpu: float | None = 0.0
    hub_idle: float | None = 0.0
    cpu_wait: float | None = 0.0
    process_cpu: float | None = 0.0
    children_cpu: float | None = 0.0
    hub_run = 0.0
    hub_polls: int | None = 0
    ready_lat: dict[str, Any] | None = None
    sampled: list[tuple[Any, Any]] = []
    offset = 0
    for p in profiles:
        def remap(gid: Any, offset: int = offset) -> Any:
            return gid + offset if isinstance(gid, int) and not isinstance(gid, bool) else gid

        out.switches += p.switches
        out.slices_dropped += p.slices_dropped
        out.trace_errors += p.trace_errors
        for g in p.greenlets:
            out.greenlets.append(GreenletStats(**{**asdict(g), "id": remap(g.id),
                                                  "parent": remap(g.parent)}))
        if p.hub.get("id") is not None:
            hub_ids.append(remap(p.hub["id"]))
        hub_run += float(p.hub.get("run_s") or 0.0)
        hub_cpu = _add_opt(hub_cpu, p.hub.get("cpu_s"))
        hub_idle = _add_opt(hub_idle, p.hub.get("idle_s"))
        cpu_wait = _add_opt(cpu_wait, p.hub.get("cpu_wait_s"))
        process_cpu = _add_opt(process_cpu, p.hub.get("process_cpu_s"))
        children_cpu = _add_opt(children_cpu, p.hub.get("children_cpu_s"))
        hub_polls = None if hub_polls is None or p.hub.get("polls") is None \
            else hub_polls + int(p.hub["polls"])
        ready_lat = _merge_latency(ready_lat, p.ready_latency)
        sampled.append((p.cpu_samples, remap))
        for s in p.sections:
            acc = sections.get(s.name)
            if acc is None:
                sections[s.name] = SectionStats(**asdict(s))
                continue
            acc.c = acc.c or s.c
            acc.calls += s.calls
            acc.wall_s += s.wall_s
            acc.run_s += s.run_s
            acc.wait_s += s.wait_s
            acc.switches += s.switches
            acc.cpu_s = _add_opt(acc.cpu_s, s.cpu_s)
            _add_split(acc, s)
        for table, items in ((waits, p.waits), (runs, p.runs)):
            for st in items:
                acc_st = table.get(tuple(st.stack))
                if acc_st is None:
                    table[tuple(st.stack)] = StackTime(**{**asdict(st),
                                                          "greenlet": remap(st.greenlet)})
                    continue
                if st.greenlet is not None:  # the last greenlet seen there, renumbered
                    acc_st.greenlet = remap(st.greenlet)
                acc_st.count += st.count
                acc_st.wait_s += st.wait_s
                acc_st.run_s += st.run_s
                acc_st.cpu_s = _add_opt(acc_st.cpu_s, st.cpu_s)
                if acc_st.call != st.call:  # one stack, one call: else a file lacks it
                    acc_st.call = acc_st.call or st.call
                _add_split(acc_st, st)
        for f in p.findings:
            out.findings.append(Finding(kind=f.kind, message=f.message,
                                        greenlet=remap(f.greenlet), section=f.section,
                                        stack=list(f.stack), cost_s=f.cost_s,
                                        extra=dict(f.extra)))
        for r in p.reads:
            host = str(r.get("host", "?"))
            acc_r = reads.setdefault(host, {"host": host})
            for k, v in r.items():
                if k == "host":
                    continue
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    old = acc_r.get(k, 0)
                    if not isinstance(old, (int, float)) or isinstance(old, bool):
                        acc_r[k] = None  # unknown in an earlier run: unknown in all
                    elif k.startswith("largest"):
                        acc_r[k] = max(old, v)
                    else:
                        acc_r[k] = old + v
                else:
                    acc_r[k] = None if k in acc_r else v  # unknown in one: unknown in all
        for sl in p.slices:
            out.slices.append(Slice(greenlet=remap(sl.greenlet), start_s=sl.start_s,
                                    duration_s=sl.duration_s, section=sl.section,
                                    ready_s=sl.ready_s))
            if sl.wait is not None:  # renumbered once the merged waits are sorted
                slice_waits.append((out.slices[-1], tuple(p.waits[sl.wait].stack)))
        for e in p.events:
            ev = dict(e)
            for k in ("greenlet", "other"):
                if k in ev:
                    ev[k] = remap(ev[k])
            out.events.append(ev)
        ids = [g.id for g in p.greenlets if isinstance(g.id, int)]
        offset += max(ids + [p.hub.get("id") or 0, 0])
    # Utilization of the merged loops: the share of all their traced time not idle.
    total_s = sum(p.duration_s for p in profiles)
    utilization = None if hub_idle is None or not total_s or any(
        p.hub.get("utilization") is None for p in profiles) else 1.0 - hub_idle / total_s
    out.hub = {"id": hub_ids[0] if hub_ids else None, "run_s": hub_run,
               "cpu_s": hub_cpu, "idle_s": hub_idle, "utilization": utilization,
               "polls": hub_polls, "cpu_wait_s": cpu_wait, "process_cpu_s": process_cpu,
               "children_cpu_s": children_cpu, "ids": hub_ids}
    out.ready_latency = ready_lat
    from geventperf.sampling.model import merge_samples
    out.cpu_samples = merge_samples(sampled)
    out.sections = sorted(sections.values(), key=lambda s: -s.wall_s)
    out.waits = sorted(waits.values(), key=lambda w: -w.wait_s)
    wait_index = {tuple(w.stack): i for i, w in enumerate(out.waits)}
    for sl, stack in slice_waits:
        sl.wait = wait_index[stack]
    out.runs = sorted(runs.values(), key=lambda r: -r.run_s)
    from geventperf.findings import sort_findings  # the findings' own order: hazards first
    out.findings = sort_findings(out.findings)
    out.reads = list(reads.values())
    out.meta = {"merged": len(profiles), "sources": [dict(p.meta) for p in profiles]}
    collected = _merge_gc([p.meta.get("gc") for p in profiles])
    if collected is not None:
        out.meta["gc"] = collected
    alive = [p.meta.get("alive_at_end") for p in profiles]
    if any(isinstance(a, dict) for a in alive):  # every process's, added up by name
        out.meta["alive_at_end"] = _added_by_name(alive)
    pooled = [p.meta.get("pool_jobs") for p in profiles]
    # (only when every run recorded them: a finding reads them as all the Pools' jobs)
    if all(isinstance(a, dict) for a in pooled):
        out.meta["pool_jobs"] = _added_by_name(pooled)
    return out


def _added_by_name(parts: list[Any]) -> dict[str, int]:
    """Counts by greenlet name of several runs (the dicts of *parts*), added up, most
    first."""
    counts: dict[str, int] = {}
    for name, n in (kv for a in parts if isinstance(a, dict) for kv in a.items()):
        if isinstance(name, str) and isinstance(n, int):
            counts[name] = counts.get(name, 0) + n
    return most_first(counts)


def _merge_gc(parts: list[Any]) -> dict[str, Any] | None:
    """The garbage-collection figures (meta["gc"]) of several runs as one; None unless
    every run recorded them."""
    if not parts or not all(isinstance(g, dict) and isinstance(g.get("collections"), list)
                            for g in parts):
        return None
    try:
        width = max(len(g["collections"]) for g in parts)
        counts = [sum(int(g["collections"][i]) for g in parts if i < len(g["collections"]))
                  for i in range(width)]
        worst = max(parts, key=lambda g: float(g.get("longest_s") or 0.0))
        total = sum(float(g.get("total_s") or 0.0) for g in parts)
    except (TypeError, ValueError):  # a hand-edited or foreign profile: not summed
        return None
    # a heap's size belongs to one process: the one with the longest collection's
    return {"collections": counts, "total_s": total, "longest_s": worst.get("longest_s"),
            "longest_generation": worst.get("longest_generation"),
            "start_up_blocks": worst.get("start_up_blocks"),
            "full_blocks_max": worst.get("full_blocks_max")}


def _add_split(acc: Any, item: Any) -> None:
    """Sum the event/ready split and blame fields of *item* into *acc*."""
    for key in SPLIT_FIELDS:
        setattr(acc, key, _add_opt(getattr(acc, key), getattr(item, key)))


def _merge_latency(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    if not a or not b:
        return dict(a or b) if (a or b) else None
    by_name = dict(a.get("by_name") or {})
    for name, summary in (b.get("by_name") or {}).items():
        by_name[name] = latency.merge(by_name.get(name), summary)
    return {"bounds_s": a.get("bounds_s"), "by_name": by_name,
            "overall": latency.merge(a.get("overall"), b.get("overall"))}


def _add_opt(a: float | None, b: Any) -> float | None:
    """Sum where None (not measured) in either side makes the sum None."""
    if a is None or b is None:
        return None
    return a + float(b)
