"""Requests retried with back-off (``retry-backoff``), from the wait stacks.

An adapter mounted with ``max_retries=Retry(..., backoff_factor=...)`` retries a failed
request -- a status in ``status_forcelist`` (503, 429), a refused or reset connection --
after sleeping, longer each time; ``Retry-After`` makes it sleep as long as the upstream
asks.  urllib3 sleeps in ``Retry.sleep`` (``_sleep_backoff``, ``sleep_for_retry``), so
under gevent those are waits like any other, and the report's other tables put them
under ``Session.get``: the upstream looks slow when it is failing, and the time goes to
the back-off between attempts, not to any answer.  One finding for all of them, named by
the line whose calls slept most.
"""

from __future__ import annotations

import re

from geventperf.findings.common import RETRY_BACKOFF, _finding
from geventperf.findings.limits import waiters
from geventperf.findings.loop import block_threshold
from geventperf.profile import Finding, Profile

# urllib3 sleeping before a retry: its back-off, or the upstream's Retry-After.
BACKOFF_FRAME = re.compile(r"[/\\]urllib3[/\\]util[/\\]retry\.py:\d+:Retry\.\w*sleep\w*$")


def retry_backoff(profile: Profile) -> list[Finding]:
    """Waits in urllib3's retry back-off adding up to a block threshold: one finding.
    ``cost_s``: the greenlet-seconds slept before retries."""
    rows = [w for w in profile.waits if any(BACKOFF_FRAME.search(f) for f in w.stack)]
    slept = sum(w.wait_s for w in rows)
    if not rows or slept < block_threshold(profile):
        return []
    seen = waiters(profile, rows, weight=lambda w: w.wait_s)
    message = (
        f"Requests were retried: {seen.who} waited {slept:.3f} s in all sleeping in "
        f"urllib3's retry back-off ({seen.count} sleep{'s' if seen.count != 1 else ''}, "
        f"most under {seen.where}): the upstream failed them -- a status in the Retry's "
        "status_forcelist (503, 429), a Retry-After, a refused or reset connection -- and "
        "the adapter's Retry slept before each new attempt, longer every time. That time "
        "went to the upstream's failures, not to its answers. Fix: find why the upstream "
        "fails (its status codes and logs); if latency matters more than eventual "
        "success, cap the back-off (Retry(backoff_max=...)) and the attempts "
        "(Retry(total=...)), or fail fast and let the caller decide.")
    return [_finding(RETRY_BACKOFF, message, slept, list(seen.worst.stack),
                     greenlet=seen.greenlet, sleeps=seen.count, backoff_s=slept,
                     site=seen.where)]
