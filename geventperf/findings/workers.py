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

from geventperf.findings.common import WORKERS_SATURATED, _base_name, _finding
from geventperf.findings.handoff import _polled, handoffs, other_waits
from geventperf.findings.limits import POOL_IDLE_SHARE, event_wait, switched_out_at
from geventperf.findings.loop import block_threshold
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

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


def workers_saturated(profile: Profile) -> list[Finding]:
    """Worker pools whose members were busy through the run and almost never waited
    for their next item, while the loop idled.  ``cost_s``: the greenlet-seconds the
    workers spent waiting on their calls (one call at a time each), the time that more
    workers would have overlapped."""
    duration = profile.duration_s
    idle = profile.hub.get("idle_s")
    if not duration or not isinstance(idle, (int, float)) \
            or idle < POOL_IDLE_SHARE * duration:
        return []
    rows = handoffs(profile, _polled(profile))
    if not rows:
        return []
    working = other_waits(profile, {tuple(w.stack) for w in rows})
    hub = profile.hub.get("id")
    members: dict[str, list[Any]] = {}
    for g in profile.greenlets:
        if g.id != hub:
            members.setdefault(_base_name(g.name), []).append(g)
    # A stack knows only the last greenlet that switched out there: a group's waits are
    # those of the stacks its members last left, capped by what its members waited.
    stacks: dict[str, set[tuple[str, ...]]] = {}
    for r in profile.runs:
        g = profile.greenlet(r.greenlet) if isinstance(r.greenlet, int) else None
        if g is not None:
            stacks.setdefault(_base_name(g.name), set()).add(tuple(r.stack))
    found = []
    for name, group in members.items():
        mine = stacks.get(name, set())
        gets = [w for w in rows if tuple(w.stack) in mine]
        if len(group) < MIN_WORKERS or not gets or any(g.name != name for g in group):
            continue  # a folded entry's greenlets finished: not busy through the run
        waits = {s: working[s] for s in mine if s in working}
        work_wait = min(sum(waits.values()), sum(event_wait(g) for g in group))
        # ready to run is not waiting for input either (a busy machine or loop)
        busy_s = sum(g.run_s + (g.ready_wait_s or 0.0) for g in group) + work_wait
        waited = sum(event_wait(w) for w in gets)
        if busy_s < WORKERS_BUSY_SHARE * len(group) * duration \
                or waited > WORKERS_INPUT_SHARE * busy_s \
                or work_wait < block_threshold(profile):
            continue
        heaviest = max(waits, key=waits.__getitem__) if waits else None
        found.append(_worker_finding(profile, name, group, busy_s, work_wait, waited,
                                     max(gets, key=event_wait), heaviest, idle / duration))
    return found


def _worker_finding(profile: Profile, name: str, group: list[Any], busy_s: float,
                    work_wait: float, waited: float, gets: Any,
                    heaviest: tuple[str, ...] | None, idle: float) -> Finding:
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
        f"while the loop sat idle {idle:.0%} of the run. The next item was nearly always "
        "there already: items came at least as fast as the workers could serve them, "
        "and whatever came faster queued behind them, waiting longer the longer the "
        "backlog grew, though every call took its usual time. Fix: more workers -- at "
        "least the rate items arrive times the time one takes, with headroom "
        "(gevent.pool.Pool(n)) -- if what their calls reach can take that many at once; "
        "and a bounded queue (gevent.queue.Queue(maxsize=...)), so that overload makes "
        "the producer wait instead of growing every item's latency. If the workers drain "
        "a batch as fast as their upstream allows, by design, this is its pace, not a "
        "fault.")
    return _finding(WORKERS_SATURATED, message, work_wait, stack,
                    greenlet=ended if isinstance(ended, int) else group[0].id,
                    workers=count, busy_share=busy_s / (count * duration),
                    input_wait_s=waited, work_wait_s=work_wait, idle_share=idle,
                    site=work_site)
