"""What the spawn watch (trace/spawns.py) notes of a start, on real gevent greenlets
traced in this process, on both hot paths.

* ``meta.pool_jobs``: the greenlets a gevent Pool started, by name.  gevent records
  only the spawner as a greenlet's parent; a spawner filling a Pool may start others
  beside it (an unseen status backend's pollers, started with gevent.spawn, were told
  as its Pool's jobs).
* A start on a timer (``spawn_later``, ``start_later``): the greenlet waits for its
  timer, an event, and is ready only once it fires (an unseen notification gateway's
  delayed greenlets were counted ready all along: a saturated loop, 2 % busy).
"""

from __future__ import annotations

import gevent
import gevent.pool
from gevent import spawn_later

import geventperf
from geventperf.profile import Profile
from tests.tracer_impl import impl  # noqa: F401  (the fixture)

JOBS = 6


def spawned() -> None:
    gevent.sleep(0)


def pooled(n: int) -> int:
    gevent.sleep(0)
    return n


def pool_user() -> None:
    beside = [gevent.spawn(spawned) for _ in range(3)]  # not the Pool's
    group = gevent.pool.Group()
    beside += [group.spawn(spawned) for _ in range(2)]  # a Group has no slots
    pool = gevent.pool.Pool(2)
    for n in range(JOBS):
        pool.spawn(pooled, n)
    assert pool.map(pooled, range(JOBS)) == list(range(JOBS))
    assert sorted(pool.imap_unordered(pooled, range(JOBS))) == list(range(JOBS))
    pool.join()
    gevent.joinall(beside)


def test_the_greenlets_a_pool_started_are_counted_by_name(impl):  # noqa: F811
    tracer = geventperf.Tracer().start()
    gevent.spawn(pool_user).join()
    profile = tracer.stop()
    names = {g.name.rsplit(".", 1)[-1] for g in profile.greenlets}
    assert {"spawned", "pooled"} <= names, names
    # spawn, map and imap_unordered each started JOBS jobs; map and imap also run in a
    # greenlet of their own, which the Pool did not start
    assert {name.rsplit(".", 1)[-1]: n for name, n in profile.meta["pool_jobs"].items()} \
        == {"pooled": 3 * JOBS}, profile.meta["pool_jobs"]


def test_pool_jobs_merge_only_when_every_run_recorded_them():
    def one(pool_jobs):
        p = Profile(duration_s=1.0, switches=0)
        if pool_jobs is not None:
            p.meta["pool_jobs"] = pool_jobs
        return p
    both = Profile.merge([one({"a.job": 2}), one({"a.job": 1, "b.job": 4})])
    assert both.meta["pool_jobs"] == {"b.job": 4, "a.job": 3}
    # an older file without them: the merged profile cannot say which were pooled
    assert "pool_jobs" not in Profile.merge([one({"a.job": 2}), one(None)]).meta


# Delays of the greenlets started on a timer, and how many of each kind of start.
LATER_S = 0.05
LATER_EACH = 10
# On an idle loop, a waiter's ready share: the share of its wait it was ready to run
# but queued.  Started on a timer, it is queued only from the timer's firing to its
# turn, well under half its wait (tests/test_waitsplit.py's ALONE_READY_SHARE).
ALONE_READY_SHARE = 0.5


def test_greenlets_started_on_a_timer_wait_for_it_as_an_event(impl):  # noqa: F811
    tracer = geventperf.Tracer().start()
    later = [gevent.spawn_later(LATER_S, spawned) for _ in range(LATER_EACH)]
    later += [spawn_later(LATER_S, spawned) for _ in range(LATER_EACH)]  # a bare name
    for g in [gevent.Greenlet(spawned) for _ in range(LATER_EACH)]:
        g.start_later(LATER_S)
        later.append(g)
    gevent.joinall(later)
    profile = tracer.stop()
    waited = [g for g in profile.greenlets if g.name.endswith(".spawned")]
    assert len(waited) == 3 * LATER_EACH
    event = sum(g.event_wait_s for g in waited)
    ready = sum(g.ready_wait_s for g in waited)
    # each waited out its timer as an event (before: all of it ready, "queueing")
    assert ready < ALONE_READY_SHARE * (event + ready), (event, ready)
    assert all(g.event_wait_s > 0 for g in waited), waited
