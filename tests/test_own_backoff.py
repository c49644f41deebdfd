"""requests-failed counts the program's own retry loop around the failing calls: its
back-off sleeps, in the function that made the calls, are time those failures cost."""

from __future__ import annotations

from geventperf import findings
from geventperf.profile import StackTime
from tests.test_mut_findings import profile

APP = "/srv/app/report.py"
SLEEP = "/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep"
URLOPEN = "/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:715:HTTPConnectionPool.urlopen"


def failing(sleeps_in: str) -> list:
    """A host whose calls at report.py:181 timed out, and sleeps at *sleeps_in*."""
    return failing_with_stack([SLEEP, sleeps_in])


def failing_with_stack(sleep_stack: list[str]) -> list:
    """failing()'s host, its sleeps' stack *sleep_stack*."""
    waits = [StackTime(stack=[URLOPEN, f"{APP}:181:ReportService.fetch"], count=100,
                       wait_s=10.0, event_wait_s=10.0),
             StackTime(stack=sleep_stack, count=80, wait_s=16.0, event_wait_s=16.0)]
    events = [{"kind": "urllib3-pool", "pool": "http://orders:80", "calls": 300,
               "failed": 100, "failed_s": 10.0, "read_timeout_s": 0.1,
               "errors": [["ReadTimeoutError", 100]],
               "sites": [[f"{APP}:181:fetch", 100]]}]
    return findings.requests_failed(profile(waits=waits, events=events))


def test_the_programs_own_back_off_around_failing_calls_is_their_cost():
    """Before (an unseen report service retried a 0.1 s read timeout three times with a
    back-off): 53 s inside the failed requests told, 98 s asleep between them not."""
    [f] = failing(f"{APP}:191:ReportService.fetch")
    assert f.cost_s == 26.0 and f.extra["own_backoff_s"] == 16.0, f.extra
    assert (f"the program's own retry slept 16.000 s in all (80 sleeps at "
            f"{APP}:191:ReportService.fetch)") in f.message, f.message


def test_sleeps_elsewhere_are_not_the_failing_calls_back_off():
    [f] = failing(f"{APP}:40:Poller.run")
    assert f.cost_s == 10.0 and "own_backoff_s" not in f.extra, f.extra


def test_urllib3s_retry_sleeping_beneath_the_function_is_not_its_own_back_off():
    """urllib3's Retry back-off under the failing call's line is retry-backoff's figure:
    only a sleep the program's own line called counts here."""
    retry = "/venv/lib/python3.11/site-packages/urllib3/util/retry.py:360:Retry.sleep"
    [f] = failing_with_stack([SLEEP, retry, f"{APP}:181:ReportService.fetch"])
    assert f.cost_s == 10.0 and "own_backoff_s" not in f.extra, f.extra
