"""geventperf: fast large-read HTTP bodies for requests under gevent, and a
greenlet-switch profiler that shows where a greenlet's wall time went."""

from geventperf.adapter import BodyTimeout, BodyTooLarge, GeventAdapter, mount
from geventperf.formats import FORMATS
from geventperf.profile import Profile, ProfileError
from geventperf.sections import section
from geventperf.tracer import Tracer, TracerError

__version__ = "0.1.0"

__all__ = [
    "BodyTimeout",
    "BodyTooLarge",
    "FORMATS",
    "GeventAdapter",
    "Profile",
    "ProfileError",
    "Tracer",
    "TracerError",
    "__version__",
    "mount",
    "section",
]
