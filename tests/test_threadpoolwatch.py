"""ThreadpoolWatch and the threadpool-saturated finding, on real gevent threadpools.

The queueing is made deterministic, not timed: the tasks that occupy the workers wait
on a real (unpatched) threading.Event that the test sets only once every other greenlet
is waiting inside ThreadPool.spawn.  So the counts and queue depths are exact, and the
queued wait outweighs the run time by construction (several tasks queue for the whole
interval in which two run), whatever the machine's speed.

The DNS test uses gevent's real thread resolver (``gevent.socket.getaddrinfo``, which
runs ``_socket.getaddrinfo`` on the hub's threadpool) resolving ``localhost``, on the
hub's pool shrunk to one worker that a gated task occupies: the lookups genuinely queue
behind it.  A lookup of localhost is too fast to make DNS *the cause* of a full pool on
a real resolver, so that message is tested on hand-built events (the finder is a pure
function of the events).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import gevent
import gevent.socket
import gevent.threadpool
import pytest
from gevent.monkey import get_original

from geventperf import threadpoolwatch as tw
from geventperf.findings import threadpool as tpf
from geventperf.profile import GreenletStats, Profile

RealEvent = get_original("threading", "Event")
RealThread = get_original("threading", "Thread")

# Long enough for the finding's threshold to be passed by construction: the queued
# tasks each wait at least this long (the gate opens after it), and several queue.
HOLD_S = 2 * tpf.SATURATED_MIN_QUEUED_S
# Scheduler passes allowed for spawned greenlets to reach spawn(); a safety net only
# (each needs one).
MAX_PASSES = 1000


def gated(gate, value):
    gate.wait()
    return value


def wait_until_started(flags, n):
    for _ in range(MAX_PASSES):
        if len(flags) == n:
            return
        gevent.sleep(0)
    raise AssertionError(f"only {len(flags)} of {n} greenlets started")


@pytest.fixture
def watch():
    w = tw.ThreadpoolWatch()
    patches = w.wrap()
    yield w
    for patch in reversed(patches):
        patch.restore()
    assert not hasattr(gevent.threadpool.ThreadPool.spawn, "__geventperf_wrapped__")


def saturate(pool, tasks):
    """*tasks* greenlets each run ``gated`` on *pool*; the gate opens once all of them
    are waiting (HOLD_S later).  Returns their results."""
    gate, started = RealEvent(), []

    def job(i):
        started.append(i)
        return pool.apply(gated, (gate, i))

    greenlets = [gevent.spawn(job, i) for i in range(tasks)]
    wait_until_started(started, tasks)
    gevent.sleep(HOLD_S)
    gate.set()
    gevent.joinall(greenlets, raise_error=True)
    return [g.value for g in greenlets]


def test_a_full_pool_is_recorded_task_by_task(watch):
    pool = gevent.threadpool.ThreadPool(2)
    try:
        assert saturate(pool, 8) == list(range(8))
    finally:
        pool.kill()
    [ev] = watch.events()
    json.dumps(ev)  # plain data
    assert ev["kind"] == "threadpool" and ev["function"] == f"{__name__}.gated"
    assert ev["pool"] == "ThreadPool #1" and not ev["default_pool"] and ev["maxsize"] == 2
    assert ev["tasks"] == ev["finished"] == 8 and ev["unfinished"] == ev["abandoned"] == 0
    # greenlet k finds k tasks ahead: running, in gevent's queue (a pool lets maxsize + 1
    # tasks through spawn()) or waiting inside spawn() for a slot: 0..7
    assert ev["depth_max"] == 7 and ev["depth_mean"] == pytest.approx(3.5)
    assert ev["saturated"] == 6  # all but the first two found both workers taken
    assert ev["greenlets"] == 8 and ev["greenlet_names"][0] == f"{__name__}.saturate.<locals>.job"
    assert ev["queued_s"] > ev["run_s"] > 0  # six queued the whole time two ran
    assert ev["slot_wait_s"] <= ev["queued_s"] and ev["result_s"] >= ev["queued_s"]
    assert ev["sites"][0][0].endswith(":saturate.<locals>.job") and ev["sites"][0][1] == 8
    assert not ev["dns"] and ev["resolver"] is None


def test_the_finding_names_the_pool_the_depth_and_the_function(watch):
    pool = gevent.threadpool.ThreadPool(2)
    try:
        saturate(pool, 8)
    finally:
        pool.kill()
    events = watch.events()
    profile = Profile(duration_s=1.0, events=events)
    [finding] = tpf.threadpool_saturated(profile)
    assert finding.kind == "threadpool-saturated" == tw.FINDING_KIND
    assert finding.cost_s == pytest.approx(sum(e["queued_s"] for e in events))
    assert finding.extra["hazard"] is False and "queued" in finding.extra["cost_meaning"]
    assert finding.extra["maxsize"] == 2 and finding.extra["depth_max"] == 7
    assert finding.extra["saturated_tasks"] == 6 and finding.extra["suggested_maxsize"] == 8
    assert "maxsize 2" in finding.message and f"{__name__}.gated x8" in finding.message
    assert "pool.maxsize = 8" in finding.message and not finding.extra["dns"]
    assert finding.stack and finding.stack[0].endswith(":saturate.<locals>.job")
    json.dumps(finding.to_dict())


def test_dns_lookups_queued_behind_a_full_hub_pool_are_marked_dns(watch):
    hub = gevent.get_hub()
    assert type(hub.resolver).__module__ == "gevent.resolver.thread"  # gevent's default
    pool = hub.threadpool
    old_maxsize = pool.maxsize
    pool.maxsize = 1
    try:
        gate, blocking, started = RealEvent(), [], []

        def block():
            blocking.append(1)
            return pool.apply(gated, (gate, "done"))

        def lookup():
            started.append(1)
            return gevent.socket.getaddrinfo("localhost", 80)

        blocker = gevent.spawn(block)
        wait_until_started(blocking, 1)  # it holds the only worker slot
        lookups = [gevent.spawn(lookup) for _ in range(4)]
        wait_until_started(started, 4)
        gevent.sleep(HOLD_S)
        gate.set()
        gevent.joinall([blocker] + lookups, raise_error=True)
    finally:
        pool.maxsize = old_maxsize
    assert all(g.value for g in lookups)  # real address lists
    by_function = {e["function"]: e for e in watch.events()}
    dns = by_function["_socket.getaddrinfo"]
    assert dns["dns"] and dns["resolver"] == "gevent.resolver.thread"
    assert dns["pool"] == "the hub's threadpool" and dns["default_pool"]
    assert dns["maxsize"] == 1 and dns["tasks"] == dns["finished"] == 4
    # the blocker in flight, then 0..3 lookups ahead (queued, or waiting in spawn())
    assert dns["depth_max"] == 4 and dns["saturated"] == 4
    assert dns["sites"][0][0].endswith(".<locals>.lookup")  # the caller, not gevent's resolver
    assert not by_function[f"{__name__}.gated"]["dns"]
    [finding] = tpf.threadpool_saturated(Profile(duration_s=1.0, events=watch.events()))
    assert finding.extra["dns"] and not finding.extra["dns_cause"]
    assert "DNS lookups queued" in finding.message
    assert "gevent.get_hub().threadpool.maxsize" in finding.message
    assert "GEVENT_RESOLVER=ares" in finding.message


def signal_and_wait(running, gate):
    running.set()
    gate.wait()


def test_tasks_still_queued_count_with_their_wait_so_far(watch):
    pool = gevent.threadpool.ThreadPool(1)
    gate, running, started = RealEvent(), RealEvent(), []

    def job():
        started.append(1)
        return pool.apply(signal_and_wait, (running, gate))

    greenlets = [gevent.spawn(job) for _ in range(3)]
    try:
        wait_until_started(started, 3)
        running.wait()  # a worker thread is inside the first task
        [ev] = watch.events()
        assert ev["tasks"] == 3 and ev["finished"] == 0 and ev["unfinished"] == 3
        assert ev["queued_s"] > 0 and ev["run_s"] > 0  # one runs, two wait
    finally:
        gate.set()
        gevent.joinall(greenlets)
        pool.kill()
    [ev] = watch.events()
    assert ev["finished"] == 3 and ev["unfinished"] == 0


def test_a_greenlet_killed_while_queued_is_counted_as_abandoned(watch):
    pool = gevent.threadpool.ThreadPool(1)
    gate, started = RealEvent(), []

    def job(i):
        started.append(i)
        return pool.apply(gated, (gate, i))

    try:
        # one runs, one waits in gevent's queue, the third waits inside spawn()
        greenlets = [gevent.spawn(job, i) for i in range(3)]
        wait_until_started(started, 3)
        greenlets[2].kill()
        gate.set()
        assert [g.get() for g in greenlets[:2]] == [0, 1]
    finally:
        pool.kill()
    [ev] = watch.events()
    assert ev["tasks"] == 3 and ev["finished"] == 2 and ev["abandoned"] == 1
    assert ev["unfinished"] == 0


def test_task_errors_pass_through_unchanged(watch):
    pool = gevent.threadpool.ThreadPool(1)

    def fails():
        raise KeyError("from the worker")

    try:
        with pytest.raises(KeyError, match="from the worker"):
            pool.apply(fails)
    finally:
        pool.kill()
    [ev] = watch.events()
    assert ev["tasks"] == ev["finished"] == 1


def test_our_own_failure_never_reaches_the_program():
    def broken_id(greenlet):
        raise RuntimeError("the tracer's id lookup failed")

    w = tw.ThreadpoolWatch(greenlet_id=broken_id)
    patches = w.wrap()
    pool = gevent.threadpool.ThreadPool(1)
    try:
        assert pool.apply(sum, ([1, 2],)) == 3
    finally:
        pool.kill()
        for patch in reversed(patches):
            patch.restore()
    assert w.errors == 1 and w.events() == []


def test_greenlet_ids_from_the_tracer_name_the_greenlets_in_the_finding(watch):
    w = tw.ThreadpoolWatch(greenlet_id=lambda g: 41 if g is not None else None)
    # a second watch in the same thread records nothing (one per thread, like tracers)
    assert w.wrap() == []
    events = [{"kind": "threadpool", "pool": "the hub's threadpool", "default_pool": True,
               "maxsize": 2, "function": "app.slow_call", "dns": False, "tasks": 4,
               "saturated": 2, "depth_max": 3, "depth_mean": 1.5, "queued_s": 0.6,
               "queued_max_s": 0.3, "run_s": 0.8, "sites": [["app.py:9:work", 4]],
               "greenlets": 2, "greenlet_ids": [41, 42], "greenlet_names": ["x", "y"]}]
    profile = Profile(duration_s=1.0, events=events,
                      greenlets=[GreenletStats(id=41, name="worker-a", parent=None),
                                 GreenletStats(id=42, name="worker-b", parent=None)])
    [finding] = tpf.threadpool_saturated(profile)
    assert "2 greenlet(s) (worker-a, worker-b)" in finding.message
    assert finding.extra["functions"][0]["greenlets"] == "2 greenlet(s) (worker-a, worker-b)"


def test_spawns_in_another_thread_are_not_recorded(watch):
    results = []

    def other_thread():
        pool = gevent.get_hub().threadpool  # that thread's own hub and pool
        results.append(pool.apply(sum, ([2, 3],)))
        gevent.get_hub().destroy(True)

    thread = RealThread(target=other_thread)
    thread.start()
    thread.join()
    assert results == [5] and watch.events() == []


def test_functions_beyond_the_cap_are_folded(watch, monkeypatch):
    monkeypatch.setattr(tw, "MAX_FUNCTIONS", 2)
    pool = gevent.threadpool.ThreadPool(1)
    try:
        pool.apply(sum, ([1],))
        pool.apply(max, ([1],))
        pool.apply(min, ([1],))
        pool.apply(len, ([1],))
    finally:
        pool.kill()
    names = sorted(e["function"] for e in watch.events())
    assert names == ["<other functions>", "builtins.max", "builtins.sum"]
    assert sum(e["tasks"] for e in watch.events()) == 4


def _event(**kw):
    ev = {"kind": "threadpool", "pool": "the hub's threadpool", "default_pool": True,
          "maxsize": 10, "function": "_socket.getaddrinfo", "dns": True,
          "resolver": "gevent.resolver.thread", "tasks": 50, "saturated": 40,
          "depth_max": 39, "depth_mean": 20.0, "queued_s": 12.0, "queued_max_s": 0.8,
          "run_s": 25.0, "sites": [["urllib3/util/connection.py:60:create_connection", 50]],
          "greenlets": 50, "greenlet_ids": [], "greenlet_names": ["fetch"]}
    ev.update(kw)
    return ev


def test_dns_as_the_cause_gets_the_resolver_fix():
    """Hand-built events: slow lookups filled the pool (see the module docstring)."""
    events = [_event(), _event(function="app.compress", dns=False, resolver=None, tasks=5,
                               saturated=5, queued_s=1.0, run_s=2.0)]
    [finding] = tpf.threadpool_saturated(Profile(duration_s=10.0, events=events))
    assert finding.extra["dns_cause"] and finding.cost_s == pytest.approx(13.0)
    assert "DNS resolution is the cause" in finding.message
    assert "GEVENT_RESOLVER=ares" in finding.extra["fix"]
    assert "gevent.get_hub().threadpool.maxsize = 40" in finding.extra["fix"]
    assert finding.message.index("_socket.getaddrinfo x50") < finding.message.index(
        "app.compress x5")  # the largest wait first


def _pool(opened: int, peak: int) -> dict:
    """A urllib3-pool event of one host's pool of 10 (poolwatch's fields that count)."""
    return {"kind": "urllib3-pool", "pool": "http://svc:80", "pools": 1, "maxsize": 10,
            "peak_in_use": peak, "opened": opened, "checkouts": 200, "calls": 200}


def test_lookups_of_first_connections_get_no_connection_reuse_fix():
    """Every lookup opened a connection its pool then kept (a burst of first
    connections): the pool settings have nothing to save, the resolver does; a pool
    that opened past what it kept gets the reuse fix."""
    lookups = _event(sites=[["/venv/urllib3/util/connection.py:60:create_connection", 50]])
    first = tpf.threadpool_saturated(Profile(duration_s=10.0,
                                             events=[lookups, _pool(50, 50)]))[0]
    assert "each a connection's first" in first.message
    assert "pool_maxsize" not in first.extra["fix"]
    assert first.extra["fix"].startswith("GEVENT_RESOLVER=ares")
    reopened = tpf.threadpool_saturated(Profile(duration_s=10.0,
                                                events=[lookups, _pool(50, 10)]))[0]
    assert "a reused, kept-alive connection needs none" in reopened.message
    assert "pool_maxsize" in reopened.extra["fix"]


def test_no_finding_when_nobody_waited_for_long_or_the_pool_was_never_full():
    short = _event(queued_s=tpf.SATURATED_MIN_QUEUED_S / 2)
    never_full = _event(saturated=0)
    for events in ([short], [never_full], []):
        assert tpf.threadpool_saturated(Profile(duration_s=1.0, events=events)) == []
    assert tpf.threadpool_saturated(Profile(duration_s=1.0, events=[_event()]))


def test_nothing_imported_until_the_program_imports_gevent_threadpool():
    code = textwrap.dedent("""
        import json, sys
        import gevent
        from geventperf.threadpoolwatch import ThreadpoolWatch
        meta_path = list(sys.meta_path)
        watch = ThreadpoolWatch()
        patches = watch.wrap()
        imported_by_wrap = "gevent.threadpool" in sys.modules
        result = gevent.get_hub().threadpool.apply(sum, ([1, 2],))  # imports it now
        import gevent.threadpool
        wrapped = hasattr(gevent.threadpool.ThreadPool.spawn, "__geventperf_wrapped__")
        for patch in reversed(patches):
            patch.restore()
        print(json.dumps({
            "imported_by_wrap": imported_by_wrap, "result": result, "wrapped": wrapped,
            "restored": not hasattr(gevent.threadpool.ThreadPool.spawn,
                                    "__geventperf_wrapped__"),
            "meta_path_restored": sys.meta_path == meta_path,
            "tasks": [e["tasks"] for e in watch.events()]}))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"imported_by_wrap": False, "result": 3, "wrapped": True,
                   "restored": True, "meta_path_restored": True, "tasks": [1]}


def test_each_task_counts_the_cpu_its_worker_thread_used(watch):
    real_sleep = get_original("time", "sleep")

    def spin(seconds):  # Python in the worker thread: its own CPU clock runs
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    def nap(seconds):  # asleep in the worker thread: its CPU clock barely moves
        real_sleep(seconds)

    pool = gevent.threadpool.ThreadPool(2)
    try:
        pool.apply(spin, (0.05,))
        pool.apply(nap, (0.05,))
    finally:
        pool.kill()
    events = {ev["function"].rsplit(".", 1)[-1]: ev for ev in watch.events()}
    assert 0.05 <= events["spin"]["cpu_s"] <= events["spin"]["run_s"]
    assert events["nap"]["cpu_s"] < events["nap"]["run_s"] / 2
