"""proxied-internal: calls to internal hosts sent through the environment's proxy.

Real requests with HTTP_PROXY set in the environment, as a container's manifest sets
it: a kept-alive server on 127.0.0.1 stands in for the proxy (it answers the
absolute-form requests a proxy is sent), and the destinations are only named.
"""

from __future__ import annotations

import pytest
import requests

import geventperf
from geventperf import findings
from geventperf.findings.proxied import PROXIED_MIN, is_internal
from tests.servers import RawServer, http_response

CALLS = PROXIED_MIN + 5
# The requests to a local server take well under the default block threshold in all:
# lowered, as in test_bodyreads.py, so the finding's cost gate is not what decides.
LOW_THRESHOLD = {"block_threshold": 1e-4}


@pytest.fixture
def proxy():
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True) as srv:
        yield srv


def _calls(url: str, times: int = CALLS) -> geventperf.Profile:
    with requests.Session() as session, \
            geventperf.Tracer(sections=None, **LOW_THRESHOLD) as tracer:
        for _ in range(times):
            assert session.get(url, timeout=10).content == b"ok"
    return tracer.profile


def _proxied(profile):
    return [f for f in findings.compute(profile) if f.kind == findings.PROXIED_INTERNAL]


def test_internal_calls_through_the_environments_proxy_are_told(proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "localhost,.svc.cluster.local")
    monkeypatch.delenv("no_proxy", raising=False)
    profile = _calls("http://127.0.0.1:9/item")
    [found] = _proxied(profile)
    assert found.extra["proxy"] == f"http://127.0.0.1:{proxy.port}"
    assert found.extra["hosts"] == [["http://127.0.0.1:9", CALLS]]
    assert f"{CALLS} requests to http://127.0.0.1:9 ({CALLS}) were sent through the " \
        f"proxy at http://127.0.0.1:{proxy.port}" in found.message, found.message
    assert "NO_PROXY is 'localhost,.svc.cluster.local', which does not cover them" \
        in found.message and "add these hosts to NO_PROXY" in found.message
    assert found.cost_s > 0
    # the pools table's host is the proxy: the row says where the requests went
    from geventperf.formats import render
    profile.findings = [found]
    assert f"through the proxy http://127.0.0.1:{proxy.port} to http://127.0.0.1:9 x{CALLS}" \
        in render(profile, "text")


def test_calls_the_proxy_is_bypassed_for_or_few_are_not_told(proxy, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.delenv("no_proxy", raising=False)
    # NO_PROXY names the host: the calls go straight to it (the proxy stands in for
    # the destination here, so the same server answers)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    profile = _calls(f"http://127.0.0.1:{proxy.port}/item")
    assert not _proxied(profile)
    assert all(e.get("proxy") is None for e in profile.events
               if e["kind"] == "urllib3-pool")
    # through the proxy, but fewer than PROXIED_MIN calls: no pattern
    monkeypatch.setenv("NO_PROXY", "localhost")
    assert not _proxied(_calls("http://127.0.0.1:9/item", PROXIED_MIN - 1))


@pytest.mark.parametrize("host, internal", [
    ("127.0.0.1", True), ("10.2.3.4", True), ("192.168.1.9", True), ("172.16.0.1", True),
    ("169.254.169.254", True), ("[::1]", True), ("fd00::1", True), ("localhost", True),
    ("catalog", True), ("catalog.shop.svc.cluster.local", True), ("db.internal", True),
    ("printer.local", True), ("8.8.8.8", False), ("api.example.com", False),
    ("[2001:4860:4860::8888]", False)])
def test_which_hosts_are_internal(host, internal):
    assert is_internal(host) is internal
