"""An upstream that queues what it cannot serve at once (held.upstream_queued), from the
pool watch's ``heads_by_load``; and one whose mean hides a slow tail (held.slow_tail),
from its ``heads_by_time``.

End to end, ``tests/diagnosis/small_pool.py`` (run through the real CLI, as the
diagnosis suite runs its workloads) puts a Pool of 16 and 80 jobs in front of an
upstream on 127.0.0.1 that serves one request at a time, in the order they came, in
front of one that answers every request after a fixed delay, and in front of one whose
answers come with a slow tail.  Then each condition of the rule
is moved past its edge on a record built by hand.
"""

from __future__ import annotations

import heapq
import itertools
import selectors
import socket
import struct
import threading
import time

import pytest

from geventperf.findings.held import (
    QUEUED_MANY_LIGHT,
    QUEUED_MIN_LIGHT,
    QUEUED_MIN_LOADED,
    QUEUED_RATIO,
    QUEUED_RATIO_MANY,
    TAIL_COUNT_SHARE,
    TAIL_FIX,
    TAIL_MIN,
    TAIL_MIN_TIMED,
    TAIL_TOLD,
    slow_tail,
    upstream_queued,
)
from geventperf.poolwatch import LOAD_BUCKETS, TIME_BUCKETS, load_bucket, time_bucket
from geventperf.profile import Profile
from tests.servers import RawServer, http_response
from tests.test_diagnosis import (
    POOL_FULL,
    Workload,
    assert_first,
    findings_of,
    listing,
    run_cli,
)

POOL = Workload("small_pool.py")
# A Pool of 16 running 80 fetches: about 16 x 20 ms each against the queueing upstream.
POOL_ARGS = ("size=16", "tasks=80")
# The queueing upstream's time per request; the one with room answers after about what
# the queue makes each request wait with 16 in flight.
SERVICE_S = 0.02
ROOMY_DELAY_S = 0.3
ANSWER = http_response(b"ok")
POLL_S = 0.05  # how soon the idle upstream sees that the test is done with it
STOP_TIMEOUT_S = 5.0
# Linux's SO_TIMESTAMPNS (asm-generic/socket.h), which the socket module does not name.
SO_TIMESTAMPNS = 35


class OneAtATime:
    """An upstream with one worker: it answers each request SERVICE_S after the one
    before it, in the order the requests arrived (by the kernel's receive timestamps), as
    a single-worker server's queue does.  One thread of its own, not RawServer's thread
    per connection: those took their turns in the order the GIL woke them, and of the 16
    requests a full Pool sends at once, the first sent were answered after 0.2 s (3 runs
    in 8 then told pool-full)."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        # accepted connections inherit it: each recvmsg says when its bytes arrived
        self._listener.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="one-at-a-time", daemon=True)

    def __enter__(self) -> OneAtATime:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._thread.join(STOP_TIMEOUT_S)

    def _run(self) -> None:
        with selectors.DefaultSelector() as sel, self._listener:
            sel.register(self._listener, selectors.EVENT_READ)
            heads: dict[socket.socket, bytes] = {}  # bytes of a head not complete yet
            queue: list[tuple[float, int, socket.socket]] = []  # by arrival
            arrivals = itertools.count()  # ties keep the order read
            serving, done_at = None, 0.0
            while not self._stopping.is_set():
                wait = max(done_at - time.monotonic(), 0.0) if serving else POLL_S
                for key, _ in sel.select(wait):
                    if key.fileobj is self._listener:
                        self._accept_all(sel, heads)
                        continue
                    conn = key.fileobj
                    data, ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(16))
                    if not data:
                        sel.unregister(conn)
                        del heads[conn]
                        conn.close()
                        continue
                    heads[conn] += data
                    if b"\r\n\r\n" in heads[conn]:  # GETs: no body to read
                        heads[conn] = b""
                        heapq.heappush(queue, (_arrived(ancillary), next(arrivals), conn))
                if serving is not None and time.monotonic() >= done_at:
                    serving.sendall(ANSWER)  # a few bytes: the buffer takes them at once
                    serving = None
                if serving is None and queue:
                    serving, done_at = heapq.heappop(queue)[2], time.monotonic() + SERVICE_S
            for conn in heads:
                conn.close()

    def _accept_all(self, sel: selectors.BaseSelector,
                    heads: dict[socket.socket, bytes]) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except BlockingIOError:
                return
            sel.register(conn, selectors.EVENT_READ)
            heads[conn] = b""


def _arrived(ancillary: list[tuple[int, int, bytes]]) -> float:
    """The kernel's receive time of the bytes recvmsg read (SO_TIMESTAMPNS)."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds + nanoseconds * 1e-9
    raise AssertionError("no receive timestamp: SO_TIMESTAMPNS is Linux's")


@pytest.fixture(scope="module")
def fifo_server():
    with OneAtATime() as srv:
        yield srv


class Stragglers:
    """Answers after USUAL_S, but every STRAGGLE_EVERY-th request after STRAGGLE_S."""

    def __init__(self) -> None:
        self.served = 0
        self._lock = threading.Lock()

    def __call__(self, head: bytes) -> list:
        with self._lock:
            self.served += 1
            slow = self.served % STRAGGLE_EVERY == 0
        return [STRAGGLE_S if slow else USUAL_S, ANSWER]


# A Pool of 8 running 96 fetches: full whenever stragglers hold a few of its slots (of 16,
# the spawner's waits for a slot behind 10 ms answers were 0.08 s, near the threshold).
STRAGGLED_ARGS = ("size=8", "tasks=96")
# Usual answers well inside their bucket of heads_by_time (8-16 ms; at 20 ms, a loaded
# machine's 35 ms moved the median up a bucket and the tail's start past 0.5 s
# stragglers), and stragglers well inside theirs (512-1024 ms).
USUAL_S, STRAGGLE_EVERY, STRAGGLE_S = 0.01, 12, 0.75


@pytest.fixture(scope="module")
def roomy_server():
    with RawServer(lambda head: [ROOMY_DELAY_S, ANSWER], keep_alive=True) as srv:
        yield srv


def test_a_full_pool_in_front_of_an_upstream_with_room_is_pool_full(roomy_server, tmp_path):
    """The control: every answer after a fixed delay, however many are in flight."""
    profile = run_cli(POOL, tmp_path, f"slow={roomy_server.url}/", *POOL_ARGS)
    assert_first(profile, POOL, POOL_FULL, greenlet="main")


def test_a_full_pool_in_front_of_an_upstream_with_stragglers_is_told_its_tail(tmp_path):
    """Before (an unseen sync against an upstream answering in 5 ms but stalling 800 ms
    once in fifty): pool-full with "22 ms on average" and "a larger Pool" first; a
    per-attempt timeout with a retry took 44 % off the run."""
    with RawServer(Stragglers(), keep_alive=True) as srv:
        profile = run_cli(POOL, tmp_path, f"slow={srv.url}/", *STRAGGLED_ARGS)
    # (a crowded machine may add cpu-starved, first: this one's message is the point)
    [full] = findings_of(profile, POOL_FULL)
    assert f"But {TAIL_TOLD}: " in full.message, full.message
    assert TAIL_FIX in full.message, full.message


def test_a_full_pool_in_front_of_an_upstream_that_queues_is_no_pool_full(fifo_server,
                                                                          tmp_path):
    """Before (an unseen digest keeping 40 fetches in flight to an origin serving 6 at
    once): pool-full, whose larger Pool gained nothing: the answers came 15 ms after
    the first requests, and 103 ms with 40 in flight."""
    profile = run_cli(POOL, tmp_path, f"slow={fifo_server.url}/", *POOL_ARGS)
    assert not findings_of(profile, POOL_FULL), listing(profile)
    [pool] = [e for e in profile.events if e["kind"] == "urllib3-pool"]
    heads = pool["heads_by_load"]
    light = [sum(b[i] for b in heads[:3]) for i in (0, 1)]  # 1-4 in flight
    loaded = heads[4]  # 9-16
    assert light[0] == 4 and loaded[0] >= 60, heads
    assert loaded[1] / loaded[0] > 2 * light[1] / light[0], heads

HOST = "http://127.0.0.1:8080"
LIGHT_MS, LOADED_MS = 20.0, 160.0


def record(light: int = 4, loaded: int = 100, light_ms: float = LIGHT_MS,
           loaded_ms: float = LOADED_MS, loaded_bucket: int = 4) -> Profile:
    """A host whose *light* heads were sent with 3-4 in flight, and *loaded* ones in
    *loaded_bucket* (9-16 in flight by default)."""
    buckets = [[0, 0.0] for _ in range(LOAD_BUCKETS)]
    buckets[2] = [light, light * light_ms / 1e3]
    buckets[loaded_bucket] = [loaded, loaded * loaded_ms / 1e3]
    return Profile(duration_s=2.0, events=[{"kind": "urllib3-pool", "pool": HOST,
                                             "heads_by_load": buckets}])


@pytest.mark.parametrize("in_flight, bucket", [
    (1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (16, 4), (17, 5),
    (10 ** 6, LOAD_BUCKETS - 1), (0, 0)])
def test_the_buckets_are_powers_of_two(in_flight, bucket):
    assert load_bucket(in_flight) == bucket


def test_answers_slower_with_many_in_flight_are_a_queue():
    queued = upstream_queued(record(), HOST)
    assert queued is not None
    assert (queued.light_in_flight, queued.loaded_in_flight) == (4, (9, 16))
    assert queued.light_ms == pytest.approx(LIGHT_MS)
    assert queued.loaded_ms == pytest.approx(LOADED_MS)


@pytest.mark.parametrize("change", [
    dict(loaded_ms=QUEUED_RATIO * LIGHT_MS * 0.99),  # as fast loaded: room to spare
    dict(loaded=QUEUED_MIN_LOADED - 1),  # too few heads at the top to judge
    dict(light=QUEUED_MIN_LIGHT - 1),  # too few sent while the pool filled
    dict(loaded_bucket=3),  # 5-8 in flight: no bucket at a quarter of it beside 3-4
], ids=["as-fast", "few-loaded", "few-light", "no-quarter"])
def test_it_is_no_queue(change):
    assert upstream_queued(record(**change), HOST) is None


def test_at_the_ratio_it_is_a_queue():
    assert upstream_queued(record(loaded_ms=QUEUED_RATIO * LIGHT_MS * 1.01), HOST)


@pytest.mark.parametrize("light, queued", [
    (QUEUED_MANY_LIGHT, True), (QUEUED_MANY_LIGHT - 1, False)])
def test_many_light_heads_make_a_smaller_rise_a_queue(light, queued):
    """QUEUED_RATIO_MANY from QUEUED_MANY_LIGHT light heads on; under, QUEUED_RATIO."""
    rise = record(light=light, loaded_ms=QUEUED_RATIO_MANY * LIGHT_MS * 1.01)
    assert (upstream_queued(rise, HOST) is not None) is queued
    assert upstream_queued(record(light=light, loaded_ms=QUEUED_RATIO_MANY * LIGHT_MS * 0.99),
                           HOST) is None


def tails(fast: int = 95, slow: int = 5, fast_s: float = 0.005, slow_s: float = 0.8,
          key: str = "heads_by_time") -> Profile:
    """A host with *fast* heads of *fast_s* and *slow* of *slow_s*."""
    buckets = [[0, 0.0] for _ in range(TIME_BUCKETS)]
    for n, each in ((fast, fast_s), (slow, slow_s)):
        b = buckets[time_bucket(each)]
        b[0], b[1] = b[0] + n, b[1] + n * each
    return Profile(duration_s=2.0, events=[{"kind": "urllib3-pool", "pool": HOST,
                                             key: buckets}])


def test_a_few_slow_answers_holding_most_of_the_time_are_a_tail():
    tail = slow_tail(tails(), HOST)
    assert tail is not None
    assert (tail.count, tail.timed) == (5, 100)
    # the median's bucket is 4-8 ms: the tail starts 8 times above its top
    assert tail.floor_ms == 64 and tail.mean_s == pytest.approx(0.8)
    assert tail.median_ms == pytest.approx(5.0)


@pytest.mark.parametrize("change", [
    dict(slow=TAIL_MIN - 1),  # a stray straggler or four: no pattern
    dict(fast=int(TAIL_MIN / TAIL_COUNT_SHARE) - TAIL_MIN - 1),  # over a tenth: the bulk
    dict(fast=TAIL_MIN_TIMED - TAIL_MIN - 1),  # too few timed
    # the slow ones under TAIL_TIME_SHARE of the time: 5 of 64.5 ms (just over the
    # tail's floor) against 190 of 7 ms, 20 %
    dict(fast=190, fast_s=0.007, slow_s=0.0645),
    dict(slow_s=0.03),  # under 8 times the median's bucket: no tail
    dict(key="heads_by_load"),  # a record without the table
], ids=["few", "bulk", "few-timed", "light", "close", "no-table"])
def test_it_is_no_tail(change):
    assert slow_tail(tails(**change), HOST) is None


@pytest.mark.parametrize("heads", [None, "x", [[1, 2, 3]], [[1, -1.0]], [[True, 0.1]],
                                   [[1, float("nan")]]])
def test_a_broken_record_says_nothing(heads):
    p = Profile(duration_s=1.0, events=[{"kind": "urllib3-pool", "pool": HOST,
                                         "heads_by_load": heads}])
    assert upstream_queued(p, HOST) is None
    assert upstream_queued(record(), "http://elsewhere:1") is None
