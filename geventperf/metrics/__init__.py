"""Fleet metrics: a running Tracer's figures, per process, for Prometheus or OpenTelemetry.

``pip install 'geventperf[metrics]'``, then::

    tracer = geventperf.Tracer().start()
    geventperf.metrics.register(tracer)                 # prometheus_client's REGISTRY
    # or: geventperf.metrics.register(tracer, registry=my_registry)
    # or: geventperf.metrics.register_otel(tracer, meter_provider)

Each scrape (collection) takes one ``tracer.snapshot(slices=False)`` and publishes
what it says: the counters are cumulative since the tracer started, as Prometheus
counters are, so ``rate()`` over them gives per-second figures over any window.  A
source may also be any callable returning a :class:`~geventperf.profile.Profile`.

Serve the metrics from the traced process itself (each worker its own endpoint, see the
README's "Leaving it on in production"); ``Profile.merge`` is not needed for a fleet:
Prometheus sums the workers' series.
"""

from __future__ import annotations

from typing import Any, Callable

from geventperf.metrics.figures import (
    FINDING_KINDS,
    MAX_GREENLET_NAMES,
    OTHER_NAME,
    Figures,
)
from geventperf.profile import Profile

__all__ = ["FINDING_KINDS", "MAX_GREENLET_NAMES", "OTHER_NAME", "Figures", "register",
           "register_otel", "snapshot_source"]

_INSTALL = "pip install 'geventperf[metrics]'"


def snapshot_source(source: Any) -> Callable[[], Profile]:
    """A callable returning a Profile: *source*'s ``snapshot(slices=False)`` when it is a
    Tracer (the timeline's run slices are the costly part of a snapshot and no metric
    reads them), else *source* itself when callable."""
    snapshot = getattr(source, "snapshot", None)
    if callable(snapshot):
        return lambda: snapshot(slices=False)
    if callable(source):
        return source
    raise TypeError(f"a metrics source is a geventperf.Tracer or a callable returning a "
                    f"geventperf.Profile, got {type(source).__name__}")


def register(source: Any, registry: Any = None, *,
             max_names: int = MAX_GREENLET_NAMES) -> Any:
    """Register a collector of *source*'s figures on *registry* (prometheus_client's
    default ``REGISTRY`` when None) and return it; ``registry.unregister(it)`` removes
    it.  Scrapes should reach the process while the tracer runs (before ``start()`` a
    snapshot raises TracerError, and the scrape fails with it)."""
    try:
        import prometheus_client

        from geventperf.metrics.prometheus import ProfileCollector
    except ImportError as exc:
        raise ImportError(f"geventperf.metrics.register needs prometheus_client "
                          f"({exc}): {_INSTALL}") from exc
    collector = ProfileCollector(snapshot_source(source), max_names=max_names)
    (prometheus_client.REGISTRY if registry is None else registry).register(collector)
    return collector


def register_otel(source: Any, meter_provider: Any = None, *,
                  max_names: int = MAX_GREENLET_NAMES) -> Any:
    """Create observable instruments of *source*'s figures on *meter_provider* (the
    global one when None).  Their callbacks share one snapshot per collection.
    Returns the object they read through (its ``snapshots`` counts the snapshots)."""
    try:
        from geventperf.metrics import otel
    except ImportError as exc:
        raise ImportError(f"geventperf.metrics.register_otel needs OpenTelemetry "
                          f"({exc}): pip install opentelemetry-sdk") from exc
    return otel.register(snapshot_source(source), meter_provider, max_names)
