"""A fan-out waiting for its slowest call (``fanout-tail``).

A service that calls several upstreams at once for each request (an ad exchange asking
five bidders, a search fanning out to its shards) spawns a greenlet per call and joins
them: each request lasts as long as its slowest call.  One upstream slow on a tenth of
its calls then sets the pace of every request that reaches it, while its median, and
every other host's, looks healthy; nothing in the mean per host says so.  An unseen
exchange's bidder answered in 300-700 ms on 12 % of its calls, its others in about
30 ms, and its `gevent.joinall(jobs)` without a timeout waited for it every time:
"FINDINGS: none"; bounding the wait by the request's deadline took 47 % off its run.

Evidence, all recorded: the pool watch's ``heads_by_time`` per host (the time to each
response head, in powers of two of a millisecond) and ``call_sites`` (the program's
lines that called it); the greenlets spawned to run the calling function (their
``origin``) and their spawners (``parent``); the spawners' wait for them, a wait at the
program's own line with no frame beneath it (gevent's compiled ``joinall``, ``wait``,
``Greenlet.join`` or ``get``).
"""

from __future__ import annotations

import re

from geventperf.findings.common import (
    FANOUT_TAIL,
    _events,
    _finding,
    block_threshold,
)
from geventperf.findings.held import TAIL_MIN, TAIL_MIN_TIMED, _buckets, tail_start
from geventperf.formats._frames import is_library_frame
from geventperf.frames import parse_frame
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import Finding, Profile

# A host is the fan-out's slow one when at least this share of its timed heads took
# TAIL_FACTOR times the line's median or more: a tail that most requests reaching it pay
# (with five calls per request, a tenth of one host's calls slow is a tenth of the
# requests), not a stray stall.
HOST_TAIL_SHARE = 0.05
# ... and that tail starts at least this many times the host's own median answer: a
# stall on some of its calls, not its usual pace (an unseen timeline service's users
# service answered every call in 60-66 ms, ten times its other hosts' median, and was
# told a tail to put a deadline on: 79 of its answers over 64 ms were its median).
OWN_MEDIAN_FACTOR = 4.0
# ... and its tail holds at least this share of the tail time of all the line's hosts:
# one upstream to name, not a loop that stalled every call alike.
CULPRIT_SHARE = 0.5
# The calling greenlets made at least this many fan-outs (their number over the line's
# hosts), their spawners at least FANOUT_MIN calls each: requests' fan-outs, not a job's
# one-off.
MIN_FANOUTS = 20
FANOUT_MIN = 2.0
COST = ("greenlet-seconds the fan-outs waited for the slow host's tail: its slow answers "
        "times their excess over the line's median answer, at most the spawners' wait "
        "at the join")


def fanout_tails(profile: Profile) -> list[Finding]:
    """Fan-outs whose join waited for one host's slow tail: one finding per calling
    line.  ``cost_s``: COST."""
    threshold = block_threshold(profile)
    out = []
    for site, hosts in _lines_to_hosts(profile).items():
        found = _slow_host(profile, site, hosts)
        if found is None:
            continue
        joined = _joined_at(profile, site, len(hosts))
        if joined is None:
            continue
        join_line, join_wait, calls = joined
        host, tail_count, timed, tail_s, floor_ms, median_ms = found
        excess = tail_count * max(0.0, tail_s / tail_count - median_ms / 1e3)
        cost = min(excess, join_wait)
        if cost < threshold:
            continue
        message = (
            f"A fan-out waited for its slowest call: greenlets spawned {calls} calls at "
            f"{site}, to {len(hosts)} hosts (about {calls // len(hosts)} fan-outs), and "
            f"waited for them at {join_line} ({join_wait:.3f} s in all); {host} answered "
            f"{tail_count} of its {timed} timed calls ({tail_count / timed:.0%}) in "
            f"{floor_ms:g} ms or more, {tail_s / tail_count:.3f} s on average, against a "
            "median of about "
            f"{median_ms:.0f} ms at that line: each fan-out that reached it lasted as long "
            "as that call, whatever the others answered. Fix: bound the wait by what the "
            "caller can afford (a deadline per request: gevent.joinall(jobs, "
            "timeout=remaining), each call's timeout the time left, the late ones killed "
            "or left to finish unread) and answer with what came in time; then find why "
            f"{host} stalls, or hedge its calls (a second request once the first has "
            "taken a few times its usual answer).")
        out.append(_finding(FANOUT_TAIL, message, cost, [join_line, site], host=host,
                            site=site, join_site=join_line, tail=tail_count, timed=timed,
                            join_wait_s=join_wait, hosts=len(hosts), calls=calls,
                            cost_meaning=COST))
    return out


def _lines_to_hosts(profile: Profile) -> dict[str, list[str]]:
    """The program's lines that called at least two hosts, and those hosts."""
    lines: dict[str, list[str]] = {}
    for e in _events(profile, POOL_EVENT):
        host = e.get("pool")
        if not isinstance(host, str) or host.startswith("<"):
            continue
        for site, _n in count_rows(e.get("call_sites")):
            if not site.startswith("<"):
                lines.setdefault(site, []).append(host)
    return {site: hosts for site, hosts in lines.items() if len(hosts) >= 2}


def _slow_host(profile: Profile, site: str, hosts: list[str]
               ) -> tuple[str, int, int, float, float, float] | None:
    """(the host, its tail's heads, its heads timed, their seconds, the tail's floor in
    ms, the line's median answer in ms) when one of *hosts* had the line's slow tail
    (HOST_TAIL_SHARE, CULPRIT_SHARE, TAIL_MIN); None otherwise."""
    tables = {h: b for h in hosts if (b := _buckets(profile, h, "heads_by_time"))}
    if len(tables) < 2:
        return None
    width = min(len(b) for b in tables.values())
    line = [sum(b[i][0] for b in tables.values()) for i in range(width)]
    timed = sum(line)
    if timed < TAIL_MIN_TIMED * len(tables):
        return None
    middle, start = tail_start(line)
    tails = {h: (sum(c for c, _s in b[start:width]), sum(s for _c, s in b[start:width]),
                 sum(c for c, _s in b[:width])) for h, b in tables.items()}
    total = sum(s for _c, s, _t in tails.values())
    host, (count, seconds, heads) = max(tails.items(), key=lambda kv: kv[1][1])
    if count < TAIL_MIN or count < HOST_TAIL_SHARE * heads or not total > 0 \
            or seconds < CULPRIT_SHARE * total:
        return None
    floor_ms = float(1 << (start - 1))
    if floor_ms < OWN_MEDIAN_FACTOR * _median_ms(tables[host]) \
            or _retried(profile, host) >= RETRIED_SHARE * count:
        return None
    in_middle = [b[middle] for b in tables.values() if b[middle][0]]
    median_ms = sum(s for _c, s in in_middle) / sum(c for c, _s in in_middle) * 1e3
    return host, int(count), int(heads), seconds, floor_ms, median_ms


# ... and its slow calls were not mostly urllib3's Retry sleeping inside them: a
# back-off (a Retry-After honoured) is retry-backoff's story, whose cure is not a
# deadline (an unseen translation gateway's backend answered 503 with Retry-After: 1 on
# 8 % of its calls, at once: told first as a slow tail to bound and hedge, which would
# have returned partial documents; answering without the sleep took 42 % off).
RETRIED_SHARE = 0.5


def _retried(profile: Profile, host: str) -> int:
    """The error answers urllib3's Retry retried inside *host*'s calls (the pool
    watch's ``retried``)."""
    return sum(int(n) for e in _events(profile, POOL_EVENT) if e.get("pool") == host
               for _status, n in count_rows(e.get("retried")))


def _median_ms(buckets: list[list[float]]) -> float:
    """The mean answer (ms) in the bucket of *buckets* (``heads_by_time``'s, some
    answer counted) that holds the median answer (tail_start's middle)."""
    count, seconds = buckets[tail_start([c for c, _s in buckets])[0]]
    return seconds / count * 1e3


# gevent's Python code a join waits in beneath the program's line, by module: a Group's
# or Pool's map, imap or join (a fan-out written as group.map(ask, urls) went untold
# while the same one with spawn and joinall was; a compiled joinall has no frame at
# all).  A sleep, a full Pool's add, a queue's get are no join.
JOINING: dict[str, set[str] | None] = {
    "pool.py": {"map", "imap", "imap_unordered", "join", "apply"},  # and __map
    "_imap.py": None,  # any of its frames: an imap's iterator
    "greenlet.py": {"join", "get", "joinall"},
    "_hub_primitives.py": {"wait_on_objects", "iwait_on_objects", "wait", "iwait"},
}
GEVENT_MODULE = re.compile(r"[/\\]gevent[/\\]([\w.]+)$")


def _join_line(stack: list[str]) -> str | None:
    """The program's line a wait of *stack* joined at: its innermost frame, or the first
    under gevent's joining code only (JOINING); None for any other wait."""
    for entry in stack:
        if not isinstance(entry, str):
            return None
        if not is_library_frame(entry):
            return entry
        frame = parse_frame(entry)
        module = GEVENT_MODULE.search(frame.path)
        if module is None or module.group(1) not in JOINING:
            return None
        functions = JOINING[module.group(1)]
        if functions is not None and \
                frame.function.rsplit(".", 1)[-1].lstrip("_") not in functions:
            return None
    return None


def _joined_at(profile: Profile, site: str, width: int) -> tuple[str, float, int] | None:
    """(the join's line, the spawners' wait there, the calls spawned) for the greenlets
    spawned to run *site*'s function (their origin in its file, of its name), when they
    were MIN_FANOUTS fan-outs to the line's *width* hosts or more, each spawner spawning
    FANOUT_MIN or more (a connection's greenlet serves many requests: its fan-outs are
    counted by the calls, not by the spawners), and a wait at a line of that file
    joined them (_join_line); None otherwise."""
    at = parse_frame(site)
    function = at.function.rsplit(".", 1)[-1]
    children = [g for g in profile.greenlets if g.origin
                and (made := parse_frame(g.origin)).path == at.path
                and made.function.rsplit(".", 1)[-1] == function]
    parents = {g.parent for g in children if g.parent is not None}
    if not parents or len(children) < MIN_FANOUTS * width \
            or len(children) < FANOUT_MIN * len(parents):
        return None
    joins: dict[str, float] = {}
    for w in profile.waits:
        top = _join_line(w.stack)
        if w.count and top is not None and parse_frame(top).path == at.path \
                and top != site:
            joins[top] = joins.get(top, 0.0) + (w.event_wait_s or w.wait_s)
    if not joins:
        return None
    line = max(joins, key=joins.__getitem__)
    return line, joins[line], len(children)
