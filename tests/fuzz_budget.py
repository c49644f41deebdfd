"""Budgets for property-based examples: CPU seconds per example, address space per
module, and a recorded seed, so that no example can run away (one once decoded for
5 minutes and grew to 18 GB inside requests' own reference path) and every failing
one can be replayed.

* ``cpu_budget(seconds, what)``: a CPU-time alarm (``ITIMER_PROF``, so a loaded machine
  that only delays the example cannot trip it; pytest-timeout's wall clock alarm is
  ``SIGALRM``, untouched).  Past the budget the example fails with ``OverBudget``
  naming *what* ran away; hypothesis saves it in its database and shrinks it.
* ``address_space_budget(extra)``: ``RLIMIT_AS`` at the current size plus *extra*
  bytes, restored afterwards; an allocation past it raises ``MemoryError`` in the
  example, which ``cpu_budget`` turns into ``OverBudget`` too.
* ``SEED``: the seed every property of a run uses (``GEVENTPERF_FUZZ_SEED`` to repeat
  a run); the failing examples also sit in ``DATABASE`` (git-ignored) and hypothesis
  prints a ``@reproduce_failure`` line for each.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import signal
import threading
from collections.abc import Iterator

from hypothesis.database import DirectoryBasedExampleDatabase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Failing examples of past runs, replayed first (hypothesis' usual place, git-ignored).
DATABASE = DirectoryBasedExampleDatabase(os.path.join(ROOT, ".hypothesis", "examples"))
SEED_ENV = "GEVENTPERF_FUZZ_SEED"
SEED = int(os.environ.get(SEED_ENV) or random.SystemRandom().randrange(2 ** 32))


class OverBudget(AssertionError):
    """An example passed its CPU or memory budget: a failure, saved and shrunk."""


class _Expired(BaseException):
    """Raised by the CPU alarm: a BaseException, so no ``except Exception`` in the code
    under test can swallow it (``cpu_budget`` turns it into ``OverBudget``)."""


def _expired(signum, frame):
    raise _Expired


@contextlib.contextmanager
def cpu_budget(seconds: float, what: str) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("cpu_budget works in the main thread only (signals)")
    previous = signal.signal(signal.SIGPROF, _expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    except _Expired:
        raise OverBudget(f"{what} used more than its {seconds:g} s CPU budget for one "
                         f"example (replay: {SEED_ENV}={SEED})") from None
    except MemoryError:
        raise OverBudget(f"{what} ran out of its address-space budget "
                         f"(replay: {SEED_ENV}={SEED})") from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _address_space() -> int | None:
    """This process's virtual size in bytes (Linux), else None."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@contextlib.contextmanager
def address_space_budget(extra: int) -> Iterator[int | None]:
    """Cap the address space at its current size plus *extra* bytes (Linux; elsewhere
    no cap, and None is yielded)."""
    now = _address_space()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if now is None:
        yield None
        return
    limit = now + extra
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield limit
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
