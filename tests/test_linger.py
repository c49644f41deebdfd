"""serial-bottleneck told as a batcher's linger, on real gevent programs traced in this
process: producers each waiting for their record's batch while the batcher waits out a
deadline for more records are told at the batcher's get(timeout=...) line; the same
batcher flushing when its queue is empty, workers that linger over their own input and
a lone dispatcher timing out to check for a stop are not."""

from __future__ import annotations

import time

import gevent
import gevent.event
import gevent.queue

import geventperf
from geventperf import findings
from geventperf.findings.handoff import without_lingers_told
from geventperf.profile import Finding, Profile
from tests.markers import line_of

PRODUCERS = 12
RECORDS_EACH = 8
MAX_BATCH = 64  # more than the producers: a batch never fills
LINGER_S = 0.02
STORE_S = 0.002  # one batch's round trip to the store


def _group_commit(linger: bool, linger_s: float = LINGER_S, store_s: float = STORE_S
                  ) -> Profile:
    """PRODUCERS producers each store RECORDS_EACH records one after another, waiting for
    each one's batch; the batcher takes a batch's first record, then waits up to
    *linger_s* for more (*linger*) or takes what is queued, and flushes in *store_s*."""
    records: gevent.queue.Queue = gevent.queue.Queue()

    def batcher() -> None:
        while True:
            first = records.get()  # the batch's first record
            if first is None:
                return
            batch, deadline = [first], time.monotonic() + linger_s
            while len(batch) < MAX_BATCH:
                try:
                    if linger:
                        item = records.get(timeout=max(0.0, deadline - time.monotonic()))  # linger
                    else:
                        item = records.get_nowait()
                except gevent.queue.Empty:
                    break
                batch.append(item)
            gevent.sleep(store_s)
            for done in batch:
                done.set(True)

    def producer() -> None:
        for _ in range(RECORDS_EACH):
            done = gevent.event.AsyncResult()
            records.put(done)
            done.get()  # the producer's ack

    with geventperf.Tracer() as tracer:
        writer = gevent.spawn(batcher)
        writer.name = "batcher"
        producers = [gevent.spawn(producer) for _ in range(PRODUCERS)]
        for g in producers:
            g.name = "producer"
        gevent.joinall(producers, raise_error=True)
        records.put(None)
        writer.join()
    return tracer.profile


def _lingers(p: Profile) -> list[Finding]:
    return [f for f in p.findings if f.extra.get("linger")]


def test_producers_waiting_out_a_batchers_linger_are_told_at_its_timed_get():
    p = _group_commit(linger=True)
    [found] = _lingers(p)
    assert found.kind == findings.SERIAL_BOTTLENECK
    line = line_of(__file__, "# linger")
    assert found.extra["linger"].endswith(f"test_linger.py:{line}:_group_commit.<locals>.batcher")
    assert p.greenlet(found.greenlet).name == "batcher"
    # the producers' waits, not the batcher's own: it waits for them at its gets
    ack = line_of(__file__, "# the producer's ack")
    assert f"test_linger.py:{ack}:" in found.message and "'producer'" in found.message
    assert found.extra["lingered_s"] >= findings.handoff.LINGER_RUN_SHARE * p.duration_s
    first = line_of(__file__, "# the batch's first record")
    assert f"test_linger.py:{first}:" in found.message
    assert "get_nowait()" in found.message


def test_a_batcher_flushing_when_its_queue_is_empty_is_no_linger():
    assert not _lingers(_group_commit(linger=False))


def test_a_linger_short_beside_its_flush_is_not_told():
    # 2 ms of linger beside a 20 ms flush: the flush paced the producers
    p = _group_commit(linger=True, linger_s=0.002, store_s=0.02)
    assert not _lingers(p)
    assert [f for f in p.findings if f.kind == findings.SERIAL_BOTTLENECK]


ITEMS = 40  # arriving one every 10 ms (_arrive)


def _arrive(queue: gevent.queue.Queue) -> None:
    for n in range(ITEMS):
        gevent.sleep(0.01)
        queue.put(n)


def test_workers_lingering_over_their_own_input_are_not_told_as_a_batcher():
    # the waiting greenlets themselves take a first item and linger for more: they wait
    # for input that a pacer hands out on its own schedule, not for a batcher
    items: gevent.queue.Queue = gevent.queue.Queue()
    taken: list[int] = []

    def worker() -> None:
        while True:
            first = items.get()
            if first is None:
                return
            taken.append(first)
            try:
                more = items.get(timeout=0.05)
            except gevent.queue.Empty:
                continue
            if more is None:  # its stop, taken while it lingered
                return
            taken.append(more)

    with geventperf.Tracer() as tracer:
        workers = [gevent.spawn(worker) for _ in range(8)]
        _arrive(items)
        while len(taken) < ITEMS:
            gevent.sleep(0.01)
        for _ in workers:
            items.put(None)
        gevent.joinall(workers)
    assert sorted(taken) == list(range(ITEMS))
    assert not _lingers(tracer.profile)


def test_a_dispatcher_timing_out_to_check_for_a_stop_is_no_linger():
    # one get(timeout=...) line and no batch's first item: idle between inputs that
    # arrive at their own pace, while its workers wait for what it hands them
    inbox: gevent.queue.Queue = gevent.queue.Queue()
    work: gevent.queue.Queue = gevent.queue.Queue()
    stop = gevent.event.Event()
    done: list[int] = []

    def dispatcher() -> None:
        while not stop.is_set():
            try:
                work.put(inbox.get(timeout=0.05))
            except gevent.queue.Empty:
                continue

    def worker() -> None:
        while True:
            item = work.get()
            if item is None:
                return
            done.append(item)

    with geventperf.Tracer() as tracer:
        d = gevent.spawn(dispatcher)
        workers = [gevent.spawn(worker) for _ in range(8)]
        _arrive(inbox)
        gevent.sleep(0.02)
        stop.set()
        d.join()
        for _ in workers:
            work.put(None)
        gevent.joinall(workers)
    assert sorted(done) == list(range(ITEMS))
    assert not _lingers(tracer.profile)


def test_a_linger_told_by_serial_bottleneck_is_not_told_again_as_a_pools_slots():
    site = "/srv/app.py:40:batcher"
    told = Finding(kind=findings.SERIAL_BOTTLENECK, message="", extra={"linger": site})
    slots = Finding(kind=findings.POOL_FULL, message="", extra={"lingered_in_slots": site})
    other = Finding(kind=findings.POOL_FULL, message="",
                    extra={"lingered_in_slots": "/srv/app.py:90:flusher"})
    plain = Finding(kind=findings.POOL_FULL, message="", extra={})
    assert without_lingers_told([told, slots, other, plain]) == [told, other, plain]
