"""mount() per prefix and around existing adapters, and the session fast path
(geventperf.Session, mount(..., fast_path=True)), against real servers on 127.0.0.1."""

from __future__ import annotations

import os
import pickle
import socket
import threading

import pytest
import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.util.retry import Retry

import geventperf
from geventperf import readstats
from geventperf.adapter import GeventAdapter, GeventResponse, LargeReads
from geventperf.session import SessionFastPath, environment_changed
from tests.servers import RawServer, WSGIServerThread, http_response

BODY = os.urandom(300_000)
# Requests in the dropped-connection test, each on a connection the server closed.
REQUESTS_ON_CLOSED_CONNECTIONS = 3
# Requests that must each reach a custom adapter's own methods under the fast path.
FAST_PATH_REPEATS = 3
# What a proxy answers, so a test can tell a request went through it.
PROXIED_BODY = b"via the proxy"


def _app(environ, start_response):
    path = environ["PATH_INFO"]
    if path.startswith("/size/"):
        body = BODY[: int(path.rsplit("/", 1)[1])]
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]
    if path == "/headers":
        body = repr(sorted((k, v) for k, v in environ.items() if k.startswith("HTTP_")))
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [body.encode()]
    start_response("404 Not Found", [("Content-Length", "0")])
    return [b""]


@pytest.fixture(scope="module")
def wsgi():
    with WSGIServerThread(_app) as server:
        yield server


# -- exported names ------------------------------------------------------------------------

def test_public_names_are_pinned():
    assert geventperf.__all__ == sorted(geventperf.__all__)
    assert set(geventperf.__all__) == {
        "BodyTimeout", "BodyTooLarge", "FORMATS", "GeventAdapter", "Profile", "ProfileError",
        "Session", "Tracer", "TracerError", "__version__", "environment_changed", "mount",
        "section"}
    for name in geventperf.__all__:
        assert getattr(geventperf, name) is not None


# -- one adapter per prefix ----------------------------------------------------------------

def test_each_prefix_gets_its_own_adapter_and_close_closes_each_once():
    session = requests.Session()
    returned = geventperf.mount(session)
    http, https = session.adapters["http://"], session.adapters["https://"]
    assert isinstance(http, GeventAdapter) and isinstance(https, GeventAdapter)
    assert http is not https and returned is http
    closed = []
    for adapter in (http, https):
        original = adapter.close
        adapter.close = lambda original=original, adapter=adapter: (closed.append(adapter),
                                                                     original())
    session.close()
    assert sorted(map(id, closed)) == sorted([id(http), id(https)])


def test_mount_keeps_a_plain_adapters_pool_and_retry_settings():
    session = requests.Session()
    retries = Retry(total=3, backoff_factor=0)
    session.mount("https://", HTTPAdapter(pool_maxsize=37, max_retries=retries, pool_block=True))
    geventperf.mount(session, chunk_size=65536)
    https = session.adapters["https://"]
    assert isinstance(https, GeventAdapter) and https.chunk_size == 65536
    assert https._pool_maxsize == 37 and https._pool_block is True
    assert https.max_retries is retries
    # An explicit option still wins over the replaced adapter's.
    geventperf.mount(session, pool_maxsize=5)
    assert session.adapters["https://"]._pool_maxsize == 5


def test_mount_only_the_prefixes_given():
    session = requests.Session()
    before = session.adapters["https://"]
    geventperf.mount(session, prefixes=("http://",))
    assert session.adapters["https://"] is before
    assert isinstance(session.adapters["http://"], GeventAdapter)


# -- around an adapter already mounted -----------------------------------------------------

class CountingAdapter(HTTPAdapter):
    """A custom adapter with behaviour of its own: a header on every request, a count of
    its sends, and a response class of its own."""

    __attrs__ = HTTPAdapter.__attrs__ + ["tag", "sent"]   # kept when pickled

    def __init__(self, tag: str, **kwargs):
        self.tag = tag
        self.sent = 0
        super().__init__(**kwargs)

    def add_headers(self, request, **kwargs):
        request.headers["X-Tag"] = self.tag

    def send(self, request, **kwargs):
        self.sent += 1
        return super().send(request, **kwargs)

    def build_response(self, req, resp):
        response = super().build_response(req, resp)
        response.__class__ = TaggedResponse
        return response


class TaggedResponse(requests.Response):
    def tagged(self) -> bool:
        return True


def test_mount_keeps_a_custom_adapters_behaviour_and_adds_large_reads(wsgi):
    session = requests.Session()
    custom = CountingAdapter("locust-like")
    session.mount("http://", custom)
    session.mount("https://", custom)
    geventperf.mount(session, chunk_size=128 * 1024)
    wrapped = session.adapters["http://"]
    # One adapter on both prefixes stays one; the original object is left as it was.
    assert session.adapters["https://"] is wrapped
    assert wrapped is not custom and type(custom) is CountingAdapter
    assert isinstance(wrapped, CountingAdapter) and isinstance(wrapped, LargeReads)
    assert wrapped.poolmanager is custom.poolmanager   # the same pools, shared
    records = []
    readstats.add_sink(records.append)
    try:
        r = session.get(f"{wsgi.url}/size/{len(BODY)}")
    finally:
        readstats.remove_sink(records.append)
    assert r.content == BODY
    assert isinstance(r, GeventResponse) and isinstance(r, TaggedResponse) and r.tagged()
    assert wrapped.sent == 1
    assert "locust-like" in session.get(f"{wsgi.url}/headers").text
    [record] = records
    assert record["largest_read"] > 64 * 1024   # requests alone reads 8-10 KiB pieces
    assert wrapped.chunk_size == 128 * 1024


def test_the_fast_path_gives_a_custom_adapters_own_pools_the_quick_connections(wsgi):
    from geventperf.quickpools import _pool_classes
    plain, session = requests.Session(), requests.Session()
    session.mount("http://", CountingAdapter("locust-like"))
    geventperf.mount(session, fast_path=True)
    url = f"{wsgi.url}/size/{len(BODY)}"
    for _ in range(2):  # the second on the kept-alive connection, lines remembered
        r = session.get(url)
        expected = plain.get(url)
        assert r.content == expected.content == BODY
        assert [k for k in r.headers if k != "Date"] == \
            [k for k in expected.headers if k != "Date"]
    pool = session.adapters["http://"].poolmanager.connection_from_url(url)
    assert type(pool) is _pool_classes(True, False)["http"]
    assert session.adapters["http://"].sent == 2


def test_quickack_reaches_every_pool_and_survives_pickling_and_remounts(wsgi):
    """quickack=True: connections that set TCP_QUICKACK before each response (the
    delayed-ACK tests in test_poolwatch and test_diagnosis show the kernel's side), on a
    GeventAdapter, a custom adapter's own pools, with the fast path or without."""
    from geventperf.quickpools import QuickAck, _pool_classes
    url = f"{wsgi.url}/size/{len(BODY)}"
    custom = requests.Session()
    custom.mount("http://", CountingAdapter("locust-like"))
    for session, fast in ((requests.Session(), False), (geventperf.Session(), True),
                          (custom, False)):
        geventperf.mount(session, quickack=True, fast_path=fast)
        for copy in (session, pickle.loads(pickle.dumps(session))):
            adapter = copy.adapters["http://"]
            assert adapter.quickack and copy.get(url).content == BODY
            pool = adapter.poolmanager.connection_from_url(url)
            assert type(pool) is _pool_classes(fast, True)["http"]
            assert issubclass(pool.ConnectionCls, QuickAck)
    session = requests.Session()
    geventperf.mount(session, quickack=True)
    geventperf.mount(session, chunk_size=4096)  # a remount keeps it
    assert session.adapters["https://"].quickack
    assert "quickack=True" in repr(session.adapters["https://"])
    assert not GeventAdapter().quickack  # off unless asked
    geventperf.mount(custom, chunk_size=4096)  # kept by a remount, as above
    assert custom.adapters["http://"].quickack
    geventperf.mount(custom, quickack=False)  # a custom adapter's pools go back
    assert not custom.adapters["http://"].quickack
    assert custom.adapters["http://"].poolmanager.pool_classes_by_scheme["http"] is \
        HTTPConnectionPool


def test_mount_on_a_custom_adapter_refuses_pool_settings_with_what_to_do():
    session = requests.Session()
    custom = CountingAdapter("x")
    session.mount("http://", custom)
    with pytest.raises(TypeError, match="CountingAdapter.*pool_maxsize.*GeventAdapter"):
        geventperf.mount(session, pool_maxsize=50)
    assert session.adapters["http://"] is custom


class NotHTTP(BaseAdapter):
    def send(self, request, **kwargs):
        raise AssertionError("not used")

    def close(self):
        pass


def test_mount_refuses_a_non_http_adapter_and_mounts_nothing():
    session = requests.Session()
    before = dict(session.adapters)
    session.mount("https://", NotHTTP())
    with pytest.raises(TypeError, match="NotHTTP.*not a requests.adapters.HTTPAdapter"):
        geventperf.mount(session)
    assert session.adapters["http://"] is before["http://"]   # nothing half-mounted
    assert type(session.adapters["https://"]) is NotHTTP


def test_mount_rejects_unknown_options():
    with pytest.raises(TypeError, match="chunksize"):
        geventperf.mount(requests.Session(), chunksize=10)


def test_remount_changes_limits_and_keeps_the_custom_class(wsgi):
    session = requests.Session()
    session.mount("http://", CountingAdapter("x"))
    geventperf.mount(session)
    geventperf.mount(session, max_body_size=10)
    adapter = session.adapters["http://"]
    assert isinstance(adapter, CountingAdapter) and adapter.max_body_size == 10
    with pytest.raises(geventperf.BodyTooLarge):
        session.get(f"{wsgi.url}/size/1000")


def test_session_with_wrapped_adapter_pickles(wsgi):
    session = requests.Session()
    session.mount("http://", CountingAdapter("x"))
    geventperf.mount(session, chunk_size=4096, fast_path=True)
    copy = pickle.loads(pickle.dumps(session))
    adapter = copy.adapters["http://"]
    assert isinstance(copy, SessionFastPath)
    assert isinstance(adapter, CountingAdapter) and adapter.chunk_size == 4096
    assert copy.get(f"{wsgi.url}/size/5000").content == BODY[:5000]
    plain = pickle.loads(pickle.dumps(geventperf.Session(chunk_size=8192)))
    assert type(plain) is geventperf.Session
    assert plain.adapters["https://"].fast_path and plain.adapters["https://"].chunk_size == 8192


# -- the fast path -------------------------------------------------------------------------

def _proxy_server():
    """A 'proxy' that answers every request itself and records the request line."""
    seen = []

    def respond(head: bytes):
        seen.append(head.split(b"\r\n", 1)[0])
        return [http_response(PROXIED_BODY)]
    return RawServer(respond, keep_alive=True), seen


@pytest.fixture
def clean_proxy_env(monkeypatch):
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    yield monkeypatch
    environment_changed()


@pytest.mark.parametrize("make", ["Session", "mount"])
def test_fast_path_follows_proxy_variables_set_and_removed(wsgi, clean_proxy_env, make):
    if make == "Session":
        session = geventperf.Session()
    else:
        session = requests.Session()
        geventperf.mount(session, fast_path=True)
    assert isinstance(session, SessionFastPath)
    url = f"{wsgi.url}/size/100"
    proxy, seen = _proxy_server()
    with proxy:
        assert session.get(url).content == BODY[:100]
        clean_proxy_env.setenv("HTTP_PROXY", proxy.url)
        assert session.get(url).content == PROXIED_BODY
        assert seen == [f"GET {url} HTTP/1.1".encode()]
        # no_proxy naming the host: direct again (a value change of a watched name).
        clean_proxy_env.setenv("no_proxy", "127.0.0.1")
        assert session.get(url).content == BODY[:100]
        clean_proxy_env.delenv("no_proxy")
        assert session.get(url).content == PROXIED_BODY
        clean_proxy_env.delenv("HTTP_PROXY")
        assert session.get(url).content == BODY[:100]
        # A proxy variable of a scheme seen nowhere before is found too (the count moved).
        clean_proxy_env.setenv("ALL_PROXY", proxy.url)
        assert session.get(url).content == PROXIED_BODY
        # The per-request proxies argument is requests' as ever.
        assert session.get(url, proxies={"no_proxy": "127.0.0.1"}).content == BODY[:100]
    assert len(seen) == 3


def test_environment_changed_catches_the_one_swap_the_fingerprint_cannot(clean_proxy_env):
    """The documented blind spot: an unrelated variable removed and a proxy variable of
    a scheme not set before added between two requests (the count stays the same)."""
    session = geventperf.Session()
    url = "http://example.invalid/"

    def proxies():
        return session.merge_environment_settings(url, {}, None, None, None)["proxies"]
    clean_proxy_env.setenv("GEVENTPERF_TEST_FILLER", "1")
    assert "ftp" not in proxies()
    clean_proxy_env.delenv("GEVENTPERF_TEST_FILLER")
    clean_proxy_env.setenv("FTP_PROXY", "http://ftp-proxy.invalid")
    assert "ftp" not in proxies()                       # unseen, as documented
    environment_changed()
    assert proxies()["ftp"] == "http://ftp-proxy.invalid"
    assert proxies() == requests.Session().merge_environment_settings(
        url, {}, None, None, None)["proxies"]
    # Now a watched name: its value change is seen without help.
    clean_proxy_env.setenv("FTP_PROXY", "http://other.invalid")
    assert proxies()["ftp"] == "http://other.invalid"


def test_fast_path_uses_the_ca_bundle_variables_like_requests(clean_proxy_env):
    session = geventperf.Session()
    url = "https://example.invalid/"
    clean_proxy_env.setenv("REQUESTS_CA_BUNDLE", "/nonexistent/bundle.pem")
    settings = session.merge_environment_settings(url, {}, None, None, None)
    default = requests.Session().merge_environment_settings(url, {}, None, None, None)
    assert settings == default and settings["verify"] == "/nonexistent/bundle.pem"
    clean_proxy_env.delenv("REQUESTS_CA_BUNDLE")
    clean_proxy_env.setenv("CURL_CA_BUNDLE", "/nonexistent/curl.pem")
    assert session.merge_environment_settings(url, {}, None, False, None)["verify"] is False
    assert session.merge_environment_settings(url, {}, None, None, None)["verify"] == \
        "/nonexistent/curl.pem"


def test_fast_path_settings_and_prepared_requests_equal_requests(clean_proxy_env):
    """The fast path's own merge gives what requests' gives, for settings of every
    shape a caller may pass."""
    clean_proxy_env.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    clean_proxy_env.setenv("NO_PROXY", "internal.invalid")
    fast, plain = geventperf.Session(), requests.Session()
    for s in (fast, plain):
        s.headers["X-Session"] = "1"
        s.headers["X-Drop"] = "1"
        s.params = {"a": "1", "b": "2"}
        s.proxies = {"ftp": "http://ftp-proxy.invalid"}
        s.cookies.set("c", "1")
        s.hooks["response"].append(print)
    cases = [
        ("GET", "https://example.invalid/x", {}),
        ("GET", "https://internal.invalid/x", {"params": [("b", "3")]}),
        ("POST", "http://example.invalid/p?q=1", {
            "headers": {"X-Drop": None, "X-Req": "2"}, "data": {"k": "v"},
            "cookies": {"d": "2"}, "auth": ("u", "p"), "hooks": {"response": [repr]}}),
        ("PUT", "http://example.invalid:8080/", {"json": {"j": 1}, "params": b"raw=1"}),
    ]
    for method, url, kwargs in cases:
        prepared = [s.prepare_request(requests.Request(method, url, **kwargs))
                    for s in (fast, plain)]
        a, b = prepared
        assert (a.method, a.url, dict(a.headers), a.body, a.hooks) == \
            (b.method, b.url, dict(b.headers), b.body, b.hooks)
        for proxies in ({}, {"no_proxy": "example.invalid"}, {"https": "http://p.invalid"}):
            for verify in (None, False, "/x.pem"):
                got = [s.merge_environment_settings(url, dict(proxies), None, verify,
                                                    ("c.pem", "k.pem"))
                       for s in (fast, plain)]
                assert got[0] == got[1]


def test_fast_path_remembers_pool_keys_and_cert_checks_with_requests_results(tmp_path):
    bundle = tmp_path / "bundle.pem"
    bundle.write_text("not a real bundle: cert_verify only checks that it exists")
    fast = GeventAdapter(fast_path=True)
    plain = HTTPAdapter()
    for url, verify, cert in [("https://example.invalid/a", True, None),
                              ("https://example.invalid:8443/b", str(bundle), None),
                              ("https://example.invalid/c", str(tmp_path), None),
                              ("http://example.invalid/d", False, str(bundle)),
                              ("https://example.invalid/e", True, (str(bundle), str(bundle)))]:
        request = requests.Request("GET", url).prepare()
        for _ in range(2):   # the second answer comes from the cache
            assert fast.build_connection_pool_key_attributes(request, verify, cert) == \
                plain.build_connection_pool_key_attributes(request, verify, cert)
            conns = [fast.get_connection_with_tls_context(request, verify, cert=cert),
                     plain.get_connection_with_tls_context(request, verify, cert=cert)]
            fast.cert_verify(conns[0], url, verify, cert)
            plain.cert_verify(conns[1], url, verify, cert)
            attrs = ("cert_reqs", "ca_certs", "ca_cert_dir", "cert_file", "key_file")
            assert [getattr(conns[0], a, None) for a in attrs] == \
                [getattr(conns[1], a, None) for a in attrs]
    missing = str(tmp_path / "missing.pem")
    with pytest.raises(OSError, match="invalid path"):
        fast.cert_verify(conns[0], "https://example.invalid/", missing, None)


def test_fast_path_finds_a_dropped_pooled_connection_and_reconnects():
    """The fast path's own dropped-connection check (the process's poll, not the hub's)
    must see a connection the server closed after its response, as urllib3's does:
    otherwise the next request is written into a dead socket and fails."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    closed = threading.Event()
    connections = []

    def serve():
        for _ in range(REQUESTS_ON_CLOSED_CONNECTIONS):
            conn, _ = listener.accept()
            connections.append(conn)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            conn.sendall(http_response(b"fresh", headers=[("Connection", "keep-alive")]))
            conn.close()   # closed after a response that promised to keep it open
            closed.set()
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    session = geventperf.Session()
    url = f"http://127.0.0.1:{port}/"
    pool = session.adapters["http://"].get_connection_with_tls_context(
        requests.Request("GET", url).prepare(), True)
    assert type(pool).__name__.startswith("Quick")
    try:
        for _ in range(REQUESTS_ON_CLOSED_CONNECTIONS):
            assert session.get(url).content == b"fresh"
            assert closed.wait(10)   # the server has closed it before the next request
            closed.clear()
    finally:
        listener.close()
        thread.join(10)
    assert len(connections) == REQUESTS_ON_CLOSED_CONNECTIONS


def test_fast_path_reads_a_replaced_os_environ_as_requests_does(monkeypatch):
    """requests' own test suite swaps os.environ for a dict (mock.patch): the fast path
    must read that dict, not the process environment it fingerprints."""
    session = geventperf.Session()
    url = "http://example.invalid/"
    assert session.merge_environment_settings(url, {}, None, True, None)["verify"] != \
        "/replaced/bundle.pem"
    monkeypatch.setattr(os, "environ", {"REQUESTS_CA_BUNDLE": "/replaced/bundle.pem",
                                        "HTTP_PROXY": "http://replaced.invalid:1"})
    settings = session.merge_environment_settings(url, {}, None, True, None)
    assert settings["verify"] == "/replaced/bundle.pem"
    assert settings["proxies"]["http"] == "http://replaced.invalid:1"


class OwnCertChecks(HTTPAdapter):
    """An adapter with its own certificate checks and pool key attributes."""

    def __init__(self, **kwargs):
        self.cert_checks = 0
        self.key_builds = 0
        super().__init__(**kwargs)

    def cert_verify(self, conn, url, verify, cert):
        self.cert_checks += 1
        return super().cert_verify(conn, url, verify, cert)

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        self.key_builds += 1
        return super().build_connection_pool_key_attributes(request, verify, cert)


def test_fast_path_keeps_calling_an_adapters_own_cert_and_pool_key_methods(wsgi):
    session = requests.Session()
    session.mount("http://", OwnCertChecks())
    geventperf.mount(session, fast_path=True)
    adapter = session.adapters["http://"]
    assert isinstance(adapter, OwnCertChecks) and adapter.fast_path
    for _ in range(FAST_PATH_REPEATS):
        assert session.get(f"{wsgi.url}/size/10").content == BODY[:10]
    assert adapter.cert_checks == FAST_PATH_REPEATS
    assert adapter.key_builds == FAST_PATH_REPEATS
    # requests' own methods, on a plain GeventAdapter, are the ones remembered.
    plain = geventperf.Session().adapters["http://"]
    assert plain._cache_pool_keys and plain._cache_certs
