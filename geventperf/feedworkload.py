"""The feed workload of the demo and the benchmarks: gevent workers that fetch feeds
with requests and parse them with ujson or lxml, the naive way or the fixed way.

* naive: a plain ``requests.Session``, ``stream=True``, and the parsers fed from the
  socket: ``ujson.load(resp.raw)`` and ``lxml.etree.parse(resp.raw, PARSER)`` read the
  body from inside their C calls, so every read that finds the socket empty yields to
  the hub *inside* the parser.  lxml's parser is not greenlet-safe (its lock is a real
  OS lock: two greenlets parsing from sockets at once deadlock the thread, see
  ``scripts/lxml_deadlock.py``), so this worker, like many in production, shares one
  parser and guards it with a gevent lock: each XML job then holds the lock for as
  long as the network takes to deliver its body, and XML jobs run one at a time while
  the CPU idles.
* fixed: ``geventperf.mount(session)`` so the body is read in 512 KiB pieces, then the
  parser gets bytes: ``ujson.loads(body)`` / ``lxml.etree.fromstring(body)``: no
  socket inside the parser, so no lock is needed and nothing yields inside C.

A run happens in a fresh process that monkey-patches before anything imports
``ssl``, ``socket`` or ``requests`` (see :data:`WORKER_BOOTSTRAP`);
:func:`run_worker` starts one and returns its measurements as a dict.  This module
itself imports neither requests nor the parsers at import time, so importing it
never spoils that order.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

MODES = ("naive", "fixed")
PARSERS = ("lxml", "ujson", "both")

# The child's first statement patches: gevent warns (and misbehaves) when ssl was
# imported before patch_all(), and ``-m geventperf.X`` would import geventperf, hence
# requests and ssl, before X's first line.  ``python -c`` lets us patch first.
WORKER_BOOTSTRAP = (
    "from gevent import monkey; monkey.patch_all()\n"
    "import sys\n"
    "from geventperf.feedworkload import worker_main\n"
    "sys.exit(worker_main(sys.argv[1:]))\n"
)

# Jobs run before measuring, untraced, so both modes start with open connections,
# imported modules and warm allocators: the first run must not pay for the second.
WARMUP_JOBS_MAX = 100
# A worker process gets this long beyond its deadlines (warm-up and measured run each
# have one) to start and write its report before the parent kills it.  Only an
# OS-level hang (a real lock held in C, which gevent.Timeout cannot interrupt) ever
# uses it up.
PROCESS_GRACE_S = 60.0
# Worker greenlets print a progress counter this often when stderr is a terminal.
PROGRESS_EVERY_S = 0.25


# -- the two ways to fetch and parse one feed ----------------------------------------

_shared: dict[str, Any] = {}


def shared_parser() -> tuple[Any, Any]:
    """(parser, gevent lock): one XML parser for the process and the lock that keeps
    two greenlets out of it, made on first use (in the patched worker process)."""
    if not _shared:
        import gevent.lock
        import lxml.etree
        _shared["parser"] = lxml.etree.XMLParser(remove_blank_text=True)
        _shared["lock"] = gevent.lock.BoundedSemaphore(1)
    return _shared["parser"], _shared["lock"]


def naive_job(session: Any, url: str, kind: str) -> int:
    """What much code does: stream, then let the parser pull from the socket."""
    import lxml.etree
    import ujson

    if kind == "json":
        with session.get(url, stream=True) as response:
            response.raise_for_status()
            response.raw.decode_content = True
            return len(ujson.load(response.raw)["items"])
    parser, lock = shared_parser()
    # Without the lock, two greenlets inside parse(response.raw) deadlock the thread on
    # the parser's OS lock.  The parse consumes the response as it arrives, so the
    # fetch runs under the lock too: a real link does not buffer a whole body for a
    # reader that is not reading, and here (loopback, huge kernel buffers) it would.
    with lock, session.get(url, stream=True) as response:
        response.raise_for_status()
        response.raw.decode_content = True
        tree = lxml.etree.parse(response.raw, parser)
    return len(tree.getroot())


def fixed_job(session: Any, url: str, kind: str) -> int:
    """The fix: the adapter reads the whole body in large pieces, the parser gets bytes."""
    import lxml.etree
    import ujson

    response = session.get(url)
    response.raise_for_status()
    if kind == "json":
        return len(ujson.loads(response.content)["items"])
    return len(lxml.etree.fromstring(response.content))


JOBS: dict[str, Callable[[Any, str, str], int]] = {"naive": naive_job, "fixed": fixed_job}


def make_session(mode: str, concurrency: int) -> Any:
    """A session with one pooled connection per worker greenlet, so no greenlet waits
    for a connection and the runs differ only in how they read and parse."""
    import requests

    import geventperf

    session = requests.Session()
    if mode == "fixed":
        geventperf.mount(session, pool_maxsize=concurrency)
    else:
        adapter = requests.adapters.HTTPAdapter(pool_maxsize=concurrency)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
    return session


def job_kind(parser: str, index: int) -> str:
    """Feed format of job *index*: "both" alternates JSON and XML."""
    if parser == "ujson":
        return "json"
    if parser == "lxml":
        return "xml"
    return ("json", "xml")[index % 2]


# -- one run, inside a patched worker process ----------------------------------------

def run_jobs(mode: str, session: Any, url: str, jobs: int, concurrency: int,
             parser: str = "both", feeds: int = 8, deadline: float | None = None,
             on_done: Callable[[], None] | None = None,
             ) -> tuple[list[float], list[str], bool]:
    """Run *jobs* jobs of *mode* on a pool of *concurrency* greenlets.

    Returns (sorted latencies of the jobs that succeeded, error messages, whether the
    *deadline* cut the run short).  Must run in a monkey-patched process.
    """
    import gevent
    import gevent.pool

    job = JOBS[mode]
    latencies: list[float] = []
    errors: list[str] = []

    def feed_job(index: int) -> None:  # the greenlets' name in the reports
        kind = job_kind(parser, index)
        started = time.perf_counter()
        try:
            job(session, f"{url}/feed/{index % feeds}.{kind}", kind)
        except Exception as exc:  # counted and reported, never hidden
            errors.append(f"{type(exc).__name__}: {exc}")
        else:
            latencies.append(time.perf_counter() - started)
        if on_done is not None:
            on_done()

    pool = gevent.pool.Pool(concurrency)
    timed_out = False
    try:
        with gevent.Timeout(deadline):
            for index in range(jobs):
                pool.spawn(feed_job, index)
            pool.join()
    except gevent.Timeout:
        timed_out = True
    finally:
        # Jobs still running (deadline, or an exception here) must not outlive the run.
        pool.kill(block=True, timeout=5)
    latencies.sort()
    return latencies, errors, timed_out



def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list (0.0 for an empty one)."""
    if not sorted_values:
        return 0.0
    # ceil(fraction * n), minus a hair so 0.99 * 100 (float 99.00000000000001) is 99.
    rank = max(1, min(len(sorted_values), math.ceil(fraction * len(sorted_values) - 1e-9)))
    return sorted_values[rank - 1]


def run_workload(mode: str, url: str, jobs: int, concurrency: int, parser: str = "both",
                 feeds: int = 8, deadline: float = 60.0, trace: bool = True,
                 html: str | None = None, label: str = "",
                 command: str = "") -> dict[str, Any]:
    """Run *jobs* jobs on a gevent pool of *concurrency* greenlets and measure them.

    Must run in a monkey-patched process.  At most *deadline* seconds are spent on the
    measured jobs; a run cut short says so (``timed_out``) and counts what finished.
    """
    import geventperf

    session = make_session(mode, concurrency)
    progress = _Progress(label or mode, jobs)
    # Warm-up, untraced and unmeasured, with a deadline of its own.
    run_jobs(mode, session, url, min(jobs, concurrency, WARMUP_JOBS_MAX), concurrency,
             parser, feeds, deadline)

    tracer = geventperf.Tracer() if trace else None
    cpu_before, started = time.process_time(), time.perf_counter()
    if tracer is not None:
        tracer.start()
    try:
        latencies, errors, timed_out = run_jobs(mode, session, url, jobs, concurrency,
                                                parser, feeds, deadline, progress.step)
    finally:
        if tracer is not None:
            tracer.stop()
    wall_s = time.perf_counter() - started
    cpu_s = time.process_time() - cpu_before
    progress.finish()

    done = len(latencies)
    result: dict[str, Any] = {
        "mode": mode, "parser": parser, "jobs": jobs, "concurrency": concurrency,
        "jobs_done": done, "errors": len(errors), "first_error": errors[0] if errors else None,
        "timed_out": timed_out, "deadline_s": deadline, "wall_s": wall_s,
        "jobs_per_s": done / wall_s if wall_s > 0 else 0.0,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "process_cpu_share": cpu_s / wall_s if wall_s > 0 else 0.0,
        "cpu_ms_per_job": cpu_s * 1000 / done if done else None,
        "traced": tracer is not None, "html": None, "html_error": None,
    }
    if tracer is not None:
        profile = tracer.profile
        if command:
            profile.meta["command"] = command
        result.update(profile_figures(profile, done))
        if html:
            json_path = os.path.splitext(html)[0] + ".json"
            try:
                profile.write(html)
                profile.save(json_path)
            except Exception as exc:  # the measurements stand without the report
                result["html_error"] = f"{html}: {type(exc).__name__}: {exc}"
            else:
                result["html"] = os.path.abspath(html)
                result["json"] = os.path.abspath(json_path)
    return result


def profile_figures(profile: Any, jobs_done: int) -> dict[str, Any]:
    """Where the worker greenlets' wall time went, per job, from a geventperf Profile.

    Worker greenlets are all but the hub and the main greenlet (the one without a
    parent), which only waits in ``pool.join()`` and would drown the figures.  Event
    and ready wait are None when the tracer could not split waits.
    """
    from geventperf.formats._fields import num, utilization
    from geventperf.formats.text import (
        cost_meaning,
        finding_place,
        meaning_in_message,
        ranked_findings,
    )

    hub_id = profile.hub.get("id")
    workers = [g for g in profile.greenlets if g.id != hub_id and g.parent is not None]
    per_job = 1000.0 / jobs_done if jobs_done else 0.0

    def summed(name: str) -> float | None:
        values = [num(g, name) for g in workers]
        return None if not values or None in values else sum(values) * per_job

    lifetime = sum(g.run_s + g.wait_s for g in workers)
    wait = sum(g.wait_s for g in workers)
    c_wait = sum(s.wait_s for s in profile.sections if s.c)
    return {
        "traced_cpu_ms_per_job": summed("cpu_s"),
        "event_ms_per_job": summed("event_wait_s"),
        "ready_ms_per_job": summed("ready_wait_s"),
        "wait_ms_per_job": wait * per_job,
        "c_wait_ms_per_job": c_wait * per_job,
        "cpu_share": sum(g.cpu_s or 0.0 for g in workers) / lifetime if lifetime else 0.0,
        "hub_wait_share": wait / lifetime if lifetime else 0.0,
        "c_wait_share": c_wait / wait if wait else 0.0,
        "switches_per_job": sum(g.switches for g in workers) / jobs_done if jobs_done else 0.0,
        "loop_utilization": utilization(profile),
        "hub_idle_s": num(profile.hub, "idle_s"),
        "findings": [{"kind": f.kind, "message": f.message, "cost_s": f.cost_s,
                      "cost_meaning": "" if meaning_in_message(f) else cost_meaning(f),
                      "where": finding_place(profile, f),
                      "hazard": f.extra.get("hazard") is True}
                     for f in ranked_findings(profile)],
    }


class _Progress:
    """A job counter on stderr, redrawn in place; silent when stderr is not a terminal
    (the parent prints one line per run in that case)."""

    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.done = label, total, 0
        self.enabled = sys.stderr.isatty()
        self.last = 0.0

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            sys.stderr.write(f"\r  {self.label} run: {self.done}/{self.total} jobs")
            sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * (len(self.label) + 40) + "\r")
            sys.stderr.flush()


# -- the worker process ---------------------------------------------------------------

def worker_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="geventperf-feed-worker")
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--jobs", type=int, required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--parser", choices=PARSERS, default="both")
    parser.add_argument("--feeds", type=int, default=8)
    parser.add_argument("--deadline", type=float, default=60.0)
    parser.add_argument("--no-trace", dest="trace", action="store_false")
    parser.add_argument("--html")
    parser.add_argument("--label", default="")
    parser.add_argument("--command", default="", help="what the user ran, for the report")
    parser.add_argument("--result", required=True, help="JSON file to write the result to")
    return parser


def worker_main(argv: list[str]) -> int:
    """Entry point of the worker process (started through WORKER_BOOTSTRAP)."""
    args = worker_parser().parse_args(argv)
    result = run_workload(args.mode, args.url, args.jobs, args.concurrency, args.parser,
                          args.feeds, args.deadline, args.trace, args.html, args.label,
                          args.command)
    with open(args.result, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    return 0


class WorkerFailed(RuntimeError):
    """A worker process crashed or had to be killed; the message says which."""


def run_worker(mode: str, url: str, jobs: int, concurrency: int, parser: str = "both",
               feeds: int = 8, deadline: float = 60.0, trace: bool = True,
               html: str | None = None, label: str = "",
               command: str = "") -> dict[str, Any]:
    """Run one measured run in a fresh, monkey-patched process and return its result.

    The child enforces *deadline* itself with gevent.Timeout (on the warm-up and on
    the measured run); this process kills it after ``2 * deadline + PROCESS_GRACE_S``
    in case the child is stuck where no greenlet can run (a real lock held inside C),
    so a caller never hangs.
    """
    fd, result_path = tempfile.mkstemp(prefix="geventperf-run-", suffix=".json")
    os.close(fd)
    argv = [sys.executable, "-c", WORKER_BOOTSTRAP, "--mode", mode, "--url", url,
            "--jobs", str(jobs), "--concurrency", str(concurrency), "--parser", parser,
            "--feeds", str(feeds), "--deadline", repr(deadline), "--result", result_path,
            "--label", label or mode, "--command", command]
    if not trace:
        argv.append("--no-trace")
    if html:
        argv += ["--html", html]
    limit = 2 * deadline + PROCESS_GRACE_S
    try:
        try:
            completed = subprocess.run(argv, timeout=limit)
        except subprocess.TimeoutExpired:
            raise WorkerFailed(f"the {mode} worker process was still running {limit:g} s "
                               "after it started and was killed (hung outside Python?)") \
                from None
        if completed.returncode != 0:
            raise WorkerFailed(f"the {mode} worker process failed "
                               f"(exit status {completed.returncode}; see its error above)")
        with open(result_path, encoding="utf-8") as fh:
            return json.load(fh)
    finally:
        os.unlink(result_path)
