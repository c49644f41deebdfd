"""Run requests' own test suite, from the sdist of the installed requests, three ways:
with requests' default adapter, with ``geventperf.mount`` on every Session, and with
the session fast path too; print each run's counts and every test whose outcome
differs from the default run.  Exit status 1 when any differs.

    python scripts/requests_suite/run.py [--workdir DIR] [pytest args...]

Used by ``tox -e requests-suite``.  Tests that need the internet fail (or pass) alike
in every run; only differences count.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from importlib.metadata import version

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("default", "mount", "fast")


def sdist_tests(workdir: str) -> str:
    """The tests directory of the installed requests' sdist, downloaded once."""
    wanted = version("requests")
    root = os.path.join(workdir, f"requests-{wanted}")
    if not os.path.isdir(os.path.join(root, "tests")):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", ":all:", f"requests=={wanted}", "-d", workdir],
                       check=True)
        with tarfile.open(os.path.join(workdir, f"requests-{wanted}.tar.gz")) as archive:
            archive.extractall(workdir, filter="data")
    return root


def run(root: str, mode: str, extra: list[str], workdir: str) -> dict[str, str]:
    """{test id: passed|failed|error|skipped} of one run."""
    report = os.path.join(workdir, f"junit-{mode}.xml")
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
               "--junitxml", report, "-o", "addopts=", *extra]
    if mode != "default":
        command[4:4] = ["-p", "geventperf_everywhere"]
        env["GEVENTPERF_SUITE_MODE"] = mode
    print(f"+ ({mode}) {' '.join(command)}", flush=True)
    subprocess.run(command, cwd=root, env=env)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = {child.tag for child in case}
        outcomes[name] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                          else "skipped" if "skipped" in kinds else "passed")
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=os.path.join(os.getcwd(), ".requests-suite"))
    args, extra = parser.parse_known_args()
    os.makedirs(args.workdir, exist_ok=True)
    root = sdist_tests(args.workdir)
    results = {mode: run(root, mode, extra, args.workdir) for mode in MODES}
    print(f"\nrequests {version('requests')}, urllib3 {version('urllib3')}: "
          "requests' own tests per run")
    for mode in MODES:
        counts = collections.Counter(results[mode].values())
        print(f"  {mode:8} " + "  ".join(f"{k} {counts.get(k, 0)}"
                                         for k in ("passed", "failed", "error", "skipped")))
    differs = 0
    for mode in MODES[1:]:
        for name in sorted(set(results["default"]) | set(results[mode])):
            ours, theirs = results[mode].get(name), results["default"].get(name)
            if ours != theirs:
                differs += 1
                print(f"  differs ({mode}): {name}: {ours} (default: {theirs})")
    if not differs:
        print("  every test has the same outcome in every run")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
