"""Body read throughput: GeventAdapter against what users would pick instead.

Rows per body size, all reading the same bytes from the same server process, under
gevent.monkey.patch_all() (see conftest.py):

* requests' default adapter, ``Session.get(url).content`` (the baseline);
* GeventAdapter, ``Session.get(url).content``;
* urllib3 ``raw.read()`` of a ``preload_content=False`` response;
* geventhttpclient ``HTTPClient.get(path).read()``;
* a raw gevent socket reading the body into a fresh buffer: the practical limit.

Peak memory of the 32 MiB case is measured once per row with tracemalloc, outside the
timed rounds, and reported as a multiple of the body size.
"""

from __future__ import annotations

import socket
import tracemalloc
from typing import Callable
from urllib.parse import urlsplit

import pytest
import requests
import urllib3

import geventperf
from benchmarks.interleave import interleaved

KIB = 1024
MIB = 1024 * KIB
SIZES = {"1KiB": KIB, "64KiB": 64 * KIB, "1MiB": MIB, "32MiB": 32 * MIB}
QUICK_SIZES = ("1KiB", "1MiB")
# Peak memory is only interesting where the body dwarfs everything else.
PEAK_MEMORY_SIZE = "32MiB"


def _requests_default(base: str) -> Callable[[str], bytes]:
    session = requests.Session()
    return lambda path: session.get(base + path).content


def _gevent_adapter(base: str) -> Callable[[str], bytes]:
    session = requests.Session()
    geventperf.mount(session)
    return lambda path: session.get(base + path).content


def _urllib3_raw_read(base: str) -> Callable[[str], bytes]:
    pool = urllib3.PoolManager()

    def get(path: str) -> bytes:
        response = pool.request("GET", base + path, preload_content=False)
        data = response.read()
        response.release_conn()
        return data
    return get


def _geventhttpclient(base: str) -> Callable[[str], bytes]:
    geventhttpclient = pytest.importorskip("geventhttpclient")
    parts = urlsplit(base)
    client = geventhttpclient.HTTPClient(parts.hostname, parts.port, concurrency=1,
                                         network_timeout=60)

    def get(path: str) -> bytes:
        response = client.get(path)
        try:
            return response.read()
        finally:
            response.release()
    return get


def _gevent_socket(base: str) -> Callable[[str], bytes]:
    """Keep-alive socket, minimal head parsing, body read into a fresh bytearray."""
    parts = urlsplit(base)
    sock = socket.create_connection((parts.hostname, parts.port))  # gevent's (patched)

    def get(path: str) -> bytearray:
        sock.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        head, rest = head.split(b"\r\n\r\n", 1)
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        body = bytearray(length)
        view = memoryview(body)
        view[:len(rest)] = rest
        filled = len(rest)
        while filled < length:
            filled += sock.recv_into(view[filled:])
        return body
    return get


CLIENTS = {
    "requests default": _requests_default,
    "GeventAdapter": _gevent_adapter,
    "urllib3 raw.read()": _urllib3_raw_read,
    "geventhttpclient": _geventhttpclient,
    "gevent socket (limit)": _gevent_socket,
}


def _peak_memory_ratio(get: Callable[[str], bytes], path: str, size: int) -> float:
    tracemalloc.start()
    try:
        get(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / size


@pytest.mark.parametrize("size_name", list(SIZES))
@pytest.mark.parametrize("client", list(CLIENTS))
def test_read_body(benchmark, body_server, quick, client, size_name):
    if quick and size_name not in QUICK_SIZES:
        pytest.skip("--quick measures only " + ", ".join(QUICK_SIZES))
    size = SIZES[size_name]
    get = CLIENTS[client](body_server)
    path = f"/{size}"
    assert len(get(path)) == size  # warm the connection; check the body is whole
    benchmark.group = f"read body {size_name}"
    benchmark.extra_info["baseline"] = client == "requests default"
    if size_name == PEAK_MEMORY_SIZE:
        benchmark.extra_info["peak_mem_x_body"] = round(_peak_memory_ratio(get, path, size), 2)
    benchmark.extra_info["MB_s"] = 0.0
    result = benchmark(get, path)
    assert len(result) == size
    if benchmark.stats is not None:  # None under --benchmark-disable
        benchmark.extra_info["MB_s"] = round(size / benchmark.stats.stats.median / 1e6, 1)


@pytest.mark.parametrize("client", ["requests default", "GeventAdapter"])
def test_read_chunked_body(benchmark, body_server, quick, client):
    size = MIB if quick else 32 * MIB
    get = CLIENTS[client](body_server)
    path = f"/chunked/{size}"
    assert len(get(path)) == size
    benchmark.group = "read chunked body " + ("1MiB" if quick else "32MiB")
    benchmark.extra_info["baseline"] = client == "requests default"
    assert len(benchmark(get, path)) == size


# Enough 1 KiB pairs for a median that resolves ~1 % on a noisy machine (~1 s).
SMALL_PAIRS = 1500


def test_small_body_adapter_vs_default_interleaved(benchmark, body_server, quick):
    """The adapter's fixed cost per request, against requests' default in the same
    seconds: each adapter request is timed right after a default one."""
    adapter, default = _gevent_adapter(body_server), _requests_default(body_server)
    path = f"/{KIB}"
    assert adapter(path) == default(path)
    benchmark.group = "read body 1KiB, interleaved pairs"
    _, ratio = interleaved(benchmark, 20 if quick else SMALL_PAIRS,
                           lambda: adapter(path), lambda: default(path))
    if ratio is not None:
        # adapter_vs_default: median over pairs of default time / adapter time (>1 faster)
        benchmark.extra_info["adapter_vs_default"] = round(1 / ratio, 3)
