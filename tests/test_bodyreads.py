"""The small-body-reads finding: urllib3 body reads counted per call site while tracing,
on real requests against a server on 127.0.0.1."""

from __future__ import annotations

import codecs
import os

import lxml.etree
import requests
import urllib3.response

import geventperf
from geventperf import findings
from geventperf.profile import Profile
from tests.servers import RawServer, http_response

BODY = os.urandom(2 * 1024 * 1024)  # ~205 of requests' 10 KiB pieces
# small-body-reads needs its reads to cost a block threshold: a few bodies read on
# loopback cost a few ms, so these tests lower it to see the finding at all.
LOW_THRESHOLD = {"block_threshold": 1e-4}


def _fetch_all(session: requests.Session, url: str, times: int) -> None:
    for _ in range(times):
        assert session.get(url).content == BODY


def _traced(session: requests.Session, **tracer_kw) -> Profile:
    response = http_response(BODY)
    with RawServer(lambda head: [response], keep_alive=True) as server:
        with geventperf.Tracer(**{**LOW_THRESHOLD, **tracer_kw}) as tracer:
            _fetch_all(session, server.url, 3)
    return tracer.profile


def test_requests_default_small_reads_are_found_at_the_callers_line():
    original = urllib3.response.HTTPResponse.read
    p = _traced(requests.Session())
    assert urllib3.response.HTTPResponse.read is original  # restored at stop()
    [found] = [f for f in p.findings if f.kind == findings.SMALL_BODY_READS]
    assert found.extra["bodies"] == 3 and found.extra["bytes"] == 3 * len(BODY)
    assert found.extra["mean_read_bytes"] <= 10 * 1024  # requests' CONTENT_CHUNK_SIZE
    assert found.extra["site"].endswith(":_fetch_all")  # the caller, not the libraries
    assert "geventperf.mount(session)" in found.message
    assert "asks for" not in found.message  # .content's own pieces, not the caller's


def test_a_caller_asking_for_small_pieces_is_told_to_ask_for_larger():
    # iter_content(1024): 1 KiB reads the caller asked for, which mount cannot enlarge;
    # the call site is looked up once per response, its reads all counted there
    response = http_response(BODY)
    session = requests.Session()
    with RawServer(lambda head: [response], keep_alive=True) as server:
        with geventperf.Tracer(**LOW_THRESHOLD) as tracer:
            with session.get(server.url, stream=True) as r:
                got = b"".join(r.iter_content(chunk_size=1024))
    assert got == BODY
    [found] = [f for f in tracer.profile.findings if f.kind == findings.SMALL_BODY_READS]
    assert found.extra["reads"] >= len(BODY) // 1024
    assert "asks for 1.0 KiB per call" in found.message
    assert "iter_content(chunk_size=512 * 1024)" in found.message


def test_a_stream_wrapper_over_raw_is_found_at_the_line_that_reads_it():
    # codecs.getreader over response.raw: the reads come from <frozen codecs>, which is
    # not where the fix goes; the site is the program's line iterating the wrapper
    lines = b"".join(b'{"n": %d}\n' % i for i in range(20_000))
    response = http_response(lines)
    session = requests.Session()
    with RawServer(lambda head: [response], keep_alive=True) as server:
        with geventperf.Tracer(**LOW_THRESHOLD) as tracer:
            with session.get(server.url, stream=True) as r:
                reader = codecs.getreader("utf-8")(r.raw)
                count = sum(1 for _line in reader)  # the program's own line
    assert count == 20_000
    [found] = [f for f in tracer.profile.findings if f.kind == findings.SMALL_BODY_READS]
    line = next(n for n, text in enumerate(open(__file__), 1)
                if "# the program's own line" in text and "sum(" in text)
    assert f"test_bodyreads.py:{line}:" in found.extra["site"], found.extra


def test_bodies_read_by_the_adapter_are_not_small_reads():
    session = requests.Session()
    geventperf.mount(session)
    p = _traced(session)
    assert not [f for f in p.findings if f.kind == findings.SMALL_BODY_READS]
    assert not [e for e in p.events if e.get("kind") == "body-reads"]


def test_body_reads_are_counted_only_with_auto_sections():
    p = _traced(requests.Session(), sections=None)
    assert not [e for e in p.events if e.get("kind") == "body-reads"]


def _profile_with(reads: int, nbytes: int, read_s: float = 0.5) -> Profile:
    return Profile(duration_s=1.0, events=[{"kind": "body-reads", "site": "w.py:3:job",
                                            "reads": reads, "bytes": nbytes, "bodies": 2,
                                            "read_s": read_s}])


def test_thresholds_of_the_finding():
    small = findings.SMALL_READ_BYTES // 2
    assert findings.small_body_reads(_profile_with(findings.SMALL_READS_MIN,
                                                   findings.SMALL_READS_MIN * small))
    # too few reads, or reads that are not small: nothing to say
    assert not findings.small_body_reads(_profile_with(findings.SMALL_READS_MIN - 1,
                                                       small * 50))
    assert not findings.small_body_reads(
        _profile_with(1000, 1000 * findings.SMALL_READ_BYTES))
    # reads whose time is under a twentieth of the run: larger ones save less than that
    # (an unseen feed refresher's, 1.7 % of its run: mounting the adapter saved 3 %)
    from geventperf.findings.reading import SMALL_READS_RUN_SHARE
    share = SMALL_READS_RUN_SHARE  # of _profile_with's 1 s run
    assert findings.small_body_reads(_profile_with(1000, 1000 * small, read_s=share))
    assert not findings.small_body_reads(_profile_with(1000, 1000 * small,
                                                       read_s=share - 1e-6))


# ~2 MB in few, long items: lxml parses text runs quickly, so the ~550 small reads stay
# a large share of the run even when a busy machine preempts the parse (the finding is
# told only above SMALL_READS_RUN_SHARE of the run)
XML_ITEMS = 100
XML = b"<feed>" + b"".join(b"<item id='%d'>%s</item>" % (i, b"x" * 20_000)
                           for i in range(XML_ITEMS)) + b"</feed>"


def _parse_from_socket(session: requests.Session, url: str) -> int:
    with session.get(url, stream=True) as response:
        # a parser of our own: two parses of the default parser could deadlock
        return len(lxml.etree.parse(response.raw, lxml.etree.XMLParser()).getroot())


def test_a_parser_reading_the_socket_is_found_at_the_callers_line():
    """lxml (C) calls response.raw.read() through our lxml.etree.parse section wrapper:
    the call site is still the line that called parse.

    lxml is imported at the top of this module, not inside the traced call: its first
    import (~40 ms) once made the run long enough that the reads fell under the
    finding's share of the run (SMALL_READS_RUN_SHARE), and the finding was not told."""
    response = http_response(XML)
    with RawServer(lambda head: [response], keep_alive=True) as server:
        with geventperf.Tracer(**LOW_THRESHOLD) as tracer:
            assert _parse_from_socket(requests.Session(), server.url) == XML_ITEMS
    [counted] = [e for e in tracer.profile.events if e.get("kind") == "body-reads"]
    assert counted["site"].endswith(":_parse_from_socket"), counted
    [found] = [f for f in tracer.profile.findings if f.kind == findings.SMALL_BODY_READS]
    assert found.extra["site"].endswith(":_parse_from_socket"), found.extra["site"]
