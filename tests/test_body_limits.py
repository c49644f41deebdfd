"""max_body_size at its boundary: a body of exactly the limit is returned whole, one
byte under too, one byte over raises BodyTooLarge; for Content-Length, chunked and
close-delimited bodies, for the decoded size of an encoded body and for its raw
(wire) size, read whole or streamed, with read sizes below, at and above the limit.
Real raw-socket server on 127.0.0.1; requests' default adapter is the reference for
every body that fits."""

from __future__ import annotations

import gzip
import io

import pytest
import requests

import geventperf
from tests.servers import RawServer, chunked, http_response, pieces_of

# The limit: several reads of the small chunk sizes below, one read of the large one.
LIMIT = 10_000
# one byte under, exactly at, one byte over the limit
SIZES = [LIMIT - 1, LIMIT, LIMIT + 1]
# chunk_size below the limit, exactly the limit, above it (the default)
CHUNK_SIZES = [7, 4096, LIMIT, 512 * 1024]
# Response.content, or iter_content in pieces of 1 byte and of the limit itself
READS = [None, 1, LIMIT]
REQUEST_TIMEOUT_S = 10
# Chunked bodies are sent in chunks of this many bytes (the limit is crossed mid-chunk).
CHUNK_PIECE = 999


def body_of(size: int) -> bytes:
    return bytes(i % 251 for i in range(size))  # no run that lines up with the limit


def framed(payload: bytes, framing: str, headers: list[tuple[str, str]]) -> bytes:
    if framing == "length":
        return http_response(payload, headers=headers)
    if framing == "chunked":
        return http_response(chunked(pieces_of(payload, CHUNK_PIECE)), length=None,
                             headers=headers + [("Transfer-Encoding", "chunked")])
    return http_response(payload, length=None, headers=headers + [("Connection", "close")])


def gzip_padded_to(decoded: bytes, raw_size: int) -> bytes:
    """gzip of *decoded* that is exactly *raw_size* bytes long: the header's file-name
    field pads it (decoders skip it), so the decoded body stays the same."""
    plain = gzip.compress(decoded, mtime=0)
    # the name field costs its bytes plus a terminating NUL
    name = "n" * (raw_size - len(plain) - 1)
    out = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=out, mtime=0) as f:
        f.write(decoded)
    coded = out.getvalue()
    assert len(coded) == raw_size and gzip.decompress(coded) == decoded
    return coded


def fetch(url: str, read: int | None, **adapter_kw) -> bytes:
    session = requests.Session()
    if adapter_kw:
        geventperf.mount(session, **adapter_kw)
    with session, session.get(url, timeout=REQUEST_TIMEOUT_S, stream=True) as r:
        return r.content if read is None else b"".join(r.iter_content(read))


def check(wire: bytes, fits: bool, expected: bytes, chunk_size: int, read: int | None):
    with RawServer(lambda head: [wire]) as server:
        if fits:
            assert fetch(server.url, read) == expected  # the reference agrees
            body = fetch(server.url, read, chunk_size=chunk_size, max_body_size=LIMIT)
            assert body == expected
        else:
            with pytest.raises(geventperf.BodyTooLarge) as caught:
                fetch(server.url, read, chunk_size=chunk_size, max_body_size=LIMIT)
            # Every body over the limit here is exactly one byte over, so the size the
            # error names is that byte count whenever the check stops it.
            message = str(caught.value)
            assert message.startswith(f"response body of {LIMIT + 1} bytes"), message
            assert message.endswith(f" exceeds max_body_size={LIMIT} for {server.url}/"), \
                message


@pytest.mark.parametrize("read", READS)
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("size", SIZES)
def test_plain_body_at_the_limit(size, framing, chunk_size, read):
    body = body_of(size)
    check(framed(body, framing, []), size <= LIMIT, body, chunk_size, read)


@pytest.mark.parametrize("read", READS)
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("size", SIZES)
def test_decoded_size_at_the_limit(size, framing, chunk_size, read):
    """A gzip body far smaller than the limit on the wire, decoding to the sizes."""
    decoded = b"\0" * size
    coded = gzip.compress(decoded)
    assert len(coded) < LIMIT // 10
    wire = framed(coded, framing, [("Content-Encoding", "gzip")])
    check(wire, size <= LIMIT, decoded, chunk_size, read)


@pytest.mark.parametrize("read", READS)
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
@pytest.mark.parametrize("raw_size", SIZES)
def test_raw_size_of_an_encoded_body_at_the_limit(raw_size, framing, chunk_size, read):
    """The wire size counts too: a gzip body of the sizes that decodes to little (for a
    chunked body, the size of its chunks' data, framing left out)."""
    decoded = body_of(100)
    coded = gzip_padded_to(decoded, raw_size)
    wire = framed(coded, framing, [("Content-Encoding", "gzip")])
    check(wire, raw_size <= LIMIT, decoded, chunk_size, read)


def test_zero_limit_allows_only_an_empty_body():
    with RawServer(lambda head: [http_response(b"")]) as server:
        assert fetch(server.url, None, max_body_size=0) == b""
    with RawServer(lambda head: [http_response(b"x")]) as server:
        with pytest.raises(geventperf.BodyTooLarge,
                           match=r"^response body of 1 bytes \(declared by Content-Length, "
                                 r"not read\) exceeds max_body_size=0 for "):
            fetch(server.url, None, max_body_size=0)
