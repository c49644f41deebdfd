"""Reading one response body in large pieces, within limits, with counters.

The framing (Content-Length, chunked, close-delimited), the content decoding and the
mapping of low-level errors stay with http.client and urllib3, so a body comes out
byte for byte as requests' default adapter returns it and fails with the same
exception classes.  What changes is how the socket is read:

* :func:`enlarge_read_buffer` puts a ``chunk_size`` buffer in front of http.client's
  8 KiB one, so every read path (chunk-size lines, small ``iter_content`` pieces,
  ``raw.read``) asks the socket for up to ``chunk_size`` bytes at a time;
* :func:`read_content` reads a Content-Length body with no content-encoding straight
  into one ``bytes`` of its final size; a chunked or encoded body through urllib3's
  ``stream()``, driven as requests drives it (so corrupt input fails, or comes out,
  exactly as with requests); any other body with urllib3's ``read1`` (at most one
  socket read per call).  Limits are checked between reads, and ``body_timeout`` also
  bounds each socket read.

Private attributes of urllib3's and http.client's response objects are used here and
nowhere else; each use says why.
"""

from __future__ import annotations

import io
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

import gevent
from requests.exceptions import (
    ChunkedEncodingError,
    ConnectionError,
    ContentDecodingError,
    ReadTimeout,
    RequestException,
)
from requests.exceptions import SSLError as RequestsSSLError
from requests.models import CONTENT_CHUNK_SIZE
from urllib3.exceptions import (
    DecodeError,
    IncompleteRead,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)
from urllib3.util.response import is_fp_closed

from geventperf import readstats
from geventperf.bytesbuf import BodyBuffer

if TYPE_CHECKING:
    import requests

# 512 KiB: large enough that a 32 MiB body takes ~64 socket reads instead of ~3 300
# (requests reads 10 KiB pieces), small enough that a pool of 100 workers holds at
# most 50 MiB of read buffers.  Loopback and LAN sockets rarely hold more than this
# between two reads, so larger pieces buy little.
DEFAULT_CHUNK_SIZE = 512 * 1024


class BodyTooLarge(RequestException):
    """The body (raw or decoded) is larger than the adapter's ``max_body_size``."""


class BodyTimeout(ReadTimeout):
    """Reading the body took longer than the adapter's ``body_timeout``."""


@dataclass(frozen=True)
class BodyLimits:
    """How one adapter reads bodies; validated once, shared by all its responses."""

    chunk_size: int = DEFAULT_CHUNK_SIZE
    max_body_size: int | None = None
    body_timeout: float | None = None
    yield_every: int | None = None

    def __post_init__(self) -> None:
        _require_int("chunk_size", self.chunk_size, minimum=1)
        if self.max_body_size is not None:
            _require_int("max_body_size", self.max_body_size, minimum=0)
        if self.body_timeout is not None:
            if isinstance(self.body_timeout, bool) or not isinstance(self.body_timeout,
                                                                      (int, float)) \
                    or not self.body_timeout > 0:
                raise ValueError(f"body_timeout must be a positive number of seconds or "
                                 f"None, got {self.body_timeout!r}")
        if self.yield_every is not None:
            _require_int("yield_every", self.yield_every, minimum=1)

    @property
    def enforced(self) -> bool:
        """True when a limit or a cooperative yield needs a check between reads."""
        return (self.max_body_size is not None or self.body_timeout is not None
                or self.yield_every is not None)


def _require_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


# -- the larger read buffer --------------------------------------------------------------

class SocketReads(io.RawIOBase):
    """Raw stream over http.client's own buffered socket file, counting socket reads.

    It first hands out what http.client had already buffered past the headers (with
    ``read1``, which never reads past buffered bytes: ``readinto1`` would go on to read
    the socket when the destination is larger than its buffer, and on a keep-alive
    connection wait for bytes after the body that never come), then reads the socket
    directly into the caller's buffer.  The counters are a few additions per read of
    up to ``chunk_size`` bytes.
    """

    # Tells geventperf.bodyreads (which counts small urllib3 reads while tracing) that
    # this body's socket reads are large.
    geventperf_large_reads = True

    def __init__(self, inner: io.BufferedReader) -> None:
        self._inner = inner
        self._draining = True
        self.reads = 0
        self.bytes = 0
        self.largest = 0
        # Called before every socket read (BodyRead: the body_timeout budget), as one
        # read of urllib3 or http.client may make several (a whole chunk's data).
        self.before_read: Any = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        wanted = len(buffer)
        if self._draining:
            data = self._inner.read1(wanted)
            count = len(data)
            buffer[:count] = data
            # read1 returned less than asked: http.client's buffer is empty now.
            self._draining = count == wanted
        else:
            if self.before_read is not None:
                self.before_read()
            count = self._inner.raw.readinto(buffer)
            if count is None:  # a non-blocking socket with nothing to read
                return None
        self.reads += 1
        self.bytes += count
        if count > self.largest:
            self.largest = count
        return count

    def fileno(self) -> int:
        return self._inner.fileno()

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
            finally:
                super().close()


def socket_reads(raw: Any) -> SocketReads | None:
    """The counting stream under *raw*'s body, if :func:`enlarge_read_buffer` put one."""
    sock_file = getattr(getattr(raw, "_fp", None), "fp", None)
    counter = getattr(sock_file, "raw", None)
    return counter if isinstance(counter, SocketReads) else None


def enlarge_read_buffer(raw: Any, size: int) -> bool:
    """Make every read of *raw*'s body ask the socket for up to *size* bytes.

    Returns False (and changes nothing) when *raw* is not a fresh urllib3 response
    over http.client, or has no body to read.
    """
    http_response = getattr(raw, "_fp", None)        # urllib3: the http.client response
    sock_file = getattr(http_response, "fp", None)   # http.client: socket.makefile("rb")
    if not isinstance(sock_file, io.BufferedReader) or raw.length_remaining == 0 \
            or getattr(raw, "_fp_bytes_read", 1) != 0:
        return False
    http_response.fp = io.BufferedReader(SocketReads(sock_file), buffer_size=size)
    return True


# -- one body read -----------------------------------------------------------------------

# urllib3's body errors, and the requests exception ``Response.iter_content`` makes of
# each (requests calls every broken body a ChunkedEncodingError).
_URLLIB3_BODY_ERRORS = (ProtocolError, DecodeError, ReadTimeoutError, SSLError)


def requests_error(exc: Exception) -> RequestException:
    if isinstance(exc, ProtocolError):
        return ChunkedEncodingError(exc)
    if isinstance(exc, DecodeError):
        return ContentDecodingError(exc)
    if isinstance(exc, ReadTimeoutError):
        return ConnectionError(exc)
    return RequestsSSLError(exc)


def _gevent_loop(sock: Any) -> Any:
    """The hub's loop when *sock* waits through it, else None.

    A read that found the socket empty switched to the hub, which polled once more:
    the loop's iteration count moved (every loop gevent ships, libev and libuv, counts
    them).  Plain blocking sockets wait in the kernel, where we cannot tell.
    """
    if sock is None or not type(sock).__module__.startswith("gevent"):
        return None
    return gevent.get_hub().loop


class BodyRead:
    """Limits, counters and the socket deadline for reading one body."""

    def __init__(self, response: requests.Response, limits: BodyLimits) -> None:
        self.response = response
        self.limits = limits
        self.reads_waited: int | None = None
        self.read_s = 0.0         # time spent inside reads: what body_timeout bounds
        self.decoded = 0
        self._since_yield = 0
        self._started: float | None = None   # set while a read is under way
        raw = response.raw
        connection = getattr(raw, "_connection", None)   # urllib3: the pooled connection
        self._sock = getattr(connection, "sock", None)
        self._sock_timeout = self._sock.gettimeout() \
            if self._sock is not None and limits.body_timeout is not None else None
        self._raw_start = _raw_bytes(raw)
        # The payload of a chunked body's chunks, counted as urllib3 hands it out:
        # urllib3's chunked reader never adds to the counter _raw_bytes reads, so
        # without this a chunked encoded body would be bounded by its decoded size only.
        # (Only a chunked body gets the wrapper: no other body would call it.)
        self._chunk_payload = 0
        self._counted_raw: Any = None  # the raw response wrapped and its wrapper,
        self._counter: Any = None      # until finish()
        if limits.max_body_size is not None:
            self._count_chunk_payload(raw)
        self._socket = socket_reads(raw)
        if self._socket is not None:
            self._socket_start = self._socket.reads
        # What only the published counters need is looked up only when someone listens
        # (a small body's whole read costs about as much as these look-ups).
        self._counting = bool(readstats.sinks)
        self._loop = _gevent_loop(self._sock) if self._counting else None
        if self._loop is not None:
            self.reads_waited = 0
        if self._counting:
            # Taken now: the connection is released (and forgotten) when the body ends.
            host = getattr(connection, "host", None)
            self._host = f"{host}:{connection.port}" if host else None
            self._framing = _framing(raw)

    def _count_chunk_payload(self, raw: Any) -> None:
        # urllib3: read_chunked takes every chunk's data from raw._handle_chunk; the
        # wrapper, set on this response alone, adds its length (framing left out).
        handle_chunk = getattr(raw, "_handle_chunk", None)
        if handle_chunk is None or not getattr(raw, "chunked", False):
            return  # read_chunked, the only caller, refuses a body that is not chunked

        def counted(amt: int | None) -> bytes:
            data = handle_chunk(amt)
            self._chunk_payload += len(data)
            return data

        raw._handle_chunk = counted
        self._counted_raw, self._counter = raw, counted

    # called around every read
    def before(self) -> None:
        limits = self.limits
        if limits.body_timeout is not None:
            remaining = limits.body_timeout - self.read_s
            if remaining <= 0:
                raise self._timeout()
            if self._sock is not None:
                # A socket read may not outlast the body's remaining budget.
                base = self._sock_timeout
                self._sock.settimeout(remaining if base is None else min(base, remaining))
                if self._socket is not None:
                    self._socket.before_read = self._before_socket_read
        if self._loop is not None:   # (after() reads it only then)
            self._iteration = self._loop.iteration
        self._started = time.perf_counter()

    def _before_socket_read(self) -> None:
        """Bound each socket read inside one of ours by what is left of the budget: a
        read of a chunk's data (or of requests' 10 KiB piece) may take several."""
        if self._started is None:
            return
        remaining = self.limits.body_timeout - self.read_s - \
            (time.perf_counter() - self._started)
        if remaining <= 0:
            # urllib3 maps it to ReadTimeoutError; fail() turns that into BodyTimeout
            raise socket.timeout("body_timeout spent")
        base = self._sock_timeout
        self._sock.settimeout(remaining if base is None else min(base, remaining))

    def after(self, decoded: int) -> None:
        self.read_s += time.perf_counter() - self._started
        self._started = None
        if self._loop is not None and self._loop.iteration != self._iteration:
            self.reads_waited += 1
        self.decoded += decoded
        limits = self.limits
        if limits.max_body_size is not None:
            # max, not the sum: a urllib3 that counted chunk data itself would count
            # the same bytes twice.
            raw_bytes = max(_raw_bytes(self.response.raw) - self._raw_start,
                            self._chunk_payload)
            if raw_bytes > limits.max_body_size or self.decoded > limits.max_body_size:
                raise self._too_large(max(raw_bytes, self.decoded), "")
        if limits.yield_every is not None:
            self._since_yield += decoded
            if self._since_yield >= limits.yield_every:
                self._since_yield = 0
                gevent.sleep(0)

    def check_declared_length(self, length: int | None) -> None:
        limit = self.limits.max_body_size
        if limit is not None and length is not None and length > limit:
            raise self._too_large(length, " (declared by Content-Length, not read)")

    def _budget_spent(self) -> bool:
        """True when a read timeout came from the body budget, not from the socket's
        own read timeout."""
        return self.limits.body_timeout is not None and \
            self.read_s >= self.limits.body_timeout - _TIMEOUT_SLACK_S

    def _too_large(self, size: int, how: str) -> BodyTooLarge:
        # requests takes the exception's request from the response
        return BodyTooLarge(f"response body of {size} bytes{how} exceeds max_body_size="
                            f"{self.limits.max_body_size} for {self.response.url}",
                            response=self.response)

    def _timeout(self) -> BodyTimeout:
        return BodyTimeout(f"reading the response body took more than body_timeout="
                           f"{self.limits.body_timeout}s ({self._received()} bytes "
                           f"received) for {self.response.url}",
                           response=self.response)

    def _received(self) -> int:
        if self._socket is not None:
            return self._socket.bytes
        return _raw_bytes(self.response.raw) - self._raw_start

    def fail(self, exc: BaseException) -> BaseException:
        """Close the connection (a partly read body cannot be reused) and return the
        exception to raise: a read timeout caused by body_timeout becomes BodyTimeout."""
        if self._started is not None:  # the read that failed counts against the budget
            self.read_s += time.perf_counter() - self._started
        self.response.close()
        cause = exc.args[0] if isinstance(exc, ConnectionError) and exc.args else None
        if isinstance(cause, ReadTimeoutError) and self._budget_spent():
            return self._timeout()
        return exc

    def finish(self) -> None:
        """Restore the socket's timeout and the raw response, and publish the counters."""
        raw, counter = self._counted_raw, self._counter
        self._counted_raw = self._counter = None
        if raw is not None and vars(raw).get("_handle_chunk") is counter:
            # The wrapper refers to this BodyRead, which refers to the response: left in
            # place, that cycle kept every chunked response read under max_body_size,
            # its connection's read buffer included, until the cyclic collector ran.
            del raw._handle_chunk
        if self._socket is not None:
            self._socket.before_read = None
        if self.limits.body_timeout is not None and self._sock is not None:
            try:
                self._sock.settimeout(self._sock_timeout)
            except OSError:
                pass  # already closed: nothing to restore
        if self._counting and readstats.sinks:  # a listener since the body began
            readstats.publish(self.record())

    def record(self) -> readstats.ReadRecord:
        socket = self._socket
        return {"host": self._host or self.response.url or "?",
                "bytes": _raw_bytes(self.response.raw) - self._raw_start,
                "reads": socket.reads - self._socket_start if socket is not None else None,
                "largest_read": socket.largest if socket is not None else None,
                "reads_waited": self.reads_waited, "wall_s": self.read_s,
                "chunk_size": self.limits.chunk_size, "framing": self._framing}


# A socket timeout set to the remaining budget fires a hair before the budget is spent.
_TIMEOUT_SLACK_S = 0.005


def _raw_bytes(raw: Any) -> int:
    return getattr(raw, "_fp_bytes_read", 0)   # urllib3: body bytes read off the wire


def _framing(raw: Any) -> str:
    if getattr(raw, "chunked", False):
        return "chunked"
    return "close" if getattr(raw, "length_remaining", None) is None else "content-length"


def _plain_length(raw: Any) -> int | None:
    """The body length when it can be read straight into one buffer: a fresh
    Content-Length body that urllib3 would not decode.  (A chunked body has no
    length_remaining: urllib3 ignores a Content-Length next to chunked.)"""
    if getattr(raw._fp, "fp", None) is None or raw._fp_bytes_read != 0:
        return None           # http.client's file closed, or the body partly read
    raw._init_decoder()       # urllib3: picks the decoder from Content-Encoding
    if raw._decoder is not None or not _lengths_agree(raw):
        return None
    return raw.length_remaining


def _lengths_agree(raw: Any) -> bool:
    """False when urllib3 and http.client read Content-Length differently
    ("Content-Length: 5, 5" is 5 to urllib3, unparsable to http.client, which then
    reads to EOF).  urllib3's ``read`` then fails the body as it does for requests
    (IncompleteRead); its ``read1`` or a read of exactly the length would not."""
    # raw._fp: not http.client's response when a caching adapter replays a body
    return getattr(raw._fp, "length", None) == raw.length_remaining


def read_content(response: requests.Response, limits: BodyLimits) -> bytes:
    """The whole decoded body of *response*, read in large pieces.

    Raises what requests raises for a broken body, BodyTooLarge and BodyTimeout for
    the limits; on any error the connection is closed, never reused.
    """
    raw = response.raw
    body = BodyRead(response, limits)
    try:
        # Refused before anything is allocated or read.
        body.check_declared_length(raw.length_remaining)
        length = _plain_length(raw)
        if length:
            content = _read_exact(raw, length, body)
            if content is not None:
                return content
        return _read_pieces(raw, body)
    except _URLLIB3_BODY_ERRORS as exc:
        raise body.fail(requests_error(exc)) from exc
    except (RequestException, OSError) as exc:
        raise body.fail(exc) from exc.__cause__
    finally:
        body.finish()


def _read_exact(raw: Any, length: int, body: BodyRead) -> bytes | None:
    """Read a Content-Length body into one bytes object of its final size; None
    (nothing read) when no buffer of that size can be allocated."""
    try:
        buffer = BodyBuffer(length)
    except (MemoryError, OverflowError):
        # A Content-Length no allocation can hold, usually a lie ("Content-Length:
        # 99999999999999999999"): read it in pieces as requests does, so a short body
        # fails with ChunkedEncodingError instead of MemoryError.
        return None
    http_response = raw._fp
    reads = socket_reads(raw)
    if reads is not None and reads.reads == 0:
        # Nothing went through the chunk_size buffer yet, so it is empty: read the
        # socket directly into the body instead of through that buffer.
        readinto = reads.readinto
    else:
        readinto = http_response.fp.readinto1
    chunk_size = body.limits.chunk_size
    view = buffer.view
    filled = 0
    try:
        while filled < length:
            body.before()
            # urllib3's catcher turns socket errors, timeouts and IncompleteRead into
            # its own exceptions and closes the connection on error.  It wraps the read
            # alone: our own limit errors are OSErrors too and must pass unchanged.
            with raw._error_catcher():
                count = readinto(view[filled:filled + chunk_size])
                if not count:
                    raise IncompleteRead(filled, length - filled)
            body.after(count)
            filled += count
        with raw._error_catcher():  # on leaving, it releases the connection to the pool
            # Leave both libraries as their own read of the last byte would.
            http_response.length = 0
            http_response._close_conn()
            raw._fp_bytes_read = length   # 0 before: _plain_length checked
            raw.length_remaining = 0
    except BaseException:
        buffer.discard()
        raise
    return buffer.take()


def _read_pieces(raw: Any, body: BodyRead) -> bytes:
    """Read any other body (chunked, close-delimited, encoded) in decoded pieces."""
    raw._init_decoder()       # urllib3: picks the decoder from Content-Encoding
    if raw._decoder is not None or (raw.chunked and raw.supports_chunked_reads()):
        return _read_like_requests(raw, body)
    chunk_size = body.limits.chunk_size
    pieces = []
    read1 = getattr(raw, "read1", None)
    if read1 is not None and _lengths_agree(raw):
        # urllib3 >= 2.3: at most one socket read per call; b"" only at the end.
        while True:
            body.before()
            piece = read1(chunk_size, decode_content=True)
            body.after(len(piece))
            if not piece:
                break
            pieces.append(piece)
    else:
        # urllib3 1.26: read(amt) returns b"" mid-body while its decoder waits for more
        # input, so the end is the file closing, as in urllib3's own stream().
        while not is_fp_closed(raw._fp):
            body.before()
            try:
                piece = raw.read(chunk_size, decode_content=True)
            except (ValueError, OverflowError) as exc:
                raise invalid_chunk_length(exc) from exc
            body.after(len(piece))
            pieces.append(piece)
    return b"".join(pieces)


def _read_like_requests(raw: Any, body: BodyRead) -> bytes:
    """Read a chunked or encoded body with urllib3's ``stream()``, as requests does.

    Chunked: urllib3's chunk parser, not http.client's, which disagrees with it (it
    ignores "Transfer-Encoding: gzip, chunked" and hands out the framing as the body).
    Encoded: urllib3's decoders give what the pieces fed to them allow -- a chunk both
    corrupt and misframed fails as ContentDecodingError or ChunkedEncodingError, a
    corrupt second gzip member keeps more or less of its data -- so a decoded body is
    read in requests' own piece size (CONTENT_CHUNK_SIZE), for requests' bytes and
    errors.  A plain chunked body gives the same in any piece size.  The socket is
    still read in chunk_size pieces (enlarge_read_buffer), and body_timeout bounds
    every socket read (BodyRead._before_socket_read).
    """
    amt = CONTENT_CHUNK_SIZE if raw._decoder is not None else body.limits.chunk_size
    chunks = raw.stream(amt, decode_content=True)
    pieces = []
    while True:
        body.before()
        try:
            piece = next(chunks, b"")
        except (ValueError, OverflowError) as exc:
            raise invalid_chunk_length(exc) from exc
        body.after(len(piece))
        if not piece:
            break
        pieces.append(piece)
    return b"".join(pieces)


def invalid_chunk_length(exc: Exception) -> ProtocolError:
    """urllib3 passes a negative chunk size ("-5") on to http.client's read, which
    refuses it with a ValueError (an OverflowError past a C ssize_t); requests lets
    that bare exception out, we call it what it is, a broken chunked body."""
    return ProtocolError(f"Connection broken: invalid chunk length ({exc})", exc)


def map_stream_errors(chunks: Iterator[Any]) -> Iterator[Any]:
    """requests' ``iter_content`` pieces, with the one body error it lets out bare
    mapped as ``Response.content`` maps it (see :func:`invalid_chunk_length`)."""
    try:
        yield from chunks
    except (ValueError, OverflowError) as exc:
        raise ChunkedEncodingError(invalid_chunk_length(exc)) from exc


def guard_stream(response: requests.Response, limits: BodyLimits,
                 chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Apply the limits and counters to ``iter_content`` pieces as they are read."""
    body = BodyRead(response, limits)
    try:
        body.check_declared_length(getattr(response.raw, "length_remaining", None))
        while True:
            body.before()
            piece = next(chunks, None)
            body.after(len(piece) if piece else 0)
            if piece is None:
                return
            yield piece
    except (RequestException, OSError) as exc:
        raise body.fail(exc) from exc.__cause__
    finally:
        body.finish()
