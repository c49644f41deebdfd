"""A greenlet checking for something in a sleep loop (``sleep-poll``), from the timeline.

``while not jobs: gevent.sleep(0.1)``: whatever the loop waits for is seen only when a
sleep ends, on average half an interval after it arrived, and everyone waiting for what
the poller does next (its callers, its consumers) waits with it.  An unseen broker's
long-poll handlers checked their deque every 100 ms: each hop of a job between stages
waited for a tick, and waiting on a queue instead took 73 % off the run, which the
report had told as plain I/O.

Told by its shape, per ``gevent.sleep`` line of the program's, from the timeline's
slices (each slice's ``wait`` says where its greenlet went on to wait):

- most wake-ups find nothing: the greenlet goes straight back to sleep at the same line;
- the others *find*: the greenlet goes on to wait somewhere else, doing what the loop
  waited for;
- and they found it after sleeps as long as the others: a whole interval, so what they
  found had come at any time in it.  A scheduler sleeping in pieces until a job is due
  (``sleep(min(left, 0.01))``) ends each wait with a piece cut to the due time: it is
  punctual, and its finds follow short sleeps.

A ticker (a heartbeat, a token refill, a stream's pace) never finds; a pacer that works
on every tick (a feed follower putting a page per interval) finds nearly every time,
and its pace is the program's choice: neither is told.  A pacer whose work waits
nowhere (a stream generator yielding a batch per tick, which its server sends at once)
goes straight back to sleep after every tick, as an empty poll does, but its wake-ups
work: a poll that found nothing only checked, its slice a few microseconds, a small
part of what a find runs (CHECK_MAX_S, CHECK_SHARE; an unseen venue feed's pacer was
told "5767 of 5807 wake-ups found nothing").  A poll whose work comes about as fast
as its interval finds at most wake-ups, and is told from a few empty ones on
(POLL_MIN_EMPTIES: an unseen long-poll handler checking a job's state every 50 ms for
jobs of 15-55 ms found it after one sleep 639 times in 645, "FINDINGS: none"; an Event
took 35 % off the run).  Polls of a few milliseconds are ``serial-bottleneck``'s
(handoff.is_poll), where they wait for another greenlet's result.

A loop can also poll for free capacity: ``while pending: drop the dead; spawn until 24
run; gevent.sleep(0.1)``.  Its wake-ups all start greenlets, so it has a pacer's shape,
but what it starts tells it apart: each time as many as ended since, up to the same
number at once, and at some wake-ups fewer than that number because some still ran (a
refill; a pacer starting a batch per tick starts the same batch whatever still runs).
Each greenlet that ended left its slot empty until the next wake-up: an unseen job
runner's 24 slots stood empty 30 ms per job on average, and a ``Pool(24)`` took 40 %
off its run, which the report had told as plain I/O.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left, bisect_right
from collections import defaultdict
from typing import Any, NamedTuple

from geventperf.findings.common import (
    SLEEP_POLL,
    _base_name,
    _finding,
    _names,
    block_threshold,
    slice_timeline,
)
from geventperf.findings.handoff import POLL_MAX_SLEEP_S
from geventperf.findings.held import asleep_in_program
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile, greenlet_label

# Wake-ups seen in the timeline at one sleep line before its shape means anything.
POLL_MIN_WAKES = 20
# ... of which at least this many found something: the lateness is summed over finds.
POLL_MIN_FINDS = 5
# ... and at least this many found nothing and slept again (at a line where some
# greenlet both found and slept again: a heartbeat finding on every tick and a watchdog
# that never finds, at one helper's line, are no poll): replies that mostly come within an
# interval leave a few empty wake-ups (an unseen long-poll handler's 6 in 645) ...
POLL_MIN_EMPTIES = 5
# ... whose slices (the check) were short: their median at most this long, or at most
# this share of the finds' (the work; where a slower machine stretches both).  The
# polls told right in unseen programs checked in 2-13 us (0.7-14 % of their finds'
# slices; a test's callers polling a dict, 3.5 us against finds of 9.8), where a
# stream's pacer sending a batch per tick ran 78 us at its "empty" wake-ups (59 % of
# its finds'), and a subscriber's processing pause 486 us (61 %).
CHECK_MAX_S = 30e-6
CHECK_SHARE = 1 / 3
# The sleeps before finds were whole intervals: their median at least this share of
# the median of all the line's sleeps (a scheduler's sleeps cut to the due time are
# half an interval on average).
POLL_WHOLE_SHARE = 0.75
# The sleeps before finds told apart in the message from this many times the median
# sleep on: a back-off that grows between tries.
GROWN_SLEEP = 1.5
# Told from this share of the run in expected lateness on: the share at which
# small-body-reads is told too, a twentieth of the run.
POLL_RUN_SHARE = 0.05
COST_MEANING = ("greenlet-seconds what the poll waited for sat unseen: half the sleep that "
                "found it (the average lateness of a poll) per wake-up that found something")
# A refill: at least this many wake-ups started greenlets ...
REFILL_MIN_WAKES = 5
# ... at least this share of them bringing the greenlets it started and still running
# to the same number (the cap; the last ones, with nothing left to start, fall short) ...
REFILL_AT_CAP_SHARE = 0.8
# ... and at least this many of those while some it started before still ran: a refill
# to the cap, not a batch of the cap's size per tick.
REFILL_MIN_PARTIAL = 2
REFILL_COST_MEANING = ("greenlet-seconds slots stood empty: from the end of each "
                       "greenlet the loop started to its next wake-up, which started "
                       "the next one")
REFILL_FIX = ("Fix: start the next one as soon as one ends -- a gevent.pool.Pool({cap}) "
              "and its spawn(), which waits for a free slot, or its imap_unordered() "
              "over the jobs; or gevent.wait(running, count=1) in place of the sleep. "
              "If the interval is a rate the program owes (so many starts per second), "
              "it is the run's pace, not a fault.")
FIX = ("Fix: wait on what the loop checks, so that it wakes as soon as it is there -- "
       "a gevent.queue.Queue's get(timeout=...) for items, a gevent.event.Event's "
       "wait(timeout) for a flag, an AsyncResult for a result, gevent.wait() or "
       "joinall for greenlets, a lock's or semaphore's acquire(timeout=...) for a slot "
       "tried with acquire(blocking=False) -- or shorten the interval. If it checks "
       "something that cannot wake it (a file, a remote job's status), a shorter "
       "interval, or the remote's long-poll or push, is the fix; if the sleep is a pause "
       "the program owes between pieces of work (a pace, a rate), not a wait for "
       "something, it is the run's pace, not a fault.")


class Poll(NamedTuple):
    row: int            # index of the sleep's ``waits`` row
    wakes: int          # wake-ups from it seen in the timeline
    empties: int        # ... after which the greenlet slept there again
    finds: int          # ... after which it went on to wait elsewhere
    interval_s: float   # median time asleep (and queued) per wake-up
    greenlets: dict[int, int]  # finds per greenlet
    # median time asleep before the wake-ups that found: what was found came at any time
    # in it, so half of it late on average (a back-off that doubles finds after its
    # longest sleeps: an unseen gateway's, polling a semaphore with sleeps growing to
    # 250 ms, was costed at half its 26 ms median sleep, 4x under what the fix saved)
    find_sleep_s: float


def sleep_polls(profile: Profile) -> list[Finding]:
    """One finding per program line polling in a sleep loop (see the module's text).
    ``cost_s``: half an interval per wake-up that found something, scaled from the
    timeline to the line's every sleep."""
    sleeps = _sleep_rows(profile)
    if profile.duration_s <= 0 or not sleeps:
        return []
    timeline = slice_timeline(profile)
    out = []
    floor = max(block_threshold(profile), POLL_RUN_SHARE * profile.duration_s)
    # one finding per line of the program's: a helper polling for its callers sleeps at
    # one line under several callers' stacks (an unseen RPC client's two calls per
    # order were told as two polls at one line)
    by_line: dict[str, list[tuple[Poll, float]]] = defaultdict(list)
    for poll in _polls(sleeps, timeline):
        row = profile.waits[poll.row]
        # the timeline may have dropped slices: its share of finds, over every sleep
        finds = poll.finds * row.count / poll.wakes
        by_line[user_site(row.stack).user or ""].append((poll, finds * poll.find_sleep_s / 2))
    for where, polls in by_line.items():
        cost = sum(c for _p, c in polls)
        if cost < floor:
            continue
        lead_poll = max(polls, key=lambda pc: pc[1])[0]
        row = profile.waits[lead_poll.row]
        sleeps_n = sum(profile.waits[p.row].count for p, _c in polls)
        wakes, empties, found = (sum(getattr(p, f) for p, _c in polls)
                                 for f in ("wakes", "empties", "finds"))
        interval, found_after = lead_poll.interval_s, lead_poll.find_sleep_s
        by_greenlet: dict[int, int] = defaultdict(int)
        for p, _c in polls:
            for gid, n in p.greenlets.items():
                by_greenlet[gid] += n
        who = _names(profile, list(by_greenlet))
        lead = max(by_greenlet, key=lambda g: by_greenlet[g])
        message = (
            f"A loop polled in gevent.sleep at {where}: {who} slept {sleeps_n} times "
            f"there, {interval * 1e3:.0f} ms each, and {empties} of the "
            f"{wakes} wake-ups seen found nothing and slept again; the "
            f"{found} others went on to other work (their next wait was elsewhere): "
            "they found what it checks for"
            + (f", after sleeps of {found_after * 1e3:.0f} ms (median): a sleep that grows "
               "between tries (a back-off)" if found_after > GROWN_SLEEP * interval else "")
            + ". That is seen only when a sleep ends, on average half the sleep that found "
            f"it ({found_after * 1e3 / 2:.0f} ms) after it is there, and every "
            "greenlet waiting for what the poller does next (a caller waiting for its "
            f"answer, a consumer of what it hands on) waits with it. {FIX}")
        out.append(_finding(SLEEP_POLL, message, cost, list(row.stack), greenlet=lead,
                            greenlets=len(by_greenlet), site=where,
                            interval_s=interval, find_sleep_s=found_after,
                            sleeps=sleeps_n,
                            wakes_seen=wakes, finds_seen=found,
                            cost_meaning=COST_MEANING))
    for refill in _refills(profile, sleeps, timeline):
        if refill.empty_s >= floor:
            out.append(_refill_finding(profile, refill))
    return out


def _sleep_rows(profile: Profile) -> set[int]:
    """The ``waits`` rows of gevent.sleep called from the program's own line."""
    return {i for i, w in enumerate(profile.waits) if asleep_in_program(w)}


def _polls(sleeps: set[int], timeline: dict[int, list[Any]]) -> list[Poll]:
    """The sleep lines (``waits`` rows *sleeps*) whose wake-ups in *timeline* have a
    poll's shape, judged greenlet by greenlet: one line can serve several loops (an
    ``every(interval, fn)`` helper running a heartbeat that calls out on every tick
    beside a watchdog that never does: together they looked like one poll)."""
    # per (row, greenlet): time asleep per wake-up, asleep before finds, and the
    # slices that followed the empty wake-ups and the finds
    seen: dict[tuple[int, int], tuple[list[float], ...]] = {}
    for gid, slices in timeline.items():
        for before, woke in zip(slices, slices[1:]):
            if before.wait not in sleeps:
                continue
            asleep, before_finds, checks, works = seen.setdefault(
                (before.wait, gid), ([], [], [], []))
            slept = woke.start_s - before.start_s - before.duration_s
            asleep.append(slept)
            if woke.wait == before.wait:
                checks.append(woke.duration_s)
            elif woke.wait is not None:
                works.append(woke.duration_s)
                before_finds.append(slept)
    polling = {row for (row, _gid), (_a, _b, checks, works) in seen.items()
               if checks and works}  # a greenlet's loop there found, and slept again
    rows: dict[int, tuple[list[float], list[float], list[float], list[float],
                          dict[int, int]]] = {}
    for (row, gid), (asleep, before_finds, checks, works) in seen.items():
        # at a line some greenlet polls, those that only found there polled too (a
        # long-poll handler's connections whose jobs were always done after one sleep)
        if row in polling and works:
            lengths, finds_after, all_checks, all_works, by_greenlet = rows.setdefault(
                row, ([], [], [], [], {}))
            lengths.extend(asleep)
            finds_after.extend(before_finds)
            all_checks.extend(checks)
            all_works.extend(works)
            by_greenlet[gid] = len(works)
    out = []
    for row, (lengths, finds_after, checks, works, by_greenlet) in rows.items():
        if len(lengths) < POLL_MIN_WAKES or len(works) < POLL_MIN_FINDS \
                or len(checks) < POLL_MIN_EMPTIES \
                or statistics.median(checks) > max(CHECK_MAX_S,
                                                   CHECK_SHARE * statistics.median(works)):
            continue
        interval = statistics.median(lengths)
        if interval > POLL_MAX_SLEEP_S \
                and statistics.median(finds_after) >= POLL_WHOLE_SHARE * interval:
            out.append(Poll(row, len(lengths), len(checks), len(works), interval,
                            by_greenlet, statistics.median(finds_after)))
    return out


def without_polls_told(found: list[Finding]) -> list[Finding]:
    """*found* without the sleep-poll findings at a line another finding already tells
    as a poller (queue-full's consumer checking a full queue between sleeps,
    ``poller_site``): one cause, one finding, the one that names who waited for it."""
    told = {f.extra.get("poller_site") for f in found if f.kind != SLEEP_POLL} - {None}
    return [f for f in found if f.kind != SLEEP_POLL or f.extra.get("site") not in told]


class Refill(NamedTuple):
    poller: int         # the greenlet that polled
    row: int            # index of its sleep's ``waits`` row
    wakes: int          # its wake-ups from the sleep seen in the timeline
    starting: int       # ... of which started greenlets
    cap: int            # the number those brought the running ones to
    started: list[int]  # the greenlets it started (seen in the timeline)
    empty_s: float      # slot-seconds from each one's end to the next starting wake-up
    ended: int          # the greenlets whose slot that counts


def _refills(profile: Profile, sleeps: set[int], timeline: dict[int, list[Any]]
             ) -> list[Refill]:
    """The sleep loops (``waits`` rows *sleeps*) that started greenlets at their
    wake-ups with a refill's shape (see the module's text), from *timeline* and the
    greenlets' parents."""
    children: dict[int, list[int]] = defaultdict(list)
    for g in profile.greenlets:
        if g.parent is not None and timeline.get(g.id):
            children[g.parent].append(g.id)
    out = []
    for poller, kids in children.items():
        slices = timeline.get(poller, [])
        windows: dict[int, list[tuple[float, float]]] = defaultdict(list)
        for before, woke, after in zip(slices, slices[1:], [*slices[2:], None]):
            if before.wait in sleeps:  # woke from a sleep: it ran until *after* started
                windows[before.wait].append(
                    (woke.start_s, after.start_s if after is not None else float("inf")))
        for row, spans in windows.items():
            # the greenlets this loop started: first run in one of its wake-ups' spans
            # (not those it started before the loop, such as a server it runs)
            mine = [k for k in kids if _within(spans, timeline[k][0].start_s)]
            refill = _refill(poller, row, spans, mine, timeline)
            if refill is not None:
                out.append(refill)
    return out


def _within(spans: list[tuple[float, float]], t: float) -> bool:
    """Whether *t* falls in one of *spans* (in order, none overlapping)."""
    at = bisect_right(spans, (t, float("inf"))) - 1
    return at >= 0 and spans[at][0] <= t < spans[at][1]


def _refill(poller: int, row: int, spans: list[tuple[float, float]], kids: list[int],
            timeline: dict[int, list[Any]]) -> Refill | None:
    """A Refill of *poller*'s wake-ups from *row* (each the span from its start to the
    poller's next slice) that started the greenlets *kids*; None when they do not have
    a refill's shape."""
    starts = sorted(timeline[k][0].start_s for k in kids)
    # a greenlet whose last slice went on to no wait ended there
    ends = sorted(timeline[k][-1].start_s + timeline[k][-1].duration_s for k in kids
                  if timeline[k][-1].wait is None)
    starting = []  # (time, running then, started then) per wake-up that started some
    for t, until in spans:
        started = bisect_left(starts, until) - bisect_left(starts, t)
        if started:
            starting.append((t, bisect_left(starts, t) - bisect_right(ends, t), started))
    if len(starting) < REFILL_MIN_WAKES:
        return None
    cap = max(running + started for _t, running, started in starting)
    at_cap = [running for _t, running, started in starting if running + started == cap]
    if cap < 2 or len(at_cap) < REFILL_AT_CAP_SHARE * len(starting) \
            or sum(1 for running in at_cap if running) < REFILL_MIN_PARTIAL:
        return None
    times = [t for t, _running, _started in starting]
    empty_s, ended = 0.0, 0
    for end in ends:
        at = bisect_left(times, end)
        if at < len(times):
            empty_s += times[at] - end
            ended += 1
    return Refill(poller, row, len(spans), len(starting), cap, kids, empty_s, ended)


def _refill_finding(profile: Profile, refill: Refill) -> Finding:
    row = profile.waits[refill.row]
    where = user_site(row.stack).user
    poller = profile.greenlet(refill.poller)
    names: dict[str, int] = defaultdict(int)
    for kid in refill.started:
        g = profile.greenlet(kid)
        names[_base_name(g.name) if g else "?"] += 1
    kind = max(names, key=lambda n: names[n])
    mean_ms = refill.empty_s / refill.ended * 1e3 if refill.ended else 0.0
    message = (
        f"A loop kept greenlets running by polling in gevent.sleep at {where}: "
        f"{greenlet_label(poller.name if poller else None, refill.poller)} started "
        f"greenlets ('{kind}', {len(refill.started)} in all) at {refill.starting} of its "
        f"{refill.wakes} wake-ups there, each time as many as had ended since, up to "
        f"{refill.cap} running at once. Each one that ended left its slot empty until the "
        f"next wake-up, {mean_ms:.0f} ms on average: {refill.empty_s:.3f} "
        f"greenlet-seconds of empty slots, on average "
        f"{refill.empty_s / profile.duration_s:.1f} of the {refill.cap} empty through the "
        f"run. {REFILL_FIX.format(cap=refill.cap)}")
    return _finding(SLEEP_POLL, message, refill.empty_s, list(row.stack),
                    greenlet=refill.poller, site=where, refill_cap=refill.cap,
                    started=len(refill.started), wakes_seen=refill.wakes,
                    starting_wakes=refill.starting, empty_slot_s=refill.empty_s,
                    cost_meaning=REFILL_COST_MEANING)
