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

from geventperf.findings.common import (
    RETRY_BACKOFF,
    _count,
    _events,
    _finding,
    block_threshold,
)
from geventperf.findings.held import (
    error_counts,
    error_statuses,
    heaviest_sleep,
    shown_statuses,
)
from geventperf.findings.limits import event_wait, waiters
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import status_pairs
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
# The error answers are the upstream throttling the program when at least this share of
# them were 429 (Too Many Requests): the back-off only waits out refusals that sending
# fewer at once avoids (two unseen clients spawned 500 and 1 200 calls at once against
# upstreams taking 8 and 20: told to shorten the back-off, which made more 429s; a
# Pool(8) made one 1.8x faster than honouring Retry-After did).
THROTTLED_SHARE = 0.5
THROTTLED_FIX = (
    "Fix: send fewer at once: spawn the calls through a gevent.pool.Pool(n), n under "
    "what the upstream takes (a rate limiter at its rate, where it counts per second), "
    "and the 429s and their back-offs go away; honour a Retry-After it sends.")
# ... unless the pools never had more than this many requests in flight at once: the
# upstream counts calls per second, and fewer at once changes little (an unseen
# warehouse sync's 4 workers, told "send fewer at once", ran 9-14 % slower with 3 and 2;
# pacing its calls at the API's 24 per second matched its fix, sleeping the server's
# fine reset hint instead of a back-off of 0.5 s growing to 2 s: 36 % off the run).
FEW_IN_FLIGHT = 8
PACED_FIX = (
    "Fix: pace the calls at the upstream's rate -- one token bucket shared by the "
    "greenlets, at the rate it documents or its rate-limit headers announce "
    "(X-RateLimit-Limit, -Remaining, -Reset) -- and after a 429 sleep as long as it asks "
    "(a fine reset hint such as X-RateLimit-Reset-After, or Retry-After), not a back-off "
    "growing past it: a bucket refills in a fraction of a second, and every sleep longer "
    "than that wastes its tokens.")

# The program retries what no retry changes when at least this share of the error
# answers had one client-error status that says the request itself is wrong or its
# object missing (a 404, 400, 401, 403, 409, 422...; not the transient 408, 413, 425 or
# 429): each such answer waits out every back-off, then fails all the same.  An
# unseen account service listed 404 in its Retry's status_forcelist ("right after
# signup a profile can 404"): 190 of its 192 error answers, told "the upstream failed
# them (503, 429) -- find why the upstream fails"; taking 404 out gained 71 %.
PERMANENT_SHARE = 0.5
TRANSIENT_CLIENT_ERRORS = frozenset({"408", "413", "425", "429"})


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
    statuses = _with_retried(profile)
    failed = (f"answers of {shown_statuses(statuses)} (statuses in the Retry's "
              "status_forcelist), or a refused or reset connection" if statuses else
              "a status in the Retry's status_forcelist, a refused or reset connection")
    permanent = _permanent(statuses, "take it out of the Retry's status_forcelist")
    message = (
        f"Requests were retried: {seen.who} waited {slept:.3f} s in all sleeping in "
        f"urllib3's retry back-off ({sleeps} sleep{'s' if sleeps != 1 else ''}"
        + (f" of {slept / sleeps:.3f} s on average" if sleeps > 0 else "")
        + f", most under {seen.where}): the upstream failed them -- {failed} -- and "
        f"{why}. " + (permanent or _throttled(profile, statuses) or
                      "That time went to the upstream's failures, not to its answers. Fix: "
                      "find why the upstream fails (its status codes and logs); " + fix
                      + "."))
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
    statuses = error_statuses(profile)[0]
    message = (
        f"Requests were retried: {seen.who} waited {slept:.3f} s in all sleeping at "
        f"{line}, the program's own back-off ({seen.count} sleeps of "
        f"{slept / seen.count * 1e3:.0f} ms on average), about one sleep per failed "
        f"answer.{errors.told('')} "
        + (_permanent(statuses, "stop retrying it") or _throttled(profile, statuses) or
           "That time went to the upstream's failures, not to its answers. Fix: find why "
           "the upstream fails (its status codes and logs); keep the back-off short, "
           "jittered and growing (tens of milliseconds at first, doubling), with few "
           "attempts, and honour a Retry-After the upstream sends; or fail fast and let "
           "the caller decide."))
    return [_finding(RETRY_BACKOFF, message, slept, list(seen.worst.stack),
                     greenlet=seen.greenlet, sleeps=seen.count, backoff_s=slept,
                     retry_after_s=0.0, site=line, errors=errors.errors,
                     cost_meaning=OWN_BACKOFF_COST)]


def _permanent(statuses: dict[str, int], cure: str) -> str | None:
    """The sentences saying most error answers had one status that no retry changes
    (PERMANENT_SHARE), with *cure* as the fix; None otherwise."""
    if not statuses:
        return None
    status, count = max(statuses.items(), key=lambda kv: kv[1])
    errors = sum(statuses.values())
    if not status.startswith("4") or status in TRANSIENT_CLIENT_ERRORS \
            or count < PERMANENT_SHARE * errors:
        return None
    return (f"{count} of the {errors} error answers were {status}, which no retry changes: "
            "a client error says the request itself is wrong or what it asks for is "
            "missing, so each such answer waited out every back-off and failed all the "
            f"same. Fix: {cure} and handle {status} as an answer (\"not found\", "
            "\"refused\"); keep retrying only what is transient (503, 502, 429, a reset "
            "connection).")


def _with_retried(profile: Profile) -> dict[str, int]:
    """The error answers by status over all pools: those the callers saw, and those
    urllib3's Retry retried inside their calls (the pool watch's ``retried``)."""
    statuses = dict(error_statuses(profile)[0])
    for e in _events(profile, POOL_EVENT):
        for status, n in status_pairs(e.get("retried")):
            statuses[status] = statuses.get(status, 0) + n
    return statuses


def _throttled(profile: Profile, statuses: dict[str, int]) -> str | None:
    """The sentences saying the error answers (*statuses*) were mostly 429s
    (THROTTLED_SHARE), with the most requests the pools had in flight at once, and
    THROTTLED_FIX; None otherwise."""
    too_many, errors = statuses.get("429", 0), sum(statuses.values())
    if not too_many or too_many < THROTTLED_SHARE * errors:
        return None
    peak = max((_count(e, "peak_in_use") for e in _events(profile, POOL_EVENT)), default=0)
    return (f"{too_many} of the {errors} were 429 (Too Many Requests)"
            + (f", with up to {peak} requests in flight at once" if peak else "")
            + ": the upstream limits how many it takes, at once or per second, and the "
            "back-off only waits out its refusals. "
            + (PACED_FIX if 0 < peak <= FEW_IN_FLIGHT else THROTTLED_FIX))


OWN_BACKOFF_COST = ("greenlet-seconds spent sleeping in the program's own back-off (its "
                    "gevent.sleep) before retrying failed requests")
