"""GeventAdapter: a requests transport adapter that reads bodies in large pieces.

Mount it on a ``requests.Session`` (``geventperf.mount(session)``).  Everything but the
body read is requests' own ``HTTPAdapter``: connection pooling, retries, TLS, proxies,
redirects, cookies, hooks and ``Response.elapsed`` (time to the headers) behave as
before.  ``mount`` gives each prefix an adapter of its own, as requests does, and keeps
a custom ``HTTPAdapter`` subclass already mounted (Locust's, a retrying one) by adding
the large body reads to a copy of it.  This module imports nothing of the profiler.
"""

from __future__ import annotations

import copy
import http.client
import os
import re
from typing import Any, Iterator

import requests
import requests.adapters
import urllib3
import urllib3.poolmanager
from requests.adapters import HTTPAdapter
from requests.models import CONTENT_CHUNK_SIZE
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers, stream_decode_response_unicode

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
from geventperf.quickpools import use_quick_pools

# (mount and DEFAULT_PREFIXES are served too, from geventperf.mounting: see __getattr__)
__all__ = ["BodyTimeout", "BodyTooLarge", "DEFAULT_CHUNK_SIZE", "GeventAdapter",
           "GeventResponse", "LargeReads"]

# Most remembered (URL origin, TLS settings) entries per adapter on the fast path; a
# crawler's endless hosts clear the cache instead of growing it.
_FAST_CACHE_ENTRIES = 512
# "scheme://netloc" of a URL: everything urlparse reads the scheme, host and port from.
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
# A pool lookup the fast path does not remember (see _pool_lookup).
_NOT_REMEMBERED = object()
# The response headers http.cookiejar takes cookies from (lower case).
_COOKIE_HEADERS = ("set-cookie", "set-cookie2")


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
            if _one_read(self.raw, limits):
                # requests reads it in one piece too: its own path is the shorter one.
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


class LargeReads:
    """GeventAdapter's body reading, as a mixin for any ``HTTPAdapter`` subclass.

    Expects ``body_limits`` (a :class:`~geventperf.bodyreader.BodyLimits`) on the
    instance.  With ``fast_path`` set, the adapter also remembers per URL origin what
    requests and urllib3 recompute on every request (see
    :meth:`build_connection_pool_key_attributes`, :meth:`cert_verify` and
    :meth:`_pool_for`), and leaves out what cannot change the result (see
    :meth:`get_connection_with_tls_context`, :meth:`request_url` and
    :meth:`_build_cookieless_response`); each only where the adapter's class takes
    that method from ``HTTPAdapter``.
    """

    body_limits: BodyLimits
    fast_path: bool = False
    _cache_pool_keys: bool = False
    _cache_certs: bool = False
    _pool_key_cache: dict | None = None
    _pool_lookup_cache: dict | None = None
    _cert_cache: dict | None = None
    _skip_proxy_lookups: bool = False
    _build_without_cookies: bool = False

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
            response = self._build_cookieless_response(req, resp)
        else:
            response = super().build_response(req, resp)
        cls = type(response)
        if cls is not GeventResponse:
            response.__class__ = _response_class(cls)
        response._body_limits = self.body_limits
        if not _one_read(resp, self.body_limits):
            enlarge_read_buffer(resp, self.body_limits.chunk_size)
        return response

    # -- the fast path: what requests works out again on every request -----------------

    def _build_cookieless_response(self, req: requests.PreparedRequest,
                                   resp: Any) -> requests.Response:
        """``HTTPAdapter.build_response``, step for step, for a response without a
        ``Set-Cookie`` or ``Set-Cookie2`` header: requests would wrap the request and
        the response for ``http.cookiejar`` (parsing the URL again) only for the jar to
        find no cookie header.  ``tests/test_fastpath_layers.py`` compares every
        attribute with requests' own build."""
        response = requests.Response()
        response.status_code = getattr(resp, "status", None)
        response.headers = CaseInsensitiveDict(getattr(resp, "headers", {}))
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = resp
        response.reason = response.raw.reason
        response.url = req.url.decode("utf-8") if isinstance(req.url, bytes) else req.url
        response.request = req
        response.connection = self
        return response

    def get_connection_with_tls_context(self, request: requests.PreparedRequest, verify: Any,
                                        proxies: Any = None, cert: Any = None) -> Any:
        """Without proxies, requests' ``select_proxy`` parses the URL to find none.  The
        fast path skips it for a URL origin whose pool key it already holds (that
        origin parsed, so the parse cannot raise either) and looks the pool up as
        requests does."""
        if self._skip_proxy_lookups and not proxies:
            key = _pool_key_key(request, verify, cert)
            cached = self._cached_pool_key(key)
            if cached is not None:
                return self._pool_for(key, *cached)
        return super().get_connection_with_tls_context(request, verify, proxies, cert)

    def _pool_for(self, key: Any, host_params: dict, pool_kwargs: dict) -> Any:
        """``self.poolmanager.connection_from_host(**host_params, pool_kwargs=...)``.
        urllib3 merges the manager's ``connection_pool_kw`` with *pool_kwargs* and
        normalizes the result into a pool key on every call (most of its cost); the
        fast path remembers that key per (URL origin, verify, cert) with a deep copy
        of the ``connection_pool_kw`` it came from, and reuses it while the adapter
        has the same manager, key function and equal ``connection_pool_kw``.  The
        pool is still looked up by urllib3 (``connection_from_pool_key``: the same
        least-recently-used order, a new pool made the same way)."""
        manager = self.poolmanager
        entry = self._pool_lookup_cache.get(key)
        if entry is _NOT_REMEMBERED:
            return manager.connection_from_host(**host_params, pool_kwargs=pool_kwargs)
        if entry is not None and _still_applies(entry, manager):
            pool_key, context = entry[3], entry[4]
            # A copy: a new pool's construction pops keys off the context.
            return manager.connection_from_pool_key(pool_key, request_context=dict(context))
        pool = manager.connection_from_host(**host_params, pool_kwargs=pool_kwargs)
        cache = self._pool_lookup_cache
        if len(cache) >= _FAST_CACHE_ENTRIES:
            cache.clear()
        # Not remembered (see _pool_lookup): urllib3's own lookup from now on, without
        # trying again on every request.
        cache[key] = _pool_lookup(manager, host_params, pool_kwargs, pool) or _NOT_REMEMBERED
        return pool

    def request_url(self, request: requests.PreparedRequest, proxies: Any) -> str:
        """Without proxies, requests' ``request_url`` parses the URL twice (once to find
        no proxy) and returns ``request.path_url``; the fast path returns it at once."""
        if self._skip_proxy_lookups and not proxies and type(request.url) is str:
            # requests: select_proxy (urlparse; no proxies: None), urlparse for the
            # scheme, then this.  Its urlsplit raises the ValueError theirs would.
            return request.path_url
        return super().request_url(request, proxies)

    def build_connection_pool_key_attributes(self, request: requests.PreparedRequest,
                                             verify: Any, cert: Any = None) -> Any:
        """requests (2.32.2 and later) parses the URL and, when ``verify`` is a path,
        asks the file system whether it is a directory, on every request.  The fast path
        remembers the answer per (URL origin, verify, cert): a bundle path that turns
        from a file into a directory while the adapter lives is not noticed."""
        if not self._cache_pool_keys:
            return super().build_connection_pool_key_attributes(request, verify, cert)
        key = _pool_key_key(request, verify, cert)
        cached = self._cached_pool_key(key)
        if cached is not None:
            return cached
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert)
        if key is not None:
            cache = self._pool_key_cache
            if len(cache) >= _FAST_CACHE_ENTRIES:
                cache.clear()
            cache[key] = (dict(host_params), dict(pool_kwargs))
        return host_params, pool_kwargs

    def _cached_pool_key(self, key: Any) -> Any:
        """(host_params, pool_kwargs) remembered for *key* (see _pool_key_key), as
        fresh dicts; None when not remembered."""
        if not self._cache_pool_keys or key is None:
            return None
        cached = self._pool_key_cache.get(key)
        return (dict(cached[0]), dict(cached[1])) if cached is not None else None

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        """requests checks that the CA bundle (and client certificate) files exist on
        every request, with up to four ``stat`` calls.  The fast path checks each
        (verify, cert) once per adapter and then sets the same connection attributes
        requests sets; a file removed later fails when a new connection loads it."""
        if not self._cache_certs:
            return super().cert_verify(conn, url, verify, cert)
        try:
            key = (url.lower().startswith("https") and bool(verify), verify, cert)
            settings = self._cert_cache.get(key)
        except TypeError:
            return super().cert_verify(conn, url, verify, cert)
        if settings is None:
            super().cert_verify(conn, url, verify, cert)   # raises what requests raises
            settings = _cert_settings(*key)
            cache = self._cert_cache
            if len(cache) >= _FAST_CACHE_ENTRIES:
                cache.clear()
            cache[key] = settings
        for name, value in settings:
            setattr(conn, name, value)

    def _start_fast_path(self, enabled: bool) -> None:
        self.fast_path = enabled
        self._pool_key_cache = {}
        self._pool_lookup_cache = {}
        self._cert_cache = {}
        # Remembered only where requests' own method answers: an adapter class that
        # overrides one of them (its own SSL context, its own checks) keeps calling it.
        cls = type(self)
        self._cache_pool_keys = enabled and _requests_method(
            cls, "build_connection_pool_key_attributes")
        self._cache_certs = enabled and _requests_method(cls, "cert_verify")
        self._skip_proxy_lookups = (self._cache_pool_keys
                                    and _requests_method(cls, "get_connection_with_tls_context")
                                    and _requests_method(cls, "request_url"))
        self._build_without_cookies = enabled and _requests_method(cls, "build_response")


def _pool_key_key(request: requests.PreparedRequest, verify: Any, cert: Any) -> Any:
    """The pool key cache's key: (URL origin, verify, cert); None for a URL without an
    origin or an unhashable verify or cert (not remembered)."""
    match = _ORIGIN.match(request.url) if type(request.url) is str else None
    if match is None:
        return None
    key = (match.group(), verify, cert)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _pool_lookup(manager: Any, host_params: dict, pool_kwargs: dict, pool: Any) -> Any:
    """What ``_pool_for`` remembers of ``connection_from_host`` having given *pool*:
    (manager, deep copy of its connection_pool_kw, key function, pool key, request
    context), worked out as urllib3 works them out and kept only if that pool key
    finds that very pool.  None for anything but urllib3's own PoolManager, a
    ``connection_pool_kw`` that cannot be deep-copied (an SSL context: compared by
    identity it would never match anyway), or a ``strict`` setting (urllib3 warns about
    it on every lookup)."""
    if type(manager) is not urllib3.PoolManager:
        return None
    context = manager._merge_pool_kwargs(pool_kwargs)
    context["scheme"] = host_params.get("scheme") or "http"
    port = host_params.get("port")
    if port is None:
        port = urllib3.poolmanager.port_by_scheme.get(context["scheme"].lower(), 80)
    context["port"] = port
    context["host"] = host_params.get("host")
    key_fn = manager.key_fn_by_scheme.get(context["scheme"].lower())
    if key_fn is None or "strict" in context:
        return None
    try:
        known_kw = copy.deepcopy(manager.connection_pool_kw)
        pool_key = key_fn(context)
        # A setting compared by identity would never match its copy: not remembered.
        same = known_kw == manager.connection_pool_kw
    except Exception:   # noqa: BLE001 - anything odd: urllib3's own lookup every time
        return None
    if not same or manager.pools.get(pool_key) is not pool:
        return None
    return manager, known_kw, key_fn, pool_key, context


def _still_applies(entry: tuple, manager: Any) -> bool:
    """Whether a remembered pool key is still the one urllib3 would work out: the same
    manager and key function, and a ``connection_pool_kw`` equal to its copy."""
    known_manager, known_kw, key_fn, _pool_key, context = entry
    try:
        return (known_manager is manager and known_kw == manager.connection_pool_kw
                and manager.key_fn_by_scheme.get(context["scheme"].lower()) is key_fn)
    except Exception:   # noqa: BLE001 - a setting that cannot be compared: ask urllib3
        return False


def _sets_cookies(resp: Any) -> bool:
    """Whether requests' ``extract_cookies_to_jar`` could take a cookie from this
    urllib3 response: it reads the ``Set-Cookie`` and ``Set-Cookie2`` headers of the
    http.client message (``make_cookies``), and nothing without that message."""
    original = getattr(resp, "_original_response", None)
    if not original:
        return False
    msg = getattr(original, "msg", None)
    if not isinstance(msg, http.client.HTTPMessage):
        return True   # not what requests expects: let requests' own code handle it
    return any(name.lower() in _COOKIE_HEADERS for name in msg.keys())


def _requests_method(cls: type, name: str) -> bool:
    """True when *cls* gets method *name* from HTTPAdapter itself (LargeReads aside)."""
    for klass in cls.__mro__:
        if klass is not LargeReads and name in vars(klass):
            return klass is HTTPAdapter
    return False


def _cert_settings(tls: bool, verify: Any, cert: Any) -> tuple[tuple[str, Any], ...]:
    """The connection attributes ``HTTPAdapter.cert_verify`` sets for these settings,
    once its file checks passed (the same rules, in the same order)."""
    settings: list[tuple[str, Any]] = []
    if tls:
        location = verify if verify is not True else None
        location = location or requests.adapters.DEFAULT_CA_BUNDLE_PATH
        settings.append(("cert_reqs", "CERT_REQUIRED"))
        settings.append(("ca_certs", location) if not os.path.isdir(location)
                        else ("ca_cert_dir", location))
    else:
        settings += [("cert_reqs", "CERT_NONE"), ("ca_certs", None), ("ca_cert_dir", None)]
    if cert:
        if isinstance(cert, str):
            settings += [("cert_file", cert), ("key_file", None)]
        else:
            settings += [("cert_file", cert[0]), ("key_file", cert[1])]
    return tuple(settings)


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
    :param kwargs: ``HTTPAdapter`` arguments (``pool_connections``, ``pool_maxsize``,
        ``max_retries``, ``pool_block``).
    """

    __attrs__ = HTTPAdapter.__attrs__ + ["body_limits", "pool_kwargs", "fast_path"]

    def __init__(self, chunk_size: int = DEFAULT_CHUNK_SIZE, max_body_size: int | None = None,
                 body_timeout: float | None = None, yield_every: int | None = None,
                 pool_kwargs: dict[str, Any] | None = None, fast_path: bool = False,
                 **kwargs: Any) -> None:
        self.body_limits = BodyLimits(chunk_size, max_body_size, body_timeout, yield_every)
        self._start_fast_path(bool(fast_path))
        # Set before HTTPAdapter.__init__, which calls init_poolmanager.
        self.pool_kwargs = dict(pool_kwargs or {})
        super().__init__(**kwargs)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.pool_kwargs = state.get("pool_kwargs") or {}
        self._start_fast_path(bool(state.get("fast_path")))
        super().__setstate__(state)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False,
                         **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block=block,
                                 **{**self.pool_kwargs, **pool_kwargs})
        if self.fast_path:
            use_quick_pools(self.poolmanager)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **{**self.pool_kwargs, **proxy_kwargs})
        if self.fast_path:
            use_quick_pools(manager)
        return manager

    def __repr__(self) -> str:
        limits = self.body_limits
        return (f"<GeventAdapter chunk_size={limits.chunk_size} "
                f"max_body_size={limits.max_body_size} body_timeout={limits.body_timeout} "
                f"yield_every={limits.yield_every}>")


def __getattr__(name: str) -> Any:
    # mount lives in geventperf.mounting (it builds on the classes above); named here
    # too, as ever: geventperf.mount is geventperf.adapter.mount.
    if name in ("mount", "DEFAULT_PREFIXES"):
        from geventperf import mounting
        return getattr(mounting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
