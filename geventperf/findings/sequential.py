"""Upstream calls made one after another (``sequential-calls``): the N+1 pattern of a
service's handler, or of a job that is one greenlet.

A handler that fetches fifteen items with fifteen ``session.get`` calls in a loop (or a
list comprehension) waits for each in turn: its response takes fifteen round trips.  In
the other tables that is "mostly I/O" at the call line, which reads as a slow upstream;
the upstream answered each call in its usual time.  A greenlet waits on one thing at a
time, so calls whose waits are on the handler's own stack (below pywsgi's
``WSGIHandler.run_application``) were made in turn, never together.

From this process's gevent WSGI server's responses (``pywsgi-responses``) and the waits
for a response's head on the handlers' own stacks (one per call): at least
FEW_CALLS_PER_RESPONSE calls per response, most of the HTTP client's waiting there
(from CALLS_PER_RESPONSE, a loop over items; fewer may each need the one before).

A job (no responses served) that walks its items in one greenlet, ``for item in
index: session.get(detail_url(item))``, is the same pattern with the whole run as its
"response": the calls' waiting fills the run while the loop sits idle, and no pool ever
had more than a couple of connections in use (the loop's own call and a stream it
reads from).  From the pool watch's peaks (``urllib3-pool``), the HTTP client's waits and
the heads waited for.
"""

from __future__ import annotations

from typing import Any

from geventperf.dataflow import chained
from geventperf.findings.common import (
    CONNECTION_GREENLET,
    SEQUENTIAL_CALLS,
    _base_name,
    _count,
    _events,
    _finding,
    _greenlets_named,
    block_threshold,
    slice_timeline,
)
from geventperf.findings.cpuhot import is_client_frame
from geventperf.findings.handoff import handoffs, stacks_left
from geventperf.findings.held import error_statuses, repeats_told
from geventperf.findings.limits import (
    awaits_answer,
    event_wait,
    full_pool_jobs,
    idle_share,
    switched_out_at,
)
from geventperf.findings.ownclients import (
    handlers_call_out,
    in_handler,
    own_client_rows,
    own_server_hosts,
)
from geventperf.findings.paging import cursor_paging
from geventperf.frames import is_machinery, parse_frame, socket_read_depth, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import Finding, Profile, greenlet_label
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# Upstream calls per served response from which a handler's calls in turn are the story
# (an unseen profile API made three in turn per response: made together, its service
# ran 2.7-3x faster) ...
FEW_CALLS_PER_RESPONSE = 2
# ... and from which they are the N+1 pattern, a loop over items (fifteen per response
# made a 10 ms upstream a 190 ms service; one batch call, 17 ms).  Fewer may each need
# the one before (an address from the last answer): the message says so.
CALLS_PER_RESPONSE = 4
# Responses served before the ratio says anything.
MIN_RESPONSES = 20
# The calls' waiting on the handlers' own stacks: at least this share of all the
# waiting inside the HTTP client (the rest in greenlets of their own: concurrent).
IN_HANDLER_SHARE = 0.8
# How many at once the fix names when the busiest pool keeps one connection or an
# unknown number: requests' default pool_maxsize.
DEFAULT_AT_ONCE = 10
# A pool's jobs whose calls beyond one per job were at least this share failures (a
# timeout, an error status) were retrying, each attempt needing the one before (an
# unseen quote fetcher retried read timeouts: 2.7 calls a job, 1 771 of 2 403 failed).
RETRIED_SHARE = 0.5
# Making a pool's jobs' calls together must save at least this share of their waiting
# (an unseen ledger's 20 ms token check beside a 2 ms fetch would save 8 %: no story).
MIN_SAVED_SHARE = 0.25
# A job's calls in turn: at least this many (a start-up's few lookups are no pattern) ...
JOB_MIN_CALLS = 50
# ... whose waiting filled at least this share of the run ...
JOB_RUN_SHARE = 0.5
# ... with at most this many in flight on average (greenlet-seconds of the HTTP client's
# waiting per second of the run: one call at a time, give or take a stream read beside
# it) ...
JOB_MAX_IN_FLIGHT = 1.5
# ... and never more connections of one pool in use at once than this: the loop's call
# and a response streamed beside it (an index read line by line while each line's
# detail is fetched).  A pool of workers fed slowly peaks higher in its bursts.
JOB_MAX_PEAK = 2
# A job's calls in turn spread over a few greenlets of one name (_callers_in_turn): at
# least this many calls each on average (a loop over items, not a start-up's lookups) ...
CALLER_MIN_CALLS = 20
# ... over at least this many greenlets (one is _job_calls_in_turn's, a poll loop beside
# others' calls among them) ...
MIN_CALLERS = 2
# ... with at most this many in flight on average (greenlet-seconds of their calls'
# waiting per second of the run): a handful of loops, not a pool of workers sized on
# purpose (an unseen notifier's 8 queue workers, each sending a notification's 4
# channel calls in turn, ran 61 % faster with them made together) ...
CALLERS_MAX_IN_FLIGHT = 10
# ... and no pool they called through ever had more than this share of the connections
# it keeps in use at once: made together, the calls in flight could at least double
# (tests/diagnosis/not_kept_alive.py's 8 callers peaked at 8 of 10) ...
CALLERS_POOL_ROOM = 0.5
# ... while the loop was busy at most this share of the run: a busier loop would only
# queue the calls made together behind it (loop-saturated's story; so for a Pool's jobs
# and a service's handlers too: tests/diagnosis/compile_per_job.py's jobs, queued behind
# a compile each, were told to make their two calls together, and so were an unseen
# partner API's handlers behind a key derivation per request).
CALLERS_MAX_BUSY = 0.75


def _handler_stacks(profile: Profile) -> set[tuple[str, ...]]:
    """The stacks a server connection's greenlet was the last to leave: a handler's,
    even when the stack was cut at its depth before reaching pywsgi's frames."""
    left = stacks_left(profile)
    return {stack for g in profile.greenlets if g.name.endswith(CONNECTION_GREENLET)
            for stack in left.get(g.id, ())}


def _heaviest_site(rows: list) -> tuple[str | None, object | None]:
    """The program's line where *rows* (``waits``) waited most, and its heaviest row
    there; (None, None) when no row has a line of the program's."""
    sites: dict[str, float] = {}
    for w in rows:
        site = user_site(w.stack).user
        if site is not None:
            sites[site] = sites.get(site, 0.0) + event_wait(w)
    if not sites:
        return None, None
    where = max(sites, key=sites.__getitem__)
    return where, max((w for w in rows if user_site(w.stack).user == where), key=event_wait)


def sequential_calls(profile: Profile) -> list[Finding]:
    """Each served response waited on several upstream calls made in turn by its
    handler.  ``cost_s``: the greenlet-seconds those calls waited, less one call's
    worth per response (what making them together could save at most).  Also a query
    made per item over the program's own connection (round_trips_per_item)."""
    return _calls_in_turn(profile) + round_trips_per_item(profile)


# A query line of the program's whose round trips to its own connection (a socket read
# right from its code: a database driver's) were at least this many times the median of
# the other query lines read at the same place, at least PER_ITEM_MIN of them: a query
# per item of a list, where the others run once per job (an unseen order export's item
# query made 8 800 round trips where its four other queries made 1 100 each, 67 % of
# the run's waiting: told only cpu-starved; one IN (...) query took 65 % off the run).
PER_ITEM_RATIO = 4
PER_ITEM_MIN = 200
# ... with at least this many other query lines there, which set the per-job count;
# told from this share of the run in cost (sleep-poll's and small-body-reads' share).
PER_ITEM_OTHERS = 2
PER_ITEM_RUN_SHARE = 0.05
# ... and made in runs: in the timeline, a greenlet waited at that query line this many
# times in a row on average, before it waited anywhere else (an item loop's queries go
# one after another; a service's GET per request, more requests for GET than for the
# rarer commands, goes once between requests: an unseen session API's was no N+1).
PER_ITEM_RUN = 3
PER_ITEM_COST = ("greenlet-seconds the query's round trips waited, less one round trip "
                 "per call of the other queries (what one query for all the items would "
                 "leave)")


def round_trips_per_item(profile: Profile) -> list[Finding]:
    """A query made once per item over the program's own connection (PER_ITEM_RATIO),
    while the loop sat mostly idle: the N+1 pattern of a database driver, one round trip
    waited out per item.  ``cost_s``: PER_ITEM_COST."""
    if idle_share(profile) is None:
        return []  # a busy loop: the CPU findings tell it
    timeline = None  # built once, for the first line worth it
    out = []
    for read, read_rows in _own_reads(profile).items():
        by_query: dict[str, list[Any]] = {}  # the query lines read here: their wait rows
        for query, w in _query_lines(read_rows):
            by_query.setdefault(query, []).append(w)
        trips_at = {query: sum(w.count for w in rows) for query, rows in by_query.items()}
        for query, rows in by_query.items():
            trips = trips_at[query]
            others = sorted(n for q, n in trips_at.items() if q != query)
            if len(others) < PER_ITEM_OTHERS or trips < PER_ITEM_MIN:
                continue
            per_job = others[len(others) // 2]
            waited = sum(event_wait(w) for w in rows)
            cost = waited * (1 - per_job / trips)
            least = max(block_threshold(profile), PER_ITEM_RUN_SHARE * profile.duration_s)
            if trips < PER_ITEM_RATIO * per_job or cost < least:
                continue
            if timeline is None:
                timeline = slice_timeline(profile)
            if _mean_run(profile, timeline, rows) < PER_ITEM_RUN:
                continue
            heaviest = max(rows, key=event_wait)
            at = heaviest.stack.index(query)
            caller = heaviest.stack[at + 1] if at + 1 < len(heaviest.stack) else None
            message = (
                f"A query per item: {query}"
                + (f", called from {caller}," if caller else "")
                + f" waited {waited:.3f} s over {trips} round trips of "
                f"{waited / trips * 1e3:.1f} ms on the program's own connection (read at "
                f"{read}), {trips / per_job:.1f} for each call of the {len(others)} "
                f"other queries read there ({per_job} each): a query for each item of a "
                "list, each waiting for its reply before the next is sent (the N+1 "
                "pattern), while the loop sat mostly idle. Fix: one query for all the items "
                "(WHERE id IN (...), a join, or the driver's batch call), or the queries "
                f"sent together (pipelined): about {trips / per_job:.0f} round trips "
                "become one.")
            out.append(_finding(SEQUENTIAL_CALLS, message, cost,
                                heaviest.stack[at:],  # the query
                                greenlet=switched_out_at(profile).get(tuple(heaviest.stack)),
                                site=query, read_site=read, round_trips=trips,
                                per_job=per_job, own_connection=True,
                                cost_meaning=PER_ITEM_COST))
    return out


def _own_reads(profile: Profile) -> dict[str, list[tuple[Any, int]]]:
    """The ``waits`` rows that read a socket right from the program's code, by the
    program's frame that read, each with that frame's depth."""
    reads: dict[str, list[tuple[Any, int]]] = {}
    for w in profile.waits:
        depth = socket_read_depth(w.stack) if w.count else None
        if depth is not None:
            reads.setdefault(w.stack[depth], []).append((w, depth))
    return reads


def _query_lines(rows: list[tuple[Any, int]]) -> list[tuple[str, Any]]:
    """(query line, row) of the rows read at one place: the first frame beneath the read
    in another file than the read's (a driver's module); for a driver in the program's
    own file, the first frame where those rows' stacks part (beneath the driver's frames
    that every query passes through)."""
    found = []
    for w, depth in rows:
        read = parse_frame(w.stack[depth]).path
        found.append((next((f for f in w.stack[depth + 1:] if parse_frame(f).path != read),
                           None), w, w.stack[depth + 1:]))
    inside = [below for query, _w, below in found if query is None]
    shared = 0
    while inside and all(len(b) > shared + 1 and b[shared] == inside[0][shared]
                         for b in inside):
        shared += 1
    out = []
    for query, w, below in found:
        if query is None and len(below) > shared:
            query = below[shared]
        if query is not None:
            out.append((query, w))
    return out


def _mean_run(profile: Profile, timeline: dict[int, list[Any]], rows: list[Any]) -> float:
    """How many times in a row, on average, a greenlet went on to wait at one of *rows*
    (``waits`` rows) before it waited anywhere else, from *timeline*
    (``slice_timeline``); 0 without one."""
    mine = {id(w) for w in rows}
    at = {i for i, w in enumerate(profile.waits) if id(w) in mine}
    runs: list[int] = []
    for slices in timeline.values():
        run = 0
        for s in slices:
            if s.wait in at:
                run += 1
            elif s.wait is not None and run:
                runs.append(run)
                run = 0
        if run:
            runs.append(run)
    return sum(runs) / len(runs) if runs else 0.0


def _calls_in_turn(profile: Profile) -> list[Finding]:
    """sequential_calls' HTTP calls: a served response's, or a job's."""
    responses = sum(_count(e, "served") or _count(e, "responses")
                    for e in _events(profile, SERVER_EVENT))
    client = [w for w in profile.waits if any(is_client_frame(f) for f in w.stack)]
    if responses:
        found = _handlers_in_turn(profile, client, responses)
        if found or handlers_call_out(profile):
            return found
        # (servers that only answer are stand-ins for the program's upstreams: its
        # calls to them are its work, as a job's)
    return _job_calls_in_turn(profile, client) or _pool_jobs_in_turn(profile, client) \
        or _callers_in_turn(profile, client)


def _handlers_in_turn(profile: Profile, client: list, responses: int) -> list[Finding]:
    """A served response's calls made in turn by its handler (see the module's text)."""
    handlers = _handler_stacks(profile)
    mine = [w for w in client if in_handler(w.stack) or tuple(w.stack) in handlers]
    # (the program's own load clients' calls to its server are not the handlers': their
    # waits are the responses' whole time; the handlers' own calls to servers of the
    # program's, stand-ins for their upstreams, are)
    own = {id(w) for w in own_client_rows(profile)} - {id(w) for w in mine}
    waited = sum(event_wait(w) for w in client if id(w) not in own)
    # the stand-ins' responses are no responses of the handlers that called them (an
    # unseen product page's five upstreams in the same process answered 1 600 of its
    # 1 920 responses, and its five calls per page in turn read as 0.8 per response)
    responses -= _stand_in_calls(profile, mine)
    if responses < MIN_RESPONSES or _loop_full(profile):
        return []
    in_turn = sum(event_wait(w) for w in mine)
    # the calls the handlers made: their waits for a response's head (a call answered
    # before it was waited for is not counted: fewer, never more)
    calls = _calls_made(profile, sum(max(w.count, 0) for w in mine if awaits_answer(w)))
    if calls < FEW_CALLS_PER_RESPONSE * responses or not waited \
            or in_turn < IN_HANDLER_SHARE * waited \
            or _retried(profile) >= RETRIED_SHARE * (calls - responses):
        return []
    where, worst = _heaviest_site(mine)
    if worst is None or _each_needs_the_one_before(mine, responses):
        return []
    per = calls / responses
    cost = in_turn * (1 - responses / calls)
    from_lines = _called_from(mine, where)
    # (a loop over items, unless the calls come from several lines: calls of their own)
    fix = (
        "Fix: one call for the lot, where the upstream has a batch or bulk endpoint; else "
        "make them together (gevent.pool.Pool(n).imap_unordered over the items, or a "
        "Group's map, inside the handler), and cache what repeats."
        if calls >= CALLS_PER_RESPONSE * responses and not from_lines else
        "Fix: if they do not need each other's answers, make them together inside the "
        "handler (a gevent.spawn for each, then gevent.joinall): a response then takes "
        "its slowest call instead of their sum. If each call needs the one before it (its "
        "address or arguments come from that answer), that is the response's floor and "
        "the cost is not there to save.")
    message = (
        f"Each response waited on its upstream calls one after another: {calls} calls for "
        f"{responses} responses ({per:.1f} per response), waited for in the handlers' own "
        f"greenlets, most at {where}{from_lines} ({in_turn:.3f} s in all, "
        f"{in_turn / calls * 1e3:.1f} ms per call: {in_turn / responses * 1e3:.0f} ms per "
        "response). A greenlet waits on one thing at a time, so they were made in turn, "
        "and every response took that many round trips; the upstream answered each in "
        f"its usual time. {fix}")
    return [_finding(SEQUENTIAL_CALLS, _repeats_first(message, repeats_told(profile)), cost, list(worst.stack), calls=calls,
                     responses=responses, calls_per_response=per, waited_s=in_turn,
                     site=where)]


# A call line inside a loop of the function making the calls, asked at least this many
# times per response on average: its iterations are calls of their own that could go
# together, whatever the chain around them.
LOOPED_CALLS_PER_RESPONSE = 1.5


def _each_needs_the_one_before(rows: list, responses: int) -> bool:
    """Whether the handlers' calls (their ``waits`` rows *rows*), made from several lines
    of the innermost function all of them went through, each read what an earlier one
    answered (dataflow.chained), with none of those lines looping over calls of their
    own (LOOPED_CALLS_PER_RESPONSE): a chain, the response's floor, which making them
    together cannot shorten (an unseen search service's spell, synonyms, index and rank
    calls, each fed the answer before: told to make them together, "48 s", where any
    concurrency gained 2 %)."""
    asked = [w for w in rows if awaits_answer(w)]
    frames = _through_one_function(asked)
    lines = chained(sorted(frames))
    if lines is None:
        return False
    per_line: dict[int, int] = {}
    for w in asked:
        for frame in w.stack:
            if frame in frames:
                line = parse_frame(frame).line
                per_line[line] = per_line.get(line, 0) + max(w.count, 0)
    return not any(c.in_loop and per_line.get(c.line, 0) >= LOOPED_CALLS_PER_RESPONSE
                   * responses for c in lines)


def _through_one_function(rows: list) -> set[str]:
    """The frames of the innermost function of the program's that every row's stack
    went through at two lines or more (a helper all the calls went through at one line
    is not where they were made in turn: its callers are), at the lines the rows went
    through it; empty when there is none."""
    own = [[f for f in w.stack if not is_machinery(f)] for w in rows]
    if not own or not own[0]:
        return set()

    def function(frame: str) -> tuple[str, str]:
        parsed = parse_frame(frame)
        return parsed.path, parsed.function
    for frame in own[0]:  # innermost first
        key = function(frame)
        if all(any(function(f) == key for f in stack) for stack in own):
            frames = {f for stack in own for f in stack if function(f) == key}
            if len(frames) >= 2:
                return frames
    return set()


def _called_from(rows: list, where: str) -> str:
    """``, called from app.py:page at lines 103, 104 and 107`` when the *rows* (``waits``)
    at the program's line *where* (a helper that makes the call) were called from
    several lines of one function: those lines are the calls in turn, where the fix
    goes (an unseen product page's five calls were told at its one-line fetch wrapper);
    "" otherwise."""
    callers: dict[tuple[str, str], set[int]] = {}
    for w in rows:
        stack = list(w.stack)
        if where in stack and stack.index(where) + 1 < len(stack):
            caller = parse_frame(stack[stack.index(where) + 1])
            if caller.line:
                callers.setdefault((caller.path, caller.function), set()).add(caller.line)
    if len(callers) != 1:
        return ""
    (path, function), lines = next(iter(callers.items()))
    if len(lines) < 2:
        return ""
    shown = sorted(lines)
    return (f", called from {path}:{function} at lines "
            f"{', '.join(map(str, shown[:-1]))} and {shown[-1]}")


def _stand_in_calls(profile: Profile, mine: list) -> int:
    """The calls the handlers (their ``waits`` rows *mine*) made to the program's own
    servers: every call site the pool watch placed for such a host is a line of theirs
    (a load client's line calls the service, not its stand-ins)."""
    lines = {user_site(w.stack).user for w in mine} - {None}
    stand_ins = 0
    for e in own_server_hosts(profile):
        sites = {site for site, _n in count_rows(e.get("call_sites"))}
        if sites and sites <= lines:
            stand_ins += _count(e, "calls")
    return stand_ins


def _job_calls_in_turn(profile: Profile, client: list) -> list[Finding]:
    """A job's upstream calls made one at a time (see the module's text).  ``cost_s``:
    their waiting less what the busiest pool's size at once would have left of it."""
    duration = profile.duration_s
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    waited = sum(event_wait(w) for w in client)
    heads = [w for w in client if awaits_answer(w)]
    calls = _calls_made(profile, sum(max(w.count, 0) for w in heads))
    peak = max((_count(e, "peak_in_use") for e in pools), default=0)
    # (a pool watch that did not count its peak proves nothing about calls at once)
    if not pools or not all(_count(e, "peak_in_use") for e in pools) \
            or not duration or calls < JOB_MIN_CALLS \
            or waited < JOB_RUN_SHARE * duration or waited > JOB_MAX_IN_FLIGHT * duration \
            or peak > JOB_MAX_PEAK:
        return []
    where, worst = _heaviest_site(client)
    if worst is None:
        return []
    # one greenlet made them: the last to leave every stack the calls waited at (two
    # stages of a pipeline each calling in turn overlap; so do a pool's workers, whose
    # peaks the pools show)
    stacks = {tuple(w.stack) for w in client}
    owners = {r.greenlet for r in profile.runs if tuple(r.stack) in stacks}
    if len(owners) != 1 or not isinstance(owner := next(iter(owners)), int):
        return []
    # a call whose answer was already there when it read the head never waited (its
    # greenlet preempted on a busy machine): when that greenlet made every call that
    # waited for an answer, the pools' own count is its calls
    if all(tuple(w.stack) in stacks for w in profile.waits if awaits_answer(w)):
        calls = max(calls, _calls_made(profile, sum(_count(e, "calls") for e in pools)))
    g = profile.greenlet(owner)
    busiest = max(pools, key=lambda e: _count(e, "calls"))
    # as many at once as its pool keeps (requests' default, 10, for a pool of one or an
    # unknown size: the session's pool is then to be made as large)
    kept = _count(busiest, "maxsize")
    size = kept if kept > 1 else DEFAULT_AT_ONCE
    idle = profile.hub.get("utilization")
    cost = waited * (1 - 1 / size)
    message = (
        f"Upstream calls were made one after another: {calls} calls, the HTTP client "
        f"waiting {waited:.3f} s in all ({waited / duration:.0%} of the run; "
        f"{sum(event_wait(w) for w in heads) / calls * 1e3:.1f} ms per call for its "
        f"answer), most at {where}{_called_from(client, where)}"
        + (f" by {greenlet_label(g.name, g.id)}" if g is not None else "")
        + f", and no pool ever had more than {peak} connection{'s' if peak > 1 else ''} "
        "in use at once"
        + (f", while the loop sat idle {1 - idle:.0%} of the run"
           if isinstance(idle, (int, float)) else "")
        + ". A greenlet waits on one thing at a time, so the run took that many round trips "
        "in turn: their latencies added up where they could have overlapped. "
        + _unless_paged(profile, where, "make them together (gevent.pool.Pool(n)."
                        "imap_unordered over the "
                        + (f"items, n up to the session's pool size, {size} for "
                           f"{busiest['pool']})" if kept > 1 else
                           f"items, n about {size}, and the session's pool_maxsize as "
                           f"large: {busiest['pool']} keeps "
                           f"{kept or 'an unrecorded number of'} "
                           f"connection{'s' if kept != 1 else ''})")
                        + ", or one call for the lot where the upstream has a batch or "
                        "bulk endpoint"))
    return [_finding(SEQUENTIAL_CALLS, _repeats_first(message, repeats_told(profile)), cost, list(worst.stack), greenlet=owner,
                     calls=calls, waited_s=waited, site=where, peak_in_use=peak,
                     pool_maxsize=size,
                     cost_meaning="greenlet-seconds the calls waited, less what as many "
                     "at once as the busiest pool holds would have left of it")]


def _pool_jobs_in_turn(profile: Profile, client: list) -> list[Finding]:
    """The jobs of a full gevent Pool each making several upstream calls in turn: the
    handler's story with a job for a response (an unseen order enricher's 700 jobs made
    three independent 30 ms calls each in turn; made together the run took 2.7x less).
    ``cost_s``: as the handlers', their waiting less one call's worth per job."""
    jobs = full_pool_jobs(profile)
    if not jobs or _loop_full(profile):
        return []  # no pool held its spawner back: the jobs' pace was not the run's
    ended = switched_out_at(profile)
    names = {_base_name(g.name) for g in jobs}
    # (by name: a stack knows only the last greenlet that left it, and a job's record
    # may have been folded into its name's)
    mine = [w for w in client
            if (g := profile.greenlet(ended.get(tuple(w.stack)))) is not None
            and _base_name(g.name) in names]
    calls = _calls_made(profile, sum(max(w.count, 0) for w in mine if awaits_answer(w)))
    in_turn = sum(event_wait(w) for w in mine)
    waited = sum(event_wait(g) for g in profile.greenlets if _base_name(g.name) in names)
    # the jobs by name, as their calls are counted: full_pool_jobs knows only the
    # spawners that last left a slot wait (24 readers hedging into pools made 1800 jobs
    # of one call each, 75 of them known by their spawner: "24.0 calls per job")
    n_jobs = _greenlets_named(profile, names)
    # calls made again after a failure (a timeout, an error status) each need the one
    # before: retries, not calls that could have been made together
    again = _retried(profile)
    if n_jobs < MIN_RESPONSES or calls < FEW_CALLS_PER_RESPONSE * n_jobs \
            or not waited or in_turn < IN_HANDLER_SHARE * waited \
            or again >= RETRIED_SHARE * (calls - n_jobs):
        return []
    where, worst = _heaviest_site(mine)
    if worst is None:
        return []
    # made together, a job would wait for its slowest call: the longest mean call of
    # any line (a 20 ms token check beside a 2 ms fetch saves 2 ms, not 11)
    saved = in_turn - n_jobs * max(_mean_calls(mine).values(), default=0.0)
    if saved < MIN_SAVED_SHARE * in_turn or saved < block_threshold(profile):
        return []
    per = calls / n_jobs
    who = ", ".join(repr(n) for n in sorted(names))
    message = (
        f"Each job waited on its upstream calls one after another: {calls} calls for "
        f"{n_jobs} jobs of a full gevent Pool ({who}; {per:.1f} per job), most at "
        f"{where} ({in_turn:.3f} s in all, {in_turn / calls * 1e3:.1f} ms per call). A "
        "greenlet waits on one thing at a time, so each job held its slot for the sum of "
        "its calls, and the pool's pace was that sum. Fix: if they do not need each "
        "other's answers, make them together inside the job (a gevent.spawn for each, "
        "then gevent.joinall): a job then holds its slot for its slowest call. If each "
        "call needs the one before it (its address or arguments come from that answer), "
        "that is the job's floor, and a larger Pool is the lever.")
    return [_finding(SEQUENTIAL_CALLS, _repeats_first(message, repeats_told(profile)), saved, list(worst.stack),
                     greenlet=ended.get(tuple(worst.stack)), calls=calls,
                     responses=n_jobs, calls_per_response=per, waited_s=in_turn,
                     site=where, cost_meaning=JOBS_IN_TURN_COST)]


def _callers_in_turn(profile: Profile, client: list) -> list[Finding]:
    """A job's N+1 spread over a few greenlets of one name (a crawler per shop, an
    enricher per batch, queue workers with a backlog), each making its calls in turn:
    a few in flight where the pools they use hold many, while the loop had room (an
    unseen price watcher's three shop crawlers made 84 calls each in turn and were told
    nothing; fetched together, the run took 82 % less).  ``cost_s``: CALLERS_COST."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("pool"), str)]
    duration = profile.duration_s
    busy = profile.hub.get("utilization")
    # (calls that were mostly failures were retries, each needing the one before)
    if not pools or not duration or not isinstance(busy, (int, float)) \
            or _loop_full(profile) \
            or _retried(profile) >= RETRIED_SHARE * sum(_count(e, "calls") for e in pools):
        return []
    ended = switched_out_at(profile)

    def name_at(w: Any) -> str | None:
        g = profile.greenlet(ended.get(tuple(w.stack)))
        return None if g is None else _base_name(g.name)

    # (workers that waited for their items at a hand-off, a queue's get, kept up with
    # their input at times: a pool sized for it, workers-saturated's to judge; workers
    # that never waited for their next item had a backlog, as a loop over its own
    # collection has)
    fed = {name_at(w) for w in handoffs(profile)}
    by_name: dict[str, list[Any]] = {}
    for w in client:
        name = name_at(w)
        if name is not None and name not in fed and not name.endswith(CONNECTION_GREENLET) \
                and not in_handler(w.stack):
            by_name.setdefault(name, []).append(w)
    found = []
    for name, rows in by_name.items():
        callers = _greenlets_named(profile, {name})
        calls = _calls_made(profile, sum(max(w.count, 0) for w in rows if awaits_answer(w)))
        waited = sum(event_wait(w) for w in rows)
        in_flight = waited / duration
        theirs = sum(event_wait(g) for g in profile.greenlets if _base_name(g.name) == name)
        if callers < MIN_CALLERS or calls < max(JOB_MIN_CALLS, CALLER_MIN_CALLS * callers) \
                or waited < JOB_RUN_SHARE * duration or in_flight > CALLERS_MAX_IN_FLIGHT \
                or waited < IN_HANDLER_SHARE * theirs:
            continue
        where, worst = _heaviest_site(rows)
        sites = {user_site(w.stack).user for w in rows}
        used = [e for e in pools if sites & {s for s, _n in count_rows(e.get("call_sites"))}]
        used = used or pools
        busiest = max(used, key=lambda e: _count(e, "calls"))
        kept, peak = _count(busiest, "maxsize"), max(_count(e, "peak_in_use") for e in used)
        # (a pool over CALLERS_POOL_ROOM in use leaves little room to make them
        # together, a full one is pool-full's story; one that did not count its peak
        # proves nothing about calls at once)
        if worst is None or any(not _count(e, "peak_in_use") or 0 < CALLERS_POOL_ROOM
                                * _count(e, "maxsize") < _count(e, "peak_in_use")
                                for e in used):
            continue
        size = kept if kept > 1 else DEFAULT_AT_ONCE
        # the pool's share of each greenlet calling through it at once (its peak: one
        # call each; four shop crawlers sharing a host's 20 were told "n about 10" each
        # from their 2.2 in flight on average, 40 at once where 20 are kept)
        each = max(2, size // max(1, _count(busiest, "peak_in_use")))
        message = (
            f"Upstream calls were made one after another in each of {callers} greenlets "
            f"named {name!r}: {calls} calls "
            f"({calls / callers:.0f} per greenlet), the HTTP client waiting {waited:.3f} s "
            f"in all ({waited / calls * 1e3:.1f} ms per call), most at {where}"
            f"{_called_from(rows, where)}, with "
            f"{in_flight:.1f} in flight on average, and no pool ever had more than {peak} "
            f"connection{'s' if peak > 1 else ''} in use at once"
            + (f" ({busiest['pool']}'s keeps {kept})" if kept else "")
            + f", while the loop was busy {busy:.0%} of the run. A greenlet waits on one "
            "thing at a time, so each one's calls took their round trips in turn: their "
            "latencies added up where they could have overlapped. "
            + _unless_paged(profile, where, "make each greenlet's calls together "
                            "(gevent.pool.Pool(n).imap_unordered over its items, n about "
                            f"{each}, so that together they stay within the {size} "
                            f"connections {busiest['pool']}'s pool keeps; for workers "
                            "taking jobs from a queue, each job's calls together, or more "
                            "workers), or one call for the lot where the upstream has a "
                            "batch or bulk endpoint"))
        found.append(_finding(
            SEQUENTIAL_CALLS, _repeats_first(message, repeats_told(profile)),
            waited * (1 - min(1.0, in_flight / size)), list(worst.stack),
            greenlet=ended.get(tuple(worst.stack)), calls=calls, callers=callers,
            waited_s=waited, site=where, peak_in_use=peak, in_flight=in_flight,
            pool_maxsize=size, cost_meaning=CALLERS_COST))
    return found


def _unless_paged(profile: Profile, where: str, fix: str) -> str:
    """The end of a job's calls-in-turn message: where the URLs asked at *where* carry a
    cursor (paging.cursor_paging), that chain as the floor and larger pages as the
    lever; else the hedge for such a chain and *fix* for calls that do not need each
    other's answers."""
    paging = cursor_paging(profile, where)
    if paging is not None:
        return f"Here {paging.told()}."
    return ("If each call needs the one before it (paging by a cursor: the next page's "
            "address is in this one's answer), that is the run's floor and the cost is not "
            f"there to save. Otherwise, fix: {fix}.")


def _loop_full(profile: Profile) -> bool:
    """Whether the loop was busy over CALLERS_MAX_BUSY of the run: calls made together
    would only queue behind it."""
    busy = profile.hub.get("utilization")
    return isinstance(busy, (int, float)) and busy > CALLERS_MAX_BUSY


CALLERS_COST = ("greenlet-seconds the calls waited, less what as many at once as the "
                "busiest pool holds would have left of it")


def _repeats_first(message: str, repeats: str) -> str:
    """*message* with *repeats* (held.repeats_told: the same answers fetched again and
    again, a cache as the fix) right after its figures: calls a cache skips need not be
    made at all, together or not (an unseen payments sync's 4 869 rate lookups for 210
    URLs were told to be made together first, the cache last: 80 % off the run with a
    cache that hit)."""
    at = message.find("A greenlet waits on one thing at a time")
    if not repeats or at < 0:
        return message + repeats
    head = message[:at].rstrip()
    return f"{head if head.endswith('.') else head + '.'}{repeats} {message[at:]}"


def _calls_made(profile: Profile, heads: int) -> int:
    """The calls the program made, of *heads* waits for a response's head: less the
    redirects requests followed (a request more each, at the same line: an unseen
    feed's every call redirected from a moved host was told as 4.0 calls per response
    in turn, not 2)."""
    hops = sum(_count(e, "redirects") for e in _events(profile, POOL_EVENT))
    return max(0, heads - hops)


def _retried(profile: Profile) -> int:
    """Calls that most likely were made again after a failure: those that raised (a
    timeout) and the answers with an error status.  Each needs the one before it:
    retries, not calls that could have been made together (an unseen leaderboard's
    gevent.Timeout(0.045) around a 25-70 ms call, retried, was told to make its
    "calls" together)."""
    return sum(_count(e, "failed") for e in _events(profile, POOL_EVENT)) \
        + sum(error_statuses(profile)[0].values())


JOBS_IN_TURN_COST = ("greenlet-seconds the pool's jobs waited on upstream calls made in "
                     "turn, less what each would have waited for its slowest call (the "
                     "longest mean call of any line) had it made them together")


def _mean_calls(rows: list) -> dict[str, float]:
    """The program's line -> the mean wait of one call made there: the waiting of
    *rows* at that line over its calls (waits for a response's head)."""
    waited: dict[str, float] = {}
    calls: dict[str, int] = {}
    for w in rows:
        site = user_site(w.stack).user
        if site is None:
            continue
        waited[site] = waited.get(site, 0.0) + event_wait(w)
        if awaits_answer(w):
            calls[site] = calls.get(site, 0) + max(w.count, 0)
    return {site: waited[site] / n for site, n in calls.items() if n}
