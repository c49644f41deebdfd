"""A served request that waits on many upstream calls one after another
(``sequential-calls``): the N+1 pattern of a service.

A handler that fetches fifteen items with fifteen ``session.get`` calls in a loop (or a
list comprehension) waits for each in turn: its response takes fifteen round trips.  In
the other tables that is "mostly I/O" at the call line, which reads as a slow upstream;
the upstream answered each call in its usual time.  A greenlet waits on one thing at a
time, so calls whose waits are on the handler's own stack (below pywsgi's
``WSGIHandler.run_application``) were made in turn, never together.

From this process's gevent WSGI server's responses (``pywsgi-responses``) and the waits
for a response's head on the handlers' own stacks (one per call): at least
CALLS_PER_RESPONSE calls per response, most of the HTTP client's waiting there.
"""

from __future__ import annotations

import re

from geventperf.findings.common import SEQUENTIAL_CALLS, _count, _events, _finding
from geventperf.findings.cpuhot import is_client_frame
from geventperf.findings.handoff import stacks_left
from geventperf.findings.limits import event_wait
from geventperf.frames import user_site
from geventperf.profile import Finding, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# Upstream calls per served response from which a handler's calls in turn are the story
# (fifteen per response made a 10 ms upstream a 190 ms service; one batch call, 17 ms).
CALLS_PER_RESPONSE = 4
# Responses served before the ratio says anything.
MIN_RESPONSES = 20
# The calls' waiting on the handlers' own stacks: at least this share of all the
# waiting inside the HTTP client (the rest in greenlets of their own: concurrent).
IN_HANDLER_SHARE = 0.8
_RUN_APPLICATION = re.compile(r"/gevent/pywsgi\.py:\d+:WSGIHandler\.run_application$")
# http.client reading a response's head: one wait per call made
HEAD_READ = ":HTTPResponse.begin"
# The greenlet gevent's servers run a connection in.
CONNECTION_GREENLET = "baseserver._handle_and_close_when_done"


def _in_handler(stack: list[str]) -> bool:
    return any(_RUN_APPLICATION.search(frame.replace("\\", "/")) for frame in stack)


def _handler_stacks(profile: Profile) -> set[tuple[str, ...]]:
    """The stacks a server connection's greenlet was the last to leave: a handler's,
    even when the stack was cut at its depth before reaching pywsgi's frames."""
    left = stacks_left(profile)
    return {stack for g in profile.greenlets if g.name.endswith(CONNECTION_GREENLET)
            for stack in left.get(g.id, ())}


def sequential_calls(profile: Profile) -> list[Finding]:
    """Each served response waited on several upstream calls made in turn by its
    handler.  ``cost_s``: the greenlet-seconds those calls waited, less one call's
    worth per response (what making them together could save at most)."""
    responses = sum(_count(e, "served") or _count(e, "responses")
                    for e in _events(profile, SERVER_EVENT))
    if responses < MIN_RESPONSES:
        return []
    client = [w for w in profile.waits if any(is_client_frame(f) for f in w.stack)]
    waited = sum(event_wait(w) for w in client)
    handlers = _handler_stacks(profile)
    mine = [w for w in client if _in_handler(w.stack) or tuple(w.stack) in handlers]
    in_turn = sum(event_wait(w) for w in mine)
    # the calls the handlers made: their waits for a response's head (a call answered
    # before it was waited for is not counted: fewer, never more)
    calls = sum(max(w.count, 0) for w in mine
                if any(HEAD_READ in frame for frame in w.stack))
    if calls < CALLS_PER_RESPONSE * responses or not waited \
            or in_turn < IN_HANDLER_SHARE * waited:
        return []
    sites: dict[str, float] = {}
    for w in mine:
        site = user_site(w.stack).user
        if site is not None:
            sites[site] = sites.get(site, 0.0) + event_wait(w)
    if not sites:
        return []
    where = max(sites, key=sites.__getitem__)
    per = calls / responses
    cost = in_turn * (1 - responses / calls)
    worst = max((w for w in mine if user_site(w.stack).user == where), key=event_wait)
    message = (
        f"Each response waited on its upstream calls one after another: {calls} calls for "
        f"{responses} responses ({per:.1f} per response), waited for in the handlers' own "
        f"greenlets, most at {where} ({in_turn:.3f} s in all, "
        f"{in_turn / calls * 1e3:.1f} ms per call: {in_turn / responses * 1e3:.0f} ms per "
        "response). A greenlet waits on one thing at a time, so they were made in turn, "
        "and every response took that many round trips; the upstream answered each in "
        "its usual time. Fix: one call for the lot, where the upstream has a batch or "
        "bulk endpoint; else make them together (gevent.pool.Pool(n).imap_unordered over "
        "the items, or a Group's map, inside the handler), and cache what repeats.")
    return [_finding(SEQUENTIAL_CALLS, message, cost, list(worst.stack), calls=calls,
                     responses=responses, calls_per_response=per, waited_s=in_turn,
                     site=where)]
