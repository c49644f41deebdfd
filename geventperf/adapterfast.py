"""The adapter's fast path: what requests and urllib3 work out again on every request.

:class:`FastPathMixin` is mixed into :class:`~geventperf.adapter.LargeReads` (and so
into every adapter ``geventperf.mount`` builds); it acts only with ``fast_path`` set
(``geventperf.Session``, ``mount(..., fast_path=True)``).  This module imports nothing
of the profiler.
"""

from __future__ import annotations

import copy
import http.client
import os
import re
from typing import Any

import requests
import requests.adapters
import urllib3
import urllib3.poolmanager
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

__all__ = ["FastPathMixin"]


# Most remembered (URL origin, TLS settings) entries per adapter on the fast path; a
# crawler's endless hosts clear the cache instead of growing it.
_FAST_CACHE_ENTRIES = 512
# "scheme://netloc" of a URL: everything urlparse reads the scheme, host and port from.
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
# A pool lookup the fast path does not remember (see _pool_lookup).
_NOT_REMEMBERED = object()
# The response headers http.cookiejar takes cookies from (lower case).
_COOKIE_HEADERS = ("set-cookie", "set-cookie2")


class FastPathMixin:
    """The fast path of :class:`~geventperf.adapter.LargeReads`, as a mixin.

    With ``fast_path`` set (:meth:`_start_fast_path`), the adapter remembers per URL
    origin what requests and urllib3 recompute on every request: the pool key
    attributes, for which requests parses the URL and asks the file system whether a
    ``verify`` path is a directory (:meth:`build_connection_pool_key_attributes`);
    the CA bundle and client certificate checks, up to four ``stat`` calls
    (:meth:`cert_verify`); and urllib3's pool key, merged and normalized on every
    lookup (:meth:`_pool_for`).  It leaves out what cannot change the result: the
    proxy lookups of a request without proxies, each parsing the URL again
    (:meth:`get_connection_with_tls_context`, :meth:`request_url`), and the cookie
    extraction of a response without ``Set-Cookie`` (:meth:`_build_cookieless_response`,
    called from ``LargeReads.build_response``).  Each only where the adapter's class
    takes that method from ``HTTPAdapter``.  Remembered entries are capped per
    adapter (a crawler's endless hosts clear the cache instead of growing it).
    """

    fast_path: bool = False
    _cache_pool_keys: bool = False
    _cache_certs: bool = False
    _pool_key_cache: dict | None = None
    _pool_lookup_cache: dict | None = None
    _cert_cache: dict | None = None
    _skip_proxy_lookups: bool = False
    _build_without_cookies: bool = False

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
    """True when *cls* gets method *name* from HTTPAdapter itself (LargeReads and
    FastPathMixin aside)."""
    # Imported here: adapter.py builds on this module.
    from geventperf.adapter import LargeReads
    for klass in cls.__mro__:
        if klass is not LargeReads and klass is not FastPathMixin and name in vars(klass):
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
