"""Reading the optional figures of a Profile: the event/ready split of waits, blame
(``delayed_others_s``), loop utilization, the ready-latency histogram and run metadata.

Profiles written before these fields existed (or by a tracer that could not measure
them) have them absent or None; every renderer reads them through these helpers and
shows "-" or leaves a column out, never fails.
"""

from __future__ import annotations

import math
from typing import Any

from geventperf.profile import Profile


def num(obj: Any, name: str) -> float | None:
    """``obj.name`` (or ``obj[name]`` for a dict) as a finite float, else None."""
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def has_split(items: list[Any]) -> bool:
    """True when the event/ready split of waits was recorded for these items."""
    return any(num(item, "event_wait_s") is not None or num(item, "ready_wait_s") is not None
               for item in items)


def has_blame(items: list[Any]) -> bool:
    return any(num(item, "delayed_others_s") is not None for item in items)


def utilization(profile: Profile) -> float | None:
    """Share of the run the loop was not idle in its poll (0..1), or None."""
    value = num(profile.hub, "utilization")
    if value is not None:
        return min(max(value, 0.0), 1.0)
    idle = num(profile.hub, "idle_s")
    if idle is None or profile.duration_s <= 0:
        return None
    return min(max(1.0 - idle / profile.duration_s, 0.0), 1.0)


def ready_latency(profile: Profile, name: str | None = None) -> dict[str, Any] | None:
    """The ready-wait distribution (overall, or of greenlets called *name*): a dict
    with ``n``, ``p50_s``, ``p90_s``, ``p99_s``, ``max_s``; None when not recorded."""
    latency = getattr(profile, "ready_latency", None)
    if not isinstance(latency, dict):
        return None
    if name is None:
        found = latency.get("overall")
    else:
        by_name = latency.get("by_name")
        found = by_name.get(name) if isinstance(by_name, dict) else None
    return found if isinstance(found, dict) and num(found, "n") else None


def slice_ready(sl: Any) -> float | None:
    """The ready wait just before a timeline slice (None when not recorded)."""
    value = num(sl, "ready_s")
    return max(value, 0.0) if value is not None else None


def meta_text(profile: Profile, key: str) -> str:
    value = profile.meta.get(key)
    return value if isinstance(value, str) else ""
