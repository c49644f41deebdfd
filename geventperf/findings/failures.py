"""Requests that raised (``requests-failed``), from the pools' own records.

A request that times out waits its whole timeout for an answer that never comes; one
that is refused or reset fails at once but is usually tried again.  In a switch profile
both are plain waits under ``Session.get``, as if the network were merely slow, and the
report's glance says "mostly I/O".  :mod:`geventperf.poolwatch` wraps urllib3's
``HTTPConnectionPool.urlopen`` (the request as its caller saw it, retries inside) and
records per pool the requests, those that raised, how (the error's class), the time
they took and the lines that made them.  One finding for all pools, by the time lost.
"""

from __future__ import annotations

import math
from typing import Any

from geventperf.findings.common import (
    COST_MEANING,
    REQUESTS_FAILED,
    _count,
    _events,
    _f,
    _finding,
    _sentence,
    block_threshold,
)
from geventperf.findings.delayedack import trail
from geventperf.findings.limits import waiters
from geventperf.frames import parse_frame, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.profile import Finding, Profile

# Frame of urllib3 making a request: the waits of the failing calls are under it.
URLOPEN_FRAME = ":HTTPConnectionPool.urlopen"
# Pools and error kinds written out in a message (all are in the finding's extra).
MAX_POOLS_SHOWN = 3

# How each error class fails, and what a person does about it.  Keys: the class names
# urllib3, requests, the standard library and gevent raise (poolwatch.error_name).
_TIMEOUT = ("the upstream did not answer within the read timeout{timeout}: it is slower "
            "than the timeout allows (a timeout too short for it, or an upstream that needs "
            "fixing) or it is down, and then a circuit breaker stops paying the timeout on "
            "every call")
# ... when the timeout cut a tail (_tail_cut_story says the rest)
_TAIL_CUT = "the upstream did not answer within the read timeout{timeout}"
_STORIES = {
    "ReadTimeoutError": _TIMEOUT,
    "TimeoutError": _TIMEOUT,
    "Timeout": ("a gevent.Timeout around the call expired first: the upstream was slower than "
                "the time the program gave it"),
    "ConnectTimeoutError": ("connecting timed out: the host did not accept the connection in "
                            "time (down, overloaded, or a firewall dropping packets)"),
    "NewConnectionError": ("no connection could be made: refused (nothing listening) or the "
                           "host unreachable; each attempt fails at once, so retries and "
                           "callers that try again add up"),
    "NameResolutionError": "the host name did not resolve",
    "ProtocolError": ("the upstream closed or reset the connection mid-request: a kept-alive "
                      "connection it had already closed (its idle timeout shorter than the "
                      "client's reuse), or it crashed"),
    "SSLError": "the TLS handshake or certificate check failed",
}


# Error classes that are a timeout expiring (the call gave up waiting) ...
TIMEOUT_ERRORS = frozenset({"Timeout", "ReadTimeoutError", "TimeoutError"})
# ... and those that are the read timeout urllib3 was given (not a gevent.Timeout
# around the call, whose length the pool never sees).
READ_TIMEOUT_ERRORS = frozenset({"ReadTimeoutError", "TimeoutError"})
# urllib3's attempts past the calls from which its retries are told: a stray one is no
# pattern.
MIN_RETRIES_TOLD = 10
# With every failure a timeout, the requests that answered took at least this share of
# the time after which the timed-out ones gave up, on average: the limit sits within
# the upstream's usual latency, and the timeout, not the upstream, is what to change
# first ...
TIMEOUT_NEAR_LATENCY = 0.5
# ... told from at least this many answers timed to their response head.
MIN_ANSWERS_TIMED = 5
# Read timeouts that cut a tail: the requests that answered took at most this share of
# the read timeout on average, and at most TAIL_FAILED_SHARE of the calls timed out.
# An unseen sync set a 0.15 s per-attempt timeout against an upstream answering in 5 ms
# but stalling 800 ms one call in fifty, and retried: 44 % off its run; the report then
# led with its 25 timeouts as "a timeout too short for it", whose raising undoes that.
TAIL_CUT_LATENCY = 0.1
TAIL_FAILED_SHARE = 0.05


def answered(pools: list[dict[str, Any]]) -> tuple[int, float]:
    """(responses, seconds to their heads) of the requests that answered, over
    *pools*' timed responses (poolwatch's ``trails``)."""
    count, seconds = 0, 0.0
    for e in pools:
        for kind in ("new", "reused"):
            t = trail(e, kind)
            if t is not None:
                count, seconds = count + t[0], seconds + t[4]
    return count, seconds


def _timeout_story(pools: list[dict[str, Any]], gave_up_s: float, timeout_s: float) -> str:
    """A sentence when the requests that answered took nearly as long as the time
    allowed: the read timeout (*timeout_s*, 0 when unknown), else the time after which
    the timed-out ones gave up (*gave_up_s*, which urllib3's retries inside stretch to
    several timeouts); "" otherwise."""
    count, seconds = answered(pools)
    allowed = timeout_s or gave_up_s
    if count < MIN_ANSWERS_TIMED or seconds / count < TIMEOUT_NEAR_LATENCY * allowed:
        return ""
    against = (f"the read timeout of {timeout_s:.3f} s" if timeout_s else
               f"the {gave_up_s:.3f} s after which these gave up")
    return (f" The requests that answered took {seconds / count:.3f} s to their response "
            f"on average ({count} timed), against {against}: the time allowed sits within "
            "this upstream's usual latency, so much of what it cut off would have answered, "
            "and trying again only repeats the wait. Fix: raise the timeout above the "
            "slowest answer you accept (or make the upstream faster).")


def _tail_cut_story(pools: list[dict[str, Any]], failed: int, calls: int,
                    timeout_s: float) -> str:
    """A sentence when the read timeouts cut the upstream's stragglers short: the
    requests that answered took at most TAIL_CUT_LATENCY of *timeout_s* on average, and
    at most TAIL_FAILED_SHARE of the *calls* *failed*; "" otherwise."""
    count, seconds = answered(pools)
    if not timeout_s or count < MIN_ANSWERS_TIMED or failed > TAIL_FAILED_SHARE * calls \
            or seconds / count > TAIL_CUT_LATENCY * timeout_s:
        return ""
    return (f" The requests that answered took {seconds / count * 1e3:.0f} ms to their "
            f"response on average ({count} timed), under a tenth of the {timeout_s:g} s "
            f"read timeout, and {failed} of {calls} timed out: the timeout cut the "
            "upstream's stragglers short, as a per-attempt timeout with a retry does on "
            "purpose. Raising it makes each straggler hold its caller longer; what is left "
            "is at the upstream (its slow replica, query or lock), or a hedged second "
            "request sent once the first has taken a few times the usual answer.")


def _hung_story(pools: list[dict[str, Any]], failed: int, calls: int,
                timeout_s: float) -> str:
    """A sentence when some calls hung to the read timeout while the others answered
    fast: the requests that answered took at most TAIL_CUT_LATENCY of *timeout_s* on
    average, and more than TAIL_FAILED_SHARE of the *calls* *failed* (too many for a
    tail a retry cuts); "" otherwise.  An unseen status relay's 20 forwarders gave a
    webhook 8 s, one endpoint hung on a tenth of its calls, and every other customer's
    receipts queued behind the forwarders it held: told "a timeout too short for it",
    where a short timeout and a bound per endpoint took half off the run."""
    count, seconds = answered(pools)
    if not timeout_s or count < MIN_ANSWERS_TIMED or failed <= TAIL_FAILED_SHARE * calls \
            or seconds / count > TAIL_CUT_LATENCY * timeout_s:
        return ""
    usual = seconds / count
    return (f" The requests that answered took {usual * 1e3:.0f} ms to their response on "
            f"average ({count} timed), and {failed} of {calls} waited out the whole "
            f"{timeout_s:g} s read timeout, {timeout_s / usual:.0f} times that: those calls "
            "hung rather than ran slow, and raising the timeout only holds their callers "
            "longer. Fix: a read timeout a few times the usual answer (with a retry where "
            "the call is idempotent); and where a fixed set of greenlets makes the calls "
            "(workers, a Pool), bound the calls in flight to each endpoint (a Semaphore per "
            "host) or stop calling one that keeps hanging (a circuit breaker), so that one "
            "endpoint cannot hold them all while the others' work queues.")


def _retries_story(pools: list[dict[str, Any]], calls: int, failed: int, lost: float,
                   timeout_s: float) -> str:
    """A sentence when urllib3 tried requests again inside the calls (its Retry): at
    least MIN_RETRIES_TOLD more checkouts than calls; "" otherwise."""
    attempts = sum(_count(e, "checkouts") for e in pools)
    if attempts - calls < MIN_RETRIES_TOLD:
        return ""
    each = (f": about {lost / failed / timeout_s:.0f} read timeouts per failed request"
            if timeout_s and lost / failed >= timeout_s else "")
    return (f" urllib3 tried again inside the calls: {attempts} attempts for {calls} "
            f"requests, {attempts - calls} of them after an attempt failed (a timed-out "
            f"attempt waits out its whole timeout first{each}); attempts that failed "
            "before one answered are in no count of failures, only in the calls' time.")


def requests_failed(profile: Profile) -> list[Finding]:
    """Requests that raised, adding up to a block threshold of their time: one finding.
    ``cost_s``: the greenlet-seconds spent inside the requests that raised."""
    pools = sorted((e for e in _events(profile, POOL_EVENT)
                    if isinstance(e.get("pool"), str) and _count(e, "failed")
                    and math.isfinite(_f(e, "failed_s"))),
                   key=lambda e: -_f(e, "failed_s"))
    lost = sum(_f(e, "failed_s") for e in pools)
    if not pools or not lost >= block_threshold(profile):  # NaN-safe
        return []
    failed = sum(_count(e, "failed") for e in pools)
    calls = sum(_count(e, "calls") for e in pools)
    errors: dict[str, int] = {}
    sites: dict[str, int] = {}
    for e in pools:
        for key, into in (("errors", errors), ("sites", sites)):
            pairs = e.get(key)
            for pair in pairs if isinstance(pairs, list) else []:
                if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) \
                        and isinstance(pair[1], int) and not isinstance(pair[1], bool) \
                        and pair[1] > 0:
                    into[pair[0]] = into.get(pair[0], 0) + pair[1]
    by_count = sorted(errors.items(), key=lambda kv: -kv[1])
    worst = pools[0]
    timeout = _f(worst, "read_timeout_s")
    # every failure a timeout: the mean time to failure is then the time allowed
    timeouts = bool(by_count) and all(name in TIMEOUT_ERRORS for name, _n in by_count)
    # the read timeout itself, when every failure was one and the pool recorded it
    read_timeout = timeout if by_count and all(
        name in READ_TIMEOUT_ERRORS for name, _n in by_count) else 0.0
    near = _timeout_story(pools, lost / failed, read_timeout) if timeouts else ""
    tail = "" if near else _tail_cut_story(pools, failed, calls, read_timeout)
    hung = "" if near or tail else _hung_story(pools, failed, calls, read_timeout)
    stories = [(_TAIL_CUT if (tail or hung) and name in READ_TIMEOUT_ERRORS else
                _STORIES.get(name, f"{name} was raised")).format(
        timeout=f" ({timeout:g} s)" if timeout else "") for name, _n in by_count]
    site = max(sites.items(), key=lambda kv: kv[1])[0] if sites else None
    rows = _rows_at(profile, site)
    seen = waiters(profile, rows, weight=lambda w: w.wait_s) if rows else None
    where = user_site([site]).user if site else None
    shown = "; ".join(f"{e['pool']}: {_count(e, 'failed')} of {_count(e, 'calls')}, "
                      f"{_f(e, 'failed_s'):.3f} s" for e in pools[:MAX_POOLS_SHOWN])
    message = (
        f"Requests failed: {failed} of {calls} requests raised instead of answering "
        f"({', '.join(f'{name} x{n}' for name, n in by_count)}), after "
        f"{lost / failed:.3f} s each on average: {lost:.3f} greenlet-seconds spent in "
        f"requests that got no answer ({shown})"
        + (f", most made at {where}" if where else "")
        + ". " + _sentence("; ".join(dict.fromkeys(stories))) + ".")
    message += _retries_story(pools, calls, failed, lost, read_timeout)
    message += near or tail or hung or (" That time bought no answer: the fix is on the upstream's "
                                "side, or in the timeout, retries and fallback the calls "
                                "give it.")
    slept, sleeps, sleep_line = _own_backoff(profile, where)
    meaning = {}
    if slept >= block_threshold(profile):
        message += (f" Between attempts, the program's own retry slept {slept:.3f} s in all "
                    f"({sleeps} sleeps at {sleep_line}): {OWN_BACKOFF_TOLD}")
        lost += slept
        meaning = {"cost_meaning": COST_MEANING[REQUESTS_FAILED] + OWN_BACKOFF_COST,
                   "own_backoff_s": slept}
    return [_finding(REQUESTS_FAILED, message, lost,
                     list(seen.worst.stack) if seen else [],
                     greenlet=seen.greenlet if seen else None,
                     failed=failed, calls=calls, errors=dict(by_count),
                     pools=[e["pool"] for e in pools], read_timeout_s=timeout or None,
                     timeout_near_latency=bool(near), tail_cut=bool(tail),
                     **({"hung": True} if hung else {}), site=where, **meaning)]


# The program's own retry loop around the failing call: its back-off sleeps are this
# finding's cost too (an unseen report service's retries of a 0.1 s read timeout slept
# 98 greenlet-s beside 53 s inside the failed requests, and were told nowhere).
OWN_BACKOFF_TOLD = (
    "each retry waits and then calls again an upstream that failed the same way, so "
    "where the failures are timeouts the retries pay them again: give the attempt the "
    "time the upstream needs, or fail fast to the fallback rather than retry.")


OWN_BACKOFF_COST = ", plus the program's own retry sleeps in the function that made them"


def _own_backoff(profile: Profile, site: str | None) -> tuple[float, int, str | None]:
    """(seconds, sleeps, the line) of gevent.sleep waits called straight from the
    function of the program's line *site* (held.asleep_in_program: the failing calls'
    retry loop around them; urllib3's Retry back-off is retry-backoff's)."""
    from geventperf.findings.held import asleep_in_program  # (held.py builds on this)
    if site is None:
        return 0.0, 0, None
    at = parse_frame(site)
    seconds, sleeps, lines = 0.0, 0, {}
    for w in profile.waits:
        if not asleep_in_program(w):
            continue
        own = user_site(w.stack).user
        frame = parse_frame(own)
        if frame.path == at.path and frame.function.rsplit(".", 1)[-1] == \
                at.function.rsplit(".", 1)[-1]:
            seconds += w.wait_s
            sleeps += w.count
            lines[own] = lines.get(own, 0.0) + w.wait_s
    return seconds, sleeps, max(lines, key=lines.__getitem__) if lines else None


def _rows_at(profile: Profile, site: str | None) -> list[Any]:
    """The waits under urllib3's urlopen made from *site* (the failing calls' line)."""
    if site is None:
        return []
    return [w for w in profile.waits
            if site in w.stack and any(f.endswith(URLOPEN_FRAME) for f in w.stack)]
