"""``meta.pool_jobs``: the greenlets a gevent Pool started, by name, on real gevent
greenlets traced in this process, on both hot paths.  gevent records only the spawner
as a greenlet's parent; a spawner filling a Pool may start others beside it (an unseen
status backend's pollers, started with gevent.spawn, were told as its Pool's jobs)."""

from __future__ import annotations

import gevent
import gevent.pool

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
