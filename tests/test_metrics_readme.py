"""The README's "Leaving it on in production" examples, run as written there.

The Python blocks of that section are extracted (each starts with a ``# file.py``
comment) into a temporary directory and run for real on 127.0.0.1: the plain
``gevent.pywsgi`` service, and gunicorn with two gevent workers, each serving its own
metrics port.  Ports come from the examples' PORT / METRICS_PORT variables.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest
import requests

import geventperf

pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

README = Path(__file__).resolve().parent.parent / "README.md"
SECTION = "## Leaving it on in production"
# A hang guard, not a timing figure: how long a server may take to answer at all.
START_TIMEOUT_S = 60.0
HTTP_TIMEOUT_S = 30
# Requests sent to the example app before scraping, so its handlers have run.
REQUESTS = 10
# gunicorn workers in the README's config.
WORKERS = 2


def extract(tmp_path: Path) -> dict[str, Path]:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    section = text[start:text.index("\n## ", start + len(SECTION))]
    files = {}
    for body in re.findall(r"```python\n(.*?)```", section, re.S):
        m = re.match(r"# (\S+\.py)", body)
        assert m, f"a python block of the README's section does not name its file: {body[:60]}"
        files[m.group(1)] = tmp_path / m.group(1)
        files[m.group(1)].write_text(body, encoding="utf-8")
    return files


def free_ports(n: int) -> int:
    """The first of *n* consecutive ports free on 127.0.0.1."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n > 65535:
            continue
        try:
            held = []
            for port in range(base, base + n):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise RuntimeError(f"no {n} consecutive free ports on 127.0.0.1")


def wait_for(check: Callable[[], object], what: str) -> object:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            result = check()
            if result:
                return result
        except (requests.ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: nothing after {START_TIMEOUT_S} s")
        time.sleep(0.1)


def scrape(port: int) -> dict[str, float]:
    resp = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=HTTP_TIMEOUT_S)
    resp.raise_for_status()
    out = {}
    for family in text_string_to_metric_families(resp.text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}"] = s.value
    return out


def handler_run_s(samples: dict[str, float]) -> float:
    key = "geventperf_greenlet_run_seconds_total{name=gevent.baseserver._handle_and_close_when_done}"
    return samples.get(key, 0.0)


def children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(entry.name))
    return out


def load_whole(path: Path) -> geventperf.Profile | None:
    """The profile at *path*, None while it is not there or not written whole yet."""
    try:
        return geventperf.Profile.load(path)
    except geventperf.ProfileError:
        return None


def refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_the_pywsgi_service(tmp_path):
    files = extract(tmp_path)
    port = free_ports(1)
    proc = subprocess.Popen([sys.executable, str(files["service.py"])], cwd=tmp_path,
                            env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dump = Path(f"/tmp/geventperf-{proc.pid}.json")
    try:
        wait_for(lambda: requests.get(f"http://127.0.0.1:{port}/", timeout=HTTP_TIMEOUT_S),
                 "service.py")
        for _ in range(REQUESTS):
            assert requests.get(f"http://127.0.0.1:{port}/",
                                timeout=HTTP_TIMEOUT_S).text == "hello\n"
        samples = scrape(port)
        assert handler_run_s(samples) > 0
        assert samples["geventperf_ready_wait_seconds_count{}"] > 0
        proc.send_signal(signal.SIGUSR1)
        profile = wait_for(lambda: load_whole(dump), "the profile SIGUSR1 writes")
        names = {g.name for g in profile.greenlets}
        assert "gevent.baseserver._handle_and_close_when_done" in names
    finally:
        proc.terminate()
        proc.wait(HTTP_TIMEOUT_S)
        dump.unlink(missing_ok=True)
        err = proc.stderr.read().decode(errors="replace")
    assert "Traceback" not in err, err


def test_gunicorn_gevent_workers_one_metrics_port_each(tmp_path):
    pytest.importorskip("gunicorn")
    extract(tmp_path)
    port, metrics = free_ports(1), free_ports(WORKERS + 1)
    env = {**os.environ, "PORT": str(port), "METRICS_PORT": str(metrics),
           "XDG_RUNTIME_DIR": str(tmp_path)}  # gunicorn's control socket: not in $HOME
    master = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py",
                               "app:app"], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for slot in range(WORKERS):
            wait_for(lambda slot=slot: scrape(metrics + slot), f"worker slot {slot}'s metrics")
        for _ in range(REQUESTS):
            assert requests.get(f"http://127.0.0.1:{port}/",
                                timeout=HTTP_TIMEOUT_S).text == "hello\n"
        per_worker = [scrape(metrics + slot) for slot in range(WORKERS)]
        assert sum(handler_run_s(s) for s in per_worker) > 0  # the app ran, traced
        assert refused(metrics + WORKERS)

        # A worker killed and replaced: its successor takes the freed slot's port.
        workers = wait_for(lambda: len(children(master.pid)) == WORKERS
                           and children(master.pid), "the workers")
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: (c := children(master.pid)) and victim not in c
                 and len(c) == WORKERS, "a replacement worker")
        for slot in range(WORKERS):
            wait_for(lambda slot=slot: scrape(metrics + slot), f"slot {slot} after the restart")
        assert refused(metrics + WORKERS)
    finally:
        master.terminate()
        try:
            master.wait(HTTP_TIMEOUT_S)
        finally:
            err = master.stderr.read().decode(errors="replace")
    assert "Traceback" not in err, err
