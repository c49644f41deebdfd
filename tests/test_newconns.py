"""new-connections-queued: more pooled connections than the upstream has workers.

``tests/diagnosis/upstream_workers.py`` (run through the real CLI, as the diagnosis
suite runs its workloads) against a server on 127.0.0.1 with a fixed number of worker
threads, each serving one kept-alive connection until it idles out, as gunicorn's sync
workers do: the connections past them wait in the listen backlog.
"""

from __future__ import annotations

import socket
import threading

import pytest

from geventperf import Profile, findings
from tests.test_diagnosis import Workload, assert_first, listing, run_cli

WORKERS = 4
# A worker closes a connection idle this long, and takes the next from the backlog.
IDLE_S = 0.2
UPSTREAM = Workload("upstream_workers.py")
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class WorkerServer:
    """WORKERS threads, each accepting one connection and answering its requests until
    it has been idle IDLE_S seconds; the listen backlog holds the rest."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stopping = False
        self._threads = [threading.Thread(target=self._work, daemon=True)
                         for _ in range(WORKERS)]

    def __enter__(self) -> WorkerServer:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping = True
        for _ in self._threads:  # wake each worker blocked in accept()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            except OSError:
                pass
        for thread in self._threads:
            thread.join(5)
        self._listener.close()

    def _work(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(IDLE_S)
                buffered = b""
                while not self._stopping:
                    try:
                        data = conn.recv(65536)
                    except OSError:  # idle past IDLE_S: the worker moves on
                        break
                    if not data:
                        break
                    buffered += data
                    while b"\r\n\r\n" in buffered:
                        _head, buffered = buffered.split(b"\r\n\r\n", 1)
                        conn.sendall(ANSWER)


@pytest.fixture(scope="module")
def upstream():
    with WorkerServer() as srv:
        yield srv


def _pool(profile: Profile) -> dict:
    [event] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    return event


def test_more_connections_than_the_upstreams_workers_is_told_first(tmp_path, upstream):
    profile = run_cli(UPSTREAM, tmp_path, f"url={upstream.url}")
    new, reused = _pool(profile)["trails"]["new"], _pool(profile)["trails"]["reused"]
    assert new[0] > WORKERS and new[4] / new[0] > 10 * reused[4] / reused[0], (new, reused)
    first = assert_first(profile, UPSTREAM, findings.NEW_CONNECTIONS_QUEUED)
    assert f"the first requests on {new[0]} connections opened to {upstream.url}" \
        in first.message, first.message
    assert "pool_maxsize" in first.message and "listen backlog" in first.message
    # the Pool of callers was full too: it gives way (a larger one queues more there)
    assert findings.POOL_FULL not in [f.kind for f in profile.findings], listing(profile)


def test_no_more_connections_than_workers_is_not_told(tmp_path, upstream):
    profile = run_cli(UPSTREAM, tmp_path, f"url={upstream.url}", f"maxsize={WORKERS}")
    assert _pool(profile)["opened"] <= WORKERS
    assert findings.NEW_CONNECTIONS_QUEUED not in [f.kind for f in profile.findings], \
        listing(profile)


COLD = Workload("cold_service.py")


def test_first_answers_late_on_the_programs_own_cold_cache_are_not_told(tmp_path):
    """Before (an unseen mirror's Pool(500) of handlers answered its 60 clients' first
    requests after a cold cache's upstream fetches): told as a server with fixed workers
    keeping connections in its backlog, whose fix changed nothing."""
    profile = run_cli(COLD, tmp_path)
    new, reused = _pool(profile)["trails"]["new"], _pool(profile)["trails"]["reused"]
    # the pattern the finding reads is there: first answers ten times later
    assert new[4] / new[0] > 10 * reused[4] / reused[0], (new, reused)
    assert findings.NEW_CONNECTIONS_QUEUED not in [f.kind for f in profile.findings], \
        listing(profile)


def test_the_programs_own_server_with_a_full_pool_is_told(tmp_path):
    profile = run_cli(COLD, tmp_path, "spawn=4")
    [served] = [e for e in profile.events if e["kind"] == "pywsgi-responses"]
    assert served["pool_filled"] > 0, served
    assert findings.NEW_CONNECTIONS_QUEUED in [f.kind for f in profile.findings], \
        listing(profile)
