"""The work the session fast path leaves out (geventperf/session.py, adapterfast.py), each
against requests' default on real servers on 127.0.0.1: a test per removal that fails
if leaving it out changes what a request sends or returns.

Removed on the fast path, and why the result stays requests':
* the netrc path expansion: paths expanded once per environment fingerprint, their
  existence still checked per request;
* the session headers' merge and validation: remembered per header items;
* an empty cookie jar's ``Cookie`` lookup and the empty request jar merge;
* ``get_auth_from_url``: remembered per prepared URL;
* the redirect walk of a response that is not a redirect;
* ``select_proxy`` without proxies, and the cookie extraction of a response without
  ``Set-Cookie`` in the adapter's ``build_response``;
* requests' ``Response()`` start and its header copy in that build;
* urllib3's locked pool lookup when the pool is already the most recently used;
* the body and hook preparation of a request without a body or hooks, and the merge
  of an empty session jar.
"""

from __future__ import annotations

from http import cookiejar

import pytest
import requests
from requests.adapters import HTTPAdapter
from requests.cookies import RequestsCookieJar

import geventperf
from geventperf import adapterfast
from geventperf.adapter import GeventAdapter, GeventResponse
from geventperf.session import _takes_requests_method, enable_fast_path
from tests.servers import RawServer, WSGIServerThread, http_response

# Requests per check where a cache could answer the second time differently.
REPEATS = 3
# What the 'proxy' below answers, so a test can tell a request went through it.
PROXIED_BODY = b"via the proxy"
# The status of the response a hook puts in place of the server's.
REPLACED_STATUS = 299


def _app(environ, start_response):
    path = environ["PATH_INFO"]
    seen = repr(sorted((k, v) for k, v in environ.items() if k.startswith("HTTP_")))
    if path == "/set-cookie":
        start_response("200 OK", [("Set-Cookie", "a=1; Path=/"), ("Content-Type", "text/plain")])
        return [b"cookie set"]
    if path == "/set-cookie2":
        start_response("200 OK", [("Set-Cookie2", 'b=2; Version="1"; Path="/"')])
        return [b"cookie2 set"]
    if path == "/redirect":
        start_response("302 Found", [("Location", "/echo"), ("Set-Cookie", "r=1; Path=/")])
        return [b""]
    if path == "/repeated":   # one name twice, in two cases; a name with set-cookie in it
        start_response("200 OK", [("X-Twice", "1"), ("x-twice", "2"),
                                  ("X-Set-Cookie-Note", "not a cookie")])
        return [b"repeated"]
    if path == "/redirect-no-cookie":
        start_response("301 Moved Permanently", [("Location", "/echo")])
        return [b""]
    start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
    return [seen.encode()]   # /echo and anything else: the request headers seen


@pytest.fixture(scope="module")
def wsgi():
    with WSGIServerThread(_app) as server:
        yield server


@pytest.fixture
def sessions():
    """(fast, default): geventperf.Session() and requests.Session()."""
    fast, plain = geventperf.Session(), requests.Session()
    yield fast, plain
    fast.close()
    plain.close()


def _view(response: requests.Response) -> tuple:
    """What a user can read of a response (and of its request), comparably."""
    request = response.request
    headers = {k: v for k, v in response.headers.items() if k != "Date"}   # the clock's
    return (response.status_code, response.reason, response.url, response.encoding,
            headers, response.content, sorted(response.cookies.items()),
            [(h.status_code, h.url, sorted(h.cookies.items())) for h in response.history],
            request.method, request.url, dict(request.headers), request.body,
            type(request._cookies), sorted(request._cookies.items()),
            type(response.elapsed).__name__, response.elapsed.total_seconds() > 0,
            response.raw is not None, isinstance(response.connection, HTTPAdapter),
            response.is_redirect, response.next.url if response.next else None)


def _both(sessions, method: str, url: str, **kwargs) -> tuple:
    """One request on each session; their views and session cookies, checked equal."""
    views = []
    for session in sessions:
        response = session.request(method, url, **kwargs)
        views.append((_view(response), sorted(session.cookies.items())))
    assert views[0] == views[1]
    return views[0]


def test_cookies_redirects_and_fragments_as_requests(wsgi, sessions):
    """Set-Cookie lands in the response's and the session's jar, is sent back, and a
    response without one leaves both alone; redirects keep their history and
    cookies; allow_redirects=False still gives ``next``."""
    steps = [
        ("GET", "/echo", {}),                      # empty jar: no Cookie header
        ("GET", "/set-cookie", {}),
        ("GET", "/echo", {}),                      # the cookie goes back
        ("GET", "/set-cookie2", {}),
        ("GET", "/redirect", {}),                  # history, cookie set mid-redirect
        ("GET", "/redirect-no-cookie#part", {}),   # the fragment is carried over
        ("GET", "/redirect", {"allow_redirects": False}),
        ("POST", "/echo", {"data": b"body"}),
        ("POST", "/echo", {}),                     # no body: Content-Length: 0
        ("GET", "/repeated", {}),
        ("GET", "/echo", {"cookies": {"req": "1"}}),
        ("GET", "/echo", {"hooks": {"response": []}}),
    ]
    for method, path, kwargs in steps:
        for _ in range(REPEATS):
            _both(sessions, method, wsgi.url + path, **kwargs)
    for session in sessions:
        session.cookies.clear()
    view, jar = _both(sessions, "GET", wsgi.url + "/echo")
    assert "HTTP_COOKIE" not in view[5].decode() and jar == []


def test_hooks_still_run_and_may_replace_the_response(wsgi, sessions):
    calls = {id(s): [] for s in sessions}
    for session in sessions:
        def session_hook(response, *args, session=session, **kwargs):
            calls[id(session)].append(("session", response.url, sorted(kwargs)))

        session.hooks["response"].append(session_hook)
    for _ in range(REPEATS):
        _both(sessions, "GET", wsgi.url + "/echo")
        # (A request's own response hooks take the session's place, in requests too.)
        _both(sessions, "GET", wsgi.url + "/echo", hooks={"response": lambda r, **kw: r})
    def replace(response, **kwargs):
        replacement = requests.Response()
        replacement.status_code = REPLACED_STATUS
        return replacement

    replaced = [s.get(wsgi.url + "/echo", hooks={"response": replace}) for s in sessions]
    assert [r.status_code for r in replaced] == [REPLACED_STATUS] * 2
    assert calls[id(sessions[0])] == calls[id(sessions[1])] != []


def test_netrc_created_changed_and_removed_mid_session(wsgi, sessions, tmp_path, monkeypatch):
    """The netrc paths are expanded once per environment; a file appearing, changing
    or going away between two requests is seen at the next, as by requests."""
    monkeypatch.delenv("NETRC", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    url = wsgi.url + "/echo"

    def authorization() -> str | None:
        view, _ = _both(sessions, "GET", url)
        return view[10].get("Authorization")

    assert authorization() is None
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login user password pass\n")
    assert authorization() == requests.auth._basic_auth_str("user", "pass")
    (tmp_path / ".netrc").unlink()
    (tmp_path / "_netrc").write_text("machine 127.0.0.1 login other password word\n")
    assert authorization() == requests.auth._basic_auth_str("other", "word")
    (tmp_path / "_netrc").unlink()
    assert authorization() is None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("machine 127.0.0.1 login named password file\n")
    monkeypatch.setenv("NETRC", str(elsewhere))
    assert authorization() == requests.auth._basic_auth_str("named", "file")
    monkeypatch.delenv("NETRC")
    other_home = tmp_path / "home2"
    other_home.mkdir()
    (other_home / ".netrc").write_text("machine 127.0.0.1 login moved password home\n")
    monkeypatch.setenv("HOME", str(other_home))
    assert authorization() == requests.auth._basic_auth_str("moved", "home")


def test_credentials_in_the_url_and_explicit_auth(wsgi, sessions):
    host = wsgi.url.split("//", 1)[1]
    for _ in range(REPEATS):
        _both(sessions, "GET", f"http://us%40er:p%3Ass@{host}/echo")
        _both(sessions, "GET", f"http://user@{host}/echo")
        _both(sessions, "GET", wsgi.url + "/echo", auth=("a", "b"))
        _both(sessions, "GET", wsgi.url + "/echo")


def test_session_header_changes_between_requests(wsgi, sessions):
    url = wsgi.url + "/echo"
    changes = [
        lambda h: h.update({"X-One": "1"}),
        lambda h: h.update({"X-One": "2"}),
        lambda h: h.update({"x-one": "3"}),            # same name, other case
        lambda h: h.update({"User-Agent": None}),      # None drops it
        lambda h: h.update({"X-Bytes": b"raw"}),       # not remembered: requests' steps
        lambda h: h.pop("X-Bytes"),
        lambda h: h.pop("Accept"),
    ]
    for change in changes:
        for session in sessions:
            change(session.headers)
        for _ in range(REPEATS):
            _both(sessions, "GET", url)
            _both(sessions, "GET", url, headers={"X-Req": "r"})
    for session in sessions:
        session.headers["X-Bad"] = "line\nbreak"
    errors = []
    for session in sessions:
        with pytest.raises(requests.exceptions.InvalidHeader) as raised:
            session.get(url)
        errors.append(str(raised.value))
    assert errors[0] == errors[1]


def test_empty_jar_is_kept_on_the_prepared_request(wsgi, sessions):
    fast, plain = sessions
    prepared = [s.prepare_request(requests.Request("GET", wsgi.url + "/echo"))
                for s in sessions]
    for p in prepared:
        assert type(p._cookies) is RequestsCookieJar and len(p._cookies) == 0
        assert "Cookie" not in p.headers and type(p.copy()._cookies) is RequestsCookieJar
    for session in sessions:
        session.cookies.set("late", "1")
    _both(sessions, "GET", wsgi.url + "/echo")


def test_cookieless_build_equals_requests_build(wsgi):
    """The adapter's own build of a response without Set-Cookie sets every attribute
    requests' HTTPAdapter.build_response sets, to the same values."""
    adapter = GeventAdapter(fast_path=True)
    session = requests.Session()
    assert adapterfast._RESPONSE_START_KNOWN   # the build below is the fast one
    for path in ("/echo", "/set-cookie", "/redirect-no-cookie", "/repeated"):
        prepared = session.prepare_request(requests.Request("GET", wsgi.url + path))
        raw = adapter.send(prepared, stream=True).raw
        ours = adapter._build_cookieless_response(prepared, raw, GeventResponse)
        theirs = HTTPAdapter.build_response(adapter, prepared, raw)
        assert type(ours) is GeventResponse
        assert list(vars(ours)) == list(vars(theirs))
        for name, value in vars(theirs).items():
            mine = vars(ours)[name]
            assert type(mine) is type(value), name
            if name == "cookies":
                # (less the time requests' extraction stamps on the policy: the
                # cookieless build extracts nothing)
                assert mine is not value and {**vars(mine._policy), "_now": 0} == \
                    {**vars(value._policy), "_now": 0}
                if path == "/set-cookie":
                    assert dict(value) == {"a": "1"} and dict(mine) == {}
                    continue
                mine, value = sorted(mine.items()), sorted(value.items())
            elif name == "headers":
                assert type(mine._store) is type(value._store)
                mine, value = list(mine._store.items()), list(value._store.items())
            assert mine == value, name
        raw.read()
        raw.release_conn()
    adapter.close()


def test_proxies_given_per_request_still_go_through_the_proxy(wsgi, sessions):
    """With the origin's pool key remembered (a direct request first), a request
    with proxies still takes requests' own lookup."""
    seen = []

    def answer(head):
        seen.append(head.split(b"\r\n", 1)[0])
        return [http_response(PROXIED_BODY)]

    with RawServer(answer) as proxy:
        for session in sessions:
            assert session.get(wsgi.url + "/echo").status_code == 200
            response = session.get(wsgi.url + "/echo", proxies={"http": proxy.url})
            assert response.content == PROXIED_BODY
            assert session.get(wsgi.url + "/echo").content != PROXIED_BODY
    assert seen == [f"GET {wsgi.url}/echo HTTP/1.1".encode()] * 2


def test_pool_lookup_follows_the_managers_settings():
    """The remembered pool key gives the pool requests' own lookup gives, also after
    the manager's settings change (a value set, a list changed in place), the manager
    is replaced or its pools are cleared."""
    adapter = geventperf.Session().get_adapter("http://127.0.0.1/")
    prepared = requests.Session().prepare_request(
        requests.Request("GET", "http://127.0.0.1:9/x"))

    def same_pool():
        ours = adapter.get_connection_with_tls_context(prepared, True, {}, None)
        theirs = HTTPAdapter.get_connection_with_tls_context(adapter, prepared, True, {}, None)
        assert ours is theirs

    changes = [
        lambda: None,
        lambda: None,   # remembered by now
        lambda: adapter.poolmanager.connection_pool_kw.update(maxsize=3),
        lambda: adapter.poolmanager.connection_pool_kw.update(socket_options=[(6, 1, 1)]),
        lambda: adapter.poolmanager.connection_pool_kw["socket_options"].append((1, 9, 1)),
        lambda: adapter.poolmanager.clear(),
        lambda: adapter.init_poolmanager(4, 4),
    ]
    for change in changes:
        change()
        for _ in range(REPEATS):
            same_pool()
    assert adapter.get_connection_with_tls_context(prepared, True, {}, None).pool.maxsize == 4
    adapter.close()


@pytest.mark.parametrize("url", [
    "http://[::1/x", "http://[1.2.3.4]/x", "http://127.0.0.1:99999/x", "http:///x",
    "http://exa mple.invalid/x", "ftp://127.0.0.1/x",
])
def test_bad_urls_fail_alike(url, sessions):
    failures = []
    for session in sessions:
        for _ in range(2):   # the second time, any cache has had its chance
            try:
                session.get(url, timeout=2)
                failures.append(None)
            except Exception as error:   # noqa: BLE001 - the class is what is compared
                failures.append((type(error), str(error)))
    assert failures[:2] == failures[2:]


@pytest.mark.parametrize("name", ["prepare_request", "merge_environment_settings",
                                  "resolve_redirects"])
def test_the_fast_path_takes_over_requests_own_methods(name):
    """Where the session class is requests' own, the fast path's method is the one
    that runs (it checks where the method after it comes from)."""
    assert _takes_requests_method(geventperf.Session, name)
    assert _takes_requests_method(type(enable_fast_path(requests.Session())), name)


def test_the_fast_path_adapter_takes_over_requests_own_lookups():
    for adapter in geventperf.Session().adapters.values():
        assert adapter._skip_proxy_lookups and adapter._build_without_cookies
    without = GeventAdapter()   # fast_path=False: requests' own steps
    assert not (without._skip_proxy_lookups or without._build_without_cookies)


def test_a_session_class_with_its_own_methods_keeps_them(wsgi):
    walked = []

    class Recording(requests.Session):
        def resolve_redirects(self, resp, req, *args, **kwargs):
            walked.append(resp.status_code)
            return super().resolve_redirects(resp, req, *args, **kwargs)

        def prepare_request(self, request):
            walked.append("prepare")
            return super().prepare_request(request)

        def merge_environment_settings(self, *args):
            walked.append("environment")
            return super().merge_environment_settings(*args)

    session = enable_fast_path(Recording())
    geventperf.mount(session, fast_path=True)
    assert session.get(wsgi.url + "/echo").status_code == 200
    assert session.get(wsgi.url + "/redirect").history[0].status_code == 302
    assert walked == ["prepare", "environment", 200] + ["prepare", "environment", 302, 200]


def test_an_adapter_class_with_its_own_lookups_keeps_them(wsgi):
    called = []

    class Own(GeventAdapter):
        def request_url(self, request, proxies):
            called.append("request_url")
            return super().request_url(request, proxies)

        def build_response(self, req, resp):
            called.append("build_response")
            return super().build_response(req, resp)

    session = geventperf.Session()
    session.mount("http://", Own(fast_path=True))
    for _ in range(REPEATS):
        assert session.get(wsgi.url + "/set-cookie").cookies["a"] == "1"
    assert called == ["request_url", "build_response"] * REPEATS


def test_a_jar_of_its_own_still_sees_every_response(wsgi, sessions):
    """The session jar's extraction is left out only for http.cookiejar's own jar."""
    seen = {id(s): [] for s in sessions}
    for session in sessions:
        class Recording(cookiejar.CookieJar):
            def extract_cookies(self, response, request, session=session):
                seen[id(session)].append(request.get_full_url())
                return super().extract_cookies(response, request)

        session.cookies = Recording()
    for path in ("/echo", "/set-cookie", "/echo"):
        fast_view, plain_view = (_view(s.get(wsgi.url + path)) for s in sessions)
        assert fast_view == plain_view
    assert seen[id(sessions[0])] == seen[id(sessions[1])] != []
    assert [[c.name for c in s.cookies] for s in sessions] == [["a"], ["a"]]


def test_unknown_hook_events_fail_alike(wsgi, sessions):
    failures = []
    for session in sessions:
        with pytest.raises(ValueError) as raised:
            session.get(wsgi.url + "/echo", hooks={"request": []})
        failures.append(str(raised.value))
    assert failures[0] == failures[1]


def test_pool_order_stays_urllib3s():
    """Pools looked up without urllib3's lock (the most recent one) leave the
    manager's eviction order as urllib3's own lookups leave it."""
    fast, plain = GeventAdapter(fast_path=True, pool_connections=2), HTTPAdapter(pool_connections=2)
    session = requests.Session()
    orders = []
    for adapter in (fast, plain):
        pools = []
        for port in (9, 9, 10, 10, 9, 11, 11, 9, 10, 10):
            prepared = session.prepare_request(
                requests.Request("GET", f"http://127.0.0.1:{port}/x"))
            pools.append(adapter.get_connection_with_tls_context(prepared, True, {}, None))
        orders.append(([k.key_port for k in adapter.poolmanager.pools._container],
                       [pools.index(p) for p in pools]))
        adapter.close()
    assert orders[0] == orders[1]
