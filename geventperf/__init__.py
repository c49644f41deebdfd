"""geventperf: fast large-read HTTP bodies for requests under gevent, and a
greenlet-switch profiler that shows where a greenlet's wall time went.

``import geventperf`` does not import requests, urllib3 or ssl: a program may import
geventperf before ``gevent.monkey.patch_all()``.  The adapter's names load on first use.
"""

from __future__ import annotations

from typing import Any

from geventperf.formats import FORMATS
from geventperf.profile import Profile, ProfileError
from geventperf.sections import section
from geventperf.tracer import Tracer, TracerError

__version__ = "0.1.0"

# Names served by geventperf.adapter and geventperf.session, which import requests
# (and so ssl).
_ADAPTER_NAMES = ("BodyTimeout", "BodyTooLarge", "GeventAdapter", "mount")
_SESSION_NAMES = ("Session", "environment_changed")

__all__ = [
    "BodyTimeout",
    "BodyTooLarge",
    "FORMATS",
    "GeventAdapter",
    "Profile",
    "ProfileError",
    "Session",
    "Tracer",
    "TracerError",
    "__version__",
    "environment_changed",
    "mount",
    "section",
]


def __getattr__(name: str) -> Any:
    if name in _ADAPTER_NAMES:
        from geventperf import adapter
        return getattr(adapter, name)
    if name in _SESSION_NAMES:
        from geventperf import session
        return getattr(session, name)
    raise AttributeError(f"module 'geventperf' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
