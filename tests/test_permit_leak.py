"""lock-contended tells a semaphore whose permits leak (a dispatcher takes a permit per
job, and a path of the job returns before releasing it), from the timeline: the jobs
alive while the dispatcher waits for a permit dwindle.  Real gevent programs traced in
this process."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import gevent
import gevent.event
import gevent.lock

import geventperf
from geventperf import findings
from geventperf.profile import Profile
from tests.markers import line_of

SLOTS = 24
JOBS = 600
FAIL_EVERY = 30  # one job in 30 fails: 20 of the 24 permits leak over the run
# (5 ms once: one fresh-clone CI run told no lock-contended at all, cause unseen; at
# 20 ms the waits are 4x longer, 1.1 s of a 1.2 s run, and the loop 5 % busy, not 12 %)
CALL_S = 0.02


def _dispatch(leak: bool) -> Profile:
    """The dispatcher's run, traced in a fresh interpreter: in the suite's own process,
    two fresh-clone CI runs (of several hundred) told no lock-contended at all, which
    no run alone reproduced, even beside three CPU hogs; whatever earlier tests left
    behind in the process must not decide this one."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dispatch.json")
        subprocess.run([sys.executable, "-c", _IN_A_FRESH_PROCESS, str(leak), out],
                       cwd=ROOT, check=True, timeout=RUN_TIMEOUT_S)
        return Profile.load(out)


def _traced_dispatch(leak: bool) -> Profile:
    sem = gevent.lock.Semaphore(SLOTS)

    def job(n: int) -> None:
        answer = gevent.event.AsyncResult()
        gevent.spawn_later(CALL_S, answer.set, n % FAIL_EVERY != 0)
        if not answer.get() and leak:
            return  # the failure path, before the release
        sem.release()

    with geventperf.Tracer() as tracer:
        jobs = []
        for n in range(JOBS):
            sem.acquire()  # a permit per job
            jobs.append(gevent.spawn(job, n))
        gevent.joinall(jobs)
    return tracer.profile


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_TIMEOUT_S = 60  # the run takes about 1.2 s; this only stops a hang
_IN_A_FRESH_PROCESS = (
    "import sys\n"
    "from tests.test_permit_leak import _traced_dispatch\n"
    "_traced_dispatch(sys.argv[1] == 'True').save(sys.argv[2])\n")


def _locks(p: Profile) -> list:
    return [f for f in p.findings if f.kind == findings.LOCK_CONTENDED]


def test_permits_taken_and_never_released_are_told_as_leaking():
    [found] = _locks(_dispatch(leak=True))
    early, late = found.extra["permits_leaked"]
    # Early, at most 5 of the 24 permits have leaked (one job in 30 of the first 150),
    # but the count is read at the dispatcher's waits from the timeline, and on a loaded
    # machine jobs bunch up around them: one fresh-clone CI run read 17 (0.75 x 24 was
    # asserted).  Half the slots still tells a pool that was mostly alive at first.
    assert SLOTS / 2 <= early <= SLOTS and late <= 0.5 * early
    assert f"test_permit_leak.py:{line_of(__file__, 'a permit per job')}:_traced_dispatch" \
        in found.message
    assert "finally" in found.message and "a larger n only postpones the hang" in found.message


def test_permits_released_on_every_path_are_no_leak():
    assert not [f for f in _locks(_dispatch(leak=False)) if f.extra.get("permits_leaked")]
