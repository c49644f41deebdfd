"""Where one small request's time goes: requests' Session layer, the adapter, urllib3,
http.client and the body read, at 1/16/64 KiB with 35 and 500 environment variables.

Each layer is timed in the same rounds as the others (every round runs every variant
once, in rotating order, so a noisy machine hits them alike) and reported as the
median over rounds, in microseconds:

* ``total``: ``Session.get(url).content`` with requests' default adapter;
* ``prepare``, ``env_merge``: ``Session.prepare_request`` and
  ``Session.merge_environment_settings`` timed alone (no I/O; the environment scan is
  in ``env_merge``);
* ``send_rest``: ``Session.send`` less the adapter's send and body read: cookies,
  hooks, the redirect check;
* ``lookup_certs``: the adapter's connection lookup, CA bundle checks, request URL
  and headers, timed alone;
* ``adapter_rest``: ``HTTPAdapter.send`` less urllib3's ``urlopen`` and the lookup:
  mostly the response build;
* ``urllib3``: ``urlopen`` (to the headers) less http.client's request and response
  head; ``http_client``: http.client's request and head, the socket round trip;
* ``body``: ``Response.content`` of the adapter's response (default / GeventAdapter);
* ``fast_total``: ``geventperf.Session().get(url).content``, and ``x_default``:
  ``total / fast_total``;
* ``fast_prepare``, ``fast_env_merge``, ``fast_lookup_certs``: the I/O-free pieces
  above, timed alone on the fast path (``geventperf.Session`` and its adapter).

Each figure is given twice: in this thread's CPU time (what the client spends; other
processes on a loaded machine barely move it) and in wall time.
``python -m benchmarks.bench_layers [ROUNDS]`` prints both tables (Markdown) of one
run.
"""

from __future__ import annotations

if __name__ == "__main__":   # as the benchmarks run (conftest.py): patched before imports
    from gevent import monkey
    monkey.patch_all()

import http.client  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

import pytest  # noqa: E402
import requests  # noqa: E402
import urllib3  # noqa: E402
from urllib3.util.retry import Retry  # noqa: E402

import geventperf  # noqa: E402
from benchmarks.envsize import ENV_SIZES, environment_of  # noqa: E402

KIB = 1024
SIZES = {"1KiB": KIB, "16KiB": 16 * KIB, "64KiB": 64 * KIB}
# Rounds per configuration: each round is ~8 requests; 300 give medians that move by
# a few percent between runs on a loaded 2-core machine.
ROUNDS = 300
QUICK_ROUNDS = 5
# Calls per timing of the I/O-free pieces (prepare, env_merge, lookup_certs).
LOOP_CALLS = 200
LAYERS = ("total", "prepare", "env_merge", "send_rest", "lookup_certs", "adapter_rest",
          "urllib3", "http_client", "body_default", "body_gevent", "fast_total", "x_default",
          "fast_prepare", "fast_env_merge", "fast_lookup_certs")


class _Samples:
    """Wall (perf_counter) and this thread's CPU (thread_time) seconds per key: CPU time
    is what the client spends, and what other processes on a loaded machine do not
    inflate; wall time also holds the server's share and the scheduler's."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def start(self) -> tuple[float, float]:
        return time.perf_counter(), time.thread_time()

    def stop(self, key: str, started: tuple[float, float], calls: int = 1) -> tuple:
        now = self.start()
        self.wall.setdefault(key, []).append((now[0] - started[0]) / calls)
        self.cpu.setdefault(key, []).append((now[1] - started[1]) / calls)
        return now

    def clear(self) -> None:
        self.wall.clear()
        self.cpu.clear()

    def medians_us(self, cpu: bool) -> dict[str, float]:
        data = self.cpu if cpu else self.wall
        return {key: statistics.median(values) * 1e6 for key, values in data.items()}


def _layers(m: dict[str, float]) -> dict[str, float]:
    return {
        "total": m["total"], "prepare": m["prepare"], "env_merge": m["env_merge"],
        "send_rest": m["session_send"] - m["send_default"] - m["body_default"],
        "lookup_certs": m["lookup_certs"],
        "adapter_rest": m["send_default"] - m["urlopen"] - m["lookup_certs"],
        "urllib3": m["urlopen"] - m["http_client"], "http_client": m["http_client"],
        "body_default": m["body_default"], "body_gevent": m["body_gevent"],
        "fast_total": m["fast_total"], "x_default": m["total"] / m["fast_total"],
        "fast_prepare": m["fast_prepare"], "fast_env_merge": m["fast_env_merge"],
        "fast_lookup_certs": m["fast_lookup_certs"],
    }


def measure(base: str, size: int, rounds: int,
            loop_calls: int = LOOP_CALLS) -> dict[str, dict[str, float]]:
    """Median microseconds per layer for a body of *size* bytes (see module doc), as
    {"cpu": {...}, "wall": {...}}."""
    url = f"{base}/{size}"
    parts = urlsplit(base)
    session = requests.Session()
    fast = geventperf.Session()
    prepared = session.prepare_request(requests.Request("GET", url))
    settings = session.merge_environment_settings(url, {}, None, None, None)
    send_kwargs = {"timeout": None, "allow_redirects": True, **settings}
    adapter_kwargs = {k: v for k, v in send_kwargs.items() if k != "allow_redirects"}
    default_adapter = session.get_adapter(url)
    fast_adapter = fast.get_adapter(url)
    gevent_adapter = geventperf.GeventAdapter()
    headers = dict(prepared.headers)
    pool = urllib3.HTTPConnectionPool(parts.hostname, parts.port, maxsize=1)
    retries = Retry(0, read=False)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    samples = _Samples()

    def whole(key, get):
        started = samples.start()
        assert len(get(url).content) == size
        samples.stop(key, started)

    def session_send():
        started = samples.start()
        assert len(session.send(prepared, **send_kwargs).content) == size
        samples.stop("session_send", started)

    def adapter_round(adapter, send_key, body_key):
        started = samples.start()
        response = adapter.send(prepared, **adapter_kwargs)
        sent = samples.stop(send_key, started)
        assert len(response.content) == size
        samples.stop(body_key, sent)

    def urllib3_round():
        started = samples.start()
        response = pool.urlopen("GET", prepared.path_url, headers=headers, redirect=False,
                                assert_same_host=False, preload_content=False,
                                decode_content=False, retries=retries)
        samples.stop("urlopen", started)
        assert len(response.read()) == size
        response.release_conn()

    def http_client_round():
        started = samples.start()
        conn.request("GET", prepared.path_url, headers=headers)
        response = conn.getresponse()
        samples.stop("http_client", started)
        assert len(response.read()) == size

    def loops():
        proxies = settings["proxies"]
        verify = settings["verify"]

        def lookup(adapter):
            c = adapter.get_connection_with_tls_context(prepared, verify, proxies)
            adapter.cert_verify(c, url, verify, None)
            adapter.request_url(prepared, proxies)
            adapter.add_headers(prepared)
        for key, fn in (("prepare", lambda: session.prepare_request(
                            requests.Request("GET", url))),
                        ("env_merge", lambda: session.merge_environment_settings(
                            url, {}, None, None, None)),
                        ("lookup_certs", lambda: lookup(default_adapter)),
                        ("fast_prepare", lambda: fast.prepare_request(
                            requests.Request("GET", url))),
                        ("fast_env_merge", lambda: fast.merge_environment_settings(
                            url, {}, None, None, None)),
                        ("fast_lookup_certs", lambda: lookup(fast_adapter))):
            started = samples.start()
            for _ in range(loop_calls):
                fn()
            samples.stop(key, started, loop_calls)

    variants = [
        lambda: whole("total", session.get),
        lambda: whole("fast_total", fast.get),
        session_send,
        lambda: adapter_round(default_adapter, "send_default", "body_default"),
        lambda: adapter_round(gevent_adapter, "send_gevent", "body_gevent"),
        urllib3_round,
        http_client_round,
    ]
    for variant in variants:   # warm every connection and cache
        variant()
    samples.clear()
    for index in range(rounds):
        shift = index % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            variant()
        if index % 10 == 0 or rounds < 10:
            loops()
    for closeable in (session, fast, gevent_adapter, pool, conn):
        closeable.close()
    return {"cpu": _layers(samples.medians_us(cpu=True)),
            "wall": _layers(samples.medians_us(cpu=False))}


@pytest.mark.parametrize("env_size", ENV_SIZES)
@pytest.mark.parametrize("size_name", list(SIZES))
def test_layers(benchmark, body_server, quick, size_name, env_size):
    disabled = getattr(benchmark, "disabled", False)   # the suite's smoke pass: once
    rounds = 1 if disabled else QUICK_ROUNDS if quick else ROUNDS
    benchmark.group = "layers of one small request (extra: median us per layer)"
    with environment_of(env_size) as actual:
        layers = benchmark.pedantic(
            measure, args=(body_server, SIZES[size_name], rounds, 2 if disabled else LOOP_CALLS),
            rounds=1, iterations=1)
    benchmark.extra_info["env_vars"] = actual
    for clock in ("cpu", "wall"):
        for name in LAYERS:
            value = layers[clock][name]
            benchmark.extra_info[f"{clock}_{name}"] = round(value, 2 if name == "x_default"
                                                            else 1)
    assert layers["wall"]["total"] > 0 and layers["wall"]["fast_total"] > 0


def main() -> None:
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.Popen([sys.executable, os.path.join(here, "bodyserver.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{int(proc.stdout.readline())}"
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    columns = [(size_name, env) for size_name in SIZES for env in ENV_SIZES]
    results = {}
    for size_name, env in columns:
        with environment_of(env):
            results[(size_name, env)] = measure(base, SIZES[size_name], rounds)
    proc.stdin.close()
    proc.wait()
    for clock in ("cpu", "wall"):
        print(f"\n| layer ({clock}, median µs) | "
              + " | ".join(f"{s}, {e} vars" for s, e in columns) + " |")
        print("|---|" + "---:|" * len(columns))
        for name in LAYERS:
            cells = [f"{results[c][clock][name]:.{2 if name == 'x_default' else 0}f}"
                     for c in columns]
            print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
