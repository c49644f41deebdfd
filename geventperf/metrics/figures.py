"""The figures a metrics exporter publishes, read from one :class:`Profile` snapshot.

Pure and dependency-free: both exporters (``prometheus.py``, ``otel.py``) turn the same
:class:`Figures` into their own metric types, so the two cannot disagree.  What lives
here beyond reading the profile is the state that must persist across scrapes:

* **which greenlet names get a label of their own** (:class:`NameLabels`): at most
  ``max_names``, chosen once and kept, the rest summed under :data:`OTHER_NAME`;
* **counters never go down** (:class:`Monotonic`) within one tracing run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from geventperf import latency
from geventperf.findings import KINDS
from geventperf.profile import Profile

# Greenlet names given a label of their own, per process.  Each name is one series in
# each of the per-name counters (4 of them), and a fleet multiplies that by its worker
# processes: 50 names x 4 counters x 100 workers is 20 000 series, about what one
# Prometheus job comfortably holds.  Names are usually few (gevent names a greenlet
# after the function it runs), but a program naming greenlets per request
# (``Greenlet(name=f"req-{id}")``) would otherwise create series without bound.
MAX_GREENLET_NAMES = 50

# The label of everything past MAX_GREENLET_NAMES.  Angle brackets, like the tracer's
# "<other>" stack, so it cannot be mistaken for a greenlet whose name is "other".
OTHER_NAME = "<other>"

# The tracer folds finished greenlets into one row per name once it keeps too many
# (trace/build.py); that row's name carries a count that grows, which is not part of
# the name.
_FOLDED = re.compile(r"^(?P<name>.*) \[\d+ finished greenlets folded\]$", re.S)

# Every finding kind, so each is published (as 0 when absent): an alert on
# ``geventperf_findings{kind="loop-blocked"} > 0`` then sees a series, not a gap.
FINDING_KINDS = KINDS

# Per-name counters: metric suffix -> GreenletStats field.
NAME_FIELDS = {"cpu": "cpu_s", "run": "run_s", "event_wait": "event_wait_s",
               "ready_wait": "ready_wait_s"}

# Upper bounds of the ready-wait buckets as Prometheus writes them ("+Inf" last).  Our
# bucket i holds [2**(i-1), 2**i) us and a Prometheus bucket is "<= le": they differ
# only for a wait of exactly a power of two microseconds.
BUCKET_BOUNDS = [repr(b) for b in latency.UPPER_BOUNDS_S[:-1]] + ["+Inf"]


def base_name(name: str) -> str:
    """The greenlet name of a profile row, without the tracer's folding suffix."""
    m = _FOLDED.match(name)
    return m.group("name") if m else name


@dataclass
class Figures:
    """What one scrape publishes.  Seconds and counts are cumulative since the tracer
    started; None where the profile did not measure it."""

    traced_s: float
    switches: int
    trace_errors: int
    hub_idle_s: float | None
    hub_polls: int | None
    utilization: float | None
    # Wake-ups per ready-wait bucket (not cumulative), and the seconds they waited.
    ready_counts: list[int] | None
    ready_sum_s: float | None
    # label -> NAME_FIELDS key -> seconds (a field the profile lacks is left out)
    by_name: dict[str, dict[str, float]] = field(default_factory=dict)
    names_in_other: int = 0
    findings: dict[str, int] = field(default_factory=dict)
    finding_cost_s: dict[str, float] = field(default_factory=dict)


class NameLabels:
    """Which greenlet names get a label.  A name keeps its label for the life of the
    exporter and a name once summed under OTHER_NAME stays there: if names moved
    between the two, the ``<other>`` counter would go down when one left it, which
    Prometheus reads as a counter reset.  New names take free places biggest first
    (by run time), so the first scrape of a busy process labels what matters."""

    def __init__(self, max_names: int = MAX_GREENLET_NAMES) -> None:
        if not isinstance(max_names, int) or max_names < 0:
            raise ValueError(f"max_names must be an int >= 0, got {max_names!r}")
        self.max_names = max_names
        # Never shrinks, so a name left out once (the set was full) is left out for
        # good: no need to remember the names under <other>, however many they are.
        self.named: set[str] = set()

    def assign(self, totals: dict[str, dict[str, float]]) -> dict[str, str]:
        """name -> label for every name of *totals* (name -> figures)."""
        free = self.max_names - len(self.named)
        if free > 0:
            new = sorted((n for n in totals if n not in self.named),
                         key=lambda n: (-totals[n].get("run", 0.0), n))
            self.named.update(new[:free])
        return {n: n if n in self.named else OTHER_NAME for n in totals}


class Monotonic:
    """Published counters never go down within one tracing run.

    ``Tracer.snapshot()`` already promises it; this guards any other source (a
    callable merging profiles, a source that re-reads a file) at the cost of one
    float per series.  A new run (another pid or start time, or a shorter traced
    duration: the tracer was reset or replaced) starts afresh, and Prometheus sees an
    ordinary counter reset.
    """

    def __init__(self) -> None:
        self._run: tuple[Any, Any] | None = None
        self._traced_s = 0.0
        self._last: dict[Any, float] = {}

    def begin(self, profile: Profile) -> None:
        run = (profile.meta.get("pid"), profile.meta.get("started_at"))
        if run != self._run or profile.duration_s < self._traced_s:
            self._last.clear()
        self._run, self._traced_s = run, profile.duration_s

    def __call__(self, key: Any, value: float) -> float:
        value = max(value, self._last.get(key, value))
        self._last[key] = value
        return value


def read(profile: Profile, labels: NameLabels, monotonic: Monotonic) -> Figures:
    """The figures of *profile*, counters passed through *monotonic*."""
    monotonic.begin(profile)
    hub = profile.hub or {}
    lat = profile.ready_latency or {}
    overall = lat.get("overall") or None
    counts = None
    if overall is not None:
        counts = (list(overall.get("counts") or []) + [0] * latency.NBUCKETS)
        counts = counts[:latency.NBUCKETS]

    totals: dict[str, dict[str, float]] = {}
    ready_sum = None
    for g in profile.greenlets:
        row = totals.setdefault(base_name(g.name), {})
        for key, attr in NAME_FIELDS.items():
            value = getattr(g, attr, None)
            if value is not None:
                row[key] = row.get(key, 0.0) + float(value)
        if g.ready_wait_s is not None:
            ready_sum = (ready_sum or 0.0) + g.ready_wait_s
    by_name: dict[str, dict[str, float]] = {}
    for name, label in labels.assign(totals).items():
        acc = by_name.setdefault(label, {})
        for key, value in totals[name].items():
            acc[key] = acc.get(key, 0.0) + value
    for label, row in by_name.items():
        for key in row:
            row[key] = monotonic(("name", label, key), row[key])

    findings = dict.fromkeys(FINDING_KINDS, 0)
    cost = dict.fromkeys(FINDING_KINDS, 0.0)
    for f in profile.findings:
        findings[f.kind] = findings.get(f.kind, 0) + 1
        cost[f.kind] = cost.get(f.kind, 0.0) + f.cost_s

    def mono(key: str, value: Any, conv: Callable[[Any], Any] = float) -> Any:
        return None if value is None else conv(monotonic(key, conv(value)))

    if counts is not None:
        counts = [int(monotonic(("bucket", i), c)) for i, c in enumerate(counts)]
    return Figures(
        traced_s=mono("traced", profile.duration_s),
        switches=mono("switches", profile.switches, int),
        trace_errors=mono("trace_errors", profile.trace_errors, int),
        hub_idle_s=mono("idle", hub.get("idle_s")),
        hub_polls=mono("polls", hub.get("polls"), int),
        utilization=hub.get("utilization"),
        ready_counts=counts,
        ready_sum_s=mono("ready_sum", ready_sum) if counts is not None else None,
        by_name=by_name,
        names_in_other=sum(1 for n in totals if n not in labels.named),
        findings=findings, finding_cost_s=cost)
