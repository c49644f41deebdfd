"""The diagnosis suite: a profiler is judged by its first finding.

Each workload in ``tests/diagnosis/`` (one file each) is a small gevent program whose
culprit is known by construction; its docstring says what the culprit is and why.  Each
runs for real in a subprocess through the real CLI (``python -m geventperf run -f json
-o OUT.json workload.py key=url ...``, which monkey-patches first), or, where the CLI
cannot express it (``Tracer(lxml_guard=True)``), as a script that starts the Tracer
itself.  The servers are real, on 127.0.0.1, in this (unpatched) process: a raw-socket
server that answers slowly, at once, trickles a body in small pieces with pauses, or
holds its replies until the workload says so.

Every test asserts the FIRST finding: its kind, its call site (the user's frame in the
workload file, found by a ``# diag: NAME`` marker comment on the line, never by a line
number) and the greenlet name it blames; and that no finding blames the program for a
pure network wait (the ``# diag: network-wait`` lines and the greenlets that do nothing
else).  Kinds, sites, names and orderings only: never absolute times.

The contract is issue 12 ("the real culprit comes first, one finding per cause, no
false alarms") and issue 11 (event wait vs ready wait, ``loop-saturated``).  A new
workload the code does not meet yet is marked ``xfail(strict=True)`` with what is
missing, so that the fix XPASSes, fails strictly, and has its marker removed.
"""

from __future__ import annotations

import itertools
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from functools import cached_property

import pytest

from geventperf import Profile
from geventperf.findings import pool_full
from geventperf.findings.handoff import shared_result
from geventperf.profile import Finding
from tests.servers import RawServer, http_response, pieces_of

DIAG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "diagnosis")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each workload takes well under 3 s on a loaded 2-core machine; this only stops a hang.
RUN_TIMEOUT_S = 60
# The unguarded lxml run hangs (by design); the tracer's warning comes within a second
# or two of the start.  Past this the run is killed and the warning must have come.
DEADLOCK_WARNING_WAIT_S = 30
# After the warning, a run that does not hang ends within a fraction of a second (its
# bodies take ~0.2 s); one still running after this long is hung, and is killed.
DEADLOCK_GRACE_S = 2.0

# Finding kinds that blame the program's own run time (CPU, non-cooperative calls,
# holding the loop): none of them may point at a greenlet that only waited on the
# network, nor at a line that only waits on the network.
BLAME_KINDS = {"loop-blocked", "blocking-call", "loop-saturated", "loop-held", "gc-pause"}
BLOCKED_READ = "blocked-read-in-c-section"
DEADLOCK_RISK = "c-section-deadlock-risk"
LOOP_BLOCKED = "loop-blocked"
BLOCKING_CALL = "blocking-call"
LOOP_SATURATED = "loop-saturated"
GREENLET_LEAK = "greenlet-leak"
REPEATED_REQUEST = "repeated-request"
LOOP_HELD = "loop-held"
GC_PAUSE = "gc-pause"
POOL_FULL = "pool-full"
LOCK_CONTENDED = "lock-contended"
SERIAL_BOTTLENECK = "serial-bottleneck"
SLEEP_POLL = "sleep-poll"
WORKERS_SATURATED = "workers-saturated"
QUEUE_LOCKSTEP = "queue-lockstep"
QUEUE_FULL = "queue-full"
CRITICAL_PATH = "critical-path"
CONNECTION_POOL_FULL = "connection-pool-full"
SESSION_PER_REQUEST = "session-per-request"
CONNECTION_CHURN = "connection-churn"
CONNECTION_LEAK = "connection-leak"
NOT_KEPT_ALIVE = "connection-not-kept-alive"
REQUESTS_FAILED = "requests-failed"
RETRY_BACKOFF = "retry-backoff"
SERVER_POOL_FULL = "server-pool-full"
SEQUENTIAL_CALLS = "sequential-calls"
AWAITED_IN_TURN = "awaited-in-turn"
BATCH_BARRIER = "batch-barrier"
DELAYED_ACK_STALL = "delayed-ack-stall"
REQUEST_BODY_STALL = "request-body-stall"
SERVER_NAGLE = "server-nagle"
GIL_CONTENDED = "gil-contended"
SWITCH_STORM = "switch-storm"
THREADPOOL_SATURATED = "threadpool-saturated"
SMALL_BODY_READS = "small-body-reads"
DUPLICATE_IN_FLIGHT = "duplicate-in-flight"
WRITE_BLOCKED = "write-blocked"

# Phrases of the small-chunk *read* story: a finding about something that is not a
# read (a sleep(0) loop, a queue) must not tell it.
READ_STORY = re.compile(r"GeventAdapter|small-chunk|small chunk|small read|iter_content|"
                        r"512 KiB|socket empty", re.IGNORECASE)

MARKER = re.compile(r"#\s*diag:\s*([\w-]+)")


# -- servers ----------------------------------------------------------------------------

# The server closes every connection after its reply, and says so (a client that
# reused it would find it closed).
CLOSE = [("Connection", "close")]


def _xml_body(size: int) -> bytes:
    items, n, total = [], 0, len(b"<feed></feed>")
    while total < size:
        item = b"<item><id>%d</id><title>item number %d</title></item>" % (n, n)
        items.append(item)
        total += len(item)
        n += 1
    return b"<feed>" + b"".join(items) + b"</feed>"


def _json_body(size: int) -> bytes:
    rows, total = [], 2
    while total < size:
        row = b'{"id": %d, "title": "item number %d"}' % (len(rows), len(rows))
        rows.append(row)
        total += len(row) + 2
    return b"[" + b", ".join(rows) + b"]"


def _trickle(body: bytes, pieces: int, delay: float, content_type: str) -> list:
    """The head at once, then *body* in *pieces* pieces with *delay* s before each."""
    script: list = [http_response(b"", headers=[("Content-Type", content_type)] + CLOSE,
                                  length=len(body))]
    for piece in pieces_of(body, -(-len(body) // pieces)):
        script += [delay, piece]
    return script


class Gates:
    """Replies held until the workload says so: ``/gated?key=K`` answers only once
    ``/open?key=K`` was requested; ``/arrived?key=K`` says how many are held.  A workload
    can thus know that no reply can arrive during a stretch of its own, however slowly
    a loaded machine runs it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[str, threading.Event] = {}
        self._arrived: dict[str, int] = {}

    def _event(self, key: str) -> threading.Event:
        with self._lock:
            return self._events.setdefault(key, threading.Event())

    def hold(self, key: str) -> None:
        with self._lock:
            self._arrived[key] = self._arrived.get(key, 0) + 1
        self._event(key).wait(RUN_TIMEOUT_S)

    def open(self, key: str) -> None:
        self._event(key).set()

    def arrived(self, key: str) -> int:
        with self._lock:
            return self._arrived.get(key, 0)


GATES = Gates()


def _respond(head: bytes) -> list:
    """Routes: /slow?delay=S (small body after S s), /fast, /busy (a 503), /gated, /open,
    /arrived
    (see Gates), and trickled bodies /xml, /json, /big ?size=BYTES&pieces=N&delay=S."""
    target = head.split(b"\r\n", 1)[0].split()[1].decode()
    url = urllib.parse.urlsplit(target)
    q = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
    route = url.path.strip("/")
    if route == "gated":
        GATES.hold(q["key"])
        return [http_response(b"ok", headers=CLOSE)]
    if route == "open":
        GATES.open(q["key"])
        return [http_response(b"ok", headers=CLOSE)]
    if route == "arrived":
        return [http_response(b"%d" % GATES.arrived(q["key"]), headers=CLOSE)]
    if route == "slow":
        return [float(q.get("delay", 0.3)), http_response(b"ok", headers=CLOSE)]
    if route == "fast":
        return [http_response(b"ok", headers=CLOSE)]
    if route == "busy":
        return [http_response(b"busy", status="503 Service Unavailable", headers=CLOSE)]
    size, pieces, delay = int(q["size"]), int(q["pieces"]), float(q["delay"])
    if route == "xml":
        return _trickle(_xml_body(size), pieces, delay, "application/xml")
    if route == "json":
        return _trickle(_json_body(size), pieces, delay, "application/json")
    if route == "big":
        return _trickle(b"x" * size, pieces, delay, "application/octet-stream")
    return [http_response(b"no such route", status="404 Not Found")]


@pytest.fixture(scope="module")
def server():
    with RawServer(_respond) as srv:
        yield srv


def slow(server, delay: float = 0.3) -> str:
    return f"slow={server.url}/slow?delay={delay}"


# Answers of /slow?events=1: each one's length differs from the one before.
_EVENTS = itertools.count()


def _respond_kept(head: bytes) -> list:
    """/slow?delay=S&size=N[&split=1][&status=503][&cookie=1] on a kept-alive connection:
    a body of N bytes ("ok" by default) after S s, with the status given (200 by
    default); with split=1 the head and the body in two sends, on a socket with Nagle's
    algorithm on (the server's default), as some servers write them; with cookie=1 a
    cookie scoped to the request's path (any path ending in /slow); with events=1 a
    body of 1 to 7 bytes, another length each time (a poll's new events)."""
    url = urllib.parse.urlsplit(head.split()[1].decode())
    q = urllib.parse.parse_qs(url.query)
    size = int(q.get("size", ["0"])[0])
    status = q.get("status", ["200"])[0]
    cookie = ([("Set-Cookie", f"session=1; Path={url.path.rsplit('/', 1)[0]}/")]
              if q.get("cookie") == ["1"] else [])
    if q.get("events") == ["1"]:  # a poll: each answer holds other events
        size = 1 + next(_EVENTS) % 7
    response = http_response(b"x" * size if size else b"ok", headers=cookie,
                             status=f"{status} {'OK' if status == '200' else 'Error'}")
    if q.get("split") == ["1"]:
        head_end = response.index(b"\r\n\r\n") + 4
        return [float(q.get("delay", ["0.3"])[0]), response[:head_end], response[head_end:]]
    return [float(q.get("delay", ["0.3"])[0]), response]


@pytest.fixture(scope="module")
def kept_server():
    """A server that keeps its connections alive (the module's ``server`` closes them)."""
    with RawServer(_respond_kept, keep_alive=True) as srv:
        yield srv


@pytest.fixture(scope="module")
def body_server():
    """``kept_server``, reading each request's body before it answers (posts)."""
    with RawServer(_respond_kept, keep_alive=True, read_bodies=True) as srv:
        yield srv


# -- running a workload -----------------------------------------------------------------

@dataclass
class Workload:
    name: str  # file name in tests/diagnosis

    @property
    def path(self) -> str:
        return os.path.join(DIAG, self.name)

    @cached_property
    def markers(self) -> dict[str, set[int]]:
        """marker name -> line numbers carrying ``# diag: NAME``."""
        out: dict[str, set[int]] = {}
        with open(self.path) as f:
            for number, line in enumerate(f, start=1):
                for name in MARKER.findall(line):
                    out.setdefault(name, set()).add(number)
        return out

    def lines(self, marker: str) -> set[int]:
        lines = self.markers.get(marker)
        assert lines, f"{self.name} has no '# diag: {marker}' line"
        return lines

    def site(self, finding: Finding) -> int | None:
        """The line of the innermost frame of *finding*'s stack that is in this
        workload's file (the user's frame), or None."""
        for entry in finding.stack:
            parsed = _parse_entry(entry)
            if parsed and os.path.basename(parsed[0]) == self.name:
                return parsed[1]
        return None


def _parse_entry(entry: str) -> tuple[str, int] | None:
    """``path:line:function`` -> (path, line)."""
    parts = entry.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])


def run_cli(workload: Workload, tmp_path, *args: str, no_patch: bool = False) -> Profile:
    out = tmp_path / (workload.name + ".json")
    cmd = [sys.executable, "-m", "geventperf", "run", "-f", "json", "-o", str(out)]
    if no_patch:
        cmd.append("--no-patch")
    cmd += [workload.path, *args]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, env=_env())
    assert done.returncode == 0, f"{workload.name} failed:\n{done.stderr[-4000:]}"
    return workload_only(Profile.load(str(out)))


def run_script(workload: Workload, tmp_path, *args: str) -> Profile:
    """A workload that starts the Tracer itself: ``python workload.py OUT.json ...``."""
    out = tmp_path / (workload.name + ".json")
    done = subprocess.run([sys.executable, workload.path, str(out), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_S, env=_env())
    assert done.returncode == 0, f"{workload.name} failed:\n{done.stderr[-4000:]}"
    return workload_only(Profile.load(str(out)))


def workload_only(profile: Profile) -> Profile:
    """The profile without a cpu-starved finding: that one is about the machine the
    suite ran on (CI shares its cores with other jobs), not about the workload, and
    the suite judges the workload's findings (tests/test_cpu_starved.py judges it)."""
    profile.findings = [f for f in profile.findings if f.kind != "cpu-starved"]
    return profile


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    return env


# -- what the findings must say ---------------------------------------------------------

def listing(profile: Profile) -> str:
    """The findings, for assertion messages: what the code produced instead."""
    if not profile.findings:
        return "  (no findings)"
    return "\n".join(f"  {i}. {f.kind} [greenlet={_name(profile, f.greenlet)} "
                     f"cost_s={f.cost_s:.3f}] {f.message[:200]}"
                     for i, f in enumerate(profile.findings, start=1))


def _name(profile: Profile, gid: int | None) -> str | None:
    g = profile.greenlet(gid) if isinstance(gid, int) else None
    return g.name if g is not None else None


def assert_first(profile: Profile, workload: Workload, kind: str, marker: str = "culprit",
                 greenlet: str | None = None) -> Finding:
    """The first finding is of *kind*, at a ``# diag: marker`` line of *workload*, and
    blames the greenlet named *greenlet* (by name in its message, and by id where the
    finding carries one)."""
    assert profile.findings, f"{workload.name}: no findings, expected {kind} first"
    first = profile.findings[0]
    where = f"{workload.name}: findings were\n{listing(profile)}"
    assert first.kind == kind, f"first finding is not {kind}; {where}"
    site = workload.site(first)
    assert site in workload.lines(marker), (
        f"first finding's call site is {workload.name}:{site}, expected one of "
        f"{sorted(workload.lines(marker))} ('# diag: {marker}'); stack {first.stack[:8]}; "
        f"{where}")
    assert f"{workload.name}:{site}" in first.message, (
        f"the message does not name the call site {workload.name}:{site}; {where}")
    if greenlet is not None:
        assert greenlet in first.message, f"the message does not name {greenlet!r}; {where}"
        if first.greenlet is not None:
            assert _name(profile, first.greenlet) == greenlet, where
    return first


def assert_no_network_blame(profile: Profile, workload: Workload,
                            innocent: tuple[str, ...] = ("slow-waiter",)) -> None:
    """No finding blames the program for a pure network wait: none sits at a
    ``# diag: network-wait`` line, and no loop-blaming finding names a greenlet that
    only waits on the network."""
    waits = workload.markers.get("network-wait", set())
    for f in profile.findings:
        if f.kind == NOT_KEPT_ALIVE:
            continue  # true of the test server (Connection: close), and its fault
        assert workload.site(f) not in waits, (
            f"{workload.name}: a {f.kind} finding blames the pure network wait at line "
            f"{workload.site(f)}:\n{listing(profile)}")
        if f.kind in BLAME_KINDS:
            assert _name(profile, f.greenlet) not in innocent, (
                f"{workload.name}: a {f.kind} finding blames greenlet "
                f"{_name(profile, f.greenlet)!r}, which only waits on the network:\n"
                f"{listing(profile)}")


def findings_of(profile: Profile, kind: str) -> list[Finding]:
    return [f for f in profile.findings if f.kind == kind]


def greenlet_count_named(message: str, count: int) -> bool:
    """Does *message* say how many greenlets ("10 greenlets", "10 of them", "x10")?"""
    return re.search(rf"(?<![\d.]){count}\s+(greenlets|of them)|[x×]\s?{count}\b",
                     message) is not None


# -- the scenarios ----------------------------------------------------------------------

LXML_RAW = Workload("lxml_raw.py")


def test_lxml_on_response_raw(server, tmp_path):
    # 40 KiB bodies in 20 pieces, 10 ms apart: ~0.2 s of reads per parse, 10 parses.
    xml = f"xml={server.url}/xml?size={40 * 1024}&pieces=20&delay=0.01"
    profile = run_cli(LXML_RAW, tmp_path, xml, slow(server))
    first = assert_first(profile, LXML_RAW, BLOCKED_READ, greenlet="feed-parser")
    # One cause, one finding: merged across the ten greenlets, and saying so.
    assert len(findings_of(profile, BLOCKED_READ)) == 1, listing(profile)
    assert greenlet_count_named(first.message, 10), (
        f"the message does not say the cause touched 10 greenlets:\n{first.message}")
    assert not findings_of(profile, DEADLOCK_RISK), "each parse had a parser of its own"
    assert_no_network_blame(profile, LXML_RAW)


UJSON_RAW = Workload("ujson_raw.py")


def test_ujson_on_response_raw(server, tmp_path):
    body = f"json={server.url}/json?size={30 * 1024}&pieces=15&delay=0.01"
    profile = run_cli(UJSON_RAW, tmp_path, body, slow(server))
    first = assert_first(profile, UJSON_RAW, BLOCKED_READ, greenlet="json-loader")
    assert len(findings_of(profile, BLOCKED_READ)) == 1, listing(profile)
    assert greenlet_count_named(first.message, 5), first.message
    assert_no_network_blame(profile, UJSON_RAW)


BLOCKING_SLEEP = Workload("blocking_sleep.py")


def test_unpatched_sleep_is_a_blocking_call(server, tmp_path):
    profile = run_cli(BLOCKING_SLEEP, tmp_path, "host=127.0.0.1", f"port={server.port}",
                      no_patch=True)
    first = assert_first(profile, BLOCKING_SLEEP, BLOCKING_CALL, greenlet="legacy-client")
    assert "time.sleep" in first.message, first.message
    assert not findings_of(profile, LOOP_BLOCKED), (
        "the same slices must not also be told as CPU/loop-blocked:\n" + listing(profile))
    assert_no_network_blame(profile, BLOCKING_SLEEP)


CPU_HOG = Workload("cpu_hog.py")


def test_cpu_hog_blocks_the_loop(server, tmp_path):
    profile = run_cli(CPU_HOG, tmp_path, slow(server))
    first = assert_first(profile, CPU_HOG, LOOP_BLOCKED, greenlet="report-builder")
    # The slice was CPU: told as such, not as a blocking call.
    assert first.extra.get("cause", "cpu") == "cpu", listing(profile)
    assert not findings_of(profile, BLOCKING_CALL), listing(profile)
    assert_no_network_blame(profile, CPU_HOG)


COMPRESS = Workload("compress_between_fetches.py")


def test_cpu_between_fetches_is_named_where_it_was_spent(server, tmp_path):
    """Each slice ends at the next fetch; the CPU samples `geventperf run` takes put
    the cost on the compress line, and the finding names both."""
    profile = run_cli(COMPRESS, tmp_path, slow(server, 0.02))
    first = assert_first(profile, COMPRESS, LOOP_BLOCKED, greenlet="archiver")
    assert first.extra.get("cause") == "cpu", listing(profile)
    assert "CPU samples put" in first.message \
        and "where the work stopped, not where it ran" in first.message, first.message
    assert profile.cpu_samples is not None and profile.cpu_samples.count, listing(profile)


def test_compression_in_the_threadpool_holds_no_loop(server, tmp_path):
    profile = run_cli(COMPRESS, tmp_path, slow(server, 0.02), "mode=threadpool")
    blamed = [f for f in profile.findings if f.kind in (LOOP_BLOCKED, LOOP_HELD)]
    assert not blamed, listing(profile)


POOL_AND_HOUSEKEEPER = Workload("pool_and_housekeeper.py")


def test_a_blocker_elsewhere_does_not_hide_a_full_pool(server, tmp_path):
    profile = run_cli(POOL_AND_HOUSEKEEPER, tmp_path, slow(server, 0.1))
    [blocking] = findings_of(profile, BLOCKING_CALL)
    assert POOL_AND_HOUSEKEEPER.site(blocking) in POOL_AND_HOUSEKEEPER.lines("culprit"), \
        listing(profile)
    assert "housekeeper" in blocking.message, listing(profile)
    [pool] = findings_of(profile, POOL_FULL)
    [line] = POOL_AND_HOUSEKEEPER.lines("pool")
    assert f"pool_and_housekeeper.py:{line}" in pool.message, listing(profile)


KEEPALIVE = Workload("keepalive_service.py")


def test_a_services_idle_connections_are_not_where_it_waited(server, tmp_path):
    from geventperf.formats._glance import at_a_glance
    profile = run_cli(KEEPALIVE, tmp_path, slow(server, 0.1))
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, listing(profile)
    where = dict(at_a_glance(profile))["Where was the waiting?"]
    [line] = KEEPALIVE.lines("culprit")
    assert f"keepalive_service.py:{line})" in where and "idle, not a cost" in where, where


SERVER_POOL = Workload("server_pool.py")


def test_a_server_pool_held_by_idle_connections_is_server_pool_full(tmp_path):
    """Before: no finding; the fallback called the kept-alive connections' waiting
    "idle, not a cost" while three quarters of the clients queued in the backlog."""
    profile = run_cli(SERVER_POOL, tmp_path)
    first = profile.findings[0]
    assert first.kind == SERVER_POOL_FULL, listing(profile)
    assert first.extra["pool_size"] == 4 and first.extra["connections"] == 12, \
        listing(profile)
    assert first.extra["idle_held"] >= 2.0 and "spawn=4" in first.message, listing(profile)


def test_a_server_pool_held_by_busy_connections_is_server_pool_full(kept_server, tmp_path):
    """Before: "FINDINGS: none" and "mostly I/O" at the handler's call, while the other
    clients queued in the backlog (an unseen address service with spawn=4 for 24
    clients: p99 3.6 s; 5.2x the throughput with spawn=256)."""
    profile = run_cli(SERVER_POOL, tmp_path, f"upstream={kept_server.url}/slow?delay=0.05",
                      "pause=0")
    first = profile.findings[0] if profile.findings else None
    assert first is not None and first.kind == SERVER_POOL_FULL, listing(profile)
    assert first.extra["busy"] and first.extra["pool_size"] == 4, listing(profile)
    assert SERVER_POOL.site(first) in SERVER_POOL.lines("upstream"), listing(profile)
    assert "spawn=4" in first.message and "backlog" in first.message, first.message
    profile = run_cli(SERVER_POOL, tmp_path, f"upstream={kept_server.url}/slow?delay=0.05",
                      "pause=0", "spawn=64")
    assert not findings_of(profile, SERVER_POOL_FULL), listing(profile)


def test_a_server_pool_larger_than_its_connections_is_not_full(tmp_path):
    profile = run_cli(SERVER_POOL, tmp_path, "spawn=64")
    assert not findings_of(profile, SERVER_POOL_FULL), listing(profile)


N_PLUS_ONE = Workload("n_plus_one.py")


def test_a_handlers_upstream_calls_in_turn_are_sequential_calls(server, tmp_path):
    """Before: no finding; "mostly I/O" at the call line, which reads as a slow
    upstream."""
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.01))
    first = assert_first(profile, N_PLUS_ONE, SEQUENTIAL_CALLS)
    # calls are counted by their waits for a head: on a crowded machine an answer may be
    # there before its read, uncounted (fewer, never more)
    assert first.extra["responses"] == 48, listing(profile)
    assert 4 * 48 <= first.extra["calls"] <= 8 * 48, listing(profile)


def test_a_handlers_one_batch_call_is_no_sequential_calls(server, tmp_path):
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.01), "mode=batch")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


def test_a_handlers_three_calls_in_turn_are_sequential_calls(server, tmp_path):
    """Before: no finding (the N+1 story needed four calls a response); "mostly I/O" at
    the call line, which reads as a slow upstream.  Three different calls may each need
    the one before: the message says when that is the floor.  Calls of 50 ms: at 10 ms,
    the 40 ms the server's own responses wait for their clients' delayed ACKs
    (server-nagle, rightly first) would outweigh the sequence."""
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.05), "mode=three")
    first = assert_first(profile, N_PLUS_ONE, SEQUENTIAL_CALLS, marker="three")
    assert first.extra["responses"] == 48, listing(profile)
    assert 2 * 48 <= first.extra["calls"] <= 3 * 48, listing(profile)
    assert "gevent.joinall" in first.message and "floor" in first.message


def test_a_handlers_calls_each_fed_the_answer_before_are_no_sequential_calls(server,
                                                                             tmp_path):
    """Before (an unseen search service: spell, synonyms, index and rank, each asked
    with the answer before): told to make them together, "48 s", where any concurrency
    gained 2 %.  The source shows each call reading what the one before returned."""
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.05), "mode=chain")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


def test_a_handlers_three_calls_made_together_are_no_sequential_calls(server, tmp_path):
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.05), "mode=together")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


def test_three_calls_in_turn_under_in_process_load_clients_are_sequential_calls(server,
                                                                                tmp_path):
    """Before (an unseen gateway's in-process load clients): no sequential-calls, the
    clients' waits for the pages taken for the handlers' calls made elsewhere, at
    once."""
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.05), "mode=three",
                      "clients=here")
    first = assert_first(profile, N_PLUS_ONE, SEQUENTIAL_CALLS, marker="three")
    assert first.extra["responses"] == 48, listing(profile)


def test_three_calls_in_turn_to_an_in_process_upstream_are_sequential_calls(tmp_path):
    """Before (an unseen product page's five upstreams, served in its own process):
    "FINDINGS: none", the stand-ins' responses counted as the service's (0.8 calls per
    response) and the handlers' calls to them taken for load clients'."""
    profile = run_cli(N_PLUS_ONE, tmp_path, "mode=three", "clients=here", "upstream=here")
    first = assert_first(profile, N_PLUS_ONE, SEQUENTIAL_CALLS, marker="three")
    assert first.extra["responses"] == 48, listing(profile)
    assert "gevent.joinall" in first.message, first.message


def test_three_calls_together_under_in_process_load_clients_are_no_sequential_calls(
        server, tmp_path):
    profile = run_cli(N_PLUS_ONE, tmp_path, slow(server, 0.05), "mode=together",
                      "clients=here")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


BATCH_BARRIER_JOB = Workload("batch_barrier.py")


def test_batches_held_by_their_slowest_member_are_a_batch_barrier(server, tmp_path):
    """Before: no finding ("mostly I/O" at the call line, a slow upstream), or
    cpu-starved on a loop busy a sixth of the run."""
    profile = run_cli(BATCH_BARRIER_JOB, tmp_path, slow(server, 0.01))
    first = assert_first(profile, BATCH_BARRIER_JOB, BATCH_BARRIER, greenlet="main")
    assert first.extra["batches"] == 6 and first.extra["peak"] == 16, listing(profile)


def test_one_pool_fed_all_items_is_no_batch_barrier(server, tmp_path):
    profile = run_cli(BATCH_BARRIER_JOB, tmp_path, slow(server, 0.01), "mode=pool")
    assert not findings_of(profile, BATCH_BARRIER), listing(profile)


AWAITED = Workload("awaited_in_turn.py")


def test_greenlets_awaited_as_they_are_spawned_are_awaited_in_turn(server, tmp_path):
    """Before (an unseen workload's handlers awaiting five pooled calls in turn):
    serial-bottleneck named gevent's imap runner, blocked on a Pool slot, as the busy
    feeder, with nothing to act on."""
    profile = run_cli(AWAITED, tmp_path, slow(server, 0.03))
    first = assert_first(profile, AWAITED, AWAITED_IN_TURN, greenlet="handle")
    assert first.extra["spawners"] == 40 and first.extra["children"] == 160, \
        listing(profile)


def test_greenlets_spawned_together_are_not_awaited_in_turn(server, tmp_path):
    profile = run_cli(AWAITED, tmp_path, slow(server, 0.03), "mode=together")
    assert not findings_of(profile, AWAITED_IN_TURN), listing(profile)


POOL_ROUNDS = Workload("pool_rounds.py")


def test_rounds_of_a_full_pools_map_are_not_awaited_in_turn(kept_server, tmp_path):
    """Before (an unseen tracking poller's four rounds through a full Pool(60), each
    polling what the one before left open): awaited-in-turn first, "could save 7.03 s",
    where starting them together would have queued behind the same slots."""
    profile = run_cli(POOL_ROUNDS, tmp_path, "kept={}/slow?delay=0.02".format(kept_server.url))
    assert not findings_of(profile, AWAITED_IN_TURN), listing(profile)


JOB_IN_TURN = Workload("job_calls_in_turn.py")
JOB_URL = "kept={}/slow?delay=0.01"


def test_a_job_fetching_its_items_one_after_another_makes_sequential_calls(kept_server,
                                                                           tmp_path):
    """Before (an unseen workload fetching 1 600 details in one greenlet): "FINDINGS:
    none", and the summary's "mostly I/O at Session.get" read as a slow upstream."""
    profile = run_cli(JOB_IN_TURN, tmp_path, JOB_URL.format(kept_server.url))
    first = assert_first(profile, JOB_IN_TURN, SEQUENTIAL_CALLS, greenlet="main")
    assert first.extra["calls"] == 150 and first.extra["peak_in_use"] == 1, \
        listing(profile)


def test_a_job_fetching_its_items_together_makes_no_sequential_calls(kept_server,
                                                                     tmp_path):
    profile = run_cli(JOB_IN_TURN, tmp_path, JOB_URL.format(kept_server.url),
                      "mode=together")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


CRAWLERS = Workload("crawlers_in_turn.py")
CRAWLERS_URL = "kept={}/slow?delay=0.02"
QUEUE_JOBS = Workload("queue_jobs_in_turn.py")


@pytest.mark.parametrize("workload, greenlet, callers, calls",
                         [(CRAWLERS, "crawler", 3, 120), (QUEUE_JOBS, "worker", 6, 180)],
                         ids=["crawlers", "queue-workers"])
def test_a_few_greenlets_each_making_their_calls_in_turn_make_sequential_calls(
        workload, greenlet, callers, calls, kept_server, tmp_path):
    """Before: "FINDINGS: none", as one greenlet's loop alone was told (an unseen price
    watcher's three shop crawlers, 84 calls each in turn: fetched together, the run took
    82 % less), and over 4 calls in flight on average were taken for a pool of workers
    sized on purpose (an unseen notifier's 8 queue workers, each sending a
    notification's 4 channel calls in turn: made together, 61 % less)."""
    profile = run_cli(workload, tmp_path, CRAWLERS_URL.format(kept_server.url))
    first = assert_first(profile, workload, SEQUENTIAL_CALLS, greenlet=greenlet)
    assert first.extra["callers"] == callers and first.extra["calls"] == calls, \
        listing(profile)


@pytest.mark.parametrize("workload", [CRAWLERS, QUEUE_JOBS], ids=["crawlers", "queue-workers"])
def test_a_few_greenlets_making_their_calls_together_make_no_sequential_calls(
        workload, kept_server, tmp_path):
    profile = run_cli(workload, tmp_path, CRAWLERS_URL.format(kept_server.url),
                      "mode=together")
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


def test_a_few_greenlets_calling_a_stand_in_server_of_their_own_make_sequential_calls(
        tmp_path):
    """Before: a program serving its own stand-in upstream went to the handlers' story
    only, which found no calls in its handlers and told nothing."""
    profile = run_cli(CRAWLERS, tmp_path, "shop=own")
    first = assert_first(profile, CRAWLERS, SEQUENTIAL_CALLS, greenlet="crawler")
    assert first.extra["callers"] == 3 and first.extra["calls"] == 120, listing(profile)


BACKOFF = Workload("backoff_in_slots.py")
BACKOFF_URL = "kept={}/slow?delay=0.05"


def test_jobs_asleep_in_their_slots_after_each_failure_are_a_retry_back_off(kept_server,
                                                                            tmp_path):
    """Before (three unseen clients: a retry back-off, a polled token bucket, a breaker's
    cool-down): pool-full said "a larger Pool", which only held more sleepers; then it
    told the program's timer under the kind that reads "make the pool larger" (an unseen
    retry job).  A sleep per failed answer is the program's own retry back-off, and the
    full pool whose jobs slept there has no finding of its own."""
    profile = run_cli(BACKOFF, tmp_path, BACKOFF_URL.format(kept_server.url))
    first = assert_first(profile, BACKOFF, RETRY_BACKOFF, marker="backoff")
    [backoff] = BACKOFF.lines("backoff")
    assert first.extra["site"].endswith(f"/{BACKOFF.name}:{backoff}:sync"), listing(profile)
    assert first.extra["sleeps"] == 20 and first.extra["errors"] == 20, listing(profile)
    assert "the program's own back-off" in first.message, first.message
    assert "answered 20 of 80 requests with an error status (503 x20)" in first.message, \
        first.message
    assert not findings_of(profile, POOL_FULL), listing(profile)


def test_a_back_off_from_429s_is_told_to_send_fewer_at_once(kept_server, tmp_path):
    """Before (two unseen clients spawning hundreds of calls at an upstream that takes
    a few): "keep the back-off short", which made more 429s; a Pool(8) was the cure."""
    profile = run_cli(BACKOFF, tmp_path, BACKOFF_URL.format(kept_server.url), "status=429",
                      "slots=30")
    first = assert_first(profile, BACKOFF, RETRY_BACKOFF, marker="backoff")
    assert "20 of the 20 were 429 (Too Many Requests)" in first.message, first.message
    assert "Fix: send fewer at once" in first.message, first.message


def test_a_back_off_from_429s_with_few_in_flight_is_told_to_pace_the_calls(kept_server,
                                                                          tmp_path):
    """Before (an unseen warehouse sync's 4 workers backing off 0.5-2 s after each 429):
    "send fewer at once", which ran slower; pacing the calls at the API's rate and
    sleeping its reset hint took 36 % off the run."""
    profile = run_cli(BACKOFF, tmp_path, BACKOFF_URL.format(kept_server.url), "status=429")
    first = assert_first(profile, BACKOFF, RETRY_BACKOFF, marker="backoff")
    assert "with up to 6 requests in flight at once" in first.message, first.message
    assert "Fix: pace the calls at the upstream's rate" in first.message, first.message


def test_a_back_off_from_404s_is_told_to_stop_retrying_them(kept_server, tmp_path):
    profile = run_cli(BACKOFF, tmp_path, BACKOFF_URL.format(kept_server.url), "status=404")
    first = assert_first(profile, BACKOFF, RETRY_BACKOFF, marker="backoff")
    assert "20 of the 20 error answers were 404, which no retry changes" in first.message \
        and "Fix: stop retrying it" in first.message, first.message


def test_jobs_that_back_off_briefly_are_not_told_as_asleep(kept_server, tmp_path):
    profile = run_cli(BACKOFF, tmp_path, BACKOFF_URL.format(kept_server.url),
                      "backoff=0.01")
    assert not any(f.extra.get("slept_in_slots") for f in findings_of(profile, POOL_FULL)), \
        listing(profile)


SLOW_HOST = Workload("fanout_slow_host.py")


def _holds_the_slow_answers(found) -> bool:
    """The tail told holds the slow host's 12 slow answers (every eighth of its 96
    calls), not its usual pace: a fast answer a starved CPU delayed past the tail's
    floor may join them (CI once counted 13), a quarter of its calls may not."""
    return 12 <= found.extra["tail"] < 96 // 4


def test_a_fan_out_waiting_for_one_upstreams_tail_is_told_with_that_upstream(tmp_path):
    """Before (an unseen ad exchange: one bidder slow on 12 % of its calls, joinall
    without the request's deadline): "FINDINGS: none"; the deadline took 47 % off."""
    profile = run_cli(SLOW_HOST, tmp_path)
    [found] = findings_of(profile, "fanout-tail")
    assert profile.findings[0] is found, listing(profile)
    assert SLOW_HOST.site(found) in SLOW_HOST.lines("culprit"), listing(profile)
    # the slow upstream is the one on the lowest port of the four
    hosts = sorted((e["pool"] for e in profile.events if e["kind"] == "urllib3-pool"),
                   key=lambda h: int(h.rsplit(":", 1)[1]))
    assert found.extra["host"] == hosts[0] and found.extra["hosts"] == 4, found.extra
    assert _holds_the_slow_answers(found), found.extra
    assert "gevent.joinall(jobs, timeout=remaining)" in found.message


def test_a_fan_out_through_a_groups_map_is_told_at_the_map(tmp_path):
    """Before: the same fan-out written as Group().map(ask, urls) was not told, its
    join being a wait in gevent's pool.py beneath the program's line."""
    profile = run_cli(SLOW_HOST, tmp_path, "mode=map")
    [found] = findings_of(profile, "fanout-tail")
    assert profile.findings[0] is found, listing(profile)
    assert found.extra["join_site"].endswith(
        f":{next(iter(SLOW_HOST.lines('mapped')))}:handle"), found.extra
    assert _holds_the_slow_answers(found) and found.extra["calls"] == 384, found.extra


def test_a_fan_outs_tail_slept_in_urllib3s_retry_is_the_back_off(tmp_path):
    """Before (an unseen translation gateway: one backend answered 503 with Retry-After:
    1 at once): told first as a slow tail to bound with a deadline and hedge, which
    would have returned partial documents; the back-off was the cause."""
    profile = run_cli(SLOW_HOST, tmp_path, "mode=retry")
    assert not findings_of(profile, "fanout-tail"), listing(profile)
    assert findings_of(profile, "retry-backoff"), listing(profile)


def test_a_fan_out_bounded_by_a_deadline_is_not_told(tmp_path):
    profile = run_cli(SLOW_HOST, tmp_path, "mode=deadline")
    assert not findings_of(profile, "fanout-tail"), listing(profile)


POOL_BESIDE_POLLERS = Workload("pool_beside_pollers.py")


def test_a_pools_jobs_are_the_greenlets_it_started_not_their_spawners_others(kept_server,
                                                                            tmp_path):
    """Before (an unseen status backend): the pollers its main greenlet started with
    gevent.spawn beside a full Pool were counted as the Pool's jobs, and their sleeps
    were told first as "a timer paced the work", 34 s, where the slots cost 0.4 s."""
    profile = run_cli(POOL_BESIDE_POLLERS, tmp_path, "kept={}/slow?delay=0.03".format(
        kept_server.url))
    assert profile.meta["pool_jobs"] == {"__main__.probe": 96}, profile.meta["pool_jobs"]
    for found in findings_of(profile, POOL_FULL):
        assert not found.extra["slept_in_slots"], listing(profile)
        assert found.extra["job_names"] == ["__main__.probe"], listing(profile)


GATE = Workload("refresh_gate.py")
GATE_URLS = ("config={}/slow?delay=0.2", "kept={}/slow?delay=0.01")


def test_a_gate_closed_around_each_refresh_is_told_as_a_gate(kept_server, tmp_path):
    """Before (an unseen service whose config refresher cleared its Event for each
    reload): serial-bottleneck's only fix was "several such greenlets", which made the
    refreshes more frequent, not the waits fewer."""
    profile = run_cli(GATE, tmp_path, *(u.format(kept_server.url) for u in GATE_URLS))
    first = assert_first(profile, GATE, SERIAL_BOTTLENECK, marker="feeder",
                         greenlet="refresher")
    assert first.extra["gate"] is True, listing(profile)
    [wait] = GATE.lines("culprit")
    assert f"{GATE.name}:{wait}:worker" in first.message, first.message
    assert "build the new value and swap it in" in first.message, first.message


def test_a_gate_closed_by_a_refresher_that_sleeps_between_reloads(kept_server, tmp_path):
    """Before (an unseen pricing service): the refresher slept between its reloads, so
    it was no busy feeder, and the gate, a third of the waiting, got "FINDINGS: none"."""
    urls = ("config={}/slow?delay=0.15", "kept={}/slow?delay=0.02")
    profile = run_cli(GATE, tmp_path, *(u.format(kept_server.url) for u in urls),
                      "pause=0.25", "calls=80")
    gates = [f for f in findings_of(profile, SERIAL_BOTTLENECK) if f.extra.get("gate")]
    assert gates and gates[0] is profile.findings[0], listing(profile)
    [wait], [feeder] = GATE.lines("culprit"), GATE.lines("feeder")
    assert GATE.site(gates[0]) == wait, listing(profile)
    assert f"{GATE.name}:{feeder}:refresher" in gates[0].message, gates[0].message
    assert "build the new value and swap it in" in gates[0].message, gates[0].message
    profile = run_cli(GATE, tmp_path, *(u.format(kept_server.url) for u in urls),
                      "pause=0.25", "calls=80", "mode=swap")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


def test_a_value_swapped_in_gates_nobody(kept_server, tmp_path):
    profile = run_cli(GATE, tmp_path, *(u.format(kept_server.url) for u in GATE_URLS),
                      "mode=swap")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


SHARED_RESULT = Workload("shared_result.py")
SHARED_URLS = ("token={}/slow?delay=0.15", "kept={}/slow?delay=0.01")


def test_a_renewal_every_caller_waits_for_is_told_as_a_result_awaited_together(
        kept_server, tmp_path):
    """Before (an unseen quote client whose callers all waited on a single-flight token
    renewal's AsyncResult while their token was still valid): "FINDINGS: none" beside
    an in-process token server; alone, critical-path told the renewals' calls to be
    made together."""
    profile = run_cli(SHARED_RESULT, tmp_path,
                      *(u.format(kept_server.url) for u in SHARED_URLS))
    first = assert_first(profile, SHARED_RESULT, SERIAL_BOTTLENECK)
    [feeder] = SHARED_RESULT.lines("feeder")
    assert first.extra["setter_site"].endswith(f"{SHARED_RESULT.name}:{feeder}:Tokens._fetch"), \
        listing(profile)
    assert "'renew'" in first.message and "refresh ahead" in first.message, first.message
    assert not findings_of(profile, CRITICAL_PATH), listing(profile)


def test_a_renewal_nobody_waits_for_is_no_result_awaited_together(kept_server, tmp_path):
    profile = run_cli(SHARED_RESULT, tmp_path,
                      *(u.format(kept_server.url) for u in SHARED_URLS), "mode=ahead")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


def test_a_fetch_each_caller_awaits_alone_is_no_result_awaited_together(kept_server,
                                                                          tmp_path):
    """One waiter per call: each job's own sub-task, nothing shared to refresh ahead."""
    profile = run_cli(SHARED_RESULT, tmp_path,
                      *(u.format(kept_server.url) for u in SHARED_URLS), "mode=own", "jobs=300")
    assert not [f for f in findings_of(profile, SERIAL_BOTTLENECK)
                if "one result another greenlet computes" in f.message], listing(profile)


@pytest.mark.parametrize("workload, arg", [
    # an unseen notification hub, healthy: 400 subscribers' 16 400 waits at their
    # outboxes beside four replicators' four long calls
    (Workload("outbox_subscribers.py"), "slow={}/slow?delay=1.0"),
    # an unseen ingest's 6 index writers woken 2.3 times per page call of 16 fetchers
    (Workload("paged_queue.py"), "page={}/slow?delay=0.05"),
], ids=["woken-more-often-than-the-calls", "fed-by-producers-making-many-calls"])
def test_waiters_at_a_queue_await_no_shared_result(kept_server, tmp_path, workload, arg):
    """Before: both told as a result awaited together, "refresh ahead"."""
    profile = run_cli(workload, tmp_path, arg.format(kept_server.url))
    # the rule itself, as serial-bottleneck's busy-feeder story may come first here
    assert shared_result(profile) == [], listing(profile)


FANOUT_RELAY = Workload("fanout_relay.py")


def test_a_relay_writing_to_its_subscribers_in_turn_is_write_blocked(tmp_path):
    """Before (an unseen pub/sub relay, 94 % of its run in sendall inside its loop over
    the subscribers): the subscribers' socket reads told as too few workers, with their
    kill() of a heartbeat greenlet taken for their queue."""
    profile = run_cli(FANOUT_RELAY, tmp_path, "mode=fanout")
    first = assert_first(profile, FANOUT_RELAY, WRITE_BLOCKED,
                         greenlet="gevent.baseserver._handle_and_close_when_done")
    assert "called from" in first.message and ":handle," in first.message, first.message
    assert first.extra["ranks_first"], listing(profile)
    assert WORKERS_SATURATED not in {f.kind for f in profile.findings}, listing(profile)


def test_a_writer_per_subscriber_is_not_write_blocked(tmp_path):
    """The fix: each subscriber's own greenlet blocks only for its own pauses, and the
    subscribers are still no workers short of input."""
    profile = run_cli(FANOUT_RELAY, tmp_path, "mode=queues")
    kinds = {f.kind for f in profile.findings}
    assert not kinds & {WRITE_BLOCKED, WORKERS_SATURATED}, listing(profile)


HANDLER_STAMPEDE = Workload("handler_stampede.py")


def test_handlers_refilling_a_cache_of_few_keys_are_a_duplicate_in_flight(kept_server,
                                                                          tmp_path):
    """Before (an unseen quote gateway's 64 handlers refilling a 1 s cache of 6 symbols):
    "FINDINGS: none", as a program asking few URLs and nothing else was taken for a load
    test."""
    profile = run_cli(HANDLER_STAMPEDE, tmp_path, f"price={kept_server.url}/slow?delay=0.15")
    first = assert_first(profile, HANDLER_STAMPEDE, DUPLICATE_IN_FLIGHT)
    assert "such requests in all, for this URL and others" in first.message, first.message


def test_handlers_fetching_one_key_at_a_time_are_no_duplicate_in_flight(kept_server,
                                                                        tmp_path):
    profile = run_cli(HANDLER_STAMPEDE, tmp_path, f"price={kept_server.url}/slow?delay=0.15",
                      "mode=single")
    assert not findings_of(profile, DUPLICATE_IN_FLIGHT), listing(profile)


REVALIDATED = Workload("revalidated_copies.py")


def test_a_cache_revalidating_every_copy_is_told_by_its_304s(tmp_path):
    """Before (an unseen package mirror revalidating its 100 copies upstream on every
    client's request, its expiry stored from time.monotonic() and compared with
    time.time()): "FINDINGS: none", its only upstream read as a program asking few things
    in all; an expiry that held took 46 % off the run."""
    profile = run_cli(REVALIDATED, tmp_path)
    first = assert_first(profile, REVALIDATED, REPEATED_REQUEST)
    assert "answered 304 Not Modified" in first.message, first.message
    assert "time.monotonic() stored and time.time() compared" in first.message
    [upstream] = [e for e in profile.events if e["kind"] == "urllib3-pool"
                  and e["pool"] == first.extra["host"]]
    # every request but each document's first was a revalidation
    assert upstream["not_modified"] == upstream["gets"] - upstream["distinct_gets"] > 0, \
        upstream


def test_a_cache_whose_expiry_holds_is_no_repeated_request(tmp_path):
    profile = run_cli(REVALIDATED, tmp_path, "mode=fixed")
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


ONE_OFF_CACHE = Workload("oneoff_cache.py")


@pytest.mark.parametrize("mode, set_aside", [("signed", "nonce"), ("token", "_tk")])
def test_a_cache_keyed_on_one_off_urls_is_told_by_what_they_asked(tmp_path, mode, set_aside):
    """Before (an unseen enricher keeping its 24 teams' profiles under URLs signed anew
    at every request; an unseen podcast crawler keeping its HEAD checks under tracking
    tokens its feeds renewed): every URL differed, and the first was told to make two
    lookups concurrently (-43 %), where a cache keyed on the team took 73 % off the run;
    the second was told nothing."""
    profile = run_cli(ONE_OFF_CACHE, tmp_path, f"mode={mode}")
    first = assert_first(profile, ONE_OFF_CACHE, REPEATED_REQUEST)
    assert first.extra.get("one_off"), first.message
    assert "never hits" in first.message and set_aside in first.message, first.message
    [upstream] = [e for e in profile.events if e["kind"] == "urllib3-pool"
                  and e["pool"] == first.extra["host"]]
    # the premise: no URL was asked twice, the 12 teams again and again (all but the rare
    # token of 12 hex digits with no letter, about 1 in 280, which is no token to tell)
    assert upstream["distinct_keys"] == upstream["gets"], upstream
    assert upstream["oneoff_gets"] >= 0.97 * upstream["gets"], upstream
    assert upstream["distinct_oneoff"] == first.extra["distinct"] == 12, upstream


def test_a_cache_keyed_before_signing_is_no_repeated_request(tmp_path):
    profile = run_cli(ONE_OFF_CACHE, tmp_path, "mode=fixed")
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


MOVING_BOARD = Workload("moving_board.py")


def test_clients_polling_boards_that_change_are_no_repeated_request(tmp_path):
    """Before (an unseen scoreboard's clients polling four boards 710 times, each board
    changing 9-14 times): "its answer most likely did not change between calls", and a
    cache that would have served the first scores for ever."""
    profile = run_cli(MOVING_BOARD, tmp_path)
    [front] = [e for e in profile.events if e["kind"] == "urllib3-pool"
               and any(site.endswith(":client") for site, _n in e["call_sites"])]
    # the premise: each board polled many times, its answer changing at refreshes
    assert front["gets"] >= 20 * 4, front
    assert all(changes >= 3 for _key, changes in front["answers_changed"]), front
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


PARSE_PER_USE = Workload("parse_per_use.py")


def test_a_json_text_kept_and_parsed_at_every_use_is_told_as_parsed_again(tmp_path):
    """Before (an unseen package mirror parsing its 100 cached project documents 1 280
    times): "ask the upstream for less, or ujson" (ujson saved 1 %); keeping the parsed
    object took 31 % off its run."""
    profile = run_cli(PARSE_PER_USE, tmp_path)
    first = assert_first(profile, PARSE_PER_USE, LOOP_SATURATED)
    assert "parsing the same JSON again and again: 400 documents parsed" in first.message, \
        first.message
    assert "keep the parsed object" in first.message


def test_a_json_document_parsed_once_is_not_told_as_parsed_again(tmp_path):
    profile = run_cli(PARSE_PER_USE, tmp_path, "mode=fixed")
    assert not any("same JSON again" in f.message for f in profile.findings), \
        listing(profile)


SLOW_LOG = Workload("slow_log_handler.py")


def test_records_queued_behind_a_slow_log_handler_are_told_at_the_logging_line(tmp_path):
    """Before (a left-alone case): lock-contended named logging's Handler.acquire in the
    standard library as the line, and said to hold the lock for less."""
    profile = run_cli(SLOW_LOG, tmp_path)
    first = assert_first(profile, SLOW_LOG, LOCK_CONTENDED)
    assert first.extra["logging_lock"] is True, listing(profile)
    [line] = SLOW_LOG.lines("culprit")
    assert first.extra["site"].endswith(f"{SLOW_LOG.name}:{line}:work"), listing(profile)
    assert "QueueHandler" in first.message, first.message


def test_records_handed_to_a_queue_handler_queue_for_no_lock(tmp_path):
    profile = run_cli(SLOW_LOG, tmp_path, "mode=queue")
    assert not findings_of(profile, LOCK_CONTENDED), listing(profile)


LOCKSTEP = Workload("queue_lockstep.py")
LOCKSTEP_URLS = ("page={}/slow?delay=0.2", "load={}/slow?delay=0.01")


def test_stages_taking_turns_at_a_queue_of_one_are_in_lockstep(kept_server, tmp_path):
    """Before (an unseen ETL job joining its stages with Queue(maxsize=1)): "FINDINGS:
    none", the summary naming main's joinall."""
    profile = run_cli(LOCKSTEP, tmp_path, *(u.format(kept_server.url) for u in LOCKSTEP_URLS))
    first = assert_first(profile, LOCKSTEP, QUEUE_LOCKSTEP, greenlet="extract")
    assert (first.extra["producer"], first.extra["consumer"]) == ("extract", "load"), \
        listing(profile)


def test_stages_with_room_to_work_ahead_are_not_in_lockstep(kept_server, tmp_path):
    profile = run_cli(LOCKSTEP, tmp_path, *(u.format(kept_server.url) for u in LOCKSTEP_URLS),
                      "maxsize=1000")
    assert not findings_of(profile, QUEUE_LOCKSTEP), listing(profile)


SLOW_LOADER_URLS = ("page={}/slow?delay=0.005", "load={}/slow?delay=0.02")


def test_a_producer_behind_one_slow_consumer_waits_on_a_full_queue(kept_server, tmp_path):
    """Before (an unseen feed paged into Queue(maxsize=1) for a single poster): "FINDINGS:
    none", "mostly I/O"; the producer's 70 % of the run in put() went untold."""
    profile = run_cli(LOCKSTEP, tmp_path,
                      *(u.format(kept_server.url) for u in SLOW_LOADER_URLS))
    first = assert_first(profile, LOCKSTEP, QUEUE_FULL, greenlet="extract")
    assert first.extra["consumer"] == "load", listing(profile)


def test_a_producer_with_consumers_enough_waits_on_no_full_queue(kept_server, tmp_path):
    profile = run_cli(LOCKSTEP, tmp_path,
                      *(u.format(kept_server.url) for u in SLOW_LOADER_URLS), "consumers=4")
    assert not findings_of(profile, QUEUE_FULL), listing(profile)
    # (four workers taking records from a queue, a post each: a pool sized for its
    # input, workers-saturated's to judge, not a loop's calls in turn)
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


POOLED_PRODUCERS = Workload("pooled_producers.py")
POOLED_URLS = ("page={}/slow?delay=0.2", "write={}/slow?delay=0.005")


def test_pooled_producers_behind_one_writer_wait_on_a_full_queue(body_server, tmp_path):
    """Before (an unseen ingester): pool-full, "a larger fetch Pool", which gained
    nothing; the fetchers' waits in put() went untold, each job living part of the run.
    When the puts are most of all the waiting (on a crowded machine the posts' answers
    come later), serial-bottleneck tells the same story first: the busy writer."""
    profile = run_cli(POOLED_PRODUCERS, tmp_path,
                      *(u.format(body_server.url) for u in POOLED_URLS))
    first = profile.findings[0] if profile.findings else None
    if first is not None and first.kind == SERIAL_BOTTLENECK:
        assert "greenlet 'write'" in first.message and "put() call at" in first.message, \
            listing(profile)
        return
    first = assert_first(profile, POOLED_PRODUCERS, QUEUE_FULL)
    assert first.extra["consumer"] == "write", listing(profile)
    assert "The consumer ('write') spent its time mostly waiting at" in first.message, \
        listing(profile)


def test_pooled_producers_with_writers_enough_wait_on_no_full_queue(body_server, tmp_path):
    profile = run_cli(POOLED_PRODUCERS, tmp_path,
                      *(u.format(body_server.url) for u in POOLED_URLS), "writers=6")
    assert not findings_of(profile, QUEUE_FULL), listing(profile)


TINY_PIECES = Workload("tiny_pieces.py")
TINY_URL = "kept={}/slow?delay=0.01&size=32768"


def test_a_body_iterated_a_byte_at_a_time_is_named_by_the_cpu_samples(kept_server,
                                                                       tmp_path):
    """Before (an unseen workload feeding a parser from iter_content()): CPU beneath
    requests was left out of the hot code as the client's own work, and the stall looks,
    biased to where the parser released the GIL, named the line below."""
    profile = run_cli(TINY_PIECES, tmp_path, TINY_URL.format(kept_server.url))
    first = profile.findings[0]
    assert first.kind in (LOOP_BLOCKED, LOOP_SATURATED), listing(profile)
    assert first.extra["stack_is"] == "cpu-samples", listing(profile)
    assert TINY_PIECES.site(first) in TINY_PIECES.lines("culprit"), listing(profile)
    assert "iter_content(chunk_size=" in first.message, first.message
    # one cause, one finding: the reads at that line are this finding's, not a second one
    assert first.extra["small_reads_site"].endswith(
        f"{TINY_PIECES.name}:{TINY_PIECES.site(first)}:reader"), listing(profile)
    assert not findings_of(profile, SMALL_BODY_READS), listing(profile)


def test_a_body_iterated_in_large_pieces_names_no_line(kept_server, tmp_path):
    profile = run_cli(TINY_PIECES, tmp_path, TINY_URL.format(kept_server.url), "chunk=65536")
    lines = TINY_PIECES.lines("culprit")
    assert not [f for f in profile.findings if TINY_PIECES.site(f) in lines], listing(profile)


SLOW_SERVER = Workload("slow_server.py")


def test_pure_waiting_on_a_slow_server_blames_nobody(server, tmp_path):
    profile = run_cli(SLOW_SERVER, tmp_path, slow(server, 0.3))
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"a pure network wait was blamed on the program:\n{listing(profile)}"
    assert_no_network_blame(profile, SLOW_SERVER, innocent=("fetcher",))
    assert not profile.findings, f"nothing is wrong here:\n{listing(profile)}"


CHUNKED_HOG = Workload("chunked_hog.py")


def test_cpu_in_chunks_under_the_threshold_holds_the_loop(server, tmp_path):
    """No slice reaches the block threshold and the loop is mostly idle, yet one greenlet's
    chunks are what everyone else queued behind: that greenlet is the first finding."""
    profile = run_cli(CHUNKED_HOG, tmp_path, slow(server, 0.1))
    # A loaded machine can stretch a 25 ms chunk past the 50 ms threshold: that slice is
    # then loop-blocked's, and either finding may come first; both must name the hasher
    # (and loop-held's mean slice may pass the threshold too: 54 ms under three hogs).
    blocked = findings_of(profile, LOOP_BLOCKED)
    kind = profile.findings[0].kind if blocked and profile.findings else LOOP_HELD
    assert kind in (LOOP_HELD, LOOP_BLOCKED), listing(profile)
    assert_first(profile, CHUNKED_HOG, kind, greenlet="hasher")
    held = findings_of(profile, LOOP_HELD)
    assert held or blocked, listing(profile)
    for f in held:
        assert _name(profile, f.greenlet) == "hasher", listing(profile)
    assert not findings_of(profile, LOOP_SATURATED), listing(profile)
    assert_no_network_blame(profile, CHUNKED_HOG, innocent=("fetcher",))


SLEEP0_PIECES = Workload("sleep0_pieces.py")


def test_cpu_pieces_behind_sleep0_hold_the_loop_in_a_row(server, tmp_path):
    """Pieces of 1.5 ms, each far under the threshold, yielding with gevent.sleep(0):
    gevent runs up to 50 such wake-ups before it polls for I/O, so the fetchers wait
    through some 50 pieces at a time.  The refresher is the first finding, told as
    pieces in a row, with gevent.idle() (not sleep(0)) as the way to yield."""
    profile = run_cli(SLEEP0_PIECES, tmp_path, slow(server, 0.02))
    # the refresher keeps the loop busy near the saturated mark; either story must
    # name it and tell its sleep(0)
    kind = profile.findings[0].kind if profile.findings else LOOP_HELD
    assert kind in (LOOP_HELD, LOOP_SATURATED), listing(profile)
    first = assert_first(profile, SLEEP0_PIECES, kind, greenlet="refresher")
    assert "gevent.sleep(0) between most of them" in first.message, first.message
    assert "gevent.idle()" in first.message, first.message
    if kind == LOOP_HELD:
        assert first.extra["zero_sleeps"] >= 100 and first.extra["slices_in_a_row"] >= 2
    assert_no_network_blame(profile, SLEEP0_PIECES, innocent=("fetcher",))


def test_cpu_pieces_behind_gevent_idle_hold_nothing(server, tmp_path):
    """The same pieces yielding with gevent.idle() (the fix the finding above gives): the
    loop polls between them, so nothing holds it in pieces of a row.  (A loaded machine
    may stretch the run's CPU into a busy loop: that story must then not tell pieces in
    a row.)"""
    profile = run_cli(SLEEP0_PIECES, tmp_path, slow(server, 0.02), "yield=idle")
    assert not findings_of(profile, LOOP_HELD), listing(profile)
    for f in profile.findings:
        assert "in a row" not in f.message, listing(profile)


SATURATED = Workload("saturated.py")


def test_saturated_loop(server, tmp_path):
    profile = run_cli(SATURATED, tmp_path, f"fast={server.url}/fast")
    assert profile.findings, "no findings on a saturated loop"
    first = profile.findings[0]
    assert first.kind == LOOP_SATURATED, listing(profile)
    assert "scorer" in first.message, f"the top holder is not named:\n{first.message}"
    if first.greenlet is not None:
        assert _name(profile, first.greenlet) == "scorer", listing(profile)
    site = SATURATED.site(first)
    if site is not None:  # where the holder switched out, if the finding names a stack
        assert site in SATURATED.lines("culprit"), listing(profile)
    assert_no_network_blame(profile, SATURATED, innocent=("health-check",))


SLEEP0_STORM = Workload("sleep0_storm.py")


def test_sleep0_storm(server, tmp_path):
    profile = run_cli(SLEEP0_STORM, tmp_path, slow(server))
    first = assert_first(profile, SLEEP0_STORM, SWITCH_STORM, greenlet="busy-yielder")
    assert not READ_STORY.search(first.message), (
        f"a sleep(0) loop is told as a read story:\n{first.message}")
    # One greenlet yielding to itself: nobody else wanted the loop, so it is no
    # saturated loop either (whose cure, less work per greenlet or more processes, would
    # not help).
    assert not findings_of(profile, LOOP_SATURATED), listing(profile)
    assert_no_network_blame(profile, SLEEP0_STORM)


THREADPOOL = Workload("threadpool_starved.py")
TINY_TASKS = Workload("tiny_tasks.py")


def test_tiny_tasks_handed_to_the_threadpool_are_the_cost(tmp_path):
    profile = run_cli(TINY_TASKS, tmp_path)
    first = assert_first(profile, TINY_TASKS, "threadpool-tiny-tasks")
    assert first.extra["tasks"] == 18000 and "call json.loads inline" in first.message, \
        listing(profile)
    inline = run_cli(TINY_TASKS, tmp_path, "mode=inline")
    assert not findings_of(inline, "threadpool-tiny-tasks"), listing(inline)


def test_threadpool_starvation(server, tmp_path):
    profile = run_cli(THREADPOOL, tmp_path, slow(server))
    first = assert_first(profile, THREADPOOL, THREADPOOL_SATURATED, greenlet="pool-user")
    assert re.search(r"\b2 threads?\b|\b(size|maxsize|of)\W{0,3}2\b", first.message), (
        f"the pool size (2) is not named:\n{first.message}")
    assert "sleep" in first.message, f"the function queued is not named:\n{first.message}"
    # the real time.sleep used no CPU in its threads: told as waiting there, with both
    # fixes (a cooperative call needs no thread; a blocking C call belongs on the pool)
    assert first.extra["tasks_waited"], first.message
    assert "blocking C call" in first.message, first.message
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"the hub sat idle; nothing held the loop:\n{listing(profile)}"
    assert_no_network_blame(profile, THREADPOOL)


LOCK_ELSEWHERE = Workload("lock_elsewhere.py")


def test_a_lock_held_by_another_greenlet_is_told_as_held_elsewhere(server, tmp_path):
    """The handlers hold the lock only for a copy; their own calls come after it: their
    with block never waited (the source tells its lines), so the lock was held
    elsewhere.  The finding must not send the reader to the handlers' call, and names
    the refresher's call made under the lock instead."""
    profile = run_cli(LOCK_ELSEWHERE, tmp_path, f"fast={server.url}/slow?delay=0.02",
                      f"slow={server.url}/slow?delay=0.08")
    first = assert_first(profile, LOCK_ELSEWHERE, LOCK_CONTENDED)
    culprit = min(LOCK_ELSEWHERE.lines("culprit"))
    assert f"own block, line {culprit + 1} of handler, never waited" in first.message, \
        first.message
    # the holder's block takes the same 'with' expression: told as the lock's holder
    assert "Blocks that take the same lock elsewhere" in first.message, first.message
    holder = min(LOCK_ELSEWHERE.lines("holder"))
    assert f"lock_elsewhere.py:{holder}:refresher" in first.message, first.message
    calls = min(LOCK_ELSEWHERE.lines("network-wait"))
    assert f"lock_elsewhere.py:{calls}" not in first.message, first.message


FANOUT_TAIL = Workload("fanout_tail.py")


def test_jobs_joining_a_slow_part_cost_their_joins(kept_server, tmp_path):
    """Before: the finding was right (bound the slow ones) but cost only the spawner's
    waits for a slot, one greenlet's, and a machine-level finding outranked it in an
    unseen product page whose timeout then saved 70 % of the run."""
    # (a server keeping its connections alive: connecting again per call is no cause
    # here).  Slow parts of 0.6 s: with 0.3 s the run lasted 0.75 s and its 224 traced
    # requests kept the loop 54 % busy on a slower host, past pool-full's idle-loop gate
    # (no finding in 6 of 8 runs); the slow tail, not the requests' CPU, is the story.
    profile = run_cli(FANOUT_TAIL, tmp_path, f"fast={kept_server.url}/slow?delay=0.01",
                      f"slow={kept_server.url}/slow?delay=0.6")
    first = profile.findings[0] if profile.findings else None
    assert first is not None and first.kind == POOL_FULL, listing(profile)
    pool = min(FANOUT_TAIL.lines("pool"))  # (its stack is gevent's own: Pool.map's)
    assert f"fanout_tail.py:{pool}:<module>" in first.message, first.message
    assert first.extra["joined_in_slots"], listing(profile)
    joins = min(FANOUT_TAIL.lines("culprit"))
    assert first.extra["jobs_site"].endswith(f"fanout_tail.py:{joins}:page"), listing(profile)
    assert first.cost_s == first.extra["joined_s"] > first.extra["slot_wait_s"], \
        listing(profile)
    assert "bound the slow ones" in first.message, first.message


CACHE_NEVER_HITS = Workload("cache_never_hits.py")


def test_a_cache_that_never_hits_is_told_by_its_repeated_urls(kept_server, tmp_path):
    """Before: an unseen worker whose lru_cache was keyed on a trace id was told "a
    larger Pool" (which fetched 16x as much); keyed on the user, the run took 2.4x less.
    The GETs asked for the same six URLs 120 times: the first finding says so."""
    # (answers after 60 ms: the loop idle most of the run even when other processes hold
    # the CPU -- at 30 ms, two CPU hogs and four busy testers starved it under pool-full's
    # half, 6 runs in 24, and nothing was told)
    profile = run_cli(CACHE_NEVER_HITS, tmp_path, f"slow={kept_server.url}/slow?delay=0.06")
    first = profile.findings[0] if profile.findings else None
    assert first is not None, listing(profile)
    assert "GET requests asked for only 6 different URLs" in first.message, listing(profile)
    assert "a cache in front of the call skips 114 of them" in first.message, first.message


CACHE_PER_GREENLET = Workload("cache_per_greenlet.py")


def test_a_cache_per_greenlet_is_told_by_its_few_urls(kept_server, body_server, tmp_path):
    """Before: an unseen invoice worker's profile cache, kept in threading.local, fetched
    60 profiles 2 500 times beside varied tax lookups: "FINDINGS: none"; one cache for
    the process took 43 % off the run."""
    args = (f"lookups={kept_server.url}/slow?delay=0.02",
            f"prices={body_server.url}/slow?delay=0.005")
    profile = run_cli(CACHE_PER_GREENLET, tmp_path, *args)
    first = assert_first(profile, CACHE_PER_GREENLET, REPEATED_REQUEST)
    assert first.extra["few_urls"] and first.extra["distinct"] == 6, listing(profile)
    assert "threading.local" in first.message, first.message
    shared = run_cli(CACHE_PER_GREENLET, tmp_path, *args, "cache=shared")
    assert not [f for f in shared.findings if f.extra.get("few_urls")], listing(shared)


BLOCKING_PEERS = Workload("blocking_peers.py")


def test_a_loop_held_by_short_blocking_calls_is_told_as_blocking(tmp_path):
    """Slices all under the threshold, all greenlets alike: only loop-saturated can
    speak, and its cure must be the blocking call, not the CPU."""
    profile = run_cli(BLOCKING_PEERS, tmp_path, no_patch=True)
    first = assert_first(profile, BLOCKING_PEERS, LOOP_SATURATED, greenlet="handler")
    assert "time.sleep" in first.message and "monkey" in first.message, first.message
    assert "CPU side" not in first.message, first.message
    assert first.extra["holders_off_cpu_s"] > 0, listing(profile)


BIG_LOCK = Workload("big_lock.py")


@pytest.mark.parametrize("lock", ["threading", "rlock", "semaphore", "acquire"])
def test_a_lock_held_across_slow_calls_is_lock_contended(server, tmp_path, lock):
    """rlock: before, a patched threading.RLock's waits were told as hand-offs (its
    standard-library frame looked like an Event's) and pool-full came first."""
    profile = run_cli(BIG_LOCK, tmp_path, slow(server, 0.1), f"lock={lock}")
    first = assert_first(profile, BIG_LOCK, LOCK_CONTENDED)
    kind = "threading lock" if lock in ("threading", "rlock") \
        else "gevent lock or semaphore"
    assert kind in first.message, listing(profile)
    assert "handler" in first.message and first.extra["waits"] >= 1, listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"the hub sat idle; nothing held the loop:\n{listing(profile)}"
    assert_no_network_blame(profile, BIG_LOCK, innocent=())


@pytest.mark.parametrize("event", ["threading", "gevent", "queue"])
def test_greenlets_waiting_on_an_event_are_no_contended_lock(server, tmp_path, event):
    profile = run_cli(BIG_LOCK, tmp_path, slow(server, 0.1), f"event={event}")
    waited = sum(g.event_wait_s or 0.0 for g in profile.greenlets if g.name == "handler")
    assert waited >= 10 * 0.4, listing(profile)  # they did wait, on the event's lock
    assert not findings_of(profile, LOCK_CONTENDED), listing(profile)


MANY_SMALL_BODIES = Workload("many_small_bodies.py")


def test_small_bodies_read_whole_are_no_small_reads(server, tmp_path):
    profile = run_cli(MANY_SMALL_BODIES, tmp_path,
                      f"small={server.url}/big?size=2048&pieces=1&delay=0")
    [reads] = [e for e in profile.events if e["kind"] == "body-reads"]
    assert reads["bodies"] == 160 and reads["reads"] <= 2 * reads["bodies"], reads
    assert not findings_of(profile, SMALL_BODY_READS), listing(profile)


SMALL_POOL = Workload("small_pool.py")

def test_a_pool_too_small_for_an_idle_loop_is_pool_full(server, tmp_path):
    profile = run_cli(SMALL_POOL, tmp_path, slow(server, 0.1))
    first = assert_first(profile, SMALL_POOL, POOL_FULL, greenlet="main")
    assert first.extra["waits"] >= 1 and first.extra["idle_share"] >= 0.5, listing(profile)
    # what each slot was held for: the fetchers' request, and the upstream's time
    [line] = SMALL_POOL.lines("network-wait")
    assert "The jobs ('fetcher') held their slots mostly waiting at " in first.message
    assert f"small_pool.py:{line}:fetch (Session.get): 16 waits of " in first.message, \
        listing(profile)
    assert re.search(r"their requests to http://127\.0\.0\.1:\d+ took \d+ ms to the "
                     r"response head on average \(16 timed\)", first.message), first.message
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"the hub sat idle; nothing held the loop:\n{listing(profile)}"
    assert_no_network_blame(profile, SMALL_POOL, innocent=("fetcher",))


def test_a_pool_as_big_as_the_work_is_no_pool_finding(server, tmp_path):
    # (16 connections opened at once may fill gevent's threadpool of 10 with their DNS
    # lookups: a threadpool-saturated finding is that, true, and not this test's)
    profile = run_cli(SMALL_POOL, tmp_path, slow(server, 0.1), "size=16")
    assert not findings_of(profile, POOL_FULL), listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, listing(profile)


GC_PAUSES = Workload("gc_pauses.py")


def test_gc_pauses_are_the_collectors_not_the_allocating_code(tmp_path):
    profile = run_cli(GC_PAUSES, tmp_path)
    assert profile.findings, "no findings on a loop held by full collections"
    first = profile.findings[0]
    assert first.kind == GC_PAUSE, listing(profile)
    assert 2 in first.extra["generations"], listing(profile)
    assert "gc.freeze()" in first.message and "worker" in first.message, first.message
    assert 0 < first.extra["gc_s"] <= first.extra["run_s"]
    # the workers' code is not told as the loop blocker
    assert not findings_of(profile, LOOP_BLOCKED), listing(profile)
    collections = profile.meta["gc"]["collections"]
    assert collections[2] >= first.extra["count"] and profile.meta["gc"]["total_s"] > 0


def test_gc_freeze_the_fix_given_removes_the_gc_pause(tmp_path):
    profile = run_cli(GC_PAUSES, tmp_path, "freeze")
    assert not findings_of(profile, GC_PAUSE), listing(profile)
    assert not findings_of(profile, LOOP_BLOCKED), listing(profile)


GC_ARRIVALS = Workload("gc_arrivals.py")
PACED_KINDS = ("batch-barrier", "awaited-in-turn")


def test_gc_pauses_under_steady_arrivals_count_the_backlog_they_leave(kept_server,
                                                                      tmp_path):
    """Before: batch-barrier first (3.6-3.7 s), blaming the dispatcher's sleeps between
    arrivals, with awaited-in-turn beside it, and gc-pause second without the backlog
    its pauses left (an unseen twin with a busier loop put loop-saturated first, the
    backlog read as the handlers' CPU)."""
    # A pause that falls after the last arrivals leaves no backlog (1 run in about 20
    # put all three full collections there): a second run, when the first had none.
    for _attempt in range(2):
        profile = run_cli(GC_ARRIVALS, tmp_path, f"url={kept_server.url}/slow?delay=0.003")
        assert profile.findings, listing(profile)
        first = profile.findings[0]
        assert first.kind == GC_PAUSE and "gc.freeze()" in first.message, listing(profile)
        assert not findings_of(profile, LOOP_SATURATED), listing(profile)
        for kind in PACED_KINDS:
            assert not findings_of(profile, kind), listing(profile)
        if first.extra["backlog_s"] > 0:
            break
    assert first.extra["backlog_s"] > 0, listing(profile)


def test_gc_freeze_under_steady_arrivals_leaves_no_finding_of_the_pauses(kept_server,
                                                                         tmp_path):
    profile = run_cli(GC_ARRIVALS, tmp_path, f"url={kept_server.url}/slow?delay=0.003",
                      "freeze")
    for kind in (GC_PAUSE, LOOP_SATURATED, LOOP_BLOCKED, *PACED_KINDS):
        assert not findings_of(profile, kind), listing(profile)


LXML_DEADLOCK = Workload("lxml_deadlock.py")


@dataclass
class DeadlockRun:
    warning: str | None  # the tracer's "geventperf: ... deadlock" line on stderr
    stderr: str
    hung: bool  # still running DEADLOCK_GRACE_S after the warning: killed
    profile: Profile | None  # written when the run ended by itself


@pytest.fixture(scope="module")
def deadlock_run(server, tmp_path_factory) -> DeadlockRun:
    """lxml_deadlock.py under ``geventperf run``, watched line by line on stderr: once
    the warning is out, the run gets DEADLOCK_GRACE_S to end by itself, then is killed."""
    tmp_path = tmp_path_factory.mktemp("deadlock")
    out = tmp_path / "deadlock.json"
    xml = f"xml={server.url}/xml?size={64 * 1024}&pieces=32&delay=0.005"
    cmd = [sys.executable, "-m", "geventperf", "run", "-f", "json", "-o", str(out),
           LXML_DEADLOCK.path, xml]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=_env())
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    warning, stderr, ended = None, [], False
    deadline = time.monotonic() + DEADLOCK_WARNING_WAIT_S
    try:
        while not ended and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                ended = True
            else:
                stderr.append(line)
                if warning is None and line.startswith("geventperf:") and "deadlock" in line:
                    warning = line
                    deadline = min(deadline, time.monotonic() + DEADLOCK_GRACE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(RUN_TIMEOUT_S)
        reader.join(RUN_TIMEOUT_S)
    profile = Profile.load(str(out)) if ended and out.exists() else None
    return DeadlockRun(warning, "".join(stderr), not ended, profile)


def test_lxml_deadlock_unguarded_warns_before_the_hang(deadlock_run):
    run = deadlock_run
    assert run.warning is not None, (
        "no deadlock warning on stderr" + (" (the run hung)" if run.hung else "") + ":\n"
        + run.stderr[-3000:])
    sites = {f"{LXML_DEADLOCK.name}:{n}" for n in LXML_DEADLOCK.lines("culprit")}
    assert any(s in run.warning for s in sites), (
        f"the warning does not name the parse call:\n{run.warning}")
    if not run.hung:  # this lxml did not hang: the report must still say it first
        assert run.profile is not None, run.stderr[-3000:]
        assert_first(run.profile, LXML_DEADLOCK, DEADLOCK_RISK, greenlet="feed-parser")
        assert_no_network_blame(run.profile, LXML_DEADLOCK)


def test_lxml_deadlock_warning_names_the_greenlets(deadlock_run):
    assert deadlock_run.warning is not None, deadlock_run.stderr[-3000:]
    assert "feed-parser" in deadlock_run.warning, deadlock_run.warning


LXML_GUARDED = Workload("lxml_guarded.py")


def test_lxml_deadlock_guarded(server, tmp_path):
    xml = f"xml={server.url}/xml?size={64 * 1024}&pieces=32&delay=0.005"
    profile = run_script(LXML_GUARDED, tmp_path, xml, slow(server))
    first = assert_first(profile, LXML_GUARDED, DEADLOCK_RISK, greenlet="feed-parser")
    assert "guard" in first.message and re.search(r"\balive\b", first.message), (
        f"the message does not say the guard is what kept the process alive:\n"
        f"{first.message}")
    assert_no_network_blame(profile, LXML_GUARDED)


HEAVY_IMPORT = Workload("heavy_import.py")


def test_heavy_import_at_startup_is_not_a_finding(server, tmp_path):
    profile = run_cli(HEAVY_IMPORT, tmp_path, f"fast={server.url}/fast")
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"start-up was reported as a finding:\n{listing(profile)}"
    assert_no_network_blame(profile, HEAVY_IMPORT, innocent=("fetcher",))
    # ... but it is reported, as start-up time.
    assert re.search(r"start-?up", profile.render("text"), re.IGNORECASE), (
        "the text report does not mention the start-up time")


QUEUE_PINGPONG = Workload("queue_pingpong.py")


def test_queue_pingpong(server, tmp_path):
    profile = run_cli(QUEUE_PINGPONG, tmp_path, slow(server))
    first = assert_first(profile, QUEUE_PINGPONG, SWITCH_STORM)
    assert re.search(r"\bsender\b|\becho\b", first.message), (
        f"the message names neither greenlet:\n{first.message}")
    assert not READ_STORY.search(first.message), (
        f"a queue hand-off is told as a read story:\n{first.message}")
    assert not findings_of(profile, LOOP_SATURATED), listing(profile)
    assert_no_network_blame(profile, QUEUE_PINGPONG)


MIX_READS_FIRST = Workload("mix_reads_first.py")


def test_mix_reads_larger_than_hog(server, tmp_path):
    # 48 KiB bodies in 100 pieces 20 ms apart: ~2 s of reads per parse, 4 parses.
    xml = f"xml={server.url}/xml?size={48 * 1024}&pieces=100&delay=0.02"
    profile = run_cli(MIX_READS_FIRST, tmp_path, xml)
    first = assert_first(profile, MIX_READS_FIRST, BLOCKED_READ, greenlet="feed-parser")
    hogs = [f for f in findings_of(profile, LOOP_BLOCKED)
            if MIX_READS_FIRST.site(f) in MIX_READS_FIRST.lines("hog")]
    assert hogs, f"the hog is missing:\n{listing(profile)}"
    order = profile.findings.index
    assert order(first) < order(hogs[0]), listing(profile)
    assert first.cost_s > hogs[0].cost_s, listing(profile)
    assert_no_network_blame(profile, MIX_READS_FIRST)


MIX_HOG_FIRST = Workload("mix_hog_first.py")


def test_mix_hog_larger_than_reads(server, tmp_path):
    body = f"json={server.url}/json?size={16 * 1024}&pieces=8&delay=0.02"
    profile = run_cli(MIX_HOG_FIRST, tmp_path, body)
    first = assert_first(profile, MIX_HOG_FIRST, LOOP_BLOCKED, greenlet="report-builder")
    reads = [f for f in findings_of(profile, BLOCKED_READ)
             if MIX_HOG_FIRST.site(f) in MIX_HOG_FIRST.lines("reads")]
    assert reads, f"the reads are missing:\n{listing(profile)}"
    assert profile.findings.index(first) < profile.findings.index(reads[0]), listing(profile)
    assert first.cost_s > reads[0].cost_s, listing(profile)
    assert_no_network_blame(profile, MIX_HOG_FIRST)


SMALL_READS = Workload("small_reads.py")


def test_small_reads_over_a_trickle(server, tmp_path):
    """Decided: the time is the server's pace, so nothing may blame it on the program;
    the small reads are real, so a small-body-reads finding at the .content line may be
    first, but its cost can only be what the reads added (at most the greenlets' own
    run time), never the waiting for a server that a large read would wait for too."""
    big = f"big={server.url}/big?size={2 * 1024 * 1024}&pieces=32&delay=0.005"
    profile = run_cli(SMALL_READS, tmp_path, big)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS | {BLOCKED_READ}]
    assert not blamed, listing(profile)
    assert_no_network_blame(profile, SMALL_READS, innocent=("body-fetcher",))
    if profile.findings:
        first = assert_first(profile, SMALL_READS, SMALL_BODY_READS)
        ran = sum(g.run_s for g in profile.greenlets if g.name == "body-fetcher")
        assert first.cost_s <= ran, (
            f"small-body-reads claims {first.cost_s:.3f} s, more than the greenlets that "
            f"read ran in all ({ran:.3f} s): it counts the server's pace\n{listing(profile)}")


USER_C_SECTION = Workload("user_c_section.py")


def test_user_c_section_reading_the_network(server, tmp_path):
    body = f"json={server.url}/json?size={24 * 1024}&pieces=12&delay=0.01"
    profile = run_cli(USER_C_SECTION, tmp_path, body, slow(server))
    first = assert_first(profile, USER_C_SECTION, BLOCKED_READ, greenlet="decoder")
    assert first.section == "decode feed", listing(profile)
    assert "decode feed" in first.message, first.message
    assert len(findings_of(profile, BLOCKED_READ)) == 1, listing(profile)
    assert greenlet_count_named(first.message, 4), first.message
    assert_no_network_blame(profile, USER_C_SECTION)


LONELY_HOG = Workload("lonely_hog.py")


def test_long_slice_while_nothing_else_could_run_is_not_a_finding(server, tmp_path):
    key = f"lonely-{uuid.uuid4().hex}"
    profile = run_cli(LONELY_HOG, tmp_path, f"gated={server.url}/gated?key={key}",
                      f"arrived={server.url}/arrived?key={key}",
                      f"open={server.url}/open?key={key}")
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"a slice that delayed nobody was reported:\n{listing(profile)}"
    assert_no_network_blame(profile, LONELY_HOG, innocent=("fetcher",))


FIXED_FEED = Workload("fixed_feed.py")


def test_fixed_feed_is_clean(server, tmp_path):
    xml = f"xml={server.url}/xml?size={40 * 1024}&pieces=20&delay=0.01"
    profile = run_cli(FIXED_FEED, tmp_path, xml)
    assert_no_network_blame(profile, FIXED_FEED, innocent=("feed-parser",))
    assert not profile.findings, f"nothing is wrong here:\n{listing(profile)}"


MAIN_BLOCKING_SLEEP = Workload("main_blocking_sleep.py")


def test_main_greenlet_blocking_after_startup(server, tmp_path):
    profile = run_cli(MAIN_BLOCKING_SLEEP, tmp_path, slow(server))
    first = assert_first(profile, MAIN_BLOCKING_SLEEP, BLOCKING_CALL, greenlet="main")
    assert "time.sleep" in first.message, first.message
    assert_no_network_blame(profile, MAIN_BLOCKING_SLEEP)


SPAWN_THEN_HOG = Workload("spawn_then_hog.py")


# On a loaded machine the one 0.2 s burn takes ~1 s of wall time and the loop is then
# >= 75 % busy: the slice's queueing must stay the loop-blocked finding's (one cause,
# one finding), not also come first as loop-saturated with the wrong cure.
def test_main_burning_cpu_with_spawned_greenlets_ready(server, tmp_path):
    profile = run_cli(SPAWN_THEN_HOG, tmp_path, slow(server))
    assert_first(profile, SPAWN_THEN_HOG, LOOP_BLOCKED, greenlet="main")
    assert_no_network_blame(profile, SPAWN_THEN_HOG)


TICKERS = Workload("tickers.py")


def test_periodic_timers_are_not_a_switch_storm(tmp_path):
    profile = run_cli(TICKERS, tmp_path)
    assert not findings_of(profile, SWITCH_STORM), listing(profile)
    assert not profile.findings, f"nothing is wrong here:\n{listing(profile)}"


ONE_PRODUCER = Workload("one_producer.py")


def test_consumers_waiting_for_one_sequential_producer_is_serial_bottleneck(server, tmp_path):
    profile = run_cli(ONE_PRODUCER, tmp_path, slow(server, 0.1))
    first = assert_first(profile, ONE_PRODUCER, SERIAL_BOTTLENECK, greenlet="producer")
    assert "consumer" in first.message, listing(profile)
    assert first.extra["handoff_share"] >= 0.5 and first.extra["idle_share"] >= 0.5, \
        listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"the hub sat idle; nothing held the loop:\n{listing(profile)}"
    assert_no_network_blame(profile, ONE_PRODUCER, innocent=())


def test_consumers_that_fetch_their_own_items_are_no_serial_bottleneck(server, tmp_path):
    profile = run_cli(ONE_PRODUCER, tmp_path, slow(server, 0.1), "mode=fixed")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)
    assert_no_network_blame(profile, ONE_PRODUCER, innocent=("consumer",))


TIMER_FLUSH = Workload("timer_flush.py")


def test_waiters_of_a_batch_flushed_on_a_timer_are_told_to_wake_the_flusher(tmp_path):
    """The in-process service's idle kept-alive connections (more greenlet-seconds than
    the hand-off waits) must not hide the hand-off, and the flusher is told as a timer,
    not as work to do concurrently."""
    profile = run_cli(TIMER_FLUSH, tmp_path)
    first = assert_first(profile, TIMER_FLUSH, SERIAL_BOTTLENECK, greenlet="flusher")
    assert "slept on a timer" in first.message and "wake it" in first.message, \
        listing(profile)
    assert "concurrently" not in first.message, listing(profile)
    assert first.extra["handoff_share"] >= 0.5, listing(profile)
    from geventperf.findings.handoff import handoffs, released_share
    [flusher] = [g for g in profile.greenlets if g.name == "flusher"]
    assert released_share(profile, flusher, handoffs(profile)) == 1.0  # every writer


def test_a_flusher_woken_by_its_writers_is_no_serial_bottleneck(tmp_path):
    profile = run_cli(TIMER_FLUSH, tmp_path, "mode=fixed")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


TICKER = Workload("ticker_beside_input.py")


def test_a_ticker_releasing_few_of_the_waits_is_no_timer_to_wake(tmp_path):
    """Before (an unseen webhook relay: workers fed by its endpoint's handlers, beside an
    SLA timer asleep 98 % of the run that put an escalation now and then): told first
    as the timer to wake on work, which changed nothing; the timeline shows it released
    few of the workers' waits."""
    profile = run_cli(TICKER, tmp_path)
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)
    from geventperf.findings.handoff import handoffs, released_share
    [ticker] = [g for g in profile.greenlets if g.name == "ticker"]
    released = released_share(profile, ticker, handoffs(profile))
    assert released is not None and released < 0.5, released


FEW_WORKERS = Workload("few_workers.py")


def test_workers_fewer_than_their_input_needs_are_workers_saturated(server, tmp_path):
    """Before: FINDINGS: none, "mostly I/O" at the workers' call line: the upstream
    blamed for a queue the workers could not keep up with."""
    profile = run_cli(FEW_WORKERS, tmp_path, slow(server, 0.04))
    first = assert_first(profile, FEW_WORKERS, WORKERS_SATURATED, greenlet="worker")
    assert first.extra["workers"] == 4 and first.extra["busy_share"] >= 0.9, \
        listing(profile)
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


def test_workers_that_wait_for_their_input_are_not_saturated(server, tmp_path):
    """Before: serial-bottleneck told the idle workers as peers waiting for one
    another's puts (one worker credited with every worker's calls), a pool too small;
    then as spare capacity, ranked first in a healthy run."""
    profile = run_cli(FEW_WORKERS, tmp_path, slow(server, 0.04), "workers=16")
    assert not findings_of(profile, WORKERS_SATURATED), listing(profile)
    # nor waiting for ingest's timer: each wait outlasted several of its ticks, so the
    # workers were spare (their input arrives on a schedule)
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


CONN_POOL = Workload("conn_pool.py")


def test_requests_waiting_for_a_pooled_connection_is_connection_pool_full(server, tmp_path):
    profile = run_cli(CONN_POOL, tmp_path, slow(server, 0.1))
    first = assert_first(profile, CONN_POOL, CONNECTION_POOL_FULL, greenlet="requester")
    assert first.extra["waits"] >= 1 and first.extra["idle_share"] >= 0.5, listing(profile)
    assert "handover_s" not in first.extra, first.message  # nothing ran between calls
    # the line to change: where the adapter was made, beside its size (unseen testers
    # were sent to the request's line only)
    made = next(iter(CONN_POOL.lines("made")))
    assert f"pool keeps 2, made at {CONN_POOL.path}:{made}:<module>" in first.message, \
        first.message
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, f"the hub sat idle; nothing held the loop:\n{listing(profile)}"


def test_a_connection_pool_as_big_as_the_greenlets_is_no_pool_finding(server, tmp_path):
    profile = run_cli(CONN_POOL, tmp_path, slow(server, 0.1), "size=12")
    assert not findings_of(profile, CONNECTION_POOL_FULL), listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, listing(profile)


JOINED_SENDS = Workload("joined_sends.py")


def test_jobs_joining_sends_that_wait_for_a_connection_tell_the_connections_first(
        kept_server, tmp_path):
    # (an unseen notification service's jobs joined sends waiting on a blocking pool of
    # 4 connections: "a gevent Pool was full" came first, saying no other finding
    # explained their waits)
    profile = run_cli(JOINED_SENDS, tmp_path, slow(kept_server, 0.05))
    assert_first(profile, JOINED_SENDS, CONNECTION_POOL_FULL, greenlet="send")
    [pool] = findings_of(profile, POOL_FULL)
    assert pool.extra["ranks_after"] == CONNECTION_POOL_FULL, listing(profile)
    assert "which the connection-pool-full finding tells" in pool.message
    assert "no other finding explains" not in pool.message, pool.message


def test_jobs_joining_sends_with_a_connection_each_wait_for_no_connection(kept_server,
                                                                        tmp_path):
    profile = run_cli(JOINED_SENDS, tmp_path, slow(kept_server, 0.05), "size=12")
    assert not findings_of(profile, CONNECTION_POOL_FULL), listing(profile)


LRU_CYCLE = Workload("lru_cycle.py")


def test_a_cache_smaller_than_the_keys_it_cycles_through_is_a_repeated_request(
        body_server, tmp_path):
    profile = run_cli(LRU_CYCLE, tmp_path, f"store={body_server.url}/slow?delay=0.001")
    [pool] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    assert pool["distinct_sent"] is None and (pool["keyed"], pool["distinct_keys"]) == (
        1500, 300), pool
    first = assert_first(profile, LRU_CYCLE, REPEATED_REQUEST, greenlet=None)
    assert "were only 300 different ones, each sent 5 times" in first.message, listing(profile)
    # the cache is there already: told as too small for the keys, not as missing
    assert "series_id is cached already (functools.lru_cache(maxsize=256) at " \
        in first.message, first.message
    assert "it keeps 256 results, fewer than the 300 different requests" in first.message
    # its calls are also made in turn: told after the cache, which skips 4 in 5 of them
    for in_turn in findings_of(profile, SEQUENTIAL_CALLS):
        assert in_turn.extra["ranks_after"] == REPEATED_REQUEST, listing(profile)


def test_a_cache_holding_every_key_asks_each_once(body_server, tmp_path):
    profile = run_cli(LRU_CYCLE, tmp_path, f"store={body_server.url}/slow?delay=0.001",
                      "cache=all")
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


SHARED_GETTER = Workload("shared_getter_caches.py")


def test_caches_around_one_getter_are_told_each_for_its_own_host(tmp_path):
    """Before (an unseen claims job: eligibility and network lookups, each behind
    lru_cache(maxsize=PARTNER_CACHE_SIZE), both sending through one _get): the network
    host's repeats were told under the eligibility cache, its size "not known", and the
    eligibility cache's own misses not at all."""
    profile = run_cli(SHARED_GETTER, tmp_path)
    first = assert_first(profile, SHARED_GETTER, REPEATED_REQUEST, greenlet=None)
    providers = next(iter(SHARED_GETTER.lines("providers")))
    members = next(iter(SHARED_GETTER.lines("members")))
    assert f"network is cached already (functools.lru_cache(maxsize=CACHE_SIZE) at " \
        f"{SHARED_GETTER.path}:{providers}), and still asked again: it keeps 32 results, " \
        "fewer than the 60 different requests" in first.message, first.message
    assert f"Likewise eligibility's (functools.lru_cache(maxsize=CACHE_SIZE) at " \
        f"{SHARED_GETTER.path}:{members}): it keeps 32 results" in first.message
    assert "were 150 different ones" in first.message, first.message
    # the stack shown is one through the providers' lookup
    assert any(entry.endswith("network") for entry in first.stack), first.stack


def test_caches_holding_every_key_around_one_getter_are_not_told(tmp_path):
    profile = run_cli(SHARED_GETTER, tmp_path, "cache=all")
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


NOT_KEPT = Workload("not_kept_alive.py")


def test_a_server_closing_every_connection_is_connections_not_kept_alive(server, tmp_path):
    """Before: no finding at all ("mostly I/O" at the call line), though every call
    connected again (an unseen workload's HTTPS calls paid a TLS handshake each)."""
    profile = run_cli(NOT_KEPT, tmp_path, f"url={server.url}/fast")
    # (not necessarily first: on loopback a connect costs little, and 320 instant calls
    # keep the loop busy with requests' own CPU, which loop-saturated tells)
    [found] = findings_of(profile, NOT_KEPT_ALIVE)
    assert found.extra["pools"] == [server.url], listing(profile)
    assert NOT_KEPT.site(found) in NOT_KEPT.lines("culprit"), listing(profile)
    # the test server's heads say Connection: close: its closes, told as such
    assert "The server answered Connection: close" in found.message, found.message
    assert "keep-alive" in found.message
    # every call after each connection's first made it again
    assert found.extra["made_again"] >= CALLERS_X_CALLS - 2 * 8, listing(profile)


def test_requests_asking_for_close_are_told_to_drop_the_header(kept_server, tmp_path):
    """Before: the server's heads did not say Connection: close, so the closes were
    taken for this side's and the fix was to read streamed bodies to the end (an unseen
    client set the header on every HTTPS call, and streamed nothing)."""
    profile = run_cli(NOT_KEPT, tmp_path, f"url={kept_server.url}/slow?delay=0",
                      "ask=close")
    [found] = findings_of(profile, NOT_KEPT_ALIVE)
    assert NOT_KEPT.site(found) in NOT_KEPT.lines("culprit"), listing(profile)
    assert "sent a Connection: close header" in found.message, found.message
    assert "drop the Connection: close header" in found.message, found.message
    assert "streamed" not in found.message, found.message


def test_a_server_keeping_connections_alive_is_no_such_finding(kept_server, tmp_path):
    profile = run_cli(NOT_KEPT, tmp_path, f"url={kept_server.url}/slow?delay=0")
    assert not findings_of(profile, NOT_KEPT_ALIVE), listing(profile)


CALLERS_X_CALLS = 8 * 120  # not_kept_alive.py's calls in all


MODULE_GET = Workload("module_get.py")


def test_requests_get_in_a_loop_is_session_per_request(server, tmp_path):
    profile = run_cli(MODULE_GET, tmp_path, slow(server, 0.05))
    first = assert_first(profile, MODULE_GET, SESSION_PER_REQUEST, greenlet="getter")
    assert first.extra["connections"] >= 12, listing(profile)


def test_a_shared_session_is_no_session_per_request(server, tmp_path):
    profile = run_cli(MODULE_GET, tmp_path, slow(server, 0.05), "mode=session")
    assert not findings_of(profile, SESSION_PER_REQUEST), listing(profile)


POOL_CHURN = Workload("pool_churn.py")


def test_a_pool_smaller_than_the_requests_in_flight_is_connection_churn(kept_server,
                                                                         tmp_path):
    accepted = kept_server.connections
    # (answers in 0.1 s: at 0.05 s, beside two CPU hogs, 80 fetches a round kept the loop
    # busy enough that loop-saturated came first in 2 of 6 runs; none of 14 at 0.1 s,
    # and the workload's 16 rounds keep the churn above the first round's burst)
    profile = run_cli(POOL_CHURN, tmp_path, f"kept={kept_server.url}/slow?delay=0.1")
    accepted = kept_server.connections - accepted
    first = assert_first(profile, POOL_CHURN, CONNECTION_CHURN, greenlet="fetch")
    assert first.extra["pool_maxsize"] == 10 and first.extra["peak_in_use"] > 10, \
        listing(profile)
    # the connections opened past the requests in flight, as the server counted them
    assert first.extra["reopened"] == accepted - first.extra["peak_in_use"] >= 10, \
        (accepted, listing(profile))
    assert "pool_maxsize=" in first.message, listing(profile)


def test_a_pool_as_large_as_the_requests_in_flight_is_no_connection_churn(kept_server,
                                                                         tmp_path):
    accepted = kept_server.connections
    # answered after 0.1 s: at 0.05 s its 640 requests kept the loop 88-91 % busy (30-50 %
    # of the waiting queued), at loop-saturated's edge on a slower host; the kept pool,
    # not the loop, is what this run shows
    profile = run_cli(POOL_CHURN, tmp_path, f"kept={kept_server.url}/slow?delay=0.1",
                      "size=80")
    assert kept_server.connections - accepted <= 80  # one per request in flight, kept
    assert not findings_of(profile, CONNECTION_CHURN), listing(profile)
    blamed = [f for f in profile.findings if f.kind in BLAME_KINDS]
    assert not blamed, listing(profile)


STREAM_LEAK = Workload("stream_leak.py")
# A body longer than the probe's read: the response is left unread, its connection out.
# Answered after 50 ms: with 10 ms, twelve greenlets' first requests kept a 0.12 s run's
# loop 75 % busy, queueing about as long as they waited (0.43 s against 0.43 s), and
# loop-saturated came first in one run of four.  At 50 ms: 0.36-0.38 busy, 0.43-0.48 s
# queued against 2.0-2.1 s waited, connection-leak first in four of four.
LEAK_URL = "kept={}/slow?delay=0.05&size=4096"


def test_streamed_responses_never_closed_are_connection_leak(kept_server, tmp_path):
    accepted = kept_server.connections
    profile = run_cli(STREAM_LEAK, tmp_path, LEAK_URL.format(kept_server.url))
    accepted = kept_server.connections - accepted
    first = assert_first(profile, STREAM_LEAK, CONNECTION_LEAK, greenlet="prober")
    # all 36 stayed out with no greenlet alive to read them, and each request connected
    assert first.extra["unreturned"] == first.extra["leaked"] == accepted == 36, \
        (accepted, listing(profile))
    assert "stream=True" in first.message, listing(profile)


def test_streamed_responses_closed_by_with_are_no_connection_leak(kept_server, tmp_path):
    profile = run_cli(STREAM_LEAK, tmp_path, LEAK_URL.format(kept_server.url), "mode=closed")
    assert not findings_of(profile, CONNECTION_LEAK), listing(profile)
    # every connection came back (closing an unread response closes its socket too:
    # the pool reconnects it, it makes no new one)
    [pool] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    assert pool["unreturned"] == 0 and pool["opened"] <= 12, pool


TOKEN_PER_CALL = Workload("token_per_call.py")


def test_a_token_fetched_before_every_call_is_a_repeated_request(body_server, tmp_path):
    profile = run_cli(TOKEN_PER_CALL, tmp_path, f"base={body_server.url}")
    first = assert_first(profile, TOKEN_PER_CALL, REPEATED_REQUEST)
    assert first.extra["request"].startswith("POST /token?delay=0.01 #") \
        and first.extra["count"] == 300, listing(profile)


def test_a_token_kept_until_it_expires_is_no_repeated_request(body_server, tmp_path):
    profile = run_cli(TOKEN_PER_CALL, tmp_path, f"base={body_server.url}", "token=kept")
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


DEALT_INBOXES = Workload("dealt_inboxes.py")


def test_work_dealt_round_robin_to_inboxes_is_told_as_dealt_out(kept_server, tmp_path):
    """Before: an unseen report dispatcher dealing stores round robin to per-worker
    inboxes was told "peers sharing a pool of items" (a larger pool, fewer greenlets);
    one shared queue cut its run 66 %."""
    profile = run_cli(DEALT_INBOXES, tmp_path, f"base={kept_server.url}")
    [told] = findings_of(profile, SERIAL_BOTTLENECK)
    deal = min(DEALT_INBOXES.lines("deal"))
    assert told.extra["dealt_out"].endswith(f"dealt_inboxes.py:{deal}:dispatcher"), \
        listing(profile)
    assert told is profile.findings[0], listing(profile)
    assert profile.greenlet(told.greenlet).name == "dispatcher", listing(profile)
    assert "one shared queue" in told.message, told.message


def test_one_shared_queue_is_not_dealt_out(kept_server, tmp_path):
    profile = run_cli(DEALT_INBOXES, tmp_path, f"base={kept_server.url}", "mode=shared")
    assert not [f for f in profile.findings if f.extra.get("dealt_out")], listing(profile)


COMPILE_PER_JOB = Workload("compile_per_job.py")


def test_a_saturated_loop_beside_its_own_servers_idle_connections(tmp_path):
    """Before: an unseen digest sender's own WSGI upstreams idled 220 greenlet-s awaiting
    their client's next requests, counted as I/O its jobs awaited, and hid a loop 99.8 %
    busy behind a template compiled per job ("FINDINGS: none")."""
    profile = run_cli(COMPILE_PER_JOB, tmp_path)
    first = profile.findings[0] if profile.findings else None
    assert first is not None and first.kind == LOOP_SATURATED, listing(profile)
    line = min(COMPILE_PER_JOB.lines("culprit"))
    assert f"compile_per_job.py:{line}:render" in first.message, first.message
    # (its jobs' fetch and post, queued behind the loop, are not calls to make together)
    assert not findings_of(profile, SEQUENTIAL_CALLS), listing(profile)


POLL_EVENTS = Workload("poll_events.py")


def test_a_poll_whose_answers_change_is_no_repeated_request(kept_server, tmp_path):
    """Before: an unseen webhook relay's broker long-poll, 719 GETs alike whose answers
    held different events, was told to cache the answer."""
    profile = run_cli(POLL_EVENTS, tmp_path, f"base={kept_server.url}", "events=1")
    [changed] = [row[1] for e in profile.events if e["kind"] == "urllib3-pool"
                 for row in e["answers_changed"] if "/poll?" in row[0]]
    assert changed > 100, changed
    assert not findings_of(profile, REPEATED_REQUEST), listing(profile)


def test_a_poll_answered_alike_every_time_is_a_repeated_request(kept_server, tmp_path):
    profile = run_cli(POLL_EVENTS, tmp_path, f"base={kept_server.url}", "events=0")
    [told] = findings_of(profile, REPEATED_REQUEST)
    line = min(POLL_EVENTS.lines("culprit"))
    assert told.extra["site"].endswith(f"poll_events.py:{line}:receive"), listing(profile)


BATCH_LINGER = Workload("batch_linger.py")


def test_jobs_waiting_out_a_batchers_linger_are_told_the_linger(body_server, tmp_path):
    """Before: an unseen order enricher's jobs waited 203 ms each for an audit batcher
    lingering 200 ms for batches that never filled, and were told "a larger Pool"
    (41 % faster by filling the batches faster; a 5 ms linger made it 63 %)."""
    profile = run_cli(BATCH_LINGER, tmp_path, f"base={body_server.url}")
    first = assert_first(profile, BATCH_LINGER, SERIAL_BOTTLENECK, marker="linger",
                         greenlet="batcher")
    assert "get_nowait()" in first.message, first.message
    # pool-full tells the same linger as what held the jobs' slots: told once, by the
    # finding that names the batcher
    assert not [f for f in profile.findings if f.extra.get("lingered_in_slots")], \
        listing(profile)
    # (spawned by Pool.imap's own greenlet: no line of the workload's on its stack)
    slots = [f for f in pool_full(profile) if f.extra.get("lingered_in_slots")]
    assert slots, listing(profile)
    linger = min(BATCH_LINGER.lines("linger"))
    assert slots[0].extra["lingered_in_slots"].endswith(f"batch_linger.py:{linger}:batcher")
    culprit = min(BATCH_LINGER.lines("culprit"))
    assert slots[0].extra["jobs_site"].endswith(f"batch_linger.py:{culprit}:job")
    assert "'batcher'" in slots[0].message and "flush a batch" in slots[0].message, \
        slots[0].message


def test_a_batcher_that_sends_at_once_is_no_linger(body_server, tmp_path):
    profile = run_cli(BATCH_LINGER, tmp_path, f"base={body_server.url}", "linger=0.005")
    assert not [f for f in profile.findings if f.extra.get("lingered_in_slots")], \
        listing(profile)


def test_greenlets_waiting_out_a_batchers_linger_are_told_the_linger(body_server, tmp_path):
    """Before: an unseen group-commit writer lingered 15 ms per batch of 64 that its 24
    producers, each waiting for its ack, could never fill; told as its store's
    connection being busy (serial-bottleneck), while flushing when the queue was empty
    took 52 % off the run."""
    profile = run_cli(BATCH_LINGER, tmp_path, f"base={body_server.url}", "run=greenlets")
    first = assert_first(profile, BATCH_LINGER, SERIAL_BOTTLENECK, marker="linger",
                         greenlet="batcher")
    assert first.extra["lingered_s"] > 0 and "get_nowait()" in first.message, listing(profile)


def test_greenlets_of_a_batcher_that_sends_at_once_are_told_no_linger(body_server, tmp_path):
    profile = run_cli(BATCH_LINGER, tmp_path, f"base={body_server.url}", "run=greenlets",
                      "linger=0.005")
    assert not [f for f in profile.findings if f.extra.get("linger")], listing(profile)


LEAKED_KEEPERS = Workload("leaked_keepers.py")


def test_keepers_outliving_their_jobs_are_a_greenlet_leak(kept_server, tmp_path):
    profile = run_cli(LEAKED_KEEPERS, tmp_path, f"kept={kept_server.url}")
    first = assert_first(profile, LEAKED_KEEPERS, GREENLET_LEAK, greenlet="keeper")
    assert first.extra["spawners"] == ["job"] and first.extra["alive"] >= 90, \
        listing(profile)


def test_keepers_stopped_with_their_jobs_are_no_greenlet_leak(kept_server, tmp_path):
    profile = run_cli(LEAKED_KEEPERS, tmp_path, f"kept={kept_server.url}", "stop=finally")
    assert not findings_of(profile, GREENLET_LEAK), listing(profile)


COOKIE_JAR = Workload("cookie_jar.py")


def test_a_shared_session_piling_up_cookies_is_told_as_the_cookie_jar(kept_server,
                                                                       tmp_path):
    profile = run_cli(COOKIE_JAR, tmp_path, f"kept={kept_server.url}")
    first = assert_first(profile, COOKIE_JAR, LOOP_SATURATED)
    assert "handled cookies" in first.message and "set_policy" in first.message, \
        listing(profile)
    assert "geventperf.Session()" not in first.message, listing(profile)


def test_a_jar_refusing_cookies_is_no_cookie_story(kept_server, tmp_path):
    profile = run_cli(COOKIE_JAR, tmp_path, f"kept={kept_server.url}", "cookies=refuse")
    assert not any("handled cookies" in f.message for f in profile.findings), \
        listing(profile)


SESSION_PER_CALL = Workload("session_per_call.py")


def test_a_session_made_per_call_is_session_per_request(kept_server, tmp_path):
    accepted = kept_server.connections
    # answered after 30 ms: at 10 ms the run's 360 Sessions kept the loop 81 % busy on a
    # slower host, and loop-saturated (their CPU, sampled too sparsely in a 0.5 s run to
    # give session-per-request its share) came first in half the runs
    profile = run_cli(SESSION_PER_CALL, tmp_path, f"kept={kept_server.url}/slow?delay=0.03")
    accepted = kept_server.connections - accepted
    first = assert_first(profile, SESSION_PER_CALL, SESSION_PER_REQUEST, greenlet="caller")
    # one pool and one connection per call, as the server counted them
    assert first.extra["pools_made"] == first.extra["connections"] == accepted == 360, \
        (accepted, listing(profile))


def test_one_session_shared_by_the_calls_is_no_session_per_request(kept_server, tmp_path):
    profile = run_cli(SESSION_PER_CALL, tmp_path, f"kept={kept_server.url}/slow?delay=0.03",
                      "mode=shared")
    assert not findings_of(profile, SESSION_PER_REQUEST), listing(profile)


UPSTREAM_TIMEOUTS = Workload("upstream_timeouts.py")


def test_calls_that_time_out_are_requests_failed(server, tmp_path):
    profile = run_cli(UPSTREAM_TIMEOUTS, tmp_path, slow(server, 0.3))
    first = assert_first(profile, UPSTREAM_TIMEOUTS, REQUESTS_FAILED, greenlet="caller")
    assert first.extra["failed"] == first.extra["calls"] == 30, listing(profile)
    assert first.extra["errors"] == {"ReadTimeoutError": 30}, listing(profile)
    assert first.extra["read_timeout_s"] == 0.05, listing(profile)
    assert first.cost_s >= 30 * 0.05, listing(profile)  # each waited its whole timeout


def test_calls_that_get_their_answer_are_no_requests_failed(server, tmp_path):
    profile = run_cli(UPSTREAM_TIMEOUTS, tmp_path, slow(server, 0.3), "timeout=1")
    assert not findings_of(profile, REQUESTS_FAILED), listing(profile)


GIL_POOL = Workload("gil_pool.py")


def test_python_work_in_the_threadpool_is_gil_contended(server, tmp_path):
    profile = run_cli(GIL_POOL, tmp_path, slow(server, 0.02))
    first = assert_first(profile, GIL_POOL, GIL_CONTENDED, greenlet="handler")
    assert "checksum" in first.message and first.extra["threads_cpu_s"] > 0, listing(profile)
    assert not findings_of(profile, BLOCKING_CALL), listing(profile)


def test_work_that_releases_the_gil_in_the_threadpool_is_no_gil_contended(server, tmp_path):
    profile = run_cli(GIL_POOL, tmp_path, slow(server, 0.02), "work=hashlib")
    assert not findings_of(profile, GIL_CONTENDED), listing(profile)


GIL_THREAD = Workload("gil_thread.py")


def test_python_in_a_thread_of_the_programs_own_is_gil_contended(kept_server, tmp_path):
    # (a server that keeps connections alive: the module's closes each, a second cause
    # whose connects a loaded machine stretched past the lock's cost in one run of ten)
    profile = run_cli(GIL_THREAD, tmp_path, slow(kept_server, 0.02))
    assert profile.findings and profile.findings[0].kind == GIL_CONTENDED, listing(profile)
    assert "not gevent's threadpool" in profile.findings[0].message, listing(profile)
    assert not findings_of(profile, BLOCKING_CALL), listing(profile)


def test_a_thread_of_the_programs_own_that_releases_the_gil_is_no_gil_contended(
        kept_server, tmp_path):
    profile = run_cli(GIL_THREAD, tmp_path, slow(kept_server, 0.02), "work=hashlib")
    assert not findings_of(profile, GIL_CONTENDED), listing(profile)


THREAD_EXECUTOR = Workload("thread_executor.py")
LOOP_CPU = {LOOP_SATURATED, LOOP_HELD, LOOP_BLOCKED}


def test_work_handed_to_a_patched_threads_executor_is_the_loops_cpu(server, tmp_path):
    profile = run_cli(THREAD_EXECUTOR, tmp_path, slow(server, 0.02))
    assert profile.findings and profile.findings[0].kind in LOOP_CPU, listing(profile)
    first = assert_first(profile, THREAD_EXECUTOR, profile.findings[0].kind)
    assert "'concurrent.futures.thread._worker (thread)'" in first.message, listing(profile)
    assert "monkey-patching makes a greenlet" in first.message, listing(profile)
    assert "ProcessPoolExecutor" in first.message, listing(profile)


def test_the_same_work_in_gevents_threadpool_is_no_loop_cpu(server, tmp_path):
    profile = run_cli(THREAD_EXECUTOR, tmp_path, slow(server, 0.02), "pool=gevent")
    assert not [f for f in profile.findings if f.kind in LOOP_CPU], listing(profile)
    # waiting for a real thread's result is no hand-off to a greenlet that fed it
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


POLL_RESULTS = Workload("poll_results.py")


def test_consumers_polling_for_a_serial_dispatcher_is_serial_bottleneck(server, tmp_path):
    profile = run_cli(POLL_RESULTS, tmp_path, slow(server, 0.01))
    first = assert_first(profile, POLL_RESULTS, SERIAL_BOTTLENECK, greenlet="dispatcher")
    [poll] = POLL_RESULTS.lines("poll")
    assert re.search(rf"polling at \S*poll_results\.py:{poll}:consumer", first.message), \
        listing(profile)
    assert "AsyncResult" in first.message, listing(profile)


def test_consumers_polling_for_a_concurrent_dispatcher_is_no_serial_bottleneck(
        server, tmp_path):
    profile = run_cli(POLL_RESULTS, tmp_path, slow(server, 0.01), "dispatch=pool")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


LONG_POLL_BROKER = Workload("long_poll_broker.py")


def test_a_broker_polling_its_deque_in_a_sleep_loop_is_sleep_poll(server, tmp_path):
    profile = run_cli(LONG_POLL_BROKER, tmp_path, slow(server, 0.02))
    first = assert_first(profile, LONG_POLL_BROKER, SLEEP_POLL, marker="poll")
    assert "Queue's get(timeout=...)" in first.message, listing(profile)


def test_the_broker_waiting_on_a_queue_is_no_sleep_poll(server, tmp_path):
    profile = run_cli(LONG_POLL_BROKER, tmp_path, slow(server, 0.02), "wait=queue")
    assert not findings_of(profile, SLEEP_POLL), listing(profile)


SLOT_POLLER = Workload("slot_poller.py")


def test_a_runner_refilling_its_slots_at_a_polls_wake_ups_is_sleep_poll(server, tmp_path):
    profile = run_cli(SLOT_POLLER, tmp_path, slow(server, 0.05))
    first = assert_first(profile, SLOT_POLLER, SLEEP_POLL, marker="poll", greenlet="main")
    assert first.extra["refill_cap"] == 8, listing(profile)
    assert "gevent.pool.Pool(8)" in first.message, listing(profile)


def test_the_runner_starting_its_jobs_in_a_pool_is_no_sleep_poll(server, tmp_path):
    profile = run_cli(SLOT_POLLER, tmp_path, slow(server, 0.05), "start=pool")
    assert not findings_of(profile, SLEEP_POLL), listing(profile)


CLIENT_POOL = Workload("client_pool.py")


def test_handlers_sharing_a_pool_smaller_than_they_are_wait_for_their_peers(
        server, tmp_path):
    profile = run_cli(CLIENT_POOL, tmp_path, slow(server, 0.05))
    first = assert_first(profile, CLIENT_POOL, SERIAL_BOTTLENECK)
    assert first.extra["peers"] is True, listing(profile)
    assert "a pool as large as the number of greenlets using it" in first.message, \
        listing(profile)


def test_handlers_each_with_a_client_of_the_pool_wait_for_nobody(server, tmp_path):
    profile = run_cli(CLIENT_POOL, tmp_path, slow(server, 0.05), "size=40")
    assert not findings_of(profile, SERIAL_BOTTLENECK), listing(profile)


DRIVER_CALLS = Workload("driver_calls.py")


def test_blocking_calls_under_the_threshold_are_named_where_they_blocked(server, tmp_path):
    profile = run_cli(DRIVER_CALLS, tmp_path, slow(server, 0.01))
    assert profile.findings and profile.findings[0].kind in LOOP_CPU, listing(profile)
    first = assert_first(profile, DRIVER_CALLS, profile.findings[0].kind)
    assert "looks at the thread while it held the loop found it at" in first.message, \
        listing(profile)
    assert "off the CPU" in first.message, listing(profile)


def test_the_same_calls_in_gevents_threadpool_hold_no_loop(server, tmp_path):
    profile = run_cli(DRIVER_CALLS, tmp_path, slow(server, 0.01), "call=threadpool")
    assert not [f for f in profile.findings if f.kind in LOOP_CPU], listing(profile)


SLOW_LOG_PIPE = Workload("slow_log_pipe.py")


def test_log_writes_to_a_reader_that_fell_behind_are_a_blocking_call(server, tmp_path):
    profile = run_cli(SLOW_LOG_PIPE, tmp_path, slow(server, 0.01))
    first = assert_first(profile, SLOW_LOG_PIPE, BLOCKING_CALL, greenlet="handler")
    assert "writing log records" in first.message, listing(profile)
    assert "monkey-patch" not in first.message, listing(profile)


def test_logging_to_a_file_blocks_nothing(server, tmp_path):
    profile = run_cli(SLOW_LOG_PIPE, tmp_path, slow(server, 0.01), "log=file")
    assert not findings_of(profile, BLOCKING_CALL), listing(profile)


RETRYING = Workload("retrying.py")


def test_requests_retried_after_back_off_is_retry_backoff(server, tmp_path):
    profile = run_cli(RETRYING, tmp_path, f"busy={server.url}/busy")
    first = assert_first(profile, RETRYING, RETRY_BACKOFF, greenlet="caller")
    assert first.extra["sleeps"] >= 8, listing(profile)
    assert "answers of 503 x" in first.message, first.message
    assert "which no retry changes" not in first.message, first.message


def test_a_404_retried_is_told_to_be_taken_out_of_the_retried_statuses(kept_server,
                                                                      tmp_path):
    """Before (an unseen account service retrying its "no profile" 404s): "the upstream
    failed them (503, 429) -- find why the upstream fails"."""
    profile = run_cli(RETRYING, tmp_path, f"busy={kept_server.url}/slow?delay=0&status=404",
                      "status=404")
    first = assert_first(profile, RETRYING, RETRY_BACKOFF, greenlet="caller")
    assert "answers of 404 x" in first.message, first.message
    assert "were 404, which no retry changes" in first.message, first.message
    assert "take it out of the Retry's status_forcelist" in first.message, first.message


def test_retries_that_succeeded_in_the_end_name_the_statuses_retried(tmp_path):
    """Before (an unseen bulk indexer's 429s, retried until they went through): "the
    upstream failed them -- a status in the Retry's status_forcelist --": the callers
    saw only the last answer, a 200, and the 429s' fix (fewer at once) went untold."""
    profile = run_cli(RETRYING, tmp_path, "throttle=1")
    first = assert_first(profile, RETRYING, RETRY_BACKOFF, greenlet="caller")
    assert "answers of 429 x24" in first.message, first.message
    assert "24 of the 24 were 429 (Too Many Requests)" in first.message, first.message
    [host] = [e for e in profile.events if e.get("kind") == "urllib3-pool"]
    assert host["retried"] == [["429", 24]] and host["statuses"] == [], host


def test_requests_not_retried_are_no_retry_backoff(server, tmp_path):
    profile = run_cli(RETRYING, tmp_path, f"busy={server.url}/busy", "retries=0")
    assert not findings_of(profile, RETRY_BACKOFF), listing(profile)


GC_IN_FLIGHT = Workload("gc_in_flight.py")


def test_gc_pauses_over_data_in_flight_say_so_and_do_not_advise_a_freeze(tmp_path):
    profile = run_cli(GC_IN_FLIGHT, tmp_path)
    gc = findings_of(profile, GC_PAUSE)
    assert gc, listing(profile)
    assert "made during the run" in gc[0].message, gc[0].message
    assert "Fix: call gc.freeze()" not in gc[0].message, gc[0].message
    # where the documents are built, from the workers' CPU samples (before: "that code
    # is not the cause", at the line where the slices ended)
    assert "most likely the code that makes the objects it walks" in gc[0].message
    assert GC_IN_FLIGHT.site(gc[0]) in GC_IN_FLIGHT.lines("culprit"), listing(profile)


DELAYED_ACK = Workload("delayed_ack.py")
SPLIT_URL = "kept={}/slow?delay=0&split=1"


@pytest.mark.parametrize("reader", ["urllib3", "adapter=1"])
def test_bodies_held_by_a_delayed_ack_are_a_delayed_ack_stall(kept_server, tmp_path, reader):
    profile = run_cli(DELAYED_ACK, tmp_path, SPLIT_URL.format(kept_server.url),
                      *([reader] if reader != "urllib3" else []))
    first = assert_first(profile, DELAYED_ACK, DELAYED_ACK_STALL, greenlet="worker")
    (host,) = first.extra["hosts"]
    # four connections, one per worker, each made for its first call and then reused
    assert host["new"] == 4 and host["reused"] == 4 * 11, listing(profile)
    assert host["stalled"] >= host["reused"] / 2, listing(profile)
    assert "quickack=True" in first.message and "TCP_NODELAY" in first.message


def test_bodies_acknowledged_at_once_are_no_delayed_ack_stall(kept_server, tmp_path):
    profile = run_cli(DELAYED_ACK, tmp_path, SPLIT_URL.format(kept_server.url), "quickack=1")
    assert not findings_of(profile, DELAYED_ACK_STALL), listing(profile)
    (pool,) = [e for e in profile.events if e.get("kind") == "urllib3-pool"]
    assert pool["trails"]["reused"][:2] == [4 * 11, 0], pool  # every body, none stalled


REQUEST_NAGLE = Workload("request_nagle.py")
POST_URL = "kept={}/slow?delay=0"


def test_request_bodies_held_by_nagle_are_a_request_body_stall(body_server, tmp_path):
    profile = run_cli(REQUEST_NAGLE, tmp_path, POST_URL.format(body_server.url))
    first = assert_first(profile, REQUEST_NAGLE, REQUEST_BODY_STALL, greenlet="worker")
    (host,) = first.extra["hosts"]
    # four connections, one per worker, each made for its first call and then reused
    assert host["new"] == 4 and host["requests"] == 4 * 11, listing(profile)
    assert "default_socket_options" in first.message, listing(profile)


def test_request_bodies_sent_at_once_are_no_request_body_stall(body_server, tmp_path):
    profile = run_cli(REQUEST_NAGLE, tmp_path, POST_URL.format(body_server.url), "nodelay=1")
    assert not findings_of(profile, REQUEST_BODY_STALL), listing(profile)
    (pool,) = [e for e in profile.events if e.get("kind") == "urllib3-pool"]
    assert pool["nagle"] is False and pool["sends"]["reused"][0] == 4 * 11, pool


PYWSGI_SERVICE = Workload("pywsgi_service.py")


def test_a_pywsgi_service_holding_its_clients_bodies_is_server_nagle(tmp_path):
    profile = run_cli(PYWSGI_SERVICE, tmp_path)
    (found,) = findings_of(profile, SERVER_NAGLE)
    assert (found.extra["held"], found.extra["responses"]) == (25, 30), listing(profile)
    assert found.cost_s == 25 * found.extra["client_delayed_ack_s"]
    assert "TCP_NODELAY" in found.message and "gevent issue #1233" in found.message


def test_a_pywsgi_service_with_tcp_nodelay_is_no_server_nagle(tmp_path):
    profile = run_cli(PYWSGI_SERVICE, tmp_path, "nodelay=1")
    assert not findings_of(profile, SERVER_NAGLE), listing(profile)
    (event,) = [e for e in profile.events if e.get("kind") == "pywsgi-responses"]
    [port] = event.pop("ports")
    assert isinstance(port, int) and port > 0, event
    assert event == {"kind": "pywsgi-responses", "served": 30, "responses": 30, "kept": 25,
                     "nagle": 0, "connections": 5, "servers": 1}


LONE_MAIN = Workload("lone_main.py")
LONE_URL = "kept={}/slow?delay=0.05"
# What main did alone in each phase, as the finding tells it (extra.state).
LONE_PHASES = {"warmup": "socket", "drain": "own", "shutdown": "drive", "reload": "run"}


@pytest.mark.parametrize("phase", sorted(LONE_PHASES))
def test_main_alone_on_the_critical_path_is_told_first(kept_server, tmp_path, phase):
    """Before (three of four unseen lifecycle programs): a warm-up in turn, a drain
    polling with a sleep, a shutdown joining idle workers one timeout at a time, or a
    batch loop re-parsing its rules were no finding at all, or ranked under a full
    Pool's smaller cost: time main spent alone delays no other greenlet."""
    profile = run_cli(LONE_MAIN, tmp_path, LONE_URL.format(kept_server.url), f"phase={phase}")
    first = assert_first(profile, LONE_MAIN, CRITICAL_PATH, greenlet="main")
    assert first.extra["state"] == LONE_PHASES[phase], listing(profile)
    assert first.extra["ranks_first"] and first.extra["wall_share"] >= 0.25, listing(profile)


@pytest.mark.parametrize("phase", sorted(LONE_PHASES))
def test_main_doing_each_phase_right_is_on_no_critical_path(kept_server, tmp_path, phase):
    profile = run_cli(LONE_MAIN, tmp_path, LONE_URL.format(kept_server.url), f"phase={phase}",
                      "fixed=1")
    assert not findings_of(profile, CRITICAL_PATH), listing(profile)
