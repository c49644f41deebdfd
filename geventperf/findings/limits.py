"""Concurrency limits that paced an idle loop: a gevent ``Pool`` too small
(``pool-full``), requests' connection pool too small (``connection-pool-full``) and a
contended lock (``lock-contended``), from the wait stacks.

``gevent.pool.Pool`` bounds how many greenlets run at once with a semaphore: spawning
into a full pool waits in ``Pool.add`` (``Pool.wait_available`` waits the same way) for
a greenlet of the pool to finish.  When the loop sat idle meanwhile, the jobs were
waiting on I/O, and the pool's size -- not the CPU, not one slow call -- set the pace:
40 jobs of 50 ms each through ``Pool(2)`` take a second however fast the code is.  The
semaphore is compiled, so the wait's innermost Python frame is gevent's ``pool.py``,
which tells these waits apart from any other.

requests' ``HTTPAdapter`` keeps at most ``pool_maxsize`` connections per host in
urllib3's pool; with ``pool_block=True`` a request finding them all in use waits in the
pool's queue (``HTTPConnectionPool._get_conn``) for one to come back.  Fifty greenlets
sharing a session of four connections to a 0.1 s upstream queue there for most of their
time, and the report's other tables show only ``Session.get``: the network looks slow
when the pool's size is what paced them.

A monkey-patched ``threading.Lock`` (gevent's ``thread.LockType``) or ``RLock``
(``gevent.lock.RLock``) waits in Python frames of gevent too, so a greenlet queued for a
lock that another holds across a slow call -- the network, the disk -- is told apart,
except where the lock is a standard-library primitive's inner one (an ``Event``,
``Condition`` or ``queue.Queue`` waiting for its event, not for a holder).  gevent's
own ``Semaphore``/``BoundedSemaphore`` are compiled: a wait on one shows only the
caller's line, like any event's; the instruction that line was at tells it apart
(``StackTime.call``): entering a ``with`` block (a Python ``__enter__`` would have been
a frame of its own) or calling a method named ``acquire``, from the program's own code.

Both are consequences: a full pool's jobs, or a lock's holders, took long.  Only when
nothing else explains why (plain waits on a downstream) is the limit the lever; when
another finding weighs as much -- blocked reads inside a parser, a loop blocker -- that
is why they took long, a bigger pool or a shorter lock would only queue them elsewhere,
and ``compute`` drops the limit's finding (:func:`without_outweighed_limits`); so does
a finding of what slowed the holders (blocked reads, a blocking call, a loop blocker, a
GC pause, a full threadpool) in the very function that took the lock or used the pool,
whatever it costs.
"""

from __future__ import annotations

import re
import statistics
from typing import Any, Callable, Iterator, NamedTuple

from geventperf.findings.common import (
    BLOCKED_READ,
    BLOCKING_CALL,
    CONNECTION_GREENLET,
    CONNECTION_POOL_FULL,
    CPU_STARVED,
    DELAYED_ACK_STALL,
    GC_PAUSE,
    LOCK_CONTENDED,
    LOOP_BLOCKED,
    LOOP_HELD,
    LOOP_SATURATED,
    NEW_CONNECTIONS_QUEUED,
    POOL_FULL,
    REQUEST_BODY_STALL,
    REQUEST_FRAME,
    REQUESTS_FAILED,
    RETRY_BACKOFF,
    SERIAL_BOTTLENECK,
    THREADPOOL_SATURATED,
    UNCOMPRESSED_BODIES,
    WORKERS_SATURATED,
    _base_name,
    _count,
    _events,
    _f,
    _finding,
    _greenlets_named,
    _names,
    _workers,
    block_threshold,
    cpu_wait,
)
from geventperf.findings.cpuhot import hot_code
from geventperf.findings.loop import SLEEP_FRAME, TOP_HOLDERS
from geventperf.findings.saturated import idle_server_wait
from geventperf.formats._frames import is_library_frame
from geventperf.frames import (
    PATCHED_RLOCK_FRAME,
    blocks_taking_the_same,
    frame_line,
    is_idle_server_wait,
    is_machinery,
    parse_frame,
    socket_read_depth,
    user_site,
    with_block_lines,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import LOCK_CALLS, Finding, Profile, greenlet_label
from geventperf.sampling.views import chains, samples_of

# A wait for a free slot of a gevent Pool: its innermost frame (path:line:function).
SLOT_WAIT = re.compile(r"[/\\]gevent[/\\]pool\.py:\d+:(Pool\.add|Pool\.wait_available)$")
# A wait for the results of Pool.map (its innermost frame): the line that called it is
# where a Pool.map's spawning greenlet came from.
MAP_WAIT = re.compile(r"[/\\]gevent[/\\]pool\.py:\d+:GroupMappingMixin\.map$")
# The name of an imap's own greenlet (gevent's IMapUnordered or IMap, compiled or not),
# which spawns its jobs into the pool.
IMAP_GREENLET = re.compile(r"^gevent\.(_gevent_c_imap|_imap)\.IMap(Unordered)?\.")
# The frame that waits for a free connection of urllib3's pool: directly (gevent's
# compiled queue, once gevent patched queue), or under the standard library's queue
# waiting on a patched lock.
CONN_SLOT_WAIT = re.compile(r"[/\\]urllib3[/\\]connectionpool\.py:\d+:"
                            r"HTTPConnectionPool\._get_conn$")
# A wait to take a patched threading lock: gevent's frames of the acquire, innermost.
# A patched threading.RLock adds the standard library's frame (PATCHED_RLOCK_FRAME).
LOCK_FRAMES = re.compile(r"[/\\]gevent[/\\](thread\.py:\d+:LockType\.acquire|"
                         r"lock\.py:\d+:RLock\.(acquire|__enter__))$|"
                         + PATCHED_RLOCK_FRAME)
# Callers whose lock waits are an event's, not a holder's: the standard library builds
# Event, Condition, Semaphore, Barrier and queue.Queue on locks it waits on.
EVENT_ON_A_LOCK = re.compile(r"[/\\](threading|queue)\.py:\d+:")
# The loop was idle in its poll at least this share of the run: it had room for more
# jobs at once.  A busier loop would only queue a bigger pool's greenlets behind each
# other (loop-saturated's story), so a larger pool is no cure there; nor a shorter lock.
POOL_IDLE_SHARE = 0.5
# ... or, busier than that, its greenlets queued for it under this share of their
# waiting (the I/O, timers and locks they awaited being the rest): the loop kept nobody
# waiting long, and a lock or a pool their waits piled up at still paced them (an unseen
# inventory sync's workers waited 82 % of their time on a metrics client's lock whose
# holders blocked sending to a slow agent; its loop, 69 % busy with in-process servers
# and the jobs' own work, queued them 5 %, and no finding told the lock).  Not for
# hand-offs, whose story needs the idle loop (handoff.py: an unseen relay's deliverers
# waiting for a long-poll queued 15 % on a loop 77 % busy, and were healthy).
LIMIT_QUEUE_SHARE = 0.1
# The thread's waits for a CPU are told beside an idle share from this share of the
# run on: below, they move the share by a point or two.
CPU_WAIT_TOLD = 0.05
# A lock's waits lasted at least this share of the run on average: the waiters did not
# get it for most of the run, while its holders took it again and again (29 workers
# behind a BoundedSemaphore(1) waited 8.3 s each of an 8.6 s run while one worked).
STARVED_SHARE = 0.5


# pool-full's claim, left out when another finding explains what the jobs joined
JOINED_NOT_EXPLAINED = "no other finding explains their waits, so "
# ... and the end of its lead sentence on jobs joining what they started
JOINED_LEAD_END = ", holding its slot meanwhile. "


def _imap_iterated_at(profile: Profile, gids: list[Any],
                      ended: dict[tuple[str, ...], Any]) -> str | None:
    """The program's line where the greenlet that started an imap (the parent of the
    imap's own greenlets among *gids*, those that waited for slots) waited most right
    at its own line (``for result in pool.imap_unordered(...)``), or None (an unseen
    enrichment job's Pool(4) was told "inside gevent's Pool.imap", with no line of its
    own)."""
    parents = {g.parent for g in (profile.greenlet(gid) for gid in set(gids) - {None})
               if g is not None and IMAP_GREENLET.search(g.name)}
    rows = [w for w in profile.waits if w.stack and ended.get(tuple(w.stack)) in parents
            and user_site(w.stack).user and user_site(w.stack).library is None]
    return user_site(max(rows, key=lambda w: w.wait_s).stack).user if rows else None


# A Pool spawned into from at least this many of a server's connections is shared by
# its concurrent requests.
SHARED_BY_REQUESTS = 2


def _shared_by_requests(profile: Profile, gids: list[Any]) -> str:
    """A sentence when the greenlets that spawned into the pool (*gids*, by their name:
    a stack knows only the last one) were a server's connections, or were started by at
    least SHARED_BY_REQUESTS of them: one pool, created once (at module level), shared
    by the service's concurrent requests (an unseen search gateway's Pool(4) of price
    lookups, fed by every request's imap: told a larger Pool, not that each request
    queued behind the others' lookups); "" otherwise."""
    names = {_base_name(g.name) for g in (profile.greenlet(gid) for gid in set(gids) - {None})
             if g is not None}
    spawners = [g for g in profile.greenlets if _base_name(g.name) in names]
    connections = {g.id for g in spawners if g.name.endswith(CONNECTION_GREENLET)} | {
        g.parent for g in spawners if (p := profile.greenlet(g.parent)) is not None
        and p.name.endswith(CONNECTION_GREENLET)}
    if len(connections) < SHARED_BY_REQUESTS:
        return ""
    return (f" It is one Pool shared by the service's concurrent requests "
            f"({len(connections)} connections' handlers spawned into it): each request's "
            "jobs queue behind every other request's, so a larger shared Pool, or a Pool "
            "per request that bounds each one's own fan-out, is what frees them.")


def pool_full(profile: Profile) -> list[Finding]:
    """Spawns that waited for a free slot of a gevent Pool while the loop had room
    (paced): one finding for all of them.  ``cost_s``: the greenlet-seconds they waited."""
    rows = slot_waits(profile)
    waited, idle = paced(profile, rows)
    if waited is None:
        return []
    worst = max(rows, key=lambda w: w.event_wait_s or w.wait_s)
    placed = [w for w in rows if user_site(w.stack).user]
    where = user_site(max(placed, key=lambda w: w.wait_s).stack).user if placed else None
    if where is None:  # spawned by Pool.map's own greenlet: name the map's caller
        maps = [w for w in profile.waits if w.stack and MAP_WAIT.search(w.stack[0])
                and user_site(w.stack).user]
        where = user_site(max(maps, key=lambda w: w.wait_s).stack).user if maps else None
    count = sum(w.count for w in rows)
    ended = switched_out_at(profile)
    gids = [ended.get(tuple(w.stack)) for w in rows]
    if where is None:  # spawned by an imap's own greenlet: the line that iterated it
        where = _imap_iterated_at(profile, gids, ended)
    who = _names(profile, gids) if any(g is not None for g in gids) else "greenlets"
    job_greenlets = pool_jobs(profile, set(gids))
    jobs = sorted({_base_name(g.name) for g in job_greenlets})
    from geventperf.findings.held import (  # (held.py builds on this module)
        CACHE_TOLD,
        CALLS_EACH_TOLD_WORDS,
        TAIL_FIX,
        TAIL_TOLD,
        error_answers,
        jobs_asleep,
        jobs_waited,
        jobs_waits,
        joined_in_program,
        line_upstream,
        lingering_setter,
        pacing_sleeper,
        slow_tail,
        upstream_queued,
    )
    job_ids = [g.id for g in job_greenlets]
    own_stacks = {tuple(w.stack) for w in rows}
    waits = jobs_waits(profile, job_ids, own_stacks)
    held = jobs_waited(profile, job_ids, own_stacks, waits=waits, per_job=True)
    job_rows = waits[1]
    heaviest = max(job_rows, key=event_wait) if job_rows else None
    slept = jobs_asleep(job_rows)
    # Imported here: retries.py builds on this module.
    from geventperf.findings.retries import own_backoff
    if slept is not None and any(f.extra.get("site") == slept.line
                                 for f in own_backoff(profile)):
        return []  # a retry loop's back-off: retry-backoff tells it, one cause one finding
    asleep, joined = slept is not None, joined_in_program(heaviest)
    linger = None if asleep or joined else lingering_setter(
        profile, heaviest, set(job_ids) | {g for g in gids if g is not None})
    if linger is not None:
        held += LINGERED.format(name=linger.name, life=linger.life, waited=linger.waited,
                                line=linger.line, count=linger.count)
    waiter = profile.greenlet(ended.get(tuple(heaviest.stack))) if heaviest else None
    pacer = None if asleep or joined or linger or waiter is None else pacing_sleeper(
        profile, heaviest, {g.id for g in profile.greenlets
                            if _base_name(g.name) == _base_name(waiter.name)})
    if pacer is not None:
        held += PACED.format(name=pacer.name, life=pacer.life, waited=pacer.waited,
                             line=pacer.line, count=pacer.count)
    across = None if asleep or joined or linger or pacer else \
        held_across_taken(profile, job_rows, heaviest)
    if across is not None:
        held += (f" What they waited for there was taken under the with block at "
                 f"{across.block}, and inside that block the holders also waited "
                 f"{across.inside:.3f} s on other things, most at {across.site}: "
                 f"{across.count} {across.unit} of {_ms(across.seconds / across.count)}: "
                 "they kept what they took (most likely a connection of the program's "
                 "own pool) "
                 "across those waits, and the other jobs queued for it meanwhile.")
    upstream = None if asleep or joined or linger or pacer or across or heaviest is None \
        else line_upstream(profile, job_rows, heaviest)
    # (a slow tail, told below, is no queue: a few stragglers lift the loaded mean)
    if upstream is not None and slow_tail(profile, upstream[0]) is None \
            and upstream_queued(profile, upstream[0]) is not None:
        return []  # the upstream paced the work, not the pool: a larger one lengthens
        # each answer (an unseen digest's 40 fetches in flight; see held.QUEUED_RATIO)
    if asleep and slept.line != user_site(heaviest.stack).user:  # (held named another)
        held += (f" They also slept at {slept.line}: {slept.count} sleeps of "
                 f"{slept.waited / slept.count * 1e3:.0f} ms on average.")
    # the join first: the kind reads "pool", and a reader skimming it would enlarge the
    # pool (an unseen quote service's lookups waited for the slowest of four replicas)
    lead = (f"Each job waited for the slowest of the greenlets it started, at "
            f"{user_site(heaviest.stack).user}{JOINED_LEAD_END}" if joined else "")
    message = lead + (
        f"A gevent Pool was full: spawning into it waited {waited:.3f} s for a free slot "
        f"({count} times"
        + (f", for the pool used at {where}" if where else ", inside gevent's Pool.imap")
        + f"; {who} waited) while the loop sat "
        f"{idle_told(profile, idle)}: the jobs were waiting, not computing, and "
        + JOINED_NOT_EXPLAINED
        + ("a timer of the program's own paced the work, not the pool's size." if asleep
           else "the greenlets the jobs waited for paced the work, not the pool's size."
           if joined or linger or pacer else
           "what the jobs held across other calls paced the work, not the pool's size."
           if across else "each job's calls, one after another, paced the work with the "
           "pool's size." if CALLS_EACH_TOLD_WORDS in held else
           "the pool's size paced the work.") + held + " "
        + (SLEPT_IN_SLOTS.format(slept=slept.waited, errors=error_answers(profile))
           if asleep else
           JOINED_IN_SLOTS if joined else
           LINGERED_IN_SLOTS if linger else
           PACED_IN_SLOTS if pacer else
           HELD_ACROSS_IN_SLOTS.format(site=across.site, block=across.block)
           if across else
           (TAIL_FIX if TAIL_TOLD in held else
            "Fix: first that cache: the calls it skips need no slot at all. Then: "
            if CACHE_TOLD in held else
            "Fix: first fewer, larger calls per job: each slot is held for its job's round "
            "trips. Then: " if CALLS_EACH_TOLD_WORDS in held else "Fix: ")
           + "a larger Pool(size) if what the jobs wait on (a downstream service) can "
           "take more requests at once; if it cannot, the time each job waits is the lever "
           "(an upstream's latency is its own to cut: its slow query, its capacity); if the "
           "limit is deliberate (a downstream's rate limit), this is what it costs. "
           + CAN_IT_TAKE_MORE + _shared_by_requests(profile, gids)))
    # asleep, the jobs' sleeps are the cause, costed as other waits are (summed over
    # the greenlets that lost them), not by the one spawner's wait for a slot
    # joining, likewise the jobs' waits for the greenlets they started (an unseen
    # product page's joinall without a timeout cost its spawner 1.6 s of slot waits,
    # while its 8 jobs waited 18 s for one slow shard; a timeout saved 70 % of the run)
    joined_s = sum(event_wait(w) for w in job_rows if joined_in_program(w)
                   and user_site(w.stack).user == user_site(heaviest.stack).user) \
        if joined and not asleep else 0.0
    cost = slept.waited if asleep else joined_s if joined_s > waited else waited
    meaning = SLEPT_COST if asleep else JOINED_COST if joined_s > waited else None
    # where the greenlets the jobs joined mostly waited: another finding may tell it
    # (after_joined_told)
    started = {g.id for g in profile.greenlets if g.parent in set(job_ids)}
    joined_at = sorted(_mostly_at(jobs_waits(profile, started, own_stacks)[1])) \
        if joined and started else []
    return [_finding(POOL_FULL, message, cost, list(worst.stack),
                     greenlet=ended.get(tuple(worst.stack)),
                     waits=count, slot_wait_s=waited, idle_share=idle,
                     site=where, job_names=jobs, slept_in_slots=asleep,
                     joined_in_slots=joined, joined_s=joined_s,
                     **({"joined_mostly_at": joined_at} if joined_at else {}),
                     **({"lingered_in_slots": linger.line} if linger else {}),
                     **({"paced_in_slots": pacer.line} if pacer else {}),
                     **({"held_across_taken": across.block} if across else {}),
                     **({"slow_tail": True} if TAIL_TOLD in held else {}),
                     jobs_site=user_site(heaviest.stack).user if heaviest else None,
                     **({"cost_meaning": meaning} if meaning else {}))]


def after_joined_told(found: list[Finding]) -> list[Finding]:
    """*found*, with each pool-full finding whose jobs joined greenlets that mostly
    waited beneath the line of another finding (its ``site``) ranked just after that
    finding and saying so: the joined greenlets' waits were that finding's, and the
    jobs held their slots for them (an unseen notification service's jobs joined their
    sends, which waited for a connection of a blocking pool of 4: told first as "a Pool
    was full" with "no other finding explains their waits", the pool of connections
    second; the same with a template cache that never hit)."""
    for f in [f for f in found if f.kind == POOL_FULL and f.extra.get("joined_mostly_at")]:
        lines = {frame_line(frame) for frame in f.extra["joined_mostly_at"]} - {None}
        cause = max((o for o in found if o is not f and o.kind != POOL_FULL
                     and frame_line(o.extra.get("site")) in lines),
                    key=lambda o: o.cost_s, default=None)
        if cause is None:
            continue
        f.extra["ranks_after"] = cause.kind
        told = (f"The greenlets the jobs joined mostly waited at {cause.extra['site']}, "
                f"which the {cause.kind} finding tells: cure that first, and the joins, "
                "with the slots held across them, shorten with it. ")
        lead, sep, rest = f.message.partition(JOINED_LEAD_END)
        f.message = (lead + sep + told + rest if sep else told + f.message).replace(
            JOINED_NOT_EXPLAINED, "")
    return found


# How a reader tells whether an upstream can take more requests at once: the profile
# cannot (an unseen control's upstream served 4 at a time, its answers took 307 ms with
# 32 in flight, and "a larger Pool" gained nothing at 96).
CAN_IT_TAKE_MORE = (
    "To tell which: run once with half the Pool size; answers that take about as long "
    "mean the upstream had room, and a larger Pool helps; answers that take about half "
    "as long mean it queues them (its own limit), and a larger Pool gains nothing.")
JOINED_COST = ("greenlet-seconds the pool's jobs waited at the program's join for the "
               "greenlets they started, while holding their slots")
SLEPT_COST = ("greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
              "while holding their slots")


# pool-full's story when the jobs held their slots mostly joining greenlets they
# started: an unseen search client sent a hedged request after 30 ms and joined both,
# so every hedged lookup lasted as long as the slower replica (164 ms against 68 ms for
# the first answer), and "a larger Pool" left each lookup as slow.
JOINED_IN_SLOTS = (
    "Those are waits for greenlets the jobs started themselves: each job held its slot "
    "until the slowest of them ended. Fix: if one answer is enough (a hedged or raced "
    "request), take the first good answer and kill the others (for g in "
    "gevent.iwait(greenlets): the first that succeeded, not merely the first to end: a "
    "fast error would win that race); "
    "if every result is needed, bound the slow ones (a timeout on their calls); then a "
    "larger Pool(size) if the downstream can take more requests at once.")
# pool-full's story when the jobs held their slots waiting at a hand-off while a lone
# greenlet of their program waited itself most of its life (held.lingering_setter).
LINGERED = (
    " Those are hand-offs: another greenlet sets what they wait for, and '{name}' (alive "
    "{life:.3f} s) itself waited {waited:.3f} s of that at {line} ({count} waits), most "
    "likely for more input: while it waited, the jobs waited for it, so what ended its "
    "waits (a batch's linger or a collection timeout running out) paced them.")
PACED = (
    " Those are hand-offs: another greenlet hands out what they wait for, and '{name}' "
    "(alive {life:.3f} s) slept {waited:.3f} s of that at {line} ({count} sleeps): a pacer "
    "on a timer (a rate limiter's permits, a producer's interval), whose pace is theirs.")
PACED_IN_SLOTS = (
    "Fix: the pacer's rate is the lever -- raise it if what it protects allows (a "
    "partner's quota, an upstream's capacity), else this is what the limit costs; a "
    "larger Pool only holds more greenlets waiting for it.")
HELD_ACROSS_IN_SLOTS = (
    "Fix: hold what the block takes only around its own use -- make the call at {site} "
    "before the block (or after it: read first, call, then open the transaction and "
    "re-check what the call decided) -- so that it goes back to its pool at once; a "
    "larger Pool only queues more jobs for it, and a larger pool of connections helps "
    "only as far as what it connects to takes more connections, each still idle through "
    "those calls.")
LINGERED_IN_SLOTS = (
    "Fix: stop waiting for input that is not coming -- flush a batch as soon as every "
    "caller waiting on it has put its item (or linger a few ms at most), or let callers "
    "go on without waiting for the batch; a larger Pool only fills each batch faster, "
    "with more load on what the jobs call.")
# pool-full's story when the jobs held their slots mostly asleep in gevent.sleep called
# by the program: three unseen clients (a 1 s retry back-off after 503s, a token bucket
# polled every 10 ms at 80 calls/s, a 6 s breaker cool-down after a 0.3 s blip) were
# told "a larger Pool", which left each p99 where it was (one gained nothing at all).
SLEPT_IN_SLOTS = (
    "Those sleeps are gevent.sleep calls of the program's own ({slept:.3f} greenlet-seconds "
    "asleep there): the jobs slept out their slots, and a larger Pool only holds more "
    "sleepers.{errors} If the pause is one the program owes (a crawl delay a host asks "
    "for, a rate agreed with the upstream), it is the run's floor and the cost is not there "
    "to save. Otherwise, fix: sleep less there, or wake on what the sleep waits for -- a "
    "retry's back-off short, jittered and growing, with few retries; a rate limiter's rate "
    "as high as the upstream takes, waiting for the next token instead of polling; a "
    "circuit breaker's cool-down near the outage's length, with a half-open probe; a "
    "poll for a result another greenlet sets (a loop sleeping until it appears) replaced "
    "by waiting on it: a gevent.event.Event or AsyncResult set where the result arrives.")


PATCHED_LOCK, COMPILED_LOCK, EVENTS_LOCK = "patched", "compiled", "event's"


def lock_wait(wait: Any) -> str | None:
    """PATCHED_LOCK for a ``waits`` row that waited to take a monkey-patched threading
    lock, EVENTS_LOCK when that lock is the inner one of a standard-library Event,
    Condition or queue (a wait for the event), COMPILED_LOCK for a compiled gevent lock
    or semaphore taken at the program's own line, else None."""
    stack = wait.stack
    inner = 0
    while inner < len(stack) and LOCK_FRAMES.search(stack[inner]):
        inner += 1
    if inner:
        on_event = inner < len(stack) and EVENT_ON_A_LOCK.search(stack[inner]) is not None
        return EVENTS_LOCK if on_event else PATCHED_LOCK
    if wait.call in LOCK_CALLS and stack and user_site(stack).library is None:
        return COMPILED_LOCK
    return None


def is_limit_wait(wait: Any) -> bool:
    """Whether a ``waits`` row waited on a limit: a gevent Pool's free slot, a free
    connection of urllib3's pool, or a lock or semaphore (lock_wait)."""
    stack = wait.stack
    return bool(stack) and (SLOT_WAIT.search(stack[0]) is not None
                            or is_connection_slot_wait(stack)
                            or lock_wait(wait) in (PATCHED_LOCK, COMPILED_LOCK))


def is_connection_slot_wait(stack: list[str]) -> bool:
    """Whether a wait stack waited for a free connection of urllib3's pool (see the
    module's text); not its check of a pooled connection for a drop, which polls."""
    inner = 0
    while inner < len(stack) and (LOCK_FRAMES.search(stack[inner])
                                  or EVENT_ON_A_LOCK.search(stack[inner])):
        inner += 1
    return inner < len(stack) and CONN_SLOT_WAIT.search(stack[inner]) is not None


# Blocking pools whose sizes connection-pool-full names, most requests first.
SIZES_TOLD = 3


def _blocking_sizes(profile: Profile) -> str:
    """``; here http://a:80's pool keeps 4`` for the hosts whose pools block when full
    (``block``), by their smallest pool where sizes differ (an unseen sync's three
    adapters on one host kept 4, 10 and 10: the pools table showed 10, the one that
    blocked its 40 workers was the 4); "" when none recorded one."""
    told: dict[tuple[str, str], list[str]] = {}  # (what its pools keep, made at): hosts
    blocking = [e for e in _events(profile, POOL_EVENT) if e.get("block") is True
                and isinstance(e.get("pool"), str) and _count(e, "maxsize")]
    for e in sorted(blocking, key=lambda e: -_count(e, "calls"))[:SIZES_TOLD]:
        smallest, largest = _count(e, "minsize") or _count(e, "maxsize"), _count(e, "maxsize")
        keeps = f"smallest pool keeps {smallest} (its largest {largest})" \
            if smallest < largest else f"pool keeps {largest}"
        told.setdefault((keeps, _made_at(e, smallest)), []).append(e["pool"])
    # hosts alike (one adapter for them all) told once: "the pools of a, b and c keep 8"
    said = []
    for (keeps, made), hosts in told.items():
        if len(hosts) > 1 and keeps.startswith("pool keeps "):
            said.append(f"the pools of {', '.join(hosts[:-1])} and {hosts[-1]} keep "
                        f"{keeps.removeprefix('pool keeps ')} each{made}")
        else:
            said.extend(f"{host}'s {keeps}{made}" for host in hosts)
    return f"; here {', '.join(said)}" if said else ""


def _made_at(event: dict[str, Any], size: int) -> str:
    """", made at app.py:177" (where the pool watch saw the program make the adapter
    whose pools of the host keep *size*: the line to change), or ""."""
    lines = [at for at, kept in event.get("made_at") or ()
             if isinstance(at, str) and not at.startswith("<") and kept == size]
    return f", made at {lines[0]}" if lines else ""


# What connection-pool-full says when no other finding tells why the holders held their
# connections long (handoff.after_stalls_told takes it back when one does).
POOL_NOT_EXPLAINED = ("; no other finding explains their waits, so that size paced the work "
                      "(the network was not the slow part)")


def connection_pool_full(profile: Profile) -> list[Finding]:
    """Requests that waited for a free connection of requests' (urllib3's) pool while
    the loop had room (paced): one finding, named by the line that waited most.
    ``cost_s``: the greenlet-seconds they waited."""
    rows = [w for w in profile.waits if is_connection_slot_wait(w.stack)]
    waited, idle = paced(profile, rows)
    if waited is None:
        return []
    seen = waiters(profile, rows)
    handover = _handover(profile, rows)
    message = (
        f"requests' connection pool was full: {seen.who} waited {waited:.3f} s in all "
        f"for a free connection ({seen.count} waits of {waited / max(1, seen.count):.3f} s "
        f"on average, most at {seen.where}) "
        f"while the loop sat {idle_told(profile, idle)}: the adapter keeps at most "
        "pool_maxsize connections per host and, with pool_block=True, a request that "
        f"finds them all in use waits for one{_blocking_sizes(profile)}{POOL_NOT_EXPLAINED}. "
        "Fix: mount an "
        "adapter with a pool_maxsize as large as the number of greenlets that share the "
        "session (requests.adapters.HTTPAdapter(pool_maxsize=n, pool_block=True), or "
        "geventperf.mount(session, pool_maxsize=n)) if the downstream can take that many "
        "connections; if the limit is deliberate (the downstream's own connection "
        "limit), this is what it costs." + (handover.told if handover else ""))
    return [_finding(CONNECTION_POOL_FULL, message, waited, list(seen.worst.stack),
                     greenlet=seen.greenlet, waits=seen.count,
                     slot_wait_s=waited, idle_share=idle, site=seen.where,
                     **({"handover_s": handover.seconds, "handover_share": handover.share}
                        if handover else {}))]


# A connection given back goes to the next greenlet waiting for one, which then stands
# in the loop's ready queue until the greenlet running finishes its slice: the
# connection sits idle meanwhile.  From this share of the pools' connection-time (their
# size times the run) that handover is told, with the code that held the loop (an unseen
# worker scored each record in 7 ms of Python between 25 ms calls over a pool of 2: its
# connections idled 40 % of the run that way, and cheaper scoring saved a third of it).
HANDOVER_SHARE = 0.1


class Handover(NamedTuple):
    """The connections' idle time between being given back and being used again."""

    seconds: float  # the waiters' ready wait at the pool: a connection idle each
    share: float  # of the blocking pools' connection-time
    told: str  # the sentence that tells it


def _handover(profile: Profile, rows: list[Any]) -> Handover | None:
    """The waiters' ready wait at the connection pool (*rows*), when it was at least
    HANDOVER_SHARE of the blocking pools' connection-time; None otherwise."""
    capacity = sum(_count(e, "maxsize") * max(1, _count(e, "pools"))
                   for e in _events(profile, POOL_EVENT) if e.get("block") is True)
    handed = sum(w.ready_wait_s or 0.0 for w in rows)
    if not capacity or not profile.duration_s \
            or handed < HANDOVER_SHARE * capacity * profile.duration_s:
        return None
    share = handed / (capacity * profile.duration_s)
    holders = sorted((g for g in profile.greenlets if g.delayed_others_s),
                     key=lambda g: -(g.delayed_others_s or 0.0))
    hot = hot_code(profile, {_base_name(g.name) for g in holders[:TOP_HOLDERS]})
    told = (
        f" And the connections sat idle between uses: a connection given back goes to "
        f"the next waiter, which then queued for the loop ({handed:.3f} greenlet-seconds "
        f"of ready wait at the pool, {share:.0%} of its {capacity} "
        f"{'connections' if capacity > 1 else 'connection'}'{'' if capacity > 1 else 's'} "
        "time) while other greenlets ran"
        + (f"; {hot.told()}" if hot is not None else "")
        + ": work in the loop between the calls slows the pool's turnover, so making "
        "it cheaper (or moving it out of the loop) lets the same connections serve more.")
    return Handover(handed, share, told)


# A greenlet that ran a semaphore's release as its whole job (gevent.spawn_later).
TIMED_RELEASE = "Semaphore.release"
# Such greenlets at least this share of the waits: the permits came back on timers.
RATE_LIMIT_SHARE = 0.5


def lock_contended(profile: Profile) -> list[Finding]:
    """Greenlets that waited to take a monkey-patched threading lock (not an Event's or
    a queue's inner one) or a compiled gevent lock or semaphore while the loop had
    room (paced), or on a busy loop when its holders were seen waiting under it
    (HELD_ACROSS_SHARE): one finding, named by the line that waited most.  ``cost_s``:
    the greenlet-seconds they waited."""
    patched, compiled = [], []
    for w in profile.waits:
        lock = lock_wait(w)
        if lock == PATCHED_LOCK:
            patched.append(w)
        elif lock == COMPILED_LOCK:
            compiled.append(w)
    rows = patched + compiled
    waited, idle = paced(profile, rows)
    busy_loop = waited is None
    if busy_loop:  # told only when its holders are seen waiting under it (see below)
        waited = sum(event_wait(w) for w in rows)
        if not rows or waited < block_threshold(profile) or not profile.duration_s:
            return []
        idle = profile.hub.get("idle_s", 0.0) / profile.duration_s
    seen = waiters(profile, rows)
    # permits given back by greenlets of their own (gevent.spawn_later(period,
    # sem.release)): a rate limiter, whose budget per period is the pace, not a holder
    timed = sum(1 for g in profile.greenlets if g.name.endswith(TIMED_RELEASE))
    rate_limit = bool(compiled) and timed >= RATE_LIMIT_SHARE * seen.count
    logging_at = None if rate_limit else _logging_caller(seen.worst.stack)
    # what the holders did under the lock, when they set the pace
    holding = None if rate_limit or logging_at else _holding(profile, rows, seen.where)
    across = 0.0 if rate_limit or logging_at else _held_across(profile, rows, seen.where,
                                                               holding)
    if busy_loop and min(across, waited) < HELD_ACROSS_SHARE * profile.duration_s:
        return []  # (a single flight per key keeps its waiters' share small)
    if holding is not None and _held_once(profile, holding):
        return []  # a one-time set-up every waiter waited for once, not a pace
    leaked = None if rate_limit or not compiled else _permits_leaked(profile, compiled)
    if leaked is not None:
        message = _leaked(profile, seen, waited, idle, leaked)
    elif rate_limit:
        message = (
            f"A rate limit set the pace: {seen.who} waited {waited:.3f} s in all to take a "
            f"gevent semaphore ({seen.count} times, most at {seen.where}) while the loop "
            f"sat {idle_told(profile, idle)}, and {timed} greenlets of their own gave its "
            "permits back (Semaphore.release run on a timer: gevent.spawn_later(period, "
            "sem.release)): a budget of calls per period, not holders slow to let go, so "
            "holding it for less changes nothing. Fix: a larger budget where the upstream "
            "allows it (its documented rate), or fewer calls (batch them, cache "
            "answers); the waits are the limit working as written.")
    elif logging_at is not None:
        seen = seen._replace(where=logging_at)
        message = _logging_lock(profile, rows, seen, waited, idle)
    else:
        message = _held_too_long(profile, rows, seen, waited, idle, patched, compiled,
                                 holding)
    held = {} if holding is None else {
        "held_wait_s": sum(t for _n, t, _c in holding.by_caller.values()),
        "held_cpu_s": holding.cpu[0] if holding.cpu is not None else 0.0}
    queued = _queued_holding(holding)
    if queued is not None and not (rate_limit or leaked or logging_at):
        message += queued[1]
        held["held_ready_share"] = queued[0]
        # after whichever finding tells the loop's CPU (a patched executor's workers
        # holding it in slices under the block threshold are loop-held's: its lock came
        # first on a loaded machine, 3.73 against 3.52)
        held["ranks_after"] = [LOOP_SATURATED, LOOP_HELD, LOOP_BLOCKED]
    if across >= HELD_ACROSS_SHARE * profile.duration_s:
        held["held_across_s"] = across
    if holding is not None and holding.mostly_at:
        held["held_mostly_at"] = sorted(holding.mostly_at)
    if busy_loop:
        held["cost_meaning"] = HELD_ACROSS_COST
    return [_finding(LOCK_CONTENDED, message, waited, list(seen.worst.stack),
                     greenlet=seen.greenlet, waits=seen.count, lock_wait_s=waited,
                     idle_share=idle, site=seen.where, **held,
                     **({"rate_limit": True} if rate_limit else {}),
                     **({"permits_leaked": [leaked.early, leaked.late]} if leaked else {}),
                     **({"logging_lock": True} if logging_at is not None else {}))]


# A lock whose holders' waits under it were at least this share ready to run but
# queued (the loop busy with others' CPU) is held longer for the loop's CPU: told, and
# ranked after a loop-saturated finding.  An unseen site audit's 1 000 crawls queued
# 2 390 s at a politeness Semaphore whose holders' fetches were 43 % ready wait, behind
# a robots check of every link (60 % of the CPU): told the lock first (a larger one,
# -22 %), where checking each link once cut the run 38 %.
HELD_READY_SHARE = 1 / 3


# A semaphore whose permits leaked: while one greenlet waited to take it, the greenlets
# it had started and that were still alive (its holders, when it takes a permit for
# each before spawning it) numbered at most this share as many late in the run as early
# in it, at least LEAK_MIN_EARLY early, over at least LEAK_MIN_WAITS waits.  Each time
# fewer held it, yet it still waited: permits taken and never given back (an unseen job
# runner's dispatcher took a permit of a Semaphore(16) per job, and the 503 retry path
# returned before release(): 16 running at first, 4 at the end, told only "hold it for
# less"; releasing in a finally took 52 % off the run).
LEAK_SHARE = 0.5
LEAK_MIN_EARLY = 4
LEAK_MIN_WAITS = 20


class Leak(NamedTuple):
    """Permits not given back (LEAK_SHARE)."""

    waiter: Any  # the greenlet that waited to take it
    early: int  # its started greenlets alive while it waited, first quarter (median)
    late: int  # ... last quarter (median)
    waits: int  # its waits seen in the timeline


def _permits_leaked(profile: Profile, rows: list[Any]) -> Leak | None:
    """The Leak of the semaphore waited for at *rows* (compiled gevent locks), read from
    the timeline's slices (each says where its greenlet went on to wait); None without a
    whole timeline or when the holders alive did not fall so."""
    if not profile.slices or profile.slices_dropped:
        return None
    index = {id(w): i for i, w in enumerate(profile.waits)}
    at = {index[id(w)] for w in rows if id(w) in index}
    lives: dict[int, list[float]] = {}
    mine: dict[int, list[float]] = {}  # waiter -> the starts of its waits at the rows
    for sl in profile.slices:
        # (born when it was first ready: a greenlet spawned waits for the loop first)
        start, end = sl.start_s - (sl.ready_s or 0.0), sl.start_s + sl.duration_s
        life = lives.setdefault(sl.greenlet, [start, end])
        life[0], life[1] = min(life[0], start), max(life[1], end)
        if sl.wait in at:
            mine.setdefault(sl.greenlet, []).append(end)
    if not mine:
        return None
    gid, starts = max(mine.items(), key=lambda kv: len(kv[1]))
    waiter = profile.greenlet(gid)
    kids = [lives[g.id] for g in profile.greenlets if g.parent == gid and g.id in lives]
    if waiter is None or len(starts) < LEAK_MIN_WAITS or not kids:
        return None
    alive = [sum(1 for born, ended in kids if born <= t <= ended) for t in sorted(starts)]
    quarter = len(alive) // 4
    early = statistics.median(alive[:quarter])
    late = statistics.median(alive[-quarter:])
    if early < LEAK_MIN_EARLY or late > LEAK_SHARE * early:
        return None
    return Leak(waiter, round(early), round(late), len(alive))


def _leaked(profile: Profile, seen: Waiters, waited: float, idle: float, leak: Leak) -> str:
    """lock-contended's message for a semaphore whose permits leaked (_permits_leaked)."""
    return (
        f"Permits of a semaphore were not given back: {seen.who} waited {waited:.3f} s in "
        f"all to take a gevent lock or semaphore ({seen.count} times, most at {seen.where}) "
        f"while the loop sat {idle_told(profile, idle)}. While "
        f"{greenlet_label(leak.waiter.name, leak.waiter.id)} waited there, the greenlets it "
        f"had started that were still alive numbered {leak.early} early in the run and "
        f"{leak.late} late in it (medians over the first and last quarter of its "
        f"{leak.waits} waits): each time fewer of them could hold it, yet it still waited, "
        "so permits were taken and never released -- most likely a path of the holders' "
        "work that returns or raises before release() (a retry, an error branch), unless "
        "greenlets it did not start hold them. Fewer and fewer run at once, and when no "
        "permit is left the program hangs. Fix: release in a finally that covers every "
        "path of the holder's work (try: ... finally: sem.release()), or take the permit "
        "in the holder with 'with sem:'; a larger n only postpones the hang.")


# The logging package's frames: a lock taken there is a handler's (one per handler,
# taken around each record it emits) or the module's own.
LOGGING_FRAME = re.compile(r"[/\\]logging[/\\]__init__\.py:\d+:")


def _logging_caller(stack: list[str]) -> str | None:
    """The line that logged, when the lock a wait took is the logging package's: the
    first frame past the lock's and logging's own that no library holds (the program's
    line), else the first past logging's (a library that logs), else logging's own;
    None when the lock is not logging's."""
    inner = 0
    while inner < len(stack) and LOCK_FRAMES.search(stack[inner]):
        inner += 1
    if inner >= len(stack) or not LOGGING_FRAME.search(stack[inner]):
        return None
    outside = [f for f in stack[inner:] if not LOGGING_FRAME.search(f)]
    return next((f for f in outside if not is_library_frame(f)),
                outside[0] if outside else stack[inner])


def _logging_lock(profile: Profile, rows: list[Any], seen: Waiters, waited: float,
                  idle: float) -> str:
    """lock-contended's message when the lock was a logging handler's."""
    emits = _besides_the_lock(profile, rows, "what each record's emit took")
    return (
        f"Log records queued for a handler: {seen.who} waited {waited:.3f} s in all to "
        f"take the logging package's lock ({seen.count} times, logging at {seen.where}) "
        f"while the loop sat {idle_told(profile, idle)}. A handler takes its lock around "
        "each record it emits, so one slow emit (a network or pipe write, a log shipper "
        f"that fell behind) holds every greenlet that logs behind it.{emits} Fix: make the "
        "emit cheap -- hand records to a logging.handlers.QueueHandler and emit them from "
        "one greenlet or thread of their own (a QueueListener) -- or log less on this "
        "path.")


def _held_too_long(profile: Profile, rows: list[Any], seen: Waiters, waited: float,
                   idle: float, patched: list[Any], compiled: list[Any],
                   holding: Holding | None) -> str:
    """lock-contended's message when holders set the pace: what they waited on besides
    the lock, whether waiters starved, and the fix of holding it for less."""
    mutex = bool(patched) and not compiled
    # (a semaphore's n holders at once cannot share one connection)
    shared = mutex and _shares_a_connection(holding)
    holders = (_held_elsewhere(profile, rows, seen, holding, waited)
               if mutex and _held_elsewhere_shown(profile, holding) else
               _held_inside(holding, shared) or _besides_the_lock(
                   profile, rows, "if that call is made under the lock, what each holder "
                   "held it for") + _others_unqueued(profile, rows, seen, waited))
    mean = waited / seen.count if seen.count else 0.0
    starved = (f" Each wait lasted {mean:.3f} s on average, {mean / profile.duration_s:.0%} "
               "of the run: the waiters went without it that long while a few greenlets "
               "took it again and again (gevent's locks are not fair: a greenlet that "
               "releases one and takes it again before a waiter has run keeps it)."
               if mean >= STARVED_SHARE * profile.duration_s else "")
    peak = _holders_at_once(profile, holding, _greenlets_named(profile, set(seen.names))) \
        if compiled and not patched else None
    at_once = "" if peak is None else (
        f" The connection pool of {peak[2]} never had more than {peak[0]} connections in "
        f"use at once though it holds {peak[1]}: most likely at most {peak[0]} holders at a "
        f"time, a Semaphore({peak[0]}) limiting how many calls run together.")
    fix = (" If the limit is deliberate (the concurrency an upstream allows), this is what "
           "it costs, and holding it for less would break it. Otherwise, fix: a larger n for "
           f"that semaphore if what it guards can take more calls at once (the pool holds "
           f"{peak[1]}); a lock guarding shared state is held for less by making slow calls "
           "outside the locked block." if peak is not None else
           " Fix: a connection per greenlet, or a pool of them (above); lock only the state "
           "that is not a connection." if shared else
           # (a semaphore's n is most often a limit on purpose: that case first, since
           # making the calls outside it would remove the limit -- an unseen gateway's
           # per-tenant BoundedSemaphore was told to hold it for less)
           " If it is a Semaphore(n) that limits concurrency on purpose (the calls an "
           "upstream or a tenant is allowed at once), this is what the limit costs: a "
           "larger n only if what it guards can take more calls at once. Otherwise, fix: "
           "hold it for less -- make slow calls (the network, the disk) outside the locked "
           "block and lock only the shared state -- or use one lock per resource."
           if compiled else
           " Fix: hold it for less -- make slow calls (the network, the disk) outside the "
           "locked block and lock only the shared state -- or use one lock per resource.")
    return (
        f"A lock was contended: {seen.who} waited {waited:.3f} s in all to take "
        + (_patched_kind(patched) if not compiled else
           "a gevent lock or semaphore" if not patched else "locks and semaphores")
        + f" ({seen.count} times, most at {seen.where}) while the loop "
        f"sat {idle_told(profile, idle)}: the lock made them take "
        "turns, and no other finding explains their waits, so whatever its holders do "
        f"while holding it paced the work.{starved}{holders}{at_once}{fix}")


# gevent's own RLock class, taken directly (a monkey-patched threading.RLock waits in
# the standard library's _RLock, PATCHED_RLOCK_FRAME): an unseen pipeline's
# gevent.lock.RLock was told as "a monkey-patched threading lock", and its reader went
# looking for a threading.Lock that was not there.
GEVENT_RLOCK = re.compile(r"[/\\]gevent[/\\]lock\.py:\d+:RLock\.(acquire|__enter__)$")


def _patched_kind(patched: list[Any]) -> str:
    """How lock-contended names the locks of *patched* rows (lock_wait's PATCHED_LOCK)."""
    if patched and all(r.stack and GEVENT_RLOCK.search(r.stack[0]) for r in patched):
        return "a gevent RLock"
    return "a monkey-patched threading lock"


def _held_elsewhere_shown(profile: Profile, holding: Holding | None) -> bool:
    """Whether the function that takes a lock shows it did not hold it long: its with
    block (where the source tells it) never waited, and a greenlet holds a gevent lock
    across a wait only, so the waiters waited for holders elsewhere; or the waits
    inside the function add up to more than the run, and one greenlet at a time holds a
    mutex, so it cannot have been held across them (an unseen catalog service's
    handlers took the lock for a dict copy, then waited 6.5 s in all on a pricing call
    in a 3.8 s run; the holder was a refresher)."""
    if holding is None:
        return False
    if holding.block is not None:
        return not holding.by_caller
    return sum(t for _n, t, _c in holding.by_caller.values()) > profile.duration_s


# Calls of other greenlets shown as the lock's possible holders.
ELSEWHERE_SHOWN = 2
# The waits seen inside with blocks that take the lock (the waiters' own block, and
# blocks elsewhere in the file taking the same expression: _same_lock_waits) adding up
# to at least this share of the run: its holders kept it across them, a cause of its
# own.  Told then on a busy loop too, where other lock waits may be queueing for the
# loop, and never outweighed by a cost elsewhere (an unseen quote API's metrics flusher
# held the registry lock across a 30 ms round trip every 80 ms; its handlers queued
# 37 s for it, but the loop was busy 77 % with in-process clients' requests: no lock
# finding, and sending outside the lock took 32 % off the run).  On a busy loop the
# waiters' own wait must reach that share too: a lock per key held across its fetch (a
# single flight) keeps them waiting a few ms in all.
HELD_ACROSS_SHARE = 0.1


HELD_ACROSS_COST = ("greenlet-seconds spent waiting to take a lock whose holders kept it "
                    "across waits of their own (on a busy loop: some of it queueing for the "
                    "loop after the lock was free)")


def _held_across(profile: Profile, rows: list[Any], where: str,
                 holding: Holding | None) -> float:
    """Seconds of waits seen inside with blocks that take the lock (HELD_ACROSS_SHARE):
    in the waiters' own block where its lines are known, and in blocks that take the
    same expression elsewhere in the file."""
    own = sum(t for _n, t, _c in holding.by_caller.values()) \
        if holding is not None and holding.block is not None else 0.0
    return own + sum(t for _n, t, _inner in _same_lock_waits(profile, rows, where).values())


def _same_lock_waits(profile: Profile, rows: list[Any], where: str
                     ) -> dict[tuple[str, str | None], list[Any]]:
    """The waits made inside with blocks that take the same expression as the one at
    the waiters' line *where* elsewhere in its file (frames.blocks_taking_the_same), by
    (the frame in such a block, the base name of the greenlet that last waited there):
    [waits, seconds of event wait, the program's innermost line of the heaviest]."""
    lock = parse_frame(where)
    blocks = blocks_taking_the_same(where)
    if not blocks:
        return {}
    mine = {tuple(w.stack) for w in rows}
    ended = switched_out_at(profile)
    found: dict[tuple[str, str | None], list[Any]] = {}
    for w in profile.waits:
        if tuple(w.stack) in mine or not w.count:
            continue
        frame = next((f for f in w.stack if parse_frame(f).path == lock.path
                      and any(parse_frame(f).line in body for body in blocks.values())), None)
        if frame is None:
            continue
        g = profile.greenlet(ended.get(tuple(w.stack)))
        acc = found.setdefault((frame, _base_name(g.name) if g else None), [0, 0.0, None, 0.0])
        acc[0] += w.count
        acc[1] += event_wait(w)
        if event_wait(w) > acc[3]:
            acc[2], acc[3] = user_site(w.stack).user, event_wait(w)
    return {key: [n, t, inner] for key, (n, t, inner, _top) in found.items()}


def _held_elsewhere(profile: Profile, rows: list[Any], seen: Waiters,
                    holding: Holding, waited: float) -> str:
    """lock-contended's sentence when the function that takes the lock cannot have held
    it across its own waits (_held_elsewhere_shown): the lock was held elsewhere, most
    likely across a call greenlets of other names made (a network call: what a lock
    is wrongly held across); those calls, longest in all first."""
    same = _same_lock_waits(profile, rows, seen.where)
    if same:  # the holders, first: what the reader came for
        ranked = sorted(same.items(), key=lambda kv: -kv[1][1])[:ELSEWHERE_SHOWN]
        shown = "; ".join(
            f"{frame}" + (f" ({name!r})" if name else "") + f": {n} waits of "
            f"{_ms(t / n)}" + (f", at {inner}" if inner and inner != frame else "")
            for (frame, name), (n, t, inner) in ranked)
        own = (f" (the waiters' own block, {_lines(holding.block)} of "
               f"{holding.lock.function}, never waited)" if holding.block is not None else "")
        return (" Blocks that take the same lock elsewhere in that file (the same 'with' "
                f"expression) waited while holding it: {shown}. The lock was held across "
                f"those waits, and everyone queued behind them{own}.")
    if holding.block is not None:
        text = (f" Inside {holding.lock.function}, which takes it, its with block "
                f"({_lines(holding.block)}) never waited: a greenlet holds a gevent lock "
                "across a wait only, so the waiters queued for a holder that takes it "
                "elsewhere in the program.")
    else:
        inside = sum(t for _n, t, _c in holding.by_caller.values())
        text = (f" Inside {holding.lock.function}, which takes it, its other waits add up "
                f"to {inside:.3f} s, more than the {profile.duration_s:.3f} s run: one "
                "greenlet at a time holds a lock, so it cannot have been held across them "
                "all, and the waiters queued for a holder that takes it elsewhere in the "
                "program.")
    calls = requests_of_others(profile, seen.names, {tuple(w.stack) for w in rows})
    if not calls or not seen.count:
        return text
    ranked = sorted(calls.items(), key=lambda kv: -kv[1][1])[:ELSEWHERE_SHOWN]
    shown = "; ".join(f"{name!r} at {site}: {c or n} {'calls' if c else 'waits'} of "
                      f"{t / (c or n) * 1e3:.0f} ms" for (name, site), (n, t, c) in ranked)
    return (text + f" Greenlets of other names made network calls meanwhile ({shown}), "
            f"against {waited / seen.count * 1e3:.0f} ms a wait for the lock lasted on "
            "average: if that code takes this lock, the call is what everyone waited for.")


# Greenlets of other names whose calls took at least this share of the waiters' own
# (besides the lock) are shown as its likely holders when nothing was seen inside the
# function that takes it (a @contextmanager: the holder's work is in its with blocks,
# whose frames no stack of the lock shows).  An unseen availability API's handlers
# queued 106 s for a pooled connection while a re-sync job, checking one out per chunk
# of 20 calls and never queueing, made 843 calls (18 s) to their 400 (8.7 s).
UNQUEUED_SHARE = 1.0


def _others_unqueued(profile: Profile, rows: list[Any], seen: Waiters,
                     waited: float) -> str:
    """lock-contended's sentence on greenlets of other names that made network calls
    and never waited for the lock, when those calls outweigh the waiters' own
    (UNQUEUED_SHARE): a holder that keeps it across many calls, not one per waiter.
    *waited*: the lock's event wait, *rows*' in all."""
    ended = switched_out_at(profile)
    mine = {tuple(w.stack) for w in rows}
    named = {g.id for g in profile.greenlets if _base_name(g.name) in seen.names}
    own = sum(event_wait(w) for w in profile.waits
              if ended.get(tuple(w.stack)) in named and tuple(w.stack) not in mine
              and any(REQUEST_FRAME.search(f) for f in w.stack))
    # (a call lasting as long as a wait for the lock is no batch's: most likely a
    # client of the waiters themselves, a load generator calling this process's server)
    per_wait = waited / max(1, seen.count)
    calls = {k: v for k, v in requests_of_others(profile, seen.names, mine).items()
             if v[1] < per_wait * (v[2] or v[0])}
    if not calls or own <= 0:
        return ""
    ranked = sorted(calls.items(), key=lambda kv: -kv[1][1])[:ELSEWHERE_SHOWN]
    if ranked[0][1][1] < UNQUEUED_SHARE * own:
        return ""
    shown = "; ".join(f"{name!r} at {site}: {c or n} {'calls' if c else 'waits'} of "
                      f"{t / (c or n) * 1e3:.0f} ms, {t:.3f} s in all"
                      for (name, site), (n, t, c) in ranked)
    return (f" Greenlets of other names made network calls meanwhile without ever "
            f"waiting for the lock ({shown}), more than the waiters' own {own:.3f} s: if "
            "they take it around a batch of calls (a with block holding it across a "
            "loop), they held it most of the time and the waiters queued behind them -- "
            "take it per call there, and give the batch a smaller limit of its own.")


def requests_of_others(profile: Profile, names: frozenset[str],
                       exclude: set[tuple[str, ...]] = frozenset()
                       ) -> dict[tuple[str, str], list[float]]:
    """The waits for requests (REQUEST_FRAME) of greenlets whose names are not in
    *names*, outside the stacks in *exclude*, by (their base name, the program's line
    that made them): [waits, seconds of event wait, calls (waits for a response's
    head)]: what another greenlet did while *names* waited (a lock's holder, an
    event's setter)."""
    ended = switched_out_at(profile)
    named = {g.id: _base_name(g.name) for g in profile.greenlets}
    calls: dict[tuple[str, str], list[float]] = {}
    for w in profile.waits:
        name = named.get(ended.get(tuple(w.stack)))
        if tuple(w.stack) in exclude or not w.count or name is None or name in names \
                or not any(REQUEST_FRAME.search(f) for f in w.stack) \
                or is_idle_server_wait(w.stack):
            continue
        site = user_site(w.stack).user
        if site is not None:
            acc = calls.setdefault((name, site), [0, 0.0, 0])
            acc[0] += w.count
            acc[1] += event_wait(w)
            acc[2] += w.count if awaits_answer(w) else 0
    return calls


def _holders_at_once(profile: Profile, holding: Holding | None,
                     contenders: int) -> tuple[int, int, str] | None:
    """(peak, size, host) when the holders made their calls under the lock (Holding)
    and a host's connection pool never had more than *peak* connections in use at once,
    between 2 and short of its *size* and of the *contenders* (the greenlets of the
    names that waited for the lock): a semaphore letting that many through (an unseen
    report job behind BoundedSemaphore(2) peaked at 2 of a pool of 40); of several such
    hosts, the one with the most calls; None otherwise (a mutex peaks at 1).  As many
    holders at once as contenders would have kept anyone from waiting: the peak is then
    their calls outside the lock (an unseen inventory sync's 16 workers filled 16
    connections with their reads while a BoundedSemaphore(1) let one write through at a
    time, told "a Semaphore(16)")."""
    if holding is None or not holding.by_caller:
        return None
    # per host: a semaphore around one upstream's calls caps that host's pool, while the
    # program's other calls may fill theirs (an unseen partner sync's POSTs under a
    # BoundedSemaphore(4) peaked at 4 of 40 beside its GETs' 40 of 40, and was told to
    # make its calls outside the lock, which broke the partner's cap)
    capped = [e for e in _events(profile, POOL_EVENT) if _count(e, "calls")
              and 2 <= _count(e, "peak_in_use") < min(_count(e, "maxsize"), contenders)
              and _called_under(e, holding)]
    if not capped:
        return None
    # the most calls; of as many, the narrowest
    host = max(capped, key=lambda e: (_count(e, "calls"), -_count(e, "peak_in_use")))
    return _count(host, "peak_in_use"), _count(host, "maxsize"), str(host.get("pool"))


def _called_under(pool: dict[str, Any], holding: Holding) -> bool:
    """Whether every call to *pool*'s host that poolwatch placed (its call_sites) came
    from a line whose calls waited under the lock: only then is its peak of connections
    in use the holders' (an unseen chat server's Semaphore() of one around its token
    checks was told "a Semaphore(9)" from that host's peak, which its profile lookups
    outside the lock made).  A pool event without call sites (older profiles): yes;
    malformed rows (an untrusted profile's) are skipped."""
    sites = count_rows(pool.get("call_sites"))
    return all(frame_line(site) in holding.call_lines for site, _n in sites)


def _besides_the_lock(profile: Profile, rows: list[Any], each: str) -> str:
    """held.jobs_waited's sentence on what the greenlets that waited at the lock's
    *rows* waited at besides it, *each* saying what that wait was to the holders."""
    from geventperf.findings.held import jobs_waited  # (held.py builds on this module)
    ended = switched_out_at(profile)
    return jobs_waited(profile, [ended.get(tuple(w.stack)) for w in rows],
                       {tuple(w.stack) for w in rows}, who="Besides the lock, they",
                       held="mostly waited", each=each)


# http.client reading a response's head: one wait per call made.
HEAD_READ = ":HTTPResponse.begin"


def awaits_answer(wait: Any) -> bool:
    """Whether a ``waits`` row waited for a response's head (HEAD_READ): its count is
    the calls made there."""
    return any(HEAD_READ in f for f in wait.stack)
# Callers shown waiting inside the function that takes the lock.
INSIDE_SHOWN = 3
# One caller's waits in there at least this many times as long on average as another's:
# callers of different kinds share one lock (six exporters' 780 ms calls and fifteen
# resolvers' 41 ms ones under one Semaphore(6): the resolvers waited 6.9 s each).
UNEVEN_HOLD_RATIO = 4.0
# The holders' sleeps (gevent.sleep, inside the with block that took the lock) are told
# from this share of the waiting in the block on: an unseen job worker held its 8-slot semaphore
# across a retry loop whose back-off sleeps were 60 % of that waiting, and was told
# only "a larger n" (which broke the limit agreed with the API); taking a slot for each
# attempt took 34 % off its run.
INSIDE_SLEEP_SHARE = 0.2


class Holding(NamedTuple):
    """What the holders did inside the function whose line took the lock (*lock*,
    parsed): its waits (_waits_inside), its sampled CPU (_cpu_inside), and of those
    waits the sleeps (_sleeps_inside)."""

    lock: Any
    by_caller: dict[tuple[str, str | None], list[float]]
    cpu: tuple[float, str, float] | None
    slept: tuple[float, int, str] | None
    # the lines of the with block that took it (with_block_lines); None: not known
    block: range | None
    # seconds of those waits that read a socket right from the program's code (its own
    # protocol client's connection: gevent's or the standard library's socket reads)
    socket_s: float = 0.0
    # seconds of those waits that were ready to run but queued behind other greenlets
    # (the loop busy with their CPU while the holders held it)
    ready_s: float = 0.0
    # the program's frames beneath which at least half of those waits' event wait went
    # (HELD_MOSTLY_SHARE): where the holders mostly waited, whatever the depth
    mostly_at: frozenset[str] = frozenset()
    # (path, line) of the program's lines whose calls waited under the lock
    call_lines: frozenset[tuple[str, int]] = frozenset()


def _holding(profile: Profile, rows: list[Any], where: str) -> Holding | None:
    """The Holding of the function whose line *where* took the lock; None when the line
    is unknown."""
    lock = parse_frame(where)
    if not lock.line:
        return None
    block = with_block_lines(f"{lock.path}:{lock.line}:{lock.function}")
    under = _under(lock, block)
    by_caller = _waits_inside(profile, rows, lock, under)
    waited = sum(t for _n, t, _c in by_caller.values())
    slept = _sleeps_inside(profile, rows, lock, under, waited) if block is not None else None
    under_rows = [w for w, _i in _waits_under(profile, rows, lock, under)]
    socket_s = sum(event_wait(w) for w in under_rows if socket_read_depth(w.stack) is not None)
    ready_s = sum(w.ready_wait_s or 0.0 for w in under_rows)
    return Holding(lock, by_caller, _cpu_inside(profile, lock, under), slept, block,
                   socket_s, ready_s, _mostly_at(under_rows),
                   frozenset(frame_line(user_site(w.stack).user) for w in under_rows) - {None})


# Holders that made at most this many calls under the lock in all ...
HELD_ONCE_CALLS = 2
# ... waiting under it less than this share of the run: a one-time set-up (the first
# token fetched under a single-flight lock while the first requests wait for it), not a
# lock that paced the work (an unseen gateway's healthy run: 23 greenlets waited 0.71 s
# for one 31 ms token fetch at its start, told as a lock that "paced the work").
HELD_ONCE_RUN_SHARE = 0.1


def _held_once(profile: Profile, holding: Holding) -> bool:
    """Whether the holders' work under the lock was a one-time set-up (HELD_ONCE_CALLS,
    HELD_ONCE_RUN_SHARE): a call or two (their connect, head and body waits), short."""
    calls = sum(c for _n, _t, c in holding.by_caller.values())
    held = sum(t for _n, t, _c in holding.by_caller.values())
    return 0 < calls <= HELD_ONCE_CALLS and held < HELD_ONCE_RUN_SHARE * profile.duration_s


# A frame of the program's carries the holders' waiting under a lock from this share of
# it on: the call that most of each hold was spent in.
HELD_MOSTLY_SHARE = 0.5


def _mostly_at(rows: list[Any]) -> frozenset[str]:
    """The program's frames found in the stacks of *rows* (waits under a lock) that at
    least HELD_MOSTLY_SHARE of their event wait went beneath."""
    total = sum(event_wait(w) for w in rows)
    beneath: dict[str, float] = {}
    for w in rows:
        for frame in set(w.stack):
            if isinstance(frame, str) and not is_machinery(frame):
                beneath[frame] = beneath.get(frame, 0.0) + event_wait(w)
    return frozenset(f for f, t in beneath.items() if total and t >= HELD_MOSTLY_SHARE * total)


def _queued_holding(holding: Holding | None) -> tuple[float, str] | None:
    """(share, sentence) when the holders' waits under the lock were at least
    HELD_READY_SHARE ready to run but queued behind others' CPU; None otherwise."""
    if holding is None:
        return None
    waited = sum(t for _n, t, _c in holding.by_caller.values()) + holding.ready_s
    if not waited > 0 or holding.ready_s < HELD_READY_SHARE * waited:
        return None
    share = holding.ready_s / waited
    return share, (
        f" Its holders also stood {holding.ready_s:.3f} s ready to run under it but "
        f"queued behind other greenlets ({share:.0%} of their waits there): the loop's "
        "CPU stretched every hold, so less of it (the finding on the loop's CPU says whose) "
        "shortens the holds, and the queue, first.")


def _lines(block: range) -> str:
    """"line 73" or "lines 73-75"."""
    last = block.stop - 1
    return f"line {block.start}" if last == block.start else f"lines {block.start}-{last}"


def _ms(seconds: float) -> str:
    """Milliseconds as a reader reads them: "12 ms", "0.3 ms" (a wait of 0.3 ms in
    thousands is no "0 ms")."""
    ms = seconds * 1e3
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms" if ms >= 0.1 else f"{ms:.2f} ms"


def _held_inside(holding: Holding | None, shared_connection: bool = False) -> str:
    """A sentence on the waits inside the function that took the lock (its other lines:
    most likely the locked block's calls), by the program's line that called that
    function, longest in all first, and its CPU; "" when there are none.  When one
    caller's waits there ran UNEVEN_HOLD_RATIO times as long as another's, callers of
    different kinds share the lock, and the sentence says who held it longest; with
    *shared_connection* (a mutex whose holders mostly read a socket of the program's
    own: _shares_a_connection), that one connection is told as what they queue for."""
    if holding is None or (not holding.by_caller and holding.cpu is None):
        return ""
    lock, by_caller, cpu, slept = holding.lock, holding.by_caller, holding.cpu, holding.slept
    # per call where heads were waited for, else per wait
    ranked = sorted(((key, (calls or n, t, "calls" if calls else "waits"))
                     for key, (n, t, calls) in by_caller.items()), key=lambda kv: -kv[1][1])
    shown = "; ".join(f"at {frame}{f' from {caller}' if caller else ''}: {n} {unit} of "
                      f"{_ms(t / n)}"
                      for (frame, caller), (n, t, unit) in ranked[:INSIDE_SHOWN])
    ran = (f"ran {cpu[0]:.3f} s of CPU there (sampled; {cpu[2]:.0%} of it at {cpu[1]})"
           if cpu is not None else "")
    text = (f" Inside {lock.function}, which takes it, the work done under it (if the lock "
            "is held across it) "
            + (f"waited {shown}" if ranked else "")
            + (" and " if ranked and ran else "") + ran
            + ": what each holder held it for.")
    if shared_connection:
        text += SHARED_CONNECTION
    if slept is not None:
        asleep, sleeps, line = slept
        text += (f" {asleep:.3f} s of that waiting was asleep in gevent.sleep at {line} "
                 f"({sleeps} sleeps of {asleep / sleeps * 1e3:.0f} ms): a holder that "
                 "sleeps (a retry's back-off, a pause) keeps the others out while it does "
                 "nothing. Fix that first: take the lock for each attempt, or let it go "
                 "before the sleep, so that the sleeps happen outside it (the limit it sets "
                 "stays the same).")
    per_caller: dict[str, list[float]] = {}
    for (_frame, caller), (n, t, _unit) in ranked:
        if caller is not None:  # (a greenlet's own function has no caller to tell apart)
            acc = per_caller.setdefault(caller, [0, 0.0])
            acc[0], acc[1] = acc[0] + n, acc[1] + t
    means = sorted((t / n, caller) for caller, (n, t) in per_caller.items())
    if len(means) < 2:
        return text
    (shortest, quick), (longest, slow) = means[0], means[-1]
    if shortest > 0 and longest >= UNEVEN_HOLD_RATIO * shortest:
        text += (f" Callers of different kinds share it: those from {slow} held it "
                 f"{longest / shortest:.0f} times as long per call as those from {quick}; "
                 "give each kind (each upstream) a lock or semaphore of its own.")
    return text


# Socket reads made right from the program's code holding at least this share of the
# waits under the lock: most likely one connection of its own protocol client, shared
# behind the lock so that one request and its reply go at a time (an unseen cache
# tier's 800 page renders queued 133 s behind one client connection; told to make slow
# calls outside the lock, which would mix replies up; a pool of connections cut the
# run 2.8x).
SHARED_SOCKET_SHARE = 0.5
SHARED_CONNECTION = (
    " Most of that waiting read a socket right from the program's code: if the lock "
    "keeps one connection to one request and its reply at a time, that connection is "
    "what everyone queues for -- give each greenlet a connection of its own, or a pool of "
    "them (a gevent.queue.Queue of connections, taken and given back per call); making "
    "the call outside the lock instead would mix the replies up.")


# A pool's jobs waiting for what a pool of the program's own hands out (a queue's get
# under one of its with blocks: a database connection) held it across other waits
# when those (not reading a socket right from the program's code: its own use of what
# it took) were at least this share of all the waits inside that block (an unseen
# payments worker held its transaction's connection across a risk service's HTTP call,
# 81 % of its waits in the block: told "a larger Pool", +1 %; scoring before the
# transaction took 43 % off the run).
HELD_ACROSS_TAKEN_SHARE = 0.5


class HeldAcross(NamedTuple):
    """What a pool's jobs held across other waits (held_across_taken)."""

    block: str  # the with line that took it
    site: str  # the heaviest other wait inside the block
    count: int  # ... its calls (waits for a response's head), else its waits
    unit: str  # "calls" or "waits"
    seconds: float  # ... and their event wait
    inside: float  # every other wait inside the block


def held_across_taken(profile: Profile, job_rows: list[Any],
                      heaviest: Any) -> HeldAcross | None:
    """When the jobs' heaviest wait is a queue's get() made under a with block of the
    program's (a connection taken from its own pool), the block whose other waits --
    those not reading a socket right from the program's code, its own use of what it
    took -- were longest, if at least HELD_ACROSS_TAKEN_SHARE of its waits."""
    if heaviest is None or heaviest.call != "get":
        return None
    taken_at = user_site(heaviest.stack).user
    rows = [w for w in job_rows if user_site(w.stack).user == taken_at]
    best: HeldAcross | None = None
    share = 0.0
    for frame in heaviest.stack[1:]:
        lines = with_block_lines(frame) if not is_library_frame(frame) else None
        if lines is None:
            continue
        at = parse_frame(frame)
        other: dict[str, list[float]] = {}  # frame: [waits, seconds, calls]
        used = 0.0  # its own use: the socket reads
        for w, i in _waits_under(profile, rows, at, _under(at, lines)):
            if socket_read_depth(w.stack) is not None:
                used += event_wait(w)
            else:
                acc = other.setdefault(w.stack[i], [0, 0.0, 0])
                acc[0] += w.count
                acc[1] += event_wait(w)
                # an HTTP call waits several times (connect, send, its head): per call
                acc[2] += w.count if awaits_answer(w) else 0
        inside = sum(t for _n, t, _c in other.values())
        if other and (best is None or inside > best.inside):
            site = max(other, key=lambda k: other[k][1])
            waits, seconds, calls = other[site]
            best = HeldAcross(frame, site, int(calls or waits),
                              "calls" if calls else "waits", seconds, inside)
            share = inside / (inside + used)
    return best if best is not None and share >= HELD_ACROSS_TAKEN_SHARE else None


def _shares_a_connection(holding: Holding | None) -> bool:
    """Whether the waits under the lock mostly read a socket right from the program's
    code (SHARED_SOCKET_SHARE)."""
    if holding is None or not holding.socket_s:
        return False
    return holding.socket_s >= SHARED_SOCKET_SHARE * sum(
        t for _n, t, _c in holding.by_caller.values())


def _waits_under(profile: Profile, rows: list[Any], lock: Any,
                 under: Callable[[int], bool]) -> Iterator[tuple[Any, int]]:
    """(``waits`` row, the depth of its frame in the lock's function) for each wait made
    inside the function of the line that took the lock (*lock*, parsed), at the lines
    *under* says ran under it (_under); the lock's own *rows* left out."""
    mine = {tuple(w.stack) for w in rows}
    for w in profile.waits:
        if tuple(w.stack) in mine or not w.count:
            continue
        for i, frame in enumerate(w.stack):
            f = parse_frame(frame)
            if (f.path, f.function) == (lock.path, lock.function) and under(f.line):
                yield w, i
                break


def _waits_inside(profile: Profile, rows: list[Any], lock: Any,
                  under: Callable[[int], bool]) -> dict[tuple[str, str | None], list[float]]:
    """The waits under the lock (_waits_under), by (the frame in its function, the
    program's line that called the function): [waits, seconds of event wait, calls
    (waits for a response's head)]."""
    by_caller: dict[tuple[str, str | None], list[float]] = {}
    for w, i in _waits_under(profile, rows, lock, under):
        caller = user_site(w.stack[i + 1:]).user  # None: a greenlet's own run
        acc = by_caller.setdefault((w.stack[i], caller), [0, 0.0, 0])
        acc[0] += w.count
        acc[1] += event_wait(w)
        # an HTTP call waits several times (connect, send, its head): per call
        acc[2] += w.count if awaits_answer(w) else 0
    return by_caller


def _under(lock: Any, block: range | None) -> Callable[[int], bool]:
    """Whether a line of the function whose line *lock* (parsed) took the lock ran
    under it: in its with block's lines *block* where the source tells them
    (with_block_lines), else any other line of the function (most likely the locked
    block's)."""
    if block is None:
        return lambda line: line != lock.line
    return lambda line: line in block


def _sleeps_inside(profile: Profile, rows: list[Any], lock: Any,
                   under: Callable[[int], bool], waited: float
                   ) -> tuple[float, int, str] | None:
    """(seconds, sleeps, the program's line that slept most) of the gevent.sleep calls
    made inside the with block whose line *lock* (parsed) took the lock (its lines by
    *under*), when they are at least INSIDE_SLEEP_SHARE of the *waited* seconds there;
    else None.  Only for a block whose lines are known: a sleep elsewhere in the
    function, such as a back-off between attempts that each take the lock, is no sleep
    under it."""
    at: dict[str, list[float]] = {}
    for w, i in _waits_under(profile, rows, lock, under):
        if SLEEP_FRAME.search(w.stack[0].replace("\\", "/")):
            acc = at.setdefault(user_site(w.stack).user or w.stack[i], [0.0, 0])
            acc[0] += event_wait(w)
            acc[1] += w.count
    asleep = sum(t for t, _n in at.values())
    if not at or waited <= 0 or asleep < INSIDE_SLEEP_SHARE * waited:
        return None
    line = max(at, key=lambda k: at[k][0])
    return asleep, int(sum(n for _t, n in at.values())), line


def _cpu_inside(profile: Profile, lock: Any, under: Callable[[int], bool]
                ) -> tuple[float, str, float] | None:
    """(sampled CPU seconds, the line that took most, its share) of the samples under
    the function of the lock's line *lock*, at the lines *under* says ran under it
    (_under), when they add up to a block threshold; None otherwise (or without
    samples): a parse held under the lock costs the waiters as a call does."""
    samples = samples_of(profile)
    if samples is None:
        return None
    at: dict[str, float] = {}
    for chain in chains(samples):
        for frame in chain.labels:
            f = parse_frame(frame)
            if (f.path, f.function) == (lock.path, lock.function):
                if under(f.line):
                    at[frame] = at.get(frame, 0.0) + chain.cpu_s
                break
    total = sum(at.values())
    if not at or total < block_threshold(profile):
        return None
    line = max(at, key=at.__getitem__)
    return total, line, at[line] / total


def idle_share(profile: Profile) -> float | None:
    """The share of the run the hub idled, when that is at least POOL_IDLE_SHARE (the
    loop sat mostly idle), else None (also for a run of no positive length).  A
    spin-wait's rounds (spin_s) count as idle: waiting on an Event, the spinner would
    have left the loop idle then (an unseen coordinator's gevent.sleep(0) loop kept
    the hub from ever idling in its poll, and hid a full Pool that paced the run)."""
    idle = profile.hub.get("idle_s")
    duration = profile.duration_s
    if not isinstance(idle, (int, float)) or not duration > 0:
        return None
    # the run as it would have gone with a CPU to itself (as loop-saturated counts it):
    # a crowded machine stretches the loop's busy time, not its idle (two CPU hogs
    # took a fan-out's idle loop under half the run, and its full Pool went untold)
    duration -= cpu_wait(profile)
    if not duration > 0:
        return None
    idle = min(duration, idle + spin_s(profile))
    if not idle >= POOL_IDLE_SHARE * duration:
        return None
    return idle / duration


def slot_waits(profile: Profile) -> list[Any]:
    """The waits for a free slot of a gevent Pool (SLOT_WAIT)."""
    return [w for w in profile.waits if w.stack and SLOT_WAIT.search(w.stack[0])]


def pool_held_back(profile: Profile, slots: list[Any] | None = None) -> bool:
    """Whether a gevent Pool's spawners waited for its free slots (*slots*, slot_waits'
    by default) at least a block threshold: its jobs ran at most its size at once."""
    waits = slot_waits(profile) if slots is None else slots
    return sum(event_wait(w) for w in waits) >= block_threshold(profile)


def full_pool_jobs(profile: Profile) -> list[Any]:
    """The greenlets spawned into a gevent Pool whose spawner waited for free slots at
    least a block threshold (gevent records the spawner as parent): jobs that ran at
    most the pool's size at once.  [] when no pool held its spawner back."""
    slots = slot_waits(profile)
    if not pool_held_back(profile, slots):
        return []
    ended = switched_out_at(profile)
    return pool_jobs(profile, {ended.get(tuple(w.stack)) for w in slots} - {None})


def pool_jobs(profile: Profile, spawners: set[Any]) -> list[Any]:
    """The greenlets the greenlets *spawners* (ids) started (gevent records the spawner
    as parent), the hub apart; of those, the ones a gevent Pool started where the
    profile says (``meta.pool_jobs``, by name) and any did: a spawner that fills a Pool
    may start others beside it (an unseen status backend's pollers, started with
    gevent.spawn, were told as its Pool's jobs asleep in their slots)."""
    started = [g for g in profile.greenlets if g.parent is not None
               and g.parent in spawners and g.id != profile.hub.get("id")]
    pooled = profile.meta.get("pool_jobs")
    if not isinstance(pooled, dict):
        return started
    return [g for g in started if g.name in pooled] or started


def spin_s(profile: Profile) -> float:
    """The loop time spin-waits took (switch-storm findings told as spin-waits: their
    slices and the hub's rounds they made)."""
    from geventperf.findings.reading import switch_storms  # (reading.py builds on this)
    return sum(f.extra.get("run_s", 0.0) + f.extra.get("switching_s", 0.0)
               for f in switch_storms(profile) if f.extra.get("spin"))


def idle_told(profile: Profile, idle: float) -> str:
    """``idle 74% of the run``, saying so when a spin-wait's rounds count in it, or the
    thread's waits for a CPU are left out of the run."""
    notes = (["counting a spin-wait's rounds, which waiting on an Event would have left "
              "idle"] if spin_s(profile) > 0 else []) + (
        [f"counted on the run as it would have gone with a CPU to itself: the thread "
         f"waited {cpu_wait(profile):.3f} s for one"] if cpu_wait(profile) >= CPU_WAIT_TOLD * (
             profile.duration_s or 0.0) else [])
    return f"idle {idle:.0%} of the run" + (f" ({'; '.join(notes)})" if notes else "")


def paced(profile: Profile, rows: list[Any],
          busy_room: bool = True) -> tuple[float | None, float]:
    """The event wait of *rows* (their ready part was queueing behind others) and the
    share of the run the hub idled, or (None, 0) unless the waits add up to a block
    threshold while the loop had room: it idled POOL_IDLE_SHARE of the run, or (with
    *busy_room*) its greenlets queued little (little_queueing)."""
    waited = sum(event_wait(w) for w in rows)
    idle = idle_share(profile)
    if idle is None and busy_room and little_queueing(profile):
        idle = profile.hub.get("idle_s", 0.0) / profile.duration_s
    if not rows or waited < block_threshold(profile) or idle is None:
        return None, 0.0
    return waited, idle


def little_queueing(profile: Profile) -> bool:
    """Whether the greenlets (the hub apart) queued for the loop under LIMIT_QUEUE_SHARE
    of their waiting, an in-process server's connections awaiting their clients' next
    requests left out (idle capacity, not I/O anyone awaited)."""
    workers = _workers(profile)
    ready = sum(g.ready_wait_s for g in workers)
    event = sum(g.event_wait_s for g in workers) - idle_server_wait(profile)
    return event > 0 and ready < LIMIT_QUEUE_SHARE * (ready + event) \
        and isinstance(profile.hub.get("idle_s"), (int, float)) and profile.duration_s > 0


def event_wait(wait: Any) -> float:
    """A waits row's (or a greenlet's) event wait: its wait, in profiles written before
    the split."""
    return wait.wait_s if wait.event_wait_s is None else wait.event_wait_s


class Waiters(NamedTuple):
    """What a finding about a set of waits (``waits`` rows) names."""

    worst: Any  # the heaviest row: its stack places the finding
    where: str  # the user's line of that row ("an unrecorded place" if none)
    count: int  # the rows' waits in all
    greenlet: Any  # the last greenlet that switched out at the heaviest row's stack
    # the base names of the greenlets that last waited at the rows' stacks (a stack
    # knows only the last one: they are named by kind)
    names: frozenset[str]

    @property
    def who(self) -> str:
        """``greenlets such as 'a', 'b'``."""
        names = sorted(self.names)
        return "greenlets" + (f" such as {', '.join(repr(n) for n in names)}"
                              if names else "")


def waiters(profile: Profile, rows: list[Any],
            weight: Callable[[Any], float] = lambda w: w.event_wait_s or w.wait_s
            ) -> Waiters:
    """The :class:`Waiters` of *rows* (not empty), the heaviest by *weight*."""
    worst = max(rows, key=weight)
    ended = switched_out_at(profile)
    names = frozenset(_base_name(g.name) for w in rows
                      if (g := profile.greenlet(ended.get(tuple(w.stack)))) is not None)
    return Waiters(worst, user_site(worst.stack).user or "an unrecorded place",
                   sum(w.count for w in rows), ended.get(tuple(worst.stack)), names)


def switched_out_at(profile: Profile) -> dict[tuple[str, ...], Any]:
    """Stack -> the last greenlet that switched out there: a wait starts where a run
    slice ended, so the runs row of a wait's stack knows a greenlet that waited."""
    return {tuple(r.stack): r.greenlet for r in profile.runs}


def without_outweighed_limits(found: list[Finding],
                              profile: Profile | None = None) -> list[Finding]:
    """*found* without its limit findings (LIMIT_KINDS) when another finding
    is a hazard, costs at least as much as each, or lies in the function whose line
    took the lock or used the pool: that one is why the work took long (see the
    module's note).  A lock's waits are its holders' time times the queue behind them,
    so a cause inside the locked code (a parser reading the network, held under the
    lock) costs less than the queue it makes: 100 greenlets queued 467 s behind a
    lock held across parses that waited 10 s for their input.  The machine's own
    finding (cpu-starved) outweighs nothing here: the loop was idle.  A full pool
    whose jobs are known (*profile* given) gives way by cost only to a cause in its
    jobs: a housekeeper blocking the loop elsewhere did not make them slow."""
    # (a pool whose jobs slept in the program's own timer is that timer's finding: a
    # cause, not a limit whose holders something else slowed)
    limits = [f for f in found if f.kind in LIMIT_KINDS and not f.extra.get("slept_in_slots")]
    causes = [f for f in found if f.kind not in LIMIT_KINDS and f.kind != CPU_STARVED]
    dropped = [f for f in limits if any(
        c.extra.get("hazard") or _inside(c, f)
        or (c.cost_s >= f.cost_s and _may_have_slowed(c, f, profile)) for c in causes)]
    # a full pool whose jobs held their slots mostly waiting at the line of another
    # limit costing as much (a connection pool of 2 under a Pool(24), a lock its jobs
    # queued at, a serial bottleneck's hand-off: crawlers putting into one slow writer's
    # queue, told "the pool's size paced the work" in an unseen podcast indexer, where a
    # larger Pool would only have queued more of them at the put) is that limit's
    # consequence: the inner limit paced them
    dropped += [f for f in limits if f.kind == POOL_FULL and f.extra.get("jobs_site")
                is not None and any(
        inner.kind != POOL_FULL and inner.cost_s >= f.cost_s
        and f.extra["jobs_site"] in (inner.extra.get("site"), inner.extra.get("handoff_site"))
        for inner in limits)]
    # ... and so is one whose jobs held their slots mostly waiting, at the line of a
    # cause of that wait, for what the cause says took the time (the bytes of bodies
    # sent uncompressed over a slow link): a larger pool only overlaps more of them
    dropped += [f for f in limits if f.kind == POOL_FULL and any(
        c.kind in SLOT_WAIT_CAUSES and c.extra.get("site") == f.extra.get("jobs_site")
        is not None for c in causes)]
    return [f for f in found if all(f is not d for d in dropped)]


def _may_have_slowed(cause: Finding, limit: Finding, profile: Profile | None) -> bool:
    """Whether *cause* can be why *limit*'s work took long: for a full pool with known
    jobs, when the cause is in a greenlet of one of their names (or names none);
    for every other limit, always (their holders are not recorded)."""
    if limit.extra.get("held_across_s"):  # holders waited under it: a cause of its own
        return False
    jobs = limit.extra.get("job_names")
    if limit.kind != POOL_FULL or profile is None or not isinstance(jobs, list) or not jobs:
        return True
    g = profile.greenlet(cause.greenlet) if isinstance(cause.greenlet, int) else None
    return g is None or _base_name(g.name) in jobs


# Findings that make a holder slow by what it waits for or holds the loop with: in the
# locked code they are why the queue formed.  Slow paths (small body reads, a switch
# storm) cost their holder a little CPU each and leave the queue to the lock.
HOLDER_CAUSES = frozenset({BLOCKED_READ, BLOCKING_CALL, LOOP_BLOCKED, LOOP_HELD, GC_PAUSE,
                           THREADPOOL_SATURATED})
# ... and for a saturated worker pool, also what made each of its calls take longer than
# it needed: failing, retried after a back-off, or stalled on a delayed ACK.
SLOW_CALL_CAUSES = HOLDER_CAUSES | {REQUESTS_FAILED, RETRY_BACKOFF, DELAYED_ACK_STALL,
                                    REQUEST_BODY_STALL}


# Findings that tell why a wait took long at the line they name (their ``site``): a full
# pool whose jobs held their slots mostly waiting there gives way to them.
SLOT_WAIT_CAUSES = frozenset({UNCOMPRESSED_BODIES, NEW_CONNECTIONS_QUEUED})


# Holder causes that are the loop's CPU: under a lock they explain its queue only when
# the holders burned more there than they waited (a lock held across an upstream call
# and a parse: 2.6 s of calls beside 2.0 s of parsing, and the lock's fix saved more).
CPU_HOLDER_CAUSES = frozenset({LOOP_BLOCKED, LOOP_HELD, GC_PAUSE})


# A cause inside the limit's function explains its waits only when it struck at least
# this share of them as often: an unseen matcher's connection pool of 8 under 64
# greenlets (2 992 waits, 619 s) was dropped for a blocking call at the same line in 2
# slices on a crowded machine (4.9 s), and its calls told as made in turn instead.
INSIDE_MIN_SHARE = 0.01


def _inside(cause: Finding, limit: Finding) -> bool:
    """Whether *cause* is one that slows a holder and its stack passes through the
    function of the limit's line (its ``site``): what the lock's holders, or the pool's
    jobs, did there (for a lock and a CPU cause, mostly)."""
    site = limit.extra.get("site")
    causes = SLOW_CALL_CAUSES if limit.kind == WORKERS_SATURATED else HOLDER_CAUSES
    if cause.kind not in causes or not isinstance(site, str):
        return False
    if cause.kind in CPU_HOLDER_CAUSES and limit.kind == LOCK_CONTENDED \
            and _f(limit.extra, "held_cpu_s") < _f(limit.extra, "held_wait_s"):
        return False
    where = parse_frame(site)
    if not where.path:  # "an unrecorded place"
        return False
    times, waits = _count(cause.extra, "count"), _count(limit.extra, "waits")
    if times and waits and times < INSIDE_MIN_SHARE * waits:
        return False
    return any((frame := parse_frame(entry)).path == where.path
               and frame.function == where.function
               for entry in cause.stack if isinstance(entry, str))


LIMIT_KINDS = (POOL_FULL, CONNECTION_POOL_FULL, LOCK_CONTENDED, SERIAL_BOTTLENECK,
               WORKERS_SATURATED)
