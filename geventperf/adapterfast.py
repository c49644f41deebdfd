"""The adapter's fast path: what requests and urllib3 work out again on every request.

:class:`FastPathMixin` is mixed into :class:`~geventperf.adapter.LargeReads` (and so
into every adapter ``geventperf.mount`` builds); it acts only with ``fast_path`` set
(``geventperf.Session``, ``mount(..., fast_path=True)``).  This module imports nothing
of the profiler.
"""

from __future__ import annotations

import copy
import datetime
import http.client
import os
import re
from collections import OrderedDict
from typing import Any

import requests
import requests.adapters
import urllib3
import urllib3.poolmanager
from requests.adapters import HTTPAdapter
from requests.cookies import RequestsCookieJar
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3._collections import HTTPHeaderDict, RecentlyUsedContainer

__all__ = ["FastPathMixin"]


# Most remembered (URL origin, TLS settings) entries per adapter on the fast path; a
# crawler's endless hosts clear the cache instead of growing it.
_FAST_CACHE_ENTRIES = 512
# "scheme://netloc" of a URL: everything urlparse reads the scheme, host and port from.
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
# A pool lookup the fast path does not remember (see _pool_lookup).
_NOT_REMEMBERED = object()
# What the names of the response headers http.cookiejar takes cookies from
# (Set-Cookie, Set-Cookie2) start with, in lower case.
_COOKIE_NAME = "set-cookie"


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

    def _build_cookieless_response(self, req: requests.PreparedRequest, resp: Any,
                                   cls: type = requests.Response) -> requests.Response:
        """``HTTPAdapter.build_response``, step for step, for a response without a
        ``Set-Cookie`` or ``Set-Cookie2`` header: requests would wrap the request and
        the response for ``http.cookiejar`` (parsing the URL again) only for the jar to
        find no cookie header.  The response is made a *cls* (a ``requests.Response``
        class without an ``__init__`` of its own) at once, with the attributes
        ``Response()`` starts with (see :func:`_plain_response`), and its headers
        copied from urllib3's (see :func:`_response_headers`).
        ``tests/test_fastpath_layers.py`` compares every attribute with requests' own
        build."""
        headers = _response_headers(getattr(resp, "headers", {}))
        encoding = get_encoding_from_headers(headers)
        url = req.url.decode("utf-8") if isinstance(req.url, bytes) else req.url
        response = _plain_response(cls, headers)
        if response is None:
            response = requests.Response()
            if cls is not requests.Response:
                response.__class__ = cls
        response.status_code = getattr(resp, "status", None)
        response.headers = headers
        response.encoding = encoding
        response.raw = resp
        response.reason = resp.reason
        response.url = url
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
            pool = _most_recent_pool(manager, pool_key)
            if pool is not None:
                return pool
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


# What requests.Response() starts with, in its order; a response made as
# _plain_response makes it gets the same (the mutable ones new), where the running
# requests is found to start a response with exactly these (_RESPONSE_START_KNOWN).
_RESPONSE_START = ("_content", "_content_consumed", "_next", "status_code", "headers", "raw",
                   "url", "encoding", "history", "reason", "cookies", "elapsed", "request")
_NO_TIME = datetime.timedelta(0)


def _response_start_known() -> bool:
    """Whether ``requests.Response()`` starts with the attributes _plain_response sets:
    these names in this order, ``None``, ``False``, an empty list, an empty
    ``CaseInsensitiveDict``, an empty ``RequestsCookieJar`` with requests' default
    policy and a zero ``timedelta``."""
    start = vars(requests.Response())
    fresh = _plain_response_values(CaseInsensitiveDict())
    if tuple(start) != _RESPONSE_START or tuple(fresh) != _RESPONSE_START:
        return False
    for name, value in start.items():
        mine = fresh[name]
        if type(value) is not type(mine):
            return False
        if name == "cookies":
            if len(value) or type(value._policy) is not type(mine._policy) \
                    or vars(value._policy) != vars(mine._policy):
                return False
        elif name == "headers":
            if len(value):
                return False
        elif value != mine:
            return False
    return True


def _plain_response_values(headers: CaseInsensitiveDict) -> dict[str, Any]:
    # RequestsCookieJar(): what requests' cookiejar_from_dict({}) returns, without its
    # walk over the new jar and the empty dict.
    return {"_content": False, "_content_consumed": False, "_next": None,
            "status_code": None, "headers": headers, "raw": None, "url": None,
            "encoding": None, "history": [], "reason": None, "cookies": RequestsCookieJar(),
            "elapsed": _NO_TIME, "request": None}


_RESPONSE_START_KNOWN = _response_start_known()


def _plain_response(cls: type, headers: CaseInsensitiveDict) -> Any:
    """``cls()`` for a ``requests.Response`` class that takes ``__init__`` from requests:
    the same attributes, set without requests' ``__init__`` (whose cookie jar is built
    by ``cookiejar_from_dict``, which walks the new empty jar), with *headers* (empty
    there, and replaced by the caller at once) already in place; None where the
    running requests starts a response otherwise, or *cls* has an ``__init__`` of its
    own."""
    if not _RESPONSE_START_KNOWN or cls.__init__ is not _RESPONSE_INIT:
        return None
    response = cls.__new__(cls)
    response.__dict__.update(_plain_response_values(headers))
    return response


_RESPONSE_INIT = requests.Response.__init__


def _response_headers(headers: Any) -> CaseInsensitiveDict:
    """``CaseInsensitiveDict(headers)``.  For urllib3's ``HTTPHeaderDict`` (whose
    ``_container`` maps each lower-cased name to [first name as sent, values...]),
    requests' copy walks it through Python-level iterators, storing per name
    ``name.lower() -> (name, headers[name])``, and ``headers[name]`` is the values
    joined with ", "; the store is built from the container directly."""
    if type(headers) is not HTTPHeaderDict:
        return CaseInsensitiveDict(headers)
    copied = CaseInsensitiveDict.__new__(CaseInsensitiveDict)   # _store is all it holds
    copied._store = OrderedDict([(values[0].lower(), (values[0], ", ".join(values[1:])))
                                 for values in headers._container.values()])
    return copied


def _most_recent_pool(manager: Any, pool_key: Any) -> Any:
    """The pool ``manager.connection_from_pool_key(pool_key, ...)`` would return when it
    is the manager's most recently used one (the usual case: one upstream), else None.
    urllib3 takes its container's lock twice to find it and move it to the end of the
    eviction order, where it already is; the answer and the order are the same
    without.  (A read of a dict under the GIL; only urllib3's own container.)"""
    pools = manager.pools
    if type(pools) is not RecentlyUsedContainer:
        return None
    container = pools._container
    try:
        pool = container.get(pool_key)
        if pool and next(reversed(container)) == pool_key:
            return pool
    except (RuntimeError, StopIteration):   # changed by another thread meanwhile
        pass
    return None


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
    # One lower-cased string of all the names: "set-cookie" is in it when a name is
    # Set-Cookie or Set-Cookie2 in any case (lower-casing goes character by character),
    # and also for a name that merely contains it, which only sends the response the
    # long way, through requests' own extraction.
    return _COOKIE_NAME in "\n".join(msg.keys()).lower()


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
