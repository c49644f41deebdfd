"""Two stages that took turns at a bounded queue (``queue-lockstep``), or one that
waited on a full queue behind a single consumer (``queue-full``).

``queue = Queue(maxsize=1)`` between an extractor that fetches pages of 50 records and
a loader that posts each record: the extractor fills the queue with a page's first
record and waits in ``put()`` until the loader has taken all but the last; the loader
then waits in ``get()`` while the extractor fetches the next page.  Each stage waits
for the other in turn, the run takes the sum of their times instead of the larger, and
every table says "waiting at the queue" on both sides, which reads as two slow stages.

A put waits only on a full queue, a get only on an empty one.  A consumer slower than
its producer keeps the queue full (the producer waits at its ``put``, the consumer
never at its ``get``: ``serial-bottleneck``'s story when many wait); a producer slower
than its consumer keeps it empty.  Both waiting long is the two stages alternating:
neither is the bottleneck, the queue is too small to hold what one produces while the
other works (a page of records).  From the wait stacks: ``put`` and ``get`` calls at the
program's own line (gevent's compiled queues), by the greenlet names that left them.
Which queue a call used is not recorded: the message names both lines.

A producer that waits in ``put()`` most of the run while what takes from the queue is
one greenlet that seldom waits in ``get()`` has one consumer too slow for it: the
consumer's pace is the run's (a feed paged into ``Queue(maxsize=1)`` for a single
poster: 70 % of the run in ``put()``).  Many consumers behind one queue are
``workers-saturated``'s; many producers waiting, ``serial-bottleneck``'s.
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import (
    CONNECTION_GREENLET,
    QUEUE_FULL,
    QUEUE_LOCKSTEP,
    SEQUENTIAL_CALLS,
    _base_name,
    _count,
    _finding,
    _greenlets_named,
    block_threshold,
)
from geventperf.findings.handoff import end_waits, serial_bottleneck, stacks_left
from geventperf.findings.held import asleep_in_program, jobs_waited
from geventperf.findings.limits import event_wait
from geventperf.findings.sequential import sequential_calls
from geventperf.findings.workers import workers_saturated
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

# Each side waited at the queue at least this share of the run, per greenlet of its
# name: a stage that waits now and then is a pipeline settling, not one in lockstep
# (the unseen extractor waited 47 % of its run in put(), its loader 42 % in get()).
LOCKSTEP_RUN_SHARE = 0.25
# ... and the producers worked between their puts (ran, or waited on anything but the
# queue: their pages' fetches) at least this share of their time in put(): in lockstep
# each stage waits while the other works.  A producer with nothing to do but put (an
# unseen ingest's feed of events from memory, 7 ms of CPU beside 1.9 s in put()) fills
# the queue as fast as it empties: its waits are backpressure, and a larger maxsize
# changed nothing (2.43 s as shipped, 2.55 s unbounded).
LOCKSTEP_WORK_SHARE = 0.25
# queue-full: the producers waited in put() at least this share of their own lives
# (run and waits of the greenlets of that name: pooled producers live part of the run
# each), their one consumer in get() less than LOCKSTEP_RUN_SHARE of the run (or
# never).  The unseen single poster's producer waited 70 % of its life; an unseen
# ingester's 16 pooled fetchers 46 %, fetching pages the rest, behind one index writer
# that waited for items once in 4.7 s (six writers: 2.1x faster).
FULL_LIFE_SHARE = 0.3


def queue_lockstep(profile: Profile) -> list[Finding]:
    """A producer waiting in put() and a consumer waiting in get() each a large share of
    the run (``cost_s``: the smaller side's waits, the most overlapping the stages could
    save), or the producer alone, behind one consumer (queue-full, _queue_full)."""
    duration = profile.duration_s
    if not duration:
        return []
    # (main's wait for the run's end, a joinall or a Greenlet's get(), is no consumer's)
    ends = end_waits(profile)
    owners = {stack: gid for gid, stacks in stacks_left(profile).items() for stack in stacks
              if stack not in ends}
    sides = {call: _side(profile, owners, call) for call in ("put", "get")}
    put, get = sides["put"], sides["get"]
    if put is None or (get is not None and put.name == get.name):
        return []
    if get is None or get.waited < LOCKSTEP_RUN_SHARE * duration * get.greenlets:
        return _queue_full(profile, put, get)
    if put.waited < LOCKSTEP_RUN_SHARE * duration * put.greenlets \
            or _worked(profile, put) < LOCKSTEP_WORK_SHARE * put.waited:
        return []
    cost = min(put.waited, get.waited)
    if cost < block_threshold(profile) or _told_elsewhere(profile):
        return []
    message = (
        f"Two stages took turns at a bounded queue: '{put.name}' waited {put.waited:.3f} s "
        f"to put into a full queue ({_times(put.count)}, at {put.where}) and '{get.name}' "
        f"waited {get.waited:.3f} s to get from an empty one ({_times(get.count)}, at "
        f"{get.where}), {put.waited / duration / put.greenlets:.0%} and "
        f"{get.waited / duration / get.greenlets:.0%} of the run each. A put waits only "
        "when the queue is full and a get only when it is empty: when both wait this long, "
        "neither stage is the bottleneck; each waits for the other in turn, and the run "
        "takes the sum of their times instead of the larger. The queue is too small to "
        "hold what one stage produces while the other works (a page of items, a batch). "
        "Fix: a larger maxsize -- at least one burst, a page or a batch of items -- or no "
        "bound where memory allows; then, if one stage stays behind, more greenlets for "
        "it.")
    return [_finding(QUEUE_LOCKSTEP, message, cost, list(put.stack), greenlet=put.greenlet,
                     producer=put.name, consumer=get.name, put_wait_s=put.waited,
                     get_wait_s=get.waited, put_site=put.where, get_site=get.where)]


def _worked(profile: Profile, side: "_Side") -> float:
    """The greenlet-seconds the greenlets of *side*'s name ran or waited on anything but
    the queue (their waits at it apart; their queueing for the loop is no work)."""
    return sum(g.run_s + (g.wait_s if g.event_wait_s is None else g.event_wait_s)
               for g in profile.greenlets if _base_name(g.name) == side.name) - side.waited


def _told_elsewhere(profile: Profile) -> bool:
    """Whether serial-bottleneck (many waiting for a few) or workers-saturated (many
    consumers busy) fires: which queue a wait used is not recorded, so either may be
    telling this queue's story, and one cause gets one finding."""
    return bool(serial_bottleneck(profile) or workers_saturated(profile))


def _queue_full(profile: Profile, put: "_Side", get: "_Side | None") -> list[Finding]:
    """queue-full: a producer waiting in put() most of the run behind one consumer.
    ``cost_s``: the producer's waits in put()."""
    duration = profile.duration_s
    if get is None:
        return _polled_full(profile, put)
    if put.waited < FULL_LIFE_SHARE * _lives(profile, put.name) \
            or get.greenlets > 1 \
            or put.waited < block_threshold(profile) or _told_elsewhere(profile):
        return []
    share = get.waited / duration
    consumer = (f"'{get.name}', one greenlet that waited for items only "
                + (f"{share:.0%} of the run" if share >= 0.005 else f"{get.waited:.3f} s in all")
                + f" (at {get.where})")
    # the consumer's upstream calls in turn are this story's (a sequential-calls
    # finding of the consumer would be the same cause told twice)
    calls = [f for f in sequential_calls(profile)
             if (g := profile.greenlet(f.greenlet)) is not None and _base_name(g.name) == get.name]
    its_calls = "".join(
        f" Its work was upstream calls made one after another ({_count(f.extra, 'calls')} "
        f"at {f.extra.get('site')}, each waiting for its answer before the next began): "
        "consumers side by side overlap them."
        for f in calls[:1])
    if not calls:  # what the consumer did with its time, which the fix makes cheaper
        gids = [g.id for g in profile.greenlets if _base_name(g.name) == get.name]
        its_calls = jobs_waited(profile, gids, {tuple(get.stack)}, who="The consumer",
                                held="spent its time mostly waiting",
                                each="each item waited for that")
    message = (
        f"A producer waited on a full queue: '{put.name}' waited {put.waited:.3f} s to put "
        f"into it ({_times(put.count)}, at {put.where}), "
        f"{put.waited / _lives(profile, put.name):.0%} of {_its_life(put.greenlets)}, "
        "while what takes from it "
        f"was {consumer}. The consumer is slower than what feeds it, so its pace was the "
        f"run's.{its_calls} Fix: more consumers -- several greenlets taking from the queue, or a "
        "gevent.pool.Pool(n) over its items -- if their work can run side by side (calls "
        "to an upstream that takes more at once); else make each item cheaper (one batch "
        "call for several items). If the consumer's pace is a limit by design (an "
        "upstream's rate), this is what it costs.")
    return [_finding(QUEUE_FULL, message, put.waited, list(put.stack), greenlet=put.greenlet,
                     producer=put.name, consumer=get.name, put_wait_s=put.waited,
                     get_wait_s=get.waited, put_site=put.where,
                     calls_site=calls[0].extra.get("site") if calls else None)]


# A consumer that takes from the queue without waiting in get() (get_nowait, or
# get(block=False), then gevent.sleep when it found nothing) is known by that sleep: one
# greenlet of another name than the producers', asleep at one line of its own at least
# this share of the run ...
POLLER_SLEEP_SHARE = 0.3
# ... in at least this many sleeps of at most this long each on average: a poll, not a
# heartbeat (an unseen backfill's bulk loader polled its bounded queue every 50 ms with
# get_nowait: its three fetchers waited 55 % of their lives to put, "FINDINGS: none";
# waiting on the queue itself cut the run 2.7x).
POLLER_MIN_SLEEPS = 10
POLLER_MAX_SLEEP_S = 0.5


def _polled_full(profile: Profile, put: "_Side") -> list[Finding]:
    """queue-full when the producers waited in put() FULL_LIFE_SHARE of their lives and
    no greenlet waited in get(), while one greenlet of another name slept at a line of
    its own like a poller (POLLER_*), or several all at one line: most likely the
    consumers, taking items only when their sleeps end.  ``cost_s``: the producers'
    waits in put()."""
    if put.waited < FULL_LIFE_SHARE * _lives(profile, put.name) \
            or put.waited < block_threshold(profile) or _told_elsewhere(profile):
        return []
    slept: dict[str, list[Any]] = {}
    for gid, stacks in stacks_left(profile).items():
        g = profile.greenlet(gid)
        # (a server's connection sleeping in its handler, a stand-in upstream's latency,
        # serves requests: it takes from no queue of the program's)
        if g is None or gid == profile.hub.get("id") or _base_name(g.name) == put.name \
                or CONNECTION_GREENLET in g.name:
            continue
        for w in profile.waits:
            if tuple(w.stack) in stacks and asleep_in_program(w):
                slept.setdefault(_base_name(g.name), []).append(w)
    pollers = [(name, max(rows, key=event_wait), sum(event_wait(w) for w in rows),
                sum(w.count for w in rows)) for name, rows in slept.items()]
    pollers = [p for p in pollers if p[2] >= POLLER_SLEEP_SHARE * profile.duration_s
               and p[3] >= POLLER_MIN_SLEEPS and p[2] <= POLLER_MAX_SLEEP_S * p[3]]
    # several, each asleep at the same line: one helper that every stage polls through
    # (an unseen pipeline's normalisers and loader took items through one _next(q) that
    # slept 50 ms on an empty queue: "FINDINGS: none", and waiting on the queues cut the
    # run 3.4x); else which one takes from the queue is not known
    lines = {user_site(row.stack).user for _name, row, _t, _n in pollers}
    if not pollers or len(lines) != 1:
        return []
    pollers.sort(key=lambda p: -p[2])
    name = "', '".join(p[0] for p in pollers)
    row, asleep, sleeps = pollers[0][1], sum(p[2] for p in pollers), sum(p[3] for p in pollers)
    where = user_site(row.stack).user
    who = (
        (f"the one most likely taking from it, '{name}', slept on a timer: {asleep:.3f} s "
         f"({asleep / profile.duration_s:.0%} of the run)") if len(pollers) == 1 else
        (f"those most likely taking from it, '{name}', slept on a timer through one line: "
         f"{asleep:.3f} greenlet-seconds"))
    message = (
        f"A producer waited on a full queue: '{put.name}' waited {put.waited:.3f} s to put "
        f"into it ({_times(put.count)}, at {put.where}), "
        f"{put.waited / _lives(profile, put.name):.0%} of {_its_life(put.greenlets)}, "
        f"while no greenlet ever waited to get from it, and {who} at {where} (gevent.sleep, "
        f"{sleeps} sleeps of {asleep / sleeps * 1e3:.0f} ms on average). A consumer that "
        "checks the queue without waiting (get_nowait, get(block=False)) and sleeps when "
        "it finds too little takes items only when its sleep ends: the producers wait for "
        "its timer, not for its work. Fix: wait on the queue itself -- queue.get(timeout=t), "
        "t the time left until its next flush or deadline is due -- so that it wakes as "
        "soon as an item is put; or shorten the interval.")
    return [_finding(QUEUE_FULL, message, put.waited, list(put.stack), greenlet=put.greenlet,
                     producer=put.name, consumer=pollers[0][0], put_wait_s=put.waited,
                     get_wait_s=0.0, **({"consumers": [p[0] for p in pollers]}
                                        if len(pollers) > 1 else {}),
                     put_site=put.where, poller_site=where, poller_sleep_s=asleep)]


def without_calls_told(found: list[Finding]) -> list[Finding]:
    """*found* without the sequential-calls findings whose calls a queue-full finding
    tells as its one consumer's work (``calls_site``): one cause, one finding."""
    told = {f.extra.get("calls_site") for f in found if f.kind == QUEUE_FULL} - {None}
    return [f for f in found if f.kind != SEQUENTIAL_CALLS or f.extra.get("site") not in told]


def _lives(profile: Profile, name: str) -> float:
    """The summed lives of the greenlets named *name*: their run and wait times."""
    return sum(g.run_s + g.wait_s for g in profile.greenlets if _base_name(g.name) == name) \
        or profile.duration_s


def _its_life(greenlets: int) -> str:
    return "its life" if greenlets == 1 else f"the {greenlets} greenlets' lives"


def _times(count: int) -> str:
    return f"{count} time{'s' if count != 1 else ''}"


class _Side:
    """One side of the queue: the greenlets of one name waiting in one call."""

    def __init__(self, name: str, greenlets: int, waited: float, count: int,
                 worst: Any, greenlet: int) -> None:
        self.name, self.greenlets, self.waited, self.count = name, greenlets, waited, count
        self.where = user_site(worst.stack).user or "an unrecorded place"
        self.stack, self.greenlet = worst.stack, greenlet


def _side(profile: Profile, owners: dict[tuple[str, ...], int], call: str) -> _Side | None:
    """The waits in *call* at the program's own line, of the greenlet name that waited
    there most (a stack knows only the last greenlet that left it: by name)."""
    rows = [w for w in profile.waits if w.call == call and w.stack and w.count
            and user_site(w.stack).library is None and user_site(w.stack).user
            and tuple(w.stack) in owners]
    by_name: dict[str, list[Any]] = {}
    for w in rows:
        g = profile.greenlet(owners[tuple(w.stack)])
        if g is not None and g.id != profile.hub.get("id"):
            by_name.setdefault(_base_name(g.name), []).append((w, g.id))
    if not by_name:
        return None
    name, mine = max(by_name.items(), key=lambda kv: sum(event_wait(w) for w, _g in kv[1]))
    worst, gid = max(mine, key=lambda wg: event_wait(wg[0]))
    return _Side(name, max(1, _greenlets_named(profile, {name})),
                 sum(event_wait(w) for w, _g in mine),
                 sum(w.count for w, _g in mine), worst, gid)
