"""The garbage-collection watch (geventperf/trace/gcwatch.py) and what the tracer makes
of it: collections counted in the traced thread only, their time given to the slice
they ran in, gc.callbacks left as found, and a slice the collector filled reported as
a gc-pause rather than as its greenlet's CPU work."""

from __future__ import annotations

import gc
import threading

import gevent
import pytest

from geventperf import Tracer
from geventperf.trace.gcwatch import GcWatch
from tests import tracer_impl

impl = tracer_impl.impl

# Tracked objects kept alive while a test collects: a full collection walks them in
# about 35 ms here (some 12 ms per 100 000), well over the block threshold below, which
# is far shorter than the default (0.05 s) so that a faster machine still clears it.
HEAP_OBJECTS = 300_000
THRESHOLD_S = 0.005


@pytest.fixture
def no_automatic_gc():
    """Only the collections a test makes: none triggered by pytest's allocations."""
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


def other_callback(phase, info):
    pass


def test_install_and_close_leave_the_other_callbacks_in_place():
    gc.callbacks.append(other_callback)
    try:
        before = list(gc.callbacks)
        watch = GcWatch(lambda: 0)
        watch.install()
        watch.install()  # twice: still one callback of ours
        assert len(gc.callbacks) == len(before) + 1
        watch.close()
        watch.close()
        assert gc.callbacks == before
    finally:
        gc.callbacks.remove(other_callback)


def test_collections_are_counted_and_given_to_the_slice_they_ran_in(no_automatic_gc):
    key = [7]
    watch = GcWatch(lambda: key[0])
    watch.install()
    try:
        gc.collect()
        gc.collect(0)
        assert watch.collections[2] == 1 and watch.collections[0] == 1
        collected, generation = watch.in_slice(7)
        assert collected == pytest.approx(watch.total_s) and collected > 0
        assert generation == 2 and watch.longest_generation == 2
        key[0] = 8  # a switch: the next slice starts with nothing collected
        assert watch.in_slice(8) == (0.0, None)
        gc.collect(1)
        assert watch.in_slice(8)[1] == 1 and watch.in_slice(7) == (0.0, None)
    finally:
        watch.close()
    gc.collect()  # not installed: not counted
    assert sum(watch.collections) == 3
    assert watch.as_dict()["collections"] == [1, 1, 1]


def test_the_heap_is_measured_when_start_up_ends_and_at_full_collections(impl,
                                                                         no_automatic_gc):
    """The heap's size (pymalloc's blocks) at the program's first yield to the hub and
    at most at a full collection's start: data built after start-up shows as growth."""
    def worker(documents):
        gevent.sleep(0)  # after start-up
        documents.append([{"n": i} for i in range(HEAP_OBJECTS)])  # data in flight
        gc.collect(1)  # not a full collection: not read
        gc.collect()

    with Tracer() as tracer:
        documents: list = []
        gevent.spawn(worker, documents).join()
    heap = tracer.profile.meta["gc"]
    start, full = heap["start_up_blocks"], heap["full_blocks_max"]
    assert isinstance(start, int) and start > 0
    assert full >= start + HEAP_OBJECTS  # a dict each, at least one block
    assert tracer.profile.gc_collections() == [0, 1, 1]


def test_other_threads_collections_are_not_counted(no_automatic_gc):
    watch = GcWatch(lambda: 0)
    watch.install()
    try:
        thread = threading.Thread(target=gc.collect)
        thread.start()
        thread.join()
        assert sum(watch.collections) == 0 and watch.in_slice(0) == (0.0, None)
    finally:
        watch.close()


def test_the_callback_never_raises_into_the_collecting_program(no_automatic_gc):
    def broken_key():
        raise RuntimeError("slice key unavailable")

    watch = GcWatch(broken_key)
    watch.install()
    try:
        gc.collect()  # the key fails after the counts: counted, nothing raised
        watch._callback("stop", {"generation": "not a number"})
        watch._callback("start", {})
        watch._callback("stop", None)  # type: ignore[arg-type]
    finally:
        watch.close()
    assert watch.collections[2] == 1


def collector():
    """A greenlet whose slice is mostly a full collection: it allocates nothing much
    itself, the collection walks the heap the test keeps."""
    gevent.sleep(0.005)  # the ticker is waiting on its timer by then
    gc.collect()
    gevent.sleep(0)


def ticker():
    for _ in range(20):
        gevent.sleep(0.001)


def test_a_slice_the_collector_filled_is_a_gc_pause(impl):
    heap = [[None] for _ in range(HEAP_OBJECTS)]
    callbacks = list(gc.callbacks)
    try:
        with Tracer(block_threshold=THRESHOLD_S) as tracer:
            gevent.joinall([gevent.spawn(collector), gevent.spawn(ticker)])
    finally:
        del heap
    assert gc.callbacks == callbacks  # put back as found
    p = tracer.profile
    [g] = [g for g in p.greenlets if g.name.endswith(".collector")]
    events = [e for e in p.events if e["kind"] == "blocked-slice" and e["greenlet"] == g.id]
    assert events, p.events
    ev = max(events, key=lambda e: e["gc_s"] or 0.0)
    assert ev["gc_generation"] == 2 and 0 < ev["gc_s"] <= ev["run_s"]
    assert p.meta["gc"]["collections"][2] >= 1
    assert p.meta["gc"]["longest_s"] >= ev["gc_s"] - 1e-9
    # the ticker's timer came due during the collection: someone waited on it
    found = [f for f in p.findings if f.kind == "gc-pause"]
    assert found and found[0].greenlet == g.id, p.findings
    assert not [f for f in p.findings if f.kind == "loop-blocked" and f.greenlet == g.id]
