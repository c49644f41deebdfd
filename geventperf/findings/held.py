"""What the holders of a limit waited on, for the limit findings to say.

A full gevent ``Pool`` says its size paced the work, and that is true whatever its
jobs do; but the lever a reader needs is what each slot was held for.  Twenty jobs
each waiting 150 ms on an upstream's reply fill a Pool(20) just as twenty jobs stuck
on a slow lock do, and a report that only says "a larger Pool" sends the reader to
the client when the time is the upstream's (an unseen workload, a price sync against
a 150 ms pricing service, was told exactly that).  So the finding names the line the
jobs mostly waited at, how long each wait took, and -- when that line made requests
-- how long the upstream took to answer them, from poolwatch's timed responses.

A wait stack knows only the last greenlet that left it, so the jobs' waits are the
waits at the stacks greenlets of their names were the last to leave: a pool's jobs
share their stacks, and any one of them stands for all.
"""

from __future__ import annotations

import keyword
import re
from itertools import accumulate
from typing import Any, Iterable, NamedTuple

from geventperf.findings.common import (
    CONNECTION_GREENLET,
    REQUEST_FRAME,
    _base_name,
    _count,
    _events,
    _figures,
    _greenlets_named,
)
from geventperf.findings.failures import answered
from geventperf.findings.limits import awaits_answer, event_wait
from geventperf.findings.loop import SLEEP_FRAME
from geventperf.frames import is_idle_server_wait, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import OTHER_POOLS, count_rows, status_pairs
from geventperf.profile import CALL_FOR, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# An upstream queues what it cannot serve at once when its answers' heads came at
# least this many times later with the most requests in flight than with at most a
# quarter as many: one with room answers as fast, whatever its latency, while one past
# its capacity answers later by what is queued ahead (an unseen digest's 40 fetches in
# flight waited 103 ms for heads that came in 15-38 ms while its pool filled, and a
# larger pool, the report's fix, gained nothing).  The light heads are few (a pool's
# first requests, as it fills), so their mean is the noisy side: with 4 of them, a
# latency spread like a lognormal's of sigma 0.5 puts it under half the true mean
# about one time in 200 (simulated).
QUEUED_RATIO = 2.0
# ... or this many times, from this many light heads on, where the mean is steadier (8
# of them fall under two thirds of the true mean about one time in 50; an unseen
# notifier's 32 in flight to an upstream with 4 database connections: 88 ms against
# 54 ms for 16 light heads, and a larger pool gained nothing).
QUEUED_RATIO_MANY = 1.5
QUEUED_MANY_LIGHT = 8
# ... from at least this many heads at the most in flight, and this many at a quarter
# or less (a pool of 16 filling at once sends 4 with at most 4 in flight).
QUEUED_MIN_LOADED = 10
QUEUED_MIN_LIGHT = 3
# A host's slow tail: its heads at least this many times the median's bucket's top
# (a power of two) ...
TAIL_FACTOR = 8
# ... at least this many, at most this share of the heads timed (a tail, not the
# bulk), from at least this many timed ...
TAIL_MIN = 5
TAIL_COUNT_SHARE = 0.1
TAIL_MIN_TIMED = 20
# ... and at least this share of their time.  An unseen sync's upstream answered in
# 5 ms but stalled 800 ms once in fifty: 2 % of the heads, 73 % of their time, averaging
# 22 ms; told "a larger Pool" (+38 %), where a per-attempt timeout and retry took 44 %
# off the run without adding load to a stalling upstream.
TAIL_TIME_SHARE = 0.3
# Responses timed to their head below which a host's mean is no figure to quote.
MIN_TIMED = 5
# ... and the share of all timed responses that host must have: the jobs' requests
# were then most likely to it (a chatty host elsewhere must not lend its latency).
DOMINANT_SHARE = 0.8
# ... and at most this many times the waits the jobs made at their line: more answers
# than that came from other lines' calls (an unseen job's 160 lookups were quoted with
# another stage's 721 answers from its own host).
CALLS_SLACK = 2.0
# ... and the line's own waits must hold that many heads at that mean, give or take
# this factor: else the host's mean is other lines' slower answers (an unseen
# ingester's 400 posts waited 3.6 s, 9 ms each, while the host's 480 answers, its 80
# page fetches' 196 ms included, averaged 41 ms: 4.5 times more).  A head's time also
# holds what no wait row of the line does (its CPU, a connection's set-up waited
# elsewhere in the stack), hence the wide slack.
HEADS_SLACK = 4.0


def jobs_waits(profile: Profile, gids: Iterable[Any],
               exclude: set[tuple[str, ...]]) -> tuple[list[str], list[Any]]:
    """The names of the greenlets *gids*, and the ``waits`` rows they waited at outside
    the stacks in *exclude* (the limit's own waits)."""
    ids = {gid for gid in gids if gid is not None}  # (a stack with no greenlet recorded)
    names = sorted({_base_name(g.name) for g in profile.greenlets if g.id in ids})
    if not names:
        return names, []
    # their stacks: the last to leave one may be a job that finished and was folded
    # into its name's entry (another id), so by name
    ids |= {g.id for g in profile.greenlets if _base_name(g.name) in names}
    mine = {tuple(r.stack) for r in profile.runs if r.greenlet in ids}
    return names, [w for w in profile.waits if tuple(w.stack) in mine
                   and tuple(w.stack) not in exclude and w.count
                   and not is_idle_server_wait(w.stack)]


# The jobs' sleeps at one line of the program's from this share of all their waiting on
# tell their story: a back-off on a fifth of the calls slept as long as the calls waited
# (25.0 s against 25.5 s in an unseen retry client), and was the bigger cause.
SLEPT_SHARE = 0.3


class Slept(NamedTuple):
    """The jobs' sleeps at one line of the program's (every stack that reached it)."""

    line: str
    waited: float
    count: int
    rows: list[Any]  # the waits rows that slept there


def jobs_asleep(rows: list[Any]) -> Slept | None:
    """The program's line where the jobs' *rows* (jobs_waits) slept most in gevent.sleep
    called from it, when those sleeps hold at least SLEPT_SHARE of all their waiting;
    else None."""
    slept = heaviest_sleep(rows)
    # (sleeps that never waited, gevent.sleep(0), pace nothing)
    if slept is None or not slept.waited > 0 \
            or slept.waited < SLEPT_SHARE * sum(event_wait(w) for w in rows):
        return None
    return slept


def heaviest_sleep(rows: list[Any]) -> Slept | None:
    """The program's line whose gevent.sleep calls (asleep_in_program) slept most among
    *rows*; None when none slept there."""
    by_line: dict[str, list[Any]] = {}
    for w in rows:
        if asleep_in_program(w):
            by_line.setdefault(user_site(w.stack).user, []).append(w)
    if not by_line:
        return None
    line, sleeps = max(by_line.items(), key=lambda kv: sum(event_wait(w) for w in kv[1]))
    return Slept(line, sum(event_wait(w) for w in sleeps), sum(w.count for w in sleeps),
                 sleeps)


# Error answers (status 400 or more) from this share of all calls on are told beside a
# sleep: most likely what it backs off from (a fifth of the answers were 503s in the
# unseen retry client).
ERROR_ANSWERS_TOLD = 0.05


class ErrorAnswers(NamedTuple):
    """The answers with an error status (400 or more) over all pools."""

    errors: int
    calls: int
    shown: str  # the commonest statuses: "503 x266, 429 x3"

    def told(self, tail: str) -> str:
        """The sentence on them, *tail* after "most likely what the sleeps back off
        from"."""
        return (f" The upstreams answered {self.errors} of {self.calls} requests with an "
                f"error status ({self.shown}): most likely what the sleeps back off "
                f"from{tail}.")


def error_statuses(profile: Profile) -> tuple[dict[str, int], int]:
    """The answers with an error status over all pools (the pool watch keeps only
    those), by status, and the calls made in all."""
    statuses: dict[str, int] = {}
    calls = 0
    for e in _events(profile, POOL_EVENT):
        calls += _count(e, "calls")
        for status, n in status_pairs(e.get("statuses")):
            statuses[status] = statuses.get(status, 0) + n
    return statuses, calls


def error_counts(profile: Profile) -> ErrorAnswers | None:
    """The error answers over all pools, when they were at least ERROR_ANSWERS_TOLD of
    the calls; None otherwise."""
    statuses, calls = error_statuses(profile)
    errors = sum(statuses.values())
    if not calls or errors < ERROR_ANSWERS_TOLD * calls:
        return None
    return ErrorAnswers(errors, calls, shown_statuses(statuses))


def shown_statuses(statuses: dict[str, int]) -> str:
    """``404 x190, 503 x2``: the three commonest error statuses with their counts."""
    return ", ".join(f"{status} x{n}" for status, n in
                     sorted(statuses.items(), key=lambda kv: -kv[1])[:3])


def error_answers(profile: Profile) -> str:
    """A sentence on the answers with an error status over all pools, when they were
    at least ERROR_ANSWERS_TOLD of the calls; "" otherwise."""
    found = error_counts(profile)
    return found.told(", each failure holding a slot for a whole sleep") if found else ""


def asleep_in_program(wait: Any) -> bool:
    """Whether a ``waits`` row slept in gevent.sleep called straight from the program's
    own line: a timer the program set (a back-off, a rate limiter's poll, a cool-down),
    not a library's (urllib3's Retry back-off: retry-backoff's)."""
    if wait is None or not wait.stack \
            or SLEEP_FRAME.search(wait.stack[0].replace("\\", "/")) is None:
        return False
    site = user_site(wait.stack)
    return site.user is not None and site.library == wait.stack[0]


# A call that waits for several greenlets to end (gevent.joinall), made at the
# program's own line: the jobs waited for greenlets they started, all of them.  Not a
# Greenlet's join: one greenlet, often with a timeout (a hedge's wait for its first).
JOIN_CALLS = frozenset({"joinall"})


def joined_in_program(wait: Any) -> bool:
    """Whether a ``waits`` row waited at the program's own line for greenlets to end."""
    if wait is None or not wait.stack or wait.call not in JOIN_CALLS:
        return False
    site = user_site(wait.stack)
    return site.library is None and site.user is not None


def jobs_waited(profile: Profile, gids: Iterable[Any], exclude: set[tuple[str, ...]],
                who: str = "The jobs", held: str = "held their slots mostly waiting",
                each: str = "what each slot was held for",
                waits: tuple[list[str], list[Any]] | None = None,
                per_job: bool = False) -> str:
    """A sentence on what the greenlets *gids* mostly waited at, outside the stacks in
    *exclude* (the limit's own waits), with their upstream's time to answer when that
    was a request; "" when they left no such waits.  *who*, *held* and *each* word it
    for the limit: a pool's slots by default.  *waits*: jobs_waits' answer, when the
    caller has it.  *per_job*: say so when each greenlet made many calls at that line
    (_calls_each)."""
    names, rows = waits if waits is not None else jobs_waits(profile, gids, exclude)
    if not rows:
        return ""
    heaviest = max(rows, key=event_wait)
    site = user_site(heaviest.stack)
    where = site.user or "an unrecorded place"
    # the library function it waited in, or the call a C-implemented one left as the
    # stack's own frame (joinall, a Greenlet's join)
    # (not a statement's keyword: a with block's lock is entered, not called by name)
    called = site.library.rsplit(':', 1)[-1] if site.library else heaviest.call
    call = f" ({called})" if called and not keyword.iskeyword(called) else ""
    # (a joinall wakes once per greenlet that ended: its waits are not its calls)
    waits_word = "wake-ups" if heaviest.call in JOIN_CALLS else "waits"
    text = (f" {who} ({', '.join(repr(n) for n in names[:2])}) {held} "
            f"at {where}{call}: {heaviest.count} {waits_word} of "
            f"{event_wait(heaviest) / heaviest.count * 1e3:.0f} ms on average")
    upstream = line_upstream(profile, rows, heaviest)
    each_made = _calls_each(profile, names, rows, site.user) if per_job else ""
    if upstream is None:
        return text + "." + each_made
    host, answered, mean_s = upstream
    return (text + f"; their requests to {host} took {mean_s * 1e3:.0f} ms to the "
            f"response head on average ({answered} timed): the upstream's time to "
            f"answer (the network's included), and {each}." + each_made
            + tail_told(profile, host) + repeated_gets(profile, host))


class Tail(NamedTuple):
    """A host's slowest answers: few, and most of the time to its heads."""

    count: int  # heads in the tail
    timed: int  # heads timed in all
    floor_ms: float  # the tail's heads took at least this
    mean_s: float  # ... and this on average
    median_ms: float  # the middle bucket's mean
    share: float  # the tail's share of the time to the heads


def tail_start(counts: list[float]) -> tuple[int, int]:
    """(the median's bucket, the first bucket of the tail) of a ``heads_by_time``
    table's *counts* (not all zero): bucket i holds 2**(i-1) to 2**i ms, so the tail
    starts TAIL_FACTOR times above the middle bucket's top, 2**middle ms."""
    timed = sum(counts)
    middle = next(i for i, seen in enumerate(accumulate(counts)) if 2 * seen >= timed)
    return middle, middle + TAIL_FACTOR.bit_length()


def slow_tail(profile: Profile, host: str) -> Tail | None:
    """*host*'s tail, from its pool watch record's ``heads_by_time``: the heads at least
    TAIL_FACTOR times the median's bucket's top, at least TAIL_MIN of them, at most
    TAIL_COUNT_SHARE of the heads timed (at least TAIL_MIN_TIMED) and at least
    TAIL_TIME_SHARE of their time.  None when there is no such tail, or the record
    cannot say."""
    buckets = _buckets(profile, host, "heads_by_time")
    timed = sum(b[0] for b in buckets or [])
    if buckets is None or timed < TAIL_MIN_TIMED:
        return None
    middle, start = tail_start([b[0] for b in buckets])
    tail = buckets[start:]
    count, seconds = sum(b[0] for b in tail), sum(b[1] for b in tail)
    total = sum(b[1] for b in buckets)
    if count < TAIL_MIN or count > TAIL_COUNT_SHARE * timed or not total > 0 \
            or seconds < TAIL_TIME_SHARE * total:
        return None
    return Tail(count, timed, float(1 << (start - 1)), seconds / count,
                buckets[middle][1] / buckets[middle][0] * 1e3, seconds / total)


# What tail_told says, found in a message by the fixes that then lead with the tail ...
TAIL_TOLD = "that mean hides a tail"
# ... as pool-full's does: each straggler holds a slot while it lasts.
TAIL_FIX = (
    "Fix: first cut that tail, which holds a slot while each straggler lasts: a read "
    "timeout a few times the usual answer with a retry (requests' timeout=(connect, "
    "read) and a Retry(read=1) on the adapter) sends a fresh request instead of waiting "
    "one out, or hedge (a second request once the first has taken a few times the usual "
    "answer, the first answer wins); and find what makes the upstream stall. Then: ")


def tail_told(profile: Profile, host: str) -> str:
    """A sentence on *host*'s slow tail (slow_tail); "" without one."""
    tail = slow_tail(profile, host)
    if tail is None:
        return ""
    return (f" But {TAIL_TOLD}: {tail.count} of the {tail.timed} answers "
            f"({tail.count / tail.timed:.0%}) took {tail.floor_ms:g} ms or more, "
            f"{tail.mean_s:.3f} s on average, against a median of about "
            f"{tail.median_ms:.0f} ms, and were {tail.share:.0%} of the time to the heads.")


def _buckets(profile: Profile, host: str, key: str) -> list[list[float]] | None:
    """*host*'s pool watch record's *key* table of [count, seconds] buckets; None when
    there is no such record or table, or a bucket is not two finite, non-negative
    numbers (profiles are untrusted)."""
    event = _host_event(profile, host)
    buckets = event.get(key) if event is not None else None
    if not isinstance(buckets, list) or any(_figures(b, 2) is None for b in buckets):
        return None
    return buckets  # as recorded: the counts stay ints, as the messages show them


def _host_event(profile: Profile, host: str) -> dict[str, Any] | None:
    """*host*'s pool watch record; None without one."""
    return next((e for e in _events(profile, POOL_EVENT) if e.get("pool") == host), None)


# A greenlet of its own (a batcher, a dispatcher) whose waits at one hand-off of the
# program's (a queue's get) held at least this share of its life, while the jobs waited
# at a hand-off for what it sets: both waited, and what ended its waits (a batch's
# linger running out, a collection timeout) paced the jobs (an unseen order enricher's
# audit batcher waited 200 ms for batches of 50 that never filled while its 16 workers
# each waited 203 ms for their records' batch; "a larger Pool" gained 41 % by filling
# the batches faster, a 5 ms linger 63 %).
LINGER_SHARE = 0.5
# ... living at least this share of the run (a helper kept through it, not a job).
LINGER_LIFE_SHARE = 0.5


class Linger(NamedTuple):
    """A lone greenlet the jobs most likely waited for, itself waiting at one line."""

    name: str
    line: str
    waited: float
    count: int
    life: float


# A greenlet of its own that slept (gevent.sleep at the program's line) at least this
# share of its life, while the jobs waited at a queue's get: a pacer handing out
# permits at a rate (a quota's), or a producer on a timer: its pace is the jobs' (an
# unseen quota client's pacer put a permit every 40 ms for 32 workers: told "a larger
# Pool", which gained nothing).
PACER_SLEEP_SHARE = 0.5


def pacing_sleeper(profile: Profile, jobs_line: Any, skip: set[Any]) -> Linger | None:
    """The greenlet (not in *skip*: the jobs waiting) that slept most at a line of
    the program's, PACER_SLEEP_SHARE of its life of at least LINGER_LIFE_SHARE of the run,
    while the jobs' heaviest wait *jobs_line* was a queue's get; else None."""
    from geventperf.findings.handoff import is_handoff, stacks_left
    if jobs_line is None or jobs_line.call not in ("get", CALL_FOR) \
            or not is_handoff(jobs_line) or not profile.duration_s:
        return None
    rows = {tuple(w.stack): w for w in profile.waits if w.count and asleep_in_program(w)}
    best = None
    for gid, stacks in stacks_left(profile).items():
        g = profile.greenlet(gid)
        # (a server's connection asleep in its handler is that server's time to answer
        # a call: an in-process stand-in upstream's latency, not a pacer)
        if g is None or gid == profile.hub.get("id") or gid in skip \
                or CONNECTION_GREENLET in (g.name or ""):
            continue
        life = g.run_s + g.wait_s
        slept = heaviest_sleep([rows[s] for s in stacks if s in rows])
        if slept is None or life < LINGER_LIFE_SHARE * profile.duration_s \
                or slept.waited < PACER_SLEEP_SHARE * life:
            continue
        if best is None or slept.waited > best.waited:
            best = Linger(_base_name(g.name), slept.line, slept.waited, slept.count, life)
    return best


def lingering_setter(profile: Profile, jobs_line: Any, skip: set[Any]) -> Linger | None:
    """The greenlet (not in *skip*: the jobs and their spawners) that waited most at a
    hand-off of the program's own, when that wait held LINGER_SHARE of its life of at
    least LINGER_LIFE_SHARE of the run, while the jobs' heaviest wait *jobs_line* (a
    waits row) was a hand-off too; else None.  Who woke whom is not recorded: the jobs
    waited for someone, and this one waited itself most of the time."""
    # Imported here: handoff.py builds on limits, as this module does.
    from geventperf.findings.handoff import is_handoff, stacks_left
    if jobs_line is None or not is_handoff(jobs_line) or not profile.duration_s:
        return None
    hub = profile.hub.get("id")
    rows = {tuple(w.stack): w for w in profile.waits if w.count and is_handoff(w)
            and user_site(w.stack).user and not is_idle_server_wait(w.stack)}
    best = None
    for gid, stacks in stacks_left(profile).items():
        g = profile.greenlet(gid)
        if g is None or gid == hub or gid in skip or g.parent is None:
            continue
        life = g.run_s + g.wait_s
        mine = [rows[s] for s in stacks if s in rows and s != tuple(jobs_line.stack)]
        if life < LINGER_LIFE_SHARE * profile.duration_s or not mine:
            continue
        top = max(mine, key=event_wait)
        if event_wait(top) >= LINGER_SHARE * life \
                and (best is None or event_wait(top) > best.waited):
            best = Linger(_base_name(g.name), user_site(top.stack).user, event_wait(top),
                          top.count, life)
    return best


# Calls per job at one line of the program's from which a pool's jobs are told as
# walking pages or items one call at a time: an unseen ledger export's 16 jobs made 80
# cursor-page calls each at one line (the API's default page of 25 entries), were told
# "a larger Pool", and asking for pages of 500 cut the run 4x; an unseen notification
# service's jobs looked up each of an event's 4-12 recipients in turn, 8 on average,
# were told "a larger Pool" too, and its batch endpoint cut the run 57 %.
CALLS_EACH_TOLD = 4
# The words that tell them (pool-full's fix then starts with fewer, larger calls).
CALLS_EACH_TOLD_WORDS = "at that line, one after another"


def jobs_done(profile: Profile, names: Iterable[str]) -> tuple[int, str]:
    """How many jobs the greenlets of *names* did, and what one is called.  A server's
    connection greenlet serves request after request on a kept-alive connection, so
    its jobs are the requests the in-process WSGI server answered (0 when that is not
    known: no pywsgi server, or more than one, whose answers are not told apart); any
    other greenlet is one job (an unseen order service's handlers, 16 connections, were
    told "50 calls per job" where each request made 5.6)."""
    names = set(names)
    if names and all(CONNECTION_GREENLET in name for name in names):
        served = _events(profile, SERVER_EVENT)
        one = served[0] if len(served) == 1 and served[0].get("servers") == 1 else {}
        count = one.get("served")
        return (count if isinstance(count, int) else 0), "request served"
    return _greenlets_named(profile, names), "job"


def served_in_process(profile: Profile) -> int:
    """The requests the program's own pywsgi servers answered (0 when it ran none)."""
    return sum(count for e in _events(profile, SERVER_EVENT)
               if isinstance(count := e.get("served"), int))


def calls_at(rows: Iterable[Any], line: str | None) -> int:
    """The calls made at the program's *line* whose answers were awaited (the heads of
    responses), from the ``waits`` rows *rows*."""
    return sum(w.count for w in rows if user_site(w.stack).user == line
               and awaits_answer(w)) if line is not None else 0


def _calls_each(profile: Profile, names: list[str], rows: list[Any], line: str | None,
                gain: str = "every slot is held for fewer round trips",
                subject: str = "That is") -> str:
    """A sentence starting with *subject* when the greenlets of *names* made at least
    CALLS_EACH_TOLD calls per job on average (jobs_done) at the program's *line*, one
    after another: the lever is fewer, larger calls, with *gain*; "" otherwise."""
    jobs, unit = jobs_done(profile, names)
    calls = calls_at(rows, line)
    if not jobs or calls < CALLS_EACH_TOLD * jobs:
        return ""
    return (f" {subject} {calls / jobs:.0f} calls per {unit} {CALLS_EACH_TOLD_WORDS} (a "
            "greenlet waits on one call at a time): if they walk pages of a listing "
            "(each cursor from the answer before), ask for larger pages (a limit= or "
            f"page_size= parameter) or use a batch endpoint, and {gain}; if the items are "
            f"independent, fetch them together inside the {unit.split()[0]}.")


# A host's GET requests are told as repeats from this many on, when they asked for each
# different URL at least REPEATS_TOLD times on average: the same answers fetched again
# (an unseen worker's lru_cache keyed on a trace id fetched 15 profiles 240 times, and
# was told "a larger Pool"; keyed on the user alone, the run took 2.4x less).
REPEATS_MIN_GETS = 20
REPEATS_TOLD = 4.0
# One-off GETs (geventperf.oneoffurls: values new at every request in the query) are
# told from this many per thing asked for, on average: fewer than REPEATS_TOLD, as the
# URLs that never repeat show the cache's key is wrong, not just small (an unseen
# podcast crawler's three passes checked each file three times: keyed on the file, its
# run took 44 % less); more than 2, which a cache keyed right makes at a cold start, two
# workers missing the same thing at once.
ONE_OFF_REPEATS = 2.5
# Not when a request's answers' Content-Length changed from one answer to the next at
# least this share of its calls: the answer changed (a long poll for events, a feed), and
# a cache would serve stale answers for nothing (an unseen webhook relay's broker poll,
# 719 calls whose answers held different events, was told to keep the answer).
ANSWERS_CHANGED_SHARE = 0.25
# The words that tell such a cache (a limit's fix then starts with it).
CACHE_TOLD = "a cache in front of the call"


def repeats_told(profile: Profile, any_host: bool = False) -> str:
    """repeated_gets of the host that answered the most GET requests (which host a line
    called is not recorded: a job's calls in turn are most likely to it); with
    *any_host*, of the host whose repeats a cache would skip most, named with its line
    (requests' CPU in a saturated loop is every host's: an unseen beacon collector's
    campaign lookups, 2 117 GETs for 24 URLs, were told second, after "82 % of the CPU
    inside requests", whose cure gained no more)."""
    hosts = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)
             and e["pool"] != OTHER_POOLS and isinstance(e.get("gets"), int)]
    if not hosts:
        return ""
    if not any_host:
        return _repeats(max(hosts, key=lambda e: e["gets"]))
    # (not a load generator's requests to the program's own service: asked alike by
    # design; an unseen thumbnail service's load clients were named before its cache
    # keyed on signed URLs. Imported here: ownclients builds on limits, as this does.)
    from geventperf.findings.ownclients import load_test_hosts
    loading = {id(e) for e in load_test_hosts(profile)}
    repeating = [(asked[0] - asked[1], asked, sentence, e)
                 for e in hosts if id(e) not in loading
                 for asked, sentence in [(_asked_again(e), _gets_repeats),
                                         (_asked_keyed(e), _keyed_repeats),
                                         (asked_one_off(e), _one_off_repeats)]
                 if asked is not None]
    repeating.sort(key=lambda row: -row[0])
    told = [sentence(event, asked, _to(event))
            for _skipped, asked, sentence, event in repeating[:1]]
    # the next host too: which of two repeating hosts costs more is not known from here
    # (an unseen beacon collector's geo lookups, 2 975 asked again, and its campaign
    # lookups, 2 093, whose cache keyed on click ids was the planted cause)
    told += [f" Likewise the {asked[0]} {'GET ' if sentence is not _keyed_repeats else ''}"
             f"requests{_to(event)}: {asked[1]} different "
             + ("URLs." if sentence is _gets_repeats else "ones (by method, URL and body)."
                if sentence is _keyed_repeats else
                "things, once their one-off values are set aside.")
             for _skipped, asked, sentence, event in repeating[1:2]]
    return "".join(told)


def _asked_keyed(event: dict[str, Any]) -> tuple[int, int] | None:
    """(requests, the different ones by method, URL and body) of a pool watch record that
    sent other methods than GET too (a lookup POSTed: its body says what it asks) and
    whose requests were the same ones again and again (repeated_enough); None
    otherwise (_asked_again tells GETs alone)."""
    keyed, distinct = event.get("keyed"), event.get("distinct_keys")
    if not event.get("others") or not isinstance(keyed, int) or not isinstance(distinct, int) \
            or isinstance(distinct, bool) or distinct <= 0 \
            or not repeated_enough(event, keyed, distinct, gets_only=False):
        return None
    return keyed, distinct


def _keyed_repeats(_event: dict[str, Any], asked: tuple[int, int], to: str) -> str:
    """_gets_repeats' sentence for a record's requests of any method (_asked_keyed): an
    unseen translation proxy's memory lookups, POSTed 5 077 times for 1 121 segments
    behind a cache keyed on each segment's id, were told only as requests' CPU."""
    keyed, distinct = asked
    return (f" The {keyed} requests{to} were only {distinct} different ones by method, URL "
            f"and body ({keyed / distinct:.0f} each on average){_cache_skips(keyed - distinct)}")


def _cache_skips(skipped: int) -> str:
    """The end of a repeats sentence: what a cache would skip, and what it must be keyed
    on."""
    return (f": if the answers hold between calls, {CACHE_TOLD} skips {skipped} of them -- "
            "keyed on what the answer depends on only (a key holding a timestamp, a request "
            "or trace id, or a fresh object never hits).")


def asked_one_off(event: dict[str, Any]) -> tuple[int, int, list[str]] | None:
    """(GET requests of one-off URLs, the different things they asked for, the names of
    the values set aside) of a pool watch record whose one-off GETs asked for the same
    things again and again (ONE_OFF_REPEATS) with answers of unchanging length
    (ANSWERS_CHANGED_SHARE over the most asked); None otherwise (repeated.py's
    _one_off_alike tells them as a finding of their own)."""
    gets, distinct = event.get("oneoff_gets"), event.get("distinct_oneoff")
    changed = event.get("oneoff_changed")
    if not isinstance(gets, int) or not isinstance(distinct, int) or distinct <= 0 \
            or isinstance(distinct, bool) or not (
                isinstance(changed, list) and len(changed) == 3
                and isinstance(changed[0], int) and isinstance(changed[1], int)):
        return None
    if gets < REPEATS_MIN_GETS or gets < ONE_OFF_REPEATS * distinct or writes_state(event) \
            or changed[1] >= ANSWERS_CHANGED_SHARE * changed[0]:
        return None
    return gets, distinct, [str(name) for name, _n in count_rows(event.get("set_aside"))]


def _one_off_repeats(_event: dict[str, Any], asked: tuple[int, int, list[str]],
                     to: str) -> str:
    """_gets_repeats' sentence for a record's one-off GETs (asked_one_off)."""
    gets, distinct, names = asked
    return (f" The {gets} GET requests{to} each carried values new at every request "
            f"({', '.join(names)}), and once those are set aside asked for only {distinct} "
            f"different things ({gets / distinct:.0f} each on average): a cache keyed on the "
            f"whole URL never hits; keyed on what was asked for, it skips {gets - distinct} "
            "of them.")


def _to(event: dict[str, Any]) -> str:
    """" to http://host:80 (from app.py:12:get)": a pool watch record's host and the
    line that made most of its first calls."""
    sites = count_rows(event.get("call_sites"))
    return f" to {event['pool']}" + (f" (from {sites[0][0]})" if sites else "")


def repeated_gets(profile: Profile, host: str) -> str:
    """_repeats of *host*'s pool watch record; "" without one."""
    event = _host_event(profile, host)
    return "" if event is None else _repeats(event)


def _repeats(event: dict[str, Any], to: str = "") -> str:
    """A sentence on the GET requests of a pool watch record that asked for the same
    URLs again and again, with a cache as the fix ("Those N GET requests ...", or "The N
    GET requests{to} ..."); "" when they did not, or when the record does not say."""
    asked = _asked_again(event)
    return "" if asked is None else _gets_repeats(event, asked, to)


def _gets_repeats(event: dict[str, Any], asked: tuple[int, int], to: str) -> str:
    """_repeats' sentence, for the *asked* (GETs, different URLs) of _asked_again."""
    gets, distinct = asked
    return (f" {'The' if to else 'Those'} {gets} GET requests{to} asked for only "
            f"{distinct} different URLs "
            f"({gets / distinct:.0f} each on average{most_asked(event)})"
            f"{_cache_skips(gets - distinct)}")


# A health, readiness or metrics endpoint: asked again and again by design, its answer
# the state of now (an unseen reconciliation job's probe polled its own /healthz and
# /metrics 298 times and was told to cache them, first, ahead of its real cache bug).
PROBE_PATH = re.compile(r"/(?:healthz?|health-?check|readyz?|readiness|livez?|liveness|ping"
                        r"|status|metrics|heartbeat)/?$", re.IGNORECASE)


def is_probe(url: Any) -> bool:
    """Whether *url* (a URL, a path, or a pool watch key such as "GET /healthz") asks a
    health, readiness or metrics endpoint (PROBE_PATH)."""
    if not isinstance(url, str):
        return False
    path = url.rpartition(" ")[2].split("?", 1)[0].split("#", 1)[0]
    return PROBE_PATH.search(path) is not None


def probes_only(event: dict[str, Any]) -> bool:
    """Whether the GETs a pool watch record counted most were all probes (is_probe)."""
    top = [row[0] for row in event.get("top_gets") or [] if isinstance(row, list) and row]
    return bool(top) and all(is_probe(url) for url in top)


def _asked_again(event: dict[str, Any]) -> tuple[int, int] | None:
    """(GET requests, the different URLs) of a pool watch record whose GETs asked for
    the same URLs again and again (REPEATS_MIN_GETS, REPEATS_TOLD), not in one burst per
    URL (one_burst_each), from a host it does not write to (writes_state); counted past
    its URL table by its keyed requests' hashes where it sent GETs only (an unseen flag
    service's 4 173 lookups for 500 users behind a cache whose TTL was read in
    milliseconds: too many URLs to count one by one); None otherwise."""
    if probes_only(event):
        return None
    gets, distinct = event.get("gets"), event.get("distinct_gets")
    if not isinstance(distinct, int) and not event.get("others") \
            and event.get("keyed") == gets:
        distinct = event.get("distinct_keys")  # (a GET's key: its URL)
    if not isinstance(gets, int) or not isinstance(distinct, int) or distinct <= 0 \
            or not repeated_enough(event, gets, distinct, gets_only=True):
        return None
    return gets, distinct


def repeated_enough(event: dict[str, Any], gets: int, distinct: int, gets_only: bool
                    ) -> bool:
    """Whether a host's *gets* requests for *distinct* different ones are repeats worth
    telling: REPEATS_MIN_GETS of them, REPEATS_TOLD each on average, not each one's
    burst of duplicates in flight (one_burst_each: counted for GETs, so only when
    *gets_only*), from a host the program does not write to (writes_state)."""
    return gets >= REPEATS_MIN_GETS and gets >= REPEATS_TOLD * distinct \
        and not (gets_only and one_burst_each(event, gets, distinct)) \
        and not writes_state(event)


# A host's repeated GETs are one burst per URL -- a cold cache's stampede, not a cache
# that misses -- when at least this share of them were sent while one alike was in
# flight and each URL was asked no more times than the most sent at once (an unseen
# weather service's 24 workers asked each of 80 stations about 5 times at start-up,
# all at once, before the first answer filled the cache that served the rest of the
# run: told "a cache in front of the call"; merging them gained nothing).
BURST_SHARE = 0.9


def one_burst_each(event: dict[str, Any], gets: int, distinct: int) -> bool:
    """Whether a host's *gets* GETs for *distinct* URLs were each URL's one burst of
    duplicates in flight (BURST_SHARE): duplicate-in-flight's story, if any."""
    duplicates, peak = event.get("duplicates"), event.get("duplicate_peak")
    return isinstance(duplicates, int) and isinstance(peak, int) \
        and duplicates >= BURST_SHARE * (gets - distinct) and gets <= peak * distinct


# A host the program also writes to, varied writes at least this share of its GETs:
# its GETs read state the program changes (a reconcile loop reading each resource's
# actual state back after its updates, a read-modify-write), which no cache may keep
# (an unseen controller's reads of its agents' state, 4-13 % of its requests to them
# writes, were told "cache them" in all five of its programs, two of them planted
# elsewhere).  A host of lookups gets no writes at all.
WRITES_SHARE = 0.01


def writes_state(event: dict[str, Any]) -> bool:
    """Whether a host's record shows the program writing to it (WRITES_SHARE): requests
    of other methods than GET, at least half of them different ones (not one token's
    POST again and again), or too many to count."""
    others, gets = _count(event, "others"), _count(event, "gets")
    varied = event.get("distinct_sent")
    return others >= WRITES_SHARE * gets > 0 and (varied is None or 2 * varied >= others)


def most_asked(event: dict[str, Any]) -> str:
    """"; the most asked, URL, N times" from a pool watch record's ``top_gets``."""
    top = event.get("top_gets") or []
    return (f"; the most asked, {top[0][0]}, {top[0][1]} times"
            if top and isinstance(top[0], list) and len(top[0]) == 2 else "")


def line_upstream(profile: Profile, rows: list[Any],
                  heaviest: Any) -> tuple[str, int, float] | None:
    """_upstream for the line of *heaviest*, the jobs' heaviest of their wait *rows*,
    when it waited inside a request; None otherwise."""
    if not any(REQUEST_FRAME.search(f) for f in heaviest.stack):
        return None
    line = user_site(heaviest.stack).user
    return _upstream(profile, heaviest.count,
                     sum(w.wait_s for w in rows if user_site(w.stack).user == line))


class Queued(NamedTuple):
    """A host that answered later the more requests were in flight to it: its mean
    time to a head with few in flight (at most *light_in_flight*) and with many."""

    host: str
    light_in_flight: int
    light_ms: float
    loaded_in_flight: tuple[int, int]
    loaded_ms: float


def upstream_queued(profile: Profile, host: str) -> Queued | None:
    """Whether *host* queued what it could not serve at once, from its pool watch
    record's ``heads_by_load``: the heads of the requests sent with the most in flight
    (a bucket of at least QUEUED_MIN_LOADED) came at least QUEUED_RATIO times later
    (QUEUED_RATIO_MANY from QUEUED_MANY_LIGHT on) than those sent with at most a quarter
    as many (at least QUEUED_MIN_LIGHT: a pool's first requests, as it fills).  None
    when they did not, or the record cannot say."""
    buckets = _buckets(profile, host, "heads_by_load")
    if buckets is None:
        return None
    loaded = next((i for i in range(len(buckets) - 1, -1, -1)
                   if buckets[i][0] >= QUEUED_MIN_LOADED), None)
    if loaded is None or loaded < 2:
        return None
    # buckets hold 1, 2, 3-4, 5-8, ...: two below, at most a quarter as many in flight
    light = buckets[:loaded - 1]
    light_n, light_s = sum(b[0] for b in light), sum(b[1] for b in light)
    loaded_n, loaded_s = buckets[loaded]
    ratio = QUEUED_RATIO if light_n < QUEUED_MANY_LIGHT else QUEUED_RATIO_MANY
    if light_n < QUEUED_MIN_LIGHT or not light_s > 0 \
            or loaded_s / loaded_n < ratio * light_s / light_n:
        return None
    return Queued(host, 1 << (loaded - 2), light_s / light_n * 1e3,
                  ((1 << (loaded - 1)) + 1, 1 << loaded), loaded_s / loaded_n * 1e3)


def _upstream(profile: Profile, waits: int, waited: float) -> tuple[str, int, float] | None:
    """(host, responses, mean seconds to their heads) of the host with the most timed
    responses, over new and reused connections, when it has at least MIN_TIMED and
    DOMINANT_SHARE of all, and at most CALLS_SLACK times the *waits* the jobs made at
    their line (a call waits at least once), whose *waited* seconds could hold those
    heads: the requests of the jobs' line were most likely its (which host a line called
    is not recorded); None otherwise."""
    hosts = []
    for e in _events(profile, POOL_EVENT):
        if not isinstance(e.get("pool"), str):
            continue
        count, seconds = answered([e])
        if count:
            hosts.append((e["pool"], count, seconds / count))
    if not hosts:
        return None
    best = max(hosts, key=lambda h: h[1])
    if best[0] == OTHER_POOLS or best[1] < MIN_TIMED \
            or best[1] < DOMINANT_SHARE * sum(h[1] for h in hosts) \
            or best[1] > CALLS_SLACK * waits:
        return None  # (the folded record adds many hosts' figures)
    if best[2] * min(best[1], waits) > HEADS_SLACK * waited:
        return None  # the host's other lines answered slower (an unseen ingester's
        # 9 ms posts and 196 ms page fetches to one host: "took 41 ms")
    return best
