"""Hazards: what can hang the process (ranked above every cost)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from geventperf.findings.common import DEADLOCK_RISK, _events, _f, _finding, _names
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile


def deadlock_risks(profile: Profile) -> list[Finding]:
    """Two greenlets inside ``lxml.etree.parse(fileobj)`` with one parser lock."""
    groups: dict[tuple[Any, bool], list[dict[str, Any]]] = defaultdict(list)
    for ev in _events(profile, "lxml-concurrent-parse"):
        where = user_site(list(ev.get("stack") or [])).user
        groups[(where, bool(ev.get("guarded")))].append(ev)
    suspended = {(e.get("section"), e.get("greenlet")): _f(e, "wait_s")
                 for e in _events(profile, "c-section-switch")}
    out = []
    for (where, guarded), evs in groups.items():
        gids = sorted({e.get("greenlet") for e in evs} | {e.get("other") for e in evs},
                      key=str)
        cost = sum(suspended.get((evs[0].get("section"), g), 0.0) for g in gids)
        outcome = ("the process stayed alive only because Tracer(lxml_guard=True) gave the "
                   "second parse a parser of its own: without the guard this thread "
                   "deadlocks on lxml's parser lock (an OS lock gevent does not patch)"
                   if guarded else "this deadlocks the thread on lxml's parser lock (an OS "
                   "lock gevent does not patch)")
        message = (
            f"{_names(profile, gids)} entered lxml.etree.parse(<file-like>) at "
            f"{where or '?'} while another was suspended inside one with the same parser "
            f"({len(evs)} time(s)): {outcome}. Fix the code before the guard is turned "
            "off: read the body first and parse bytes (lxml.etree.fromstring("
            "response.content)), or pass a parser per call (lxml.etree.parse(f, "
            "lxml.etree.XMLParser())).")
        out.append(_finding(DEADLOCK_RISK, message, cost, list(evs[0].get("stack") or []),
                            greenlet=evs[0].get("greenlet"), section=evs[0].get("section"),
                            count=len(evs), other_greenlet=evs[0].get("other"),
                            guarded=guarded, greenlets=len(gids)))
    return out
