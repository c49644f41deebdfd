"""Greenlets that outlived the work that started them (``greenlet-leak``).

A helper greenlet spawned per job (a lease keeper, a heartbeat, a progress poller) and
stopped on some paths only keeps running after its job is done: it wakes on its timer,
makes its calls, and competes with the jobs still running for the loop and for the
connection pool.  The profile knows it by its shape: many greenlets of one name still
alive when tracing stopped (``meta["alive_at_end"]``), spawned by greenlets of a name
none of which were alive then (gevent records the spawner as ``parent``; the main
greenlet and the hub never count as finished: a server's handlers and a pool's
workers are theirs), and waking again and again meanwhile.

Whatever their calls caused (connections churned through a pool too small for them, a
resolver's queue) is a consequence: the findings about greenlets of that name follow
from this one, which takes their cost when it is larger than its own and comes first
(on a tie, by the order of kinds).
"""

from __future__ import annotations

from typing import Any, Sequence

from geventperf.findings.common import GREENLET_LEAK, _base_name, _finding
from geventperf.findings.limits import awaits_answer, event_wait, switched_out_at
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile

# Greenlets of one name alive at the end from this many on: a few long-lived helpers
# (a refresher, a metrics flusher) started by a finished initialiser are the design.
LEAK_MIN_ALIVE = 20
# ... and at least this share of them started by greenlets of a finished name.
ORPHAN_SHARE = 0.5
# ... and they switched this many times each on average: waking again and again (a
# keeper renewing a lease every 0.5 s switched 36 times over a 8 s run), not one
# unfinished call caught by the end of tracing.
LEAK_MIN_SWITCHES = 6
# Wait sites named in the message.
SITES_SHOWN = 2
# Main and the hub do not finish while they are traced: greenlets they spawned (a
# server's handlers, a pool's workers) have a live spawner.
LIVE_SPAWNERS = frozenset({"main", "hub"})

LEAK_FIX = ("A helper greenlet spawned for each job (a lease keeper, a heartbeat, a "
            "progress poller) and stopped on some paths only keeps working for nobody once "
            "its job is done: its calls compete with the jobs still running for the loop "
            "and for the connection pool, and it keeps its job's objects alive. Fix: stop "
            "it where the job ends, on every path -- helper.kill() in a finally: block (or "
            "a loop that checks an Event the job sets), gevent.killall() for a group.")


def greenlet_leaks(profile: Profile, found: Sequence[Finding] = ()) -> list[Finding]:
    """One finding per name of greenlets that outlived their spawners (see the module's
    text), given the other findings of *profile* (*found*): those about greenlets of
    that name are its consequences.  ``cost_s``: their running and the queueing it
    caused others, or the costliest consequence's cost when larger (what their calls
    caused goes with them)."""
    alive = profile.meta.get("alive_at_end")
    if not isinstance(alive, dict):
        return []
    live_names = {_base_name(n) for n, c in alive.items()
                  if isinstance(n, str) and isinstance(c, int) and c > 0}
    names = {g.id: _base_name(g.name) for g in profile.greenlets}
    out = []
    for name, count in alive.items():
        if not isinstance(name, str) or not isinstance(count, int) or count < LEAK_MIN_ALIVE \
                or name in LIVE_SPAWNERS:
            continue
        group = [g for g in profile.greenlets if _base_name(g.name) == name]
        spawners = {names.get(g.parent) for g in group} - {None}
        finished = spawners - live_names - LIVE_SPAWNERS - {name}
        orphans = sum(1 for g in group if names.get(g.parent) in finished)
        switches = sum(g.switches for g in group)
        if orphans < ORPHAN_SHARE * count or switches < LEAK_MIN_SWITCHES * len(group):
            continue
        caused = [f for f in found if names.get(f.greenlet) == name]
        out.append(_leak(profile, name, count, group, orphans, sorted(finished), caused))
    return out


def _leak(profile: Profile, name: str, count: int, group: list[Any], orphans: int,
          spawners: list[str], caused: list[Finding]) -> Finding:
    ids = {g.id for g in group}
    ended = switched_out_at(profile)
    theirs = [w for w in profile.waits if ended.get(tuple(w.stack)) in ids]
    by_site: dict[str, list[Any]] = {}
    for w in theirs:
        by_site.setdefault(user_site(w.stack).user or w.stack[0], []).append(w)
    sites = sorted(by_site.items(), key=lambda kv: -sum(w.count for w in kv[1]))
    wakes = sum(w.count for w in theirs)
    asked = [w for w in theirs if awaits_answer(w)]
    calls, called = sum(w.count for w in asked), sum(event_wait(w) for w in asked)
    run = sum(g.run_s for g in group)
    delayed = sum(g.delayed_others_s or 0.0 for g in group)
    where = " and ".join(f"{site} ({sum(w.count for w in rows)} times)"
                         for site, rows in sites[:SITES_SHOWN])
    kinds = list(dict.fromkeys(f.kind for f in caused))
    message = (
        f"Greenlets outlived the work that started them: {count} greenlets {name!r} were "
        f"still running when tracing stopped, {orphans} of them started by "
        + ", ".join(repr(s) for s in spawners)
        + " greenlets, none of which were still running. They kept waking meanwhile: "
        f"{wakes} wake-ups, {wakes / count:.0f} each on average"
        + (f", most at {where}" if where else "")
        + (f"; {calls} of them answered requests ({called:.3f} s waited for them)"
           if calls else "")
        + f". They ran {run:.3f} s on the loop and kept others waiting {delayed:.3f} "
        f"greenlet-seconds ready to run"
        + (f"; the findings about them ({', '.join(kinds)}) follow from this one" if kinds
           else "")
        + f". {LEAK_FIX}")
    stack = list(sites[0][1][0].stack) if sites else []
    cost = max([run + delayed] + [f.cost_s for f in caused])
    return _finding(GREENLET_LEAK, message, cost, stack, greenlet=min(ids), alive=count,
                    orphans=orphans, spawners=spawners, wakes=wakes, calls=calls,
                    consequences=kinds)
