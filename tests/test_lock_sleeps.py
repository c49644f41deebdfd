"""lock-contended names the sleeps its holders made while holding the lock (a retry's
back-off inside a concurrency limit), on real gevent programs traced in this process."""

from __future__ import annotations

import random

import gevent
import gevent.event
import gevent.lock

import geventperf
from geventperf import findings
from geventperf.profile import Profile
from tests.markers import line_of

WORKERS, SLOTS, CALLS = 12, 3, 8


def _attempt(rng: random.Random) -> bool:
    """A call: a wait of 4 ms for an answer another greenlet sets (not a sleep)."""
    answer = gevent.event.AsyncResult()
    gevent.spawn_later(0.004, answer.set, rng.random() > 0.4)  # four in ten fail
    return answer.get()


def _with_retries(rng: random.Random, limit: gevent.lock.Semaphore | None) -> None:
    for _ in range(5):
        if limit is None:
            ok = _attempt(rng)
        else:
            with limit:  # a slot per attempt
                ok = _attempt(rng)
        if ok:
            return
        gevent.sleep(0.02)  # the back-off


def _worker(limit: gevent.lock.Semaphore, per_attempt: bool, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(CALLS):
        if per_attempt:
            _with_retries(rng, limit)
        else:
            with limit:  # the limit, held across every attempt and back-off
                _with_retries(rng, None)


def _run(per_attempt: bool) -> Profile:
    limit = gevent.lock.Semaphore(SLOTS)
    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(_worker, limit, per_attempt, n) for n in range(WORKERS)])
    return tracer.profile


def test_sleeps_under_the_lock_are_told_with_taking_it_per_attempt_as_the_fix():
    p = _run(per_attempt=False)
    [found] = [f for f in p.findings if f.kind == findings.LOCK_CONTENDED]
    assert f"test_lock_sleeps.py:{line_of(__file__, 'the limit, held across')}:_worker" in found.message
    back_off = f"test_lock_sleeps.py:{line_of(__file__, '# the back-off')}:_with_retries"
    assert back_off in found.message.split("asleep in gevent.sleep at ")[1]
    assert "Fix that first: take the lock for each attempt" in found.message


def test_a_slot_taken_per_attempt_has_no_sleeps_under_it():
    p = _run(per_attempt=True)
    assert not [f for f in p.findings if "asleep in gevent.sleep at" in f.message]


def test_gevents_own_rlock_is_named_as_such():
    # gevent.lock.RLock taken directly: not "a monkey-patched threading lock" (a reader
    # then looks for a threading.Lock the program does not have)
    lock = gevent.lock.RLock()

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(CALLS):
            with lock:
                _attempt(rng)

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(worker, n) for n in range(WORKERS)])
    [found] = [f for f in tracer.profile.findings if f.kind == findings.LOCK_CONTENDED]
    assert "to take a gevent RLock" in found.message
    # its holders wait for an answer another greenlet sets, no socket of theirs: no
    # shared connection is told
    assert "a connection per greenlet" not in found.message
