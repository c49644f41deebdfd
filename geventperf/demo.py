"""``geventperf demo``: the slow pattern and its fix, measured side by side.

A local feed server (in a child process, see :mod:`geventperf.feedserver`) serves
JSON and XML feeds like a remote upstream: a round trip before the headers, then the
body at a limited bandwidth.  A pool of gevent workers fetches and parses them, first
the naive way (parsers reading the socket from inside C, XML parses behind a lock),
then the fixed way (see :mod:`geventperf.feedworkload`), each run under
``geventperf.Tracer``.  Printed: jobs per second, job latency, CPU, event wait and
ready wait per job, loop utilization, and what the tracer found in the naive run;
written: an HTML report and its JSON profile per run.

``--scenario saturated`` serves the same feeds at once from memory to more workers:
the network is no longer the wait, the loop is, and the report names who held it.

Design, in short:

* Each run happens in a fresh process that calls ``gevent.monkey.patch_all()`` as its
  very first statement.  This process has already imported ``geventperf`` and with it
  ``requests`` and ``ssl`` (the CLI imports the package), and patching after that
  warns and can leave unpatched references behind.  Fresh processes also give both
  runs the same start: no warm caches or pooled connections left by the first.
* Never hang: the naive lxml path gives every parse its own parser (the shared
  default parser deadlocks two greenlets, see ``scripts/lxml_deadlock.py``); every
  run has a deadline enforced inside the worker with ``gevent.Timeout`` and reported
  honestly when hit; and this process kills a worker that overstays its deadline by
  a grace period, which only a hang outside Python (a real lock in C) can cause.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

from geventperf import feedserver
from geventperf.feedworkload import PARSERS, WorkerFailed, run_worker

KIB = 1024

# Defaults: enough jobs that the naive run measures several seconds behind its parser
# lock (XML jobs one at a time, ~90 ms each), and a pool of 50 workers.  Both runs
# together take ~20-35 s on a 2-core machine, start-up and reports included.
DEFAULT_JOBS = 200
DEFAULT_CONCURRENCY = 50

# What each scenario changes: the server's pacing and the pool.  "io" is the seed
# story: bodies arrive over a slow link and the naive parsers wait on it from inside
# C.  "saturated": bodies arrive at once from memory to twice the workers, so the
# process's CPU, not the network, is the limit, and greenlets queue for the loop.
SCENARIOS: dict[str, dict[str, Any]] = {
    "io": {},
    "saturated": {"piece": feedserver.DEFAULT_SIZE * 4, "delay": 0.0, "latency": 0.0,
                  "concurrency": 100, "jobs": 1000},
}
# A run that has not finished after this long is cut short and reported as such.
DEFAULT_DEADLINE_S = 60.0
# Findings of the naive run worth a reader's time; the HTML report has all of them.
TOP_FINDINGS = 3
# Width of a finding's message line; longer messages wrap.
MESSAGE_WIDTH = 88

RUN_TITLES = {
    "naive": "naive: stream=True, ujson.load(response.raw) and lxml.etree.parse(response.raw) "
             "behind a lock",
    "fixed": "fixed: geventperf.mount(session), body read in 512 KiB pieces, parse bytes",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="geventperf demo",
        description="Fetch and parse feeds from a local trickling server with a pool of "
                    "gevent workers, first the naive way, then with geventperf's adapter, "
                    "each under the tracer; print the comparison and write HTML reports.")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="io",
                        help="io (default): bodies over a slow link, the naive parsers "
                             "wait on it inside C; saturated: bodies at once to more "
                             "workers, the loop is the bottleneck")
    parser.add_argument("--jobs", type=_positive_int, default=None,
                        help=f"feeds fetched and parsed per run (default {DEFAULT_JOBS}; "
                             f"{SCENARIOS['saturated']['jobs']} when saturated)")
    parser.add_argument("--concurrency", type=_positive_int, default=None,
                        help=f"worker greenlets (default {DEFAULT_CONCURRENCY}; "
                             f"{SCENARIOS['saturated']['concurrency']} when saturated)")
    parser.add_argument("--size", type=_positive_int, default=feedserver.DEFAULT_SIZE,
                        help="feed body size in bytes (default %(default)s)")
    parser.add_argument("--piece", type=_positive_int, default=None,
                        help="bytes the server writes at a time (default "
                             f"{feedserver.DEFAULT_PIECE})")
    parser.add_argument("--delay", type=_non_negative_float, default=None,
                        help="seconds between the server's pieces; piece / delay is the "
                             f"bandwidth (default {feedserver.DEFAULT_DELAY})")
    parser.add_argument("--latency", type=_non_negative_float, default=None,
                        help="seconds before each response's headers (default "
                             f"{feedserver.DEFAULT_LATENCY})")
    parser.add_argument("--parser", choices=PARSERS, default="both",
                        help="ujson on JSON feeds, lxml on XML feeds, or both alternating "
                             "(default %(default)s)")
    parser.add_argument("--out-dir", default=".",
                        help="where the HTML reports and their JSON profiles go "
                             "(default: the current directory)")
    parser.add_argument("--no-html", dest="html", action="store_false",
                        help="do not write the HTML reports and JSON profiles")
    parser.add_argument("--deadline", type=_positive_float, default=DEFAULT_DEADLINE_S,
                        help="seconds a run may take before it is cut short "
                             "(default %(default)s)")
    args = parser.parse_args(argv)
    defaults = {"jobs": DEFAULT_JOBS, "concurrency": DEFAULT_CONCURRENCY,
                "piece": feedserver.DEFAULT_PIECE, "delay": feedserver.DEFAULT_DELAY,
                "latency": feedserver.DEFAULT_LATENCY, **SCENARIOS[args.scenario]}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the demo; 0 when both runs completed every job, 1 otherwise (2: bad usage)."""
    args = parse_args(argv)
    if args.html:
        try:
            os.makedirs(args.out_dir, exist_ok=True)
        except OSError as exc:
            print(f"geventperf demo: cannot use --out-dir {args.out_dir!r}: "
                  f"{exc.strerror or exc}", file=sys.stderr)
            return 2
    print(f"geventperf demo ({args.scenario}): {args.jobs} jobs per run on "
          f"{args.concurrency} greenlets; feeds of {args.size / KIB:g} KiB "
          f"({_parser_words(args.parser)}) from a local server that "
          f"{_pacing_words(args)}", flush=True)
    results, failures = run_both(args)
    print_report(results, failures, args.scenario)
    complete = not failures and all(
        not r["timed_out"] and r["jobs_done"] == r["jobs"] for r in results.values())
    return 0 if complete else 1


def run_both(args: argparse.Namespace) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The naive run, then the fixed run, against one feed server: (results by mode,
    failure messages by mode).  Progress goes to stderr."""
    results: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    with feedserver.FeedServerProcess(size=args.size, piece=args.piece, delay=args.delay,
                                      latency=args.latency) as server:
        for number, mode in enumerate(("naive", "fixed"), start=1):
            _status(f"[{number}/2] {RUN_TITLES[mode]} ...")
            html = (os.path.join(args.out_dir, f"geventperf-demo-{mode}.html")
                    if args.html else None)
            started = time.monotonic()
            try:
                results[mode] = run_worker(mode, server.url, args.jobs, args.concurrency,
                                           args.parser, feedserver.DEFAULT_FEEDS,
                                           args.deadline, trace=True, html=html,
                                           label=f"[{number}/2] {mode}",
                                           command=demo_command(args, mode))
            except WorkerFailed as exc:
                failures[mode] = str(exc)
                _status(f"      failed: {exc}")
                continue
            _status(f"      {_run_outcome(results[mode])} in "
                    f"{time.monotonic() - started:.1f} s")
    return results, failures


def demo_command(args: argparse.Namespace, mode: str) -> str:
    """What the report's header shows: ``geventperf demo, naive run`` (with the
    scenario when it is not the default one)."""
    scenario = "" if args.scenario == "io" else f" --scenario {args.scenario}"
    return f"geventperf demo{scenario}, {mode} run"


def print_report(results: dict[str, dict[str, Any]], failures: dict[str, str],
                 scenario: str = "io") -> None:
    print()
    print(comparison_table(results))
    print()
    print(findings_text(results.get("naive")))
    fixed = results.get("fixed") or {}
    saturated = any(f["kind"] == "loop-saturated" for f in fixed.get("findings") or [])
    if scenario == "saturated" or saturated:  # the CPU limits the fixed run: who held it
        print()
        print(findings_text(results.get("fixed"), "fixed"))
    written = [r for r in results.values() if r.get("html")]
    if written:
        print()
        print("HTML reports (open in a browser), each with its JSON profile beside it "
              "(geventperf report FILE.json):")
        for r in written:
            print(f"  {r['html']}")
            print(f"  {r['json']}")
    for mode, result in results.items():
        if result.get("html_error"):
            print(f"\nthe {mode} run's HTML report could not be written: "
                  f"{result['html_error']}")
    for mode, message in failures.items():
        print(f"\n{mode} run did not finish: {message}")


def _pacing_words(args: argparse.Namespace) -> str:
    if args.delay <= 0 and args.latency <= 0:
        return "sends each body at once (no network delay)"
    bandwidth = args.piece / args.delay / KIB / KIB if args.delay > 0 else float("inf")
    rate = f"{bandwidth:.3g} MiB/s per connection" if args.delay > 0 else "at once"
    return (f"answers after {args.latency * 1000:g} ms and sends the body at {rate} "
            f"({args.piece / KIB:g} KiB every {args.delay * 1000:g} ms)")


def _parser_words(parser: str) -> str:
    return {"ujson": "JSON, ujson", "lxml": "XML, lxml",
            "both": "JSON with ujson and XML with lxml, alternating"}[parser]


def _status(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _run_outcome(result: dict[str, Any]) -> str:
    text = f"{result['jobs_done']}/{result['jobs']} jobs done"
    if result["timed_out"]:
        text += f", CUT SHORT at the {result['deadline_s']:g} s deadline"
    if result["errors"]:
        text += f", {result['errors']} failed (first: {result['first_error']})"
    return text


# -- the comparison -------------------------------------------------------------------

# (label, result key, format, ratio direction): direction +1 means higher is better,
# -1 lower is better, 0 no verdict (a share is neither good nor bad on its own).
ROWS: list[tuple[str, str, Callable[[float], str], int]] = [
    ("jobs per second", "jobs_per_s", lambda v: f"{v:.1f}", +1),
    ("job latency p50", "p50_ms", lambda v: f"{v:.1f} ms", -1),
    ("job latency p99", "p99_ms", lambda v: f"{v:.1f} ms", -1),
    ("per job: CPU (process)", "cpu_ms_per_job", lambda v: f"{v:.2f} ms", -1),
    ("per job: event wait", "event_ms_per_job", lambda v: f"{v:.1f} ms", -1),
    ("per job: ready wait", "ready_ms_per_job", lambda v: f"{v:.1f} ms", -1),
    ("  waiting inside C parsers", "c_wait_ms_per_job", lambda v: f"{v:.1f} ms", 0),
    ("switches per job", "switches_per_job", lambda v: f"{v:.1f}", -1),
    ("loop utilization", "loop_utilization", lambda v: f"{v:.0%}", 0),
    ("process CPU busy", "process_cpu_share", lambda v: f"{v:.0%}", 0),
]
# What the rows mean, printed under the table: a reader should not have to guess.
ROW_NOTES = ("event wait = waiting for the network, a timer or a lock; ready wait = "
             "ready to run but queued while other greenlets held the loop; both per job, "
             "summed over the job's greenlet. loop utilization = share of the run the hub "
             "was not idle in its poll.")


def comparison_table(results: dict[str, dict[str, Any]]) -> str:
    naive, fixed = results.get("naive"), results.get("fixed")
    lines = [f"{'':30}{'naive':>14}{'fixed':>14}   fixed vs naive",
             f"{'':30}{'-' * 14:>14}{'-' * 14:>14}   {'-' * 14}"]
    for label, key, fmt, direction in ROWS:
        a = _cell(naive, key, fmt)
        b = _cell(fixed, key, fmt)
        lines.append(f"{label:30}{a:>14}{b:>14}   {_ratio(naive, fixed, key, direction)}")
    lines.extend(_wrap(ROW_NOTES, MESSAGE_WIDTH + 4, ""))
    lines.append("(one run each; on a busy machine runs of one mode vary by 20-30 %: "
                 "benchmarks/bench_feed.py interleaves rounds)")
    for mode, result in results.items():
        if result["timed_out"] or result["jobs_done"] < result["jobs"]:
            lines.append(f"note: the {mode} run {_run_outcome(result)}; its figures cover "
                         "the jobs that finished")
    return "\n".join(lines)


def _cell(result: dict[str, Any] | None, key: str, fmt: Callable[[float], str]) -> str:
    if result is None:
        return "(no run)"
    value = result.get(key)
    return "n/a" if value is None else fmt(value)


# Below these, a ratio is noise (a 0.1 ms ready wait "10x better" than 1 ms says
# nothing); the cell stays without a verdict.
RATIO_FLOOR = {"event_ms_per_job": 1.0, "ready_ms_per_job": 1.0}


def _ratio(naive: dict[str, Any] | None, fixed: dict[str, Any] | None, key: str,
           direction: int) -> str:
    if not naive or not fixed or direction == 0:
        return ""
    a, b = naive.get(key), fixed.get(key)
    if not a or not b or min(a, b) < RATIO_FLOOR.get(key, 0.0):
        return ""
    factor = b / a if direction > 0 else a / b
    verdict = "better" if factor > 1 else "worse"
    return f"{factor:.2f}x {verdict}"


def findings_text(naive: dict[str, Any] | None, mode: str = "naive") -> str:
    """The worst finding of each kind, in the tracer's order (hazards first, then by
    cost), each with what its cost means: a finding is usually merged across the
    worker greenlets already, and three copies of one teach nothing."""
    if naive is None:
        return f"No findings: the {mode} run did not finish."
    findings = naive.get("findings") or []
    if not findings:
        return f"The tracer reported no findings for the {mode} run."
    worst_of_kind: dict[str, dict[str, Any]] = {}
    count_of_kind: dict[str, int] = {}
    for finding in findings:
        worst_of_kind.setdefault(finding["kind"], finding)
        count_of_kind[finding["kind"]] = count_of_kind.get(finding["kind"], 0) + 1
    shown = list(worst_of_kind.values())[:TOP_FINDINGS]
    lines = [f"What the tracer found in the {mode} run ({_count(len(findings), 'finding')} "
             f"of {_count(len(worst_of_kind), 'kind')}; the first of each, top {len(shown)}):"]
    for number, finding in enumerate(shown, start=1):
        more = count_of_kind[finding["kind"]] - 1
        hazard = " HAZARD" if finding.get("hazard") else ""
        lines.append(f"{number}. [{finding['kind']}]{hazard}"
                     + (f" {finding['where']}" if finding.get("where") else "")
                     + (f" (and {more} more like it)" if more else ""))
        lines.extend(_wrap(finding["message"], MESSAGE_WIDTH, "   "))
        if finding.get("cost_meaning"):
            lines.extend(_wrap(finding["cost_meaning"], MESSAGE_WIDTH, "   "))
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _wrap(text: str, width: int, indent: str) -> list[str]:
    import textwrap
    out: list[str] = []
    for paragraph in text.splitlines():
        out.extend(textwrap.wrap(paragraph, width, initial_indent=indent,
                                 subsequent_indent=indent) or [""])
    return out


if __name__ == "__main__":
    sys.exit(main())
