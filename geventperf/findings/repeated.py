"""One request sent again and again, alike, beside varied work (``repeated-request``).

A token fetched before every call (its expiry compared with the wrong clock), a
configuration looked up per request (a cache held in ``threading.local``, which is per
greenlet once patched), a lookup whose cache key holds a request id: the program sends
the same request (method, URL, and for other methods than GET the same body) many
times, while its other requests ask for many different things.  The answer most likely
did not change between calls, and every call waits for it.

The pool watch counts requests alike per host (``urllib3-pool`` events'
``same_requests``, with the line that first sent each); the finding takes the most
repeated one when it is a large share of all requests and the others are varied (a
program that asks one URL only, a health check or a load test, is not told).  Its cost
is the event wait at that line for the calls past the first, and their share of the
greenlets' queueing (each request costs the loop its CPU).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from geventperf.findings.common import (
    LOCK_CONTENDED,
    REPEATED_REQUEST,
    SEQUENTIAL_CALLS,
    _count,
    _events,
    _f,
    _finding,
    block_threshold,
    tell_before_cost,
)
from geventperf.findings.cpuhot import is_client_frame, sampled_cpu
from geventperf.findings.held import (
    ANSWERS_CHANGED_SHARE,
    CACHE_TOLD,
    REPEATS_MIN_GETS,
    asked_one_off,
    is_probe,
    most_asked,
    repeated_enough,
)
from geventperf.findings.limits import awaits_answer, event_wait, is_limit_wait
from geventperf.findings.ownclients import in_handler, load_test_hosts
from geventperf.frames import (
    CacheDecorator,
    cache_decorator,
    frame_line,
    frame_path,
    function_literals,
    is_machinery,
    parse_frame,
    user_site,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import MAX_URLS, OTHER_POOLS, count_rows, status_pairs
from geventperf.profile import Finding, Profile

# Sent alike at least this many times ...
REPEATED_MIN = 20
# ... making at least this share of all the requests the pools answered (an unseen
# gateway fetched a token before each response's four upstream calls, one request in
# six with its load clients' own, and was told the lock its single flight took) ...
REPEATED_SHARE = 0.15
# ... while the others were at least this share of its count, with at least as many
# different requests among them as this share of them: the repeated one accompanies
# work that varies (a token before each of 300 different lookups), not a program that
# asks one thing only.
OTHERS_SHARE = 0.5
VARIED_SHARE = 0.5
# (and not when its answers changed: held.ANSWERS_CHANGED_SHARE)
# Nor, for a host's few URLs, when each one's answer changed length at least this many
# times, however much more often it was asked: a poll of things that move, slower than
# it is polled (an unseen scoreboard's clients polled four leagues' boards 710 times
# while each changed 9-14 times: told "its answer most likely did not change" and a
# cache, which would have served the first scores for ever).
MOVING_CHANGES = 3

# (the causes of a cache that misses, each one an unseen program's: an answer stored
# under its own id field and looked up by the caller's, another case; a TTL of 30 passed
# as milliseconds; a deadline from time.monotonic() compared with time.time())
REPEATED_FIX = (
    "Its answer (a token, a configuration, a lookup) most likely did not change between "
    "calls. Fix: keep the answer and reuse it while it holds -- a cache keyed on what the "
    "answer depends on, kept for the answer's lifetime (a token until its expiry: store "
    "the expiry as an absolute time, now + expires_in, and compare it with the same "
    "clock). If a cache is there already, find why it misses: smaller than the keys it "
    "sees in turn (an LRU cache of fewer entries than a round cycles through keeps none "
    "of them), a key holding a timestamp "
    "or a request id, an answer stored under another key than the one it is looked up "
    "by (a field of the answer, another case or form of the id), an expiry too short or "
    "in the wrong unit or clock (seconds given where milliseconds are read, "
    "time.monotonic() stored and time.time() compared), the object holding it made anew "
    "per request (a client or token provider built in each handler), or a cache per "
    "greenlet (threading.local is per greenlet once gevent has patched it, and each "
    "request runs in a new one).")


def repeated_requests(profile: Profile) -> list[Finding]:
    """The request sent alike most often, when it is REPEATED_SHARE of all requests and
    the others vary (see the module's text), else a host's few URLs asked again and
    again (_few_urls).  ``cost_s``: the event wait at the line that sends it for the
    calls past the first, and their share of the queueing."""
    events = [e for e in _events(profile, POOL_EVENT) if e.get("pool") != OTHER_POOLS]
    own = [id(e) for e in load_test_hosts(profile)]  # a load test asks alike by design
    rows = [(row, e["pool"]) for e in events if id(e) not in own
            for row in e.get("same_requests") or []
            if isinstance(row, list) and len(row) == 3 and isinstance(row[1], int)
            and isinstance(row[0], str) and not is_probe(row[0])]  # (asked by design)
    # (a cache keyed on one-off URLs is a cause of its own, beside any other host's
    # repeats: an unseen thumbnail service's signed originals were not told under its
    # catalog's few URLs)
    one_off = _one_off_alike(profile, [e for e in events if id(e) not in own])
    found = (_one_repeated(profile, events, rows) or _few_urls(profile, events, rows)) \
        if rows else []
    if one_off and found and found[0].extra.get("host") == one_off[0].extra.get("host"):
        found = []  # (one host, one cause: its one-off URLs)
    return found + one_off or (_not_found_again(profile, events, rows) if rows else [])


def _one_repeated(profile: Profile, events: list[dict[str, Any]],
                  rows: list[tuple[list[Any], str]]) -> list[Finding]:
    """repeated_requests' one request sent alike most often (the module's text), counted
    over the hosts its line sent it to: the same path from the same line to each of
    several hosts is one cache missing (an unseen crawler keyed its robots.txt cache on
    the host name and looked it up by host and port: 160 fetches of each of 5 sites'
    robots.txt, 10 % of the calls per host, 52 % together, were told a lock)."""
    alike: dict[tuple[str, str], list[tuple[int, str]]] = {}  # (key, line): hosts' counts
    for (key, count, site), host in rows:
        alike.setdefault((key, site), []).append((count, host))
    (key, site), sent = max(alike.items(), key=lambda kv: sum(n for n, _h in kv[1]))
    sent.sort(reverse=True)
    count, host = sum(n for n, _h in sent), sent[0][1]
    if sum(answers_changed(events, h, key) for _n, h in sent) >= ANSWERS_CHANGED_SHARE * count:
        return []
    calls = sum(_count(e, "calls") for e in events)
    others = calls - count
    varied, countless = varied_requests(events)
    # each host's first ask is needed whatever is cached: the same path once to each of
    # many hosts is no repeat (an unseen rollout's GET /admin/version to each of its 64
    # nodes, a check of each node's own state, was told to keep the answer)
    past_first = count - len(sent)
    if past_first + 1 < REPEATED_MIN or count < REPEATED_SHARE * calls \
            or others < OTHERS_SHARE * count \
            or (varied < VARIED_SHARE * others and not countless):
        return []
    method, _, rest = key.partition(" ")
    waited, made, _heaviest = waited_at(profile, site)
    cache, stack = _cache_for(profile, site, rest.partition(" #")[0])
    # each request also costs the loop its CPU (requests' own work, the answer's parse):
    # the calls past the first take their share of the greenlets' queueing with them (a
    # token before each of 300 lookups made half the CPU of a loop 80 % busy)
    cost, their_queueing = skipped_cost(profile, events, waited, made, past_first)
    url, _, body = rest.partition(" #")
    to = f"{method} {host}{url}" if len(sent) == 1 else \
        f"{method} {url} (to each of {len(sent)} hosts, {host} most)"
    message = (
        f"The same request, again and again: {to} was sent {count} times"
        + (" with the same body" if body else "")
        + f", {count / calls:.0%} of the {calls} requests the pools answered, "
        + (f"first from {site}, " if site else "")
        + f"while the other {others} asked for {_different(varied, countless)}"
        + _waited_told(waited, made)
        + f". {_cached_already(cache, host, None) or REPEATED_FIX}")
    return [_finding(REPEATED_REQUEST, message, cost, stack, request=key, host=host,
                     hosts=len(sent), count=count, calls=calls, varied=varied, site=site,
                     others_ready_wait_s=their_queueing)]


# A host that answered "not found" (404, 410) to at least this many requests, this share
# of its calls, while its most asked URL was asked at least NOT_FOUND_REPEATS times with
# the same answer each time, asked again for what was not there: a cache that keeps only
# what it found (an unseen notifier's 110 unknown handles, fetched 2 429 times, 45 % of
# its requests: told only requests' CPU; keeping the misses took 32 % off the run).
NOT_FOUND_MIN = 50
NOT_FOUND_SHARE = 0.2
NOT_FOUND_REPEATS = 10
NOT_FOUND_STATUSES = ("404", "410")
NOT_FOUND_FIX = (
    "Fix: cache the not-found answers too (negative caching): a cache that keeps only "
    "what it found asks again, every time, for what is not there. Keep a miss for less "
    "time than a found answer (a minute, say), so that a new entry is seen soon; and if "
    "the found answers are not cached either, cache them.")
NOT_FOUND_COST = ("greenlet-seconds spent waiting at the line that sent them for the "
                  "answers that said not found (their share of its calls), plus their "
                  "share of the greenlets' queueing; a cache of them saves that less each "
                  "URL's first ask")


ONE_OFF_FIX = (
    "Fix: key the cache on what was asked for, without those values (the path and its own "
    "parameters); where they sign the request, sign only the requests that miss it.")


def _one_off_alike(profile: Profile, events: list[dict[str, Any]]) -> list[Finding]:
    """A host whose one-off GETs (geventperf.oneoffurls: a nonce, a token or a signature
    in the query, new at every request, so each URL differs) asked for few different
    things once those values are set aside, each again and again, with answers of
    unchanging length (held.asked_one_off): a cache keyed on the whole URL, which never
    hits (an unseen enricher fetched 24 teams' profiles 600 times, each URL signed anew:
    its pool counted 600 different URLs, and it was told to make two lookups
    concurrently, -43 %, where a cache keyed on the team took 73 % off the run; an
    unseen podcast crawler HEAD-checked 2 400 files 7 200 times under tracking tokens its
    feeds renewed: "FINDINGS: none", -44 % keyed on the file).  ``cost_s``: as
    _few_urls'."""
    candidates = [(asked[0] - asked[1], asked, e, sites[0][0]) for e in events
                  if (asked := asked_one_off(e)) is not None
                  and (sites := count_rows(e.get("oneoff_sites")))]
    if not candidates:
        return []
    skipped, (oneoff, distinct, names), event, site = max(candidates, key=lambda c: c[:2])
    most = (event.get("oneoff_changed") or [None, None, None])[2]
    waited, made, _heaviest = waited_at(profile, site)
    cost, queueing = skipped_cost(profile, events, waited, made, skipped)
    if cost < block_threshold(profile):
        return []
    _cache, stack = _cache_for(profile, site, str(most))
    host = event.get("pool")
    message = (
        f"The same lookups under URLs that never repeat: {host}'s {oneoff} GET or HEAD "
        f"requests (most from {site}) each carried values new at every request (their "
        f"{', '.join(names)}: a nonce, a token, a signature), and once those are set aside "
        f"they asked for only {distinct} different things ({oneoff / distinct:.0f} each on "
        f"average, each one's answers of the same length; for example {most})"
        + _waited_told(waited, made)
        + f": a cache keyed on the whole URL never hits, and one keyed on what was asked "
        f"for would skip {skipped} of them. {ONE_OFF_FIX}")
    return [_finding(REPEATED_REQUEST, message, cost, stack, host=host, gets=oneoff,
                     distinct=distinct, site=site, few_urls=True, one_off=True,
                     others_ready_wait_s=queueing, cost_meaning=FEW_URLS_COST)]


def _not_found_again(profile: Profile, events: list[dict[str, Any]],
                     rows: list[tuple[list[Any], str]]) -> list[Finding]:
    """A host asked again and again for what it answered was not there (NOT_FOUND_MIN,
    NOT_FOUND_SHARE, NOT_FOUND_REPEATS), when no repeated request was told otherwise.
    ``cost_s``: NOT_FOUND_COST."""
    candidates = []
    for e in events:
        calls, host = _count(e, "calls"), e.get("pool")
        missed = sum(n for status, n in status_pairs(e.get("statuses"))
                     if status in NOT_FOUND_STATUSES)
        if missed < NOT_FOUND_MIN or missed < NOT_FOUND_SHARE * calls:
            continue
        repeats = [row for row, pool in rows if pool == host and row[1] >= NOT_FOUND_REPEATS
                   and str(row[0]).startswith("GET ") and isinstance(row[2], str)
                   and answers_changed(events, host, row[0]) == 0]
        if repeats:
            candidates.append((missed, calls, host, repeats))
    if not candidates:
        return []
    missed, calls, host, repeats = max(candidates, key=lambda c: c[:2])
    site = Counter(row[2] for row in repeats).most_common(1)[0][0]
    waited, made, stack = waited_at(profile, site)
    cost, their_queueing = skipped_cost(profile, events, waited, made, missed)
    if cost < block_threshold(profile):
        return []
    asked = ", ".join(f"{row[0].partition(' ')[2]} {row[1]} times" for row in repeats[:3])
    message = (
        f"The same lookups, not found again and again: {host} answered {missed} of its "
        f"{calls} requests ({missed / calls:.0%}) with not found (404 or 410), and the "
        f"URLs asked most were each asked many times with the same answer ({asked}), "
        f"sent from {site}"
        + _waited_told(waited, made)
        + f". {NOT_FOUND_FIX}")
    return [_finding(REPEATED_REQUEST, message, cost, stack, host=host, not_found=missed,
                     calls=calls, site=site, cost_meaning=NOT_FOUND_COST,
                     others_ready_wait_s=their_queueing)]


def _few_urls(profile: Profile, events: list[dict[str, Any]],
              rows: list[tuple[list[Any], str]]) -> list[Finding]:
    """A host whose GET requests asked for few URLs, or whose requests of any method
    were few different ones (by method, URL and body, counted past poolwatch's tables by
    their hashes), each again and again (at least held.REPEATS_MIN_GETS of them,
    held.REPEATS_TOLD each on average), while the program's other requests varied at
    least as much (where the different ones were few enough to count one by one), when
    no one request was told (an unseen series index's lru_cache of 1 024 entries cycled
    through 2 484 series, 6 lookups each: its saturated loop was told requests' own
    work, where a cache that held them all cut the run 46 %):
    many lookups each repeated (a cache per greenlet, or keyed on a request id), not one
    (an unseen invoice worker's profile cache, kept in threading.local, fetched 60
    customers' profiles 2 500 times beside varied tax lookups: "FINDINGS: none"; one
    cache for the process took 43 % off the run).  ``cost_s``: the event wait at the
    line that sent them for the calls past each URL's first, and their share of the
    queueing."""
    candidates = []
    for e in events:
        for gets, distinct, only_gets in _asked(e):
            candidate = _few_asked(profile, events, rows, e, gets, distinct, only_gets)
            if candidate is not None:
                candidates.append(candidate)
    if not candidates:
        return []
    skipped, gets, distinct, host, event, site, others, only_gets = max(
        candidates, key=lambda c: c[:3])
    waited, made, _heaviest = waited_at(profile, site)
    # (and, as for one request repeated, their share of the greenlets' queueing)
    cost, queueing = skipped_cost(profile, events, waited, made, skipped)
    if cost < block_threshold(profile):
        return []
    cache, stack = _cache_for(profile, site, _most_asked_url(event))
    cached = _cached_already(cache, host, distinct)
    if cached and cache is not None:
        cached += _other_small_caches(profile, events, event, site, cache)
    fix = _revalidated(event, gets, skipped) or (
        f": a cache that kept them would skip {skipped} of them. {cached}" if cached
        else f": {CACHE_TOLD} would skip {skipped} of them. {REPEATED_FIX}")
    message = (
        (f"The same few answers, fetched again and again: {host}'s {gets} GET requests "
         f"asked for only {distinct} different URLs ({gets / distinct:.0f} each on "
         f"average{most_asked(event)})" if only_gets else
         f"The same answers, asked for again and again: {host}'s {gets} requests (by "
         f"method, URL and body) were only {distinct} different ones, each sent "
         f"{gets / distinct:.0f} times on average")
        + f", sent from {site}"
        + (f", while the program's other requests asked for {_different(*others)}"
           if others != (0, False) else "")
        + _waited_told(waited, made) + fix)
    return [_finding(REPEATED_REQUEST, message, cost, stack, host=host, gets=gets,
                     distinct=distinct, site=site, few_urls=True,
                     **({} if only_gets else {"keyed": True}),
                     others_ready_wait_s=queueing,
                     cost_meaning=FEW_URLS_COST)]


def _asked(pool: dict[str, Any]) -> list[tuple[int, int, bool]]:
    """(requests, different ones, GETs only?) of a host's urllib3-pool event: its GET
    requests by URL, and all its keyed requests by method, URL and body (poolwatch's
    hashes of them, past what its tables count one by one), where the event has
    them."""
    out = []
    for total, distinct, only_gets in ((pool.get("gets"), pool.get("distinct_gets"), True),
                                       (pool.get("keyed"), pool.get("distinct_keys"), False)):
        if isinstance(total, int) and isinstance(distinct, int) \
                and not isinstance(total, bool) and not isinstance(distinct, bool):
            out.append((total, distinct, only_gets))
    return out


def _few_asked(profile: Profile, events: list[dict[str, Any]],
               rows: list[tuple[list[Any], str]], e: dict[str, Any], gets: int,
               distinct: int, only_gets: bool) -> tuple[Any, ...] | None:
    """_few_urls' candidate of host *e*, its *gets* requests (GETs only, or all keyed)
    *distinct* different ones: (skipped, gets, distinct, host, e, site, the others'
    variety, only_gets), or None."""
    host = e.get("pool")
    # (one URL again and again is _one_repeated's: a refresher reloading it on a
    # schedule is not a lookup repeated per item)
    if distinct < 2 or not repeated_enough(e, gets, distinct,
                                           gets_only=only_gets or not _count(e, "others")):
        return None
    mine = [row for row, pool in rows if pool == host]
    changes = [answers_changed(events, host, row[0]) for row in mine]
    if sum(changes) >= ANSWERS_CHANGED_SHARE * sum(row[1] for row in mine) \
            or (changes and min(changes) >= MOVING_CHANGES):
        return None  # the answers changed: a poll of something that moves
    # (all its requests: the lines that made its first calls, sampled; the lines of
    # the requests counted one by one may be a few of another kind's)
    sites = Counter(row[2] for row in mine if isinstance(row[2], str)
                    and str(row[0]).startswith("GET ")) if only_gets \
        else Counter(dict(count_rows(e.get("call_sites"))))
    if not sites:
        return None
    site = sites.most_common(1)[0][0]
    rest = [o for o in events if o is not e]
    others = varied_requests(rest)
    if distinct <= MAX_URLS and not others[1] and others[0] < distinct \
            and not _paged(rest, others[0]) \
            and not _asked_for_clients(profile, e, site, gets - distinct):
        return None  # the program asks for few things in all (a load test, a poll)
    return (gets - distinct, gets, distinct, host, e, site, others, only_gets)


# A few URLs asked again from handlers are a stampede's, not a cache's that misses, when
# at least this share of the repeats were sent while one alike was in flight.
IN_FLIGHT_REPEATS_SHARE = 0.5
# Most answers were 304 Not Modified from this share of a host's GETs: the program
# sent conditional requests for copies it held, so its cache is there, and its entries
# counted as expired at every use.
REVALIDATED_SHARE = 0.5


def _revalidated(event: dict[str, Any], gets: int, skipped: int) -> str:
    """The end of _few_urls' message when most of a host's *gets* GETs were answered 304
    (REVALIDATED_SHARE), of which *skipped* were asked again, else ""."""
    not_modified = _count(event, "not_modified")
    if not_modified < REVALIDATED_SHARE * gets:
        return ""
    return (f"; {not_modified} of them were answered 304 Not Modified: the program holds "
            "a copy of each and asked every time whether it had changed, so its cache is "
            "there but every use found the copy expired, and an expiry that held would "
            f"skip up to {skipped} of them. Fix: look first at how the expiry is stored "
            "and compared -- the same clock and unit on both sides (time.monotonic() "
            "stored and time.time() compared, or seconds stored where milliseconds are "
            "read, never holds) -- then at how long a copy may be kept without asking "
            "(the answer's max-age).")


def _asked_for_clients(profile: Profile, e: dict[str, Any], site: str, again: int) -> bool:
    """Whether the requests at *site* were sent inside the program's own server's
    handlers: lookups made for each request it served, however few things it asks for
    in all, no poll nor load test (an unseen package mirror revalidated its 100 cached
    documents upstream on every client's request, 703 lookups, its expiry stored from
    time.monotonic() and compared with time.time(): "FINDINGS: none", its only
    upstream read as a program asking few things in all; an expiry that held took 46 %
    off the run) -- unless host *e*'s requests asked *again* were mostly sent while one
    alike was in flight: handlers refilling an expired entry all at once,
    duplicate-in-flight's story (tests/diagnosis/handler_stampede.py)."""
    if _count(e, "duplicates") >= IN_FLIGHT_REPEATS_SHARE * again:
        return False
    return any(in_handler(w.stack) for w in _answer_rows(profile, site))


# The program's other requests were a source walked page by page when at least this
# many of them each asked for something different (an unseen catalog job paged 9 times
# through its events, then looked 4 000 products up for 61 different ones behind a cache
# that never hit: its few other requests read as a load test asking few things in all).
PAGED_MIN = 5


def _paged(rest: list[dict[str, Any]], varied: int) -> bool:
    """Whether the requests of the hosts *rest* (their pool events), of which *varied*
    (varied_requests) were different beside one, were each a different one, at least
    PAGED_MIN of them."""
    calls = sum(_count(o, "calls") for o in rest)
    return calls >= PAGED_MIN and varied + 1 >= calls


# The program's frames looked at for a cache already around the requests, from the line
# that sent them outwards: the cached function may be a caller (a lookup cached around
# a client's method that sends the request).
CACHED_FRAMES_LOOKED = 3
CACHE_KEY_TOLD = (
    "what it is keyed on (all its arguments) must differ where the request does not -- "
    "an argument such as a request id, a timestamp or an object made per call -- or the "
    "cached function is made anew (defined inside a handler, or a method of an object "
    "made per request, whose self is part of the key)")


def _cached_already(found: tuple[str, CacheDecorator] | None, host: Any,
                    different: int | None) -> str:
    """What to say of a memoizing decorator already on the function that sent the
    repeated requests, or on one of its callers (CACHED_FRAMES_LOOKED), when it keeps
    fewer results than the *different* requests sent to *host* (None: not counted), or
    keys them on more than the request; "" when there is none (an unseen export
    builder's lru_cache(maxsize=256) cycled through 320 assets and never hit: told "a
    cache in front of the call", the real cause a hint among four).  *found*: the
    decorator and its function's frame (_cache_for)."""
    if found is None:
        return ""
    entry, cache = found
    where = (f"{cache.function} is cached already ({cache.source} at "
             f"{parse_frame(entry).path}:{cache.line}), and still asked again")
    bounded = cache.size_known and cache.maxsize is not None
    if bounded and different is not None and cache.maxsize < different:  # type: ignore[operator]
        return (f"{where}: it keeps {cache.maxsize} results, fewer than the {different} "
                f"different requests sent to {host}, and a cache that cycles through more "
                "keys than it keeps drops each one before it is asked again (an LRU cache "
                "then never hits). Fix: a maxsize above the different keys of a round "
                "(maxsize=None where they are bounded).")
    key_fix = "Fix: key the cache on what the request depends on only."
    if cache.size_known and (not bounded or different is not None):
        return f"{where}: {CACHE_KEY_TOLD}. {key_fix}"
    return (f"{where}: either it keeps fewer results than the different keys it cycles "
            "through (a cache smaller than a round's keys drops each one before it is "
            f"asked again: raise its maxsize), or {CACHE_KEY_TOLD}. {key_fix}")


def _most_asked_url(event: dict[str, Any]) -> str:
    """The URL a host's pool watch record counts asked most ("" when none)."""
    top = [str(row[0]) for row in event.get("top_gets") or () if row] or [
        str(row[0]).partition(" ")[2].partition(" #")[0]
        for row in event.get("same_requests") or () if row]
    return top[0] if top else ""


def _other_small_caches(profile: Profile, events: list[dict[str, Any]],
                        told: dict[str, Any], site: str,
                        cache: tuple[str, CacheDecorator]) -> str:
    """" Likewise ...": the other hosts the line *site* called whose requests passed
    through another cache smaller than their different requests, at least
    REPEATS_MIN_GETS asked again (an unseen claims job's eligibility cache of 64 results
    cycled through 1 102 members, 2.6 asks each: under REPEATS_TOLD, and untold beside
    its network cache's finding)."""
    said = []
    for e in events:
        if e is told or site not in dict(count_rows(e.get("call_sites"))):
            continue
        asked = _asked(e)
        if not asked:
            continue
        gets, distinct, _only_gets = asked[0]
        other, _stack = _cache_for(profile, site, _most_asked_url(e), built_only=True)
        if other is None or other[1] == cache[1] or not other[1].size_known \
                or other[1].maxsize is None or other[1].maxsize >= distinct \
                or gets - distinct < REPEATS_MIN_GETS:
            continue
        said.append(f" Likewise {other[1].function}'s ({other[1].source} at "
                    f"{parse_frame(other[0]).path}:{other[1].line}): it keeps "
                    f"{other[1].maxsize} results, and {e.get('pool')}'s {gets} requests "
                    f"were {distinct} different ones.")
    return "".join(said)


def _cache_for(profile: Profile, site: str, url: str, built_only: bool = False
               ) -> tuple[tuple[str, CacheDecorator] | None, list[str]]:
    """(_cache_around of the heaviest stack waiting at *site* that has one, that stack)
    -- the heaviest stack and None where none has one; where the stacks pass
    through different cached functions (one client method under several caches), the
    one whose function's string literals are most of *url* (an unseen claims job's
    eligibility and network lookups, both cached around one _get, were told the
    eligibility cache's for the network host's repeats); with *built_only*, only such a
    one."""
    stacks = [list(w.stack) for w in sorted(_answer_rows(profile, site), key=event_wait,
                                            reverse=True)] or [[site]]
    found: dict[tuple[str, int], tuple[tuple[str, CacheDecorator], list[str]]] = {}
    for stack in stacks:
        around = _cache_around(stack)
        if around is not None:
            found.setdefault((frame_path(around[0]), around[1].line), (around, stack))
    if not found:
        return None, stacks[0]
    path = url.split("?", 1)[0]

    def built(candidate: tuple[tuple[str, CacheDecorator], list[str]]) -> int:
        return sum(len(part) for part in function_literals(candidate[0][0])
                   if part in path)

    best = max(found.values(), key=built)  # (the heaviest first among ties)
    if built_only and not built(best):
        return None, stacks[0]
    return best


def _cache_around(stack: list[str]) -> tuple[str, CacheDecorator] | None:
    """(the frame, its memoizing decorator) of the innermost of the program's first
    CACHED_FRAMES_LOOKED frames of *stack* (innermost first) whose function has one."""
    own = [entry for entry in stack if not is_machinery(entry)][:CACHED_FRAMES_LOOKED]
    for entry in own:
        cache = cache_decorator(entry)
        if cache is not None:
            return entry, cache
    return None


FEW_URLS_COST = ("greenlet-seconds spent waiting for answers at the line that sent the "
                 "repeated requests, for the calls past each one's first, plus their "
                 "share of all requests times the greenlets' ready wait outside long "
                 "slices (each request costs the loop its CPU)")


def _waited_told(waited: float, made: int) -> str:
    """"; greenlets waited N s for answers at that line (M calls)", or "" for none."""
    return f"; greenlets waited {waited:.3f} s for answers at that line ({made} calls)" \
        if made else ""


def skipped_cost(profile: Profile, events: list[dict[str, Any]], waited: float, made: int,
                 skipped: int, only_requests: bool = True) -> tuple[float, float]:
    """(cost, its queueing part) of *skipped* of the *made* calls at a line that waited
    *waited* s for answers: their share of that wait, and of the greenlets' queueing
    their share of all the calls the pools answered (each request costs the loop its
    CPU), of the part of the queueing requests' CPU made where the CPU samples say (the
    share of the sampled CPU in the HTTP client, its parse of the answers included: an
    unseen thumbnail service's loop, saturated by an ETag computed a byte at a time, lent
    all its queueing to its repeated fetches of the originals, which were told first);
    all of it without *only_requests*: a duplicate in flight's caller also repeats what
    it does with the answer (an unseen rendition cache's stampede rendered each original
    15 times at once)."""
    calls = sum(_count(e, "calls") for e in events)
    in_client, total = sampled_cpu(profile, is_client_frame) if only_requests else (0, 0)
    share = in_client / total if total > 0 else 1.0
    queueing = _queued(profile) * share * skipped / calls if calls else 0.0
    return (waited * min(1.0, skipped / made) if made else 0.0) + queueing, queueing


def _queued(profile: Profile) -> float:
    """The greenlets' ready wait (the hub apart), less what they queued behind slices
    over the block threshold (loop-blocked's and blocking-call's, whoever's calls were
    in flight): each request costs the loop its CPU, so the calls a cache skips take
    their share of the rest with them (an unseen thumbnail service's sqlite writes,
    blocking on another process's lock, made 34 of its 62 greenlet-seconds of queueing,
    and its duplicate fetches were ranked above them with a share of all 62)."""
    hub = profile.hub.get("id")
    ready = sum(g.ready_wait_s or 0.0 for g in profile.greenlets if g.id != hub)
    stalled = sum(_f(e, "delayed_others_s") for e in _events(profile, "blocked-slice"))
    return max(0.0, ready - stalled)


def after_repeats_told(found: list[Finding]) -> list[Finding]:
    """*found*, with each lock-contended finding whose holders mostly waited beneath the
    line of a repeated-request finding (``held_mostly_at``) ranked just after it and
    saying so: the lock is held for as long as the same request takes, again and again,
    and keeping its answer shortens every hold (an unseen crawler's per-host semaphore,
    held across a robots.txt fetched again for every page, was told first, "a larger
    n", which would have broken its politeness); and each sequential-calls finding at the
    line of a repeated-request finding the same way."""
    for f in [f for f in found if f.kind == LOCK_CONTENDED]:
        held = {frame_line(frame) for frame in f.extra.get("held_mostly_at") or ()} - {None}
        repeat = next((o for o in found if o.kind == REPEATED_REQUEST
                       and frame_line(o.extra.get("site")) in held), None)
        if repeat is not None:
            f.extra["ranks_after"] = REPEATED_REQUEST
            tell_before_cost(f, "Most of what its holders waited on under it was the same "
                              f"request made again and again at {repeat.extra['site']} "
                              "(the repeated-request finding): keep its answer, and every "
                              "hold shortens with it.")
    # calls made in turn at the line whose requests were mostly asked before: the cache
    # first, which skips them, then the calls left made together (an unseen indexer's
    # lookups behind an lru_cache too small for its series: "make them together" came
    # first, where a cache that held them all left a fifth of them)
    # -- when those were most of the line's calls: a cache skipping one of a handler's
    # five calls in turn leaves the other four (an unseen product page's recommendations,
    # 320 of its 1 600 calls, were told first, where making the five together took 55 %
    # off its run)
    for f in [f for f in found if f.kind == SEQUENTIAL_CALLS]:
        line = frame_line(f.extra.get("site"))
        repeat = next((o for o in found if o.kind == REPEATED_REQUEST and line is not None
                       and frame_line(o.extra.get("site")) == line), None)
        if repeat is not None and _skips_most(repeat, f.extra.get("calls")):
            f.extra["ranks_after"] = REPEATED_REQUEST
            tell_before_cost(f, "Most of these calls asked again what an earlier one had "
                              "(the repeated-request finding): keep those answers first, "
                              "then make the calls left together.")
    return found


def _skips_most(repeat: Finding, calls: Any) -> bool:
    """Whether *repeat*'s calls past each URL's first (a few-URLs finding's GETs less
    its different ones) were at least half of *calls*; True where either is not
    counted (one request repeated: its count is not kept in the finding)."""
    gets, distinct = repeat.extra.get("gets"), repeat.extra.get("distinct")
    if not all(isinstance(n, int) for n in (gets, distinct, calls)):
        return True
    return gets - distinct >= calls / 2


def without_caches_told(found: list[Finding]) -> list[Finding]:
    """*found* without the repeated-request findings of few URLs (``few_urls``) when
    another finding tells a cache in front of the call already (pool-full's jobs'
    repeated GETs, held.CACHE_TOLD): one cause, one finding.  Not a sequential-calls
    finding, whose fix leads with making the calls together and which ranks after the
    repeats at its line (after_repeats_told): an unseen billing run's FX cache, keyed on
    a timestamp, sent 1 592 lookups for 9 URLs, told in the middle of "make them
    together", which the ledger's need of the rate forbade, beneath a stampede whose
    single flight per (unique) key gained nothing."""
    if not any(CACHE_TOLD in f.message for f in found
               if not f.extra.get("few_urls") and f.kind != SEQUENTIAL_CALLS):
        return found
    return [f for f in found if not f.extra.get("few_urls")]


def answers_changed(events: list[dict[str, Any]], host: str, key: str) -> int:
    """How many times the answers to request *key* at *host* changed length from one to
    the next (the pool watch's ``answers_changed``; 0 when not recorded)."""
    for e in events:
        if e.get("pool") == host:
            for row in e.get("answers_changed") or []:
                if isinstance(row, list) and len(row) == 2 and row[0] == key \
                        and isinstance(row[1], int):
                    return row[1]
    return 0


def varied_requests(events: list[dict[str, Any]]) -> tuple[int, bool]:
    """How many different requests the pools counted, at least, besides the repeated
    one; and whether a host had too many to count (more than MAX_URLS: varied enough
    whatever their number)."""
    total, countless = 0, False
    for e in events:
        for field in ("distinct_gets", "distinct_sent"):
            n = e.get(field)
            if n is None and field in e:
                countless = True
                total += MAX_URLS
            elif isinstance(n, int) and not isinstance(n, bool):
                total += n
    return max(0, total - 1), countless


def _different(varied: int, countless: bool) -> str:
    return f"more than {varied} different things" if countless \
        else f"at least {varied} different things"


def waited_at(profile: Profile, site: Any) -> tuple[float, int, list[str]]:
    """(event wait, calls (responses' heads awaited), the heaviest stack) of the waits
    at the program's line *site*, less its waits on a limit (a free connection of
    urllib3's pool, a Pool's slot, a lock): the limit's finding tells those (an unseen
    gateway's 1 200 registry lookups through a blocking pool of 4 waited 680 s for a
    connection and 48 s for answers: all of it was told as the cache's, first, and the
    pool not at all)."""
    rows = _answer_rows(profile, site)
    if not rows:
        return 0.0, 0, []
    made = sum(w.count for w in rows if awaits_answer(w))
    return sum(event_wait(w) for w in rows), made, list(max(rows, key=event_wait).stack)


def _answer_rows(profile: Profile, site: Any) -> list[Any]:
    """rows_at's waits at *site* less its waits on a limit (waited_at)."""
    return [w for w in rows_at(profile, site) if not is_limit_wait(w)]


def rows_at(profile: Profile, site: Any) -> list[Any]:
    """The ``waits`` rows at the program's line *site* (a pool watch's ``path:line:name``),
    matched by file and line: the pool watch names the function by its code's name,
    stacks by its qualified name."""
    if not isinstance(site, str):
        return []
    line = site.rsplit(":", 1)[0]
    return [w for w in profile.waits if w.stack
            and (user_site(w.stack).user or "").rsplit(":", 1)[0] == line]
