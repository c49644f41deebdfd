"""GeventAdapter: a requests transport adapter that reads bodies in large pieces.

Mount it on a ``requests.Session`` (``geventperf.mount(session)``).  Everything but the
body read is requests' own ``HTTPAdapter``: connection pooling, retries, TLS, proxies,
redirects, cookies, hooks and ``Response.elapsed`` (time to the headers) behave as
before.  This module imports nothing of the profiler.
"""

from __future__ import annotations

from typing import Any, Iterator

import requests
from requests.adapters import HTTPAdapter
from requests.utils import stream_decode_response_unicode

from geventperf import readstats
from geventperf.bodyreader import (
    DEFAULT_CHUNK_SIZE,
    BodyLimits,
    BodyTimeout,
    BodyTooLarge,
    enlarge_read_buffer,
    guard_stream,
    map_stream_errors,
    read_content,
)

__all__ = ["BodyTimeout", "BodyTooLarge", "DEFAULT_CHUNK_SIZE", "GeventAdapter",
           "GeventResponse", "mount"]


class GeventResponse(requests.Response):
    """A ``requests.Response`` whose body is read by the adapter that made it."""

    # Set by GeventAdapter.build_response; None after unpickling (the body is then
    # already in ``_content``).
    _body_limits: BodyLimits | None = None

    @property
    def content(self) -> bytes:
        """Content of the response, in bytes (read in ``chunk_size`` pieces)."""
        limits = self._body_limits
        if self._content is False and limits is not None:
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


class GeventAdapter(HTTPAdapter):
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
    :param kwargs: ``HTTPAdapter`` arguments (``pool_connections``, ``pool_maxsize``,
        ``max_retries``, ``pool_block``).
    """

    __attrs__ = HTTPAdapter.__attrs__ + ["body_limits", "pool_kwargs"]

    def __init__(self, chunk_size: int = DEFAULT_CHUNK_SIZE, max_body_size: int | None = None,
                 body_timeout: float | None = None, yield_every: int | None = None,
                 pool_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.body_limits = BodyLimits(chunk_size, max_body_size, body_timeout, yield_every)
        # Set before HTTPAdapter.__init__, which calls init_poolmanager.
        self.pool_kwargs = dict(pool_kwargs or {})
        super().__init__(**kwargs)

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

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block=block,
                                 **{**self.pool_kwargs, **pool_kwargs})

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        return super().proxy_manager_for(proxy, **{**self.pool_kwargs, **proxy_kwargs})

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        response = super().build_response(req, resp)
        response.__class__ = GeventResponse
        response._body_limits = self.body_limits
        enlarge_read_buffer(resp, self.body_limits.chunk_size)
        return response

    def __repr__(self) -> str:
        limits = self.body_limits
        return (f"<GeventAdapter chunk_size={limits.chunk_size} "
                f"max_body_size={limits.max_body_size} body_timeout={limits.body_timeout} "
                f"yield_every={limits.yield_every}>")


def mount(session: requests.Session, **kwargs: Any) -> GeventAdapter:
    """Mount one :class:`GeventAdapter` (built from *kwargs*) on *session* for
    ``http://`` and ``https://``; returns the adapter."""
    adapter = GeventAdapter(**kwargs)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return adapter
