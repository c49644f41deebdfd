"""geventperf.Session: a requests.Session without the per-request environment scans.

requests reads the process environment on every request: ``get_environ_proxies``
scans every variable twice (once for the proxies, once more for ``no_proxy``), so a
request's cost grows with the size of the environment (a Kubernetes pod carries
several variables per service in its namespace).  The fast path reads it once and
again only when it changed, merges the session's settings without requests' ``typing``
Protocol checks (tens of microseconds each on Python 3.11), remembers prepared URLs and
the session's validated headers, and skips the steps that cannot do anything for this
request (an empty cookie jar's ``Cookie`` header, the redirect walk of a response that
is not a redirect).  Everything a request does and returns stays requests'.

When the environment counts as changed
--------------------------------------
Before each request the fast path takes a fingerprint of ``os.environ``: its number
of variables, and the values of the variables that decide a request's proxies and CA
bundle (every variable whose name ends in ``_proxy``, in any case, present at the last
read; ``http_proxy``, ``https_proxy``, ``all_proxy``, ``no_proxy`` in both cases;
``REQUEST_METHOD``; ``REQUESTS_CA_BUNDLE``; ``CURL_CA_BUNDLE``; ``NETRC`` and ``HOME``,
which decide where requests looks for a ``.netrc``).  It costs about a
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
import requests.utils
from requests.cookies import RequestsCookieJar, cookiejar_from_dict, merge_cookies
from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict
from requests.utils import get_auth_from_url

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
    + [os.fsencode(name) for name in ("REQUEST_METHOD", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                                      "NETRC", "HOME")])
# Most remembered (URL origin, no_proxy) answers per environment: a crawler's endless
# hosts clear the cache rather than grow it.
_PROXY_CACHE_ENTRIES = 1024
# Most remembered prepared URLs: a crawler's endless URLs clear the cache rather than
# grow it.
_URL_CACHE_ENTRIES = 1024
# Most remembered sets of validated session headers (a session's headers rarely change;
# a program that keeps changing them clears the cache rather than grows it).
_HEADER_CACHE_ENTRIES = 64
# The data and files types a request without a body carries (empty): requests'
# Request.__init__ turns a None into [], Session.request its data into {}.
_EMPTY_BODY_TYPES = (dict, list)
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
        # Where requests.utils.get_netrc_auth looks for a netrc file: ~/.netrc, ~/_netrc,
        # expanded with HOME (part of the fingerprint).  None (ask requests every time)
        # when NETRC names the file or HOME is unset (expanduser then asks the password
        # database, which no fingerprint sees).
        self.netrc_paths: tuple[str, ...] | None = None
        if "NETRC" not in os.environ and "HOME" in os.environ:
            self.netrc_paths = tuple(os.path.expanduser(f"~/{name}")
                                     for name in requests.utils.NETRC_FILES)

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

    def netrc_auth(self, url: str) -> Any:
        """``requests.utils.get_netrc_auth(url)``.  requests expands the candidate paths
        with the environment on every request and returns None when no file exists;
        here they are expanded once per fingerprint and only their existence is checked
        per request (as requests does: a netrc file created later is seen at once).
        When one exists, requests reads it."""
        get_netrc_auth = requests.sessions.get_netrc_auth
        if self.netrc_paths is None or get_netrc_auth is not _REQUESTS_GET_NETRC_AUTH:
            return get_netrc_auth(url)   # also a patched get_netrc_auth (tests) is asked
        exists = os.path.exists
        for path in self.netrc_paths:
            if exists(path):
                return get_netrc_auth(url)
        return None


_REQUESTS_GET_NETRC_AUTH = requests.utils.get_netrc_auth
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
    if type(session_value) is dict and type(request_value) is dict \
            and not session_value and not request_value:
        return dict_class()   # two empty dicts (a request's and a session's proxies)
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


class _ValidatedHeaders:
    """What ``prepare_headers`` makes of the session's headers, already checked and
    copied for this request (see :func:`_session_headers`); only FastPreparedRequest
    takes it."""

    __slots__ = ("store",)

    def __init__(self, store: OrderedDict) -> None:
        self.store = store


# Session header items (``CaseInsensitiveDict._store`` values) -> the store
# ``prepare_headers`` built from them.
_validated_headers: dict[tuple, OrderedDict] = {}


def _session_headers(request_headers: Any, session_headers: Any) -> _ValidatedHeaders | None:
    """The session's headers as ``prepare_headers`` would store them, for a request
    without headers of its own: requests copies them into a merged dict (dropping None
    values), then checks each name and value against its header regexes into a second
    dict, on every request.  Both steps are a pure function of the session's header
    items (``str`` names and values), so their result is remembered per items and
    copied.  None where the merge is not that plain: requests' steps then run."""
    if (type(session_headers) is not CaseInsensitiveDict
            or not isinstance(request_headers, Mapping) or request_headers):
        return None
    items = tuple(session_headers._store.values())
    try:
        store = _validated_headers.get(items)
    except TypeError:   # an unhashable value: requests raises or sends it its way
        return None
    if store is None:
        if not all(type(name) is str and (type(value) is str or value is None)
                   for name, value in items):
            return None
        built = PreparedRequest()
        # Raises InvalidHeader as requests does; nothing is remembered then.
        built.prepare_headers(_merge(request_headers, session_headers,
                                     dict_class=CaseInsensitiveDict))
        store = built.headers._store
        if len(_validated_headers) >= _HEADER_CACHE_ENTRIES:
            _validated_headers.clear()
        _validated_headers[items] = store
    return _ValidatedHeaders(store.copy())


class FastPreparedRequest(PreparedRequest):
    """A ``PreparedRequest`` that remembers, per URL string, what requests works out of
    it on every request: how the URL (given without ``params``) comes out of
    ``prepare_url`` (parsing, IDNA checks and requoting, tens of microseconds) and,
    for the prepared URL, the credentials ``get_auth_from_url`` finds in it and whether
    ``urlparse`` takes it (as the cookie code needs).  All pure functions of the
    string."""

    _urls: dict[str, str] = {}
    # Prepared URL -> (urlparse takes it, get_auth_from_url's answer or None).
    _url_facts: dict[str, tuple[bool, Any]] = {}

    def prepare_url(self, url: Any, params: Any) -> None:
        if params is not None or type(url) is not str:
            return super().prepare_url(url, params)
        prepared = self._urls.get(url)
        if prepared is None:
            super().prepare_url(url, None)   # raises as requests raises: nothing kept
            urls, facts = FastPreparedRequest._urls, FastPreparedRequest._url_facts
            if len(urls) >= _URL_CACHE_ENTRIES:
                urls.clear()
                facts.clear()
            urls[url] = self.url
            if type(self.url) is str:
                facts[self.url] = _url_facts(self.url)
        else:
            self.url = prepared

    def prepare_headers(self, headers: Any) -> None:
        if type(headers) is _ValidatedHeaders:
            # The same store prepare_headers builds (see _session_headers), this
            # request's own copy.
            self.headers = CaseInsensitiveDict.__new__(CaseInsensitiveDict)
            self.headers._store = headers.store
            return
        super().prepare_headers(headers)

    def prepare_cookies(self, cookies: Any) -> None:
        """An empty ``RequestsCookieJar`` makes no ``Cookie`` header: requests still
        wraps the request for ``http.cookiejar`` (parsing its URL) and asks the jar.
        The fast path keeps the jar as requests does and skips the asking when the URL
        is one ``urlparse`` takes (else requests' step raises as it does)."""
        facts = self._url_facts.get(self.url) if type(self.url) is str else None
        if (type(cookies) is RequestsCookieJar and facts is not None and facts[0]
                and _empty_jar(cookies)):
            self._cookies = cookies
            return
        super().prepare_cookies(cookies)

    def prepare_body(self, data: Any, files: Any, json: Any = None) -> None:
        """Without data, files or json (a GET's empty ``{}`` data and ``[]`` files),
        requests' steps come to no body, only after two ``isinstance`` checks against
        ``collections.abc`` classes: the fast path comes to it directly, through the
        same ``prepare_content_length`` (which gives a POST without body its
        ``Content-Length: 0``)."""
        if (json is None and type(data) in _EMPTY_BODY_TYPES and not data
                and (files is None or (type(files) in _EMPTY_BODY_TYPES and not files))):
            self.prepare_content_length(None)
            self.body = None
            return
        super().prepare_body(data, files, json)

    def prepare_hooks(self, hooks: Any) -> None:
        """Hooks that register nothing (requests' default, ``{"response": []}``): requests
        checks each event name and asks whether the empty list is ``Callable`` (an ABC
        check) before extending the request's list by nothing."""
        if (type(hooks) is dict and hooks.keys() <= self.hooks.keys()
                and all(type(value) is list and not value for value in hooks.values())):
            return
        super().prepare_hooks(hooks)

    def prepare_auth(self, auth: Any, url: Any = "") -> None:
        """Without ``auth``, requests looks for credentials in the URL
        (``get_auth_from_url``: a parse and two unquotes); the fast path takes the
        remembered answer for this prepared URL and does what requests does with it."""
        facts = self._url_facts.get(self.url) if auth is None and type(self.url) is str \
            else None
        if facts is not None and facts[0]:
            url_auth = facts[1]
            if not any(url_auth):
                return   # requests: no auth at all, nothing changes
            auth = url_auth
        super().prepare_auth(auth, url)


def _empty_jar(jar: Any) -> bool:
    """``len(jar) == 0`` for a ``RequestsCookieJar``, without its walk over the jar when
    the jar's domain dict (http.cookiejar's ``_cookies``) is empty; False (not known to
    be empty) for any other jar."""
    if type(jar) is not RequestsCookieJar:
        return False
    return not jar._cookies or len(jar) == 0


def _url_facts(url: str) -> tuple[bool, Any]:
    try:
        return True, get_auth_from_url(url)
    except ValueError:   # urlparse refuses it: requests' own steps raise later
        return False, None


class SessionFastPath:
    """The fast path, as a mixin for ``requests.Session`` and its subclasses (Locust's
    ``HttpSession``): :func:`enable_fast_path` mixes it into a session's class."""

    def prepare_request(self, request: requests.Request) -> PreparedRequest:
        if not _takes_requests_method(type(self), "prepare_request"):
            return super().prepare_request(request)   # the session class's own
        cookies = request.cookies
        if cookies and not isinstance(cookies, cookiejar.CookieJar):
            cookies = cookiejar_from_dict(cookies)
        merged_cookies = RequestsCookieJar()
        if not _empty_jar(self.cookies):
            merged_cookies = merge_cookies(merged_cookies, self.cookies)
        if cookies:
            merged_cookies = merge_cookies(merged_cookies, cookies)
        # (Without cookies of its own, requests turns the request's none into an empty
        # jar and merges it in, which adds nothing: skipped.)
        auth = request.auth
        if self.trust_env and not auth and not self.auth:
            env = _environment()
            auth = (env.netrc_auth(request.url) if env is not None
                    else requests.sessions.get_netrc_auth(request.url))
        params = _merge(request.params, self.params)
        if isinstance(params, Mapping) and not params:
            # What an empty mapping encodes to, without requests' Protocol checks.
            params = None
        headers = _session_headers(request.headers, self.headers)
        if headers is None:
            headers = _merge(request.headers, self.headers, dict_class=CaseInsensitiveDict)
        prepared = FastPreparedRequest()
        prepared.prepare(
            method=request.method.upper(),
            url=request.url,
            files=request.files,
            data=request.data,
            json=request.json,
            headers=headers,
            params=params,
            auth=_merge(auth, self.auth),
            cookies=merged_cookies,
            hooks=_merge_hooks(request.hooks, self.hooks),
        )
        return prepared

    def resolve_redirects(self, resp: requests.Response, req: PreparedRequest,
                          *args: Any, **kwargs: Any) -> Any:
        """requests' ``Session.send`` walks this generator after every response.  For
        a response that is not a redirect (``get_redirect_target`` gives None) it
        yields nothing, having parsed the request's URL for a fragment it never uses;
        the fast path yields the same nothing without the parse.  Only where this
        session's class takes ``resolve_redirects`` from requests itself; its own
        ``get_redirect_target`` (if it has one) still decides."""
        if _takes_requests_method(type(self), "resolve_redirects") and \
                self.get_redirect_target(resp) is None:
            return iter(())
        return super().resolve_redirects(resp, req, *args, **kwargs)

    def merge_environment_settings(self, url: str, proxies: Any, stream: Any, verify: Any,
                                   cert: Any) -> dict[str, Any]:
        if not _takes_requests_method(type(self), "merge_environment_settings"):
            return super().merge_environment_settings(url, proxies, stream, verify, cert)
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


# (class, method name) -> whether the class takes that method from requests.Session
# (past SessionFastPath in its method order).
_REQUESTS_METHODS: dict[tuple[type, str], bool] = {}
_REQUESTS_SESSION_CLASSES = (requests.Session, requests.sessions.SessionRedirectMixin)


def _takes_requests_method(cls: type, name: str) -> bool:
    """True when the first class after SessionFastPath in *cls*'s method order that
    defines *name* is requests' own (``Session`` or its ``SessionRedirectMixin``): the
    fast path then knows what that method does.  A session class of its own (a cache,
    a recorder) keeps its method."""
    known = _REQUESTS_METHODS.get((cls, name))
    if known is None:
        mro = cls.__mro__
        after = mro[mro.index(SessionFastPath) + 1:]
        known = next((klass for klass in after if name in vars(klass)), None) \
            in _REQUESTS_SESSION_CLASSES
        _REQUESTS_METHODS[(cls, name)] = known
    return known


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


# Prefix of a fast-path session class's name: "FastPath", not "Fast", so Locust's
# HttpSession does not become a "FastHttpSession", the name of Locust's own other client.
_FAST_PREFIX = "FastPath"


def _fast_class(cls: type) -> type:
    if issubclass(cls, SessionFastPath):
        return cls
    fast = _SESSION_CLASSES.get(cls)
    if fast is None:
        fast = type(_FAST_PREFIX + cls.__name__, (SessionFastPath, cls),
                    {"__module__": __name__, "__qualname__": _FAST_PREFIX + cls.__qualname__,
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
