"""Tests that kill mutmut survivors of geventperf/bodyreader.py (tox -e mutation): behaviour a
user relies on, checked exactly -- option errors word for word, the limit and timeout
errors with the figures they name, the read counters published to listeners, and the
connection never reused after a failed body.  Real raw-socket servers on 127.0.0.1
(one of them over TLS); where a test needs a read to take an exact time, bodyreader's
clock is the test's (the sockets and their timeouts stay real)."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
import tracemalloc

import gevent
import gevent.socket
import pytest
import requests
import urllib3
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


@pytest.mark.parametrize("adapter_kw", [{}, {"max_body_size": 10 ** 6}],
                         ids=["plain", "limits"])
def test_a_listener_added_during_a_streamed_body_gets_no_record_of_it(adapter_kw):
    """Without limits requests' own iter_content reads it; with one, the adapter's
    guard, which began uncounted and stays so."""
    body = os.urandom(3000)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1000, **adapter_kw)
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
    # the first piece came with the head: read from http.client's buffer, it never waits
    assert record["reads_waited"] == len(pieces) - 1 <= record["reads"] - 1, record


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
    (10 * PIECE + 1, 0),     # never: the body is one byte short of it
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


# -- the body_timeout budget, on a clock the test sets ------------------------------------

class _Clock:
    """bodyreader's ``time``: each reading of ``perf_counter`` returns the next value
    given, so a read "takes" exactly what the test says; the socket reads are real."""

    def __init__(self, *values: float) -> None:
        self._values = iter(values)

    def perf_counter(self) -> float:
        return next(self._values)


def _half_then_stall(head):
    """Content-Length 10: five bytes arrive with the head, the rest never."""
    yield http_response(b"abcde", length=10)
    yield STALL_S


def test_a_socket_read_gets_only_what_earlier_reads_left_of_the_budget(monkeypatch):
    """Read 1 (the five buffered bytes) takes 1 s of a 2 s budget; read 2 has taken
    another second when it needs the socket: nothing is left, so that socket read is
    refused before it waits, and the traceback says why."""
    # before read 1, after it, before read 2, before its socket read, in fail()
    monkeypatch.setattr(bodyreader, "time", _Clock(0.0, 1.0, 2.0, 3.0, 4.0))
    with RawServer(_half_then_stall) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=2.0)
        with pytest.raises(geventperf.BodyTimeout) as info:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S)
    assert str(info.value) == ("reading the response body took more than body_timeout=2.0s "
                               f"(5 bytes received) for {server.url}/")
    assert type(info.value.__cause__).__name__ == "ReadTimeoutError"
    refused = info.value.__cause__.__cause__
    assert type(refused) is TimeoutError and refused.args == ("body_timeout spent",)


@pytest.mark.parametrize("clock, expected", [
    # read 1 instant, read 2 fails at the budget less the slack, or short of it
    ((0.0, 0.0, 0.0, 0.8, 1.0 - bodyreader._TIMEOUT_SLACK_S), geventperf.BodyTimeout),
    ((0.0, 0.0, 0.0, 0.8, 0.99), requests.exceptions.ConnectionError),
    # read 1 took half the budget: the failed read 2 adds to it
    ((0.0, 0.5, 0.5, 0.9, 1.0), geventperf.BodyTimeout),
])
def test_a_socket_timeout_is_the_body_timeout_from_the_budget_less_the_slack_on(
        monkeypatch, clock, expected):
    """The socket's own timeout fires in read 2 (what is left of the budget, 0.1 to 0.2
    s): it is BodyTimeout once the reads, the failed one included, took the budget less
    _TIMEOUT_SLACK_S, and requests' ConnectionError for a read timeout before that."""
    monkeypatch.setattr(bodyreader, "time", _Clock(*clock))
    with RawServer(_half_then_stall) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=1.0)
        with pytest.raises(requests.RequestException) as info:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S)
    assert type(info.value) is expected
    if expected is geventperf.BodyTimeout:
        assert str(info.value) == ("reading the response body took more than "
                                   f"body_timeout=1.0s (5 bytes received) for {server.url}/")
    else:
        assert "Read timed out." in str(info.value)


def test_a_body_timeout_of_a_body_not_enlarged_counts_the_bytes_read_after_the_start():
    """read_content on requests' own response, three bytes read from raw first: the
    error names the two bytes this read took (urllib3's count since the start)."""
    with RawServer(_half_then_stall) as server:
        with requests.Session().get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            assert bodyreader.socket_reads(r.raw) is None
            assert r.raw.read(3) == b"abc"
            with pytest.raises(geventperf.BodyTimeout) as info:
                bodyreader.read_content(r, BodyLimits(body_timeout=BODY_TIMEOUT_S))
    assert str(info.value) == (f"reading the response body took more than body_timeout="
                               f"{BODY_TIMEOUT_S}s (2 bytes received) for {server.url}/")


# -- a TLS record broken mid-body -----------------------------------------------------------

@pytest.fixture(scope="module")
def tls_context(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(folder / "key.pem"),
                    "-out", str(folder / "cert.pem")], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


class BrokenRecordServer:
    """HTTPS on 127.0.0.1: half of a Content-Length body, then a TLS record whose MAC
    fails (sent past the TLS layer), then the connection closes."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self._context = context
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> BrokenRecordServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            try:
                with self._context.wrap_socket(conn, server_side=True) as tls:
                    head = b""
                    while b"\r\n\r\n" not in head:
                        head += tls.recv(65536)
                    tls.sendall(http_response(b"abcde", length=10))
                    # application data, 32 bytes, that no key decrypts
                    socket.socket.sendall(tls, b"\x17\x03\x03\x00\x20" + bytes(32))
            except OSError:
                pass


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_a_broken_tls_record_mid_body_is_requests_ssl_error_with_its_cause(tls_context):
    with BrokenRecordServer(tls_context) as server:
        session = requests.Session()
        with pytest.raises(requests.exceptions.SSLError) as expected:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S, verify=False)
        # a limit: the adapter reads the body itself (not requests' one-piece read)
        geventperf.mount(session, max_body_size=10 ** 6)
        with pytest.raises(requests.exceptions.SSLError) as info:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S, verify=False)
    assert "bad record mac" in str(expected.value)
    assert str(info.value) == str(expected.value)
    assert type(info.value.args[0]).__name__ == "SSLError"   # urllib3's, as with requests


# -- more of the budget ----------------------------------------------------------------------

class _Clock2(_Clock):
    """As _Clock, then stands still at the last value given."""

    def __init__(self, *values: float) -> None:
        super().__init__(*values)
        self._last = values[-1]

    def perf_counter(self) -> float:
        self._last = next(self._values, self._last)
        return self._last


def test_reads_add_up_against_the_budget_which_is_checked_before_each_read(monkeypatch):
    """Three reads of the buffered bytes (chunk_size 2: 2, 2 and 1 bytes) take 0.5 s
    each of a 1.5 s budget: the fourth is refused before it starts, no socket read
    made (no cause), with the five bytes received."""
    monkeypatch.setattr(bodyreader, "time", _Clock2(0.0, 0.5, 1.0, 1.5, 2.0, 2.5))
    with RawServer(_half_then_stall) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=1.5, chunk_size=2)
        with pytest.raises(geventperf.BodyTimeout) as info:
            session.get(server.url, timeout=REQUEST_TIMEOUT_S)
    assert str(info.value) == ("reading the response body took more than body_timeout=1.5s "
                               f"(5 bytes received) for {server.url}/")
    assert info.value.__cause__ is None


# -- the counters, exactly -----------------------------------------------------------------------

def test_the_socket_counters_of_a_body_that_came_with_its_head():
    """4096 bytes sent with the head (one segment): read from http.client's buffer in
    four reads of chunk_size, and nothing else."""
    body = os.urandom(4096)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024)
        records: list[dict] = []
        readstats.add_sink(records.append)
        try:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
            counter = bodyreader.socket_reads(r.raw)
            assert (counter.reads, counter.bytes, counter.largest) == (0, 0, 0)
            assert r.content == body
        finally:
            readstats.remove_sink(records.append)
    [record] = records
    assert (counter.reads, counter.bytes, counter.largest) == (4, 4096, 1024)
    assert (record["reads"], record["bytes"], record["largest_read"]) == (4, 4096, 1024)


def test_a_body_cut_off_before_its_first_byte_is_counted_as_one_empty_read():
    with RawServer(lambda head: [http_response(b"", length=10)]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024)
        records: list[dict] = []
        readstats.add_sink(records.append)
        try:
            with pytest.raises(requests.exceptions.ChunkedEncodingError,
                               match=r"IncompleteRead\(0 bytes read, 10 more expected\)"):
                session.get(server.url, timeout=REQUEST_TIMEOUT_S)
        finally:
            readstats.remove_sink(records.append)
    [record] = records
    assert (record["reads"], record["bytes"], record["largest_read"]) == (1, 0, 0)


@pytest.mark.parametrize("framing", ["content-length", "close"])
def test_max_body_size_counts_only_what_this_read_reads(framing):
    """Ten bytes read from raw first: .content reads the other 4990 bytes, which fit a
    limit of exactly 4990 and not one of 4989."""
    body = os.urandom(5000)
    wire = http_response(body) if framing == "content-length" else \
        http_response(body, length=None, headers=[("Connection", "close")])
    with RawServer(lambda head: [wire]) as server:
        for limit in (4990, 4989):
            session = requests.Session()
            geventperf.mount(session, chunk_size=1024, max_body_size=limit)
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
            first = r.raw.read(10)
            if limit == 4990:
                assert first + r.content == body
                assert r.raw.tell() == 5000   # every byte counted, the first ten too
                continue
            with pytest.raises(geventperf.BodyTooLarge) as info:
                _ = r.content
            how = " (declared by Content-Length, not read)" if framing == "content-length" \
                else ""
            assert str(info.value) == (f"response body of 4990 bytes{how} exceeds "
                                       f"max_body_size=4989 for {server.url}/")


def test_the_raw_body_reads_on_after_a_stream_with_a_budget_is_left():
    """iter_content stopped after one piece (its generator closed): reading the rest
    from response.raw works, no longer bound to the body's budget."""
    body = os.urandom(200_000)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024, body_timeout=30.0)
        with session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            pieces = r.iter_content(1000)
            first = next(pieces)
            pieces.close()
            rest = r.raw.read()
    assert first + rest == body


def test_a_content_length_body_is_read_into_one_buffer_of_its_size():
    """The whole body is one allocation of its size: peak memory while reading a 2 MiB
    body stays well under two copies of it (pieces joined would need two)."""
    body = os.urandom(2 * 1024 * 1024)
    with RawServer(lambda head: [http_response(body)]) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=len(body))
        r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
        tracemalloc.start()
        try:
            content = r.content
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert content == body
    assert len(body) <= peak < 1.25 * len(body), peak


# -- a response with no connection: replayed by a caching adapter -------------------------------

class ReplayAdapter(geventperf.GeventAdapter):
    """Answers from a recording, as a caching adapter does: a urllib3 response over
    the recorded bytes, with no connection and no socket."""

    def __init__(self, recorded: bytes, **kwargs) -> None:
        super().__init__(**kwargs)
        self.recorded = recorded

    def send(self, request, **kwargs):
        raw = urllib3.HTTPResponse(body=io.BytesIO(self.recorded), status=200,
                                   headers={"Content-Length": str(len(self.recorded))},
                                   preload_content=False, decode_content=False)
        return self.build_response(request, raw)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("adapter_kw", ADAPTER_OPTIONS, ids=["plain", "limits"])
def test_a_replayed_body_is_read_and_recorded_under_its_url(adapter_kw, stream):
    body = os.urandom(5000)
    with RawServer(lambda head: [http_response(body)]) as server:
        recorded = requests.get(server.url, timeout=REQUEST_TIMEOUT_S).content
    session = requests.Session()
    session.mount("http://", ReplayAdapter(recorded, chunk_size=1024, **adapter_kw))
    records: list[dict] = []
    readstats.add_sink(records.append)
    try:
        r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=stream)
        content = b"".join(r.iter_content(1000)) if stream else r.content
    finally:
        readstats.remove_sink(records.append)
    assert content == body
    [record] = records
    assert record["host"] == f"{server.url}/"
    assert (record["bytes"], record["reads"], record["largest_read"], record["framing"]) \
        == (len(body), None, None, "content-length")


# -- bodies whose length http.client and urllib3 read differently --------------------------------

def _gzip_listed_length() -> bytes:
    coded = gzip.compress(b"hello " * 300, mtime=0)
    return http_response(coded, length=None,
                         headers=GZIP + [("Content-Length", f"{len(coded)}, {len(coded)}")])


ODD_LENGTHS = {
    # 5 to urllib3, unparsable to http.client (which reads to EOF): requests fails it
    "listed length, longer body": http_response(b"0123456789", length=None,
                                                headers=[("Content-Length", "5, 5")]),
    "listed length": http_response(b"01234", length=None,
                                   headers=[("Content-Length", "5, 5")]),
    "listed length, gzip": _gzip_listed_length(),
}


@pytest.mark.parametrize("adapter_kw", ADAPTER_OPTIONS, ids=["plain", "limits"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("case", sorted(ODD_LENGTHS))
def test_a_listed_content_length_reads_as_with_requests(case, stream, adapter_kw):
    with RawServer(lambda head: [ODD_LENGTHS[case]]) as server:
        expected = _outcome(server.url, stream, None)
        assert (expected[0] == "body") == ("longer" not in case), expected
        assert _outcome(server.url, stream, adapter_kw) == expected


@pytest.mark.parametrize("declared", ["99999999999999999999999", str(2 ** 50),
                                      str(2 ** 63), str(2 ** 64 + 10)])
def test_a_content_length_no_buffer_can_hold_is_a_short_body(declared):
    """No buffer of that size can be allocated: read in pieces, the short body fails
    as with requests (not MemoryError or OverflowError)."""
    wire = http_response(b"0123456789", length=None, headers=[("Content-Length", declared)])
    with RawServer(lambda head: [wire]) as server:
        expected = _outcome(server.url, False, None)
        assert expected[0] == "ChunkedEncodingError", expected
        assert _outcome(server.url, False, {"chunk_size": 4}) == expected


def test_a_close_delimited_body_over_the_limit_fails_on_the_bytes_that_came():
    """150 bytes came with the head and the connection then stays silent: each read
    takes what the socket has (one socket read), so the limit stops the body at once
    instead of waiting for a full chunk_size piece (the socket timeout)."""
    def respond(head):
        yield http_response(b"x" * 150, length=None, headers=[("Connection", "close")])
        yield STALL_S
    with RawServer(respond) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=100, chunk_size=1024)
        with pytest.raises(geventperf.BodyTooLarge) as info:
            session.get(server.url, timeout=BODY_TIMEOUT_S)
    assert str(info.value) == (f"response body of 150 bytes exceeds max_body_size=100 for "
                               f"{server.url}/")


# -- a body whose buffer was not enlarged (requests' own response) ---------------------------

def test_the_request_read_timeout_still_bounds_a_read_under_a_larger_budget():
    with RawServer(_half_then_stall) as server:
        with requests.Session().get(server.url, timeout=BODY_TIMEOUT_S, stream=True) as r:
            assert r.raw.read(3) == b"abc"   # not the one-buffer path: read1, via before()
            with pytest.raises(requests.exceptions.ConnectionError) as info:
                bodyreader.read_content(r, BodyLimits(body_timeout=30.0))
    assert type(info.value) is requests.exceptions.ConnectionError
    assert "Read timed out." in str(info.value)


def test_a_body_not_enlarged_is_still_checked_every_chunk_size_bytes():
    body = bytes(range(256)) * 4
    wire = http_response(body, length=None, headers=[("Connection", "close")])
    with RawServer(lambda head: [wire]) as server:
        with requests.Session().get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            with pytest.raises(geventperf.BodyTooLarge) as info:
                bodyreader.read_content(r, BodyLimits(chunk_size=7, max_body_size=1000))
    size = int(str(info.value).split()[3])
    assert 1000 < size <= 1000 + 7, str(info.value)


def test_enlarge_read_buffer_says_whether_it_enlarged():
    bodies = {"/empty": b"", "/one": b"x", "/more": b"0123456789"}
    # The server closes each connection after one response; said in the head, so the
    # session never reuses one the server thread has not closed yet (it flaked under
    # load with "Remote end closed connection without response").
    close = [("Connection", "close")]
    with RawServer(lambda head: [http_response(bodies[head.split()[1].decode()],
                                               headers=close)]) as server:
        session = requests.Session()
        outcomes = {}
        for path, body in bodies.items():
            with session.get(server.url + path, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
                outcomes[path] = bodyreader.enlarge_read_buffer(r.raw, 1024)
                assert (bodyreader.socket_reads(r.raw) is not None) == outcomes[path]
                assert r.raw.read() == body
        with session.get(server.url + "/more", timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            assert r.raw.read(1) == b"0"
            outcomes["/more, partly read"] = bodyreader.enlarge_read_buffer(r.raw, 1024)
            assert bodyreader.socket_reads(r.raw) is None
            assert r.raw.read() == b"123456789"
    assert outcomes == {"/empty": False, "/one": True, "/more": True,
                        "/more, partly read": False}
    # not a urllib3 response at all: nothing to enlarge, nothing counted
    assert bodyreader.enlarge_read_buffer(None, 1024) is False
    assert bodyreader.enlarge_read_buffer(io.BytesIO(b"x"), 1024) is False
    assert bodyreader.socket_reads(None) is None


def test_a_content_length_body_is_read_to_its_last_byte_and_not_past_it():
    """Bytes after the body (a misbehaving server's, or a pipelined next response's)
    arrive with it: the read takes exactly the body's ten bytes, counted as such."""
    wire = http_response(b"0123456789") + b"NOT THE BODY"
    with RawServer(lambda head: [wire]) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024)
        records: list[dict] = []
        readstats.add_sink(records.append)
        try:
            r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True)
            counter = bodyreader.socket_reads(r.raw)
            assert r.content == b"0123456789"
        finally:
            readstats.remove_sink(records.append)
    [record] = records
    assert (counter.reads, counter.bytes, counter.largest) == (1, 10, 10)
    assert (record["reads"], record["bytes"], record["largest_read"]) == (1, 10, 10)


def test_a_refused_body_closes_its_connection_at_once():
    """The server sees the connection closed while the BodyTooLarge (whose traceback
    holds the body's reader) is still alive: the socket is not left open until the
    exception is collected."""
    listener = socket.create_server(("127.0.0.1", 0))
    closed = threading.Event()

    def serve():
        conn, _ = listener.accept()
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(65536)
            conn.sendall(http_response(b"x" * 20))
            conn.settimeout(2 * REQUEST_TIMEOUT_S)
            try:
                if conn.recv(65536) == b"":
                    closed.set()
            except OSError:
                pass
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        session = requests.Session()
        geventperf.mount(session, max_body_size=19)
        with pytest.raises(geventperf.BodyTooLarge) as info:
            session.get(f"http://127.0.0.1:{listener.getsockname()[1]}",
                        timeout=REQUEST_TIMEOUT_S)
        assert closed.wait(REQUEST_TIMEOUT_S), "the refused connection is still open"
        assert info.value.response.status_code == 200
    finally:
        listener.close()
        thread.join(3 * REQUEST_TIMEOUT_S)


# -- the socket's timeout once a streamed body is left ------------------------------------------

def _first_then_pause(pause_s: float):
    def respond(head):
        yield http_response(b"a" * 1000, length=2000)
        yield pause_s
        yield b"b" * 1000
    return respond


def test_a_left_stream_gives_the_socket_back_its_request_timeout():
    """body_timeout 0.3 s, request timeout 10 s: once iter_content is left, the rest of
    the body (after a 1 s pause) is read under the request's timeout again, not what
    was left of the body's budget."""
    with RawServer(_first_then_pause(1.0)) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024, body_timeout=BODY_TIMEOUT_S)
        with session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
            pieces = r.iter_content(1000)
            assert next(pieces) == b"a" * 1000
            pieces.close()
            assert r.raw.read() == b"b" * 1000


def test_a_left_stream_keeps_the_request_timeout_on_the_socket():
    """Request timeout 0.3 s under a 30 s budget: once iter_content is left, a read of
    the rest still times out after the request's timeout (the server pauses 3 s)."""
    with RawServer(_first_then_pause(STALL_S)) as server:
        session = requests.Session()
        geventperf.mount(session, chunk_size=1024, body_timeout=30.0)
        with session.get(server.url, timeout=BODY_TIMEOUT_S, stream=True) as r:
            pieces = r.iter_content(1000)
            assert next(pieces) == b"a" * 1000
            pieces.close()
            with pytest.raises(urllib3.exceptions.ReadTimeoutError):
                r.raw.read()
