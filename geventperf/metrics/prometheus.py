"""A ``prometheus_client`` collector: one snapshot per scrape, turned into metrics.

A custom collector rather than Counter/Histogram objects kept up to date: the tracer
already keeps every total, so a scrape reads them once and nothing is done between
scrapes (no work on the traced program's hot path).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterator

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)

from geventperf.metrics import figures as _figures
from geventperf.profile import Profile

PREFIX = "geventperf"

_NAME_HELP = {
    "cpu": "Thread CPU seconds of the greenlets of this name (absent with cpu_clock=False)",
    "run": "Wall seconds the greenlets of this name were the running one",
    "event_wait": "Seconds the greenlets of this name waited for an event (I/O, timer, lock)",
    "ready_wait": "Seconds the greenlets of this name were ready but others held the loop",
}


class ProfileCollector:
    """Publishes the figures of ``snapshot()`` (a callable returning a Profile) at each
    scrape.  Register it with :func:`geventperf.metrics.register`."""

    def __init__(self, snapshot: Callable[[], Profile],
                 max_names: int = _figures.MAX_GREENLET_NAMES) -> None:
        self._snapshot = snapshot
        self._labels = _figures.NameLabels(max_names)
        self._monotonic = _figures.Monotonic()
        # Scrapes may run concurrently (prometheus_client's server is threaded); the
        # label set and the last values are shared between them.
        self._lock = threading.Lock()

    def read(self) -> _figures.Figures:
        """One snapshot's figures (what the next scrape would publish)."""
        profile = self._snapshot()
        with self._lock:
            return _figures.read(profile, self._labels, self._monotonic)

    def describe(self) -> list[Any]:
        # Names only: the registry checks them for clashes at register() without a
        # snapshot (the tracer may not be started yet).
        return list(_families(None))

    def collect(self) -> Iterator[Any]:
        yield from _families(self.read())


def _families(f: _figures.Figures | None) -> Iterator[Any]:
    """The metric families of *f*; without samples when *f* is None."""
    p = PREFIX

    def counter(name: str, doc: str, value: float | None, unit: str = "") -> Any:
        fam = CounterMetricFamily(f"{p}_{name}", doc, unit=unit)
        if value is not None:
            fam.add_metric([], value)
        return fam

    def gauge(name: str, doc: str, value: float | None) -> Any:
        fam = GaugeMetricFamily(f"{p}_{name}", doc)
        if value is not None:
            fam.add_metric([], value)
        return fam

    yield counter("traced_seconds", "Seconds since the tracer started (the denominator of "
                  "rates such as hub idle seconds per second)", f and f.traced_s, "seconds")
    yield counter("switches", "Greenlet switches traced", f and f.switches)
    yield counter("trace_errors", "Exceptions inside the tracer's hook (counted, never "
                  "raised)", f and f.trace_errors)
    yield counter("hub_idle_seconds", "Seconds the event loop was blocked in its poll "
                  "(idle); 1 - rate(this) / rate(traced_seconds) is the loop utilization",
                  f and f.hub_idle_s, "seconds")
    yield counter("hub_polls", "Event loop iterations", f and f.hub_polls)
    yield gauge("loop_utilization", "Share of the traced time the loop was busy, since the "
                "tracer started (for a window, use the idle and traced counters)",
                f and f.utilization)

    hist = HistogramMetricFamily(f"{p}_ready_wait_seconds", "Ready wait per wake-up: from "
                                 "when a greenlet could run to when it ran (scheduler "
                                 "latency)", unit="seconds")
    if f is not None and f.ready_counts is not None:
        cumulative, buckets = 0, []
        for bound, count in zip(_figures.BUCKET_BOUNDS, f.ready_counts):
            cumulative += count
            buckets.append((bound, cumulative))
        hist.add_metric([], buckets, f.ready_sum_s)
    yield hist

    for key, doc in _NAME_HELP.items():
        fam = CounterMetricFamily(f"{p}_greenlet_{key}_seconds", doc, labels=["name"],
                                  unit="seconds")
        for label, row in (f.by_name.items() if f is not None else ()):
            if key in row:
                fam.add_metric([label], row[key])
        yield fam
    yield gauge("greenlet_names_in_other", "Greenlet names past the label cap, summed under "
                f"name=\"{_figures.OTHER_NAME}\"", f and f.names_in_other)

    kinds = GaugeMetricFamily(f"{p}_findings", "Findings of each kind in the profile so far "
                              "(a gauge: a finding can end, e.g. a loop no longer saturated)",
                              labels=["kind"])
    cost = GaugeMetricFamily(f"{p}_findings_cost_seconds", "Greenlet-seconds the findings of "
                             "each kind explain, in the profile so far", labels=["kind"],
                             unit="seconds")
    for kind in (f.findings if f is not None else ()):
        kinds.add_metric([kind], f.findings[kind])
        cost.add_metric([kind], f.finding_cost_s[kind])
    yield kinds
    yield cost
