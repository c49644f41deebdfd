"""redirect-followed: calls to an address that moved, answered with a redirect that
requests follows every time.

Real requests to two kept-alive servers on 127.0.0.1: the old address answers every
request with a 301 to the new one, as a service's former host does after a migration.
"""

from __future__ import annotations

import pytest
import requests

import geventperf
from geventperf import findings
from geventperf.findings.redirects import REDIRECTS_MIN
from tests.servers import RawServer, http_response

CALLS = REDIRECTS_MIN + 5
# The requests to a local server take well under the default block threshold in all:
# lowered, as in test_bodyreads.py, so the finding's cost gate is not what decides.
LOW_THRESHOLD = {"block_threshold": 1e-4}


@pytest.fixture
def new():
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True) as srv:
        yield srv


def _moved_to(target: str, status: str = "301 Moved Permanently") -> RawServer:
    def answer(head: bytes) -> list[bytes]:
        path = head.split(b" ", 2)[1].decode("latin-1")
        return [http_response(b"", status, [("Location", target + path)])]
    return RawServer(answer, keep_alive=True)


def _calls(url: str, times: int = CALLS) -> geventperf.Profile:
    with requests.Session() as session, \
            geventperf.Tracer(sections=None, **LOW_THRESHOLD) as tracer:
        session.trust_env = False  # no proxy from the environment between them
        for i in range(times):
            assert session.get(f"{url}/items/{i}", timeout=10).content == b"ok"
    return tracer.profile


def _pool(profile, url):
    [event] = [e for e in profile.events if e["kind"] == "urllib3-pool" and e["pool"] == url]
    return event


def test_calls_to_a_moved_address_are_told_with_where_it_moved(new):
    with _moved_to(new.url) as old:
        profile = _calls(old.url)
    moved = _pool(profile, f"http://127.0.0.1:{old.port}")
    assert (moved["calls"], moved["redirects"]) == (CALLS, CALLS)
    assert moved["redirected_to"] == [[f"http://127.0.0.1:{new.port}", CALLS]]
    assert _pool(profile, f"http://127.0.0.1:{new.port}")["redirects"] == 0
    [found] = [f for f in findings.compute(profile) if f.kind == findings.REDIRECT_FOLLOWED]
    assert f"{CALLS} of the {CALLS} requests to http://127.0.0.1:{old.port} were sent " \
        f"elsewhere (to http://127.0.0.1:{new.port} ({CALLS}))" in found.message, found.message
    assert f"the configured base URL updated to http://127.0.0.1:{new.port}" in found.message
    assert found.cost_s > 0 and found.extra["redirects"] == CALLS
    # and the pools table says it under the old host
    from geventperf.formats import render
    assert f"redirects {CALLS} to http://127.0.0.1:{new.port} x{CALLS}" \
        in render(profile, "text")


def test_few_redirects_or_calls_to_where_they_point_are_not_told(new):
    with _moved_to(new.url, "302 Found") as old:
        assert not [f for f in findings.compute(_calls(old.url, REDIRECTS_MIN - 1))
                    if f.kind == findings.REDIRECT_FOLLOWED]
    profile = _calls(new.url)
    assert _pool(profile, f"http://127.0.0.1:{new.port}")["redirects"] == 0
    assert not [f for f in findings.compute(profile) if f.kind == findings.REDIRECT_FOLLOWED]


def test_a_relative_location_stays_on_its_host():
    def answer(head: bytes) -> list[bytes]:
        path = head.split(b" ", 2)[1]
        if path.endswith(b"/"):
            return [http_response(b"ok")]
        return [http_response(b"", "308 Permanent Redirect",
                              [("Location", path.decode("latin-1") + "/")])]
    with RawServer(answer, keep_alive=True) as srv:
        profile = _calls(srv.url)
    event = _pool(profile, f"http://127.0.0.1:{srv.port}")
    assert event["redirects"] == CALLS and event["calls"] == 2 * CALLS
    assert event["redirected_to"] == [[f"http://127.0.0.1:{srv.port}", CALLS]]
    # half of the host's answers were redirects: REDIRECTED_SHARE, told
    [found] = [f for f in findings.compute(profile) if f.kind == findings.REDIRECT_FOLLOWED]
    assert "for a path redirected to itself with a slash, the slash added" in found.message


def test_links_handed_out_per_item_are_no_moved_address(new):
    """Before (an unseen podcast directory's per-episode tracking links, each a 302 to a
    path of its own on the CDN): "a configured address that moved ... the configured
    base URL updated", where the links came from its feeds."""
    def answer(head: bytes) -> list[bytes]:
        item = head.split(b" ", 2)[1].decode("latin-1").rsplit("/", 1)[-1]
        return [http_response(b"", "302 Found", [("Location", f"{new.url}/media/{item}.mp3")])]
    with RawServer(answer, keep_alive=True) as tracker:
        profile = _calls(tracker.url)
    event = _pool(profile, f"http://127.0.0.1:{tracker.port}")
    assert (event["redirects"], event["redirects_kept_path"]) == (CALLS, 0)
    [found] = [f for f in findings.compute(profile) if f.kind == findings.REDIRECT_FOLLOWED]
    assert "links handed out one per item" in found.message, found.message
    assert "base URL" not in found.message, found.message


def test_a_moved_address_keeps_each_requests_path(new):
    with _moved_to(new.url) as old:
        profile = _calls(old.url)
    assert _pool(profile, f"http://127.0.0.1:{old.port}")["redirects_kept_path"] == CALLS
