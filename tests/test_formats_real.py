"""Every format from one real profile: a small gevent workload traced by
geventperf.Tracer.  If the tracer cannot produce one, every test here fails with the
tracer's own error (a crash is a failure, never a skip)."""

from __future__ import annotations

import json
import pstats

import pytest

from geventperf.formats import FORMATS, render
from geventperf.profile import Profile
from tests.profile_factory import traced_profile
from tests.test_formats import HUB_WAIT_KEY, check_chrome, check_speedscope, parse_collapsed

EVENT_WAIT_KEY = ("~", 0, "<event wait>")


@pytest.fixture(scope="module")
def real_profile() -> Profile:
    profile = traced_profile()
    assert profile.trace_errors == 0, profile.meta
    return profile


@pytest.mark.parametrize("fmt", FORMATS)
def test_real_profile_renders(real_profile, fmt):
    out = render(real_profile, fmt)
    # each format names the traced workers somewhere (text, json, html, the viewers'
    # JSON as strings; pstats as marshalled function names)
    assert (b"worker" if isinstance(out, bytes) else "worker") in out, fmt


def test_real_profile_text_names_the_workers(real_profile):
    text = render(real_profile, "text")
    assert "GREENLETS" in text and "worker" in text
    assert all(len(line) <= 100 for line in text.splitlines())


def test_real_profile_pstats_shows_the_sleep_waits(real_profile, tmp_path):
    path = tmp_path / "real.prof"
    path.write_bytes(render(real_profile, "pstats"))
    stats = pstats.Stats(str(path)).stats
    # Waits are split into event and ready wait (one <hub wait> when they are not).
    keys = [k for k in (EVENT_WAIT_KEY, HUB_WAIT_KEY) if k in stats]
    assert keys, sorted(stats)[:5]
    _cc, nc, tt, _ct, callers = stats[keys[0]]
    assert nc >= 4 * 15 and tt > 0  # every gevent.sleep waited for its timer
    assert any(func[2] == "sleep" for func in callers)


def test_real_profile_viewers_structure(real_profile):
    check_speedscope(json.loads(render(real_profile, "speedscope")))
    events = check_chrome(json.loads(render(real_profile, "chrome")))
    assert any(e["ph"] == "X" and e["name"] in ("wait", "event wait") for e in events)
    assert any(e["ph"] == "X" and e["name"] == "fetch" for e in events)
    stacks = parse_collapsed(render(real_profile, "collapsed"))
    assert any(stack.endswith(("<hub wait>", "<event wait>")) for stack in stacks)


def test_real_profile_json_round_trip(real_profile):
    assert Profile.loads(render(real_profile, "json")).to_dict() == real_profile.to_dict()
