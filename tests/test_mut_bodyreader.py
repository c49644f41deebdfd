"""Tests that kill mutmut survivors of geventperf/bodyreader.py (tox -e mutation): behaviour a
user relies on, checked exactly -- option errors word for word, the limit and timeout
errors with the figures they name, the read counters published to listeners, and the
connection never reused after a failed body.  Real raw-socket servers on 127.0.0.1."""

from __future__ import annotations

import gzip
import os
import time

import gevent
import gevent.socket
import pytest
import requests
import urllib3.connection
from requests.models import CONTENT_CHUNK_SIZE
from urllib3.connectionpool import HTTPConnectionPool

import geventperf
from geventperf import bodyreader, readstats
from geventperf.bodyreader import DEFAULT_CHUNK_SIZE, BodyLimits
from tests.servers import RawServer, chunked, http_response, pieces_of

# Generous: only a hang (a bug) comes near it.
REQUEST_TIMEOUT_S = 10
# The body budget of the timeout tests, and the server's stall: the stall is ten times
# longer, so only the budget can end the read.
BODY_TIMEOUT_S = 0.3
STALL_S = 3.0
# The server's pause mid-body: reading the first half takes microseconds, so even a
# reader descheduled on a busy machine has emptied the socket well before.
WAIT_PAUSE_S = 0.5


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


# -- gevent sockets: reads that found the socket empty ---------------------------------------

class GeventConnection(urllib3.connection.HTTPConnection):
    """urllib3's connection over a gevent socket, as under monkey-patching, without
    patching this process."""

    def _new_conn(self):
        return gevent.socket.create_connection((self._dns_host, self.port), self.timeout)


class GeventPool(HTTPConnectionPool):
    ConnectionCls = GeventConnection


def test_reads_that_waited_are_counted_in_process_over_gevent_sockets():
    """Four pieces of a body, the last three each after a pause: each of those pieces is
    one read, and each of those reads finds the socket empty and waits."""
    pieces = [bytes([65 + i]) * 1000 for i in range(4)]

    def respond(head):
        yield http_response(pieces[0], length=sum(map(len, pieces)))
        for piece in pieces[1:]:
            # the reader empties the socket long before this pause ends, then waits
            yield WAIT_PAUSE_S
            yield piece
    with RawServer(respond) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=4096)
        session.get_adapter(server.url).poolmanager.pool_classes_by_scheme = \
            {"http": GeventPool}
        records: list[dict] = []
        readstats.add_sink(records.append)
        try:
            body = session.get(server.url, timeout=REQUEST_TIMEOUT_S).content
        finally:
            readstats.remove_sink(records.append)
    [record] = records
    assert body == b"".join(pieces) and record["bytes"] == len(body)
    assert len(pieces) - 1 <= record["reads_waited"] <= record["reads"], record


# -- broken bodies fail exactly as with requests' default adapter -------------------------

CHUNKED = [("Transfer-Encoding", "chunked")]
GZIP = [("Content-Encoding", "gzip")]
BROKEN = {
    "truncated Content-Length body": http_response(b"abc", length=10),
    "truncated chunk": http_response(b"5\r\nabc", length=None, headers=CHUNKED),
    "chunk size not hex": http_response(b"zz\r\nabc\r\n0\r\n\r\n", length=None,
                                        headers=CHUNKED),
    "corrupt gzip": http_response(b"not gzip at all", headers=GZIP),
    "corrupt gzip, chunked": http_response(chunked([b"not gzip at all"]), length=None,
                                           headers=GZIP + CHUNKED),
    # requests returns what decoded before the end: so must the adapter
    "truncated gzip, close-delimited": http_response(
        gzip.compress(b"x" * 1000)[:20], length=None, headers=GZIP),
}
# Without limits the adapter reads with read_content only; with them, a streamed body
# goes through guard_stream too.
ADAPTER_OPTIONS = [{}, {"max_body_size": 10 ** 6, "body_timeout": 30.0, "yield_every": 5}]


def _outcome(url: str, stream: bool, adapter_kw: dict | None,
             timeout: float = REQUEST_TIMEOUT_S) -> tuple[str, str]:
    session = requests.Session()
    if adapter_kw is not None:
        geventperf.mount(session, **adapter_kw)
    try:
        r = session.get(url, timeout=timeout, stream=stream)
        body = b"".join(r.iter_content(3)) if stream else r.content
        return ("body", body.hex())
    except requests.RequestException as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("adapter_kw", ADAPTER_OPTIONS, ids=["plain", "limits"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_bodies_raise_requests_exception_and_message(case, stream, adapter_kw):
    with RawServer(lambda head: [BROKEN[case]]) as server:
        expected = _outcome(server.url, stream, None)
        assert (expected[0] == "body") == ("close-delimited" in case), expected
        assert _outcome(server.url, stream, adapter_kw) == expected


def test_a_socket_read_timeout_mid_body_reads_as_with_requests():
    with RawServer(_stall_after(b"abc", 10)) as server:
        expected = _outcome(server.url, False, None, timeout=BODY_TIMEOUT_S)
        assert expected[0] == "ConnectionError" and "Read timed out" in expected[1]
        assert _outcome(server.url, False, {"body_timeout": 30.0},
                        timeout=BODY_TIMEOUT_S) == expected


@pytest.mark.parametrize("stream", [False, True])
def test_a_negative_chunk_size_is_a_broken_chunked_body(stream):
    """requests lets http.client's bare ValueError out; the adapter names the cause."""
    wire = http_response(b"-5\r\nabc\r\n0\r\n\r\n", length=None, headers=CHUNKED)
    with RawServer(lambda head: [wire]) as server:
        with pytest.raises(ValueError, match="^read length must be non-negative or -1$"):
            _outcome(server.url, stream, None)
        assert _outcome(server.url, stream, {}) == (
            "ChunkedEncodingError",
            "('Connection broken: invalid chunk length (read length must be non-negative "
            "or -1)', ValueError('read length must be non-negative or -1'))")


def test_read_content_reads_a_body_whose_buffer_was_not_enlarged():
    """read_content on a response of requests' own adapter (http.client's 8 KiB buffer
    left in place): the body comes out whole, through that buffer."""
    body = os.urandom(100_000)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        with session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            assert bodyreader.socket_reads(r.raw) is None
            assert bodyreader.read_content(r, BodyLimits(chunk_size=4096)) == body
            assert r.raw.tell() == len(body)
    truncated = http_response(b"abc", length=10)
    with RawServer(lambda head: [truncated]) as server:
        with requests.Session().get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            with pytest.raises(requests.exceptions.ChunkedEncodingError) as info:
                bodyreader.read_content(r, BodyLimits())
    assert str(info.value) == ("('Connection broken: IncompleteRead(3 bytes read, 7 more "
                               "expected)', IncompleteRead(3 bytes read, 7 more expected))")


def test_body_timeout_bounds_each_socket_read_inside_one_chunk():
    """One 50-byte chunk trickled a byte at a time: urllib3 reads it with one call that
    makes a socket read per byte, and the budget must bound each of them, so the body
    fails long before the chunk is whole.  No socket timeout is set (None)."""
    def trickle(head):
        yield http_response(b"", length=None, headers=CHUNKED) + b"32\r\n"
        for _ in range(50):
            yield b"x"
            yield STALL_S / 50
    with RawServer(trickle) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=BODY_TIMEOUT_S)
        with pytest.raises(geventperf.BodyTimeout) as info:
            session.get(server.url)
    received = int(str(info.value).split("(")[1].split()[0])
    assert received < 4 + 50, str(info.value)   # the size line and part of the chunk


# -- yield_every ------------------------------------------------------------------------------

# A gzip body decoding to ten pieces of exactly requests' piece size (urllib3 hands out
# decoded pieces of the size asked for): the yields are then a pure count of pieces.
PIECE = CONTENT_CHUNK_SIZE
YIELD_BODY = bytes(range(256)) * (10 * PIECE // 256)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("yield_every, yields", [
    (1, 10),                 # after every piece
    (2 * PIECE - 1, 5),      # two pieces pass it: every second piece
    (2 * PIECE, 5),          # two pieces reach it exactly
    (2 * PIECE + 1, 3),      # three pieces needed, the count starting over after each yield
    (10 * PIECE, 1),         # once, at the end
])
def test_yield_every_lets_other_greenlets_run_once_per_yield(yield_every, yields, stream):
    wire = http_response(gzip.compress(YIELD_BODY), headers=GZIP)
    ticks: list[int] = []

    def ticker():   # runs once each time the reader yields: its sockets block otherwise
        while True:
            ticks.append(1)
            gevent.sleep(0)
    with RawServer(lambda head: [wire]) as server:
        session = requests.Session()
        geventperf.mount(session, yield_every=yield_every)
        running = gevent.spawn(ticker)
        gevent.sleep(0)
        before = len(ticks)
        try:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=stream)
            body = b"".join(r.iter_content(PIECE)) if stream else r.content
            ran = len(ticks) - before   # counted before kill(), which lets it run once more
        finally:
            running.kill()
    assert body == YIELD_BODY
    assert ran == yields


def test_an_empty_body_has_no_socket_reads_to_count():
    with RawServer(lambda head: [http_response(b"")]) as server:
        content, record, _ = _recorded(server.url, chunk_size=1024)
    assert content == b""
    assert (record["bytes"], record["reads"], record["largest_read"]) == (0, None, None)


@pytest.mark.parametrize("framing", ["content-length", "close"])
def test_the_record_counts_only_the_bytes_this_read_took(framing):
    """Ten bytes read from response.raw first: the rest of the body is what
    .content reads, counts and returns."""
    body = os.urandom(5000)
    wire = http_response(body) if framing == "content-length" else \
        http_response(body, length=None, headers=[("Connection", "close")])
    with RawServer(lambda head: [wire]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024)
        records: list[dict] = []
        readstats.add_sink(records.append)
        try:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
            first = r.raw.read(10)
            counter = bodyreader.socket_reads(r.raw)
            reads_before = counter.reads
            rest = r.content
        finally:
            readstats.remove_sink(records.append)
    assert first + rest == body
    [record] = records
    assert record["bytes"] == len(body) - 10 and record["framing"] == framing
    assert reads_before >= 1 and record["reads"] == counter.reads - reads_before



def test_the_adapters_whole_read_leaves_the_raw_response_as_requests_does():
    """After .content the raw response's counters and state are what requests' own
    read leaves: every byte counted, nothing remaining, closed, nothing more to read,
    and the connection back in the pool.  The body is larger than requests' one piece,
    so the adapter reads it itself."""
    body = os.urandom(5 * CONTENT_CHUNK_SIZE)
    states = []
    for mount in (False, True):
        with RawServer(lambda head: [http_response(body)], keep_alive=True) as server:
            session = requests.Session()
            if mount:
                geventperf.mount(session, chunk_size=1024)
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
            assert r.content == body
            states.append((r.raw.tell(), r.raw.length_remaining, r.raw._fp.length,
                           r.raw.isclosed(), r.raw.read()))
            assert session.get(server.url, timeout=REQUEST_TIMEOUT_S).content == body
            assert server.connections == 1
    assert states[1] == states[0] == (len(body), 0, 0, True, b"")
