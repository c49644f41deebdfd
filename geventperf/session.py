"""geventperf.Session: a requests.Session without the per-request environment scans.

requests reads the process environment on every request: ``get_environ_proxies``
scans every variable twice (once for the proxies, once more for ``no_proxy``), so a
request's cost grows with the size of the environment (a Kubernetes pod carries
several variables per service in its namespace).  The fast path reads it once and
again only when it changed, merges the session's settings without requests' ``typing``
Protocol checks (tens of microseconds each on Python 3.11) and remembers prepared URLs.
Everything a request does and returns stays requests'.

When the environment counts as changed
--------------------------------------
Before each request the fast path takes a fingerprint of ``os.environ``: its number
of variables, and the values of the variables that decide a request's proxies and CA
bundle (every variable whose name ends in ``_proxy``, in any case, present at the last
read; ``http_proxy``, ``https_proxy``, ``all_proxy``, ``no_proxy`` in both cases;
``REQUEST_METHOD``; ``REQUESTS_CA_BUNDLE``; ``CURL_CA_BUNDLE``).  It costs about a
microsecond whatever the environment's size.  Any change of those values, any variable
added or removed, re-reads the environment.  The one change it cannot see: in the same
moment, removing an unrelated variable *and* adding a new ``<scheme>_proxy`` variable
of a scheme that had none (the count stays the same); call :func:`environment_changed`
after such a swap.  Changes made with ``os.putenv`` bypass ``os.environ`` and are not
seen by requests either.

On macOS and Windows, urllib also takes proxies from the system settings, which no
fingerprint of the environment sees: there the fast path leaves proxies to requests;
so it does wherever ``os.environ`` was replaced by another mapping.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from http import cookiejar
from typing import Any

import requests
import requests.sessions
from requests.cookies import RequestsCookieJar, cookiejar_from_dict, merge_cookies
from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict

__all__ = ["FastPreparedRequest", "Session", "SessionFastPath", "enable_fast_path", "environment_changed"]

# os.environ's own mapping of encoded names to encoded values (CPython, every version
# this package supports); reading it skips os.environ's per-item decoding.  Only while
# os.environ is still that object: a program (or a test's mock.patch) that replaces
# os.environ with another mapping gets requests' own uncached reads.
_ENVIRON = os.environ
_ENVIRON_DATA = getattr(os.environ, "_data", None)
# Where urllib's proxy settings come from the environment alone, and os.environ keeps
# bytes: POSIX but macOS (whose urllib falls back to the system configuration).
_ENVIRONMENT_ONLY = (os.name == "posix" and sys.platform != "darwin"
                     and isinstance(_ENVIRON_DATA, dict))
# Variables read whatever else the environment holds.
_ALWAYS_WATCHED = tuple(
    [os.fsencode(name) for base in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
     for name in (base, base.upper())]
    + [os.fsencode(name) for name in ("REQUEST_METHOD", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")])
# Most remembered (URL origin, no_proxy) answers per environment: a crawler's endless
# hosts clear the cache rather than grow it.
_PROXY_CACHE_ENTRIES = 1024
# Most remembered prepared URLs: a crawler's endless URLs clear the cache rather than
# grow it.
_URL_CACHE_ENTRIES = 1024
# "scheme://netloc" of a URL: what requests' proxy decision reads of it (scheme, host,
# port).
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")


class _Environment:
    """What requests would read from the environment, as of one fingerprint."""

    def __init__(self) -> None:
        data = _ENVIRON_DATA
        proxy_names = [name for name in list(data) if name.lower().endswith(b"_proxy")]
        self.watched = tuple(dict.fromkeys(list(_ALWAYS_WATCHED) + proxy_names))
        self.length = len(data)
        self.values = tuple(map(data.get, self.watched))
        self.ca_bundle = (os.environ.get("REQUESTS_CA_BUNDLE")
                          or os.environ.get("CURL_CA_BUNDLE"))
        self.proxies: dict[tuple[str, Any], dict[str, str]] = {}

    def unchanged(self) -> bool:
        data = _ENVIRON_DATA
        return len(data) == self.length and tuple(map(data.get, self.watched)) == self.values

    def proxies_for(self, url: str, no_proxy: Any) -> dict[str, str]:
        """``requests.utils.get_environ_proxies(url, no_proxy)``, remembered per URL
        origin.  The answer is never handed out to be changed: callers only read it."""
        match = _ORIGIN.match(url)
        if match is None:
            return requests.sessions.get_environ_proxies(url, no_proxy=no_proxy)
        key = (match.group(), no_proxy)
        try:
            found = self.proxies.get(key)
        except TypeError:  # an unhashable no_proxy
            return requests.sessions.get_environ_proxies(url, no_proxy=no_proxy)
        if found is None:
            found = requests.sessions.get_environ_proxies(url, no_proxy=no_proxy)
            if len(self.proxies) >= _PROXY_CACHE_ENTRIES:
                self.proxies.clear()
            self.proxies[key] = found
        return found


_lock = threading.Lock()
_current: _Environment | None = None


def _environment() -> _Environment | None:
    """The environment as requests would read it now; None where it cannot be cached."""
    global _current
    if not _ENVIRONMENT_ONLY or os.environ is not _ENVIRON:
        return None
    env = _current
    if env is None or not env.unchanged():
        with _lock:
            env = _current = _Environment()
    return env


def environment_changed() -> None:
    """Make every fast-path session read the environment again at its next request."""
    global _current
    _current = None


def _merge(request_value: Any, session_value: Any, dict_class: type = OrderedDict) -> Any:
    """requests.sessions.merge_setting, with the Mapping's items taken directly (requests
    first asks a runtime-checkable typing Protocol, which costs microseconds)."""
    if session_value is None:
        return request_value
    if request_value is None:
        return session_value
    if not (isinstance(session_value, Mapping) and isinstance(request_value, Mapping)):
        return request_value
    merged = dict_class(list(session_value.items()))
    merged.update(list(request_value.items()))
    for key in [key for key, value in merged.items() if value is None]:
        del merged[key]
    return merged


def _merge_hooks(request_hooks: Any, session_hooks: Any) -> Any:
    if session_hooks is None or session_hooks.get("response") == []:
        return request_hooks
    if request_hooks is None or request_hooks.get("response") == []:
        return session_hooks
    return _merge(request_hooks, session_hooks)


class FastPreparedRequest(PreparedRequest):
    """A ``PreparedRequest`` that remembers how each URL (given without ``params``)
    came out of ``prepare_url``: parsing, IDNA checks and requoting are a pure function
    of the URL string, and cost tens of microseconds."""

    _urls: dict[str, str] = {}

    def prepare_url(self, url: Any, params: Any) -> None:
        if params is not None or type(url) is not str:
            return super().prepare_url(url, params)
        prepared = self._urls.get(url)
        if prepared is None:
            super().prepare_url(url, None)   # raises as requests raises: nothing kept
            urls = FastPreparedRequest._urls
            if len(urls) >= _URL_CACHE_ENTRIES:
                urls.clear()
            urls[url] = self.url
        else:
            self.url = prepared


class SessionFastPath:
    """The fast path, as a mixin for ``requests.Session`` and its subclasses (Locust's
    ``HttpSession``): :func:`enable_fast_path` mixes it into a session's class."""

    def prepare_request(self, request: requests.Request) -> PreparedRequest:
        cookies = request.cookies or {}
        if not isinstance(cookies, cookiejar.CookieJar):
            cookies = cookiejar_from_dict(cookies)
        merged_cookies = merge_cookies(merge_cookies(RequestsCookieJar(), self.cookies),
                                       cookies)
        auth = request.auth
        if self.trust_env and not auth and not self.auth:
            auth = requests.sessions.get_netrc_auth(request.url)
        params = _merge(request.params, self.params)
        if isinstance(params, Mapping) and not params:
            # What an empty mapping encodes to, without requests' Protocol checks.
            params = None
        prepared = FastPreparedRequest()
        prepared.prepare(
            method=request.method.upper(),
            url=request.url,
            files=request.files,
            data=request.data,
            json=request.json,
            headers=_merge(request.headers, self.headers, dict_class=CaseInsensitiveDict),
            params=params,
            auth=_merge(auth, self.auth),
            cookies=merged_cookies,
            hooks=_merge_hooks(request.hooks, self.hooks),
        )
        return prepared

    def merge_environment_settings(self, url: str, proxies: Any, stream: Any, verify: Any,
                                   cert: Any) -> dict[str, Any]:
        env = _environment() if self.trust_env else None
        if env is None:
            if self.trust_env:   # a platform with system proxy settings: requests' way
                return super().merge_environment_settings(url, proxies, stream, verify, cert)
        else:
            no_proxy = proxies.get("no_proxy") if proxies is not None else None
            found = env.proxies_for(url, no_proxy)
            if proxies is not None:
                for scheme, proxy in found.items():
                    proxies.setdefault(scheme, proxy)
            if verify is True or verify is None:
                verify = env.ca_bundle or verify
        return {"proxies": _merge(proxies, self.proxies), "stream": _merge(stream, self.stream),
                "verify": _merge(verify, self.verify), "cert": _merge(cert, self.cert)}


# Session classes with the fast path mixed in, built once per class.
_SESSION_CLASSES: dict[type, type] = {}


def _restore_session(base: type, state: dict[str, Any]) -> requests.Session:
    session = base.__new__(base)
    session.__setstate__(state)
    session.__class__ = _fast_class(base)
    return session


def _reduce_fast(self: Any) -> Any:
    base = type(self)._geventperf_base
    return (_restore_session, (base, base.__getstate__(self)))


def _fast_class(cls: type) -> type:
    if issubclass(cls, SessionFastPath):
        return cls
    fast = _SESSION_CLASSES.get(cls)
    if fast is None:
        fast = type("Fast" + cls.__name__, (SessionFastPath, cls),
                    {"__module__": __name__, "__qualname__": "Fast" + cls.__qualname__,
                     "__reduce__": _reduce_fast, "_geventperf_base": cls})
        _SESSION_CLASSES[cls] = fast
    return fast


def enable_fast_path(session: requests.Session) -> requests.Session:
    """Turn the fast path on for *session* (any ``requests.Session``, also a subclass
    such as Locust's ``HttpSession``) by mixing :class:`SessionFastPath` into its
    class; returns it.  Its adapters are left as they are."""
    if not isinstance(session, requests.Session):
        raise TypeError(f"enable_fast_path needs a requests.Session, got "
                        f"{type(session).__name__}")
    session.__class__ = _fast_class(type(session))
    return session


class Session(SessionFastPath, requests.Session):
    """A ``requests.Session`` with the fast path and large body reads.

    ``geventperf.Session(**options)`` is ``requests.Session()`` then
    ``geventperf.mount(session, fast_path=True, **options)``: a
    :class:`~geventperf.GeventAdapter` per prefix, remembering its pool keys and CA
    bundle checks.  Options are :func:`geventperf.mount`'s.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__()
        from geventperf.adapter import mount
        mount(self, **{"fast_path": True, **options})
