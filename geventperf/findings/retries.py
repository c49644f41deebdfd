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
from geventperf.findings.held import error_counts, heaviest_sleep
from geventperf.findings.limits import event_wait, waiters
from geventperf.findings.loop import block_threshold
from geventperf.profile import Finding, Profile

# urllib3 sleeping before a retry: its back-off, or the upstream's Retry-After.
BACKOFF_FRAME = re.compile(r"[/\\]urllib3[/\\]util[/\\]retry\.py:\d+:Retry\.\w*sleep\w*$")
# ... the upstream's Retry-After: urllib3 sleeps as long as it asks, which backoff_max
# does not cap (a 503 with "Retry-After: 1" sleeps a full second each time)
RETRY_AFTER_FRAME = re.compile(r"[/\\]urllib3[/\\]util[/\\]retry\.py:\d+:Retry\.sleep_for_retry$")
# The sleeps are told as the upstream's Retry-After when at least this share of them
# (by time) were.
RETRY_AFTER_SHARE = 0.5


# A program's own gevent.sleep is its retry back-off when its line slept between this
# many times and this many times as often as the upstreams answered with an error
# status: a sleep per failed answer (an unseen job slept 266 times at its line for 266
# 503s).  A poller or a rate limiter sleeps however the answers go.
OWN_SLEEPS_PER_ERROR = (0.5, 2.0)


def retry_backoff(profile: Profile) -> list[Finding]:
    """Waits in urllib3's retry back-off adding up to a block threshold: one finding;
    else the program's own back-off (own_backoff).  ``cost_s``: the greenlet-seconds
    slept before retries."""
    rows = [w for w in profile.waits if any(BACKOFF_FRAME.search(f) for f in w.stack)]
    slept = sum(w.wait_s for w in rows)
    if not rows or slept < block_threshold(profile):
        return own_backoff(profile)
    seen = waiters(profile, rows, weight=lambda w: w.wait_s)
    sleeps = seen.count
    after = sum(w.wait_s for w in rows if any(RETRY_AFTER_FRAME.search(f) for f in w.stack))
    told_after = after >= RETRY_AFTER_SHARE * slept
    if told_after:
        why = (f"{after / slept:.0%} of that time slept for the upstream's Retry-After "
               "header (urllib3 sleeps as long as a 503, 429 or 413 answer asks, and "
               "backoff_max does not cap it)")
        fix = ("if latency matters more than the upstream's request to slow down, "
               "Retry(respect_retry_after_header=False) retries the statuses in "
               "status_forcelist on the back-off instead (capped by backoff_max; with "
               "backoff_factor=0, at once; a status retried only for its Retry-After is "
               "then not retried), or, in urllib3 releases that have it, "
               "Retry(retry_after_max=...) caps the header's wait; and cap the attempts "
               "(Retry(total=...)), or fail fast and let the caller decide")
    else:
        why = ("the adapter's Retry slept before each new attempt, growing with "
               "backoff_factor")
        fix = ("if latency matters more than eventual success, cap the back-off "
               "(Retry(backoff_max=...)) and the attempts (Retry(total=...)), or fail fast "
               "and let the caller decide")
    message = (
        f"Requests were retried: {seen.who} waited {slept:.3f} s in all sleeping in "
        f"urllib3's retry back-off ({sleeps} sleep{'s' if sleeps != 1 else ''}"
        + (f" of {slept / sleeps:.3f} s on average" if sleeps > 0 else "")
        + f", most under {seen.where}): the upstream failed "
        "them -- a status in the Retry's status_forcelist (503, 429), a refused or reset "
        f"connection -- and {why}. That time went to the upstream's failures, not to its "
        "answers. Fix: find why the upstream fails (its status codes and logs); " + fix + ".")
    return [_finding(RETRY_BACKOFF, message, slept, list(seen.worst.stack),
                     greenlet=seen.greenlet, sleeps=seen.count, backoff_s=slept,
                     retry_after_s=after, site=seen.where)]


def own_backoff(profile: Profile) -> list[Finding]:
    """The program's own line sleeping (gevent.sleep called from it) about once per
    answer with an error status (OWN_SLEEPS_PER_ERROR), its sleeps adding up to a block
    threshold: a retry loop's back-off.  ``cost_s``: the greenlet-seconds slept there."""
    errors = error_counts(profile)
    if errors is None:
        return []
    found = heaviest_sleep(profile.waits)
    if found is None:
        return []
    line, slept = found.line, found.waited
    low, high = OWN_SLEEPS_PER_ERROR
    seen = waiters(profile, found.rows, weight=event_wait)
    if slept < block_threshold(profile) or not low <= seen.count / errors.errors <= high:
        return []
    message = (
        f"Requests were retried: {seen.who} waited {slept:.3f} s in all sleeping at "
        f"{line}, the program's own back-off ({seen.count} sleeps of "
        f"{slept / seen.count * 1e3:.0f} ms on average), about one sleep per failed "
        f"answer.{errors.told('')} That time went to the upstream's failures, not to its "
        "answers. Fix: find why the upstream fails (its status codes and logs); keep the "
        "back-off short, jittered and growing (tens of milliseconds at first, doubling), "
        "with few attempts, and honour a Retry-After the upstream sends; or fail fast and "
        "let the caller decide.")
    return [_finding(RETRY_BACKOFF, message, slept, list(seen.worst.stack),
                     greenlet=seen.greenlet, sleeps=seen.count, backoff_s=slept,
                     retry_after_s=0.0, site=line, errors=errors.errors,
                     cost_meaning=OWN_BACKOFF_COST)]


OWN_BACKOFF_COST = ("greenlet-seconds spent sleeping in the program's own back-off (its "
                    "gevent.sleep) before retrying failed requests")
