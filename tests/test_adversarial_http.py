"""Adversarial HTTP responses, property-based: GeventAdapter against requests' default
adapter on the same bytes, served by one raw-socket server on 127.0.0.1.

Every example serves one scripted response (bytes split into random pieces with small
pauses) twice, on fresh connections: once to a plain ``requests.Session`` and once to
a session with ``geventperf.mount(session, chunk_size=<random>)``.  The adapter must
give what requests gives (status, headers minus Date, body bytes) or raise the same
requests exception class; BodyTooLarge where its ``max_body_size`` applies.  Never a
different body.

Deviations from requests' default adapter, each pinned by a test below:

* a negative chunk size ("-5\\r\\n"): urllib3 hands it to http.client's read, which
  raises a bare ``ValueError("read length must be non-negative or -1")`` (an
  ``OverflowError`` below -2**63); requests lets it out of ``Response.content`` and
  ``iter_content``.  The adapter raises ``ChunkedEncodingError`` naming the invalid
  chunk length from both (``DEVIATIONS``).
* ``max_body_size``: a body whose raw or decoded size passes it raises BodyTooLarge
  where requests returns it (the gzip/deflate bombs).

Case counts: every property adds its examples to ``CASES``; the last test checks each
property ran its examples and writes the totals to the terminal ("cases fuzzed").
``GEVENTPERF_FUZZ_EXAMPLES=2000`` runs that many examples per property instead.

Budgets (tests/fuzz_budget.py): each request of an example, requests' reference one
included, has ``REQUEST_CPU_BUDGET_S`` of CPU, and the module's address space may grow
by ``MODULE_MEMORY_BUDGET_BYTES``; past either the example fails, is saved in the
hypothesis database (``.hypothesis/examples``, git-ignored, replayed first next run)
and printed with a ``@reproduce_failure`` line.  The run's seed is printed with the
case counts; ``GEVENTPERF_FUZZ_SEED=<seed>`` repeats a run.
"""

from __future__ import annotations

import collections
import functools
import gzip
import os
import socket
import struct
import time
import zlib
from dataclasses import dataclass

import pytest
import requests
from hypothesis import HealthCheck, assume, given, seed, settings
from hypothesis import strategies as st
from requests.exceptions import ChunkedEncodingError, ContentDecodingError

import geventperf
from geventperf.bytesbuf import BodyBuffer
from tests import fuzz_budget
from tests.mount_paths import mount_path  # noqa: F401  (every test: both mount paths)
from tests.servers import RawServer, chunked, pieces_of

# -- knobs -------------------------------------------------------------------------------

# Examples per property in the default run: ~10 properties stay well inside two minutes
# on a 2-core machine.  GEVENTPERF_FUZZ_EXAMPLES overrides it for a long run.
DEFAULT_EXAMPLES = 300
EXAMPLES = int(os.environ.get("GEVENTPERF_FUZZ_EXAMPLES") or 0) or DEFAULT_EXAMPLES

# The chunk sizes the brief asks for: one byte, odd small, smaller than a chunk-size
# line, a page, a socket buffer, the default.
CHUNK_SIZES = [1, 7, 100, 4096, 65536, 524288]

# Every request's own read timeout: a case that would hang fails instead.
REQUEST_TIMEOUT_S = 5

# Largest body a generated response carries: big enough to span several reads of the
# small chunk sizes and several chunks, small enough for chunk_size=1.
MAX_BODY = 3000

# Pauses between pieces of a response (seconds): 0-2 ms, as the brief says.
PAUSES = st.sampled_from([0.0, 0.0, 0.0, 0.0005, 0.001, 0.002])

# CPU seconds one request of an example may use (the reference's or ours; the one
# that ran away decoded for minutes).  The largest seen in a default run is printed
# with the case counts: about 0.5 s (a 66 000-byte chunk-size line read a byte at a
# time); budget well above that, so only a runaway reaches it, loaded machine or not
# (CPU time does not pass while the process waits for a core).
REQUEST_CPU_BUDGET_S = 20.0
# Address space the module may add to what it had at its start: the largest body a
# generated example decodes is 150 KB, the fixed bombs stop at 1 MB (their 64 MiB
# source is built once per coding); the runaway grew to 18 GB.
MODULE_MEMORY_BUDGET_BYTES = 2 * 1024 ** 3

_FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                          database=fuzz_budget.DATABASE, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large,
                                                 HealthCheck.filter_too_much,
                                                 HealthCheck.function_scoped_fixture])


def FUZZ(test):  # noqa: N802 - used as a decorator, like the settings object it was
    """A property's settings, its failure database and this run's seed."""
    return seed(fuzz_budget.SEED)(_FUZZ_SETTINGS(test))


# Exceptions requests' default adapter lets out that are not RequestExceptions, and the
# RequestException the adapter raises instead (see the module docstring).
DEVIATIONS = {ValueError: ChunkedEncodingError, OverflowError: ChunkedEncodingError}

# property name -> examples run (read by test_zz_cases_fuzzed)
CASES: collections.Counter[str] = collections.Counter()
# property name -> how many examples it must have run
EXPECTED: dict[str, int] = {}

RESET = object()   # in a script: stop and reset the connection (RST, not FIN)

# side -> the most CPU seconds one request took (printed by test_zz_cases_fuzzed)
CPU_MAX: dict[str, float] = collections.defaultdict(float)
REFERENCE = "requests' default adapter (the reference)"
OURS = "GeventAdapter"


@pytest.fixture(scope="module", autouse=True)
def memory_budget():
    with fuzz_budget.address_space_budget(MODULE_MEMORY_BUDGET_BYTES) as limit:
        yield limit


# -- the server ------------------------------------------------------------------------

class ScriptServer(RawServer):
    """Plays ``self.script`` (set per example) to every request, then closes.

    A RESET in the script makes the server drop the connection with SO_LINGER 0, so the
    client sees a TCP reset instead of an end of file.
    """

    def __init__(self) -> None:
        self.script: list = []
        super().__init__(self._respond, keep_alive=False)

    def _respond(self, head: bytes):
        for piece in self.script:   # the list the current example set, never mutated
            if piece is RESET:
                raise OSError("scripted reset")   # RawServer returns; the close is a RST
            yield piece

    def _serve(self, conn: socket.socket) -> None:
        if any(piece is RESET for piece in self.script):
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        super()._serve(conn)


@pytest.fixture(scope="module")
def server():
    with ScriptServer() as s:
        yield s


# -- observing one request ----------------------------------------------------------------

def observe(session: requests.Session, url: str, iter_size: int | None,
            side: str = OURS) -> tuple:
    """What a caller sees: ("ok", status, headers, body), ("head-error", class) when
    the request failed before the body (requests' code, shared by both adapters),
    ("body-error", class) or ("foreign-error", class, message) for a non-requests
    exception out of the body read.  Within REQUEST_CPU_BUDGET_S of CPU."""
    started = time.process_time()
    try:
        with fuzz_budget.cpu_budget(REQUEST_CPU_BUDGET_S, side):
            return _observe(session, url, iter_size)
    finally:
        CPU_MAX[side] = max(CPU_MAX[side], time.process_time() - started)


def _observe(session: requests.Session, url: str, iter_size: int | None) -> tuple:
    with session:
        try:
            r = session.get(url, timeout=REQUEST_TIMEOUT_S, stream=True)
        except Exception as exc:  # noqa: BLE001 - the class is what we compare
            return ("head-error", type(exc))
        with r:
            headers = {k: v for k, v in r.headers.items() if k.lower() != "date"}
            try:
                if iter_size is None:
                    body = r.content
                else:
                    body = b"".join(r.iter_content(iter_size))
            except requests.RequestException as exc:
                return ("body-error", type(exc))
            except MemoryError:  # past the memory budget: the example fails
                raise
            except Exception as exc:  # noqa: BLE001
                return ("foreign-error", type(exc), str(exc))
            return ("ok", r.status_code, headers, body)


def default_and_ours(server: ScriptServer, script: list, chunk_size: int,
                     iter_size: int | None = None, **adapter_kw) -> tuple[tuple, tuple]:
    server.script = script
    expected = observe(requests.Session(), server.url, iter_size, REFERENCE)
    session = requests.Session()
    geventperf.mount(session, chunk_size=chunk_size, **adapter_kw)
    ours = observe(session, server.url, iter_size)
    return expected, ours


def assert_same(expected: tuple, ours: tuple) -> None:
    """The adapter's outcome is requests' (or its documented deviation)."""
    if expected[0] == "foreign-error":
        assert ours[0] == "body-error", (expected, ours)
        assert DEVIATIONS.get(expected[1]) is ours[1], (expected, ours)
    else:
        assert ours == expected


def compare(server, script, chunk_size, iter_size=None, **adapter_kw) -> tuple:
    expected, ours = default_and_ours(server, script, chunk_size, iter_size, **adapter_kw)
    limit = adapter_kw.get("max_body_size")
    if limit is not None and ours == ("body-error", geventperf.BodyTooLarge):
        # The limit applies: a Content-Length above it is refused before reading (where
        # requests, reading, finds the lie), a body above it is stopped.
        assert expected[0] != "ok" or len(expected[3]) > limit, (expected, ours)
        return ours
    assert_same(expected, ours)
    return ours


def count(name: str) -> None:
    CASES[name] += 1


# -- building responses -------------------------------------------------------------------

@dataclass
class Response:
    head: bytes          # status line and headers, with the blank line
    payload: bytes       # the body as framed on the wire
    decoded: bytes       # what Response.content must be
    framing: str         # "length", "chunked" or "close"
    encoding: str
    ends: list[int]      # payload offsets where a chunk's data ends (chunked only)

    @property
    def wire(self) -> bytes:
        return self.head + self.payload


def encode(body: bytes, encoding: str) -> bytes:
    if encoding == "gzip":
        return gzip.compress(body)
    if encoding == "gzip-2":  # two gzip members: decoders must read both
        half = len(body) // 2
        return gzip.compress(body[:half]) + gzip.compress(body[half:])
    if encoding == "deflate":  # zlib-wrapped, as RFC 9110 means it
        return zlib.compress(body)
    if encoding == "deflate-raw":  # raw deflate, as some servers send it
        co = zlib.compressobj(wbits=-15)
        return co.compress(body) + co.flush()
    return body


CONTENT_ENCODING = {"gzip": "gzip", "gzip-2": "gzip", "deflate": "deflate",
                    "deflate-raw": "deflate", "identity": None}

bodies = st.one_of(
    st.binary(max_size=MAX_BODY),
    # compressible bodies: the decoded size is many times the wire size
    st.builds(lambda unit, n: (unit * n)[:MAX_BODY], st.binary(min_size=1, max_size=16),
              st.integers(1, MAX_BODY)),
)

# chunk extensions as senders write them (valid ones; malformed lines are their own case)
extensions = st.one_of(
    st.just(b""),
    st.lists(st.from_regex(rb"\A[a-z]{1,8}(=[a-z0-9]{0,8}|=\"[a-z ]{0,8}\")?\Z"),
             max_size=3).map(lambda names: b"".join(b";" + n for n in names)),
)
trailers = st.lists(st.from_regex(rb"\AX-[A-Za-z]{1,10}: [ -~]{0,20}\Z"), max_size=4) \
    .map(lambda lines: b"".join(line + b"\r\n" for line in lines))


@st.composite
def responses(draw, framings=("length", "chunked", "close"),
              encodings=("identity", "gzip", "gzip-2", "deflate", "deflate-raw")) -> Response:
    body = draw(bodies)
    encoding = draw(st.sampled_from(encodings))
    framing = draw(st.sampled_from(framings))
    data = encode(body, encoding)
    headers = [b"HTTP/1.1 200 OK", b"Content-Type: application/octet-stream"]
    if CONTENT_ENCODING[encoding]:
        headers.append(b"Content-Encoding: " + CONTENT_ENCODING[encoding].encode())
    ends: list[int] = []
    if framing == "length":
        headers.append(b"Content-Length: %d" % len(data))
        payload = data
    elif framing == "chunked":
        headers.append(b"Transfer-Encoding: chunked")
        cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(data) - 1)),
                                        max_size=8)))) if len(data) > 1 else []
        pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
        out = b""
        for piece in pieces:
            if piece:
                out += b"%x%s\r\n" % (len(piece), draw(extensions))
                out += piece
                ends.append(len(out))
                out += b"\r\n"
        payload = out + b"0" + draw(extensions) + b"\r\n" + draw(trailers) + b"\r\n"
    else:
        headers.append(b"Connection: close")
        payload = data
    head = b"\r\n".join(headers) + b"\r\n\r\n"
    return Response(head, payload, body, framing, encoding, ends)


@st.composite
def split(draw, wire: bytes) -> list:
    """*wire* as pieces with pauses between them."""
    cuts = sorted(set(draw(st.lists(st.integers(0, len(wire)), max_size=10))))
    script: list = []
    for a, b in zip([0] + cuts, cuts + [len(wire)]):
        if wire[a:b]:
            script.append(wire[a:b])
            pause = draw(PAUSES)
            if pause:
                script.append(pause)
    return script


chunk_sizes = st.sampled_from(CHUNK_SIZES)
# How the body is read: Response.content, or iter_content in pieces of this size.
iter_sizes = st.sampled_from([None, None, None, 1, 100, 10240])
# Limits that are enforced (so the checked read path runs) but never reached.
harmless_limits = st.sampled_from([{}, {}, {"max_body_size": 10 ** 9},
                                   {"body_timeout": 60.0},
                                   {"max_body_size": 10 ** 9, "body_timeout": 60.0,
                                    "yield_every": 1000}])


def fuzz(name: str):
    """Register a property so the final test knows how many examples it must run."""
    EXPECTED[name] = EXAMPLES
    return name


# -- 1. valid responses, randomly split and paused ----------------------------------------

P_SPLIT = fuzz("valid responses, random splits and pauses")


@FUZZ
@given(data=st.data(), response=responses(), chunk_size=chunk_sizes, iter_size=iter_sizes,
       limits=harmless_limits)
def test_valid_responses_in_random_pieces(server, data, response, chunk_size, iter_size,
                                          limits):
    count(P_SPLIT)
    script = data.draw(split(response.wire))
    ours = compare(server, script, chunk_size, iter_size, **limits)
    assert ours[0] == "ok"
    if response.encoding != "deflate-raw":
        # (urllib3 may drop the tail of raw deflate, in requests too: see
        # test_raw_deflate_streamed_in_small_pieces_is_short_in_requests_too)
        assert ours[3] == response.decoded


# -- 2. truncation ------------------------------------------------------------------------

P_TRUNCATE = fuzz("truncated responses (random position)")


@FUZZ
@given(data=st.data(), response=responses(), chunk_size=chunk_sizes, iter_size=iter_sizes)
def test_truncated_responses(server, data, response, chunk_size, iter_size):
    count(P_TRUNCATE)
    wire = response.wire
    cut = data.draw(st.integers(0, len(wire) - 1))
    script = data.draw(split(wire[:cut]))
    ours = compare(server, script, chunk_size, iter_size)
    if cut >= len(response.head) and response.framing == "length":
        # a short Content-Length body is an error, never a shorter body
        assert ours == ("body-error", ChunkedEncodingError)


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("encoding", ["identity", "gzip", "deflate"])
def test_truncation_at_every_position(server, framing, encoding):
    """Every cut of one small response, head included: no property luck needed."""
    body = b"The quick brown fox jumps over the lazy dog. " * 2
    data = encode(body, encoding)
    headers = [b"HTTP/1.1 200 OK"]
    if CONTENT_ENCODING[encoding]:
        headers.append(b"Content-Encoding: " + CONTENT_ENCODING[encoding].encode())
    if framing == "length":
        headers.append(b"Content-Length: %d" % len(data))
        payload = data
    elif framing == "chunked":
        headers.append(b"Transfer-Encoding: chunked")
        payload = chunked(pieces_of(data, 17), trailer=b"X-T: 1\r\n", extension=b";x=y")
    else:
        payload = data
    head = b"\r\n".join(headers) + b"\r\n\r\n"
    wire = head + payload
    for cut in range(len(wire) + 1):
        chunk_size = CHUNK_SIZES[cut % len(CHUNK_SIZES)]
        ours = compare(server, [wire[:cut]], chunk_size)
        CASES["truncation at every position (exhaustive)"] += 1
        if cut == len(wire):
            assert ours[0] == "ok" and ours[3] == body
        elif cut >= len(head) and framing == "length":
            assert ours == ("body-error", ChunkedEncodingError)


# -- 3. chunk-size lines, extensions, trailers --------------------------------------------

P_CHUNK_LINES = fuzz("malformed and oversized chunk-size lines")

short_bad_size_lines = st.one_of(
    st.binary(max_size=24).filter(lambda b: b"\n" not in b),
    st.from_regex(rb"\A[ \t]*[-+]?(0x)?[0-9a-fA-F]{0,24}[ \t]*(;[ -~]{0,10})?\Z"),
    st.sampled_from([b"-5", b"-0", b"-1", b"+5", b"0x5", b"5 ", b" 5", b"\t5", b"5;",
                     b";5", b"", b"zz", b"ffffffffffffffffffff", b"7fffffffffffffff",
                     b"10000000000000000", b"5\r", b"5\x00", b"\xff5", b"\xef\xbc\x95",
                     b"\xd9\xa5"]),
)
bad_size_lines = st.one_of(
    short_bad_size_lines, short_bad_size_lines, short_bad_size_lines,
    # oversized: around urllib3's and http.client's line limits (65 536); one case in
    # four, as each costs a read per byte with chunk_size=1
    st.integers(65_000, 66_000).map(lambda n: b"1" * n),
    st.integers(65_000, 66_000).map(lambda n: b"5;" + b"x" * n),
)


@FUZZ
@given(data=st.data(), response=responses(framings=("chunked",)), line=bad_size_lines,
       chunk_size=chunk_sizes, iter_size=iter_sizes)
def test_malformed_chunk_size_lines(server, data, response, line, chunk_size, iter_size):
    count(P_CHUNK_LINES)
    # Replace one chunk-size line (possibly the last chunk's) with a bad one.
    payload = response.payload
    starts = [0] + [end + 2 for end in response.ends]
    start = data.draw(st.sampled_from(starts))
    end = payload.index(b"\r\n", start)
    bad = response.head + payload[:start] + line + payload[end:]
    compare(server, data.draw(split(bad)), chunk_size, iter_size)


P_CHUNK_DATA = fuzz("chunk data longer or shorter than its size line, bad terminators")


@FUZZ
@given(data=st.data(), response=responses(framings=("chunked",)), chunk_size=chunk_sizes,
       delta=st.integers(-20, 20).filter(bool), junk=st.binary(max_size=6))
def test_chunk_data_that_lies_about_its_size(server, data, response, chunk_size, delta,
                                             junk):
    count(P_CHUNK_DATA)
    payload = response.payload
    if not response.ends:
        # no data chunk: spoil the last-chunk line's terminator instead
        bad = payload.replace(b"\r\n", junk or b"\n", 1)
    else:
        end = data.draw(st.sampled_from(response.ends))
        # the chunk's data ends `delta` bytes early or late, or its CRLF is junk
        if data.draw(st.booleans()):
            bad = payload[:max(0, end + delta)] + payload[end:] if delta < 0 else \
                payload[:end] + b"x" * delta + payload[end:]
        else:
            bad = payload[:end] + junk + payload[end + 2:]
    compare(server, data.draw(split(response.head + bad)), chunk_size)


# -- 4. Content-Length that lies, odd framing headers -------------------------------------

P_LENGTH_LIES = fuzz("Content-Length lies (both directions) and odd values")

length_values = st.one_of(
    st.sampled_from(["{n}, {n}", "{n},{n}", "{n}, {m}", "+{n}", " {n} ", "0{n}", "0x{n}",
                     "-1", "-{n}", "{n}.0", "1e3", "abc", "", "{n}{n}{n}{n}{n}{n}{n}{n}",
                     "99999999999999999999999", "9223372036854775808", "{m}"]),
    st.from_regex(r"\A[0-9 ,+-]{0,12}\Z"),
)


@FUZZ
@given(data=st.data(), response=responses(framings=("length", "close")),
       chunk_size=chunk_sizes, iter_size=iter_sizes,
       delta=st.integers(-50, 50), value=length_values, extra=st.binary(max_size=200),
       duplicate=st.booleans(), limits=harmless_limits)
def test_content_length_lies(server, data, response, chunk_size, iter_size, delta, value,
                             extra, duplicate, limits):
    count(P_LENGTH_LIES)
    n = len(response.payload)
    if data.draw(st.booleans()):  # a plain number, off by delta: short body or extra bytes
        declared = str(max(0, n + delta))
    else:
        declared = value.format(n=n, m=max(0, n + delta))
    head = response.head.split(b"\r\n")
    head = [line for line in head if not line.lower().startswith(b"content-length")
            and not line.lower().startswith(b"connection")]
    head.insert(1, b"Content-Length: " + declared.encode())
    if duplicate:
        head.insert(2, b"Content-Length: %d" % n)
    wire = b"\r\n".join(head).rstrip(b"\r\n") + b"\r\n\r\n" + response.payload + extra
    ours = compare(server, data.draw(split(wire)), chunk_size, iter_size, **limits)
    if declared == str(n + delta) and len(extra) < delta and not duplicate:
        assert ours[0] in ("body-error", "head-error")   # EOF before the declared end


P_TRANSFER_ENCODING = fuzz("Transfer-Encoding variants with and without Content-Length")

transfer_encodings = st.sampled_from([
    "chunked", "Chunked", "CHUNKED", " chunked", "chunked ", "gzip, chunked",
    "chunked, identity", "identity, chunked", "chunked, chunked", "identity", "xchunked",
    "chunked;q=1", "deflate", "",
])


@FUZZ
@given(data=st.data(), response=responses(), chunk_size=chunk_sizes, iter_size=iter_sizes,
       te=transfer_encodings, length=st.one_of(st.none(), st.integers(0, 5000)))
def test_transfer_encoding_variants(server, data, response, chunk_size, iter_size, te,
                                    length):
    count(P_TRANSFER_ENCODING)
    head = [line for line in response.head.split(b"\r\n") if line and not
            line.lower().startswith((b"content-length", b"transfer-encoding"))]
    head.append(b"Transfer-Encoding: " + te.encode())
    if length is not None:
        head.append(b"Content-Length: %d" % length)
    wire = b"\r\n".join(head) + b"\r\n\r\n" + response.payload
    compare(server, data.draw(split(wire)), chunk_size, iter_size)


# -- 5. content codings: corrupt, concatenated, trailing garbage, bombs -------------------

P_CORRUPT_CODING = fuzz("corrupt gzip/deflate streams")


@FUZZ
@given(data=st.data(),
       response=responses(encodings=("gzip", "gzip-2", "deflate", "deflate-raw")),
       chunk_size=chunk_sizes, iter_size=iter_sizes,
       how=st.sampled_from(["flip", "append", "append-gzip", "prepend", "cut"]),
       junk=st.binary(min_size=1, max_size=40))
def test_corrupt_and_concatenated_codings(server, data, response, chunk_size, iter_size,
                                          how, junk):
    count(P_CORRUPT_CODING)
    coded = encode(response.decoded, response.encoding)
    if how == "flip":
        at = data.draw(st.integers(0, len(coded) - 1))
        coded = coded[:at] + bytes([coded[at] ^ data.draw(st.integers(1, 255))]) + \
            coded[at + 1:]
    elif how == "append":
        coded += junk
    elif how == "append-gzip":
        coded += gzip.compress(junk)
    elif how == "prepend":
        coded = junk + coded
    else:
        coded = coded[:data.draw(st.integers(0, len(coded)))]
    head = [line for line in response.head.split(b"\r\n") if line and not
            line.lower().startswith((b"content-length", b"transfer-encoding",
                                     b"connection"))]
    framing = data.draw(st.sampled_from(["length", "chunked", "close"]))
    if framing == "length":
        head.append(b"Content-Length: %d" % len(coded))
        payload = coded
    elif framing == "chunked":
        head.append(b"Transfer-Encoding: chunked")
        payload = chunked(pieces_of(coded, 50))
    else:
        payload = coded
    wire = b"\r\n".join(head) + b"\r\n\r\n" + payload
    compare(server, data.draw(split(wire)), chunk_size, iter_size)


P_BOMB = fuzz("gzip/deflate bombs against max_body_size")


@FUZZ
@given(limit=st.integers(100, 5_000), factor=st.floats(0.1, 30.0),
       coding=st.sampled_from(["gzip", "gzip-2", "deflate", "deflate-raw"]),
       framing=st.sampled_from(["length", "chunked", "close"]),
       chunk_size=chunk_sizes, iter_size=st.sampled_from([None, 100, 10240]))
def test_bombs_stop_at_max_body_size(server, limit, factor, coding, framing, chunk_size,
                                     iter_size):
    count(P_BOMB)
    # urllib3 2.8.0 itself (requests' default adapter, and ours, which streams through
    # it) mis-decodes two gzip members read in iter_content pieces at some member
    # boundaries: 200 zeros in pieces of 100 never end (a CPU-bound loop in
    # GzipDecoder.decompress), 201 come back as 302.  Not a property of the limit this
    # test checks; gzip-2 stays covered here through Response.content.
    assume(not (coding == "gzip-2" and iter_size is not None))
    size = int(limit * factor)
    coded = encode(b"\0" * size, coding)
    if framing == "length":
        head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n" % len(coded)
        payload = coded
    elif framing == "chunked":
        head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
        payload = chunked([coded])
    else:
        head = b"HTTP/1.1 200 OK\r\n"
        payload = coded
    head += b"Content-Encoding: " + CONTENT_ENCODING[coding].encode() + b"\r\n\r\n"
    expected, ours = default_and_ours(server, [head + payload], chunk_size, iter_size,
                                      max_body_size=limit)
    assert expected[0] == "ok"
    if coding != "deflate-raw":   # urllib3 may drop its tail: see below
        assert expected[3] == b"\0" * size   # requests takes it all
    # What the decoder delivers is what the limit bounds: all of it, but for raw
    # deflate read in small pieces, where urllib3 (requests' default too) drops the tail.
    if len(expected[3]) > limit:
        assert ours == ("body-error", geventperf.BodyTooLarge)
    else:
        assert ours == expected


@functools.lru_cache(maxsize=None)
def large_bomb(coding: str) -> bytes:
    return encode(b"\0" * (64 * 1024 * 1024), coding)   # ~64 KiB on the wire


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("coding", ["gzip", "gzip-2", "deflate"])
def test_large_bomb_is_stopped_in_every_framing(server, framing, coding):
    coded = large_bomb(coding)
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\n" % \
        CONTENT_ENCODING[coding].encode()
    if framing == "length":
        wire = head + b"Content-Length: %d\r\n\r\n" % len(coded) + coded
    elif framing == "chunked":
        wire = head + b"Transfer-Encoding: chunked\r\n\r\n" + chunked(pieces_of(coded, 4096))
    else:
        wire = head + b"\r\n" + coded
    server.script = [wire]
    for chunk_size in (7, 65536, 524288):
        session = requests.Session()
        geventperf.mount(session, chunk_size=chunk_size, max_body_size=1_000_000)
        result = observe(session, server.url, None)
        CASES["large bombs (fixed)"] += 1
        assert result == ("body-error", geventperf.BodyTooLarge)


# -- 6. connection resets mid-body --------------------------------------------------------

P_RESET = fuzz("connection reset (RST) mid-body")


@FUZZ
@given(data=st.data(), response=responses(), chunk_size=chunk_sizes, iter_size=iter_sizes)
def test_connection_reset_mid_body(server, data, response, chunk_size, iter_size):
    assume(response.payload)   # an empty body may be complete before the reset
    count(P_RESET)
    # Cut before the body is complete, so that no reading of it can succeed, then
    # reset.  The pause lets the client read the head before the reset arrives: a reset
    # that wins the race fails the request before the body (same code in both).
    end = len(response.payload) - (5 if response.framing == "chunked" else 1)
    cut = data.draw(st.integers(0, max(0, end)))
    script = [response.head, 0.005] + data.draw(split(response.payload[:cut])) + \
        [0.005, RESET]
    expected, ours = default_and_ours(server, script, chunk_size, iter_size)
    if "head-error" in (expected[0], ours[0]):
        # the reset won the race against the head on one side: both still fail
        assert {expected[0], ours[0]} <= {"head-error", "body-error"}, (expected, ours)
    else:
        assert_same(expected, ours)
        assert ours[0] == "body-error"   # a reset body is never a complete one


# -- regressions: bugs the properties found, each pinned on its own -----------------------

def _one(server, wire: bytes, chunk_size: int = 524288, **kw) -> tuple:
    return compare(server, [wire], chunk_size, **kw)


@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_transfer_encoding_gzip_chunked_is_dechunked_like_default(server, chunk_size):
    # Bug: urllib3 takes "gzip, chunked" as chunked, http.client does not; the adapter
    # read through http.client and returned the chunk framing as the body.  Fixed:
    # bodyreader._read_like_requests parses chunks with urllib3, as requests does.
    wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" \
           b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    assert _one(server, wire, chunk_size) == ("ok", 200, {"Transfer-Encoding":
                                                          "gzip, chunked"}, b"hello world")


@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_content_length_list_read_like_default(server, chunk_size):
    # Bug: "Content-Length: 5, 5" is 5 to urllib3 and unparsable to http.client (which
    # then reads to EOF).  requests fails the 10-byte body (IncompleteRead); the adapter
    # read exactly 5 bytes and returned them.  Fixed: bodyreader._lengths_agree sends
    # such bodies through urllib3's read, not the one-buffer path nor read1.
    wire = b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n0123456789"
    assert _one(server, wire, chunk_size) == ("body-error", ChunkedEncodingError)


@pytest.mark.parametrize("declared", [b"99999999999999999999999", b"9223372036854775807",
                                      b"%d" % 2 ** 50, b"%d" % 2 ** 63, b"%d" % (2 ** 64 + 10)])
def test_absurd_content_length_is_a_short_body_not_memory_error(server, declared):
    # Bug: the one-buffer path allocated the declared length up front: MemoryError
    # (or OverflowError) instead of requests' ChunkedEncodingError for a lying header.
    # Fixed: bodyreader._read_exact falls back to reading in pieces when no buffer of
    # that size can be allocated.
    wire = b"HTTP/1.1 200 OK\r\nContent-Length: " + declared + b"\r\n\r\n0123456789"
    assert _one(server, wire) == ("body-error", ChunkedEncodingError)


@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_corrupt_and_misframed_gzip_chunk_fails_like_default(server, chunk_size):
    # Bug (found by test_malformed_chunk_size_lines): a gzip chunk whose data is not
    # gzip and whose size line is too long.  urllib3 decodes each piece before it
    # checks the chunk's closing CRLF: requests (10 KiB pieces) failed on the framing,
    # the adapter (chunk_size pieces, 1 byte here) on the decoding.  Fixed:
    # bodyreader._read_like_requests reads decoded bodies in requests' piece size.
    wire = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked" \
           b"\r\n\r\n20\r\n\x1f\r\n13\r\n\x8b\x08\x00\x81\xdd\x01k\x02\xff\x03" + \
           b"\x00" * 9 + b"\r\n0\r\n\r\n"
    assert _one(server, wire, chunk_size) == ("body-error", ChunkedEncodingError)
    # and the other way round: corrupt data in a chunk larger than requests' pieces
    big = b"\x1f\x8b" + b"\xff" * 20000
    wire = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked" \
           b"\r\n\r\n%x\r\n%s\r" % (len(big), big)   # no LF, no last chunk
    assert _one(server, wire, chunk_size) == ("body-error", ContentDecodingError)


@pytest.mark.parametrize("iter_size", [1, 100])
def test_raw_deflate_streamed_in_small_pieces_is_short_in_requests_too(server, iter_size):
    # Not ours: urllib3 2.8 (under requests' default adapter too) drops the tail of
    # some raw-deflate bodies, depending on the piece size: 4 067 zero bytes come out
    # as 3 872 / 3 900 through iter_content(1) / (100), and test_bombs_stop_at_max_body_size
    # found 10 299 zero bytes short through Response.content (10 KiB pieces).  The
    # adapter reads encoded bodies as requests does, so it gives the same bytes.
    co = zlib.compressobj(wbits=-15)
    coded = co.compress(b"\0" * 4067) + co.flush()
    wire = b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n" \
        % len(coded) + coded
    expected, ours = default_and_ours(server, [wire], 65536, iter_size=iter_size)
    assert ours == expected
    if len(expected[3]) == 4067:
        pytest.skip("urllib3 no longer drops the tail: the pin below is moot")
    assert _one(server, wire, 65536)[3] == b"\0" * 4067


@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_corrupt_second_gzip_member_gives_requests_bytes(server, chunk_size):
    # Bug (found by test_corrupt_and_concatenated_codings): urllib3 keeps what a later
    # gzip member decoded before the call that finds it corrupt, so the body depends
    # on the pieces the decoder is fed: requests (10 KiB reads) gave the first member
    # alone (1 500 bytes), the adapter (read1 of chunk_size) up to 2 999.  Fixed:
    # bodyreader._read_like_requests reads encoded bodies in requests' piece size.
    body = (b"p\xe4" * 1936)[:3000]
    coded = bytearray(gzip.compress(body[:1500]) + gzip.compress(body[1500:]))
    coded[60] ^= 164   # in the second member's CRC
    wire = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" \
        % len(coded) + bytes(coded)
    ours = _one(server, wire, chunk_size)
    assert ours[3] == body[:1500]


def _trickled(head: bytes, piece: bytes) -> list:
    return [head] + [x for _ in range(100) for x in (piece, 0.1)]


@pytest.mark.parametrize("case", ["chunked", "gzip-length", "gzip-chunked"])
@pytest.mark.parametrize("iter_size", [None, 4096])
def test_body_timeout_bounds_every_socket_read(server, case, iter_size):
    # Regression of the two fixes above: urllib3's read of a chunk's data (or of a
    # 10 KiB piece of an encoded body) makes many socket reads, each well inside the
    # socket timeout, so a trickle (a byte every 0.1 s) ran 10 s past body_timeout=0.5.
    # Fixed: BodyRead._before_socket_read bounds every socket read (SocketReads).
    if case == "chunked":
        script = _trickled(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n",
                           b"x")
    else:
        coded = gzip.compress(os.urandom(2000))
        if case == "gzip-length":
            head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n" \
                   b"Content-Length: %d\r\n\r\n" % len(coded)
        else:
            head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n" \
                   b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % len(coded)
        script = [head] + [x for i in range(0, 100) for x in (coded[i:i + 1], 0.1)]
    server.script = script
    session = requests.Session()
    geventperf.mount(session, body_timeout=0.5)
    assert observe(session, server.url, iter_size) == ("body-error", geventperf.BodyTimeout)


@pytest.mark.parametrize("iter_size", [None, 1, 10240])
def test_hugely_negative_chunk_size_is_a_requests_error(server, iter_size):
    # Bug (found by test_malformed_chunk_size_lines): a chunk size below -2**63
    # ("-0x3CefbDf5E14a9d1e2fA") makes http.client's read raise OverflowError, which
    # requests lets out bare, and which the adapter let out too (content and
    # iter_content).  Fixed: bodyreader._read_like_requests and map_stream_errors map it
    # like the ValueError of a small negative size.
    wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" \
           b"4\r\nabcd\r\n -0x3CefbDf5E14a9d1e2fA;5\r\nabcde\r\n0\r\n\r\n"
    expected, ours = default_and_ours(server, [wire], 4096, iter_size=iter_size)
    assert expected[:2] == ("foreign-error", OverflowError)
    assert ours == ("body-error", ChunkedEncodingError)


@pytest.mark.parametrize("size", [2 ** 63, 2 ** 64 + 5])
def test_body_buffer_refuses_sizes_past_ssize_t(size):
    # Bug (found by test_content_length_lies): ctypes wrapped the size into a
    # c_ssize_t, so "Content-Length: 9223372036854775808" raised SystemError
    # ("Negative size passed to PyBytes_FromStringAndSize") out of Response.content,
    # and 2**64 + 5 allocated 5 bytes.  Fixed: BodyBuffer refuses sizes > sys.maxsize.
    with pytest.raises(OverflowError):
        BodyBuffer(size)


@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_negative_chunk_size_is_a_requests_error(server, chunk_size):
    # Deviation (DEVIATIONS): requests lets urllib3's bare ValueError out here.
    wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" \
           b"5\r\nhello\r\n-5\r\nabcde\r\n0\r\n\r\n"
    expected, ours = default_and_ours(server, [wire], chunk_size)
    assert expected[:2] == ("foreign-error", ValueError)
    assert ours == ("body-error", ChunkedEncodingError)


@pytest.mark.parametrize("limits", [{}, {"max_body_size": 10 ** 6}])
def test_negative_chunk_size_streamed_is_a_requests_error(server, limits):
    # Bug (found by test_malformed_chunk_size_lines with iter_size): iter_content let
    # the bare ValueError out, as requests does.  Fixed: GeventResponse.iter_content
    # maps it like Response.content (bodyreader.map_stream_errors), with or without
    # limits (guard_stream).
    wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" \
           b"5\r\nhello\r\n-5\r\nabcde\r\n0\r\n\r\n"
    expected, ours = default_and_ours(server, [wire], 65536, iter_size=100, **limits)
    assert expected[:2] == ("foreign-error", ValueError)
    assert ours == ("body-error", ChunkedEncodingError)


def test_connection_is_reused_after_a_chunked_body():
    # urllib3's chunk parser (bodyreader._read_like_requests) still gives the connection back
    wire = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" \
           b"5;a=b\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
    with RawServer(lambda head: [wire], keep_alive=True) as raw:
        session = requests.Session()
        geventperf.mount(session, chunk_size=7)
        for _ in range(3):
            assert session.get(raw.url, timeout=REQUEST_TIMEOUT_S).content == b"hello"
        assert raw.connections == 1


# -- the count ---------------------------------------------------------------------------

def test_zz_cases_fuzzed(capsys):
    """Each property that ran in this session ran all its examples; report the totals."""
    ran = {name: CASES[name] for name in EXPECTED if CASES[name]}
    for name, n in ran.items():
        # hypothesis may stop early only when it has tried every distinct example
        assert n >= EXPECTED[name], (name, n)
    lines = [f"  {n:6d}  {name}" for name, n in sorted(CASES.items())]
    cpu = ", ".join(f"{side} {s:.2f} s" for side, s in sorted(CPU_MAX.items()))
    summary = f"geventperf adversarial HTTP: {sum(CASES.values())} cases fuzzed " \
              f"({EXAMPLES} examples per property, seed {fuzz_budget.SEED_ENV}=" \
              f"{fuzz_budget.SEED})\n" + "\n".join(lines) + \
              f"\n  most CPU per request (budget {REQUEST_CPU_BUDGET_S:g} s): {cpu}"
    with capsys.disabled():   # shown without -s
        print("\n" + summary)
