"""The tracer on real I/O: a trickling raw-socket server (switch storm, waits at the
read site), lxml parsing a slow HTTP body in monkey-patched subprocesses
(blocked read in a C section; the two-greenlet deadlock, guarded and not), and the
adapter's read counters."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import gevent
import gevent.event
import gevent.socket
import pytest
import requests

import geventperf
from geventperf import Profile, Tracer, readstats
from geventperf import findings as findings_mod
from geventperf.findings import reading as findings_reading
from tests import tracer_impl
from tests.servers import WSGIServerThread

# Runs each test taking `impl` on every hot path: the C extension and pure Python.
impl = tracer_impl.impl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIOS = os.path.join(HERE, "tracer_scenarios.py")
# A scenario takes well under 2 s; the deadlock one never ends, so it is killed here.
SCENARIO_TIMEOUT_S = 60
# After the tracer's "may deadlock" warning, the unguarded scenario must still be
# running this long later.  Its own work (20 items 10 ms apart) takes 0.2 s; a loaded
# machine makes a hung run no faster, so waiting longer can only make the test slower,
# never flaky.  (Before, the whole run had 8 s to start, import and warn.)
DEADLOCK_CONFIRM_S = 3
# Single bytes the trickling server sends (storm threshold plus margin).
TRICKLE_PIECES = findings_mod.STORM_MIN_SWITCHES + 300


class TricklingServer:
    """Sends TRICKLE_PIECES single bytes from a greenlet of the test's own loop, each
    only after the reader took the last one (``consumed``): so every recv() of the
    reader finds the socket empty and waits on the hub, however loaded the machine (a
    server thread pacing by the clock let bytes pile up when the reader ran late)."""

    def __init__(self) -> None:
        self.listener = gevent.socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.consumed = gevent.event.Event()
        self.writer: gevent.Greenlet | None = None

    def __enter__(self) -> TricklingServer:
        self.writer = gevent.spawn(self._serve)
        return self

    def __exit__(self, *exc: object) -> None:
        self.writer.kill()
        self.listener.close()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            for _ in range(TRICKLE_PIECES):
                conn.sendall(b"x")
                self.consumed.wait()
                self.consumed.clear()


def read_trickle(port: int, consumed: gevent.event.Event) -> int:
    sock = gevent.socket.create_connection(("127.0.0.1", port))
    received = 0
    with sock:
        while True:
            data = sock.recv(1)  # the small-chunk read pattern
            if not data:
                return received
            received += len(data)
            consumed.set()


# The storm rule's "tiny work between yields" (findings.STORM_MAX_MEAN_RUN_S, 50 us)
# is a wall-time threshold, which a loaded machine exceeds by descheduling the reader
# between recv() calls.  This test is about what the tracer records; the threshold is
# tested on made-up profiles in test_findings.py, so here it is out of load's reach.
LOADED_STORM_MAX_MEAN_RUN_S = 1.0


def test_trickling_socket_reads_are_a_switch_storm(impl, monkeypatch):
    # the storm rule reads its threshold where it lives: geventperf.findings.reading
    monkeypatch.setattr(findings_reading, "STORM_MAX_MEAN_RUN_S", LOADED_STORM_MAX_MEAN_RUN_S)
    with TricklingServer() as server, Tracer() as tracer:
        job = gevent.spawn(read_trickle, server.port, server.consumed)
        assert job.get(timeout=60) == TRICKLE_PIECES
    p = tracer.profile
    reader = next(g for g in p.greenlets if g.name.endswith(".read_trickle"))
    # a wait per byte and one for the end of file (and the connect's, the exit)
    assert reader.switches >= TRICKLE_PIECES + 1
    site = max((w for w in p.waits if any(e.endswith(":read_trickle") for e in w.stack)),
               key=lambda w: w.count)
    assert site.count >= TRICKLE_PIECES + 1
    # (the writer's hand-offs may be a storm of their own: not the one tested here)
    storm = [f for f in p.findings if f.kind == "switch-storm"
             and any(e.endswith(":read_trickle") for e in f.stack)]
    assert len(storm) == 1
    f = storm[0]
    assert f.extra["count"] >= findings_mod.STORM_MIN_SWITCHES
    assert 0 < f.extra["mean_run_s"] < LOADED_STORM_MAX_MEAN_RUN_S
    # the cost is the loop time the switching took (switch-outs x hub time per switch)
    # and the others' queueing behind it (none here: nothing else ran but the writer)
    assert f.stack == site.stack and f.extra["hub_s_per_switch"] > 0
    assert f.extra["switching_s"] == pytest.approx(f.extra["count"] * f.extra["hub_s_per_switch"])
    assert f.cost_s == pytest.approx(f.extra["switching_s"] + f.extra["others_ready_wait_s"])
    # the program's own socket reads (not requests'): pieces read as they come
    assert "read as they come" in f.message and "GeventAdapter" not in f.message


def test_read_counters_are_aggregated_per_host(impl):
    with Tracer() as tracer:
        assert tracer._on_read in readstats.sinks
        readstats.publish({"host": "a:80", "bytes": 1000, "reads": 10, "reads_waited": 4,
                           "wall_s": 0.5})
        readstats.publish({"host": "a:80", "bytes": 24, "reads": 2, "reads_waited": 1,
                           "wall_s": 0.25})
        readstats.publish({"host": "b:443", "bytes": 7, "reads": 1, "reads_waited": None,
                           "wall_s": 0.0})
    assert tracer._on_read not in readstats.sinks
    reads = {r["host"]: r for r in tracer.profile.reads}
    assert reads["a:80"] == {"host": "a:80", "bodies": 2, "bytes": 1024, "reads": 12,
                             "reads_waited": 5, "wall_s": 0.75}
    assert reads["b:443"]["reads_waited"] is None and reads["b:443"]["bodies"] == 1


def run_scenario(name: str, tmp_path, timeout: float = SCENARIO_TIMEOUT_S,
                 env_extra: dict[str, str] | None = None):
    out = tmp_path / f"{name}.json"
    env = dict(os.environ, PYTHONPATH=ROOT, **(env_extra or {}))
    proc = subprocess.run([sys.executable, SCENARIOS, name, str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc, out


def scenario_env(impl: str) -> dict[str, str]:
    return tracer_impl.subprocess_env(impl)


def test_lxml_parse_of_a_slow_response_is_a_blocked_read_in_c_section(impl, tmp_path):
    proc, out = run_scenario("one-parse", tmp_path, env_extra=scenario_env(impl))
    assert proc.returncode == 0, proc.stderr[-3000:]
    p = Profile.load(out)
    found = [f for f in p.findings if f.kind == "blocked-read-in-c-section"]
    assert len(found) == 1
    f = found[0]
    worker = p.greenlet(f.greenlet)
    assert worker.name == "__main__.fetch_and_parse"
    assert f.section == "lxml.etree.parse"
    assert f.extra["count"] >= 5 and f.cost_s >= 0.05 and f.extra["file_like"]
    assert "urllib3/response.py" in f.extra["read_site"]
    assert f.extra["caller"].endswith(":fetch_and_parse")
    assert "read the body first" in f.message.lower()
    assert "GeventAdapter" in f.message
    assert p.section_named("lxml.etree.parse").switches == f.extra["count"]
    assert not [f for f in p.findings if f.kind == "c-section-deadlock-risk"]


def test_two_lxml_file_parses_deadlock_and_the_tracer_says_why(impl, tmp_path):
    """Without the guard the process hangs on lxml's parser lock (killed here); the
    tracer printed the reason before it did."""
    env = dict(os.environ, PYTHONPATH=ROOT, **scenario_env(impl))
    proc = subprocess.Popen([sys.executable, SCENARIOS, "two-parses",
                             str(tmp_path / "two-parses.json")], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        text = wait_for_line(proc, "may deadlock", SCENARIO_TIMEOUT_S)
        assert "lxml_guard=True" in text
        with pytest.raises(subprocess.TimeoutExpired):  # and it is hung, not finishing
            proc.wait(DEADLOCK_CONFIRM_S)
    finally:
        proc.kill()
        proc.wait()


def wait_for_line(proc: subprocess.Popen, needle: str, timeout: float) -> str:
    """stderr of *proc* up to the first line holding *needle*; fails if the process
    exits or *timeout* seconds pass first."""
    seen: list[str] = []
    found = threading.Event()

    def read() -> None:
        for raw in proc.stderr:
            seen.append(raw.decode(errors="replace"))
            if needle in seen[-1]:
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    assert found.is_set(), f"no {needle!r} within {timeout} s: {''.join(seen)[-3000:]}"
    return "".join(seen)


def test_lxml_guard_avoids_the_deadlock_and_reports_the_risk(impl, tmp_path):
    proc, out = run_scenario("two-parses-guarded", tmp_path, env_extra=scenario_env(impl))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "may deadlock" not in proc.stderr
    p = Profile.load(out)
    risks = [f for f in p.findings if f.kind == "c-section-deadlock-risk"]
    assert len(risks) == 1
    risk = risks[0]
    assert risk.extra["guarded"] is True and risk.extra["other_greenlet"] != risk.greenlet
    assert {p.greenlet(risk.greenlet).name, p.greenlet(risk.extra["other_greenlet"]).name} \
        == {"__main__.fetch_and_parse"}
    assert risk.stack and risk.stack[0].endswith(":fetch_and_parse")
    # one cause, one finding: merged across the two greenlets, which it counts
    blocked = [f for f in p.findings if f.kind == "blocked-read-in-c-section"]
    assert len(blocked) == 1 and blocked[0].extra["greenlets"] == 2
    assert p.findings[0] is risk  # a hazard ranks above every cost


def test_parses_with_parsers_of_their_own_are_no_deadlock_risk(impl, tmp_path):
    """lxml's lock is per parser: two suspended parses with their own parsers cannot
    block each other, so neither the warning nor the finding may appear."""
    proc, out = run_scenario("two-parses-own-parsers", tmp_path, env_extra=scenario_env(impl))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "may deadlock" not in proc.stderr
    p = Profile.load(out)
    assert not [f for f in p.findings if f.kind == "c-section-deadlock-risk"]
    # both parses were suspended inside C at the same time: the case was really there
    [blocked] = [f for f in p.findings if f.kind == "blocked-read-in-c-section"]
    assert blocked.extra["greenlets"] == 2


def test_lxml_guard_serialises_parses_sharing_one_parser(impl, tmp_path):
    """A caller's own parser cannot be copied: the guard makes the second greenlet wait
    cooperatively for the first instead of blocking the thread on the parser's lock."""
    proc, out = run_scenario("two-parses-shared-parser-guarded", tmp_path,
                             env_extra=scenario_env(impl))
    assert proc.returncode == 0, proc.stderr[-3000:]
    p = Profile.load(out)
    assert [f.extra["guarded"] for f in p.findings if f.kind == "c-section-deadlock-risk"] \
        == [True]
    parse = p.section_named("lxml.etree.parse")
    assert parse.calls == 2
    # serialised: one greenlet's first switch-out inside the parse was the wait for the
    # guard's semaphore (gevent's semaphore is compiled: the wrapper is the innermost
    # Python frame), not a socket read
    firsts = sorted(e["stack"][0] for e in p.events if e["kind"] == "c-section-switch")
    assert len(firsts) == 2
    assert "geventperf/sections.py" in firsts[0] or "geventperf/sections.py" in firsts[1]
    assert any("gevent/_socketcommon.py" in first for first in firsts)


def test_real_adapter_reads_land_in_the_profile(impl):
    body = b"x" * 300_000

    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]

    with WSGIServerThread(app) as server:
        session = requests.Session()
        geventperf.mount(session)
        with Tracer() as tracer:
            before = time.perf_counter()
            assert session.get(server.url + "/a").content == body
            assert session.get(server.url + "/b").content == body
            outside = time.perf_counter() - before
    [reads] = tracer.profile.reads
    assert reads["host"].endswith(str(server.port))
    assert reads["bodies"] == 2 and reads["bytes"] == 2 * len(body)
    assert reads["reads"] >= 2
    # time inside the body reads: some, and no more than the two requests took
    assert 0 < reads["wall_s"] <= outside
