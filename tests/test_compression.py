"""uncompressed-bodies: compressible bodies sent as they are over a slow link.

``tests/diagnosis/plain_export.py`` streams CSV exports through ``response.raw`` (run
through the real CLI, as the diagnosis suite runs its workloads) from a raw-socket
server on 127.0.0.1 that sends each body in pieces with pauses between them, as a link
of a few MB/s delivers it; the server here decides the body's type, its coding and
when its head comes.
"""

from __future__ import annotations

import gzip

import pytest
import urllib3

import geventperf
from geventperf import Profile, findings
from geventperf.findings.compression import PLAIN_BODY_MIN, http_waits
from tests.servers import RawServer, chunked, pieces_of
from tests.test_diagnosis import Workload, assert_first, listing, run_cli

ROWS = 12_000
CSV = "".join(f"eu-west,requests,{i}.5\n" for i in range(ROWS)).encode()
PIECE = 16 * 1024
# 16 KiB every 10 ms: ~1.6 MB/s per connection, a link to another region
PAUSE_S = 0.01
JOBS = 6
EXPORT = Workload("plain_export.py")


def _trickled(kind: str = "text/csv", body: bytes = CSV, coding: str | None = None,
              head_pause: float = 0.0, pause: float = PAUSE_S) -> RawServer:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nTransfer-Encoding: chunked\r\n"
    if coding:
        head += f"Content-Encoding: {coding}\r\n"
    script: list[bytes | float] = [head_pause, (head + "\r\n").encode()]
    for piece in pieces_of(body, PIECE):
        script += [pause, chunked([piece])[:-len(b"0\r\n\r\n")]]  # without the last chunk
    script.append(b"0\r\n\r\n")
    return RawServer(lambda _head: script, keep_alive=True)


def _run(tmp_path, server: RawServer, accept: str = "identity") -> Profile:
    return run_cli(EXPORT, tmp_path, f"url={server.url}/export.csv", f"accept={accept}",
                   f"jobs={JOBS}")


def _told(profile: Profile) -> list:
    return [f for f in profile.findings if f.kind == findings.UNCOMPRESSED_BODIES]


def _pool(profile: Profile) -> dict:
    [event] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    return event


def test_bodies_asked_for_as_they_are_over_a_slow_link_are_told_first(tmp_path):
    assert len(CSV) > 2 * PLAIN_BODY_MIN
    with _trickled() as srv:
        profile = _run(tmp_path, srv)
    pool = _pool(profile)
    assert pool["bodies"][:4] == [JOBS, JOBS * len(CSV), JOBS, JOBS * len(CSV)], pool
    assert pool["plain_types"] == [["text/csv", JOBS]] and pool["plain_asked"] == JOBS
    [(site, n)] = pool["plain_sites"]
    [line] = EXPORT.lines("request")
    assert site.endswith(f"plain_export.py:{line}:export") and n == JOBS, site
    head, body, _top, _head = http_waits(profile)
    assert body > head
    # before the Pool of two the jobs queue in: the bytes are why they wait
    first = assert_first(profile, EXPORT, findings.UNCOMPRESSED_BODIES)
    assert f"{JOBS} of the {JOBS} responses from {pool['pool']} were text/csv" in first.message
    assert f"{JOBS} offered no compression (Accept-Encoding: identity" in first.message
    assert f"sent at {site} ({JOBS})" in first.message
    assert "response.raw.decode_content = True" in first.message
    assert 0 < first.cost_s <= body


def test_bodies_the_upstream_would_not_compress_are_told_as_the_upstreams_to_compress(
        tmp_path):
    with _trickled() as srv:
        profile = _run(tmp_path, srv, accept="default")  # requests offers gzip, deflate
    assert _pool(profile)["plain_asked"] == 0
    [found] = _told(profile)
    assert "The requests offered gzip, but the upstream sent them as they are" in found.message


@pytest.mark.parametrize("case", ["gzipped", "binary", "heads-slow"])
def test_compressed_binary_or_quick_bodies_are_not_told(tmp_path, case):
    if case == "gzipped":
        server = _trickled(body=gzip.compress(CSV), coding="gzip")
    elif case == "binary":
        server = _trickled(kind="application/octet-stream")
    else:  # the upstream thinks before it answers, then the body comes at once
        server = _trickled(head_pause=0.3, pause=0.0)
    with server as srv:
        profile = _run(tmp_path, srv, "default" if case == "gzipped" else "identity")
    bodies = _pool(profile)["bodies"]
    assert bodies[0] == JOBS and bodies[1] > 0, bodies
    assert bodies[2] == (JOBS if case == "heads-slow" else 0), bodies
    assert not _told(profile), listing(profile)


def test_broken_body_figures_in_a_profile_are_skipped(tmp_path):
    with _trickled() as srv:
        profile = _run(tmp_path, srv)
    assert _told(profile)
    for broken in (None, "x", [1, 2], [1, -5, 1, 1, 0.0], [1, 2, 3, float("nan"), 0.0]):
        _pool(profile)["bodies"] = broken
        assert not findings.uncompressed_bodies(profile), broken


def test_a_body_urllib3_preloads_is_counted_at_once():
    """urllib3 used directly reads the body inside urlopen (preload_content), and sends
    no Accept-Encoding of its own (http.client then asks for identity)."""
    with _trickled(pause=0.0) as srv, geventperf.Tracer(sections=None) as tracer:
        assert urllib3.PoolManager().request("GET", srv.url + "/export.csv").data == CSV
    event = _pool(tracer.profile)
    assert event["bodies"][:4] == [1, len(CSV), 1, len(CSV)], event["bodies"]
    assert event["plain_types"] == [["text/csv", 1]] and event["plain_asked"] == 1
    [(site, count)] = event["plain_sites"]
    assert count == 1 and site.startswith(__file__) and site.endswith(
        ":test_a_body_urllib3_preloads_is_counted_at_once"), site
