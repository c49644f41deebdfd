"""A loop too busy for its greenlets (loop-saturated): who held it, by the others' ready
wait their run slices overlapped, what that work was (requests' own CPU, TLS set-up,
the program's code, long slices) and the cure on the CPU side, less the queueing another
finding already explains."""

from __future__ import annotations

import re
from collections import Counter
from statistics import median
from typing import Any

from geventperf.findings.blockingstory import (
    blocking_story,
    committing,
    ended,
    stall_seen,
    stall_seen_short,
)
from geventperf.findings.cheaper import small_reads_site, tiny_tasks, what_it_does
from geventperf.findings.common import (
    CONNECTION_GREENLET,
    LOOP_BLOCKED,
    LOOP_SATURATED,
    REQUEST_FRAME,
    SESSION_PER_REQUEST,
    STACK_CPU_SAMPLES,
    STACK_SLICE_END,
    STACK_STALL_LOOK,
    _base_name,
    _count,
    _events,
    _f,
    _figures,
    _finding,
    _greenlets_named,
    _sentence,
    _workers,
)
from geventperf.findings.cpuhot import (
    JSON_DECODE,
    greenlet_samples,
    hot_code,
    is_client_frame,
    iterated_in_small_pieces,
    sampled_cpu,
    sampled_share,
)
from geventperf.findings.gil import gil_contended
from geventperf.findings.loop import (
    BLOCKING_SHARE,
    SLEEP0_FIX,
    SQUARE_WORK,
    TOP_HOLDERS,
    YIELD_BETWEEN_PIECES,
    _cause,
    _delaying_sections,
    _in_a_row,
    _most_delaying_stack,
    _partly_blocking,
    _sleep0_told,
    _threads_story,
    loop_blocked,
)
from geventperf.findings.reading import caller_small_read_sites, switch_storms
from geventperf.findings.slowpaths import slow_paths
from geventperf.findings.starved import cpu_starved, starved_share
from geventperf.formats._frames import is_library_frame
from geventperf.frames import (
    is_idle_server_wait,
    user_site,
)
from geventperf.profile import EXIT, Finding, Profile

# The loop is saturated when it was busy (not idle in the poll) at least this share of
# the run (not 0.9 or more: a run that alternates saturated and quiet stretches is idle
# in the quiet ones, and its saturated stretch still deserves the finding; 0.75 missed
# two whose greenlets queued more than they waited for I/O: 600 forks, one per job,
# held a loop 72 % busy with 12 greenlets queued on average, and CPU-heavy link
# callbacks one 65 % busy), ready wait is the larger part of all waiting,
SATURATED_UTILIZATION = 0.6


# or at least this share of it when the CPU samples name a function of the program's
# that burned the holders' CPU (hot_code): about as much queueing as waiting for I/O,
# with one place to cut both.  A loop 70 % busy with one line taking 59 % of the CPU (an
# XML schema compiled per document, 20 greenlets on a 60 ms upstream) queued its
# greenlets 0.49-0.53 of their waiting in six identical runs, and the larger part told
# the cause in two of them; compiling it once cut the run 2.6x.  Without such a
# function (twelve greenlets' first requests in a 0.12 s run, all requests' own CPU)
# the larger part it stays.
SATURATED_HOT_QUEUE_SHARE = 0.45


# and on average at least one greenlet stood in the ready queue (ready greenlet-seconds
# per second of the run): with fewer, the loop is busy but nobody queues for long.
SATURATED_MIN_QUEUE = 1.0


# A holder of the loop is named beside the top one when it delayed others at least this
# share of what the top one did: "ran 0.000 s, 0.000 greenlet-s of their waiting" (a
# subprocess's pipe readers) is noise in the list.
HOLDER_NAMED_SHARE = 0.01


# Less than this is a sum's rounding, not time anything else explained.
EPSILON_S = 1e-9


# A saturated loop's hot code that one greenlet alone ran (at least this share of that
# line's sampled CPU, in a name with one greenlet: a persister, a refresher, a report
# builder) is a background job's, which no per-request cure touches: its cure first
# (an unseen quote service's persister re-encoded its whole book after every quote,
# 33 % of the CPU, and was told geventperf.Session() first: 9 % off the run, where
# snapshotting less often took 37 %).
LONE_BURNER_SHARE = 0.8


# A saturated loop's finding counts the long slices (loop-blocked, CPU in the same
# code) of its top holder when that holder made at least this share of the queueing
# the named holders made: the dashboard that re-rendered every 10 ms made 83 %.
SAME_HOLDER_SHARE = 0.5


# Where the CPU went is told from the samples of the named holders that caused at
# least this share of the queueing they caused together.
HOT_HOLDER_SHARE = 0.25


# A saturated loop's CPU is requests' own per-request work when at least this share of
# the CPU samples (``--cpu-samples``) ran beneath requests, urllib3 or http.client: then
# that work is the lever, not the program's.
REQUESTS_CPU_SHARE = 0.5


# ... and it is told as per-read work when the bodies took at least this many reads
# each on average (240 bodies read 1 KiB at a time, 4096 reads each, spent 92 % of the
# CPU in requests' layers, and a per-request fast path could not touch it).
READS_PER_BODY_TOLD = 20


# requests' per-request reading of the environment (trust_env): proxy settings and
# .netrc, walked at every request; told with trust_env = False as its own cure when it
# holds at least ENV_SCAN_CPU_SHARE of the sampled CPU (3 000 variables put 88 % there).
ENV_SCAN = (":get_environ_proxies", ":getproxies_environment", ":proxy_bypass_environment",
            ":get_netrc_auth", ":should_bypass_proxies")


ENV_SCAN_CPU_SHARE = 0.25


# requests' cookie handling: the session's jar merged into every request, scanned for
# the cookies each request should carry, and every answer's Set-Cookie stored in it.
# Told as its own cause when the jar's scans (JAR_SCANS, which grow with it) hold at
# least COOKIE_CPU_SHARE of the sampled CPU: an unseen service's shared Session kept a
# cookie per user path from its upstream (400 in the jar), 76 % of the CPU went there,
# and the fast path (which skips cookie work only for an empty jar) gained nothing; a
# jar that refuses the cookies cut the run 3.9x.  Storing the answers' cookies parses
# their headers whatever the jar keeps: a refusing jar's parsing alone (11-18 % of the
# CPU, none in the scans) reached the share on a loaded machine and was told as a jar
# grown large.
JAR_SCANS = (":merge_cookies", ":PreparedRequest.prepare_cookies", ":get_cookie_header")
COOKIE_WORK = JAR_SCANS + (":extract_cookies_to_jar",)
COOKIE_CPU_SHARE = 0.25


# gevent's pywsgi writing what the application's iterable yields, one chunk and one send
# per item: told when at least PYWSGI_WRITE_CPU_SHARE of the sampled CPU ran there (a
# generator yielding 3 000 rows of 40 bytes put 63 % of it under WSGIHandler.write).
PYWSGI_WRITE = (":WSGIHandler.write",)


PYWSGI_WRITE_CPU_SHARE = 0.4


# A saturated loop's CPU is setting up TLS connections when at least this share of the
# CPU samples ran in a TLS set-up frame (below): a handshake, a context, certificates
# loaded, once per new connection.  Not requests' per-request work, though it runs
# beneath urllib3: no Session cures it, reused connections do.  Measured: a server
# answering Connection: close over TLS put 64 % of the samples in the ssl modules, half
# of it in the handshake itself.
TLS_SETUP_CPU_SHARE = 0.25


# ... unless the pools made at most one connection per this many requests: then the
# connections were reused, and their set-up is the pools' warm-up (an unseen client
# with a kept Session: 1 200 requests over 20 connections, 29 % of its CPU still in
# TLS set-up in a 1.4 s run), not a cause "reuse connections" would cure.
REUSED_CALLS_PER_CONNECTION = 10


# Frame labels (":function" endings) of TLS connection set-up in the ssl modules
# (the standard library's, gevent's) and urllib3's helpers around them.
_TLS_SETUP = (":SSLSocket.do_handshake", ":SSLSocket.__init__", ":SSLSocket._create",
              ":SSLContext.__new__", ":SSLContext.wrap_socket", ":SSLContext.__init__",
              ":SSLContext.load_verify_locations", ":ssl_wrap_socket",
              ":_ssl_wrap_socket_impl", ":create_urllib3_context")


def _sleep0_holder(profile: Profile, top: list[tuple[str, list[Any]]],
                   delayed_top: float) -> str:
    """A saturated loop's cure when its top holder made at least SAME_HOLDER_SHARE of
    the named holders' queueing in slices run back to back behind gevent.sleep(0)
    (_in_a_row): a background job's pieces, not requests' load; "" otherwise."""
    if not top:
        return ""
    name, (delayed, run, _n, _gid, _cpu) = top[0]
    gs = [g for g in profile.greenlets if _base_name(g.name) == name]
    slices = sum(g.switches for g in gs)
    if delayed < SAME_HOLDER_SHARE * delayed_top or slices < 2:
        return ""
    yields, in_a_row = _in_a_row(profile, {g.id for g in gs}, slices)
    if in_a_row < 2:
        return ""
    return (f" '{name}' made {delayed / delayed_top:.0%} of that queueing in {slices} "
            f"slices of {run / slices * 1e3:.1f} ms on average, "
            f"{_sleep0_told(yields, in_a_row, run / slices)}). {SLEEP0_FIX}")


def _lone_burner(profile: Profile, hot: Any, holders: set[str]) -> str:
    """The cure of hot code one greenlet of the *holders* ran alone, a job of the
    program's own (LONE_BURNER_SHARE), or "" (an unseen indexer's main greenlet compared
    each document with every one kept, and was told a background job to run less
    often)."""
    samples = profile.cpu_samples
    if hot is None or samples is None or not samples.stacks:
        return ""
    by_name: dict[str, float] = {}
    for st in samples.stacks:
        if hot.line in samples.stack_labels(st):
            name = _base_name(st.greenlet)
            by_name[name] = by_name.get(name, 0.0) + st.cpu_s
    total = sum(by_name.values())
    if not total:
        return ""
    owner = max(by_name, key=by_name.__getitem__)
    if by_name[owner] < LONE_BURNER_SHARE * total or owner not in holders \
            or CONNECTION_GREENLET in owner \
            or _greenlets_named(profile, {owner}) != 1:
        return ""
    return (f" The hottest code ({hot.line}, {hot.share:.0%} of the sampled CPU) ran in "
            f"one greenlet, '{owner}': a job of the program's own (a persister, a "
            "refresher, one stage that handles every item), whose CPU does not shrink with "
            "any per-request cure. Make each run cheaper (write what changed, not the "
            "whole; look for work that grows with what it has kept: each item compared "
            "with every one before it, a whole state encoded again after each change), run "
            "it less often (coalesce the changes: at most once an interval, or once per "
            "batch of them), or move it off the loop (a process; a thread only for C code "
            "that releases the GIL).")


# Calls per request served from which loop-saturated's requests' CPU is told as the
# calls' number first: requests' CPU grows with the calls, and from two per request on
# fewer calls is a lever (an unseen order service's handlers priced each order line with
# a call of its own, 5.6 per request: one batch call per request quadrupled its
# throughput, where requests' cheaper path gained 31 %).
CALLS_PER_REQUEST_CPU_TOLD = 2.0


def _calls_per_request(profile: Profile, names: list[str], line: str | None) -> str:
    """A sentence on the calls a server's connections (*names*) made per request served
    (held.jobs_done) at the program's *line*, from CALLS_PER_REQUEST_CPU_TOLD on; "" for
    other greenlets: a loop's greenlet (a worker, a load generator) is no one job, and
    its calls per greenlet say nothing of a request's (an unseen quote service's
    in-process load clients were told "100 calls per job ... a batch endpoint")."""
    from geventperf.findings.held import calls_at, jobs_done  # (held builds on this module)
    requests, unit = jobs_done(profile, names)
    calls = calls_at(profile.waits, line)
    if unit != "request served" or not requests \
            or calls < CALLS_PER_REQUEST_CPU_TOLD * requests:
        return ""
    return (f" {line} made {calls} calls for {requests} requests served "
            f"({calls / requests:.1f} per request served), one after another: "
            "requests' CPU grows with the calls, so fewer calls per request -- one call "
            "for all of its items (a batch endpoint), or a cache of the answers -- cuts it "
            "in proportion.")


def _holders_queued(profile: Profile, workers: list[Any], unexplained: float) -> bool:
    """Whether the greenlets of the name that held the loop most (by the others' ready
    wait their slices overlapped) themselves queued for it more than they waited on
    anything else, at least SATURATED_MIN_QUEUE greenlets on average: the loop's
    capacity paced the very greenlets keeping it busy, whatever others waited on.  An
    unseen order service's handlers queued 56.6 s against 4.0 s of I/O on a loop 94 %
    busy (one pricing call per order line, each request's CPU), while its in-process
    load clients' 59 s of waiting for those same handlers' answers outweighed the
    queueing overall: "FINDINGS: none", and batching the calls quadrupled its
    throughput.  A server's connections awaiting their clients' next requests are idle
    capacity, not waiting (idle_server_wait).  Their queueing counts at the share of
    the run's queueing no other finding explains (*unexplained*: a crowded machine's
    wait for a CPU, connections opened again), as the run's does: with two CPU hogs
    beside it, a churning pool's fetchers queued past their I/O and were told as a
    saturated loop."""
    groups: dict[str, list[Any]] = {}
    for g in workers:
        groups.setdefault(_base_name(g.name), []).append(g)
    if not groups or not profile.duration_s:
        return False
    name, members = max(groups.items(),
                        key=lambda kv: sum(g.delayed_others_s or 0.0 for g in kv[1]))
    ready = unexplained * sum(g.ready_wait_s or 0.0 for g in members)
    event = sum(g.event_wait_s or 0.0 for g in members)
    if CONNECTION_GREENLET in name:
        event = max(0.0, event - idle_server_wait(profile))
    return ready > event and ready >= SATURATED_MIN_QUEUE * profile.duration_s


def idle_server_wait(profile: Profile) -> float:
    """The event wait of an in-process server's connections awaiting their clients' next
    requests (frames.is_idle_server_wait): idle capacity, not I/O anyone awaited."""
    return sum(w.event_wait_s or 0.0 for w in profile.waits if is_idle_server_wait(w.stack))


def _calls_and_opened(profile: Profile) -> tuple[int, int]:
    """(requests made, connections opened) over urllib3's pools (``urllib3-pool``
    events)."""
    evs = _events(profile, "urllib3-pool")
    return int(sum(_f(e, "calls") for e in evs)), int(sum(_f(e, "opened") for e in evs))


def _most_read_site(profile: Profile) -> str | None:
    """The program's line that made the most response body reads (``body-reads``
    events' ``site``), or None."""
    reads: dict[str, float] = {}
    for e in _events(profile, "body-reads"):
        if isinstance(e.get("site"), str):
            reads[e["site"]] = reads.get(e["site"], 0.0) + _f(e, "reads")
    return max(reads, key=reads.__getitem__) if reads else None


def _body_reads(profile: Profile) -> tuple[int, int]:
    """(reads, bodies) of the response bodies read through urllib3 (``body-reads``
    events)."""
    evs = _events(profile, "body-reads")
    return int(sum(_f(e, "reads") for e in evs)), int(sum(_f(e, "bodies") for e in evs))


def loop_saturated(profile: Profile) -> list[Finding]:
    """The loop was nearly always busy and greenlets mostly waited in its ready queue:
    name who held it, by the others' ready wait their run slices overlapped.  The ready
    wait a loop-blocked, blocking-call or gil-contended finding already explains is that
    finding's, not this one's: one cause, one finding."""
    util = profile.hub.get("utilization")
    workers = _workers(profile)
    # A slow path's finding counts its share of the others' queueing as its own
    # (slowpaths.py): counted here too, a saturated loop outranked the code that
    # saturated it whenever many greenlets queued.
    # So do connection-churn, connection-leak and session-per-request (new pools) for
    # the queueing behind the connections they made open again.  Imported here:
    # connections.py builds on this module.  So do repeated-request and
    # duplicate-in-flight, for the queueing their needless calls cost (one of them per
    # request, as the findings keep).
    from geventperf.findings.connections import (
        connection_churn,
        connection_leak,
        not_kept_alive,
        session_per_request,
    )
    from geventperf.findings.inflight import duplicates_in_flight, without_repeats_told
    from geventperf.findings.repeated import repeated_requests
    new_sessions = session_per_request(profile)
    per_call = False  # requests' CPU told as a Session made per call (below)
    blocked = loop_blocked(profile)
    slow = slow_paths(profile)
    explained = sum(f.cost_s for f in blocked) + sum(
        _f(f.extra, "others_ready_wait_s")
        for f in slow + connection_churn(profile) + connection_leak(profile)
        + not_kept_alive(profile) + new_sessions + switch_storms(profile)
        + without_repeats_told(repeated_requests(profile) + duplicates_in_flight(profile)))
    # Busy time the thread spent waiting for a CPU is the machine's, not the loop's
    # work (a starved process's loop looks busy whatever it runs): the run as it
    # would have gone with the CPU to itself is that much shorter, and the queueing
    # of that time is cpu-starved's.  Only when cpu-starved reports it: a share too
    # small for that finding stays here, or its queueing would be explained by nothing.
    duration = profile.duration_s
    starved = starved_share(profile) if cpu_starved(profile) else 0.0
    if util is not None and starved:
        busy = util * duration
        waited = starved * busy  # the wait for a CPU, at most the busy time
        duration -= waited
        util = (busy - waited) / duration if duration > 0 else 0.0
    ready_all = sum(g.ready_wait_s or 0.0 for g in workers)
    explained += starved * ready_all
    # Busy time the thread spent asleep on the GIL (threadpool tasks running Python) is
    # not the loop's work either: gil-contended's, the same way.
    for found in gil_contended(profile):
        if util is not None and duration:
            busy = util * duration
            off = min(_f(found.extra, "off_cpu_s"), busy)
            duration -= off
            util = (busy - off) / duration if duration > 0 else 0.0
        explained += found.cost_s
    ready = ready_all - explained
    # waits for a limit's free slot (a semaphore, a Pool, a lock) are waits for its
    # holders, whom the busy loop keeps waiting: no I/O to weigh the queueing against
    # (an unseen crawler parked 4 000 greenlets on a Semaphore(50), 12 343 greenlet-s of
    # "event wait", while its main greenlet rescanned them all after every result)
    from geventperf.findings.limits import is_limit_wait  # (limits.py builds on this)
    at_limits = sum(w.event_wait_s or 0.0 for w in profile.waits if is_limit_wait(w))
    # nor are an in-process server's kept-alive connections awaiting their clients' next
    # requests waiting for I/O the loop competed with: idle capacity (an unseen digest
    # sender's own WSGI upstreams idled 220 greenlet-s beside its jobs' 64 s of I/O,
    # and hid a loop 99.8 % busy, 53 % of the jobs' waiting queued)
    # nor is the program's own clients' wait for its in-process servers' answers: that
    # is the servers' work, counted in their greenlets already (ownclients.py)
    # nor is a consumer's wait for work in a queue's get(): idle until fed, whoever
    # feeds it (an unseen webhook dispatcher's workers idled 588 greenlet-s at their
    # lanes' get() beside 29 s of I/O, and hid a loop 79 % busy, 76 % of its CPU in a
    # key derivation per delivery: "FINDINGS: none")
    from geventperf.findings.critical import FOR_WORK, wait_class  # (builds on this)
    from geventperf.findings.ownclients import own_client_wait  # (builds on limits.py)
    for_work = sum(w.event_wait_s or 0.0 for w in profile.waits
                   if w.count and wait_class(w) == FOR_WORK)
    event = sum(g.event_wait_s or 0.0 for g in workers) - at_limits \
        - idle_server_wait(profile) - own_client_wait(profile) - for_work
    holders_queued = _holders_queued(profile, workers,
                                     min(1.0, max(0.0, ready / ready_all)) if ready_all > 0
                                     else 0.0)
    if util is None or not duration or ready < SATURATED_MIN_QUEUE * duration:
        return []
    short_of = util < SATURATED_UTILIZATION or \
        (ready < SATURATED_HOT_QUEUE_SHARE * (ready + event) and not holders_queued)
    if short_of and _short_blocking_line(profile, workers, util) is None:
        return []
    holders: dict[str, list[Any]] = {}
    hub = profile.hub.get("id")
    for g in profile.greenlets:
        if g.delayed_others_s:
            acc = holders.setdefault(_base_name(g.name), [0.0, 0.0, 0, g.id, 0.0])
            acc[0] += g.delayed_others_s
            # the hub's run includes its idle in the poll: no holding, and no CPU
            acc[1] += max(0.0, g.run_s - _f(profile.hub, "idle_s")) if g.id == hub \
                else g.run_s
            acc[2] += 1
            acc[4] = None if acc[4] is None or g.cpu_s is None else acc[4] + g.cpu_s
    top = sorted(holders.items(), key=lambda kv: -kv[1][0])[:TOP_HOLDERS]
    # delayed / run: how many others stood ready, on average, while the holder ran
    named = "; ".join(f"'{name}' (x{n}: ran {run:.3f} s while {d / run:.1f} others were ready "
                      f"on average, {d:.3f} greenlet-s of their waiting)"
                      for name, (d, run, n, _gid, _cpu) in top
                      if run > 0 and d >= HOLDER_NAMED_SHARE * top[0][1][0])
    sections = _delaying_sections(profile)
    inside = ", ".join(f"'{s.name}' ({s.delayed_others_s:.3f} greenlet-s)" for s in sections)
    if not named:  # holders that never ran, or none: say so rather than name nobody
        named = ("no greenlet's recorded run slices overlapped the waiting (the hub's own "
                 "callbacks, or slices the tracer did not see)")
    top_gid = top[0][1][3] if top else None
    stack = _most_delaying_stack(profile)
    where = user_site(stack).user if stack else None
    # where the CPU of the holders that made most of the queueing went (a holder that
    # queued few others, start-up's main, must not lend its CPU to the story)
    delayed_top = sum(acc[0] for _name, acc in top)
    hot_names = {name for name, acc in top if acc[0] >= HOT_HOLDER_SHARE * delayed_top}
    hot = hot_code(profile, hot_names)
    # the long slices of the holder that made most of the queueing, burning the CPU in
    # the same code, are this cause's too: one cause, one finding, with both costs
    same = _same_cpu_cause(profile, blocked, top, hot)
    absorbed = sum(f.cost_s for f in same)
    explained -= absorbed
    # what the holders' running was: CPU, or mostly time off the CPU in blocking calls
    # (less their share of the thread's wait for a CPU: a crowded machine's, as _cause)
    held_run = sum(acc[1] for _name, acc in top)
    held_cpu = None if not top or any(acc[4] is None for _name, acc in top) else \
        sum(acc[4] for _name, acc in top)
    had_cpu = held_run * (1.0 - starved_share(profile))
    off_cpu = None if held_cpu is None else max(0.0, had_cpu - held_cpu)
    blocking = off_cpu is not None and off_cpu > BLOCKING_SHARE * had_cpu
    whose = "their running"
    if not blocking and (exits := _exit_running(profile)) is not None:
        # the slices that ended at the greenlets' exits delayed others most: judged by
        # their own running, not by all the holders' (an unseen importer's debug log,
        # written to a pipe after each request, was 64 % off the CPU there; with its
        # CPU-bound request slices the holders' running was 49 %, and the report said
        # "the cure is on the CPU side", which saved 1 %; logging at INFO saved 78 %)
        exit_run, exit_cpu = exits
        exit_had = exit_run * (1.0 - starved_share(profile))
        if exit_had - exit_cpu > BLOCKING_SHARE * exit_had:
            blocking, off_cpu, held_run = True, exit_had - exit_cpu, exit_run
            whose = ("the running of the slices that ended as their greenlets exited, "
                     "which delayed others most,")
    # queueing short of the larger part of the waiting is told only with a function of
    # the program's that burned the CPU (SATURATED_HOT_QUEUE_SHARE): not for holders
    # mostly off the CPU, whose samples see none of that time
    if ready <= event and (hot is None or blocking) and not holders_queued:
        return []
    ready += absorbed  # (after the tests: they decide without the long slices)
    seen = does = None
    partly = ""  # the holders' blocking calls, short of most of their running
    tiny_told = False  # its cure tells threadpool tasks too tiny to hand over
    reads_site = None  # the line asking for small body reads, when they are its cure
    # a specific cure on the CPU side, told before the figures (see the message's lead)
    first = ""
    if blocking:
        # CPU samples see none of that time; the stall watch's looks at the slices may
        # (the story then says where the slices ended)
        seen, hot = stall_seen_short(profile), None
        if seen is None:
            # no look at a short slice: the long blocking ones of the same holders (a
            # blocking-call finding) were most likely the same calls, cut shorter
            names = {name for name, _acc in top}
            seen = stall_seen([e for e in _events(profile, "blocked-slice")
                          if _cause(e) == "blocking-call"
                          and (g := profile.greenlet(e.get("greenlet"))) is not None
                          and _base_name(g.name) in names])
            if seen is not None:
                seen = seen._replace(during="in their slices over the threshold")
        if _exits_delayed_most(profile):
            stack, where = [EXIT], EXIT
        if seen is not None:
            stack = seen.stack
        # the holders' typical longest slice (one greenlet's first slice, imports and
        # all, can be twice the others')
        longest = median([g.longest_run_s for g in profile.greenlets if g.id != hub
                          and _base_name(g.name) in {name for name, _acc in top}] or [0.0])
        cure = (f" Most of {whose} was off the CPU ({off_cpu:.3f} s of {held_run:.3f} "
                f"s), {blocking_story(profile, where or 'an unrecorded place', seen, 2, longest)}")
        if committing(seen):
            # a commit per record leads: its cure is the first thing to read (an unseen
            # order sync's, told at the message's end after the long slices' advice)
            first, cure = cure, ""
    elif (tiny := tiny_tasks(profile, hot)) is not None:
        tiny_told = True
        first, cure = f" {tiny}.", ""
    else:
        does = what_it_does(profile, hot)
        generic = ("less work per request in these greenlets"
                   + ("" if does else " (compute once what is the same "
                      "from request to request and keep it: a verified credential or "
                      "key, a compiled pattern or template, a parsed configuration; and "
                      f"look for {SQUARE_WORK})")
                   + ", fewer greenlets per process and more processes, or "
                   "CPU-heavy work moved out of the loop (a process pool; a C call that "
                   "releases the GIL, such as hashlib's or zlib's, to "
                   "gevent.get_hub().threadpool)."
                   + _threads_story({name for name, _acc in top}))
        # the specific cures besides what the hot code does (which leads the message)
        cure = _sleep0_holder(profile, top, delayed_top) + _lone_burner(profile, hot, hot_names)
        shares = _client_cpu_shares(profile)
        in_tls, in_requests = shares if shares is not None else (None, None)
        if in_tls is not None and in_tls >= TLS_SETUP_CPU_SHARE:
            calls, opened = _calls_and_opened(profile)
            cure += (f" {in_tls:.0%} of the sampled CPU set up TLS connections (handshakes, "
                     "contexts, certificates loaded), "
                     + (f"though the pools reused their connections ({calls} requests over "
                        f"{opened} opened): each new connection pays that once (a "
                        "handshake, and often a context loading the CA bundle), so here it "
                        "is the pools' warm-up, paid again only for connections opened anew."
                        if calls >= REUSED_CALLS_PER_CONNECTION * opened > 0 else
                        "which every new connection pays; here most came from pools the "
                        "Session's PoolManager closed and made again, its hosts more than "
                        "it keeps (see session-per-request): raise pool_connections to the "
                        "hosts it reaches."
                        if any(f.extra.get("evicted") for f in new_sessions) else
                        "which every new connection pays: reuse connections (one Session "
                        "per worker, kept alive; a server that answers Connection: close "
                        "makes every request a new handshake, and so does a stream=True "
                        "response closed before its body was read: its socket is closed "
                        "with it), or terminate TLS outside this process."))
        writes = sampled_share(profile, PYWSGI_WRITE)
        if writes >= PYWSGI_WRITE_CPU_SHARE:
            iterable = _wsgi_iterable(profile)
            cure += (f" {writes:.0%} of the sampled CPU wrote responses piece by piece "
                     "through gevent's pywsgi (WSGIHandler.write: a chunk and a send per "
                     "item the application's iterable yields"
                     + (f", here {iterable}" if iterable else "")
                     + "): yield fewer, larger pieces "
                     "(rows joined into pieces of some 64 KiB), or return the body whole "
                     "as a list of one item ([b''.join(rows)]): a list of many items is "
                     "written an item at a time too.")
        pieces = _body_pieces(profile)
        if pieces is not None:
            share, made_by = pieces
            cure += (f" {share:.0%} of the sampled CPU sent request bodies a piece at a "
                     "time: urllib3 sends each piece an iterable body yields as a chunk of "
                     f"its own, a send each (here the pieces came from {made_by}): pass the "
                     "body whole (bytes), or yield fewer, larger pieces (some 64 KiB).")
            in_requests = None  # that CPU is the pieces', not requests' per-request work
        reads, bodies = _body_reads(profile)
        if in_requests is not None and in_requests >= REQUESTS_CPU_SHARE \
                and bodies > 0 and reads >= READS_PER_BODY_TOLD * bodies:
            # the reads' line is the place to change, and this finding tells them (an
            # unseen mirror's 1 KiB iter_content was told at its file write, the next
            # line, and its fix, the threadpool, made the run 6x slower)
            reads_site = _most_read_site(profile)
            cure += (f" {in_requests:.0%} of the sampled CPU ran inside requests, urllib3 "
                     f"and http.client themselves, most of it per read, not per request: "
                     f"{reads} reads for {bodies} bodies"
                     + (f", most of them asked for at {reads_site}" if reads_site else "")
                     + ": ask for large pieces there (iter_content(chunk_size=512 * 1024)), "
                     "or read the body whole (response.content), and the per-read work goes "
                     "with the reads.")
        elif in_requests is not None and in_requests >= REQUESTS_CPU_SHARE \
                and sampled_share(profile, JAR_SCANS) >= COOKIE_CPU_SHARE:
            cookies = sampled_share(profile, COOKIE_WORK)
            cure += (f" {in_requests:.0%} of the sampled CPU ran inside requests, urllib3 "
                     f"and http.client, and {cookies:.0%} of the sampled CPU handled "
                     "cookies there: requests merges the session's cookie jar into every "
                     "request, scans it for the cookies each request carries "
                     "(merge_cookies, get_cookie_header) and "
                     "stores every answer's Set-Cookie in it, so a jar grown large (a "
                     "shared Session collecting a cookie per user or per path from an "
                     "upstream that sets them) costs every call. Fix: keep only the cookies "
                     "the calls need -- a cookie policy on the jar that refuses the rest "
                     "(session.cookies.set_policy() with an http.cookiejar policy whose "
                     "set_ok and return_ok say no), cookies= per call instead of a shared "
                     "jar, or a Session per user. geventperf's fast path skips cookie work "
                     "only for an empty jar: it does not cure this.")
        elif in_requests is not None and in_requests >= REQUESTS_CPU_SHARE:
            env = sampled_share(profile, ENV_SCAN)
            cure += _calls_per_request(profile, [name for name, _acc in top[:1]], where)
            # fewer requests first, where the same answers were fetched again and again
            # (an unseen payments sync looked up 210 exchange rates 4 869 times, its
            # cache keyed on a timestamp, and was told a cheaper Session first: 42 % off
            # the run, where a cache that hit took 80 %).  Imported here: held.py builds
            # on this module.
            from geventperf.findings.held import repeats_told
            cure += repeats_told(profile, any_host=True)
            # a Session made per call: its setup and a new connection each time are
            # requests' work here, and sharing one is the cure that comes first (an
            # unseen price pusher told a cheaper Session first gained 8 %; one Session
            # shared by its calls, 32 %); not pools a kept Session's PoolManager closed
            # and made again (evicted): no Session was made per call there
            per_call = any(not f.extra.get("evicted") for f in new_sessions)
            cure += (f" {in_requests:.0%} of the sampled CPU ran inside requests, urllib3 "
                     "and http.client themselves"
                     + (", for a Session made per call (session-per-request, told before "
                        "this finding): its setup and a new connection each time are "
                        "that work, and one Session shared by the calls is the first "
                        "cure. Beyond it, their per-request work (proxy settings read "
                        "from the environment, URL parsing, header checks) is a cause of "
                        "its own" if per_call else
                        ": their per-request work (proxy settings read from the "
                        "environment, URL parsing, header checks) is a cause of its own")
                     + (f", and here {env:.0%} of the sampled CPU read the proxy settings "
                        "and .netrc from the environment at each request (its cost grows "
                        "with the environment's size: a container with many service "
                        "variables): session.trust_env = False skips that where no proxy "
                        "or .netrc is needed (it also ignores REQUESTS_CA_BUNDLE: set "
                        "session.verify to a bundle the service relies on)"
                        if env >= ENV_SCAN_CPU_SHARE else "")
                     + (FAST_PATH_ON if sampled_cpu(profile, FAST_PATH_FRAME.search)[0] > 0
                        else ". geventperf.Session(), or geventperf.mount(session, "
                        "fast_path=True), does that work once per session (about half of "
                        "requests' CPU per call in this project's benchmarks)"
                        + (", for the shared Session." if per_call else ".")))
        partly, _line = _partly_blocking(profile, off_cpu, held_run)
        grown = _grown_told(same)
        cure = partly + (f" {_sentence(grown.strip())}" if partly and grown else grown) + cure
        # the specific cause first: a reader under pressure acts on the first cure told
        first, cure = (cure, " Beyond that: " + generic) if cure or does else \
            ("", " The cure is on the CPU side, not the I/O side: " + generic)
        if in_requests is None:
            cure += (" Which functions used the CPU: profile with CPU samples "
                     "(Tracer(cpu_samples=True); geventperf run takes them unless "
                     "--no-cpu-samples).")
    # the specific cure leads, the figures after: a reader under pressure acts on the
    # first sentence (three unseen programs' regex, store rewrite and fork per call, and
    # another's connection per command, were told right 5 to 7 lines into the paragraph)
    lead = (f"The loop was saturated by the code at {hot.line}, {hot.share:.0%} of the "
            f"sampled CPU: it {does.removeprefix('it ')}.{first} In figures: busy"
            if does and hot else
            f"The loop was saturated by the code at {hot.line}, {hot.share:.0%} of the "
            f"sampled CPU:{first} In figures: busy" if tiny_told and hot else
            f"The loop was saturated.{first} In figures: busy" if first and (partly or blocking)
            else
            f"The loop was saturated; the cure is on the CPU side, not the I/O side:{first} "
            "In figures: busy" if first else "The loop was saturated: busy")
    message = (
        f"{lead} {util:.0%} of the run, and greenlets waited "
        f"{ready:.3f} greenlet-seconds ready to run but queued"
        + (f" (besides the {explained:.3f} s the long slices, slow paths and waits for a "
           "CPU reported apart caused)" if explained > EPSILON_S else "")
        + f", against {event:.3f} s waiting for I/O, timers or locks"
        + (f" (besides {at_limits:.3f} s for a free slot of a lock, semaphore or pool: "
           "waits for its holders, who queued too)" if at_limits > EPSILON_S else "")
        + (f" (and {for_work:.3f} s of consumers idle in a queue's get(), awaiting work)"
           if for_work > EPSILON_S else "")
        + ". Who held the loop: "
        f"{named}"
        + (f"; inside sections {inside}" if inside else "")
        + (f"; {hot.told()}" if hot else "")
        + (("; the slices that delayed most ended as their greenlets exited" if where == EXIT
            else f"; the slices that delayed most ended at {where}") if where and not seen
           and not hot else f"; {ended(where, 2)}" if where and hot and not seen else "")
        + "." + _long_slices_told(same) + cure)
    iterated = small_reads_site(hot, does) or reads_site
    return [_finding(LOOP_SATURATED, message, ready,
                     [reads_site] if reads_site else hot.stack if hot else stack,
                     **({"tiny_tasks_told": True} if tiny_told else {}),
                     small_reads_site=iterated, long_slices_s=absorbed,
                     long_slices_of=[f.greenlet for f in same],
                     greenlet=top_gid,
                     **({} if reads_site else {"stack_is": STACK_CPU_SAMPLES if hot else
                                               STACK_STALL_LOOK if seen else
                                               STACK_SLICE_END}),
                     utilization=util, ready_wait_s=ready, event_wait_s=event,
                     active_s=util * duration,
                     holders={name: acc[0] for name, acc in top}, holders_off_cpu_s=off_cpu,
                     # its cure is the holders' calls that block the thread: the title
                     # says so (text.STORIES), for readers who skim the kinds
                     blocking_calls=bool(blocking or partly),
                     sections={s.name: s.delayed_others_s for s in sections},
                     # (a blocking call told first is no Session's work: an unseen
                     # rollout's commit per record, 44.66 s, ranked after new pools'
                     # 1.68 s, whose cure gained nothing)
                     **_after_slow_paths(slow, per_call and not partly))]


# A slow path holding at least this share of the sampled CPU is the saturation's cause,
# and its finding comes first whatever the costs: the code it drives (thrift's generated
# read() loop calling its pure-Python protocol, a third of the CPU outside thrift's
# files) runs fast with it, and on a loaded machine the two costs came within 4 %
# (tests/test_slowpaths.py's thrift workers: 1.698 against 1.641).
SLOW_PATH_LEADS_SHARE = 0.4


def _after_slow_paths(slow: list[Finding], per_call: bool = False) -> dict[str, Any]:
    """``ranks_after`` the kinds of the slow paths (*slow*) that lead, and
    session-per-request where requests' CPU was a Session made per call (*per_call*), or
    nothing."""
    kinds = sorted({f.kind for f in slow if _f(f.extra, "cpu_share") >= SLOW_PATH_LEADS_SHARE}
                   | ({SESSION_PER_REQUEST} if per_call else set()))
    return {"ranks_after": kinds} if kinds else {}


def _same_cpu_cause(profile: Profile, blocked: list[Finding], top: list[Any],
                    hot: Any) -> list[Finding]:
    """The loop-blocked findings (CPU) of the holder that made most of a saturated
    loop's queueing (at least SAME_HOLDER_SHARE of the named holders'), whose samples
    put their CPU in the same code as the saturation's: a dashboard re-rendering a
    growing snapshot every 10 ms held the loop in slices of every length, its longest
    over the threshold; told as two findings, each cost could rank below a smaller
    cause's."""
    if hot is None or not top:
        return []
    name, acc = top[0]
    if acc[0] < SAME_HOLDER_SHARE * sum(a[0] for _n, a in top):
        return []
    out = []
    for f in blocked:
        g = profile.greenlet(f.greenlet) if isinstance(f.greenlet, int) else None
        if f.kind == LOOP_BLOCKED and f.extra.get("cause") == "cpu" and g is not None \
                and _base_name(g.name) == name \
                and f.extra.get("stack_is") == STACK_CPU_SAMPLES and f.stack == hot.stack:
            out.append(f)
    return out


def _long_slices_told(same: list[Finding]) -> str:
    """The sentence of a saturated loop's finding on the long slices it counts
    (_same_cpu_cause); empty without any."""
    if not same:
        return ""
    count = sum(_count(f.extra, "count") for f in same)
    longest = max(_f(f.extra, "longest_s") for f in same)
    cost = sum(f.cost_s for f in same)
    return (f" {cost:.3f} greenlet-seconds of that queueing were behind the top holder's "
            f"longest slices, {count} over the block threshold "
            f"({_f(same[0].extra, 'threshold_s'):g} s; the longest {longest:.3f} s), in "
            "the same code: whoever became ready meanwhile (a request's next step, a "
            "light request behind a heavy one) waited each of them out, so besides less "
            f"work there, for the others' latency cut it into pieces and {YIELD_BETWEEN_PIECES}.")


def _grown_told(same: list[Finding]) -> str:
    """The lead sentence of a saturated loop's finding whose long slices (_same_cpu_cause)
    grew through the run (loop-blocked's ``grew``); "" otherwise.  Told first: cutting
    growing work into pieces only spreads it (an unseen /metrics render, +2 %)."""
    grew = next((f.extra["grew"] for f in same if _figures(f.extra.get("grew"), 2)), None)
    if grew is None:
        return ""
    return (f" the top holder's longest slices grew through the run, {grew[0]:.3f} s on "
            f"average in its earlier half and {grew[1]:.3f} s in its later: the work grows "
            "with something "
            "the program keeps adding to (a registry or cache never trimmed, a history, "
            "metric labels taking new values such as raw paths or ids); bound what grows, "
            "first.")


def without_slices_told(found: list[Finding]) -> list[Finding]:
    """*found* without the loop-blocked findings a loop-saturated finding counts
    (``long_slices_of``, _same_cpu_cause): one cause, one finding."""
    told = {gid for f in found if f.kind == LOOP_SATURATED
            for gid in f.extra.get("long_slices_of") or ()}
    return [f for f in found if not (f.kind == LOOP_BLOCKED and f.extra.get("cause") == "cpu"
                                     and f.greenlet in told)]


# A loop busy at least this share of the run, short of SATURATED_UTILIZATION, is told
# saturated when its greenlets were off the CPU in calls the CPU samples name
# (loop._partly_blocking: a commit, an fsync): each call under the block threshold,
# together they hold the loop (an unseen controller committed each audit record with an
# fsync, ~1 ms each, 3 500 times: its loop 58 % busy, 43 % of the waiting queued, and
# "FINDINGS: none"; one transaction per flush took 41 % off its run).
BLOCKING_UTILIZATION = 0.5


def _short_blocking_line(profile: Profile, workers: list[Any], util: float
                         ) -> str | None:
    """The program's line of loop._partly_blocking's blocking calls over all *workers*'
    running, when the loop was busy BLOCKING_UTILIZATION of the run or more; None
    otherwise, or without the CPU clock."""
    if util < BLOCKING_UTILIZATION \
            or any(g.cpu_s is None for g in workers):
        return None
    run = sum(g.run_s for g in workers) * (1.0 - starved_share(profile))
    return _partly_blocking(profile, max(0.0, run - sum(g.cpu_s for g in workers)), run)[1]


def _client_cpu_shares(profile: Profile) -> tuple[float, float] | None:
    """Shares of the greenlets' sampled CPU (the hub's apart) that set up TLS
    connections (a _TLS_SETUP frame in the stack), and that ran beneath requests,
    urllib3 or http.client otherwise, under a frame of requests or urllib3 (http.client
    called by the program itself, as a load generator beside a service does, is no work
    a Session cures: an unseen router that made no request through requests was told
    "55 % inside requests"); None without CPU samples.  JSON decoded under
    ``Response.json()`` is the body's parse, not requests' own work (a 400 KB document
    a page put 80 % of "requests' CPU" in simplejson, and no Session cures it); nor is a
    body the program iterates in small pieces (cpuhot.iterated_in_small_pieces); nor the
    program's own code requests calls back (a response hook: an unseen ingester's
    pure-Python CRC in a hooks= callback was told as requests' per-request work, and the
    Session cure gained nothing): only the frames inside the program's innermost count;
    and the shares are of the service's CPU: its own load generator's samples left out
    (ownclients.is_load_generator: an unseen resolver proxy's load clients made most of
    its "56 % inside requests", told first above its blocklist scan)."""
    from geventperf.findings.ownclients import is_load_generator, load_generator_lines
    samples = profile.cpu_samples
    if samples is None:
        return None
    loading = load_generator_lines(profile)
    inside = [is_client_frame(label) for label in samples.frames]
    via = [REQUEST_FRAME.search(label) is not None for label in samples.frames]
    setup = [label.endswith(_TLS_SETUP) for label in samples.frames]
    parse = [JSON_DECODE.search(label) is not None for label in samples.frames]
    mine = [not is_library_frame(label) for label in samples.frames]
    small = caller_small_read_sites(profile)
    total = under = tls = 0.0
    for frames, cpu in greenlet_samples(profile):
        if loading and is_load_generator([samples.frames[i] for i in frames], loading):
            continue  # the service's shares, not its load generator's
        total += cpu
        inner = frames[:next((k for k, i in enumerate(frames) if mine[i]), len(frames))]
        if any(setup[i] for i in frames):
            tls += cpu
        elif any(inside[i] for i in inner) and any(via[i] for i in inner) \
                and not any(parse[i] for i in frames) \
                and not iterated_in_small_pieces([samples.frames[i] for i in frames], small):
            under += cpu
    return (tls / total, under / total) if total > 0 else None


# urllib3 sending a request (http.client's send beneath it): a body an iterable yields
# goes out a chunk per piece from there.  Told when sends took this share of the
# sampled CPU and a frame of the program's ran right inside the request (the body's
# generator): an unseen uploader's data= generator of 60-byte lines spent 87 % of its
# run sending 4 000 pieces per request, and was told requests' per-request work.
URLLIB3_REQUEST = re.compile(r"[/\\]urllib3[/\\]connection\.py:\d+:HTTPConnection\.request$")


HTTP_SEND = (":HTTPConnection.send",)


BODY_PIECES_CPU_SHARE = 0.4


def _body_pieces(profile: Profile) -> tuple[float, str] | None:
    """(the share of the greenlets' sampled CPU in http.client's send, the program's frame
    that yielded the pieces) when that share is BODY_PIECES_CPU_SHARE and a frame of
    the program's ran right inside urllib3's request (a body generator); else None."""
    samples = profile.cpu_samples
    if samples is None:
        return None
    labels = samples.frames
    makers: Counter[str] = Counter()
    for frames, cpu in greenlet_samples(profile):
        for inner, outer in zip(frames, frames[1:]):
            if URLLIB3_REQUEST.search(labels[outer]) \
                    and not is_library_frame(labels[inner]):
                makers[labels[inner]] += cpu
    share = sampled_share(profile, HTTP_SEND)
    if not makers or share < BODY_PIECES_CPU_SHARE:
        return None
    return share, makers.most_common(1)[0][0]


# Where gevent's pywsgi iterates the application's iterable (a write per item), and
# where it calls the application.
WSGI_ITERATION = ":WSGIHandler.process_result"


WSGI_APPLICATION = ":WSGIHandler.run_application"


def _wsgi_iterable(profile: Profile) -> str | None:
    """Where a streamed response's pieces came from: the program's frame pywsgi iterated
    most (sampled CPU, right inside WSGIHandler.process_result: an unseen CSV export's
    generator yielding a row at a time), else the application that returned them (right
    inside WSGIHandler.run_application: a list of 2 001 lines, no frame of its own while
    written); None without samples or such a frame."""
    samples = profile.cpu_samples
    if samples is None:
        return None
    labels = samples.frames
    iterated: Counter[str] = Counter()
    applications: Counter[str] = Counter()
    for frames, cpu in greenlet_samples(profile):
        for inner, outer in zip(frames, frames[1:]):
            for ending, tally in ((WSGI_ITERATION, iterated), (WSGI_APPLICATION, applications)):
                if labels[outer].endswith(ending) and not is_library_frame(labels[inner]):
                    tally[labels[inner]] += cpu
    if iterated:
        return iterated.most_common(1)[0][0]
    if applications:
        return f"what the application at {applications.most_common(1)[0][0]} returned"
    return None


# The fast path's own frames in the samples: it is on already (an unseen notifier, its
# fast path mounted on the report's advice, was told to mount it again).
FAST_PATH_FRAME = re.compile(r"[/\\]geventperf[/\\](session|adapterfast)\.py:\d+:"
                             r"(SessionFastPath|FastPathMixin)\.")


FAST_PATH_ON = (
    ". geventperf's fast path is on already (its frames are in the samples): what is left "
    "is urllib3's and http.client's own work per request, which only fewer requests cure "
    "(answers cached, calls batched or not made twice).")


def _exits_delayed_most(profile: Profile) -> bool:
    """Whether the run slices that ended at their greenlets' exits delayed others more
    than those that ended at any one place in code: a job whose last act blocks (a
    child process run with os.system after its request) holds the loop from its last
    wake-up to its end, and the place _most_delaying_stack names is then only where
    its shorter slices ended."""
    exits = sum(r.delayed_others_s or 0.0 for r in profile.runs
                if r.stack and r.stack[0] == EXIT)
    placed = [r.delayed_others_s or 0.0 for r in profile.runs
              if r.stack and not r.stack[0].startswith("<")]
    return exits > max(placed, default=0.0)


def _exit_running(profile: Profile) -> tuple[float, float] | None:
    """(run, CPU) seconds of the run slices that ended at their greenlets' exits, when
    those delayed others most (_exits_delayed_most) and their CPU was measured; else
    None."""
    if not _exits_delayed_most(profile):
        return None
    rows = [r for r in profile.runs if r.stack and r.stack[0] == EXIT]
    if any(r.cpu_s is None for r in rows):
        return None
    return sum(r.run_s for r in rows), sum(r.cpu_s for r in rows)
