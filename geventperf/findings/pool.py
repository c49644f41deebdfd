"""A gevent ``Pool`` too small for an idle loop: the ``pool-full`` finding, from the
wait stacks.

``gevent.pool.Pool`` bounds how many greenlets run at once with a semaphore: spawning
into a full pool waits in ``Pool.add`` (``Pool.wait_available`` waits the same way) for
a greenlet of the pool to finish.  When the loop sat idle meanwhile, the jobs were
waiting on I/O, and the pool's size -- not the CPU, not one slow call -- set the pace:
40 jobs of 50 ms each through ``Pool(2)`` take a second however fast the code is.  The
semaphore is compiled, so the wait's innermost Python frame is gevent's ``pool.py``,
which tells these waits apart from any other.

A full pool is a consequence: its jobs took long.  Only when nothing else explains
why (plain waits on a downstream) is its size the lever; when another finding weighs
as much -- blocked reads inside a parser, a lock, a loop blocker -- that is why the jobs
took long, a bigger pool would only queue more of them, and ``compute`` drops the
pool's finding (:func:`without_outweighed_pool`).
"""

from __future__ import annotations

import re

from geventperf.findings.common import CPU_STARVED, POOL_FULL, _f, _finding, _names
from geventperf.findings.loop import DEFAULT_BLOCK_THRESHOLD_S
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

# A wait for a free slot of a gevent Pool: its innermost frame (path:line:function).
SLOT_WAIT = re.compile(r"[/\\]gevent[/\\]pool\.py:\d+:(Pool\.add|Pool\.wait_available)$")
# A wait for the results of Pool.map (its innermost frame): the line that called it is
# where a Pool.map's spawning greenlet came from.
MAP_WAIT = re.compile(r"[/\\]gevent[/\\]pool\.py:\d+:GroupMappingMixin\.map$")
# The loop was idle in its poll at least this share of the run: it had room for more
# jobs at once.  A busier loop would only queue a bigger pool's greenlets behind each
# other (loop-saturated's story), so a larger pool is no cure there.
POOL_IDLE_SHARE = 0.5


def pool_full(profile: Profile) -> list[Finding]:
    """Spawns that waited for a free slot of a gevent Pool while the loop was mostly
    idle: one finding for all of them.  ``cost_s``: the greenlet-seconds they waited."""
    threshold = _f(profile.meta, "block_threshold_s", DEFAULT_BLOCK_THRESHOLD_S)
    rows = [w for w in profile.waits if w.stack and SLOT_WAIT.search(w.stack[0])]
    # the wait for the slot itself; its ready part was queueing behind others
    waited = sum(w.wait_s if w.event_wait_s is None else w.event_wait_s for w in rows)
    idle = profile.hub.get("idle_s")
    duration = profile.duration_s
    if not rows or waited < threshold or not isinstance(idle, (int, float)) \
            or not duration or idle < POOL_IDLE_SHARE * duration:
        return []
    worst = max(rows, key=lambda w: w.event_wait_s or w.wait_s)
    placed = [w for w in rows if user_site(w.stack).user]
    where = user_site(max(placed, key=lambda w: w.wait_s).stack).user if placed else None
    if where is None:  # spawned by Pool.map's own greenlet: name the map's caller
        maps = [w for w in profile.waits if w.stack and MAP_WAIT.search(w.stack[0])
                and user_site(w.stack).user]
        where = user_site(max(maps, key=lambda w: w.wait_s).stack).user if maps else None
    count = sum(w.count for w in rows)
    # who waited: a wait starts where a run slice ended, so the runs row of the same
    # stack knows a greenlet that switched out there
    ended = {tuple(r.stack): r.greenlet for r in profile.runs}
    gids = [ended.get(tuple(w.stack)) for w in rows]
    who = _names(profile, gids) if any(g is not None for g in gids) else "greenlets"
    message = (
        f"A gevent Pool was full: spawning into it waited {waited:.3f} s for a free slot "
        f"({count} times"
        + (f", for the pool used at {where}" if where else ", inside gevent's Pool.imap")
        + f"; {who} waited) while the loop sat "
        f"idle {idle / duration:.0%} of the run: the jobs were waiting, not computing, and "
        "no other finding explains their waits, so the pool's size paced the work. Fix: "
        "a larger Pool(size) if what the jobs wait on (a downstream service) can take "
        "more requests at once; if the limit is deliberate (a downstream's rate limit), "
        "this is what it costs.")
    return [_finding(POOL_FULL, message, waited, list(worst.stack),
                     greenlet=ended.get(tuple(worst.stack)),
                     waits=count, slot_wait_s=waited, idle_share=idle / duration,
                     site=where)]


def without_outweighed_pool(found: list[Finding]) -> list[Finding]:
    """*found* without its pool-full finding when another finding is a hazard or costs
    at least as much: that one is why the jobs took long (see the module's note).  The
    machine's own finding (cpu-starved) outweighs nothing here: the loop was idle."""
    pool = [f for f in found if f.kind == POOL_FULL]
    others = [f for f in found if f.kind != POOL_FULL]
    if pool and any(f.extra.get("hazard") or f.cost_s >= pool[0].cost_s
                    for f in others if f.kind != CPU_STARVED):
        return others
    return found
