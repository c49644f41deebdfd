"""Requests sent while one alike was still waiting for its answer (``duplicate-in-flight``).

A cache that every caller refills when it finds the value expired or missing sends, at
each expiry, one request per caller in flight: under gevent, where a service handles
dozens of requests at once, that is dozens of identical calls to an upstream that is
often slow for exactly that value (why it is cached).  They take the upstream's
capacity from the program's other calls too, and the other tables show those calls
waiting longer, at their own lines: the victim first, the culprit second, with no cause
(an unseen profile service's flags cache, 1 s long with no single flight, sent 349
calls to its 150 ms flags endpoint in 10 s instead of about 10, and its account calls
queued behind them at the store: "FINDINGS: none"; one refresh at a time gave 2.5x the
requests per second).  A fan-out asking the same thing for several items at once has
the same shape.

The pool watch counts, per host, the GET and HEAD requests sent while one for the same
URL waited for its answer (``urllib3-pool`` events' ``duplicates``, ``duplicated``,
``duplicate_peak``, ``duplicate_sites``).  A program asking one URL only (a load test, a
health check) is not told, as for ``repeated-request``, which tells a request repeated
with no cache at all and takes the place of this finding for the same request -- unless
a server's connections made those calls: a service calling its upstream for each
request it serves, whose few keys are what the cache holds (an unseen quote gateway's
64 handlers refilled a 1 s cache of 6 symbols with 447 duplicate calls, up to 61 at
once: "FINDINGS: none"; one fetch per key at a time gave 2.8x the requests per second).
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import (
    CONNECTION_GREENLET,
    DUPLICATE_IN_FLIGHT,
    REPEATED_REQUEST,
    _count,
    _events,
    _finding,
    block_threshold,
)
from geventperf.findings.limits import awaits_answer, switched_out_at
from geventperf.findings.ownclients import load_test_hosts
from geventperf.findings.repeated import (
    OTHERS_SHARE,
    VARIED_SHARE,
    rows_at,
    skipped_cost,
    varied_requests,
    waited_at,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import MAX_URLS, OTHER_POOLS, count_rows
from geventperf.profile import Finding, Profile

# Requests for one URL sent while one alike was in flight, from which it is a pattern
# (a stampede at each of a cache's expiries), not two callers meeting now and then.
DUPLICATES_MIN = 20
# ... or as many to one host over several URLs, at least this many alike at once: a
# stampede at each first ask of a cache of many keys, each key's once (an unseen
# thumbnail origin rendered each of 46 renditions for 16 callers at once on its first
# ask, 15 duplicates a URL and 641 in all, and was told only its CPU; one render per
# key at a time cut its run 78 %).  Callers meeting by chance are two or three at once.
STAMPEDE_PEAK_MIN = 4
# ... and their waits a tenth of all the greenlets' event wait: several requests in
# flight for the same thing is common in any busy service (an unseen ad server fetched
# one region's inventory per request, 10 alike at once: 1.7 s of its 200 s of waiting,
# not its story), a stampede is a large part of the waiting (that profile service's:
# 116 s of 440 s).
DUPLICATES_WAIT_SHARE = 0.1

FIX = (
    "Fix: one fetch per key at a time: the first caller fetches and the others wait for "
    "its answer (a gevent.event.AsyncResult per key, or a gevent lock around the refill "
    "that checks the cache again once it holds it), or refresh the value in one "
    "background greenlet before it expires and keep serving the current one meanwhile; "
    "a fan-out fetches each different thing once.")


# A service's handlers are told without variety beside the duplicates when at least
# this share of their line's calls were duplicates: a stampede on a cache of few keys
# (an unseen quote gateway's: 447 of 466), not an upstream call that now and then meets
# one alike (tests/diagnosis/n_plus_one.py's handlers: 40 of 144, its story being the
# calls made in turn).
HANDLER_STAMPEDE_SHARE = 0.5


def _handlers_stampede(profile: Profile, sites: list[tuple[str, int]]) -> bool:
    """Whether the calls at the program's line that sent most duplicates (*sites*) were
    all made by a server's connections (a service calling its upstream per request),
    duplicates for HANDLER_STAMPEDE_SHARE of them."""
    calls = [w for w in rows_at(profile, sites[0][0] if sites else None) if awaits_answer(w)]
    if not calls or sites[0][1] < HANDLER_STAMPEDE_SHARE * sum(w.count for w in calls):
        return False
    ended = switched_out_at(profile)
    names = {g.name for w in calls
             if (g := profile.greenlet(ended.get(tuple(w.stack)))) is not None}
    return bool(names) and all(CONNECTION_GREENLET in name for name in names)


def duplicates_in_flight(profile: Profile) -> list[Finding]:
    """The URL most often asked for while a request alike waited for its answer (see
    the module's text).  ``cost_s``: the event wait at the line that sent those
    requests, for their share of its calls, and their share of the queueing."""
    events = [e for e in _events(profile, POOL_EVENT)
              if isinstance(e.get("pool"), str) and e.get("pool") != OTHER_POOLS]
    calls = sum(_count(e, "calls") for e in events)
    varied, countless = varied_requests(events)
    own = [id(e) for e in load_test_hosts(profile)]  # a load test's, by design
    best = None
    for e in events:
        if id(e) in own:
            continue
        duplicated = count_rows(e.get("duplicated"))
        if not duplicated or duplicated[0][1] < DUPLICATES_MIN and not (
                _count(e, "duplicates") >= DUPLICATES_MIN
                and _count(e, "duplicate_peak") >= STAMPEDE_PEAK_MIN):
            continue
        url, duplicates = duplicated[0]
        asked = max(duplicates, dict(count_rows(e.get("top_gets"))).get(url, 0))
        others = calls - asked
        sites = count_rows(e.get("duplicate_sites"))
        # (duplicates spread over several URLs, too few for any one to qualify, are no
        # program asking one thing only)
        spread = duplicates < DUPLICATES_MIN
        if others < OTHERS_SHARE * asked or (varied < VARIED_SHARE * others
                                             and not countless and not spread
                                             and not _handlers_stampede(profile, sites)):
            continue  # one URL asked, and little else: a load test, a health check
        if best is None or _count(e, "duplicates") > _count(best[0], "duplicates"):
            best = (e, url, duplicates, asked, spread)
    if best is None:
        return []
    e, url, duplicates, asked, spread = best
    host_duplicates = max(duplicates, _count(e, "duplicates"))
    sites = count_rows(e.get("duplicate_sites"))
    site = sites[0][0] if sites else None
    # every duplicate that line sent, whatever its URL (a cache of several keys)
    from_site = max(duplicates, sites[0][1] if sites else 0)
    waited, made, stack = waited_at(profile, site)
    # each duplicate also cost the loop its CPU (requests' own work, the answer's parse):
    # one fetch per key would have spared it, and its share of the greenlets' queueing
    # (a stampede told after loop-saturated, the saturation its own calls made, failed
    # tests/test_diagnosis.py's stampede 1 run in 3 on a loaded machine)
    cost, their_queueing = skipped_cost(profile, events, waited, made, from_site,
                                        only_requests=False)
    waited_part = cost - their_queueing
    hub = profile.hub.get("id")
    waited_all = sum(g.event_wait_s if g.event_wait_s is not None else g.wait_s
                     for g in profile.greenlets if g.id != hub)
    if waited_part < block_threshold(profile) \
            or waited_part < DUPLICATES_WAIT_SHARE * waited_all:
        return []
    peak = _count(e, "duplicate_peak")
    message = (
        # (a cache of many keys: each key's few duplicates, many in all)
        (f"Identical requests in flight together: {host_duplicates} of the "
         f"{_count(e, 'gets')} GET requests to {e['pool']} (for {_urls(e)}) were sent "
         f"while one for the same URL was still waiting for its answer, each URL's few "
         f"together ({url}: {duplicates} of its {asked})" if spread else
         f"Identical requests in flight together: {duplicates} GET requests for "
         f"{e['pool']}{url} were sent while one alike was still waiting for its answer")
        + (f" (up to {peak} at once)" if peak else "")
        + (f", from {site}" if site else "")
        + (f" (which sent {from_site} such requests in all, for this URL and others)"
           if from_site > host_duplicates or from_site > duplicates and not spread else "")
        + ("" if spread else f"; it was asked {asked} times among {calls} requests")
        + ". Each caller fetched for "
        "itself what a call in flight was already fetching, and did with the answer what "
        "the others did with theirs (parsed it, computed from it): most often a cache that "
        "every caller refills when it finds the value expired or missing (a stampede at "
        "each expiry, or at each key's first ask), a fan-out asking the same thing for "
        "several items at once, or requests in flight together each fetching a value they "
        "share. They also "
        "take the upstream's capacity from the program's other calls, which then wait "
        "longer at their own lines"
        + (f"; greenlets waited {waited:.3f} s for answers at this one ({made} calls)"
           if made else "")
        + f". {FIX}")
    return [_finding(DUPLICATE_IN_FLIGHT, message, cost, stack, host=e["pool"], url=url,
                     duplicates=duplicates, host_duplicates=host_duplicates,
                     asked=asked, peak=peak, site=site,
                     request=f"GET {url}", others_ready_wait_s=their_queueing)]


def _urls(pool: dict[str, Any]) -> str:
    """How many different URLs a host's GETs asked for: its count where the pool watch
    counted them one by one, else past that ("for 0 different URLs" was printed where
    they were too many to count)."""
    distinct = pool.get("distinct_gets")
    if isinstance(distinct, int) and not isinstance(distinct, bool):
        return f"{distinct} different URLs"
    return f"more than {MAX_URLS} different URLs"


# A request told by both findings is a stampede on a cache, not a missing cache, when
# at least this share of its sends went while one alike was in flight ...
STAMPEDE_SHARE = 0.8
# ... and it was sent at most this many times per other request (a cache answered the
# rest): tests/diagnosis/flag_stampede.py's flags cache, refilled by its 30 handlers at
# each 0.25 s expiry, sent 101 flag requests beside 300 others, 97 of them in flight
# together, and was told "keep the answer" in 1 run of 6 (at repeated-request's 25 %
# edge), where its fix is one refill at a time.
CACHED_RATIO = 0.5


def without_repeats_told(found: list[Finding]) -> list[Finding]:
    """*found* with one finding per request that both a repeated-request and a
    duplicate-in-flight finding tell: the duplicates when the request was mostly sent
    in flight together and far less than once per other request (a cache refilled by
    every caller at its expiry: its fix, one refill at a time, comes first), else the
    repeats (sent again and again with no cache at all: its fix, a cache, comes
    first).  A repeated-request finding of a host's few URLs fetched again and again
    (``few_urls``) tells the duplicates its line sent as well: no cache at all, the first
    fix (an unseen pricing API's 1 600 calls for 4 URLs, 1 537 of them while one alike
    was in flight)."""
    repeats = {(f.extra.get("host"), f.extra.get("request")): f for f in found
               if f.kind == REPEATED_REQUEST}
    few = {(f.extra.get("host"), f.extra.get("site")) for f in found
           if f.kind == REPEATED_REQUEST and f.extra.get("few_urls")}
    dropped = set()
    for f in found:
        key = (f.extra.get("host"), f.extra.get("request"))
        rep = repeats.get(key) if f.kind == DUPLICATE_IN_FLIGHT else None
        if f.kind == DUPLICATE_IN_FLIGHT and (f.extra.get("host"), f.extra.get("site")) in few:
            dropped.add(id(f))
        if rep is None:
            continue
        count, calls = rep.extra.get("count") or 0, rep.extra.get("calls") or 0
        stampede = (f.extra.get("duplicates") or 0) >= STAMPEDE_SHARE * (
            f.extra.get("asked") or 0) > 0 and count <= CACHED_RATIO * (calls - count)
        dropped.add(id(rep) if stampede else id(f))
    return [f for f in found if id(f) not in dropped]
