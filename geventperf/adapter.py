"""GeventAdapter: a requests transport adapter that reads bodies in large pieces.

Mount it on a ``requests.Session`` (``geventperf.mount(session)``).  Everything but the
body read is requests' own ``HTTPAdapter``: connection pooling, retries, TLS, proxies,
redirects, cookies, hooks and ``Response.elapsed`` (time to the headers) behave as
before.  ``mount`` gives each prefix an adapter of its own, as requests does, and keeps
a custom ``HTTPAdapter`` subclass already mounted (Locust's, a retrying one) by adding
the large body reads to a copy of it.  This module imports nothing of the profiler.
"""

from __future__ import annotations

from typing import Any, Iterator

import requests
from requests.adapters import HTTPAdapter
from requests.exceptions import ChunkedEncodingError
from requests.models import CONTENT_CHUNK_SIZE
from requests.utils import stream_decode_response_unicode
from urllib3 import HTTPResponse
from urllib3.exceptions import DecodeError, ProtocolError, ReadTimeoutError, SSLError

from geventperf import readstats
from geventperf.adapterfast import FastPathMixin, _sets_cookies
from geventperf.bodyreader import (
    DEFAULT_CHUNK_SIZE,
    BodyLimits,
    BodyTimeout,
    BodyTooLarge,
    enlarge_read_buffer,
    guard_stream,
    invalid_chunk_length,
    map_stream_errors,
    read_content,
    requests_error,
)
from geventperf.quickpools import use_pools

# (mount and DEFAULT_PREFIXES are served too, from geventperf.mounting: see __getattr__)
__all__ = ["BodyTimeout", "BodyTooLarge", "DEFAULT_CHUNK_SIZE", "GeventAdapter",
           "GeventResponse", "LargeReads"]


class GeventResponse(requests.Response):
    """A ``requests.Response`` whose body is read by the adapter that made it."""

    # Set by the adapter's build_response; None after unpickling (the body is then
    # already in ``_content``).
    _body_limits: BodyLimits | None = None

    @property
    def content(self) -> bytes:
        """Content of the response, in bytes (read in ``chunk_size`` pieces)."""
        limits = self._body_limits
        if self._content is False and limits is not None:
            if type(self) is GeventResponse and not self._content_consumed \
                    and self.status_code != 0 and type(self.raw) is HTTPResponse \
                    and _one_read(self.raw, limits):
                self._content = _stream_content(self.raw)
                self._content_consumed = True
                return self._content
            if _one_read(self.raw, limits) or not isinstance(self.raw, HTTPResponse):
                # requests reads it in one piece too: its own path is the shorter one.
                # Or something replaced ``raw`` after build_response (a wrapping
                # adapter, a recording tool): requests' own path reads any file-like
                # object, through iter_content, which still applies the limits.
                return super().content
            if self._content_consumed:
                raise RuntimeError("The content for this response was already consumed")
            if self.status_code == 0 or self.raw is None:
                self._content = None
            else:
                self._content = read_content(self, limits)
            self._content_consumed = True
        return super().content

    def iter_content(self, chunk_size: int | None = 1,
                     decode_unicode: bool = False) -> Iterator[Any]:
        limits = self._body_limits
        if limits is None or self._content_consumed or not (limits.enforced or readstats.sinks):
            # The socket is still read in large pieces (see enlarge_read_buffer).
            return map_stream_errors(super().iter_content(chunk_size, decode_unicode))
        chunks = guard_stream(self, limits, map_stream_errors(super().iter_content(chunk_size)))
        return stream_decode_response_unicode(chunks, self) if decode_unicode else chunks


def _one_read(raw: Any, limits: BodyLimits) -> bool:
    """True for a Content-Length body that requests' own ``content`` reads in one piece
    (at most its 10 KiB), when no limit or counter needs the adapter's read: there the
    adapter's one-buffer read only adds its set-up (~20 us).  Only where urllib3
    enforces Content-Length (2.x), so a short body still raises."""
    remaining = getattr(raw, "length_remaining", None)
    return (remaining is not None and remaining <= CONTENT_CHUNK_SIZE
            and not limits.enforced and not readstats.sinks
            and getattr(raw, "enforce_content_length", False) is True
            and getattr(raw, "_fp_bytes_read", 1) == 0)


def _stream_content(raw: HTTPResponse) -> bytes:
    """What requests' ``content`` makes of urllib3's ``raw.stream(CONTENT_CHUNK_SIZE,
    decode_content=True)`` (the same call): the pieces joined, urllib3's body errors
    raised as requests' ``iter_content`` raises them, and the bare ValueError of a
    negative chunk size as this adapter's ``iter_content`` raises it
    (:func:`~geventperf.bodyreader.map_stream_errors`).  Only requests' generator
    steps around the call are left out; for a GeventResponse itself, whose
    ``iter_content`` is requests' (and this adapter's mapping) and whose ``content``
    is requests'."""
    try:
        return b"".join(raw.stream(CONTENT_CHUNK_SIZE, decode_content=True)) or b""
    except (ProtocolError, DecodeError, ReadTimeoutError, SSLError) as exc:
        # requests raises these inside its except clause, without "from".
        raise requests_error(exc)  # noqa: B904
    except (ValueError, OverflowError) as exc:
        raise ChunkedEncodingError(invalid_chunk_length(exc)) from exc


# Response classes of custom adapters, with GeventResponse's body reading mixed in.
_RESPONSE_CLASSES: dict[type, type] = {requests.Response: GeventResponse}


def _response_class(cls: type) -> type:
    if issubclass(cls, GeventResponse):
        return cls
    mixed = _RESPONSE_CLASSES.get(cls)
    if mixed is None:
        mixed = type("Gevent" + cls.__name__, (GeventResponse, cls),
                     {"__module__": __name__, "__qualname__": "Gevent" + cls.__qualname__})
        _RESPONSE_CLASSES[cls] = mixed
    return mixed


class LargeReads(FastPathMixin):
    """GeventAdapter's body reading, as a mixin for any ``HTTPAdapter`` subclass.

    Expects ``body_limits`` (a :class:`~geventperf.bodyreader.BodyLimits`) on the
    instance.  With ``fast_path`` set, the adapter also remembers per URL origin what
    requests and urllib3 recompute on every request, and leaves out what cannot change
    the result: see :class:`~geventperf.adapterfast.FastPathMixin`.
    """

    body_limits: BodyLimits
    quickack: bool = False  # see GeventAdapter

    @property
    def chunk_size(self) -> int:
        return self.body_limits.chunk_size

    @property
    def max_body_size(self) -> int | None:
        return self.body_limits.max_body_size

    @property
    def body_timeout(self) -> float | None:
        return self.body_limits.body_timeout

    @property
    def yield_every(self) -> int | None:
        return self.body_limits.yield_every

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        if self._build_without_cookies and not _sets_cookies(resp):
            response = self._build_cookieless_response(req, resp, GeventResponse)
        else:
            response = super().build_response(req, resp)
        cls = type(response)
        if cls is not GeventResponse:
            response.__class__ = _response_class(cls)
        response._body_limits = self.body_limits
        if not _one_read(resp, self.body_limits):
            enlarge_read_buffer(resp, self.body_limits.chunk_size)
        return response


class GeventAdapter(LargeReads, HTTPAdapter):
    """requests' ``HTTPAdapter`` with large body reads, body limits and read counters.

    :param chunk_size: bytes asked of the socket per read (default 512 KiB).
    :param max_body_size: largest body accepted, raw and decoded; a larger
        Content-Length is refused before reading, any other body is stopped as soon
        as it passes the limit.  Raises :class:`BodyTooLarge`.
    :param body_timeout: most seconds spent reading one body (all its reads together).
        Raises :class:`BodyTimeout`, a ``requests.exceptions.ReadTimeout``.
    :param yield_every: yield to the gevent hub after every this many body bytes, so a
        reader of a fast socket cannot starve other greenlets.
    :param pool_kwargs: extra keyword arguments for urllib3's pool managers (for
        example ``socket_options``), given to ``init_poolmanager`` and
        ``proxy_manager_for``.
    :param fast_path: remember per URL origin the pool key attributes, urllib3's
        pool key and the CA bundle checks requests redoes on every request, skip the
        proxy lookups of a request without proxies and the cookie extraction of a
        response without ``Set-Cookie``, and check pooled connections for a drop
        without a trip through the gevent hub (set by :class:`geventperf.Session`).
    :param quickack: acknowledge each response at once (``TCP_QUICKACK`` set after each
        request is sent; Linux, elsewhere it changes nothing): for an upstream that
        writes a response's head and body apart with Nagle's algorithm on, whose bodies
        otherwise wait about 40 ms on every reused connection (the
        ``delayed-ack-stall`` finding).  One ``setsockopt`` per request.
    :param kwargs: ``HTTPAdapter`` arguments (``pool_connections``, ``pool_maxsize``,
        ``max_retries``, ``pool_block``).
    """

    __attrs__ = HTTPAdapter.__attrs__ + ["body_limits", "pool_kwargs", "fast_path",
                                         "quickack"]

    def __init__(self, chunk_size: int = DEFAULT_CHUNK_SIZE, max_body_size: int | None = None,
                 body_timeout: float | None = None, yield_every: int | None = None,
                 pool_kwargs: dict[str, Any] | None = None, fast_path: bool = False,
                 quickack: bool = False, **kwargs: Any) -> None:
        self.body_limits = BodyLimits(chunk_size, max_body_size, body_timeout, yield_every)
        self._start_fast_path(bool(fast_path))
        self.quickack = bool(quickack)
        # Set before HTTPAdapter.__init__, which calls init_poolmanager.
        self.pool_kwargs = dict(pool_kwargs or {})
        super().__init__(**kwargs)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pool_kwargs = state.get("pool_kwargs") or {}
        self._start_fast_path(bool(state.get("fast_path")))
        self.quickack = bool(state.get("quickack"))
        super().__setstate__(state)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block=block,
                                 **{**self.pool_kwargs, **pool_kwargs})
        use_pools(self.poolmanager, self.fast_path, self.quickack)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **{**self.pool_kwargs, **proxy_kwargs})
        if self.fast_path or self.quickack:  # requests asks on every proxied request
            use_pools(manager, self.fast_path, self.quickack)
        return manager

    def __repr__(self) -> str:
        limits = self.body_limits
        return (f"<GeventAdapter chunk_size={limits.chunk_size} "
                f"max_body_size={limits.max_body_size} body_timeout={limits.body_timeout} "
                f"yield_every={limits.yield_every}"
                + (" quickack=True" if self.quickack else "") + ">")


def __getattr__(name: str) -> Any:
    # mount lives in geventperf.mounting (it builds on the classes above); named here
    # too, as ever: geventperf.mount is geventperf.adapter.mount.
    if name in ("mount", "DEFAULT_PREFIXES"):
        from geventperf import mounting
        return getattr(mounting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
