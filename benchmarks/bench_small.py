"""Small requests: ``Session.get(url).content`` at 1, 16 and 64 KiB, with 35 and with 500
environment variables, against requests' default adapter in the same seconds.

Rows per (size, environment), each a client fetching the same bytes from the same
server process:

* ``requests default``: ``requests.Session().get(url).content`` (the baseline);
* ``GeventAdapter``: ``geventperf.mount(session)``;
* ``geventperf.Session``: the session fast path (``mount(..., fast_path=True)``);
* ``urllib3``: ``PoolManager.request(...).data``;
* ``geventhttpclient``: ``HTTPClient.get(path).read()``.

Every timed request of a row is paired with a request of the baseline made just
before it (benchmarks/interleave.py), so a loaded machine hits both alike.  Extras:
``x_default`` is the median over pairs of default time / row time (wall clock, >1 is
faster); ``cpu_x_default`` the same in this thread's CPU time, which other processes
on the machine barely move; ``cpu_us`` the row's median CPU microseconds per request.
"""

from __future__ import annotations

import statistics
import time
from urllib.parse import urlsplit

import pytest
import requests
import urllib3

import geventperf
from benchmarks.envsize import ENV_SIZES, environment_of

KIB = 1024
SIZES = {"1KiB": KIB, "16KiB": 16 * KIB, "64KiB": 64 * KIB}
# Pairs per row: enough for medians that resolve a few percent on a loaded machine.
PAIRS = 400
QUICK_PAIRS = 10


def _default(base):
    session = requests.Session()
    return lambda path: session.get(base + path).content


def _gevent_adapter(base):
    session = requests.Session()
    geventperf.mount(session)
    return lambda path: session.get(base + path).content


def _fast_session(base):
    session = geventperf.Session()
    return lambda path: session.get(base + path).content


def _urllib3(base):
    pool = urllib3.PoolManager()
    return lambda path: pool.request("GET", base + path).data


def _geventhttpclient(base):
    import geventhttpclient
    parts = urlsplit(base)
    client = geventhttpclient.HTTPClient(parts.hostname, parts.port, concurrency=1,
                                         network_timeout=60)

    def get(path):
        response = client.get(path)
        try:
            return response.read()
        finally:
            response.release()
    return get


CLIENTS = {
    "requests default": _default,
    "GeventAdapter": _gevent_adapter,
    "geventperf.Session": _fast_session,
    "urllib3": _urllib3,
    "geventhttpclient": _geventhttpclient,
}


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("env_size", ENV_SIZES)
@pytest.mark.parametrize("size_name", list(SIZES))
def test_small_get(benchmark, body_server, quick, size_name, env_size, client):
    size = SIZES[size_name]
    path = f"/{size}"
    with environment_of(env_size) as actual:
        get, baseline = CLIENTS[client](body_server), _default(body_server)
        assert get(path) == baseline(path)   # warm both; the same bytes
        partner_wall: list[float] = []
        partner_cpu: list[float] = []
        cpu: list[float] = []

        def partner():
            wall0, cpu0 = time.perf_counter(), time.thread_time()
            baseline(path)
            partner_cpu.append(time.thread_time() - cpu0)
            partner_wall.append(time.perf_counter() - wall0)

        def measured():
            cpu0 = time.thread_time()
            body = get(path)
            cpu.append(time.thread_time() - cpu0)
            return body

        benchmark.group = f"Session.get().content {size_name}, {env_size} env vars"
        benchmark.extra_info["baseline"] = client == "requests default"
        body = benchmark.pedantic(measured, setup=partner,
                                  rounds=QUICK_PAIRS if quick else PAIRS, iterations=1)
    assert len(body) == size
    benchmark.extra_info["env_vars"] = actual
    if benchmark.stats is not None and cpu:   # None under --benchmark-disable
        walls = benchmark.stats.stats.data
        benchmark.extra_info["x_default"] = round(statistics.median(
            p / m for p, m in zip(partner_wall, walls)), 2)
        benchmark.extra_info["cpu_x_default"] = round(statistics.median(
            p / m for p, m in zip(partner_cpu, cpu) if m > 0), 2)
        benchmark.extra_info["cpu_us"] = round(statistics.median(cpu) * 1e6, 1)


# Batches per environment size in the env-cost rows, alternating 35 and 500 variables.
ENV_BATCHES = 20
QUICK_ENV_BATCHES = 2
ENV_BATCH_REQUESTS = 50


@pytest.mark.parametrize("client", ["requests default", "geventperf.Session"])
def test_env_size_cost(benchmark, body_server, quick, client):
    """What 500 environment variables cost against 35, same client, same run: batches of
    1 KiB requests alternate between the two sizes.  Extras: ``cpu_500_vs_35`` and
    ``wall_500_vs_35``, median per-request time with 500 over with 35 (1.0: no cost)."""
    get = CLIENTS[client](body_server)
    path = f"/{KIB}"
    small, large = ENV_SIZES
    few = quick or getattr(benchmark, "disabled", False)   # the suite's smoke pass
    cpu: dict[int, list[float]] = {small: [], large: []}
    wall: dict[int, list[float]] = {small: [], large: []}

    def batches():
        for index in range(QUICK_ENV_BATCHES if few else ENV_BATCHES):
            for size in (small, large) if index % 2 else (large, small):
                with environment_of(size):
                    get(path)   # the first request after a change re-reads the environment
                    for _ in range(ENV_BATCH_REQUESTS):
                        wall0, cpu0 = time.perf_counter(), time.thread_time()
                        assert len(get(path)) == KIB
                        cpu[size].append(time.thread_time() - cpu0)
                        wall[size].append(time.perf_counter() - wall0)

    benchmark.group = f"cost of {large} vs {small} environment variables, 1 KiB requests"
    benchmark.extra_info["baseline"] = client == "requests default"
    benchmark.pedantic(batches, rounds=1, iterations=1)
    benchmark.extra_info["cpu_500_vs_35"] = round(
        statistics.median(cpu[large]) / statistics.median(cpu[small]), 3)
    benchmark.extra_info["wall_500_vs_35"] = round(
        statistics.median(wall[large]) / statistics.median(wall[small]), 3)
