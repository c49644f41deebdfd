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
on every tick (a feed follower putting a page per interval) finds more often than not,
and its pace is the program's choice: neither is told.  Nor, for the same reason, is a
poll whose work comes faster than its interval, so that most wake-ups find some: from
the switches alone it cannot be told from a pacer.  Polls of a few milliseconds
are ``serial-bottleneck``'s (handoff.is_poll), where they wait for another greenlet's
result.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, NamedTuple

from geventperf.findings.common import SLEEP_POLL, _finding, _names
from geventperf.findings.handoff import POLL_MAX_SLEEP_S
from geventperf.findings.loop import SLEEP_FRAME, block_threshold
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

# Wake-ups seen in the timeline at one sleep line before its shape means anything.
POLL_MIN_WAKES = 20
# ... of which at least this many found something: the lateness is summed over finds.
POLL_MIN_FINDS = 5
# The sleeps before finds were whole intervals: their median at least this share of
# the median of all the line's sleeps (a scheduler's sleeps cut to the due time are
# half an interval on average).
POLL_WHOLE_SHARE = 0.75
# Told from this share of the run in expected lateness on: the share at which
# small-body-reads is told too, a twentieth of the run.
POLL_RUN_SHARE = 0.05
COST_MEANING = ("greenlet-seconds what the poll waited for sat unseen: half an interval "
                "(the average lateness of a poll) per wake-up that found something")
FIX = ("Fix: wait on what the loop checks, so that it wakes as soon as it is there -- "
       "a gevent.queue.Queue's get(timeout=...) for items, a gevent.event.Event's "
       "wait(timeout) for a flag, an AsyncResult for a result, gevent.wait() or "
       "joinall for greenlets -- or shorten the interval. If it checks something that "
       "cannot wake it (a file, a remote job's status), a shorter interval, or the "
       "remote's long-poll or push, is the fix.")


class Poll(NamedTuple):
    row: int            # index of the sleep's ``waits`` row
    wakes: int          # wake-ups from it seen in the timeline
    empties: int        # ... after which the greenlet slept there again
    finds: int          # ... after which it went on to wait elsewhere
    interval_s: float   # median time asleep (and queued) per wake-up
    greenlets: dict[int, int]  # finds per greenlet


def sleep_polls(profile: Profile) -> list[Finding]:
    """One finding per program line polling in a sleep loop (see the module's text).
    ``cost_s``: half an interval per wake-up that found something, scaled from the
    timeline to the line's every sleep."""
    out = []
    floor = max(block_threshold(profile), POLL_RUN_SHARE * profile.duration_s)
    for poll in _polls(profile):
        row = profile.waits[poll.row]
        # the timeline may have dropped slices: its share of finds, over every sleep
        finds = poll.finds * row.count / poll.wakes
        cost = finds * poll.interval_s / 2
        if cost < floor:
            continue
        where = user_site(row.stack).user
        who = _names(profile, list(poll.greenlets))
        lead = max(poll.greenlets, key=lambda g: poll.greenlets[g])
        message = (
            f"A loop polled in gevent.sleep at {where}: {who} slept {row.count} times "
            f"there, {poll.interval_s * 1e3:.0f} ms each, and {poll.empties} of the "
            f"{poll.wakes} wake-ups seen found nothing and slept again; the "
            f"{poll.finds} others went on to other work (their next wait was elsewhere): "
            f"they found what it checks for. What it checks for is seen only when a sleep ends, on average half an "
            f"interval ({poll.interval_s * 1e3 / 2:.0f} ms) after it is there, and every "
            "greenlet waiting for what the poller does next (a caller waiting for its "
            f"answer, a consumer of what it hands on) waits with it. {FIX}")
        out.append(_finding(SLEEP_POLL, message, cost, list(row.stack), greenlet=lead,
                            greenlets=len(poll.greenlets), site=where,
                            interval_s=poll.interval_s, sleeps=row.count,
                            wakes_seen=poll.wakes, finds_seen=poll.finds,
                            cost_meaning=COST_MEANING))
    return out


def _polls(profile: Profile) -> list[Poll]:
    """The sleep lines whose wake-ups in the timeline have a poll's shape."""
    sleeps = {i for i, w in enumerate(profile.waits)
              if len(w.stack) >= 2 and SLEEP_FRAME.search(w.stack[0].replace("\\", "/"))
              and user_site(w.stack).user == w.stack[1]}
    if not sleeps:
        return []
    timeline: dict[int, list[Any]] = defaultdict(list)
    for s in profile.slices:
        timeline[s.greenlet].append(s)
    asleep: dict[int, list[float]] = defaultdict(list)
    before_finds: dict[int, list[float]] = defaultdict(list)
    again: dict[int, int] = defaultdict(int)
    finds: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for gid, slices in timeline.items():
        slices.sort(key=lambda s: s.start_s)
        for before, woke in zip(slices, slices[1:]):
            if before.wait not in sleeps:
                continue
            slept = woke.start_s - before.start_s - before.duration_s
            asleep[before.wait].append(slept)
            if woke.wait == before.wait:
                again[before.wait] += 1
            elif woke.wait is not None:
                finds[before.wait][gid] += 1
                before_finds[before.wait].append(slept)
    out = []
    for row, lengths in asleep.items():
        found = sum(finds[row].values())
        if len(lengths) < POLL_MIN_WAKES or found < POLL_MIN_FINDS or again[row] < found:
            continue
        interval = statistics.median(lengths)
        if interval > POLL_MAX_SLEEP_S \
                and statistics.median(before_finds[row]) >= POLL_WHOLE_SHARE * interval:
            out.append(Poll(row, len(lengths), again[row], found, interval, dict(finds[row])))
    return out


def without_polls_told(found: list[Finding]) -> list[Finding]:
    """*found* without the sleep-poll findings at a line another finding already tells
    as a poller (queue-full's consumer checking a full queue between sleeps,
    ``poller_site``): one cause, one finding, the one that names who waited for it."""
    told = {f.extra.get("poller_site") for f in found if f.kind != SLEEP_POLL} - {None}
    return [f for f in found if f.kind != SLEEP_POLL or f.extra.get("site") not in told]
