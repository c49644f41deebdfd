"""The profile as JSON (schema version 1 of DESIGN.md): what Profile.load reads back."""

from __future__ import annotations

import json

from geventperf.profile import Profile


def render(profile: Profile) -> str:
    # Compact like Profile.save: a long run's profile is megabytes of slices.
    # allow_nan=False: a NaN would make a file that Profile.load (and browsers) refuse.
    return json.dumps(profile.to_dict(), separators=(",", ":"), allow_nan=False)
