"""Many greenlets waiting for the output of a few (``serial-bottleneck``), from the wait
stacks.

A wait made from the program's own line with no Python frame below it is in one of
gevent's compiled primitives: an ``Event``, an ``AsyncResult``, a ``Queue``, a
greenlet's ``join``/``get``, ``joinall``.  Taking a lock or semaphore that way is
``lock-contended``'s story; every other such wait is a *hand-off*: the greenlet waits for
another greenlet to put, set or finish.  So are the standard library's ``Event``,
``Condition`` and ``queue.Queue`` waiting on their inner (monkey-patched) locks.
A wait at a line that handed tasks to a gevent threadpool (its ``threadpool`` events'
``sites``) is not: it waits for a real thread, whose queueing ``threadpool-saturated``
tells.  A *poll* is one: a greenlet checking for another's result in a sleep loop
(``while key not in results: gevent.sleep(0.001)``) waits for that greenlet through a
timer, told by its shape (many short sleeps at one line, almost no work between).

When hand-offs hold most of the run's event wait, at least two greenlets' worth on
average, while the loop sat idle, the waiting greenlets were short neither of CPU nor
of the network: they waited for the greenlets that feed them.  If a few greenlets were
busy through most of the run meanwhile (running, or waiting on something other than a
hand-off: the network, a timer), one call at a time, their pace set everyone's: 20
consumers of a queue fed by one producer that fetches one item at a time wait 20 times
as long as the producer works, and no finding about the consumers' own lines can say
why.  The finding names the feeders, busiest first, with the line each mostly waited
at.

Who woke whom is not recorded, so a feeder is known by its shape, not by proof: busy
through the run while the others waited on hand-offs.  The message says so, and says
when it is no fault (idle workers waiting for input that arrives at its own pace).  A
feeder on a timer whose waiters each outlasted its wake-ups was feeding more greenlets
than it had items for: spare capacity, and no finding.
Like ``pool-full`` and ``lock-contended`` this is a consequence of how long the feeders'
work took: a finding about what slowed them, in their own function, explains it first
(``limits.without_outweighed_limits``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Any, Callable, NamedTuple

from geventperf.findings.common import (
    CONNECTION_GREENLET,
    CONNECTION_POOL_FULL,
    DELAYED_ACK_STALL,
    REQUEST_BODY_STALL,
    SERIAL_BOTTLENECK,
    _base_name,
    _finding,
    _greenlets_named,
    block_threshold,
    tell_before_cost,
)
from geventperf.findings.cpuhot import is_client_frame
from geventperf.findings.limits import (
    EVENTS_LOCK,
    POOL_NOT_EXPLAINED,
    event_wait,
    idle_told,
    is_connection_slot_wait,
    is_limit_wait,
    lock_wait,
    paced,
    requests_of_others,
    switched_out_at,
    waiters,
)
from geventperf.findings.loop import (
    SLEEP_FRAME,
)
from geventperf.findings.ownclients import in_handler, own_server_hosts
from geventperf.findings.paging import cursor_paging
from geventperf.frames import (
    frame_line,
    frame_source,
    gives_back,
    is_idle_server_wait,
    parse_frame,
    user_site,
)
from geventperf.profile import LOCK_CALLS, Finding, Profile, greenlet_label

# Hand-offs hold at least this share of all event wait: the waiting is mostly for
# other greenlets, not for the network.
HANDOFF_SHARE = 0.5
# ... and at least this many greenlets' worth on average over the run (greenlet-seconds
# of hand-off wait / the run's wall time): a main greenlet joining one worker is no
# queue of waiters.
HANDOFF_MIN_WAITERS = 2.0
# A feeder was busy (running, or waiting on anything but a hand-off) at least this share
# of the run: it worked one call after another while the others waited.
FEEDER_BUSY_SHARE = 0.5
# Feeders named in the message, busiest first.
TOP_FEEDERS = 3
# A poll: at least this many wake-ups at one gevent.sleep line (a few are a retry's
# back-off, or a start-up delay) ...
POLL_MIN_WAKES = 100
# ... sleeping at most this long each on average: sleep(0.001) or sleep(0.002), "as
# soon as it is there", which no periodic work asks for.  A ticker doing nothing
# between sleeps has a poll's shape too, and its waits are for time, not for another
# greenlet: five tickers of sleep(0.005) (tests/diagnosis/spawn_then_hog.py) were told
# as waiting for an unrelated greenlet at a 50 ms limit.  Polls at a longer pace are
# left out for that reason.  More than nothing: sleep(0) gives way to others, a
# switch-storm's story ...
POLL_MAX_SLEEP_S = 0.003
# ... with at most this much running between sleeps on average: checking a flag or a
# dict, not doing work of its own.
POLL_MAX_RUN_S = 100e-6
# A greenlet of another name than the waiters' is the likelier source of their items
# when it woke at its main wait at least this share as often as they waited for items:
# once per 20 items at most (a receiver long-polling a broker for 10 messages a call
# woke a tenth as often); a heartbeat's sleeps of a second or more are rarer still.
SOURCE_WAKE_SHARE = 0.05
# ... and a feeder asleep on a timer, at least this share: its wake-ups must be about as
# many as the items (a 1 Hz heartbeat beside a pool's peers feeds nobody).
SLEEPER_WAKE_SHARE = 0.25
# A feeder that spent at least this share of its busy time asleep in gevent.sleep at one
# line worked on a timer: the others waited for the timer, and the fix is to wake it.
TIMER_FEEDER_SHARE = 0.5
# ... unless a wait lasted at least this many of its sleeps on average: a waiter that
# the next wake-up would release waits under one interval (a batch's writers), so one
# kept past it was not waiting for that wake-up but outnumbered what the wake-ups
# brought (sixteen workers taking jobs put every 5 ms wait 8 ticks each; twenty
# consumers of ten messages every 50 ms, 1.8).  Those waiters are spare capacity (input
# that arrives on a schedule, or a rate limit the program chose): no finding.
SPARE_TICKS = 1.5
# A feeder asleep on a timer released at least this share of the waits at the hand-offs
# (released_share), where the timeline can say: a batch's flusher releases all of its
# writers (tests/diagnosis/timer_flush.py: 61 of 61) ...
TIMER_RELEASED_SHARE = 0.5
# ... a waiter counting as released by a slice it became ready within this of: its ready
# wait starts with the loop's turn that ran the setter, up to 0.3 ms before the setter's
# slice itself (measured on timer_flush.py), and a loaded machine stretches that.
RELEASE_WINDOW_S = 0.002
# Waits in wait() per waiting greenlet from which an event is a gate set again and again
# (a config's "ready" event cleared for each reload: 451 waits by 30 workers), not a
# result each waited for once.
GATE_WAITS_EACH = 3
# The main greenlet's wait for the run's end (end_waits): at least this share of the run
# long, in at most this many wake-ups (a joinall of up to 100 workers).
END_WAIT_SHARE = 0.5
END_WAIT_MAX_WAKES = 100


def is_handoff(wait: Any) -> bool:
    """Whether a ``waits`` row waited for another greenlet to put, set or finish (see
    the module's text)."""
    stack = wait.stack
    if not stack or is_connection_slot_wait(stack):  # a free connection: a limit
        return False
    lock = lock_wait(wait)
    if lock is not None:  # an Event's or a queue's inner lock is a hand-off
        return lock == EVENTS_LOCK
    return wait.call not in LOCK_CALLS and user_site(stack).library is None


def is_poll(wait: Any, run: Any) -> bool:
    """Whether a ``waits`` row, with the ``runs`` row of its stack (None if none), is a
    poll (see the module's text): gevent.sleep called from the program's own line."""
    stack = wait.stack
    if run is None or len(stack) < 2 or wait.count < POLL_MIN_WAKES or not run.count \
            or not SLEEP_FRAME.search(stack[0].replace("\\", "/")) \
            or user_site(stack).user != stack[1]:
        return False
    return 0 < event_wait(wait) / wait.count <= POLL_MAX_SLEEP_S \
        and run.run_s / run.count <= POLL_MAX_RUN_S


def _polled(profile: Profile) -> Callable[[Any], bool]:
    """is_poll for *profile*'s waits rows, each with the runs row of its stack."""
    runs = {tuple(r.stack): r for r in profile.runs}
    return lambda wait: is_poll(wait, runs.get(tuple(wait.stack)))


def handoffs(profile: Profile, polled: Callable[[Any], bool] | None = None) -> list[Any]:
    """The ``waits`` rows of *profile* that are hand-offs: is_handoff or is_poll (by
    *polled*, _polled(profile) if not given), and not at a line that gave a threadpool
    its tasks (the result it waits for is a thread's), nor the main greenlet's wait for
    the end (end_waits)."""
    pools = {site[0] for ev in profile.events if ev.get("kind") == "threadpool"
             for site in (ev.get("sites") if isinstance(ev.get("sites"), list) else ())
             if isinstance(site, list) and site and isinstance(site[0], str)}
    polled = polled or _polled(profile)
    ended = end_waits(profile)
    return [w for w in profile.waits if (is_handoff(w) or polled(w))
            and not (w.stack and w.stack[0] in pools) and tuple(w.stack) not in ended]


def end_waits(profile: Profile) -> set[tuple[str, ...]]:
    """The stacks where the program's main greenlet waited for the run's end: a wait
    there that the main greenlet was the last to leave, at least END_WAIT_SHARE of the
    run long, woken at most END_WAIT_MAX_WAKES times (``server.serve_forever()``,
    ``stop_event.wait()``, a joinall of the workers).  Its driver waiting, not a
    consumer short of input; a joinall woken once per greenlet of a stream of batches
    is no such wait."""
    mains = {g.id for g in profile.greenlets
             if g.parent is None and g.name == "main" and g.id != profile.hub.get("id")}
    left = stacks_left(profile)
    mine = {s for gid in mains for s in left.get(gid, ())}
    # only a wait for other greenlets: main reading the network or sleeping may be the
    # feeder of the others (a receiver), whose waits are its work
    return {tuple(w.stack) for w in profile.waits if tuple(w.stack) in mine
            and w.count <= END_WAIT_MAX_WAKES and is_handoff(w)
            and event_wait(w) >= END_WAIT_SHARE * profile.duration_s}


def _working_waits(profile: Profile) -> list[Any]:
    """The ``waits`` rows less a server's connections awaiting their client's next
    request (idle capacity, which would otherwise count as waiting that is no hand-off,
    or for a feeder as busy) and the main greenlet's wait for the end (end_waits)."""
    ended = end_waits(profile)
    return [w for w in profile.waits
            if not is_idle_server_wait(w.stack) and tuple(w.stack) not in ended]


def handoff_share(profile: Profile) -> float | None:
    """The share of the run's event wait spent at hand-offs (None: no event wait), idle
    server connections apart."""
    total = sum(event_wait(w) for w in _working_waits(profile))
    if total <= 0:
        return None
    return sum(event_wait(w) for w in handoffs(profile)) / total


def serial_bottleneck(profile: Profile) -> list[Finding]:
    """Greenlets that waited on hand-offs for most of the run's event wait while the
    loop idled and a few others were busy throughout: one finding naming those few.
    Else an event closed like a gate around another greenlet's calls (_gate_alone), or
    one result awaited together again and again while another greenlet computed it
    (shared_result).  ``cost_s``: the greenlet-seconds the waiting greenlets spent in
    hand-offs."""
    return _bottleneck(profile) or _gate_alone(profile) or shared_result(profile)


# A gate (an event waited on again and again, GATE_WAITS_EACH) is told on its own from
# this share of all event wait on, when a greenlet of another name made calls at least
# as long as half a wait at it: a refresher that clears the event across each reload
# and sleeps between reloads is no busy feeder (an unseen pricing service's handlers
# waited 34 % of their waiting at rules_ready.wait() while a refresher reloaded for
# 150 ms every 400 ms: "FINDINGS: none"; swapping the rules in cut its p99 4.4x).
GATE_SHARE = 0.2
# How the gate's message tells the fix.
GATE_FIX = ("If the one that sets it clears it while it works (a gate closed around each "
            "refresh of a shared value: a config, a token, a cache), every waiter stops "
            "for every refresh though it holds a usable value. Fix: do not clear it -- "
            "build the new value and swap it in, so that the waiters wait only for the "
            "first one.")


def _gate_alone(profile: Profile) -> list[Finding]:
    """A gate whose setter is no busy feeder: GATE_SHARE of all event wait in wait()
    at the program's line, GATE_WAITS_EACH times per waiting greenlet, and a greenlet
    of another name whose calls (requests) lasted at least half a wait on average."""
    # an Event's wait(), not a poll: gevent.sleep's row has the call "wait" too, and a
    # poll waits for a timer, not for a setter (consumers polling a pool's results)
    rows = [w for w in handoffs(profile) if w.call == "wait" and is_handoff(w)]
    total = sum(event_wait(w) for w in _working_waits(profile))
    if not rows or total <= 0:
        return []
    seen = waiters(profile, rows, weight=event_wait)
    waited = sum(event_wait(w) for w in rows)
    gated = _gated(profile, seen.worst, seen)
    if gated < 2 or waited < GATE_SHARE * total or waited < block_threshold(profile):
        return []
    mean_wait = waited / seen.count
    setter = _slow_caller(profile, seen.names, mean_wait / 2)
    if setter is None:
        return []
    message = (
        f"Many greenlets waited at an event another greenlet sets: {seen.who} waited "
        f"{waited:.3f} s in all in wait() at {seen.where} ({seen.count} waits by {gated} "
        f"greenlets, {waited / total:.0%} of all event wait), {mean_wait * 1e3:.0f} ms each "
        f"on average, {_as_long_as(setter)}). {GATE_FIX}")
    return _setter_awaited(message, seen, waited, waited / total, setter, GATE_COST)


def _as_long_as(setter: tuple[str, str, int, float]) -> str:
    """"about as long as 'name' took over its calls at line (n calls of m ms" for
    _slow_caller's *setter* (the caller closes the parenthesis)."""
    name, line, calls, mean_call = setter
    return (f"about as long as '{name}' took over its calls at {line} ({calls} calls of "
            f"{mean_call * 1e3:.0f} ms")


def _setter_awaited(message: str, seen: Any, waited: float, share: float,
                    setter: tuple[str, str, int, float], meaning: str,
                    **extra: Any) -> list[Finding]:
    """The serial-bottleneck finding of waiters (*seen*) at a gate or result that
    _slow_caller's *setter* set, costing their *waited* seconds there."""
    return [_finding(SERIAL_BOTTLENECK, message, waited, list(seen.worst.stack),
                     greenlet=seen.greenlet, waits=seen.count, peers=False, gate=True,
                     handoff_wait_s=waited, handoff_share=share, setter=setter[0],
                     setter_site=setter[1], site=seen.where, cost_meaning=meaning, **extra)]


GATE_COST = "greenlet-seconds the waiting greenlets spent in wait() at the event"

# A result awaited together (an AsyncResult's get(), one set waking every waiter) is
# told when each of the setter's calls had at least this many waiters on average (one
# waiter per call is a greenlet awaiting its own sub-task, no shared refresh), and no
# more than the waiters' greenlets (a set wakes each waiter once: 400 subscribers'
# 16 400 waits at their outboxes' get() were no result of four replicators' 4 calls) ...
RESULT_WAITERS_PER_CALL = 2
# ... again and again: at least this many calls ...
RESULT_MIN_CALLS = 3
# ... by greenlets started for them, at least this many per call: a single-flight
# refresh starts one per refresh, while a queue's producers make many calls each and
# wake a consumer per item they put (an unseen ingest's 16 fetchers, 80 page calls,
# woke its 6 index writers 2.3 times a call at their queue's get()) ...
RESULT_STARTED_PER_CALL = 0.5
# ... and the waits took at least this share of the waiters' own event wait (an unseen
# quote client's 30 workers waited 30 % of theirs on a token renewal they did not need,
# 18 % of the run's event wait, most of the rest being its in-process stand-in
# server's; serving the still-valid token during the renewal saved 23 % of the run).
RESULT_SHARE = 0.2
RESULT_FIX = ("If they hold a usable value meanwhile (a token still valid, a cached entry "
              "not yet expired), return it and let the refresh finish in the background "
              "(refresh ahead); else start each refresh before the value is needed, so "
              "that no caller waits for it.")
RESULT_COST = "greenlet-seconds the waiting greenlets spent in get() at the result"


def shared_result(profile: Profile) -> list[Finding]:
    """A result many greenlets awaited together in get() at one line of the program's,
    again and again, while greenlets of another name, each started for about one call,
    made requests lasting about as long as a wait (see RESULT_WAITERS_PER_CALL and
    after)."""
    by_line: dict[str, list[Any]] = {}
    for w in handoffs(profile):
        if w.call == "get" and is_handoff(w) and (line := user_site(w.stack).user):
            by_line.setdefault(line, []).append(w)
    if not by_line:
        return []
    rows = max(by_line.values(), key=lambda rs: sum(event_wait(w) for w in rs))
    seen = waiters(profile, rows, weight=event_wait)
    waited = sum(event_wait(w) for w in rows)
    own = _event_wait_of(profile, seen.names)
    if not own or waited < RESULT_SHARE * own or waited < block_threshold(profile):
        return []
    setter = _slow_caller(profile, seen.names, waited / seen.count / 2)
    if setter is None:
        return []
    name, _line, calls, _mean_call = setter
    started = _greenlets_named(profile, {name})
    if calls < RESULT_MIN_CALLS or started < RESULT_STARTED_PER_CALL * calls \
            or not RESULT_WAITERS_PER_CALL * calls <= seen.count \
            <= calls * _greenlets_named(profile, set(seen.names)):
        return []
    message = (
        f"Many greenlets waited together for one result another greenlet computes, again "
        f"and again: {seen.who} waited {waited:.3f} s in all in get() at {seen.where} "
        f"({seen.count} waits, {seen.count / calls:.0f} per call, {waited / own:.0%} of "
        f"their event wait), {waited / seen.count * 1e3:.0f} ms each on average, "
        f"{_as_long_as(setter)}, a greenlet started for each). {RESULT_FIX}")
    return _setter_awaited(message, seen, waited, waited / own, setter, RESULT_COST,
                           result=True)


def _event_wait_of(profile: Profile, names: frozenset[str]) -> float:
    """The event wait of the working waits (_working_waits) whose stacks greenlets of
    *names* last left."""
    ended = switched_out_at(profile)
    named = {g.id: _base_name(g.name) for g in profile.greenlets}
    return sum(event_wait(w) for w in _working_waits(profile)
               if named.get(ended.get(tuple(w.stack))) in names)


def _slow_caller(profile: Profile, waiting: frozenset[str], at_least: float
                 ) -> tuple[str, str, int, float] | None:
    """(name, line, calls, mean seconds per call) of the greenlets of a name other than
    *waiting* that waited longest in all at one line of the program's for requests
    (limits.requests_of_others) among those whose calls took at least *at_least* on
    average; None when none did.  (Among them only: an unseen gateway's load clients,
    30 greenlets of 60 ms calls, outweighed the token refresher's seven 200 ms calls its
    handlers waited on, and the gate went untold.)"""
    calls = [(t, c, key) for key, (_n, t, c) in requests_of_others(profile, waiting).items()
             if c and t / c >= at_least]
    if not calls:
        return None
    waited, count, (name, line) = max(calls)
    return name, line, int(count), waited / count


def _bottleneck(profile: Profile) -> list[Finding]:
    """serial_bottleneck's busy feeders."""
    polled = _polled(profile)
    rows = handoffs(profile, polled)
    duration = profile.duration_s
    total = sum(event_wait(w) for w in _working_waits(profile))
    # waited: the rows' event wait (their ready part was queueing behind others)
    # (only with the loop mostly idle: on a busy one, greenlets waiting at hand-offs for
    # a receiver of input that arrives at its own pace are the norm, not a bottleneck)
    waited, idle = paced(profile, rows, busy_room=False)
    if waited is None or not duration or waited < HANDOFF_SHARE * total \
            or waited < HANDOFF_MIN_WAITERS * duration:
        return []
    seen = waiters(profile, rows, weight=event_wait)
    waiter = profile.greenlet(seen.greenlet) if isinstance(seen.greenlet, int) else None
    linger = _lingerer(profile, rows, waiter)
    if linger is not None:
        return [_linger_finding(profile, rows, total, idle, linger)]
    # (a stand-in's connection is left out before the likeliest source is chosen: busy
    # in its handler on a starved machine, it outranked a batch's flusher on a timer and
    # then, left out, took the finding with it -- tests/diagnosis/timer_flush.py found
    # nothing in 4 of 60 runs beside three CPU hogs)
    feeders = _sources(profile, [f for f in _feeders(profile, {tuple(w.stack) for w in rows})
                                 if not stand_in_connection(profile, f)],
                       waiter, seen.count)
    if waiter is not None and feeders \
            and _base_name(feeders[0][0].name) != _base_name(waiter.name):
        # (beside a lead of another name, the waiters' namesakes are the waiters, each
        # credited with all its peers' calls through the stacks they share: an unseen
        # audit job's 8 enrichers, idle two thirds of the run, were named a second
        # pace-setter "busy 86 %")
        feeders = [f for f in feeders if _base_name(f[0].name) != _base_name(waiter.name)]
    if not feeders:
        return []
    worst = seen.worst
    worst_polled = polled(worst)
    if worst_polled:
        how = (f"most polling at {seen.where}: {worst.count} sleeps of "
               f"{event_wait(worst) / worst.count * 1e3:.1f} ms on average with almost no "
               "work between them, checking for another greenlet's result")
    else:
        call = f"{worst.call}() " if worst.call else ""
        how = (f"most in the {call}call at {seen.where}: a gevent queue, event or greenlet, "
               "waiting for another greenlet to put, set or finish")
    described = "; ".join(
        f"{greenlet_label(g.name, g.id)}{_one_of(profile, g)}, busy {busy / duration:.0%} of "
        "the run" + (f", {own:.3f} s of it waiting at {user_site(stack).user}" if stack else "")
        for g, busy, own, stack in feeders[:TOP_FEEDERS])
    # (already several of the lead's name: the lever is more of them, not "several")
    lead_named = _namesakes(profile, feeders[0][0])
    several = (f"more than the {lead_named} such greenlets there are" if lead_named > 1
               else "several such greenlets")
    lead, lead_stack = feeders[0][0], feeders[0][3]
    asleep = _asleep(profile, feeders[0])
    # peers: the greenlets that waited most at hand-offs have the lead feeder's name
    # (not merely some waiter: a single writer draining a queue waits at its get too)
    peers = waiter is not None and _base_name(waiter.name) == _base_name(lead.name)
    if peers and _waited_together(profile, _base_name(lead.name), rows) >= PEERS_TOGETHER_SHARE:
        return []
    # (a put() waits for room in a full queue: its consumer is behind, never spare)
    if not peers and asleep is not None and worst.call != "put" \
            and _ticks_per_wait(worst, asleep) >= SPARE_TICKS:
        return []
    # (a sleeper whose slices, by the timeline, released few of the waits: a ticker
    # beside their input, which came from elsewhere -- an unseen webhook relay's SLA
    # timer, asleep 98 % of the run, released 21 % of its workers' gets, the webhooks'
    # handlers the rest: told as the timer to wake, which changed nothing)
    if not peers and asleep is not None and worst.call != "put" \
            and (released := released_share(profile, lead, rows)) is not None \
            and released < TIMER_RELEASED_SHARE:
        return []
    gated = not peers and asleep is None and not worst_polled and _gated(profile, worst, seen)
    dealt = _dealt_out(profile, worst, waiter, rows)
    # peers taking work from a queue that nobody among them puts back into, and not
    # dealt out to them: workers awaiting work, fed from elsewhere, idle capacity and no
    # pool of items (an unseen webhook dispatcher's workers, several per subscriber's
    # lane, waited 379 s at their lanes' get() while a publisher and retry timers fed
    # them: a healthy run was told as peers sharing a pool too small, and so were two
    # planted causes, second)
    if peers and dealt is None and worst.call in ("get", "get_nowait") \
            and gives_back(seen.where or "") is False:
        return []
    if dealt is not None:
        story = (
            f"The work was dealt out in advance: {dealt.who} waited {dealt.put_s:.3f} s "
            f"({dealt.put_s / duration:.0%} of the run) to put at "
            f"{user_site(dealt.row.stack).user} while the waiting greenlets waited "
            f"{event_wait(worst):.3f} s at their get: more than fits in the rest of the "
            "run, and one queue cannot be full for a put and empty for a get at once. So "
            "each of them most likely takes from a queue of its own (items dealt round "
            "robin, by key or by hash): the slow items pile up behind a few while the "
            "others sit idle, and the dealer waits on the full queue. Fix: one shared "
            "queue that every worker takes from (gevent.queue.Queue, or "
            "gevent.pool.Pool(n).imap_unordered over the items), so that a free worker "
            "takes the next item; keep per-worker queues only where an item must go to "
            "one worker (ordering by key), and then balance by load, not in turn.")
    elif peers:
        held = f", waiting at {user_site(lead_stack).user}" if lead_stack else ""
        story = (
            f"The greenlets busy meanwhile have the waiting ones' name ('"
            f"{_base_name(lead.name)}'{held}): peers waiting for one another's puts. Most "
            "often that is a pool of items they take and give back (clients, connections: "
            "redis-py's BlockingConnectionPool is a queue.LifoQueue) shared by more "
            "greenlets than it holds items, so each waits for a holder to finish its call. "
            "Fix: a pool as large as the number of greenlets using it at once, or fewer "
            "greenlets, or less work done while holding an item. If instead one of them "
            "computes what the others wait for (a cache refresh that every request waits "
            "on), they wait for its call: refresh in a greenlet of its own ahead of expiry "
            "and serve the value it replaces meanwhile. If they hand work to one another (a "
            "crawler's frontier), the waiting is the work in flight, not a fault.")
    elif asleep is not None:
        story = (
            f"Through the run meanwhile, {greenlet_label(lead.name, lead.id)} slept on a "
            f"timer: {asleep[1]:.3f} s of the run ({asleep[1] / duration:.0%}) at "
            f"{user_site(lead_stack or []).user} (gevent.sleep, {asleep[0]} sleeps of "
            f"{asleep[1] / asleep[0] * 1e3:.0f} ms on average). If what the others waited for "
            "comes from it (a batch it flushes when it wakes), it comes only when the sleep "
            "ends: they waited for its timer, not for its work. Fix: wake it when there is "
            "work instead of sleeping a fixed interval -- let it wait on a "
            "gevent.event.Event the waiters set, or on a queue they put to, and keep a "
            "batch together with a short linger or a batch size -- or shorten the "
            "interval. If it is a ticker unrelated to their input (a heartbeat, a "
            "reporter), or that pace is the input's own (items that arrive on a "
            "schedule), the waiting greenlets are spare capacity, not a fault.")
    elif gated:
        story = (
            f"Busy through the run meanwhile, one call at a time: {described}. The others "
            f"waited in wait() again and again ({worst.count} waits by {gated} "
            f"greenlet{'s' if gated > 1 else ''}): an event that a greenlet sets. If the "
            "one that sets it clears it while it works (a gate closed around each refresh "
            "of a shared value: a config, a token, a cache), "
            "every waiter stops for every refresh though it holds a usable value, and more "
            "refreshers only refresh more often. Fix: do not clear it -- build the new value "
            "and swap it in, so that the waiters wait only for the first one. If instead "
            "each set brings new work, do that work concurrently (several such greenlets, "
            "or gevent.pool.Pool(n).imap_unordered over its inputs).")
    elif (paging := cursor_paging(profile, user_site(lead_stack).user
                                  if lead_stack else None)) is not None:
        story = (
            f"Busy through the run meanwhile, one call at a time: {described}. Who woke "
            "whom is not recorded, but "
            f"{greenlet_label(lead.name, lead.id)} most likely set their pace: "
            f"{paging.told()}. The waiting greenlets are spare capacity meanwhile, not a "
            "fault, and more of them would change nothing.")
    else:
        story = (
            f"Busy through the run meanwhile, one call at a time: {described}. Who woke "
            "whom is not recorded: these are the greenlets that kept working while the "
            "others waited, so most likely their pace set everyone's. If what they wait on "
            "is input that arrives at its own pace (a long-poll on a message broker, a "
            "server's requests), the waiting greenlets are spare capacity, not a fault, and "
            "more of these would change nothing."
            # (an unseen feed relay's follower paged by a cursor: told to do its work
            # concurrently, which no cursor allows; 48 workers instead of 12 ran slower)
            + (" So are they if each of its calls needs the one before it (paging by a "
               "cursor: the next page's address is in this one's answer): then fewer, "
               "larger pages (a limit= or page_size= parameter) are the lever."
               if lead_stack and any(is_client_frame(f) for f in lead_stack) else "")
            + " Otherwise, fix: do that work "
            f"concurrently -- {several}, or gevent.pool.Pool(n).imap_unordered "
            "over its inputs -- or let the waiting greenlets do it themselves"
            + ("; and wait on a gevent.event.Event or AsyncResult that the feeder sets "
               "instead of polling: it wakes the waiter as soon as the result is there"
               if worst_polled else "")
            + ".")
    message = (
        f"Many greenlets waited for a few: {seen.who} waited {waited:.3f} s in all at "
        f"hand-offs ({waited / total:.0%} of all event wait; {how}) while the loop sat "
        f"{idle_told(profile, idle)}. {story}")
    # The finding points where the fix goes: the lead feeder's line, or for peers
    # sharing a pool, the line that waits for its items.
    # Dealt out: the dealer's put, where the fix goes.
    at = list(dealt.row.stack) if dealt is not None else \
        list(worst.stack) if peers or not lead_stack else lead_stack
    return [_finding(SERIAL_BOTTLENECK, message, waited, at,
                     greenlet=dealt.greenlet if dealt else lead.id, waits=seen.count,
                     peers=peers, gate=bool(gated),
                     **({"dealt_out": user_site(dealt.row.stack).user} if dealt else {}),
                     handoff_wait_s=waited, handoff_share=waited / total,
                     idle_share=idle, feeders=[g.id for g, *_ in feeders[:TOP_FEEDERS]],
                     site=user_site(lead_stack).user if lead_stack else None,
                     handoff_site=seen.where)]


# A batcher that waited at least this share of the run in a queue's get() with a
# timeout, beside a get() without one in the same function (the batch's first item),
# lingered for more items before each flush: everyone waiting for its batches waited out
# that deadline too.  An unseen group-commit writer lingered 15 ms per batch for 64
# records that 24 producers, each waiting for its ack, could never send: 58 % of the
# run at its get(timeout=remaining); it was told as its store's connection being busy,
# and flushing as soon as the queue was empty took 52 % off the run.
LINGER_RUN_SHARE = 0.25
# The source of a get() that passes a timeout: get(timeout=...), or get(True, seconds).
_TIMED_GET = re.compile(r"\bget\(.*\btimeout\b|\bget\(\s*(?:True|1)\s*,")


class Linger(NamedTuple):
    """A batcher lingering for more items (_lingerer)."""

    greenlet: Any
    row: Any        # the waits row of its get() with a timeout
    first: Any      # the waits row of its get() without one: the batch's first item
    lingered: float  # seconds of event wait at ``row``


def _lingerer(profile: Profile, rows: list[Any], waiter: Any) -> Linger | None:
    """The batcher among the hand-off *rows* that lingered longest (see LINGER_RUN_SHARE),
    of a name other than the *waiter*'s: greenlets that linger are the waiters
    themselves when they are consumers timing out to check for a stop; None when none.
    The timeout is read from the source line, where the profile is analysed."""
    ended = switched_out_at(profile)
    waiting = _base_name(waiter.name) if waiter is not None else None
    # by the name of the greenlets that left them (a stack knows only its last one)
    gets: dict[tuple[str, str, str], list[Any]] = {}
    for w in rows:
        site = user_site(w.stack).user
        g = profile.greenlet(ended.get(tuple(w.stack)))
        if w.call == "get" and site is not None and g is not None \
                and _base_name(g.name) != waiting:
            frame = parse_frame(site)
            gets.setdefault((_base_name(g.name), frame.path, frame.function), []).append(w)
    found = None
    for mine in gets.values():
        timed = [w for w in mine if _TIMED_GET.search(frame_source(user_site(w.stack).user))]
        untimed = [w for w in mine if w not in timed]
        lingered = sum(event_wait(w) for w in timed)
        if timed and untimed and lingered >= LINGER_RUN_SHARE * profile.duration_s \
                and (found is None or lingered > found.lingered):
            row = max(timed, key=event_wait)
            found = Linger(profile.greenlet(ended.get(tuple(row.stack))), row,
                           max(untimed, key=event_wait), lingered)
    return found


def _linger_finding(profile: Profile, rows: list[Any], total: float, idle: float,
                    linger: Linger) -> Finding:
    """serial-bottleneck told as a batcher's linger (see LINGER_RUN_SHARE), with the
    hand-off waits of the others than the batcher (its own gets wait for producers)."""
    ended = switched_out_at(profile)
    others = [w for w in rows if ended.get(tuple(w.stack)) != linger.greenlet.id] or rows
    seen = waiters(profile, others, weight=event_wait)
    waited = sum(event_wait(w) for w in others)
    duration = profile.duration_s
    site = user_site(linger.row.stack).user
    lingers = linger.row.count
    message = (
        f"Many greenlets waited for a batcher that lingers: {seen.who} waited "
        f"{waited:.3f} s in all at hand-offs ({waited / total:.0%} of all event wait; most "
        f"at {seen.where}) while the loop sat {idle_told(profile, idle)}. Meanwhile "
        f"{greenlet_label(linger.greenlet.name, linger.greenlet.id)} waited "
        f"{linger.lingered:.3f} s ({linger.lingered / duration:.0%} of the run) in a get() "
        f"with a timeout at {site} ({lingers} waits of "
        f"{event_wait(linger.row) / max(lingers, 1) * 1e3:.1f} ms on average), after "
        f"taking a batch's first item at {user_site(linger.first.stack).user}: it waits "
        "out a deadline for more items before each flush, and whoever waits for a batch "
        "waits out that deadline too. When the producers wait for their items' results "
        "(an ack, a reply), a batch never holds more items than there are producers, so "
        "the linger only adds its time to every item. Fix: flush as soon as the queue is "
        "empty (get_nowait() after the first item; items that arrive during a flush make "
        "the next batch), or a linger no longer than the flush itself.")
    return _finding(SERIAL_BOTTLENECK, message, waited, list(linger.row.stack),
                    greenlet=linger.greenlet.id, waits=seen.count, peers=False, gate=False,
                    linger=site, lingered_s=linger.lingered, handoff_wait_s=waited,
                    handoff_share=waited / total, idle_share=idle,
                    feeders=[linger.greenlet.id], site=site, cost_meaning=LINGER_COST)


def without_lingers_told(found: list[Finding]) -> list[Finding]:
    """*found* without the findings that tell as a linger of their jobs' slots
    (pool-full's ``lingered_in_slots``) a batcher's line that serial-bottleneck tells
    (its ``linger``): one cause, one finding, the one that names the batcher."""
    told = {f.extra.get("linger") for f in found if f.kind == SERIAL_BOTTLENECK} - {None}
    return [f for f in found if f.extra.get("lingered_in_slots") not in told]


# Stalls on the wire that a busy greenlet's calls can wait out: its pace, and everyone's
# waiting for it, is then theirs.
STALLS = (DELAYED_ACK_STALL, REQUEST_BODY_STALL)


def after_stalls_told(found: list[Finding]) -> list[Finding]:
    """*found*, with each serial-bottleneck or connection-pool-full finding whose
    greenlets waited at the line where a stall finding's calls stalled (a delayed ACK on
    every answer) ranked just after that finding and saying so: the stall set their
    pace, or stretched each request's hold on its connection (an unseen service's load
    clients, their every answer 42 ms late on Nagle and a delayed ACK, were told as a
    bottleneck to widen first, the stall second; an unseen flag service's pool of 8 was
    told "no other finding explains their waits (the network was not the slow part)"
    beside that very stall, whose cure alone gained as much as a larger pool)."""
    for f in [f for f in found if f.kind in (SERIAL_BOTTLENECK, CONNECTION_POOL_FULL)]:
        line = frame_line(f.extra.get("site"))
        stall = next((o for o in found if o.kind in STALLS and line is not None
                      and frame_line(o.extra.get("site")) == line), None)
        if stall is None:
            continue
        f.extra["ranks_after"] = stall.kind
        if f.kind == SERIAL_BOTTLENECK:
            tell_before_cost(f, f"Their calls at {stall.extra['site']} stalled on the wire "
                                f"(the {stall.kind} finding): cure that first, and their "
                                "pace with it.")
        else:
            f.message = f.message.replace(POOL_NOT_EXPLAINED, "")
            tell_before_cost(f, f"Each request at {stall.extra['site']} held its connection "
                                f"while its answer stalled on the wire (the {stall.kind} "
                                "finding): cure that first, and each holds it for less; "
                                "then see whether the pool still fills.")
    return found


LINGER_COST = ("greenlet-seconds the others spent waiting at hand-offs (a queue, an event, a "
               "greenlet's end) while a batcher lingered for more items")


def _namesakes(profile: Profile, g: Any) -> int:
    """The greenlets of *g*'s name (itself included) that lived at least
    FEEDER_BUSY_SHARE of the run: workers side by side, not a server's connections one
    after another."""
    return sum(1 for other in profile.greenlets if _base_name(other.name) == _base_name(g.name)
               and other.run_s + other.wait_s >= FEEDER_BUSY_SHARE * profile.duration_s)


def _one_of(profile: Profile, g: Any) -> str:
    """", one of 4 of that name" for a feeder with long-lived namesakes, else ""."""
    named = _namesakes(profile, g)
    return f", one of {named} of that name" if named > 1 else ""


# Peers (waiters and busy greenlets of one name) that spent at least this share of
# their hand-off wait all waiting at once were not waiting for one another: whatever
# they waited for came from elsewhere.  An unseen sync's 8 workers took a page's
# records from a queue and all sat idle while the main greenlet fetched the next page:
# they were told as sharing a pool of items among themselves, first, at 15 s.
PEERS_TOGETHER_SHARE = 0.5


def _waited_together(profile: Profile, name: str, rows: list[Any]) -> float:
    """The share of the hand-off wait (at *rows*) of the greenlets named *name* spent
    while every one of them then alive (two at least) waited at a hand-off, from the
    timeline's slices (where each went on to wait); 0 without a whole timeline."""
    if not profile.slices or profile.slices_dropped:
        return 0.0
    row_ids = {id(r) for r in rows}
    at_rows = {i for i, w in enumerate(profile.waits) if id(w) in row_ids}
    mine = {g.id for g in profile.greenlets if _base_name(g.name) == name}
    slices: dict[int, list[Any]] = {}
    for s in profile.slices:
        if s.greenlet in mine:
            slices.setdefault(s.greenlet, []).append(s)
    edges: list[tuple[float, int, int]] = []  # (time, alive step, waiting step)
    for own in slices.values():
        own.sort(key=lambda s: s.start_s)
        edges += [(own[0].start_s, 1, 0), (own[-1].start_s + own[-1].duration_s, -1, 0)]
        for a, b in zip(own, own[1:]):
            end = a.start_s + a.duration_s
            if a.wait in at_rows and b.start_s > end:
                edges += [(end, 0, 1), (b.start_s, 0, -1)]
    edges.sort()
    alive = waiting = 0
    last = together = total = 0.0
    for t, step_alive, step_waiting in edges:
        span = waiting * (t - last)
        total += span
        if waiting >= alive >= 2:
            together += span
        alive, waiting, last = alive + step_alive, waiting + step_waiting, t
    return together / total if total > 0 else 0.0


class Dealt(NamedTuple):
    """Puts into full queues that the waiters' gets could not have shared (_dealt_out)."""

    who: str  # the putters' names
    put_s: float  # their event wait at those puts
    row: Any  # the heaviest put's waits row
    greenlet: Any  # the last greenlet that waited there


def _dealt_out(profile: Profile, worst: Any, waiter: Any, rows: list[Any]) -> Dealt | None:
    """The puts into full queues by greenlets of other
    names than the *waiter*'s, when the waiters' gets (*worst*, a get() row) exceed what
    fits outside those puts: one queue is never full for a put while empty for a get,
    so with N waiters, gets of more than N x (run - puts) greenlet-seconds were on other
    queues than the puts (each worker its own inbox); None otherwise (an unseen report
    dispatcher dealt stores round robin to 10 inboxes of 3: its puts waited 6.5 s of an
    8.9 s run while the workers waited 91.5 s at their gets)."""
    if waiter is None or worst.call != "get":
        return None
    name = _base_name(waiter.name)
    ended = switched_out_at(profile)
    puts = [(w, g) for w in rows if w.call == "put" and (g := profile.greenlet(
        ended.get(tuple(w.stack)))) is not None and _base_name(g.name) != name]
    put_s = sum(event_wait(w) for w, _g in puts)
    getters = _greenlets_named(profile, {name})
    if not puts or put_s < block_threshold(profile) or not getters \
            or event_wait(worst) <= getters * max(0.0, profile.duration_s - put_s):
        return None
    top, dealer = max(puts, key=lambda pair: event_wait(pair[0]))
    who = ", ".join(repr(n) for n in sorted({_base_name(g.name) for _w, g in puts}))
    return Dealt(who, put_s, top, dealer.id)


def _gated(profile: Profile, worst: Any, seen: Any) -> int:
    """The greenlets of the waiters' names when the heaviest hand-off row waited in
    wait() (an Event, an AsyncResult) at least GATE_WAITS_EACH times per greenlet: an
    event set again and again, a gate, not a result awaited once; else 0."""
    waiting = max(1, _greenlets_named(profile, set(seen.names)))
    return waiting if worst.call == "wait" and worst.count >= GATE_WAITS_EACH * waiting else 0


def released_share(profile: Profile, lead: Any, rows: list[Any]) -> float | None:
    """The share of the waits at the hand-off *rows* whose greenlet became ready while
    a greenlet of *lead*'s name ran (within RELEASE_WINDOW_S of one of its slices), by
    the timeline: how much of their input it released.  None when the timeline cannot
    say (none recorded, or slices dropped)."""
    if not profile.slices or profile.slices_dropped:
        return None
    handoff_rows = {id(w) for w in rows}
    ended_at_handoff = {i for i, w in enumerate(profile.waits) if id(w) in handoff_rows}
    name = _base_name(lead.name)
    leads = {g.id for g in profile.greenlets if _base_name(g.name) == name}
    spans: list[tuple[float, float]] = []
    by_greenlet: dict[int, list[Any]] = {}
    for piece in profile.slices:
        if piece.greenlet in leads:
            spans.append((piece.start_s - RELEASE_WINDOW_S,
                          piece.start_s + piece.duration_s + RELEASE_WINDOW_S))
        else:
            by_greenlet.setdefault(piece.greenlet, []).append(piece)
    spans.sort()
    starts = [start for start, _end in spans]
    released = resumed = 0
    for pieces in by_greenlet.values():
        pieces.sort(key=lambda piece: piece.start_s)
        for before, after in zip(pieces, pieces[1:]):
            if before.wait not in ended_at_handoff:
                continue
            resumed += 1
            ready_at = after.start_s - (after.ready_s or 0.0)
            k = bisect_right(starts, ready_at) - 1
            released += k >= 0 and ready_at <= spans[k][1]
    return released / resumed if resumed else None


def _ticks_per_wait(worst: Any, asleep: tuple[int, float]) -> float:
    """How many of the timer feeder's sleeps one wait in the *worst* hand-off row lasted
    on average."""
    sleeps, slept = asleep
    return (event_wait(worst) / worst.count) / (slept / sleeps) if worst.count else 0.0


def _sources(profile: Profile, feeders: list[tuple[Any, float, float, list[str] | None]],
             waiter: Any, handoff_waits: int
             ) -> list[tuple[Any, float, float, list[str] | None]]:
    """The feeders less the waiting greenlet's peers (its name) when one of another name
    was busy too, waking about as often as they took items.  A wait stack knows only the
    last greenlet to leave it, so one of a pool's peers is credited with the waits of
    all who share its work's stacks, capped by its own: busy on paper though each peer
    worked a share.  Alone, such a peer is the story (peers sharing a pool of items);
    beside a greenlet of another name busy through the run and waking once per item or
    so, that one is the likelier source of their items: sixteen workers taking jobs a
    producer puts every 5 ms (tests/diagnosis/few_workers.py: 120 sleeps, 144 waits)
    wait for its puts, not for one another's.  A heartbeat's few long sleeps feed
    nobody."""
    if waiter is None:
        return feeders
    name = _base_name(waiter.name)
    # a sleeper must wake about as often as they took items (a heartbeat's few long
    # sleeps feed nobody); a receiver may hand out a batch per wake
    others = [f for f in feeders if _base_name(f[0].name) != name
              and _wakes(profile, f[3]) >= (SLEEPER_WAKE_SHARE if _asleep(profile, f)
                                            else SOURCE_WAKE_SHARE) * handoff_waits]
    # working feeders first: a ticker beside them is no likelier source
    return sorted(others, key=lambda f: _asleep(profile, f) is not None) or feeders


def _wakes(profile: Profile, stack: list[str] | None) -> int:
    """The wake-ups at *stack* (a feeder's heaviest own wait), 0 for none."""
    return sum(w.count for w in profile.waits if stack and w.stack == stack)


def _asleep(profile: Profile, feeder: tuple[Any, float, float, list[str] | None]
            ) -> tuple[int, float] | None:
    """(sleeps, seconds) when the feeder spent most of its busy time in gevent.sleep at
    the stack it waited at most (a flusher on a fixed timer: the others wait for the
    timer), else None."""
    _greenlet, busy, own, stack = feeder
    if not stack or not SLEEP_FRAME.search(stack[0].replace("\\", "/")):
        return None
    rows = [w for w in profile.waits if w.stack == stack]
    sleeps = sum(w.count for w in rows)
    slept = min(sum(event_wait(w) for w in rows), own)
    if not sleeps or slept < TIMER_FEEDER_SHARE * busy:
        return None
    return sleeps, slept


def other_waits(profile: Profile, handoff_stacks: set[tuple[str, ...]]
                ) -> dict[tuple[str, ...], float]:
    """Stack -> event wait there, for the stacks that are no hand-off, no idle server
    connection and no limit (a Pool's slot, a lock: gevent's imap runner blocked for
    a slot 94 % of a run is held back, not working): the waits of greenlets at work."""
    out: dict[tuple[str, ...], float] = {}
    for w in _working_waits(profile):
        key = tuple(w.stack)
        if key not in handoff_stacks and not is_limit_wait(w):
            out[key] = out.get(key, 0.0) + event_wait(w)
    return out


def stacks_left(profile: Profile) -> dict[int, set[tuple[str, ...]]]:
    """Greenlet id -> the stacks it was the last to switch out at (``runs`` rows): a
    stack knows only its last greenlet."""
    out: dict[int, set[tuple[str, ...]]] = {}
    for r in profile.runs:
        if isinstance(r.greenlet, int):
            out.setdefault(r.greenlet, set()).add(tuple(r.stack))
    return out


def own_waits(stacks: set[tuple[str, ...]], working: dict[tuple[str, ...], float],
              waited: float) -> tuple[float, tuple[str, ...] | None]:
    """The waits at work (*working*, from other_waits) of whoever last left *stacks*,
    capped by what they *waited* themselves (stacks shared with others count for them
    at most that), and the stack of the largest."""
    mine = {s: working[s] for s in stacks if s in working}
    heaviest = max(mine, key=mine.__getitem__) if mine else None
    return min(sum(mine.values()), waited), heaviest


def stand_in_connection(profile: Profile,
                        feeder: tuple[Any, float, float, list[str] | None]) -> bool:
    """Whether a feeder (_feeders) is a connection of an in-process server the program
    calls through requests, busy in its handler: a stand-in for an upstream, busy with
    the latency of answers the program awaits, not feeding a queue (an unseen feed
    relay's indexer was named a second pace-setter, "busy 89 %" asleep in its handler;
    an unseen fingerprinting job's origin, the workers' input)."""
    g, _busy, _own, stack = feeder
    return g.name.endswith(CONNECTION_GREENLET) and bool(stack) and in_handler(stack) \
        and bool(own_server_hosts(profile))


def _feeders(profile: Profile, handoff_stacks: set[tuple[str, ...]],
             min_share: float = FEEDER_BUSY_SHARE
             ) -> list[tuple[Any, float, float, list[str] | None]]:
    """(greenlet, busy seconds, seconds waiting on anything but a hand-off, the stack
    it mostly waited at), busiest first, for the greenlets busy at least *min_share* of
    the run.  A wait stack knows only the last greenlet that
    switched out there, so a greenlet's own waits are its stacks' waits, capped by the
    greenlet's own event wait (stacks it shares with others count for it at most what it
    waited itself)."""
    working = other_waits(profile, handoff_stacks)
    stacks_of = stacks_left(profile)
    hub = profile.hub.get("id")
    found = []
    for g in profile.greenlets:
        if g.id == hub or g.id not in stacks_of:
            continue
        own, heaviest = own_waits(stacks_of[g.id], working, event_wait(g))
        busy = g.run_s + own
        if busy < min_share * profile.duration_s:
            continue
        found.append((g, busy, own, list(heaviest) if heaviest else None))
    return sorted(found, key=lambda f: (-f[1], f[0].id))
