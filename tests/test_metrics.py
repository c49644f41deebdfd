"""geventperf.metrics: a running tracer's figures, scraped over real HTTP on 127.0.0.1
and parsed with prometheus_client's own parser; OpenTelemetry through the SDK's
in-memory reader.

The workload is paused (its greenlets finished) while a scrape runs, so the workers'
figures cannot change between the snapshots taken just before and just after it: the
scrape must equal them exactly.  Figures that do move during a scrape (the hub, the
scraping greenlets, totals) must lie between the two snapshots.
"""

from __future__ import annotations

import copy
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

import gevent
import gevent.pywsgi
import pytest
import requests

import geventperf
import geventperf.metrics
from geventperf import latency
from geventperf.metrics import figures as _figures
from tests import profile_factory

prometheus_client = pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

# Rounds of each worker per workload run: enough switches that every worker waits for
# events and queues behind the others; about 0.1 s of work.
ROUNDS = 20
# The hog's one slice of CPU work, well over the tracer's block_threshold below, while
# the crunchers are ready: a loop-blocked finding (or blocking-call, if the machine
# took the CPU away for most of it).
HOG_CPU_S = 0.03
BLOCK_THRESHOLD_S = 0.005
HTTP_TIMEOUT_S = 30

PER_NAME = {"cpu": "cpu_s", "run": "run_s", "event_wait": "event_wait_s",
            "ready_wait": "ready_wait_s"}


def sleeper(rounds: int) -> None:
    for _ in range(rounds):
        gevent.sleep(0.001)  # event wait: a timer


def cruncher(rounds: int) -> None:
    for _ in range(rounds):
        sum(range(20_000))
        gevent.sleep(0)  # ready at once, then queues behind the other cruncher


def hog() -> None:
    t0 = time.thread_time()
    while time.thread_time() - t0 < HOG_CPU_S:
        pass


def _name(func: Any) -> str:
    return f"{func.__module__}.{func.__qualname__}"  # how the tracer names a spawn


WORKERS = [_name(f) for f in (sleeper, cruncher)]


def run_workload(with_hog: bool = False) -> None:
    jobs = [gevent.spawn(sleeper, ROUNDS), gevent.spawn(cruncher, ROUNDS),
            gevent.spawn(cruncher, ROUNDS)]
    if with_hog:
        jobs.append(gevent.spawn(hog))
    gevent.joinall(jobs, raise_error=True)


# -- reading both sides ---------------------------------------------------------------

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def parse(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def name_series(samples: Samples, key: str) -> dict[str, float]:
    metric = f"geventperf_greenlet_{key}_seconds_total"
    return {dict(labels)["name"]: v for (n, labels), v in samples.items() if n == metric}


def by_name(profile: geventperf.Profile) -> dict[str, dict[str, float]]:
    """Per-name sums computed here from the profile's rows (not by geventperf.metrics)."""
    out: dict[str, dict[str, float]] = {}
    for g in profile.greenlets:
        name = g.name.split(" [")[0]  # a folded row: "name [N finished greenlets folded]"
        row = out.setdefault(name, {})
        for key, attr in PER_NAME.items():
            if getattr(g, attr) is not None:
                row[key] = row.get(key, 0.0) + getattr(g, attr)
    return out


def cumulative(profile: geventperf.Profile) -> list[int]:
    counts = profile.ready_latency["overall"]["counts"]
    return [sum(counts[:i + 1]) for i in range(len(counts))]


def ready_sum(profile: geventperf.Profile) -> float:
    return sum(g.ready_wait_s for g in profile.greenlets if g.ready_wait_s is not None)


def check_between(samples: Samples, before: geventperf.Profile,
                  after: geventperf.Profile) -> None:
    """Every scraped figure lies between two snapshots taken around the scrape."""
    def between(metric: str, lo: float, hi: float, labels: tuple = ()) -> None:
        value = samples[(metric, labels)]
        assert lo <= value <= hi, (metric, labels, lo, value, hi)

    between("geventperf_traced_seconds_total", before.duration_s, after.duration_s)
    between("geventperf_switches_total", before.switches, after.switches)
    between("geventperf_hub_idle_seconds_total", before.hub["idle_s"], after.hub["idle_s"])
    between("geventperf_hub_polls_total", before.hub["polls"], after.hub["polls"])
    lo, hi = cumulative(before), cumulative(after)
    for i, bound in enumerate(_figures.BUCKET_BOUNDS):
        between("geventperf_ready_wait_seconds_bucket", lo[i], hi[i], (("le", bound),))
    count = samples[("geventperf_ready_wait_seconds_count", ())]
    assert count == samples[("geventperf_ready_wait_seconds_bucket", (("le", "+Inf"),))]
    between("geventperf_ready_wait_seconds_count", before.ready_latency["overall"]["n"],
            after.ready_latency["overall"]["n"])
    between("geventperf_ready_wait_seconds_sum", ready_sum(before), ready_sum(after))

    old, new = by_name(before), by_name(after)
    for key in PER_NAME:
        scraped = name_series(samples, key)
        assert set(scraped) <= set(new), (key, set(scraped) - set(new))
        for name, value in scraped.items():
            assert old.get(name, {}).get(key, 0.0) <= value <= new[name][key], (key, name)
        for name in WORKERS:  # finished: frozen, so exactly the snapshots' figure
            assert old[name][key] == new[name][key] == scraped[name], (key, name)

    for f in (before, after):
        assert not f.meta.get("tracing_aborted")
    kinds = {dict(labels)["kind"]: v for (n, labels), v in samples.items()
             if n == "geventperf_findings"}
    assert set(kinds) >= set(_figures.FINDING_KINDS)
    for kind, value in kinds.items():
        counts = {sum(f.kind == kind for f in p.findings) for p in (before, after)}
        assert value in counts, (kind, value, counts)


# -- servers ----------------------------------------------------------------------------

@contextmanager
def in_loop_server(registry: Any) -> Iterator[str]:
    """The metrics app on gevent's WSGI server in this thread's loop: the scrape is a
    greenlet of the traced thread, as in the README's example."""
    server = gevent.pywsgi.WSGIServer(("127.0.0.1", 0),
                                      prometheus_client.make_wsgi_app(registry), log=None)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/metrics"
    finally:
        server.stop(timeout=1)


def scrape_from_thread(url: str) -> Samples:
    """GET *url* from another OS thread (the hub's threadpool): the test process is not
    monkey-patched, and requests would block the loop that serves the scrape."""
    resp = gevent.get_hub().threadpool.apply(requests.get, (url,),
                                             {"timeout": HTTP_TIMEOUT_S})
    resp.raise_for_status()
    assert resp.headers["Content-Type"].startswith("text/plain")
    return parse(resp.text)


# -- Prometheus over HTTP ---------------------------------------------------------------

def test_scrape_in_the_loop_matches_the_snapshots_and_counters_grow():
    registry = prometheus_client.CollectorRegistry()
    with geventperf.Tracer(block_threshold=BLOCK_THRESHOLD_S) as tracer:
        geventperf.metrics.register(tracer, registry)
        with in_loop_server(registry) as url:
            run_workload(with_hog=True)
            before = tracer.snapshot(slices=False)
            first = scrape_from_thread(url)
            after = tracer.snapshot(slices=False)
            check_between(first, before, after)

            hurt = (first[("geventperf_findings", (("kind", "loop-blocked"),))]
                    + first[("geventperf_findings", (("kind", "blocking-call"),))])
            assert hurt >= 1, [f.kind for f in after.findings]

            run_workload()
            before = tracer.snapshot(slices=False)
            second = scrape_from_thread(url)
            after = tracer.snapshot(slices=False)
            check_between(second, before, after)
    # The sleeper waits for timers, the crunchers queue behind each other.
    grows = {_name(sleeper): ("cpu", "run", "event_wait"),
             _name(cruncher): ("cpu", "run", "ready_wait")}
    for name, keys in grows.items():
        for key in keys:
            assert name_series(second, key)[name] > name_series(first, key)[name], (key, name)
    for metric in ("geventperf_switches_total", "geventperf_traced_seconds_total",
                   "geventperf_ready_wait_seconds_count", "geventperf_hub_polls_total"):
        assert second[(metric, ())] > first[(metric, ())], metric


def test_scrape_from_prometheus_clients_own_server_thread():
    """start_http_server serves from an OS thread of its own: the snapshot is taken in
    another thread than the traced one."""
    registry = prometheus_client.CollectorRegistry()
    with geventperf.Tracer() as tracer:
        geventperf.metrics.register(tracer, registry)
        server, thread = prometheus_client.start_http_server(0, addr="127.0.0.1",
                                                             registry=registry)
        try:
            url = f"http://127.0.0.1:{server.server_port}/metrics"
            run_workload()
            before = tracer.snapshot(slices=False)
            resp = requests.get(url, timeout=HTTP_TIMEOUT_S)  # blocks this thread's loop
            after = tracer.snapshot(slices=False)
        finally:
            server.shutdown()
            server.server_close()
            thread.join(HTTP_TIMEOUT_S)
    resp.raise_for_status()
    samples = parse(resp.text)
    for key in PER_NAME:
        scraped = name_series(samples, key)
        for name in WORKERS:
            assert by_name(before)[name][key] == by_name(after)[name][key] == scraped[name]
    assert samples[("geventperf_switches_total", ())] == before.switches == after.switches
    assert samples[("geventperf_ready_wait_seconds_count", ())] == \
        before.ready_latency["overall"]["n"]


# Scrapes from another thread while the loop keeps spawning, switching and finishing
# greenlets: enough that each one overlaps that work many times.
CONCURRENT_SCRAPES = 5


def test_scrapes_from_another_thread_while_the_loop_works():
    """The snapshot reads the tracer's tables while the traced thread changes them
    (the GIL passes between the two): every scrape must succeed, parse, and never see
    a counter go down."""
    registry = prometheus_client.CollectorRegistry()
    scrapes: list[Samples] = []
    failures: list[str] = []

    def scraper(url: str) -> None:
        with requests.Session() as session:
            while len(scrapes) < CONCURRENT_SCRAPES and not failures:
                resp = session.get(url, timeout=HTTP_TIMEOUT_S)
                if resp.status_code != 200:
                    failures.append(resp.text[-2000:])
                else:
                    scrapes.append(parse(resp.text))

    def job(i: int) -> None:
        sum(range(500))
        gevent.sleep(0)

    with geventperf.Tracer() as tracer:
        geventperf.metrics.register(tracer, registry)
        server, thread = prometheus_client.start_http_server(0, addr="127.0.0.1",
                                                             registry=registry)
        try:
            client = threading.Thread(target=scraper, daemon=True, args=(
                f"http://127.0.0.1:{server.server_port}/metrics",))
            client.start()
            while client.is_alive():
                jobs = [gevent.spawn(job, i) for i in range(200)]
                for i, g in enumerate(jobs):
                    g.name = f"job-{i % 70}"  # past the label cap, some of them
                gevent.joinall(jobs, raise_error=True)
            client.join()
        finally:
            server.shutdown()
            server.server_close()
            thread.join(HTTP_TIMEOUT_S)
    assert not failures, failures[0]
    assert len(scrapes) == CONCURRENT_SCRAPES
    for earlier, later in zip(scrapes, scrapes[1:]):
        for key, value in earlier.items():
            if key[0].endswith(("_total", "_count", "_sum", "_bucket")) and key in later:
                assert later[key] >= value, key
    names = name_series(scrapes[-1], "run")
    assert _figures.OTHER_NAME in names
    assert len(names) == _figures.MAX_GREENLET_NAMES + 1


def test_register_before_start_takes_no_snapshot_and_a_stopped_tracer_gives_its_profile():
    registry = prometheus_client.CollectorRegistry()
    tracer = geventperf.Tracer()
    geventperf.metrics.register(tracer, registry)  # describe(): names only
    with pytest.raises(geventperf.TracerError):
        prometheus_client.generate_latest(registry)
    with tracer:
        run_workload()
    samples = parse(prometheus_client.generate_latest(registry).decode())
    assert samples[("geventperf_switches_total", ())] == tracer.profile.switches
    assert name_series(samples, "cpu")[WORKERS[1]] == by_name(tracer.profile)[WORKERS[1]]["cpu"]


# -- OpenTelemetry ----------------------------------------------------------------------

def otel_points(reader: Any) -> dict[tuple[str, tuple], float]:
    out = {}
    for rm in reader.get_metrics_data().resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                for p in metric.data.data_points:
                    out[(metric.name, tuple(sorted(p.attributes.items())))] = p.value
    return out


def test_otel_one_snapshot_per_collection_matching_it():
    sdk_metrics = pytest.importorskip("opentelemetry.sdk.metrics")
    export = pytest.importorskip("opentelemetry.sdk.metrics.export")
    reader = export.InMemoryMetricReader()
    provider = sdk_metrics.MeterProvider(metric_readers=[reader])
    with geventperf.Tracer() as tracer:
        shared = geventperf.metrics.register_otel(tracer, provider)
        run_workload()
        first = otel_points(reader)
        assert shared.snapshots == 1  # 14 instruments, one snapshot
        profile = tracer.snapshot(slices=False)
        run_workload()
        second = otel_points(reader)
        assert shared.snapshots == 2
    provider.shutdown()
    for key in PER_NAME:
        for name in WORKERS:
            point = ("geventperf.greenlet." + key, (("name", name),))
            assert first[point] == by_name(profile)[name][key], point
            assert second[point] >= first[point], point
    for name, key in ((_name(sleeper), "event_wait"), (_name(cruncher), "ready_wait"),
                      (_name(cruncher), "cpu")):
        point = ("geventperf.greenlet." + key, (("name", name),))
        assert second[point] > first[point], point
    buckets = [first[("geventperf.ready_wait.wakeups", (("le", b),))]
               for b in _figures.BUCKET_BOUNDS]
    assert sum(buckets) > 0
    assert second[("geventperf.switches", ())] > first[("geventperf.switches", ())]
    assert first[("geventperf.findings", (("kind", "loop-blocked"),))] >= 0
    assert 0 < first[("geventperf.loop.utilization", ())] <= 1


# -- the figures: label cap, folded rows, monotonic counters (built profiles) -----------

def _scrape_of(source: Any, **kw: Any) -> Samples:
    registry = prometheus_client.CollectorRegistry()
    geventperf.metrics.register(source, registry, **kw)
    return parse(prometheus_client.generate_latest(registry).decode())


def test_names_past_the_cap_fold_into_other_and_stay_there():
    profile = profile_factory.split_profile()
    profile.meta.update(pid=1, started_at=1.0)
    for i, run in enumerate((0.5, 0.4, 0.3)):  # worker-a 0.12, worker-b 0.12
        g = copy.copy(profile.greenlets[0])
        g.id, g.name, g.run_s = 10 + i, f"big-{i}", run
        profile.greenlets.append(g)
    profiles = [profile]
    registry = prometheus_client.CollectorRegistry()
    geventperf.metrics.register(lambda: profiles[-1], registry, max_names=2)

    samples = parse(prometheus_client.generate_latest(registry).decode())
    runs = name_series(samples, "run")
    assert set(runs) == {"big-0", "big-1", _figures.OTHER_NAME}  # the two biggest
    assert runs[_figures.OTHER_NAME] == pytest.approx(0.3 + 0.12 + 0.12)
    assert samples[("geventperf_greenlet_names_in_other", ())] == 3

    later = copy.deepcopy(profile)  # worker-b becomes the biggest: still in <other>
    later.duration_s += 1
    later.greenlets[1].run_s = 9.0
    profiles.append(later)
    samples = parse(prometheus_client.generate_latest(registry).decode())
    runs = name_series(samples, "run")
    assert set(runs) == {"big-0", "big-1", _figures.OTHER_NAME}
    assert runs[_figures.OTHER_NAME] == pytest.approx(0.3 + 0.12 + 9.0)


def test_folded_rows_count_under_their_name():
    profile = profile_factory.split_profile()
    folded = copy.copy(profile.greenlets[0])
    folded.id, folded.name, folded.run_s = 99, "worker-a [7 finished greenlets folded]", 2.0
    profile.greenlets.append(folded)
    runs = name_series(_scrape_of(lambda: profile), "run")
    assert set(runs) == {"worker-a", "worker-b"}
    assert runs["worker-a"] == pytest.approx(0.12 + 2.0)


def test_counters_never_go_down_within_a_run_and_restart_on_a_reset():
    first = profile_factory.split_profile()
    first.meta.update(pid=1, started_at=1.0)
    lower = copy.deepcopy(first)  # same run, later, one figure lower
    lower.duration_s += 1
    lower.greenlets[0].cpu_s = 0.01
    reset = copy.deepcopy(lower)  # the tracer was reset: a shorter run
    reset.duration_s = 0.1
    profiles = iter([first, lower, reset])
    registry = prometheus_client.CollectorRegistry()
    geventperf.metrics.register(lambda: next(profiles), registry)
    scrape = [name_series(parse(prometheus_client.generate_latest(registry).decode()), "cpu")
              ["worker-a"] for _ in range(3)]
    assert scrape == [0.11, 0.11, 0.01]


def test_without_the_cpu_clock_there_is_no_cpu_series():
    profile = profile_factory.split_profile()
    for g in profile.greenlets:
        g.cpu_s = None
    samples = _scrape_of(lambda: profile)
    assert name_series(samples, "cpu") == {}
    assert set(name_series(samples, "run")) == {"worker-a", "worker-b"}


def test_histogram_buckets_are_the_profiles_log2_buckets():
    profile = profile_factory.split_profile()
    counts = [0] * latency.NBUCKETS
    counts[0], counts[3], counts[latency.NBUCKETS - 1] = 2, 5, 1  # <1us, [4,8)us, >16.8s
    profile.ready_latency = {"overall": latency.summary(counts, 20.0), "by_name": {}}
    samples = _scrape_of(lambda: profile)
    got = {dict(lb)["le"]: v for (n, lb), v in samples.items()
           if n == "geventperf_ready_wait_seconds_bucket"}
    assert got["1e-06"] == 2 and got["4e-06"] == 2 and got["8e-06"] == 7
    assert got["16.777216"] == 7 and got["+Inf"] == 8
    assert samples[("geventperf_ready_wait_seconds_count", ())] == 8
    assert samples[("geventperf_ready_wait_seconds_sum", ())] == pytest.approx(0.21)


# -- errors -----------------------------------------------------------------------------

def test_missing_prometheus_client_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # import raises
    monkeypatch.delitem(sys.modules, "geventperf.metrics.prometheus", raising=False)
    with pytest.raises(ImportError, match=r"pip install 'geventperf\[metrics\]'"):
        geventperf.metrics.register(lambda: profile_factory.small_profile())


def test_a_source_that_is_neither_a_tracer_nor_callable_is_refused():
    with pytest.raises(TypeError, match="geventperf.Tracer or a callable"):
        geventperf.metrics.register(profile_factory.small_profile(),
                                    prometheus_client.CollectorRegistry())
