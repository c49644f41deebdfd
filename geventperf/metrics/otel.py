"""OpenTelemetry: observable instruments on the user's ``MeterProvider``.

Each instrument has a callback; the SDK calls them one after another at each
collection.  They share one snapshot per collection (:class:`SharedReads`), so a
collection costs one snapshot, not one per instrument, and all its figures agree.

OpenTelemetry has no observable histogram, and replaying millions of wake-ups into a
synchronous one would cost per wake-up: the ready-wait histogram is published as an
observable counter of wake-ups per bucket (attribute ``le``, the bucket's upper bound
in seconds as Prometheus writes it; counts per bucket, not cumulative, so a sum over
``le`` is the number of wake-ups) plus a counter of their seconds.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

from opentelemetry.metrics import CallbackOptions, MeterProvider, Observation

from geventperf.metrics import figures as _figures
from geventperf.profile import Profile

METER_NAME = "geventperf"


class SharedReads:
    """Figures shared by the callbacks of one collection.

    A reader takes a fresh snapshot when it has already read the current one: the
    first callback of each collection does, whatever order the SDK calls them in, and
    the others reuse it.  Two metric readers on one provider each get their own.
    """

    def __init__(self, snapshot: Callable[[], Profile], max_names: int) -> None:
        self._snapshot = snapshot
        self._labels = _figures.NameLabels(max_names)
        self._monotonic = _figures.Monotonic()
        self._lock = threading.Lock()
        self._current: _figures.Figures | None = None
        self._read_by: set[str] = set()
        self.snapshots = 0  # snapshots taken (what a collection cost)

    def figures(self, reader: str) -> _figures.Figures:
        with self._lock:
            if self._current is None or reader in self._read_by:
                profile = self._snapshot()
                self.snapshots += 1
                self._current = _figures.read(profile, self._labels, self._monotonic)
                self._read_by = set()
            self._read_by.add(reader)
            return self._current


def register(snapshot: Callable[[], Profile], meter_provider: MeterProvider | None,
             max_names: int) -> SharedReads:
    if meter_provider is None:
        from opentelemetry.metrics import get_meter_provider
        meter_provider = get_meter_provider()
    meter = meter_provider.get_meter(METER_NAME)
    shared = SharedReads(snapshot, max_names)

    def observe(name: str, pick: Callable[[_figures.Figures], Iterable[Observation]]) -> Any:
        def callback(options: CallbackOptions) -> Iterable[Observation]:
            return list(pick(shared.figures(name)))
        return [callback]

    def one(value: float | None) -> list[Observation]:
        return [] if value is None else [Observation(value)]

    def per_name(key: str) -> Callable[[_figures.Figures], list[Observation]]:
        return lambda f: [Observation(row[key], {"name": label})
                          for label, row in f.by_name.items() if key in row]

    counters = {
        "geventperf.traced": ("s", "Seconds since the tracer started",
                              lambda f: one(f.traced_s)),
        "geventperf.switches": ("1", "Greenlet switches traced", lambda f: one(f.switches)),
        "geventperf.hub.idle": ("s", "Seconds the event loop was blocked in its poll",
                                lambda f: one(f.hub_idle_s)),
        "geventperf.hub.polls": ("1", "Event loop iterations", lambda f: one(f.hub_polls)),
        "geventperf.ready_wait.wakeups": ("1", "Wake-ups per ready-wait bucket (attribute "
                                          "le: the bucket's upper bound, seconds)",
                                          _buckets),
        "geventperf.ready_wait": ("s", "Seconds of ready wait over all wake-ups",
                                  lambda f: one(f.ready_sum_s)),
    }
    for key, doc in (("cpu", "Thread CPU seconds"), ("run", "Wall seconds running"),
                     ("event_wait", "Seconds waiting for an event"),
                     ("ready_wait", "Seconds ready but held up by others")):
        counters[f"geventperf.greenlet.{key}"] = ("s", f"{doc}, per greenlet name",
                                                  per_name(key))
    for name, (unit, doc, pick) in counters.items():
        meter.create_observable_counter(name, callbacks=observe(name, pick), unit=unit,
                                        description=doc)

    gauges = {
        "geventperf.loop.utilization": ("1", "Share of the traced time the loop was busy",
                                        lambda f: one(f.utilization)),
        "geventperf.greenlet.names_in_other": (
            "1", f"Greenlet names past the label cap, summed under {_figures.OTHER_NAME}",
            lambda f: one(f.names_in_other)),
        "geventperf.findings": ("1", "Findings of each kind in the profile so far",
                                lambda f: [Observation(n, {"kind": k})
                                           for k, n in f.findings.items()]),
        "geventperf.findings.cost": ("s", "Greenlet-seconds the findings of each kind "
                                     "explain", lambda f: [Observation(c, {"kind": k})
                                                           for k, c in
                                                           f.finding_cost_s.items()]),
    }
    for name, (unit, doc, pick) in gauges.items():
        meter.create_observable_gauge(name, callbacks=observe(name, pick), unit=unit,
                                      description=doc)
    return shared


def _buckets(f: _figures.Figures) -> list[Observation]:
    if f.ready_counts is None:
        return []
    return [Observation(count, {"le": bound})
            for bound, count in zip(_figures.BUCKET_BOUNDS, f.ready_counts)]
