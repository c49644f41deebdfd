"""GeventAdapter against real servers on 127.0.0.1, compared with requests' default
adapter on the same responses."""

from __future__ import annotations

import gc
import gzip
import io
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import time
import tracemalloc
import zlib

import pytest
import requests
import urllib3
import urllib3.response
from requests.exceptions import ChunkedEncodingError, ContentDecodingError

import geventperf
from geventperf import readstats
from geventperf.adapter import GeventResponse
from geventperf.bodyreader import DEFAULT_CHUNK_SIZE
from tests.mount_paths import mount_path  # noqa: F401  (every test: both mount paths)
from tests.servers import RawServer, WSGIServerThread, chunked, http_response

BODY = os.urandom(3 * 1024 * 1024 + 17)
# Response.elapsed is a timedelta: whole microseconds, rounded.
TIMEDELTA_RESOLUTION_S = 1e-6
# Enough requests that a cycle per request cannot hide among one-off objects.
CYCLE_PROBE_REQUESTS = 10
# urllib3 1.26 returns a short body silently when the connection ends early (it does
# not enforce Content-Length); the adapter raises on every version.
URLLIB3_2 = int(urllib3.__version__.split(".")[0]) >= 2


def _fetch(session: requests.Session, url: str, method: str = "GET", **kw):
    """Everything a caller can observe of one request, or the exception class."""
    try:
        r = session.request(method, url, timeout=10, **kw)
        headers = {k: v for k, v in r.headers.items() if k.lower() != "date"}
        return ("ok", r.status_code, headers, r.content, r.encoding, r.url,
                [h.status_code for h in r.history], dict(r.cookies))
    except requests.RequestException as exc:
        return ("error", type(exc))


def _compare(url: str, method: str = "GET", **adapter_kw):
    default = _fetch(requests.Session(), url, method)
    session = requests.Session()
    geventperf.mount(session, **adapter_kw)
    ours = _fetch(session, url, method)
    assert ours == default
    return ours


# -- responses served by gevent's WSGI server ------------------------------------------

def _app(environ, start_response):
    path = environ["PATH_INFO"]
    if path.startswith("/size/"):
        body = BODY[: int(path.rsplit("/", 1)[1])]
        start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    if path == "/gzip":
        body = gzip.compress(BODY)
        start_response("200 OK", [("Content-Encoding", "gzip"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    if path == "/gzip-chunked":
        body = gzip.compress(BODY)
        start_response("200 OK", [("Content-Encoding", "gzip")])
        return [body[i:i + 7000] for i in range(0, len(body), 7000)]
    if path == "/deflate":
        body = zlib.compress(BODY[:200_000])
        start_response("200 OK", [("Content-Encoding", "deflate"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    if path == "/text":
        body = "héllo wörld".encode("latin-1")
        start_response("200 OK", [("Content-Type", "text/plain; charset=latin-1"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    if path == "/redirect":
        start_response("302 Found", [("Location", "/size/1000"), ("Set-Cookie", "a=1; Path=/"),
                                     ("Content-Length", "3")])
        return [b"bye"]
    if path.startswith("/status/"):
        start_response(path.rsplit("/", 1)[1] + " X", [])
        return [b""]
    start_response("404 Not Found", [("Content-Length", "0")])
    return [b""]


@pytest.fixture(scope="module")
def wsgi():
    with WSGIServerThread(_app) as server:
        yield server


@pytest.mark.parametrize("size", [0, 1, 2, 1000, 65536, 1024 * 1024 + 3, len(BODY)])
def test_content_length_bodies_match_default(wsgi, size):
    result = _compare(f"{wsgi.url}/size/{size}")
    assert result[3] == BODY[:size]


@pytest.mark.parametrize("chunk_size", [1, 7, 1000, 8192, 64 * 1024, 4 * 1024 * 1024])
def test_any_chunk_size_gives_the_same_body(wsgi, chunk_size):
    # Tiny pieces cost a Python call per byte: keep their bodies small.
    size = 20_000 if chunk_size < 1000 else 1024 * 1024 + 3
    _compare(f"{wsgi.url}/size/{size}", chunk_size=chunk_size)
    _compare(f"{wsgi.url}/deflate" if chunk_size < 1000 else f"{wsgi.url}/gzip-chunked",
             chunk_size=chunk_size)


@pytest.mark.parametrize("path", ["/gzip", "/gzip-chunked", "/deflate", "/text", "/redirect",
                                  "/status/204", "/status/304", "/missing"])
def test_encodings_redirects_and_statuses_match_default(wsgi, path):
    _compare(wsgi.url + path)


def test_head_matches_default(wsgi):
    result = _compare(f"{wsgi.url}/size/1000", method="HEAD")
    assert result[3] == b""


def test_response_type_encoding_cookies_hooks_and_elapsed(wsgi):
    session = requests.Session()
    geventperf.mount(session)
    seen = []
    started = time.perf_counter()
    r = session.get(f"{wsgi.url}/redirect", hooks={"response": lambda r, **kw: seen.append(r)})
    wall_s = time.perf_counter() - started
    assert isinstance(r, GeventResponse) and isinstance(r, requests.Response)
    assert [h.status_code for h in r.history] == [302]
    assert session.cookies.get("a") == "1"
    assert len(seen) == 2  # the hook ran for the redirect and for the final response
    # Each response's elapsed is a part of the call (both measured with perf_counter), so
    # the two together fit in the call's wall time, up to timedelta's rounding.
    elapsed_s = [x.elapsed.total_seconds() for x in (r.history[0], r)]
    assert all(e > 0 for e in elapsed_s), elapsed_s
    assert sum(elapsed_s) <= wall_s + len(elapsed_s) * TIMEDELTA_RESOLUTION_S, \
        (elapsed_s, wall_s)
    text = session.get(f"{wsgi.url}/text")
    assert text.encoding == "latin-1" and text.text == "héllo wörld"


def test_stream_true_small_iter_content_reads_socket_in_large_pieces(wsgi):
    session = requests.Session()
    geventperf.mount(session)
    records = []
    readstats.add_sink(records.append)
    try:
        with session.get(f"{wsgi.url}/size/{len(BODY)}", stream=True) as r:
            pieces = list(r.iter_content(1024))
    finally:
        readstats.remove_sink(records.append)
    assert b"".join(pieces) == BODY
    assert max(len(p) for p in pieces) == 1024  # the caller still gets what it asked for
    [record] = records
    # requests alone asks the socket for at most 8 KiB at a time here.
    assert record["largest_read"] > 8192
    assert record["reads"] < len(BODY) // 8192
    assert record["bytes"] == len(BODY)


def test_raw_read_after_stream_still_works(wsgi):
    session = requests.Session()
    geventperf.mount(session)
    with session.get(f"{wsgi.url}/size/100000", stream=True) as r:
        assert r.raw.read() == BODY[:100000]


def test_content_length_body_is_read_into_one_buffer():
    # The raw server sends prebuilt bytes, so tracemalloc sees the client's memory only
    # (gevent's WSGI server joins head and body, a body-sized allocation of its own).
    response = http_response(BODY)
    with RawServer(lambda head: [response], keep_alive=True) as server:
        session = requests.Session()
        geventperf.mount(session)
        assert session.get(server.url).content == BODY  # warm the pool and code paths
        tracemalloc.start()
        try:
            content = session.get(server.url).content
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert content == BODY
    # One body-sized allocation plus the 512 KiB read buffer; a join of pieces or a
    # bytearray copied into bytes would need twice the body.
    assert peak < 1.2 * len(BODY)


def test_connection_is_reused_after_a_complete_body():
    response = http_response(BODY[:5000])
    with RawServer(lambda head: [response], keep_alive=True) as server:
        session = requests.Session()
        geventperf.mount(session)
        for _ in range(3):
            assert session.get(server.url).content == BODY[:5000]
        assert server.connections == 1


# -- raw-socket servers: exactly the bytes a case needs -----------------------------------

def _compare_raw(script, **adapter_kw):
    with RawServer(lambda head: script) as server:
        return _compare(server.url, **adapter_kw)


def test_many_tiny_chunks_match_default():
    pieces = [os.urandom(3) for _ in range(5000)]
    result = _compare_raw([http_response(chunked(pieces), headers=[("Transfer-Encoding",
                                                                     "chunked")], length=None)])
    assert result[3] == b"".join(pieces)


def test_chunked_with_extensions_and_trailer_matches_default():
    body = b"5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"
    result = _compare_raw([http_response(body, headers=[("Transfer-Encoding", "chunked")],
                                         length=None)])
    assert result[3] == b"hello world"


def test_close_delimited_body_matches_default():
    result = _compare_raw([http_response(headers=[("Connection", "close")], length=None),
                           BODY[:300_000], 0.05, BODY[300_000:600_000]])
    assert result[3] == BODY[:600_000]


def _short_body_raises(server_url: str) -> None:
    session = requests.Session()
    geventperf.mount(session)
    assert _fetch(session, server_url) == ("error", ChunkedEncodingError)
    if URLLIB3_2:
        assert _fetch(requests.Session(), server_url) == ("error", ChunkedEncodingError)


def test_truncated_content_length_body_raises_like_default():
    with RawServer(lambda head: [http_response(BODY[:500], length=1000)]) as server:
        _short_body_raises(server.url)


def test_truncated_chunked_body_raises_like_default():
    body = chunked([BODY[:1000], BODY[1000:3000]])[:1500]
    result = _compare_raw([http_response(body, headers=[("Transfer-Encoding", "chunked")],
                                         length=None)])
    assert result == ("error", ChunkedEncodingError)


@pytest.mark.parametrize("size_line", [b"zz", b"1" * 70000, b""])
def test_malformed_chunk_size_raises_like_default(size_line):
    body = b"5\r\nhello\r\n" + size_line + b"\r\nabc\r\n0\r\n\r\n"
    result = _compare_raw([http_response(body, headers=[("Transfer-Encoding", "chunked")],
                                         length=None)])
    assert result == ("error", ChunkedEncodingError)


def test_negative_chunk_size_is_a_chunked_encoding_error():
    # requests' default adapter lets a bare ValueError("read length must be
    # non-negative") out of urllib3 here; we raise the error that names the framing.
    body = b"5\r\nhello\r\n-5\r\nabc\r\n0\r\n\r\n"
    with RawServer(lambda head: [http_response(body, length=None, headers=[
            ("Transfer-Encoding", "chunked")])]) as server:
        session = requests.Session()
        geventperf.mount(session)
        with pytest.raises(ChunkedEncodingError):
            session.get(server.url, timeout=10)


def test_bad_gzip_raises_like_default():
    result = _compare_raw([http_response(b"this is not gzip at all" * 100,
                                         headers=[("Content-Encoding", "gzip")])])
    assert result == ("error", ContentDecodingError)


def test_connection_reset_mid_body_raises_like_default():
    def reset(head):
        yield http_response(BODY[:1000], length=100_000)
        raise OSError("reset")  # RawServer closes the socket without the rest
    with RawServer(reset) as server:
        _short_body_raises(server.url)


@pytest.mark.parametrize("encoding,compress", [
    pytest.param("br", "brotli", id="br"),
    pytest.param("zstd", "zstandard", id="zstd"),
])
def test_optional_encodings_match_default(encoding, compress):
    module = pytest.importorskip(compress)
    data = module.compress(BODY[:500_000]) if encoding == "br" else \
        module.ZstdCompressor().compress(BODY[:500_000])
    result = _compare_raw([http_response(data, headers=[("Content-Encoding", encoding)])])
    if encoding in urllib3.response.HTTPResponse.CONTENT_DECODERS:
        assert result[3] == BODY[:500_000]
    else:  # urllib3 cannot decode it here: like requests, we hand out the raw body
        assert result[3] == data


# -- limits ------------------------------------------------------------------------------

def _never_sends_body(head):
    yield http_response(length=10_000_000)
    yield 30.0  # the body never comes: reading it would hang the test


def test_max_body_size_refuses_a_large_content_length_before_reading():
    with RawServer(_never_sends_body) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=1_000_000)
        with pytest.raises(geventperf.BodyTooLarge, match="10000000 bytes.*Content-Length"):
            session.get(server.url, timeout=20)


def _replace_raw(body: bytes):
    """A response hook that swaps ``raw`` for a plain file object, as recording and
    replaying tools do: requests' own ``content`` reads any file-like ``raw``."""
    def hook(response, **kwargs):
        response.raw.read()
        response.raw = io.BytesIO(body)
        return response
    return hook


def test_a_raw_replaced_by_a_file_object_is_read_as_requests_reads_it():
    script = [http_response(b"x" * 50_000, headers=[("Connection", "close")])]
    with RawServer(lambda head: script) as server:
        got = {}
        plain, mounted = requests.Session(), requests.Session()
        geventperf.mount(mounted)
        for name, session in (("default", plain), ("geventperf", mounted)):
            session.hooks["response"].append(_replace_raw(b"replaced " * 5000))
            got[name] = session.get(server.url).content
    assert got["geventperf"] == got["default"] == b"replaced " * 5000


def test_max_body_size_still_holds_for_a_replaced_raw():
    script = [http_response(b"x" * 100, headers=[("Connection", "close")])]
    with RawServer(lambda head: script) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=10_000)
        session.hooks["response"].append(_replace_raw(b"y" * 20_000))
        with pytest.raises(geventperf.BodyTooLarge, match="10000"):
            session.get(server.url)


def test_max_body_size_stops_a_chunked_body_and_drops_the_connection():
    piece = b"x" * 65536
    script = [http_response(headers=[("Transfer-Encoding", "chunked")], length=None)] + \
        [chunked([piece])[:-5] for _ in range(64)] + [b"0\r\n\r\n"]
    with RawServer(lambda head: script, keep_alive=True) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=1_000_000)
        with pytest.raises(geventperf.BodyTooLarge) as info:
            session.get(server.url)
        assert isinstance(info.value, requests.RequestException)
        assert info.value.response is not None
        # The next request needs a new connection: the half-read one was closed.
        geventperf.mount(session)
        assert len(session.get(server.url).content) == 64 * 65536
        assert server.connections == 2


_CLOSE = ("Connection", "close")


@pytest.mark.parametrize("body_size, reply", [
    (50_000, http_response(headers=[("Transfer-Encoding", "chunked"), _CLOSE], length=None)
     + chunked([b"x" * 50_000])),
    (200_000, http_response(headers=[("Transfer-Encoding", "chunked"), _CLOSE], length=None)
     + chunked([b"x" * 200_000])),
    (50_000, http_response(b"x" * 50_000, headers=[_CLOSE])),
    (200_000, http_response(b"x" * 200_000, headers=[_CLOSE])),
], ids=["chunked-read", "chunked-refused", "content-length-read", "content-length-refused"])
def test_a_body_under_max_body_size_leaves_no_reference_cycle(body_size, reply):
    # A cycle through the response keeps its connection's read buffer alive until the
    # cyclic collector runs, which may be many requests later: in a busy worker that
    # is memory growth nobody asked for.
    script = [reply]
    with RawServer(lambda head: script) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=100_000)

        def fetch() -> None:
            try:
                assert len(session.get(server.url).content) == body_size
            except geventperf.BodyTooLarge:
                assert body_size > 100_000

        fetch()  # warms up what is created once (the pool, lazy imports)
        gc.collect()
        gc.disable()
        try:
            for _ in range(CYCLE_PROBE_REQUESTS):
                fetch()
            unreachable = gc.collect()
        finally:
            gc.enable()
    assert unreachable == 0


def test_max_body_size_stops_a_gzip_bomb_by_its_decoded_size():
    bomb = gzip.compress(b"\0" * (200 * 1024 * 1024))  # ~200 KiB on the wire
    with RawServer(lambda head: [http_response(bomb, headers=[("Content-Encoding", "gzip")])]) \
            as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=8 * 1024 * 1024)
        tracemalloc.start()
        try:
            with pytest.raises(geventperf.BodyTooLarge):
                session.get(server.url)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        if URLLIB3_2:  # 1.26's decoders cannot bound what one piece expands to
            assert peak < 32 * 1024 * 1024  # the 200 MiB never existed in memory


def test_max_body_size_applies_to_streamed_bodies():
    with RawServer(lambda head: [http_response(BODY[:2_000_000], length=None,
                                               headers=[("Connection", "close")])]) as server:
        session = requests.Session()
        geventperf.mount(session, max_body_size=1_000_000)
        with session.get(server.url, stream=True) as r:
            with pytest.raises(geventperf.BodyTooLarge):
                for _ in r.iter_content(4096):
                    pass


def _trickle(head):
    yield http_response(length=1000)
    for _ in range(100):  # one byte every 0.1 s: 10 s for the whole body
        yield b"x"
        yield 0.1


def test_body_timeout_bounds_a_trickling_body():
    with RawServer(_trickle) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=0.5)
        # The socket read timeout (5 s) never fires: a byte comes every 0.1 s.
        with pytest.raises(geventperf.BodyTimeout, match="body_timeout=0.5") as info:
            session.get(server.url, timeout=5)
        assert isinstance(info.value, requests.exceptions.Timeout)


def test_body_timeout_bounds_a_streamed_trickling_body():
    with RawServer(_trickle) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=0.5)
        with session.get(server.url, timeout=5, stream=True) as r:
            with pytest.raises(geventperf.BodyTimeout):
                for _ in r.iter_content(1):
                    pass


def test_socket_read_timeout_still_maps_like_default():
    def stall(head):
        yield http_response(b"abc", length=10)
        yield 3.0
    with RawServer(stall) as server:
        session = requests.Session()
        geventperf.mount(session, body_timeout=30)
        with pytest.raises(requests.ConnectionError) as info:
            session.get(server.url, timeout=0.3)
        assert not isinstance(info.value, geventperf.BodyTimeout)


@pytest.mark.parametrize("kwargs,message", [
    ({"chunk_size": 0}, "chunk_size"), ({"chunk_size": 1.5}, "chunk_size"),
    ({"max_body_size": -1}, "max_body_size"), ({"body_timeout": 0}, "body_timeout"),
    ({"body_timeout": "5"}, "body_timeout"), ({"yield_every": 0}, "yield_every"),
])
def test_bad_options_are_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        geventperf.GeventAdapter(**kwargs)


# -- plumbing ------------------------------------------------------------------------------

def test_adapter_and_session_pickle(wsgi):
    adapter = geventperf.GeventAdapter(chunk_size=65536, max_body_size=10 ** 7,
                                       body_timeout=3.0, yield_every=10 ** 6, pool_maxsize=7,
                                       pool_kwargs={"socket_options": []})
    clone = pickle.loads(pickle.dumps(adapter))
    assert (clone.chunk_size, clone.max_body_size, clone.body_timeout, clone.yield_every) == \
        (65536, 10 ** 7, 3.0, 10 ** 6)
    assert clone._pool_maxsize == 7 and clone.pool_kwargs == {"socket_options": []}
    session = requests.Session()
    session.mount("http://", clone)
    r = pickle.loads(pickle.dumps(session)).get(f"{wsgi.url}/size/1000")
    assert r.content == BODY[:1000]
    assert pickle.loads(pickle.dumps(r)).content == BODY[:1000]


def test_pool_kwargs_reach_pool_and_proxy_managers(wsgi):
    options = [(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)]
    adapter = geventperf.GeventAdapter(pool_kwargs={"socket_options": options})
    assert adapter.poolmanager.connection_pool_kw["socket_options"] == options
    proxy = adapter.proxy_manager_for("http://127.0.0.1:9")
    assert proxy.connection_pool_kw["socket_options"] == options
    session = requests.Session()
    session.mount("http://", adapter)
    with session.get(f"{wsgi.url}/size/1000", stream=True) as r:
        sock = r.raw._connection.sock
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) >= 1 << 20


def test_read_counters_are_published_only_to_listeners(wsgi):
    session = requests.Session()
    geventperf.mount(session, chunk_size=65536)
    records = []
    readstats.add_sink(records.append)
    try:
        session.get(f"{wsgi.url}/size/{len(BODY)}")
    finally:
        readstats.remove_sink(records.append)
    session.get(f"{wsgi.url}/size/1000")  # nobody listens: nothing recorded
    [record] = records
    assert record["bytes"] == len(BODY) and record["framing"] == "content-length"
    assert record["largest_read"] <= 65536
    assert record["reads"] >= len(BODY) // 65536
    assert record["reads_waited"] is None  # a blocking socket waits in the kernel
    assert record["host"] == f"127.0.0.1:{wsgi.port}"


# -- under gevent.monkey.patch_all(), in a fresh process ---------------------------------

PATCHED_SCRIPT = textwrap.dedent("""
    import gevent.monkey; gevent.monkey.patch_all()
    import gzip, os, sys, gevent, requests, geventperf
    from geventperf import readstats
    port = int(sys.argv[1])
    url = f"http://127.0.0.1:{port}"
    size = 32 * 1024 * 1024
    default, ours = requests.Session(), requests.Session()
    geventperf.mount(ours)
    for path in ("/big", "/gzip", "/chunked"):
        assert ours.get(url + path).content == default.get(url + path).content, path
    records = []
    readstats.add_sink(records.append)
    assert len(ours.get(url + "/big").content) == size
    readstats.remove_sink(records.append)
    assert isinstance(records[0]["reads_waited"], int), records
    # yield_every: a ticker greenlet runs while one greenlet reads a fast socket.
    ticks = []
    def ticker():
        while True:
            ticks.append(1)
            gevent.sleep(0)
    t = gevent.spawn(ticker)
    gevent.sleep(0)
    fair = requests.Session()
    geventperf.mount(fair, yield_every=64 * 1024)
    before = len(ticks)
    assert len(fair.get(url + "/big").content) == size
    fair_ticks = len(ticks) - before
    t.kill()
    r = records[0]
    print("OK", fair_ticks, r["reads"], r["reads_waited"], r["bytes"], r["largest_read"],
          r["chunk_size"], r["framing"])
""")


def _patched_app_script_server():
    big = os.urandom(32 * 1024 * 1024)
    gz = gzip.compress(big[:1_000_000])

    def respond(head):
        path = head.split(b" ", 2)[1]
        if path == b"/gzip":
            return [http_response(gz, headers=[("Content-Encoding", "gzip")])]
        if path == b"/chunked":
            return [http_response(chunked([big[i:i + 999] for i in range(0, 300_000, 999)]),
                                  headers=[("Transfer-Encoding", "chunked")], length=None)]
        return [http_response(big)]
    return RawServer(respond, keep_alive=True)


def test_under_monkey_patching(tmp_path):
    script = tmp_path / "patched.py"
    script.write_text(PATCHED_SCRIPT)
    with _patched_app_script_server() as server:
        out = subprocess.run([sys.executable, str(script), str(server.port)],
                             capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    word, fair_ticks, reads, waited, body_bytes, largest, chunk_size, framing = \
        out.stdout.split()
    assert word == "OK"
    # 32 MiB with a yield every 64 KiB is 512 yields, each letting the ticker run once;
    # without yield_every the ticker runs only when a read waits (a few dozen times).
    assert int(fair_ticks) >= 512
    # The read record of the 32 MiB body: every byte counted, no socket read larger than
    # the default chunk_size, so at least size / chunk_size reads, of which only some
    # found the socket empty.
    size = 32 * 1024 * 1024
    assert (int(body_bytes), int(chunk_size), framing) == \
        (size, DEFAULT_CHUNK_SIZE, "content-length")
    assert 0 < int(largest) <= int(chunk_size)
    assert int(reads) >= size // int(chunk_size)
    assert int(waited) <= int(reads)
