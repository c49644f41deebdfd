"""Tests that kill mutmut survivors of geventperf/bodyreader.py (tox -e mutation): behaviour a
user relies on, checked exactly -- option errors word for word, the limit and timeout
errors with the figures they name, the read counters published to listeners, and the
connection never reused after a failed body.  Real raw-socket servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import requests

import geventperf
from geventperf import readstats
from geventperf.bodyreader import DEFAULT_CHUNK_SIZE, BodyLimits
from tests.servers import RawServer, chunked, http_response, pieces_of

# Generous: only a hang (a bug) comes near it.
REQUEST_TIMEOUT_S = 10
# The body budget of the timeout tests, and the server's stall: the stall is ten times
# longer, so only the budget can end the read.
BODY_TIMEOUT_S = 0.3
STALL_S = 3.0
SUBPROCESS_TIMEOUT_S = 120


# -- options ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"chunk_size": 0}, "chunk_size must be an integer >= 1, got 0"),
    ({"chunk_size": True}, "chunk_size must be an integer >= 1, got True"),
    ({"chunk_size": 1.0}, "chunk_size must be an integer >= 1, got 1.0"),
    ({"max_body_size": -1}, "max_body_size must be an integer >= 0, got -1"),
    ({"max_body_size": False}, "max_body_size must be an integer >= 0, got False"),
    ({"yield_every": 0}, "yield_every must be an integer >= 1, got 0"),
    ({"body_timeout": 0}, "body_timeout must be a positive number of seconds or None, got 0"),
    ({"body_timeout": -0.5},
     "body_timeout must be a positive number of seconds or None, got -0.5"),
    ({"body_timeout": True},
     "body_timeout must be a positive number of seconds or None, got True"),
    ({"body_timeout": "5"},
     "body_timeout must be a positive number of seconds or None, got '5'"),
])
def test_bad_options_are_refused_word_for_word(kwargs, message):
    with pytest.raises(ValueError) as info:
        BodyLimits(**kwargs)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        geventperf.GeventAdapter(**kwargs)
    assert str(info.value) == message


def test_smallest_valid_options_are_accepted_and_enforced_says_which_need_checks():
    assert BodyLimits() == BodyLimits(chunk_size=DEFAULT_CHUNK_SIZE, max_body_size=None,
                                      body_timeout=None, yield_every=None)
    assert DEFAULT_CHUNK_SIZE == 512 * 1024
    assert not BodyLimits(chunk_size=1).enforced
    assert BodyLimits(max_body_size=0).enforced
    assert BodyLimits(body_timeout=0.001).enforced
    assert BodyLimits(body_timeout=1).enforced
    assert BodyLimits(yield_every=1).enforced


# -- errors name their figures; the connection is not reused -----------------------------

def _stall_after(body_part: bytes, length: int):
    def respond(head):
        yield http_response(body_part, length=length)
        yield STALL_S
    return respond


@pytest.mark.parametrize("stream", [False, True])
def test_body_timeout_names_the_budget_and_the_bytes_received(stream):
    with RawServer(_stall_after(b"abc", 10)) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=BODY_TIMEOUT_S)
        with pytest.raises(geventperf.BodyTimeout) as info:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=stream)
            b"".join(r.iter_content(1))
    assert str(info.value) == (f"reading the response body took more than body_timeout="
                               f"{BODY_TIMEOUT_S}s (3 bytes received) for {server.url}/")
    assert info.value.response.url == f"{server.url}/"
    assert info.value.request.url == f"{server.url}/"


@pytest.mark.parametrize("stream", [False, True])
def test_declared_length_over_the_limit_is_refused_unread_and_the_connection_dropped(stream):
    with RawServer(lambda head: [http_response(b"x" * 20)], keep_alive=True) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=19)
        with pytest.raises(geventperf.BodyTooLarge) as info:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=stream)
            b"".join(r.iter_content(5))
        assert str(info.value) == (f"response body of 20 bytes (declared by Content-Length, "
                                   f"not read) exceeds max_body_size=19 for {server.url}/")
        assert info.value.response.status_code == 200
        assert info.value.request.url == f"{server.url}/"
        # exactly at the limit: read whole, on a new connection (the refused one was
        # closed, not handed back to the pool with its body unread)
        geventperf.mount(session, max_body_size=20)
        assert session.get(server.url, timeout=REQUEST_TIMEOUT_S).content == b"x" * 20
        assert server.connections == 2
        assert session.get(server.url, timeout=REQUEST_TIMEOUT_S).content == b"x" * 20
        assert server.connections == 2  # a whole body leaves its connection reusable


@pytest.mark.parametrize("framing", ["chunked", "close"])
def test_a_body_over_the_limit_as_read_names_its_size(framing):
    body = bytes(range(256)) * 4
    if framing == "chunked":
        wire = http_response(chunked(pieces_of(body, 100)), length=None,
                             headers=[("Transfer-Encoding", "chunked")])
    else:
        wire = http_response(body, length=None, headers=[("Connection", "close")])
    with RawServer(lambda head: [wire]) as server:
        session = requests.Session()
        # pieces of at most 7 bytes: the check after each stops the body 1 to 7 bytes over
        geventperf.mount(session, max_body_size=1000, chunk_size=7)
        with pytest.raises(geventperf.BodyTooLarge) as info:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S)
    message = str(info.value)
    size = int(message.split()[3])
    assert 1000 < size <= 1000 + 7, message
    assert message == f"response body of {size} bytes exceeds max_body_size=1000 for " \
                      f"{server.url}/"


# -- the read counters --------------------------------------------------------------------

def _recorded(url: str, **adapter_kw) -> tuple[bytes, dict, float]:
    session = requests.Session()
    geventperf.mount(session, **adapter_kw)
    records: list[dict] = []
    readstats.add_sink(records.append)
    try:
        started = time.perf_counter()
        content = session.get(url, timeout=REQUEST_TIMEOUT_S).content
        wall_s = time.perf_counter() - started
    finally:
        readstats.remove_sink(records.append)
    [record] = records
    return content, record, wall_s


@pytest.mark.parametrize("framing, expected", [
    ("content-length", "content-length"), ("chunked", "chunked"), ("close", "close")])
def test_the_read_record_names_host_framing_and_counts(framing, expected):
    body = os.urandom(5000)
    if framing == "chunked":
        wire = http_response(chunked(pieces_of(body, 999)), length=None,
                             headers=[("Transfer-Encoding", "chunked")])
    elif framing == "close":
        wire = http_response(body, length=None, headers=[("Connection", "close")])
    else:
        wire = http_response(body)
    with RawServer(lambda head: [wire]) as server:
        content, record, wall_s = _recorded(server.url, chunk_size=1024)
    assert content == body
    assert set(record) == {"host", "bytes", "reads", "largest_read", "reads_waited",
                           "wall_s", "chunk_size", "framing"}
    assert record["host"] == f"127.0.0.1:{server.port}"
    assert record["framing"] == expected and record["chunk_size"] == 1024
    # every socket read asks for at most chunk_size bytes: the body (and a chunked
    # body's framing) takes at least that many reads
    wire_body = len(wire) - wire.index(b"\r\n\r\n") - 4
    assert 0 < record["largest_read"] <= 1024
    assert record["reads"] >= -(-wire_body // 1024)
    assert record["reads_waited"] is None   # a blocking socket waits in the kernel
    assert 0 < record["wall_s"] <= wall_s
    if framing != "chunked":  # urllib3 does not count a chunked body's bytes
        assert record["bytes"] == len(body)


def test_a_listener_added_during_a_streamed_body_gets_no_record_of_it():
    body = os.urandom(3000)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1000)
        records: list[dict] = []
        with session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            pieces = r.iter_content(1000)
            first = next(pieces)
            readstats.add_sink(records.append)
            try:
                rest = b"".join(pieces)
            finally:
                readstats.remove_sink(records.append)
    assert first + rest == body
    # the body began with nobody listening: nothing was prepared to be counted
    assert records == []


# -- under gevent.monkey.patch_all(): reads that found the socket empty ---------------------

WAITED_SCRIPT = textwrap.dedent("""
    import gevent.monkey; gevent.monkey.patch_all()
    import json, sys, requests, geventperf
    from geventperf import readstats
    session = requests.Session()
    geventperf.mount(session, chunk_size=4096)
    records = []
    readstats.add_sink(records.append)
    body = session.get(sys.argv[1], timeout=30).content
    readstats.remove_sink(records.append)
    print(json.dumps({"size": len(body), "record": records[0]}))
""")


def test_reads_that_waited_for_the_network_are_counted_on_gevent_sockets(tmp_path):
    half = 20_000

    def respond(head):
        yield http_response(b"a" * half, length=2 * half)
        yield 0.2   # the reader has emptied the socket and waits for the rest
        yield b"b" * half
    script = tmp_path / "waited.py"
    script.write_text(WAITED_SCRIPT)
    # The child imports the geventperf this process imported (the mutated copy under
    # mutmut, which selects its mutant through the inherited environment).
    package_root = str(Path(geventperf.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [package_root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    with RawServer(respond) as server:
        out = subprocess.run([sys.executable, str(script), server.url], capture_output=True,
                             text=True, timeout=SUBPROCESS_TIMEOUT_S, env=env)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    record = result["record"]
    assert result["size"] == 2 * half and record["bytes"] == 2 * half
    assert 1 <= record["reads_waited"] <= record["reads"]
    assert record["reads"] >= 2 * half // 4096
