"""Too few workers for their input (``workers-saturated``), from the wait stacks.

A pool of worker greenlets taking items from a queue (a hand-off: ``handoff.py``) and
serving each with a call that waits (a request to an upstream) has a capacity: so many
workers over the time an item takes.  When items come faster, the queue grows and every
item waits longer for a worker, yet nothing in the run looks slow: the loop idles, each
call takes its usual time, and the waiting is "mostly I/O" at the workers' call line.
A reader sent there blames the upstream.

The shape that tells it: two or more greenlets of one name, each busy (running, or
waiting on anything but a hand-off) nearly the whole run, that took their input at a
hand-off yet almost never had to wait there -- the next item was always in the queue
-- while the loop sat mostly idle.  A pool whose queue runs dry waits at its ``get``;
one whose workers are few for the input does not.  Who put the items is not recorded,
so the message says what the shape means and when it is no fault (a batch drained as
fast as the upstream allows, by design).  Like ``serial-bottleneck`` this is a limit:
a cause found in the workers' own function (their calls failing, stalling on an ACK,
blocking the loop) is why each item took long, and comes first
(``limits.without_outweighed_limits``).
"""

from __future__ import annotations

from typing import Any

from geventperf.findings.common import (
    END_CALLS,
    WORKERS_SATURATED,
    _base_name,
    _finding,
    block_threshold,
)
from geventperf.findings.handoff import (
    _feeders,
    _polled,
    handoffs,
    other_waits,
    own_waits,
    stacks_left,
    stand_in_connection,
)
from geventperf.findings.limits import event_wait, idle_share, idle_told, switched_out_at
from geventperf.frames import is_idle_server_wait, user_site
from geventperf.profile import Finding, Profile, greenlet_label

# The workers were busy (running, ready to run, or waiting on anything but a hand-off)
# at least this share of the run, on average: they went from one item to the next
# without a pause.
WORKERS_BUSY_SHARE = 0.9
# ... and the group waited for input at its hand-offs at most this share of its busy
# time: the next item was nearly always there.  A pool keeping up with its input waits
# there whenever the queue runs dry.
WORKERS_INPUT_SHARE = 0.05
# At least this many of them: a pool, not one sequential loop.
MIN_WORKERS = 2
# And a greenlet of another name was busy at least this share of the run: input that
# kept arriving (a listener, a producer fetching or pacing its puts) while the workers
# worked.  A batch put in the queue at once, then joined, has none: its workers drain it
# at their own pace, by design.  A quarter: a producer that stops while the workers work
# through its backlog (jobs at twice their pace for half the run) still counts.
INPUT_FEEDER_SHARE = 0.25


def workers_saturated(profile: Profile) -> list[Finding]:
    """Worker pools whose members were busy through the run and almost never waited
    for their next item, while the loop idled and another greenlet kept feeding them.
    ``cost_s``: the greenlet-seconds the workers spent waiting on their calls (one call
    at a time each), the time that more workers would have overlapped."""
    idle = idle_share(profile)
    rows = handoffs(profile, _polled(profile))
    if idle is None or not rows:
        return []
    handoff_stacks = {tuple(w.stack) for w in rows}
    working = other_waits(profile, handoff_stacks)
    feeders = [f for f in _feeders(profile, handoff_stacks, INPUT_FEEDER_SHARE)
               if not stand_in_connection(profile, f)]
    hub = profile.hub.get("id")
    members: dict[str, list[Any]] = {}
    for g in profile.greenlets:
        if g.id != hub:
            members.setdefault(_base_name(g.name), []).append(g)
    left = stacks_left(profile)
    found = []
    for name, group in members.items():
        mine = set().union(*(left.get(g.id, set()) for g in group))
        # waiting for a greenlet to end (a helper killed when the worker is done) takes
        # no input: an unseen relay's subscribers' kill() of their heartbeat was taken
        # for their queue, and their socket reads for calls to serve its items
        gets = [w for w in rows if tuple(w.stack) in mine and w.call not in END_CALLS]
        feeder = next((f for f in feeders if _base_name(f[0].name) != name), None)
        if len(group) < MIN_WORKERS or not gets or feeder is None \
                or any(g.name != name for g in group) \
                or any(is_idle_server_wait(list(stack)) for stack in mine):
            # a folded entry's greenlets finished (not busy through the run); a
            # server's connections wait for their clients, not for a feeder's items
            continue
        work_wait, heaviest = own_waits(mine, working, sum(event_wait(g) for g in group))
        # ready to run is not waiting for input either (a busy machine or loop)
        busy_s = sum(g.run_s + (g.ready_wait_s or 0.0) for g in group) + work_wait
        waited = sum(event_wait(w) for w in gets)
        if busy_s < WORKERS_BUSY_SHARE * len(group) * profile.duration_s \
                or waited > WORKERS_INPUT_SHARE * busy_s \
                or work_wait < block_threshold(profile):
            continue
        found.append(_worker_finding(profile, name, group, busy_s, work_wait, waited,
                                     max(gets, key=event_wait), heaviest, idle,
                                     feeder[0]))
    return found


def _worker_finding(profile: Profile, name: str, group: list[Any], busy_s: float,
                    work_wait: float, waited: float, gets: Any,
                    heaviest: tuple[str, ...] | None, idle: float, feeder: Any) -> Finding:
    duration = profile.duration_s
    stack = list(heaviest) if heaviest else list(gets.stack)
    work_site = user_site(list(heaviest)).user if heaviest else None
    get_site = user_site(gets.stack).user or "an unrecorded place"
    count = len(group)
    ended = switched_out_at(profile).get(tuple(stack))
    message = (
        f"Too few workers for their input: the {count} greenlets named '{name}' were busy "
        f"{busy_s / (count * duration):.0%} of the run, each one item at a time"
        + (f" ({work_wait:.3f} s in all waiting on their calls, most at {work_site})"
           if work_site else f" ({work_wait:.3f} s in all waiting on their calls)")
        + f", and almost never waited for the next item: {waited:.3f} s in all at "
        f"{get_site} ({gets.count} waits), {waited / busy_s:.1%} of their busy time, "
        f"while the loop sat {idle_told(profile, idle)} and "
        f"{greenlet_label(feeder.name, feeder.id)} was busy too (most likely what fed "
        "them: who put what is not recorded). The next item was nearly always "
        "there already: items came at least as fast as the workers could serve them, "
        "and whatever came faster queued behind them, waiting longer the longer the "
        "backlog grew. Fix: more workers -- at "
        "least the rate items arrive times the time one takes, with headroom "
        "(gevent.pool.Pool(n)) -- if what their calls reach can take that many at once; "
        "and a bounded queue (gevent.queue.Queue(maxsize=...)), so that overload makes "
        "the producer wait instead of growing every item's latency. If the workers drain "
        "a batch as fast as their upstream allows, by design, this is its pace, not a "
        "fault. To tell which: run once with half the workers; calls that take about as "
        "long mean the upstream had room, and more workers help; calls that take about "
        "half as long mean it serves a fixed amount at a time (its own limit, a link's "
        "bandwidth), and more workers gain nothing.")
    return _finding(WORKERS_SATURATED, message, work_wait, stack,
                    greenlet=ended if isinstance(ended, int) else group[0].id,
                    workers=count, busy_share=busy_s / (count * duration),
                    input_wait_s=waited, work_wait_s=work_wait, idle_share=idle,
                    feeder=feeder.id, site=work_site)
