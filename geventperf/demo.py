"""``geventperf demo``: the slow pattern and its fix, measured side by side.

A local feed server (in a child process, see :mod:`geventperf.feedserver`) trickles
JSON and XML feeds; a pool of gevent workers fetches and parses them, first the naive
way, then the fixed way (see :mod:`geventperf.feedworkload`), each run under
``geventperf.Tracer``.  Printed: jobs per second, job latency, CPU and hub-wait
shares, switches per job, and what the tracer found in the naive run; written: one
HTML report per run.

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

# Defaults: a pool busy enough that the process's CPU is the bottleneck (how the
# slow pattern shows up in production: greenlets queue behind each other's parsing),
# and enough jobs that one run measures a few seconds.  Both runs together take
# ~15-25 s on a 2-core machine, start-up and reports included.
DEFAULT_JOBS = 1500
DEFAULT_CONCURRENCY = 50
# A run that has not finished after this long is cut short and reported as such.
DEFAULT_DEADLINE_S = 60.0
# Findings of the naive run worth a reader's time; the HTML report has all of them.
TOP_FINDINGS = 3
# Width of a finding's message line; longer messages wrap.
MESSAGE_WIDTH = 88

RUN_TITLES = {
    "naive": "naive: plain requests, stream=True, parsers fed from the socket",
    "fixed": "fixed: geventperf.mount(session), body read in 512 KiB pieces, parse bytes",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="geventperf demo",
        description="Fetch and parse feeds from a local trickling server with a pool of "
                    "gevent workers, first the naive way, then with geventperf's adapter, "
                    "each under the tracer; print the comparison and write HTML reports.")
    parser.add_argument("--jobs", type=_positive_int, default=DEFAULT_JOBS,
                        help="feeds fetched and parsed per run (default %(default)s)")
    parser.add_argument("--concurrency", type=_positive_int, default=DEFAULT_CONCURRENCY,
                        help="worker greenlets (default %(default)s)")
    parser.add_argument("--size", type=_positive_int, default=feedserver.DEFAULT_SIZE,
                        help="feed body size in bytes (default %(default)s)")
    parser.add_argument("--piece", type=_positive_int, default=feedserver.DEFAULT_PIECE,
                        help="bytes the server writes at a time (default %(default)s)")
    parser.add_argument("--delay", type=_non_negative_float,
                        default=feedserver.DEFAULT_DELAY,
                        help="seconds between the server's pieces (default %(default)s)")
    parser.add_argument("--parser", choices=PARSERS, default="both",
                        help="ujson on JSON feeds, lxml on XML feeds, or both alternating "
                             "(default %(default)s)")
    parser.add_argument("--out-dir", default=".",
                        help="where the HTML reports go (default: the current directory)")
    parser.add_argument("--no-html", dest="html", action="store_false",
                        help="do not write the HTML reports")
    parser.add_argument("--deadline", type=_positive_float, default=DEFAULT_DEADLINE_S,
                        help="seconds a run may take before it is cut short "
                             "(default %(default)s)")
    return parser.parse_args(argv)


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
    print(f"geventperf demo: {args.jobs} jobs per run on {args.concurrency} greenlets; "
          f"feeds of {args.size / KIB:g} KiB ({_parser_words(args.parser)}) "
          f"trickled {args.piece / KIB:g} KiB every {args.delay * 1000:g} ms "
          f"by a local server", flush=True)
    results, failures = run_both(args)
    print_report(results, failures)
    complete = not failures and all(
        not r["timed_out"] and r["jobs_done"] == r["jobs"] for r in results.values())
    return 0 if complete else 1


def run_both(args: argparse.Namespace) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The naive run, then the fixed run, against one feed server: (results by mode,
    failure messages by mode).  Progress goes to stderr."""
    results: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    with feedserver.FeedServerProcess(size=args.size, piece=args.piece,
                                      delay=args.delay) as server:
        for number, mode in enumerate(("naive", "fixed"), start=1):
            _status(f"[{number}/2] {RUN_TITLES[mode]} ...")
            html = (os.path.join(args.out_dir, f"geventperf-demo-{mode}.html")
                    if args.html else None)
            started = time.monotonic()
            try:
                results[mode] = run_worker(mode, server.url, args.jobs, args.concurrency,
                                           args.parser, feedserver.DEFAULT_FEEDS,
                                           args.deadline, trace=True, html=html,
                                           label=f"[{number}/2] {mode}")
            except WorkerFailed as exc:
                failures[mode] = str(exc)
                _status(f"      failed: {exc}")
                continue
            _status(f"      {_run_outcome(results[mode])} in "
                    f"{time.monotonic() - started:.1f} s")
    return results, failures


def print_report(results: dict[str, dict[str, Any]], failures: dict[str, str]) -> None:
    print()
    print(comparison_table(results))
    print()
    print(findings_text(results.get("naive")))
    written = [r["html"] for r in results.values() if r.get("html")]
    if written:
        print()
        print("HTML reports (open in a browser):")
        for path in written:
            print(f"  {path}")
    for mode, result in results.items():
        if result.get("html_error"):
            print(f"\nthe {mode} run's HTML report could not be written: "
                  f"{result['html_error']}")
    for mode, message in failures.items():
        print(f"\n{mode} run did not finish: {message}")


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
    ("CPU per job (process)", "cpu_ms_per_job", lambda v: f"{v:.2f} ms", -1),
    ("CPU share of job time", "cpu_share", lambda v: f"{v:.1%}", 0),
    ("hub wait share of job time", "hub_wait_share", lambda v: f"{v:.1%}", 0),
    ("  of which inside C parsers", "c_wait_share", lambda v: f"{v:.1%}", 0),
    ("switches per job", "switches_per_job", lambda v: f"{v:.1f}", -1),
    ("process CPU busy", "process_cpu_share", lambda v: f"{v:.0%}", 0),
]


def comparison_table(results: dict[str, dict[str, Any]]) -> str:
    naive, fixed = results.get("naive"), results.get("fixed")
    lines = [f"{'':30}{'naive':>14}{'fixed':>14}   fixed vs naive",
             f"{'':30}{'-' * 14:>14}{'-' * 14:>14}   {'-' * 14}"]
    for label, key, fmt, direction in ROWS:
        a = _cell(naive, key, fmt)
        b = _cell(fixed, key, fmt)
        lines.append(f"{label:30}{a:>14}{b:>14}   {_ratio(naive, fixed, key, direction)}")
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


def _ratio(naive: dict[str, Any] | None, fixed: dict[str, Any] | None, key: str,
           direction: int) -> str:
    if not naive or not fixed or direction == 0:
        return ""
    a, b = naive.get(key), fixed.get(key)
    if not a or not b:
        return ""
    factor = b / a if direction > 0 else a / b
    verdict = "better" if factor > 1 else "worse"
    return f"{factor:.2f}x {verdict}"


def findings_text(naive: dict[str, Any] | None) -> str:
    """The worst finding of each kind, worst kinds first: one greenlet's finding is
    usually repeated by every worker greenlet, and three copies teach nothing."""
    if naive is None:
        return "No findings: the naive run did not finish."
    findings = naive.get("findings") or []
    if not findings:
        return "The tracer reported no findings for the naive run."
    worst_of_kind: dict[str, dict[str, Any]] = {}
    count_of_kind: dict[str, int] = {}
    for finding in findings:  # already sorted worst first by the tracer
        worst_of_kind.setdefault(finding["kind"], finding)
        count_of_kind[finding["kind"]] = count_of_kind.get(finding["kind"], 0) + 1
    shown = list(worst_of_kind.values())[:TOP_FINDINGS]
    lines = [f"What the tracer found in the naive run ({len(findings)} findings of "
             f"{len(worst_of_kind)} kinds; the worst of each, top {len(shown)}):"]
    for number, finding in enumerate(shown, start=1):
        more = count_of_kind[finding["kind"]] - 1
        lines.append(f"{number}. [{finding['kind']}]"
                     + (f" (and {more} more like it)" if more else ""))
        lines.extend(_wrap(finding["message"], MESSAGE_WIDTH, "   "))
    return "\n".join(lines)


def _wrap(text: str, width: int, indent: str) -> list[str]:
    import textwrap
    out: list[str] = []
    for paragraph in text.splitlines():
        out.extend(textwrap.wrap(paragraph, width, initial_indent=indent,
                                 subsequent_indent=indent) or [""])
    return out


if __name__ == "__main__":
    sys.exit(main())
