"""Benchmarks run the way gevent services run: monkey-patched, before anything else
imports socket users.  The test suite never imports this file into its own process
(it runs the benchmarks' smoke pass in a subprocess, see tests/test_benchmarks_smoke.py).
"""

from gevent import monkey

monkey.patch_all()

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from benchmarks.summary import print_summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true", default=False,
                     help="smoke-sized benchmarks: fewer sizes and rounds (under a minute)")


@pytest.fixture(scope="session")
def quick(request) -> bool:
    return request.config.getoption("--quick") or os.environ.get("GEVENTPERF_BENCH_QUICK") == "1"


@pytest.fixture(scope="session")
def body_server():
    """URL of the benchmark body server, in a process of its own."""
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "bodyserver.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or session.disabled or not session.benchmarks:
        return
    print_summary(session.benchmarks, terminalreporter.write_line)
