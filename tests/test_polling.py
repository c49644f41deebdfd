"""The sleep-poll finding on real gevent programs traced in this process: handlers
polling a deque in a sleep loop are told at their line; the same handlers waiting on a
queue, a ticker, a pacer that works on every tick and a scheduler sleeping until each
job is due are not."""

from __future__ import annotations

import collections
import random

import gevent
import gevent.event
import gevent.lock
import gevent.pool
import gevent.queue
import pytest

import geventperf
from geventperf import findings
from geventperf.findings.polling import without_polls_told
from geventperf.profile import Finding, Profile
from tests.markers import line_of

POLL_S = 0.02  # the handlers' poll interval
JOBS = 40
HANDLERS = 4


def _jobs_arrive(put, seed: int = 7) -> None:
    """JOBS jobs at irregular times, 30 ms apart on average."""
    rng = random.Random(seed)
    for n in range(JOBS):
        gevent.sleep(rng.uniform(0.01, 0.05))
        put(n)


def _broker(poll: bool) -> Profile:
    """HANDLERS handlers take JOBS jobs, each doing a step of 'I/O' with one: polling a
    deque every POLL_S (*poll*), or waiting on a queue."""
    ready: collections.deque[int] = collections.deque()
    queue: gevent.queue.Queue[int] = gevent.queue.Queue()
    done: list[int] = []

    def take() -> int | None:
        if not poll:
            return queue.get()
        while not ready:
            if len(done) >= JOBS:
                return None
            gevent.sleep(POLL_S)  # the poll
        return ready.popleft()

    def handler() -> None:
        while len(done) < JOBS:
            job = take()
            if job is None:
                return
            gevent.sleep(0.002)  # the job's own I/O, at another line
            done.append(job)
            if len(done) == JOBS and not poll:
                for _ in range(HANDLERS):
                    queue.put(None)

    with geventperf.Tracer() as tracer:
        handlers = [gevent.spawn(handler) for _ in range(HANDLERS)]
        _jobs_arrive(ready.append if poll else queue.put)
        gevent.joinall(handlers)
    assert sorted(done) == list(range(JOBS))
    return tracer.profile


def _the_poll(p: Profile, marker: str, function: str) -> Finding:
    """The one sleep-poll finding of *p*, at this file's line marked *marker*."""
    [found] = [f for f in p.findings if f.kind == findings.SLEEP_POLL]
    line = line_of(__file__, marker)
    assert found.extra["site"].endswith(f"test_polling.py:{line}:{function}"), found.extra
    return found


def test_handlers_polling_a_deque_are_told_at_their_sleep_line():
    p = _broker(poll=True)
    found = _the_poll(p, "# the poll", "_broker.<locals>.take")
    assert found.stack[1] == found.extra["site"]
    assert found.extra["greenlets"] >= 2
    # a job was found by one wake-up of a poll (or by a handler back from its last
    # job, without a sleep), and most wake-ups found nothing
    finds = found.extra["finds_seen"]
    assert findings.polling.POLL_MIN_FINDS <= finds <= JOBS
    assert found.extra["wakes_seen"] - finds >= finds
    assert found.cost_s == found.extra["finds_seen"] * found.extra["find_sleep_s"] / 2
    # a fixed interval: the sleeps that found were as long as the others
    assert found.extra["find_sleep_s"] >= findings.polling.POLL_WHOLE_SHARE \
        * found.extra["interval_s"]
    assert "Queue's get(timeout=...)" in found.message
    assert f"the {finds} others went on to other work" in found.message


def test_the_same_handlers_waiting_on_a_queue_are_not():
    p = _broker(poll=False)
    assert not [f for f in p.findings if f.kind == findings.SLEEP_POLL]


def test_a_timeline_that_dropped_slices_scales_its_finds_to_every_sleep():
    # the timeline keeps the most recent slices: the finds it saw, over all the sleeps
    ready: collections.deque[int] = collections.deque()
    done: list[int] = []

    def handler() -> None:
        while len(done) < JOBS:
            while not ready:
                if len(done) >= JOBS:
                    return
                gevent.sleep(POLL_S)
            ready.popleft()
            gevent.sleep(0.002)
            done.append(1)

    with geventperf.Tracer(max_slices=300) as tracer:
        handlers = [gevent.spawn(handler) for _ in range(HANDLERS)]
        _jobs_arrive(ready.append)
        gevent.joinall(handlers)
    p = tracer.profile
    assert p.slices_dropped
    [found] = [f for f in p.findings if f.kind == findings.SLEEP_POLL]
    seen, sleeps = found.extra["wakes_seen"], found.extra["sleeps"]
    assert seen < sleeps
    assert found.cost_s == (found.extra["finds_seen"] * sleeps / seen
                            * found.extra["find_sleep_s"] / 2)


def test_a_ticker_that_never_finds_is_not_a_poll():
    # a heartbeat doing nothing between its sleeps, beside handlers waiting on a queue
    beats: list[int] = []
    stop = gevent.event.Event()

    def heartbeat() -> None:
        while not stop.is_set():
            beats.append(1)
            gevent.sleep(0.01)

    with geventperf.Tracer() as tracer:
        ticker = gevent.spawn(heartbeat)
        _broker_on_queue_inside()
        stop.set()
        ticker.join()
    assert len(beats) >= 20
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]


def test_tickers_sharing_one_sleep_line_are_judged_one_by_one():
    # an every(interval, fn) helper: a heartbeat that calls out on every tick and a
    # watchdog that never does, sleeping at one line; together they have a poll's mix
    # of empty wake-ups and finds, each alone is a ticker
    def every(interval: float, fn, ticks: int) -> gevent.Greenlet:
        def loop() -> None:
            for _ in range(ticks):
                gevent.sleep(interval)  # the helper's one sleep line
                fn()
        return gevent.spawn(loop)

    def heartbeat() -> None:
        answer = gevent.event.AsyncResult()
        gevent.spawn_later(0.002, answer.set, True)
        answer.get()  # a call out, on every tick

    checks: list[int] = []
    with geventperf.Tracer() as tracer:
        gevent.joinall([every(2 * POLL_S, heartbeat, 40), every(POLL_S, lambda: checks.append(1), 80)])
    assert len(checks) == 80
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]


def _broker_on_queue_inside() -> None:
    queue: gevent.queue.Queue[int] = gevent.queue.Queue()
    got: list[int] = []

    def consumer() -> None:
        for _ in range(JOBS):
            got.append(queue.get())
            gevent.sleep(0.002)

    worker = gevent.spawn(consumer)
    _jobs_arrive(queue.put)
    worker.join()
    assert len(got) == JOBS


def test_a_pacer_that_works_on_every_tick_is_not_a_poll():
    # a feed follower putting a page per interval into a bounded queue its slow consumer
    # drains: most ticks wait on the full queue (they find work every time)
    queue: gevent.queue.Queue[int] = gevent.queue.Queue(maxsize=5)
    pages = 30

    def follower() -> None:
        for page in range(pages):
            for item in range(10):
                queue.put(page * 10 + item)
            gevent.sleep(POLL_S)
        queue.put(None)

    def consumer() -> None:
        while queue.get() is not None:
            gevent.sleep(0.005)

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(follower), gevent.spawn(consumer)])
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]


def test_a_scheduler_sleeping_in_pieces_until_each_job_is_due_is_not_a_poll():
    # sleep(min(left, 10 ms)) until a job is due, 50 ms apart on average, then the
    # job's I/O at another line: most wake-ups sleep again, the others find, but each
    # find follows a piece cut to the due time -- punctual, not a poll
    rng = random.Random(3)
    due = [0.0]
    for _ in range(40):
        due.append(due[-1] + rng.uniform(0.02, 0.08))
    loop = gevent.get_hub().loop

    def scheduler(start: float) -> None:
        for at in due:
            while loop.now() < start + at:
                gevent.sleep(min(start + at - loop.now(), 0.01))
            gevent.sleep(0.001)  # the job

    with geventperf.Tracer() as tracer:
        gevent.spawn(scheduler, loop.now()).join()
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]


def test_a_poller_queue_full_tells_is_told_once():
    site = "/srv/app/load.py:40:run"
    poll = Finding(kind=findings.SLEEP_POLL, message="p", cost_s=1.0, extra={"site": site})
    other = Finding(kind=findings.SLEEP_POLL, message="o", cost_s=1.0,
                    extra={"site": "/srv/app/load.py:50:run"})
    full = Finding(kind=findings.QUEUE_FULL, message="q", cost_s=2.0,
                   extra={"poller_site": site})
    assert without_polls_told([poll, other, full]) == [other, full]
    assert without_polls_told([poll, other]) == [poll, other]


SLOTS = 6


def _job(rng: random.Random, longest: float = 0.08) -> None:
    gevent.sleep(rng.uniform(0.01, longest))  # a job's I/O, some longer than a tick


def _run_all(pooled: bool) -> Profile:
    """Sixty jobs, SLOTS at a time: refilled at a poll's wake-ups, or by a Pool."""
    rng = random.Random(5)
    with geventperf.Tracer() as tracer:
        if pooled:
            pool = gevent.pool.Pool(SLOTS)
            for _ in range(60):
                pool.spawn(_job, rng)
            pool.join()
        else:
            pending, running = 60, []
            while pending or running:
                running = [g for g in running if not g.dead]
                while pending and len(running) < SLOTS:
                    running.append(gevent.spawn(_job, rng))
                    pending -= 1
                if running:
                    gevent.sleep(POLL_S * 2)  # the refill's poll
    return tracer.profile


def test_a_loop_refilling_its_slots_at_a_polls_wake_ups_is_told():
    p = _run_all(pooled=False)
    found = _the_poll(p, "# the refill's poll", "_run_all")
    assert found.extra["refill_cap"] == SLOTS
    assert found.cost_s == found.extra["empty_slot_s"] > 0
    assert f"gevent.pool.Pool({SLOTS})" in found.message
    assert "each time as many as had ended since" in found.message


def test_the_same_jobs_in_a_pool_are_not():
    p = _run_all(pooled=True)
    assert not [f for f in p.findings if f.kind == findings.SLEEP_POLL]


@pytest.mark.parametrize("longest", [0.08, 0.03])
def test_a_batch_started_on_every_tick_is_no_refill(longest):
    # SLOTS jobs per tick, whatever still runs: a pacer's batches, not a cap kept full;
    # jobs of up to 80 ms outlive a tick now and then (the running ones then exceed
    # SLOTS), jobs of up to 30 ms never do (SLOTS run after every tick, as in a refill,
    # but never while some still ran: no tick refilled a cap)
    rng = random.Random(5)
    with geventperf.Tracer() as tracer:
        started = []
        for _ in range(10):
            started.extend(gevent.spawn(_job, rng, longest) for _ in range(SLOTS))
            gevent.sleep(POLL_S * 2)
        gevent.joinall(started)
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]


def _rpc_callers(poll: bool) -> Profile:
    """Callers send requests that a reader answers 2-12 ms later (replies keyed by id);
    each caller makes two calls per order, from two lines, and waits for each reply by
    polling a dict every 5 ms (*poll*) or on an AsyncResult."""
    replies: dict[int, int] = {}
    waiters: dict[int, gevent.event.AsyncResult] = {}
    rng = random.Random(3)
    ids = iter(range(10 ** 6))

    def answer(rid: int) -> None:
        gevent.sleep(rng.uniform(0.002, 0.012))
        if poll:
            replies[rid] = rid
        else:
            waiters.pop(rid).set(rid)

    def call() -> int:
        rid = next(ids)
        if not poll:
            waiters[rid] = gevent.event.AsyncResult()
        gevent.spawn(answer, rid)
        if not poll:
            return waiters[rid].get() if rid in waiters else rid
        while rid not in replies:
            gevent.sleep(0.005)  # the reply poll
        return replies.pop(rid)

    def session() -> None:
        for _ in range(25):
            call()  # the stock lookup
            call()  # the quote

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(session) for _ in range(8)])
    return tracer.profile


def test_callers_polling_for_replies_that_mostly_came_are_one_sleep_poll():
    # most wake-ups find the reply (dense: it comes within about two intervals), and
    # the one poll line sits under two callers' lines: one finding at that line
    p = _rpc_callers(poll=True)
    found = _the_poll(p, "# the reply poll", "_rpc_callers.<locals>.call")
    assert found.extra["finds_seen"] > found.extra["wakes_seen"] - found.extra["finds_seen"]
    assert found.extra["greenlets"] == 8


def test_callers_waiting_on_their_replies_are_no_sleep_poll():
    assert not [f for f in _rpc_callers(poll=False).findings if f.kind == findings.SLEEP_POLL]


def test_a_poll_backing_off_is_costed_at_the_sleeps_that_found():
    # workers try a 2-slot limit without blocking and back off, doubling the sleep up to
    # 64 ms: the tries that succeed follow the longest sleeps, and the lateness is half
    # of those, not of the median sleep
    limit = gevent.lock.BoundedSemaphore(2)

    def worker() -> None:
        for _ in range(6):
            delay = 0.004
            while not limit.acquire(blocking=False):
                gevent.sleep(delay)  # the back-off
                delay = min(delay * 2, 0.064)
            try:
                gevent.sleep(0.01)
            finally:
                limit.release()

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(worker) for _ in range(8)])
    found = _the_poll(tracer.profile, "# the back-off",
                      "test_a_poll_backing_off_is_costed_at_the_sleeps_that_found.<locals>.worker")
    assert found.extra["find_sleep_s"] > findings.polling.GROWN_SLEEP * found.extra["interval_s"]
    assert "a back-off" in found.message
    assert found.cost_s > found.extra["finds_seen"] * found.extra["interval_s"] / 2


def test_handlers_whose_polls_mostly_find_at_once_are_a_sleep_poll():
    """Before (an unseen long-poll service: handlers checked a job's state every 50 ms
    for jobs of 15-55 ms, found it after one sleep 639 times in 645): "FINDINGS: none";
    an Event took 35 % off the run.  A few empty wake-ups, each a check of microseconds,
    tell the loop from a fixed pause."""
    rng = random.Random(5)
    done: set[int] = set()

    def job(n: int) -> None:
        gevent.sleep(rng.uniform(0.004, 0.0115))  # mostly shorter than the interval
        done.add(n)

    def handler(first: int) -> None:
        for n in range(first, first + 20):
            gevent.spawn(job, n)
            while n not in done:
                gevent.sleep(0.01)  # the job poll
            gevent.sleep(0.001)  # the answer's write, at another line

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(handler, 100 * h) for h in range(6)])
    found = _the_poll(tracer.profile, "# the job poll",
                      "test_handlers_whose_polls_mostly_find_at_once_are_a_sleep_poll"
                      ".<locals>.handler")
    assert found.extra["greenlets"] == 6
    empties = found.extra["wakes_seen"] - found.extra["finds_seen"]
    # fewer than a quarter of the wake-ups empty: no poll before
    assert findings.polling.POLL_MIN_EMPTIES <= empties < found.extra["wakes_seen"] / 4


def test_a_stream_paced_by_its_generator_is_no_sleep_poll():
    """Before (an unseen aggregator's stand-in venue feeds: a pywsgi generator yielding
    a batch of ticks every 20 ms): sleep-poll, "5767 of the 5807 wake-ups found nothing",
    though each one yielded a batch that pywsgi wrote at once, without a wait."""
    import json

    from gevent import pywsgi, socket

    def feed(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/x-ndjson")])

        def ticks():
            for n in range(30):
                gevent.sleep(0.02)  # the feed's pace
                yield "".join(json.dumps({"seq": n, "px": n * 1.5, "venue": "x" * 40,
                                          "i": i}) + "\n" for i in range(60)).encode()
        return ticks()

    server = pywsgi.WSGIServer(("127.0.0.1", 0), feed, log=None)
    server.start()
    def follow() -> int:  # a raw client: this process is not monkey-patched
        with socket.create_connection(("127.0.0.1", server.server_port)) as conn:
            # kept alive: after its stream, the server's greenlet awaits the next request
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            received = b""
            while not received.endswith(b"\r\n0\r\n\r\n"):  # the last chunk
                received += conn.recv(65536)
        return received.count(b'"seq"')

    try:
        with geventperf.Tracer() as tracer:
            followers = [gevent.spawn(follow) for _ in range(8)]
            gevent.joinall(followers, raise_error=True)
    finally:
        server.stop()
    assert [g.value for g in followers] == [30 * 60] * 8
    assert not [f for f in tracer.profile.findings if f.kind == findings.SLEEP_POLL]
