"""Reproduce the ``lxml.etree.parse(response.raw)`` deadlock with two greenlets.

Two gevent greenlets fetch XML feeds from a local trickling server with requests
(``stream=True``) and hand ``response.raw`` to ``lxml.etree.parse``.  lxml reads the
file object from inside its C parse loop while holding the default parser's lock, a
real OS lock that gevent does not patch; the read finds the socket empty and yields;
the second greenlet enters ``parse`` and blocks the whole thread on that lock, so the
first greenlet never runs again.  The process hangs, and no ``gevent.Timeout`` can
fire, because the hub never runs.

Each variant therefore runs in a child process with a timeout (``--timeout``), so the
script always returns:

1. default parser, no guard: hangs (the child is killed at the timeout); the tracer's
   warning, printed just before the hang, is shown;
2. default parser under ``geventperf.Tracer(lxml_guard=True)``: completes; the
   tracer's ``c-section-deadlock-risk`` finding is shown;
3. a parser per call, ``lxml.etree.parse(response.raw, lxml.etree.XMLParser())``, no
   guard: completes (each parser has its own lock).

Usage: python scripts/lxml_deadlock.py [--timeout 10]
"""

from __future__ import annotations

import sys

# A child run patches before anything imports socket or ssl (see main()).
if __name__ == "__main__" and "--child" in sys.argv:
    from gevent import monkey

    monkey.patch_all()

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

KIB = 1024
# Small feeds trickled in small pieces: every parse is sure to find the socket empty,
# and so to yield, long before it ends.
FEED_SIZE = 128 * KIB
PIECE = 8 * KIB
DELAY_S = 0.002
# Both variants that complete take well under a second; a child that has not ended
# after this long is hung.
DEFAULT_TIMEOUT_S = 10.0

VARIANTS = {
    "default-parser": "lxml.etree.parse(response.raw), no guard",
    "guard": "lxml.etree.parse(response.raw) under Tracer(lxml_guard=True)",
    "per-call-parser": "lxml.etree.parse(response.raw, lxml.etree.XMLParser()), no guard",
}
EXPECTED_TO_HANG = {"default-parser"}


# -- the child: one variant -----------------------------------------------------------

def run_variant(variant: str, url: str) -> dict[str, Any]:
    import gevent
    import lxml.etree
    import requests

    import geventperf

    session = requests.Session()

    def parse_one(index: int) -> int:
        response = session.get(f"{url}/feed/{index}.xml", stream=True)
        response.raise_for_status()
        parser = lxml.etree.XMLParser() if variant == "per-call-parser" else None
        # Looked up on the module at call time, so the tracer's wrapper sees the call.
        tree = lxml.etree.parse(response.raw, parser)
        return len(tree.getroot())

    started = time.perf_counter()
    with geventperf.Tracer(lxml_guard=(variant == "guard")) as tracer:
        greenlets = [gevent.spawn(parse_one, index) for index in range(2)]
        gevent.joinall(greenlets, raise_error=True)
    elapsed = time.perf_counter() - started
    return {"items": [g.value for g in greenlets], "elapsed_s": elapsed,
            "findings": [{"kind": f.kind, "message": f.message}
                         for f in tracer.profile.findings]}


# -- the parent: every variant, each in a child with a timeout ------------------------

def run_child(variant: str, url: str, timeout: float) -> tuple[str, dict[str, Any], str]:
    """("completed" | "hung" | "failed", result, stderr) of one variant."""
    argv = [sys.executable, __file__, "--child", variant, "--url", url]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:  # run() killed the child already
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        return "hung", {}, stderr
    if done.returncode != 0:
        return "failed", {}, done.stderr
    return "completed", json.loads(done.stdout), done.stderr


def indent(text: str, prefix: str = "     ") -> str:
    return "\n".join(textwrap.fill(line, 92, initial_indent=prefix, subsequent_indent=prefix)
                     for line in text.strip().splitlines())


def report(number: int, variant: str, outcome: str, result: dict[str, Any], stderr: str,
           timeout: float) -> bool:
    """Print one variant's outcome; True when it behaved as this lxml is known to."""
    print(f"{number}. {VARIANTS[variant]}")
    warnings = [line for line in stderr.splitlines() if line.startswith("geventperf:")]
    if outcome == "hung":
        print(f"   HUNG: still running after {timeout:g} s, killed.")
        if warnings:
            print("   the tracer's warning, printed just before the hang:")
            print(indent(warnings[0]))
    elif outcome == "failed":
        print("   FAILED:")
        print(indent(stderr[-2000:]))
    else:
        print(f"   completed in {result['elapsed_s']:.2f} s: parsed two feeds of "
              f"{' and '.join(str(n) for n in result['items'])} items")
        risks = [f for f in result["findings"] if f["kind"] == "c-section-deadlock-risk"]
        if risks:
            print(f"   the tracer's finding ({len(risks)} of kind c-section-deadlock-risk):")
            print(indent(risks[0]["message"]))
        elif variant == "per-call-parser":
            print("   no deadlock-risk finding: each parse had a parser, and a lock, of its own")
    expected = "hung" if variant in EXPECTED_TO_HANG else "completed"
    if outcome != expected:
        print(f"   note: expected this variant to end {expected}; this lxml/gevent pair "
              "behaves differently")
    print()
    return outcome == expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help="seconds before a variant counts as hung (default %(default)s)")
    parser.add_argument("--child", choices=sorted(VARIANTS), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        print(json.dumps(run_variant(args.child, args.url)))
        return 0

    import gevent
    import lxml.etree

    from geventperf.feedserver import FeedServerProcess

    lxml_version = ".".join(str(n) for n in lxml.etree.LXML_VERSION[:3])
    with FeedServerProcess(size=FEED_SIZE, piece=PIECE, delay=DELAY_S) as server:
        print(f"Two greenlets parse XML feeds straight from the socket with lxml "
              f"{lxml_version} under gevent {gevent.__version__}; server {server.url} "
              f"trickles {FEED_SIZE // KIB} KiB feeds, {PIECE // KIB} KiB every "
              f"{DELAY_S * 1000:g} ms. Each variant runs in a child process with a "
              f"{args.timeout:g} s timeout.\n")
        as_expected = True
        for number, variant in enumerate(VARIANTS, start=1):
            outcome, result, stderr = run_child(variant, server.url, args.timeout)
            as_expected &= report(number, variant, outcome, result, stderr, args.timeout)
    print("Fix: read the body first and parse bytes "
          "(lxml.etree.fromstring(response.content), with geventperf.mount(session) for "
          "large reads), or give each parse its own parser.")
    return 0 if as_expected else 1


if __name__ == "__main__":
    sys.exit(main())
