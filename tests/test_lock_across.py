"""lock-contended on a busy loop: handlers queued for a lock that a flusher elsewhere in
the file holds across its round trips are told, with the flusher's block; the same
flusher sending outside the lock, or holding it for CPU work only, is not told (on a busy
loop the waits for a lock held for CPU are the loop's queueing, loop-saturated's story).
Real gevent programs traced in this process."""

from __future__ import annotations

import gevent
import gevent.event
import gevent.lock

import geventperf
from geventperf import findings
from geventperf.findings.common import block_threshold
from geventperf.findings.limits import event_wait, lock_wait
from geventperf.profile import Profile
from tests.markers import line_of

HANDLERS = 24
RECORDS_EACH = 120
FLUSH_EVERY_S = 0.02
ROUND_TRIP_S = 0.015  # the collector's answer
OTHER_TRAFFIC = 2  # greenlets of work that never takes the lock (mode "across")


def _burn(n: int) -> int:
    """A handler's CPU work between two records (~0.2 ms): the loop stays busy."""
    return sum(i * i for i in range(n))


class Metrics:
    def __init__(self, how: str) -> None:
        self.lock = gevent.lock.RLock()
        self.counts: dict[int, int] = {}
        self.how = how
        self.stopped = False

    def record(self, key: int) -> None:
        with self.lock:  # the handlers' line
            self.counts[key] = self.counts.get(key, 0) + 1

    def _send(self, counts: dict[int, int]) -> None:
        answer = gevent.event.AsyncResult()
        gevent.spawn_later(ROUND_TRIP_S, answer.set, len(counts))
        answer.get()  # waits for the answer

    def flush(self) -> None:
        if self.how == "across":
            with self.lock:
                self._send(self.counts)  # held across the round trip
                self.counts = {}
        elif self.how == "swap":
            with self.lock:
                counts, self.counts = self.counts, {}
            self._send(counts)
        else:  # "cpu": held for CPU work, giving way to the others between pieces
            with self.lock:
                for _ in range(10):
                    _burn(2000)
                    gevent.sleep(0)
                self.counts = {}

    def run_flusher(self) -> None:
        while not self.stopped:
            gevent.sleep(FLUSH_EVERY_S)
            self.flush()


def _handler(metrics: Metrics, record_every: int) -> None:
    for n in range(RECORDS_EACH):
        _burn(3000)
        if n % record_every == 0:
            metrics.record(n % 7)
        gevent.sleep(0)


def _other_traffic(metrics: Metrics) -> None:
    """Work that never takes the lock, keeping the loop busy while the handlers wait
    for it: without it the loop idled through the flusher's holds (some 40 % of the
    run), and a crowded machine's CPU wait, taken off the run, made that idle half of
    it: the loop had room, and the idle loop's rule told the lock instead."""
    while not metrics.stopped:
        _burn(3000)
        gevent.sleep(0)


def _run(how: str, record_every: int = 1) -> Profile:
    metrics = Metrics(how)
    with geventperf.Tracer() as tracer:
        flusher = gevent.spawn(metrics.run_flusher)
        # (only beside a lock held across round trips: beside one held for CPU, a loop
        # never idle makes the handlers' waits for it all queueing, not event wait, and
        # that test's premise failed 7 of 10 runs beside three hogs)
        others = [gevent.spawn(_other_traffic, metrics)
                  for _ in range(OTHER_TRAFFIC if how == "across" else 0)]
        gevent.joinall([gevent.spawn(_handler, metrics, record_every)
                        for _ in range(HANDLERS)])
        metrics.stopped = True
        gevent.joinall([flusher, *others])
    return tracer.profile


def _locks(p: Profile) -> list:
    return [f for f in p.findings if f.kind == findings.LOCK_CONTENDED]


def test_a_lock_held_across_round_trips_elsewhere_is_told_on_a_busy_loop():
    p = _run("across")
    assert (p.hub.get("idle_s") or 0.0) < 0.5 * p.duration_s  # the loop was busy
    [found] = _locks(p)
    assert f"test_lock_across.py:{line_of(__file__, 'the handlers')}:Metrics.record" \
        in found.message
    held = f"test_lock_across.py:{line_of(__file__, 'held across the round')}:Metrics.flush"
    assert held in found.message.split("waited while holding it: ")[1]
    answer = f"test_lock_across.py:{line_of(__file__, 'waits for the answer')}:Metrics._send"
    assert answer in found.message
    assert found.extra["held_across_s"] >= 0.1 * p.duration_s
    # told on a busy loop (not by the idle loop's rule)
    assert found.extra["cost_meaning"] == findings.limits.HELD_ACROSS_COST


def test_the_flusher_sending_outside_the_lock_is_not_told():
    assert not _locks(_run("swap"))


def test_a_lock_held_for_cpu_work_on_a_busy_loop_is_not_told():
    p = _run("cpu")
    # the handlers did queue for it, behind a holder that only queued for the loop
    assert [w for w in p.waits if w.stack and "Metrics.record" in " ".join(w.stack[:3])
            and (w.event_wait_s or 0.0) > 0]
    assert not _locks(p)


def test_a_lock_that_its_waiters_waited_for_under_a_tenth_of_the_run_is_not_told():
    # the traced run's lock waits scaled to either side of HELD_ACROSS_SHARE of the run:
    # a lock per key held across its fetch (a single flight) keeps its waiters' share
    # that small
    p = _run("across")
    rows = [w for w in p.waits if lock_wait(w) is not None]
    waited = sum(event_wait(w) for w in rows)
    edge = findings.limits.HELD_ACROSS_SHARE * p.duration_s
    # the edge under test, not the block threshold's (waits under it are no finding):
    # a run of 0.40 s put the edge at 40 ms, under the default 50 ms, and failed
    p.meta["block_threshold_s"] = min(block_threshold(p), edge / 2)
    for factor, told in ((1 - 1e-6, False), (1 + 1e-6, True)):
        for w in rows:
            w.event_wait_s = event_wait(w) * edge * factor / waited
        waited = sum(event_wait(w) for w in rows)
        assert bool(findings.lock_contended(p)) is told, factor


def _shared_connection(pooled: bool) -> Profile:
    """Workers get keys from a line-protocol store (a StreamServer answering after 2 ms)
    through one connection behind a lock (*pooled*: a connection each, no lock)."""
    import gevent.server
    import gevent.socket

    def store(sock, _address):
        reader = sock.makefile("rb")
        for _line in reader:
            gevent.sleep(0.002)
            sock.sendall(b"VALUE x\n")

    server = gevent.server.StreamServer(("127.0.0.1", 0), store)
    server.start()
    lock = gevent.lock.RLock()

    def connect():
        sock = gevent.socket.create_connection(("127.0.0.1", server.server_port))
        return sock, sock.makefile("rb")

    shared = connect()

    def get(conn, key: int) -> bytes:
        sock, reader = conn
        sock.sendall(b"GET %d\n" % key)
        return reader.readline()  # the store's reply

    def worker() -> None:
        conn = connect() if pooled else shared
        for key in range(20):
            if pooled:
                get(conn, key)
            else:
                with lock:
                    get(conn, key)  # under the lock

    try:
        with geventperf.Tracer() as tracer:
            gevent.joinall([gevent.spawn(worker) for _ in range(12)], raise_error=True)
    finally:
        server.stop()
    return tracer.profile


def test_a_lock_around_a_shared_connection_is_told_with_a_connection_each_as_the_fix():
    [found] = _locks(_shared_connection(pooled=False))
    assert "a connection per greenlet, or a pool of them" in found.message
    assert f"test_lock_across.py:{line_of(__file__, '# under the lock')}:" in found.message


def test_connections_of_their_own_need_no_lock():
    assert not _locks(_shared_connection(pooled=True))
