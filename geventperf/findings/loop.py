"""Holding the loop: long slices that kept ready greenlets waiting (CPU or a blocking
call), and a loop too busy for its greenlets (saturated)."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from statistics import median
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from geventperf.findings.backlog import backlog_after
from geventperf.findings.common import (
    BLOCKING_CALL,
    CONNECTION_GREENLET,
    COST_MEANING,
    CPU_STARVED,
    EAGER_LOG_CHEAPER,
    GC_PAUSE,
    LOOP_BLOCKED,
    LOOP_HELD,
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
    _names,
    _sentence,
    block_threshold,
    eager_log,
)
from geventperf.findings.cpuhot import (
    JSON_DECODE,
    hot_code,
    is_client_frame,
    iterated_in_small_pieces,
    own_line,
)
from geventperf.findings.reading import caller_small_read_sites, switch_storms
from geventperf.findings.slowpaths import slow_paths
from geventperf.formats._frames import frame_label, is_library_frame
from geventperf.frames import (
    frame_source,
    is_idle_server_wait,
    parse_frame,
    statement_source,
    user_site,
)
from geventperf.profile import EXIT, THREAD_SUFFIX, Finding, Profile, by_generation

# A loop-blocking slice is "a blocking call" rather than "CPU" when more than this
# share of its wall time was off the CPU (and not waiting for a CPU: see runqueue_s).
BLOCKING_SHARE = 0.5
# A saturated loop's holders off the CPU for at least this share of their running
# (short of BLOCKING_SHARE) made blocking calls too, which no CPU cure reaches: told
# first when the CPU samples name the program's line that makes them (BLOCKING_LINE).
# An unseen billing worker fsynced its audit file twice per job: 16 % of the holders'
# running off the CPU, 13 % of the sampled CPU at the fsync's line; told only
# requests' CPU (whose cure saved 25 %), where a group commit saved 30 %.
PARTLY_BLOCKING_SHARE = 0.1
# The text of a program's line that commits a database transaction: by call, by
# statement, or on leaving a connection's with block (sqlite3's and most DB-API drivers'
# connections commit there).  An unseen order sync committed each row in `with
# self.conn:`, 90 % of its run: told the generic blocking cures, and the threadpool it
# offered first gained nothing, where one transaction per batch took 90 % off.
# (A with block's connection by its usual names: conn..., db, database, con, cx, a
# sqlite... or ..._db; an unseen gateway spooled each check-in under `with self.db:`.)
COMMIT_LINE = re.compile(r"\.commit\(\)|\bexecute\(\s*[rbuRBU]?['\"]\s*(?i:commit|end)\b|"
                         r"^\s*(async\s+)?with\s+(\w+\.)*(conn\w*|db|database|con|cx|"
                         r"sqlite\w*|\w+_db)\s*(\bas\s+\w+\s*)?:")
# The text of a program's line that runs a statement through a DB-API driver, whose C
# code blocks the loop's thread (sqlite3 sleeping in its busy handler for a lock another
# connection holds, a driver reading its own socket): an unseen thumbnail service's
# sqlite write waited out a rollup's lock, and was told the generic cures with the
# threadpool last, where the threadpool took 32 % off its run.
DB_CALL_LINE = re.compile(r"\.(execute|executemany|executescript|fetch(one|many|all))\(")
# The text of a program's line that makes a call blocking the loop's thread without
# yielding: a disk sync (fsync, a file's flush, a database's commit, by call, by
# statement or on leaving a connection's with block: an unseen sitemap sync's sqlite
# COMMIT per page, 22 % of its holders' running off the CPU) or a sleep unpatched.
BLOCKING_LINE = re.compile(r"\b(os\.(fsync|fdatasync|sync)|fsync|fdatasync)\(|\.flush\(\)|"
                           r"\btime\.sleep\(|" + COMMIT_LINE.pattern)
# A CPU slice's message names the time its thread waited for a CPU from this share of
# the held time on: below it, ordinary scheduling noise not worth a reader's attention.
# So is the time the garbage collector ran inside it.
RUNQUEUE_SHARE_NAMED = 0.25
GC_SHARE_NAMED = 0.25
# And the sections it ran in (a C parser the tracer wraps): where the slice spent its
# time when it ended elsewhere (at the next fetch, or the greenlet's exit).
SECTION_SHARE_NAMED = 0.25
# A stall look inside the logging package's own frames found the thread writing a log
# record: the blocking call is the log stream's write.
LOGGING_PATH = "/logging/"
# gevent.sleep's frame.  A holder whose slices end there works on a timer (a reporter, a
# refresher): its cost is what it does per tick, which yielding within only spreads
# (loop-held); a feeder waiting there sleeps on one (serial-bottleneck, handoff.py).
SLEEP_FRAME = re.compile(r"/gevent/hub\.py:\d+:sleep$")
# How to give way to greenlets waiting for I/O between pieces of work that stay in the
# loop (benchmarks/yield_kinds.py: a ping behind 1.5 ms pieces waited up to 150 ms with
# gevent.sleep(0) between them, 1.6 ms with either of these).
# gevent.idle() resumes only when nothing else is pending: an unseen index refresher
# split with it under steady traffic finished no rebuild in 4 s (its "gain" was the
# work not done), so the timer comes first and idle() is said to starve.
GIVE_WAY = ("gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires, and it "
            "always resumes) or, for work that can wait indefinitely, gevent.idle() (it "
            "resumes only once the loop has nothing pending: on a loop never idle, never)")
# CPU code that is often the cure's target: two unseen services built a CSV with
# bytes += and deduplicated with `in` on a list (their fixes: 2.1x, 1.2x).
SQUARE_WORK = ("work that grows with the square of its input: += on bytes or str in a "
               "loop, a list searched inside a loop, a sort or copy repeated")
# loop-held's fix when its greenlets yielded with gevent.sleep(0) between slices
# (CALLBACKS_BEFORE_POLL).
SLEEP0_FIX = (f"Fix: yield with {GIVE_WAY} there instead, between pieces of a millisecond "
              "or two; or move the work out of the loop (a process pool for Python code).")
# A timer's job that redoes its work at each tick: its first cure (an unseen search
# service rebuilt its index every 0.5 s whether or not its catalog had changed; a
# version check gained 28 %).
SKIP_UNCHANGED = ("skip a tick whose input has not changed (a version or etag check "
                  "before a rebuild)")
TICKER_FIX = ("They ended in gevent.sleep: it works on a timer, and each tick's work is "
              f"the cost (yielding within it spreads the same work over more slices). Fix: "
              f"do less per tick -- {SKIP_UNCHANGED}, keep running totals instead of "
              "recomputing them from everything so far, render only what changed -- or tick "
              "less often; or move the work out of the loop (a process pool for Python code).")
# Frames no look is named by: socket, TLS and HTTP reads, gevent's hub and socket
# layer, the selectors (what any blocking I/O passes through; the call above them is
# the story).
GENERIC_FRAME = re.compile(r"/(socket|ssl|selectors|http/client)\.py:|/gevent/(hub|_socket"
                           r"common|_socket3|_ssl3|select|os|fileobject|_fileobjectcommon)"
                           r"\.py:")
# gevent.pywsgi writing its access log (WSGIServer(log=...)), after the application
# returned: no frame of the program's on the stack
ACCESS_LOG_FRAME = re.compile(r"/gevent/pywsgi\.py:\d+:WSGIHandler\.log_request$")
# A long slice is the garbage collector's (gc-pause) when collections took at least
# this share of the time it had a CPU: the code that happened to allocate is then not
# what held the loop, and no finding should send the reader to it.
GC_SHARE = 0.5
# Long slices are a finding only when others lost at least one block threshold
# (greenlet-seconds) to them: the threshold is what the user calls "long enough to
# matter", and a long slice while nothing else could run (start-up, a lone greenlet)
# hurt nobody.
# Nor are they one when nobody waited ready through at least this share of a block
# threshold of them: others that became ready only in a long slice's last moments (a
# start-up that imports for 0.2 s, then spawns 2 000 workers in 15 ms and yields) were
# held up by the spawning, not by the slice's length, and a summed cost of many short
# waits must not make that slice read as a loop blocker.  Half, not all of it: a 60 ms
# hog that others joined 20 ms in still kept them waiting 40 ms.
KEPT_WAITING_SHARE = 0.5
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
# The thread waiting for a CPU (hub["cpu_wait_s"]) is a finding from this share of the
# loop's busy time on: below it a shared machine's ordinary scheduling jitter, above it
# a crowded host or a CPU limit throttling the process is a cause of its own.
STARVED_SHARE = 0.25
# ... and of this share of the run's wall time: a loop mostly idle waits for a CPU a few
# hundred ms in a run of seconds at its wake-ups (0.3 s of a 6 s run, 27 % of the 18 %
# it was busy), which no machine change would buy back more than that of.
STARVED_RUN_SHARE = 0.1
# A holder of the loop is named beside the top one when it delayed others at least this
# share of what the top one did: "ran 0.000 s, 0.000 greenlet-s of their waiting" (a
# subprocess's pipe readers) is noise in the list.
HOLDER_NAMED_SHARE = 0.01
# Holders named in a loop-saturated finding.
TOP_HOLDERS = 3
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
# A group of greenlets "holds the loop" (loop-held) when slices each under the block
# threshold still made it the main cause of queueing: it delayed others for at least
# this share of all the others' ready wait that any greenlet caused,
HELD_SHARE = 0.3
# its slices were this many times longer than the other greenlets' on average (a
# request handler's sub-millisecond slices are the loop's ordinary fabric; a hasher's
# 20 ms chunks among them are what the others queue behind),
HELD_SLICE_RATIO = 10.0
# and at least this long on average: below it, yielding more often would gain little.
HELD_MIN_SLICE_S = 0.002
# gevent runs its queued callbacks (the wake-up of a gevent.sleep(0) is one) and checks
# only after this many whether its switch interval (5 ms by default) has passed before
# it polls for I/O (gevent/_ffi/loop.py, CALLBACK_CHECK_COUNT): a greenlet yielding
# with sleep(0) between pieces of work runs up to this many of them back to back while
# greenlets waiting for I/O wait (an unseen refresher's 1.5 ms pieces kept request
# handlers waiting up to 131 ms).
CALLBACKS_BEFORE_POLL = 50
# How to give way between pieces of work that must stay in the loop.
YIELD_BETWEEN_PIECES = (
    f"yield between pieces of a millisecond or two with {GIVE_WAY}, not gevent.sleep(0): "
    "that gives way only to greenlets already ready, and gevent runs up to "
    f"{CALLBACKS_BEFORE_POLL} such wake-ups back to back before it polls for I/O")
# The oldest generation: collecting it walks every object the collector tracks.
FULL_GENERATION = 2
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
# Told as its own cause when it holds at least COOKIE_CPU_SHARE of the sampled CPU: an
# unseen service's shared Session kept a cookie per user path from its upstream (400 in
# the jar), 76 % of the CPU went there, and the fast path (which skips cookie work only
# for an empty jar) gained nothing; a jar that refuses the cookies (11 % left, parsing
# the Set-Cookie headers) cut the run 3.9x.
COOKIE_WORK = (":merge_cookies", ":PreparedRequest.prepare_cookies",
               ":extract_cookies_to_jar", ":get_cookie_header")
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


def _stretched_by_starving(slice_event: dict[str, Any], threshold: float) -> bool:
    """Whether a blocked slice was over the threshold only by the thread's waits for a
    CPU: a crowded machine's (cpu-starved tells it), not a block of the slice's own (a
    56 ms collection after gc.freeze(), 30 ms of it preempted by two CPU hogs, was told
    a pause).  It stays one of its greenlet's ordinary slices, loop-held's to weigh."""
    return _f(slice_event, "run_s") - _f(slice_event, "runqueue_s") < threshold


def loop_blocked(profile: Profile) -> list[Finding]:
    """Run slices longer than the block threshold that held up greenlets ready to run,
    one finding per cause: CPU or a non-cooperative blocking call (``loop-blocked`` /
    ``blocking-call``) in greenlets of one name, wherever their slices ended (a hog's
    last slice ends at its exit, the others at its yields: one hog, one finding)."""
    threshold = block_threshold(profile)
    groups: dict[tuple[str, Any], list[dict[str, Any]]] = defaultdict(list)
    stalls = _events(profile, "blocked-slice")
    for ev in stalls:
        if _f(ev, "longest_wait_s", threshold) < KEPT_WAITING_SHARE * threshold:
            continue  # others joined only at its end (older profiles: not measured)
        if _stretched_by_starving(ev, threshold):
            continue
        gid = ev.get("greenlet")
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        cause = _cause(ev)
        # the collector runs in whichever greenlet allocates: one cause, all of them
        groups[(cause, None if cause == "gc" else _base_name(g.name) if g else gid)].append(ev)
    # Imported here: gil.py builds on this module.
    from geventperf.findings.gil import gil_evidence
    # Off-CPU slices while worker threads ran Python were waiting for the GIL: the
    # gil-contended finding tells them, with the fix that is not "use the threadpool".
    gil = gil_evidence(profile) is not None
    out = []
    for (cause, _who), evs in groups.items():
        if gil and cause == "blocking-call":
            continue
        # the worst slice that ended in code (not at a greenlet's exit) names the place
        placed = [e for e in evs if not str((e.get("stack") or ["<"])[0]).startswith("<")]
        worst = max(placed or evs, key=lambda e: _f(e, "run_s"))
        stack = list(worst.get("stack") or [])
        site = user_site(stack).user or (stack[0] if stack else "?")
        longest = max(_f(e, "run_s") for e in evs)
        run = sum(_f(e, "run_s") for e in evs)
        hurt = [e.get("delayed_others_s") for e in evs]
        cost = run if None in hurt else sum(float(h) for h in hurt)  # older profiles: run
        if None not in hurt and cost < threshold:
            continue  # nobody (or hardly anybody) was ready meanwhile
        backlog = 0.0 if None in hurt else backlog_after(profile, evs, stalls)
        spans = [e.get("longest_wait_s") for e in evs]
        kept = None if None in spans else max(float(s) for s in spans)  # older: unknown
        cpu = None if any(e.get("cpu_s") is None for e in evs) else \
            sum(_f(e, "cpu_s") for e in evs)
        who = _names(profile, [e.get("greenlet") for e in evs])
        held = (f"held the loop {run:.3f} s without yielding"
                + (f" ({len(evs)} slices over {threshold:g} s, longest "
                   f"{longest:.3f} s)" if len(evs) > 1 else ""))
        hurt_text = "" if None in hurt else f", while others were ready to run: {cost:.3f} " \
            "greenlet-seconds of their waiting" + (
                "" if kept is None else f" (one waited up to {kept:.3f} s)") + (
                f", and {backlog:.3f} more in the backlog they left (the ready queue above "
                "its usual length until it next emptied)" if backlog >= threshold else "")
        cost += backlog
        queued = sum(_f(e, "runqueue_s") for e in evs)  # the thread waiting for a CPU
        collected = sum(_f(e, "gc_s") for e in evs)
        if cause == "gc":
            out.append(_gc_pause(profile, evs, who, hurt_text, cost, stack, worst, run,
                                 collected, longest, kept, threshold, backlog))
            continue
        kind = BLOCKING_CALL if cause == "blocking-call" else LOOP_BLOCKED
        hot = does = blocking_line = None
        seen = _seen(evs)
        if seen is not None:
            stack = seen.stack
        if cause == "blocking-call":
            off = run - (cpu or 0.0) - queued
            tail = (f"{off:.3f} s of it was off the CPU "
                    f"{_blocking_story(profile, site, seen, len(evs))}")
        elif cause == "cpu":
            # said where it is a large part of the held time: the slice was then longer
            # because the machine was crowded, and the code alone held the loop less
            starved = (f", and {queued:.3f} s waiting for a CPU other processes held, "
                       "which lengthened it (see the cpu-starved finding, if any)"
                       if queued > RUNQUEUE_SHARE_NAMED * run else "")
            if collected > GC_SHARE_NAMED * run:
                starved = f", {collected:.3f} s of it garbage collection{starved}"
            inside = _inside_sections(evs, run)
            hot = hot_code(profile, _base_names(profile, evs))
            if hot is not None:
                stack = hot.stack
            where = hot.told() if hot else seen.told() if seen else None
            does = _what_it_does(profile, hot)
            grew = _growing(evs)
            # blocking calls among the CPU work (a commit per record) lead: no CPU cure
            # reaches them (an unseen ingest's sqlite commit per row held the loop
            # 2.5 s, 39 % off the CPU, and was told "CPU work": batching saved 62 %)
            partly, blocking_line = _partly_blocking(profile, run - (cpu or 0.0) - queued,
                                                     run)
            tail = (partly.strip() + " Beyond those calls: i" if partly else "I") + (
                    f"t was CPU work ({cpu:.3f} s of CPU{starved}){inside}; "
                    + (f"{where}; {_ended(site, len(evs))}" if where
                       else f"the slice ended at {site}")
                    + _on_a_timer(evs)
                    + (f". {grew[2]}" if grew else "")
                    + ". Fix: first make that code cheaper ("
                    + (does or
                       f"one line burning the CPU this long is often {SQUARE_WORK}")
                    + "); then split what must stay expensive and "
                    + YIELD_BETWEEN_PIECES + "; or move it to a process pool ("
                    "a C call that releases the GIL, such as hashlib's or zlib's, to "
                    "gevent.get_hub().threadpool)."
                    + _threads_story(_base_names(profile, evs)))
        else:
            tail = ((f"{seen.told(capital=True)}; {_ended(site, len(evs))}" if seen
                     else f"The slice ended at {site}")
                    + "; CPU and blocking cannot be told apart (cpu_clock=False): profile "
                    "with cpu_clock=True.")
        stack_is = STACK_CPU_SAMPLES if cause == "cpu" and hot is not None else \
            STACK_STALL_LOOK if seen is not None else STACK_SLICE_END
        iterated = _small_reads_site(hot, does)
        out.append(_finding(kind, f"{who} {held}{hurt_text}. {tail}", cost, stack,
            small_reads_site=iterated,
            stack_is=stack_is, greenlet=worst.get("greenlet"),
            section=worst.get("section"), count=len(evs), run_s=run, cpu_s=cpu,
            longest_s=longest, longest_wait_s=kept, threshold_s=threshold, cause=cause,
            blocking_s=None if cpu is None else max(0.0, run - cpu - queued),
            gc_s=collected, active_s=run, greenlets=len({e.get("greenlet") for e in evs}),
            backlog_s=backlog,
            **({"grew": [grew[0], grew[1]]} if cause == "cpu" and grew else {}),
            **({"blocking_line": blocking_line}
               if cause == "cpu" and blocking_line else {})))
    # one cause, one finding: the blocking calls a CPU finding told (a commit per row)
    # are not told again by the slices they made mostly off the CPU
    told = {f.extra["blocking_line"] for f in out if f.extra.get("blocking_line")}
    return [f for f in out if f.kind != BLOCKING_CALL or user_site(f.stack).user not in told]


# Slices over the block threshold that grew through the run: at least this many, the
# later half's mean at least GROWTH_RATIO times the earlier half's.  Work that grows
# with what the program keeps adding to: an unseen service's /metrics render held the
# loop 54 ms early in the run and 247 ms at its end, a series per raw URL path in its
# labels; told to cut the render into pieces (+2 %, its scrapes 2-3x slower), where a
# route template as the label gained 43 %.
GROWTH_MIN_SLICES = 6
GROWTH_RATIO = 1.5


def _growing(evs: list[dict[str, Any]]) -> tuple[float, float, str] | None:
    """(the earlier half's mean run, the later half's, a sentence) when the slices *evs*
    grew through the run (GROWTH_MIN_SLICES, GROWTH_RATIO); None otherwise."""
    timed = sorted((_f(e, "start_s"), _f(e, "run_s")) for e in evs)
    if len(timed) < GROWTH_MIN_SLICES:
        return None
    half = len(timed) // 2
    early = sum(run for _t, run in timed[:half]) / half
    late = sum(run for _t, run in timed[-half:]) / half
    if not early > 0 or late < GROWTH_RATIO * early:
        return None
    return early, late, (
        f"Those slices grew through the run: {early:.3f} s on average in its earlier "
        f"half, {late:.3f} s in its later: the work grows with something the program "
        "keeps adding to (a registry or cache that is never trimmed, a history, metric "
        "labels taking new values such as raw paths or ids, a series each); bound what "
        "grows, and the slices stop growing")


def _gc_pause(profile: Profile, evs: list[dict[str, Any]], who: str, hurt_text: str,
              cost: float, stack: list[str], worst: dict[str, Any], run: float,
              collected: float, longest: float, kept: float | None,
              threshold: float, backlog: float) -> Finding:
    """Long slices that were mostly the cyclic garbage collector (``gc-pause``): one
    finding for all of them, *run* seconds long, *collected* of it collecting."""
    generations = sorted({int(_f(e, "gc_generation")) for e in evs
                          if e.get("gc_generation") is not None})
    run_gc = profile.meta.get("gc")
    counts = profile.gc_collections()
    total = _f(run_gc, "total_s") if isinstance(run_gc, dict) else 0.0
    whole = (f" Over the whole run it collected {sum(counts)} times for {total:.3f} s"
             f" ({by_generation(counts)})." if counts and total else "")
    gens = ""
    if generations:
        gens = (f" (generation{'s' if len(generations) > 1 else ''} "
                f"{', '.join(str(g) for g in generations)}"
                + (f"; a generation {FULL_GENERATION} collection is a full one: it walks "
                   "every tracked object" if FULL_GENERATION in generations else "") + ")")
    short, share, queued = _short_gc_queueing(profile)
    besides = (f" Collections in slices under the threshold took {short:.3f} s more, "
               f"{share:.0%} of the loop's busy time: the queueing behind them, "
               f"{queued:.3f} greenlet-seconds by that share, is counted here too."
               if queued > 0 and round(share, 2) > 0 else "")  # (a 0% share says nothing)
    in_flight = _in_flight_fix(profile)
    # data in flight is made by the program's own code: where the greenlets' CPU went is
    # most likely where (a big document parsed whole); a start-up heap is not theirs
    hot = hot_code(profile, _base_names(profile, evs)) if in_flight else None
    # what that code does that has a cheaper way (a pure-Python parser: an unseen stock
    # refresher's minidom parse was told as gc-pause, and lxml saved 3.7x what
    # collecting less often did)
    does = _what_it_does(profile, hot)
    if hot is not None:
        stack = hot.stack
        cause = (f". {hot.told()} (collections fall due where most is allocated): most "
                 "likely the code that makes the objects it walks "
                 + ("-- it parses JSON, and every value of a document parsed whole is an "
                    "object the collector walks while the document is held -- "
                    if _parses_json(hot) else
                    "(a large document parsed whole, a big result built in memory), ")
                 + "whose CPU the collections add to."
                 + (f" The cheaper code comes first: {does}." if does and not _parses_json(hot)
                    else ""))
    else:
        cause = (": that code is not the cause, the number of long-lived objects the "
                 "collector walks is.")
    message = (
        f"The cyclic garbage collector held the loop: {len(evs)} slice(s) over "
        f"{threshold:g} s ({run:.3f} s in all, longest {longest:.3f} s) were "
        f"{collected:.3f} s of collection{gens}{hurt_text}.{besides} It ran inside {who}, "
        f"whichever allocated when a collection fell due{cause}{whole} "
        + (in_flight or STARTUP_FIX))
    return _finding(GC_PAUSE, message, cost + queued, stack,
                    stack_is=STACK_CPU_SAMPLES if hot is not None else STACK_SLICE_END,
                    greenlet=worst.get("greenlet"),
                    section=worst.get("section"), count=len(evs), run_s=run, gc_s=collected,
                    short_gc_s=short, short_gc_queued_s=queued,
                    generations=generations, longest_s=longest, longest_wait_s=kept,
                    threshold_s=threshold, active_s=run,
                    greenlets=len({e.get("greenlet") for e in evs}), backlog_s=backlog)


# Frames of a JSON decoder's Python side (json's and simplejson's decoders, requests'
# Response.json): a hot stack through them spent its CPU parsing a document, and the
# cheaper code is less of it to parse.
JSON_CHEAPER = ("it is parsing JSON: ask the upstream for less -- only the fields, the "
                "page or the summary this code uses -- rather than parsing a large "
                "document whole, or parse with a faster decoder (orjson, ujson)")


# Frames of a JSON encoder (json's and simplejson's, dumps and dump): when the greenlets'
# sampled CPU serialized more JSON than it parsed, the hot code's story is the dump, even
# where its heaviest single stack parsed (an encoder's recursion splits its samples over
# many stacks).  An unseen exporter's response hook built json.dumps(r.json(), indent=2,
# sort_keys=True) for a debug log at INFO level: 39 % of the CPU encoding, told "parsing
# JSON: a faster decoder" (ujson saved 6 %); the dump built only for DEBUG saved 50 %.
JSON_ENCODE = re.compile(r"[/\\](simple)?json[/\\](encoder\.py:|__init__\.py:\d+:dumps?$)")
JSON_ENCODE_CHEAPER = (
    "it serializes JSON (json.dumps) more than it parses it: with indent=, sort_keys= "
    "or a default= the standard library encodes in Python, several times slower than "
    "json.dumps(obj) alone or ujson/orjson; and a dump made for a log record is built "
    "even when the record is dropped (a debug dump at INFO level): build it only when it "
    "is logged (if log.isEnabledFor(logging.DEBUG): ...)")

# ... and when its heaviest stack encodes: the growth's story first, as a document
# saved whole after every change is the commonest cause (an unseen catalog indexer
# rewrote its whole state file with json.dumps after each of 600 records, 60 % of the
# CPU, and was given the generic menu; a journal of one line per record cut its run
# 5x), the encoder's for small dumps of their own.
JSON_DUMP_CHEAPER = (
    "it encodes JSON (json.dumps): if it dumps a whole document that grows over the run "
    "(a store or state saved after every change, a snapshot), each call's work grows with "
    "the document and the run's with its square: write what changed (append a line per "
    "record, a journal replayed at start) or save once per interval or batch, not per "
    "change; if each call dumps a small object of its own, a faster encoder (ujson, "
    "orjson) or dumps without indent= and sort_keys= is the cure")

# Frames of starting a child process (the standard library's subprocess or gevent's):
# the CPU went into forking, which copies the parent's memory map (page tables) in the
# parent's own thread, longer the larger the process: 600 sha256sum runs from a 400 MB
# process held a loop 72 % busy.
SPAWN_FRAME = re.compile(r"[/\\](gevent[/\\])?(subprocess|os)\.py:\d+:"
                         r"(Popen\._execute_child|fork_and_watch|fork)$")
# Frames of requests guessing a body's charset (Response.apparent_encoding, and the
# detectors it calls): the charset-detection finding's cause, seen in a CPU finding.
CHARSET_FRAME = re.compile(r"(:Response\.apparent_encoding|[/\\](charset_normalizer|"
                           r"chardet)[/\\].*)$")
CHARSET_CHEAPER = ("it guesses the body's charset: response.text on a response that "
                   "declared none runs detection over the whole body (the "
                   "charset-detection finding says how to skip it)")
# Frames of a document parser written in Python: the standard library's DOM (minidom,
# pulldom), html.parser, BeautifulSoup's builders on it.
PY_PARSER_FRAME = re.compile(r"[/\\](xml[/\\]dom[/\\]|html[/\\]parser\.py:|bs4[/\\])")
PY_PARSER_CHEAPER = ("it parses a document in pure Python (minidom's DOM, html.parser, "
                     "BeautifulSoup over it): a Python object per node, slow to build and "
                     "heavy for the collector; lxml parses in C, several times faster, into "
                     "fewer objects (lxml.etree.fromstring, lxml.html, or "
                     "BeautifulSoup(markup, 'lxml'))")
# The hot line's own text (frames.frame_source), where it says what the line does:
# a log call whose message is formatted before the call (EAGER_LOG_LINE, in common.py) ...
# ... a regular expression's method (the matching runs in C inside that line): one that
# can match the same text more than one way backtracks, its time growing with the
# square of the input or worse (an unseen intake service's re.sub(r"\s+$", ...) on
# long runs of whitespace: 39 % of the run; str.rstrip() took it away).
REGEX_LINE = re.compile(r"(?:\bre|\w)\.(sub|subn|match|search|fullmatch|findall|finditer)\(")
REGEX_CHEAPER = (
    "it runs a regular expression (its matching, in C, is this line's CPU): a pattern "
    "that can match the same text in more than one way (\\s+$ on a long run of "
    "spaces, (a+)+, .*x.*y) backtracks, taking time that grows with the square of the "
    "input or worse; use str methods where they do (rstrip, startswith, split, in), "
    "anchor the pattern or make its repeats exclusive, and bound the input's length")


# ... or a key derivation, slow on purpose (PBKDF2's iterations, scrypt's memory): a
# password check per login (an unseen gateway's, 35 % of its run, cured by the
# threadpool), an API key stretched again on every request (an unseen ingest API's,
# cured by keeping the verified key), or a signing key derived again for every request
# from a fixed secret (an unseen refunds client's: deriving it once cut the run 91 %,
# the threadpool 32 %).  The same inputs give the same key: keeping it comes first.
KDF_LINE = re.compile(r"\b(pbkdf2_hmac|scrypt|hashpw|checkpw|PasswordHasher|argon2)\b")
KDF_CHEAPER = (
    "it derives a key (PBKDF2, scrypt, bcrypt: slow on purpose, milliseconds of CPU "
    "each), and the same inputs give the same key: where it runs again and again for the "
    "same secret (a signing key derived per request from a fixed secret, an API key "
    "checked on every request), keep the result (the derived key, once per secret; the "
    "verified key's digest, for a while) rather than lowering the iterations, which "
    "removes the work; where each call is new (a login's password), hashlib's releases "
    "the interpreter lock while it works, so hand it to gevent.get_hub().threadpool "
    "(threadpool.apply(hashlib.pbkdf2_hmac, (...))) and the loop serves others "
    "meanwhile, as many at once as the machine has cores")


# ... or an unpickling (C, inside the line): a cache holding pickled values decodes the
# whole value on every hit (an unseen timeline cache's pickle.loads per hit of a
# 900-item document, 54 % of the CPU, got the generic cure; keeping the objects took
# 66 % off the run).
UNPICKLE_LINE = re.compile(r"\b(c?pickle|marshal)\.loads?\(")
UNPICKLE_CHEAPER = (
    "it unpickles on every call (pickle.loads builds every object of the value again): a "
    "cache that holds pickled values decodes the whole value on each hit; in one process, "
    "keep the objects themselves (treated as read-only, or copied only where changed), or "
    "cache the smaller piece a hit needs; across processes, decode once per process and "
    "keep the result")


# ... or a database query (a C driver's execute, sqlite3's, inside the line, or the
# fetch of its rows: sqlite3 runs a SELECT as its rows are fetched): the loop waits for
# the whole query (an unseen chat service's history SELECT without an index, 13 ms a
# call, 78 % of the CPU, got the generic cure; an index halved its run; an unseen
# scorer's scan, sampled at its fetchall(), got it too): DB_CALL_LINE tells it.
QUERY_CHEAPER = (
    "it runs a database query in the loop's thread (the driver's C code: the loop waits "
    "for the whole query): read its plan (EXPLAIN QUERY PLAN) and index the columns it "
    "filters and sorts on, fetch only the rows it needs, keep what repeats, or run it in "
    "gevent.get_hub().threadpool with a connection per thread")


def _line_does(hot: Any) -> str | None:
    """What the hot line's own source says it does (EAGER_LOG_CHEAPER; REGEX_CHEAPER,
    KDF_CHEAPER, UNPICKLE_CHEAPER or QUERY_CHEAPER when the heaviest stack's CPU ran in
    the line itself, i.e. in C beneath it); None when it says none of these or is not
    readable here."""
    # the whole statement: a call written over several lines is sampled at any of them
    # (an unseen scorer's sqlite query, sampled at its WHERE clause's line, was told the
    # generic cures, never its index)
    text = statement_source(hot.line)
    if eager_log(hot.line):
        return EAGER_LOG_CHEAPER
    if hot.stack[:1] != [hot.line]:  # the CPU ran in Python beneath the line
        return None
    return REGEX_CHEAPER if REGEX_LINE.search(text) else \
        KDF_CHEAPER if KDF_LINE.search(text) else \
        UNPICKLE_CHEAPER if UNPICKLE_LINE.search(text) else \
        QUERY_CHEAPER if DB_CALL_LINE.search(text) else None


# Library code a hot stack runs through that has a cheaper way, frame -> what it does
# and that way (four unseen programs' saturated loops got only the generic cure: a
# disabled debug log's eager pprint.pformat, strptime per row, a deepcopy per job, a
# request body read a byte at a time; their fixes cut the runs 2.8x, 1.9x, 7x, 4.8x).
CHEAPER_WAYS = (
    (re.compile(r"[/\\]pprint\.py:"),
     "it pretty-prints an object (pprint.pformat: Python code walking every element); "
     "for a log record, pass the object as an argument (log.debug('%s', obj)) or check "
     "log.isEnabledFor(logging.DEBUG) first, so it is formatted only when the record is "
     "emitted"),
    (re.compile(r"[/\\]_strptime\.py:"),
     "it parses dates with datetime.strptime (Python code, slow per call): "
     "datetime.fromisoformat (C) parses ISO 8601 several times faster; for another fixed "
     "layout, slice the fields and build the datetime from them"),
    # gzip's own default level is 9, the slowest (an unseen gateway gzipped every JSON
    # response at 9: level 6 cut its run 31 %, zlib in the threadpool 9 %); the same
    # bytes compressed again and again first (an unseen log shipper compressed its whole
    # growing batch after every record to check its size, at level 6: the "default level"
    # advice gained 43 %, compressing each record once 62 %)
    (re.compile(r"[/\\]gzip\.py:\d+:(compress|GzipFile\.write)$"),
     "it compresses with gzip: compress each byte once (a size check that compresses a "
     "whole growing batch after every record compresses the same bytes again and again: "
     "feed a zlib.compressobj as records come, or bound the batch by its raw size; where "
     "many get a body, compress it once) and leave small bodies uncompressed; gzip's "
     "default level (9) is its slowest, and level 6 or lower "
     "(gzip.compress(data, compresslevel=6), or 1 for bodies sent once) costs a fraction "
     "of the CPU for output a few percent larger"),
    # a class made per call: namedtuple() compiles one each time, and every class is a
    # graph of objects the collector walks (an unseen DB driver's row decoder made a
    # namedtuple class per row: 97 % of the CPU, told as a comprehension and a GC pause;
    # made once, the run took 65 % less).  Before the comprehensions: it runs inside one.
    (re.compile(r"[/\\]collections[/\\]__init__\.py:\d+:namedtuple$|"
                r"[/\\]dataclasses\.py:\d+:make_dataclass$"),
     "it makes a class on every call (collections.namedtuple or make_dataclass compiles "
     "a new one each time, and each class is a graph of objects the garbage collector "
     "walks): make the class once, at import or cached per set of field names, and only "
     "build instances per call"),
    # a dict or set built by comprehension on the hot stack: most often a lookup rebuilt
    # from the same table on every call (an unseen indexer's enricher built a dict of
    # 2 500 categories per product: 95 % of the CPU; built once, the run took 3.8x
    # less).  Python 3.12 inlines comprehensions (PEP 709): no frame of their own there.
    (re.compile(r":\d+:[\w.<>]*<(dictcomp|setcomp)>$"),
     "builds a dict or set by comprehension on every call: when what it reads is the "
     "same from call to call (a table, a configuration, an index of something loaded "
     "once), build it once and keep it -- at load, or cached per version of its input -- "
     "and only look it up per call"),
    # ... a list by comprehension: most often a collection filtered and copied whole on
    # every call (an unseen rate limiter rebuilt its sliding window's timestamps,
    # [t for t in events if t > cutoff], on each request: 52 % of the CPU, told the
    # generic menu; a deque popped from the left gained 2.7x)
    (re.compile(r":\d+:[\w.<>]*<listcomp>$"),
     "builds a list by comprehension on every call: when it filters a collection that "
     "grows (a sliding window's timestamps, a history, a queue of pending items), each "
     "call copies all of it and the run's work grows with its square -- keep the "
     "collection trimmed in place instead (a collections.deque, expired entries popped "
     "from the left) or keep a running count; when what it reads is the same from call "
     "to call, build it once and keep it"),
    # the statistics module computes exactly, with fractions: a mean or deviation over a
    # window recomputed per reading costs Python-level arithmetic per element (an unseen
    # gateway's z-score per device reading, pstdev over its window: 85 % of the CPU,
    # told the generic menu)
    (re.compile(r"[/\\]statistics\.py:"),
     "it computes statistics with the statistics module (exact arithmetic with "
     "fractions, Python code per element): over a window recomputed for each new value, "
     "keep running sums instead (count, sum and sum of squares, or Welford's update, "
     "adjusted as values enter and leave), or use math.fsum / statistics.fmean on "
     "floats, or numpy for large arrays"),
    (re.compile(r"[/\\]copy\.py:\d+:deepcopy$"),
     "it deep-copies an object (copy.deepcopy: Python code visiting every element): "
     "copy only the part that changes, or share the object read-only"),
    (re.compile(r"[/\\]gevent[/\\]pywsgi\.py:\d+:Input\.(read|readline|_do_read|"
                r"_do_readline)$"),
     "it reads the request's body in small pieces through pywsgi's Input (each a trip "
     "through gevent's reader): read it whole (environ['wsgi.input'].read()) or in large "
     "pieces (read(64 * 1024))"),
    # a constructor of a connection or client on the hot stack: one built per call pays
    # its set-up each time (an unseen service opened a database connection per request,
    # its login's PBKDF2 46 % of the CPU, and was told to hand hashlib to the
    # threadpool, which gained nothing; a pool of connections cut the run 2.3x)
    (re.compile(r":\d+:\w*(Connection|Client|Session|Channel|Engine)\w*\.__init__$"),
     "it builds a connection or client for each call (its constructor is on the hot "
     "stack), and each new one pays its set-up again: the connect, a TLS handshake, a "
     "login and its key derivation; build them once and reuse them (a pool of "
     "connections as large as the greenlets that use them at once, or one client for "
     "the process)"),
)
ITERATE_CHEAPER = ("it iterates a response body in small pieces: each piece is a trip "
                   "through requests, urllib3 and http.client, and iter_content()'s "
                   "chunk_size is one byte unless given (iter_lines' 512); ask for large "
                   "pieces (iter_content(chunk_size=512 * 1024), iter_lines(chunk_size="
                   "512 * 1024)); a stream reader over response.raw (codecs.getreader) "
                   "reads a few hundred bytes at a time: give it a buffer "
                   "(io.BufferedReader(response.raw, 512 * 1024)), or read the body whole "
                   "and split it")
SPAWN_CHEAPER = ("it starts a child process per call: each fork copies this process's "
                 "memory map in the loop's thread, the longer the larger the process; "
                 "do the work in-process (hashlib rather than sha256sum), or keep one "
                 "long-lived helper process and talk to it over a pipe")

def task_work(event: dict[str, Any]) -> float:
    """The work a threadpool event's finished tasks did: their CPU in their worker
    threads where recorded (a crowded machine stretches their run, not their CPU: a
    run of tiny tasks under CI load read as 100 us each), else their run."""
    cpu = _f(event, "cpu_s")
    return cpu if math.isfinite(cpu) and cpu > 0 else _f(event, "run_s")


# A threadpool task of at most this much work on average (its worker's run time) ...
TINY_TASK_S = 100e-6
# ... handed over at least this many times from the hot line: the hand-off is the work
# (an unseen parser sent each of 300 000 NDJSON lines' json.loads to the threadpool:
# 4 us of work, 256 us waited for each result; inline, the run took 8x less).
TINY_TASKS_MIN = 1000
TINY_TASKS_CHEAPER = (
    "it hands tiny tasks to a threadpool: {tasks} {function} tasks from this line did "
    "{work:.0f} us of work each on average, while their callers waited {waited:.0f} us "
    "for each result: each hand-off (a queue, a worker thread's wake-up, the loop's "
    "wake-up for the result) costs the loop far more than the work, so the threadpool "
    "is the cost here, not the cure; call {function} inline, or hand over whole batches "
    "(a body, not its lines)")

# ... when the tiny tasks are name lookups (gevent's threaded resolver), made by
# connecting: a connection opened per call, with whatever handshake the protocol adds
# (an unseen audit shipper connected and logged in to its broker per event: the
# lookups inline gained 17 %, one session per greenlet 66 %).
CONNECTS_PER_CALL = (
    "it opens a new connection per call: {tasks} name lookups ({function}, sent to the "
    "threadpool by gevent's resolver) from this line did {work:.0f} us of work each on "
    "average, while their callers waited {waited:.0f} us for each result, and each was "
    "followed by a connect and whatever the protocol does on a new connection (a "
    "handshake, a login); keep connections open and reuse them (one per greenlet, or a "
    "pool), and the lookups, connects and handshakes go; only where a connection per "
    "call must stay, connect to an address, not a name (or GEVENT_RESOLVER=block: "
    "lookups inline)")


def tiny_tasks_done(event: dict[str, Any]) -> float:
    """The tasks a threadpool event's function finished when they were many and tiny
    (TINY_TASKS_MIN of them, at most TINY_TASK_S of work each on average, by
    task_work), else 0.  Per task that finished: those still queued at a snapshot ran
    nothing yet."""
    done = _f(event, "finished", _f(event, "tasks"))
    return done if done >= TINY_TASKS_MIN and task_work(event) <= TINY_TASK_S * done \
        else 0.0


def _tiny_tasks(profile: Profile, hot: Any) -> str | None:
    """TINY_TASKS_CHEAPER for the threadpool's tasks sent from the hot code's line, when
    they were many and tiny; None otherwise."""
    if hot is None:
        return None
    for e in _events(profile, "threadpool"):
        done, sites = tiny_tasks_done(e), e.get("sites")
        if not done or not isinstance(sites, list) \
                or not any(isinstance(site, list) and site and site[0] == hot.line
                           for site in sites):
            continue
        template = CONNECTS_PER_CALL if e.get("dns") else TINY_TASKS_CHEAPER
        return template.format(
            tasks=f"{done:.0f}", function=str(e.get("function") or "the"),
            work=task_work(e) / done * 1e6, waited=_f(e, "result_s") / done * 1e6)
    return None


def _serializes_json(profile: Profile, hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack parsed JSON while the greenlets'
    sampled CPU encoded more JSON than it decoded (JSON_ENCODE).  A heaviest stack that
    encodes is left to the generic cure: a dump of a document that keeps growing (an
    unseen dashboard's) is the growth's story, not the encoder's."""
    if not _parses_json(hot):
        return False
    encoded, _total = _sampled_cpu(profile, lambda label: JSON_ENCODE.search(label) is not None)
    decoded, _total = _sampled_cpu(profile, lambda label: JSON_DECODE.search(label) is not None)
    return encoded > decoded


def _parses_json(hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack (cpuhot.HotCode) ran a JSON
    decoder (its own work, not a hook of the program's it calls: _json_hook)."""
    return hot is not None and any(JSON_DECODE.search(f) for f in hot.stack) \
        and not _json_hook(hot)


def _json_hook(hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack is the program's own code called
    by a JSON decoder: a hook (object_hook, object_pairs_hook, parse_float)."""
    stack = hot.stack if hot is not None else []
    return len(stack) > 1 and not is_library_frame(stack[0]) \
        and JSON_DECODE.search(stack[1]) is not None


# Frames of a parser reading a file (json.load and simplejson's, YAML's load and
# safe_load, tomllib's load, configparser's read): a hot stack through them parsed a
# file on the loop, most often the same one on every call.  An unseen catalog service
# re-read its feature-flag file three times per request "to pick up flips without
# restart": 48 % of the CPU, told "ask the upstream for less, or ujson" (+8 %); parsed
# once and re-read when its mtime changed, +211 %.
FILE_PARSE_FRAME = re.compile(r"[/\\]((simple)?json[/\\]__init__\.py:\d+:load|yaml[/\\]__init__\.py:"
                              r"\d+:(safe_|full_|unsafe_)?load|tomllib[/\\]_parser\.py:\d+:load|"
                              r"configparser\.py:\d+:RawConfigParser\.read)$")
FILE_PARSE_CHEAPER = (
    "it parses a file (json.load, yaml's load, tomllib.load, configparser's read): "
    "when it is the same file from call to call (a configuration, feature flags, a "
    "lookup table), parse it once and keep the result, re-reading it only when it "
    "changed (its os.stat().st_mtime_ns checked at most once a second, or on a TTL) -- "
    "or have whoever writes it signal the change")


# The cure when the hot code is a hook the decoder calls per object: an unseen order
# sync tried fromisoformat on every string in an object_hook (59 % of the CPU) and was
# told to use a faster decoder, which takes no hook (ujson: a TypeError).
JSON_HOOK_CHEAPER = (
    "it is a hook json.loads calls for every object it decodes (object_hook, "
    "object_pairs_hook, parse_float): its Python runs once per object; convert only "
    "the fields known to need it, by key, after the parse (faster decoders such as "
    "ujson and orjson take no hooks)")


# Response.json() parsing the bodies read through urllib3 at under this many bytes per
# second of its CPU parsed the same bodies again and again: C decoders parse over 100
# MB/s, Python's own about 10.  An unseen report's property decoded each invoice's JSON
# at every access: 3.6 s of CPU for 2.3 MB of bodies (0.64 MB/s), told "ask for less or
# a faster decoder" (ujson saved 30 %); parsed once per document, 63 %.
REPARSE_BYTES_PER_S = 1e6
# requests' Response.json frame: beneath it, the JSON parsed is a response's body.
RESPONSE_JSON = re.compile(r"[/\\]requests[/\\]models\.py:\d+:Response\.json$")


def _json_cheaper(profile: Profile) -> str:
    """JSON_CHEAPER, led by the re-parse story when Response.json() parsed the bodies
    read through urllib3 (``body-reads`` events) at under REPARSE_BYTES_PER_S."""
    nbytes = sum(_f(e, "bytes") for e in _events(profile, "body-reads"))
    if nbytes <= 0:
        return JSON_CHEAPER
    parsing, _total = _sampled_cpu(profile, lambda label: RESPONSE_JSON.search(label)
                                   is not None)
    if parsing <= 0 or nbytes / parsing >= REPARSE_BYTES_PER_S:
        return JSON_CHEAPER
    return (f"it is parsing the same JSON again and again: Response.json() took "
            f"{parsing:.3f} s of CPU for the {nbytes / 1e6:.1f} MB of bodies read "
            f"({nbytes / parsing / 1e6:.2f} MB/s, where a C decoder parses over 100): a "
            "property or helper that calls response.json() at every access parses the "
            "body anew each time -- parse each response once and keep the object")


# Slices of one job that end in gevent.sleep, at least this many: a job on a timer,
# told SKIP_UNCHANGED before the CPU cures (the unseen search service's refresher was
# told to make the code cheaper or split it).
TIMER_SLICES = 3


def _on_a_timer(evs: list[dict[str, Any]]) -> str:
    """loop-blocked's sentence when at least TIMER_SLICES of its slices ended in
    gevent.sleep: periodic work, whose first cure is to skip a tick with nothing new."""
    ticks = sum(1 for e in evs if isinstance(e.get("stack"), list) and e["stack"]
                and SLEEP_FRAME.search(str(e["stack"][0]).replace("\\", "/")))
    if ticks < TIMER_SLICES:
        return ""
    return (f"; {ticks} of them ended in gevent.sleep: a job on a timer, which redoes its "
            f"work at each tick -- {SKIP_UNCHANGED} or update incrementally, before "
            "anything below")


def _what_it_does(profile: Profile, hot: Any) -> str | None:
    """What the hot code's heaviest sampled stack shows it doing that has a cheaper
    way (CHARSET_CHEAPER, FILE_PARSE_CHEAPER, JSON_CHEAPER, JSON_DUMP_CHEAPER,
    PY_PARSER_CHEAPER, CHEAPER_WAYS's, ITERATE_CHEAPER, SPAWN_CHEAPER), else None."""
    if hot is None:
        return None
    known = next((cheaper for frame, cheaper in CHEAPER_WAYS
                  if any(frame.search(f) for f in hot.stack)), None)
    does = _line_does(hot) or (
        CHARSET_CHEAPER if any(CHARSET_FRAME.search(f) for f in hot.stack) else
        JSON_HOOK_CHEAPER if _json_hook(hot) else
        FILE_PARSE_CHEAPER if any(FILE_PARSE_FRAME.search(f) for f in hot.stack) else
        JSON_ENCODE_CHEAPER if _serializes_json(profile, hot) else
        _json_cheaper(profile) if _parses_json(hot) else
        JSON_DUMP_CHEAPER if any(JSON_ENCODE.search(f) for f in hot.stack) else
        PY_PARSER_CHEAPER if any(PY_PARSER_FRAME.search(f) for f in hot.stack) else
        known if known is not None else
        ITERATE_CHEAPER if iterated_in_small_pieces(hot.stack,
                                                    caller_small_read_sites(profile))
        else SPAWN_CHEAPER if any(SPAWN_FRAME.search(f) for f in hot.stack) else None)
    if hot.iterated is None or does is ITERATE_CHEAPER:
        return does
    # the function's other heavy line reads the body it works on in small pieces (an
    # unseen NDJSON reader: json.loads at one line, iter_lines(chunk_size=512) at the
    # one before it, about half the CPU each)
    line, share = hot.iterated
    pieces = (f"line {parse_frame(line).line} ({share:.0%} of that function's CPU): "
              f"{ITERATE_CHEAPER}")
    return f"{does}; and {pieces}" if does else pieces


def _small_reads_site(hot: Any, does: str | None) -> str | None:
    """The line a CPU finding tells as iterating a body in small pieces (its
    ``small_reads_site``: the small-body-reads finding of that line is then dropped)."""
    if hot is None:
        return None
    if does is ITERATE_CHEAPER:
        return hot.line
    return hot.iterated[0] if hot.iterated is not None and does else None


# gc-pause's fix when the heap the collector walks was built at start-up (or the profile
# cannot tell): freeze it.
STARTUP_FIX = (
    "Fix: call gc.freeze() once start-up has built its long-lived objects (caches, parsed "
    "configuration, imported modules; in a pre-fork server, before forking): later "
    "collections skip them. Or collect less often (gc.set_threshold with a larger first "
    "threshold), or keep big caches out of the collector's sight (fewer, larger objects: "
    "bytes or arrays rather than dicts and lists).")
# ... and when it grew during the run (the evidence filled in): data in flight, which
# gc.freeze() at start-up cannot reach.
IN_FLIGHT_FIX = (
    "The objects it walks were made during the run, not at start-up: {evidence}, which "
    "gc.freeze() at start-up cannot reach. Fix: hold fewer of them at once (fewer big "
    "documents in flight together, keep only what you need of each and drop the rest), or "
    "collect less often (gc.set_threshold with larger thresholds).")
# The evidence: the heap's size (pymalloc's allocated blocks, trace/gcwatch.py) when
# start-up ended and at most when a full collection began.  A heap built at start-up
# stays about its size (1.01x in tests/diagnosis/gc_pauses.py), one that data in flight
# fills grows (46x in tests/diagnosis/gc_in_flight.py; 2.8x with ten 2 MB JSON documents
# in flight, /tmp/wl4/tracer_api_json.py, 2026-11-24).  From twice its size on, most of
# what the collector walks was made during the run: freezing the start-up heap would
# spare it less than half.
HEAP_GROWTH = 2.0
HEAP_EVIDENCE = ("the heap held {start:,} memory blocks when start-up ended (the program's "
                 "first yield to the loop) and up to {full:,} when full collections began, as "
                 "data in flight (parsed documents, request state) piled up")
# Without heap figures (older profiles): the long full collections grew during the run
# when the first of them took less than this share of the longest: a heap built at
# start-up is walked whole by every full collection from the first (0.21 s each in
# /tmp/wl/gcpause.py, 0.08 s in tests/diagnosis/gc_pauses.py, the start-up's own as long
# or longer), while documents parsed during the run make them grow as they pile up
# (0.02 -> 0.15 s in /tmp/wl2/bigjson.py, 0.05 -> 0.14 s in tests/diagnosis/gc_in_flight.py).
# A steady number of documents in flight keeps them level: the heap figures tell that.
STARTUP_GC_SHARE = 0.5
DURATION_EVIDENCE = ("its first long full collection took {first:.3f} s and its longest "
                     "{longest:.3f} s, as data in flight (parsed documents, request state) "
                     "piled up")


def _in_flight_fix(profile: Profile) -> str | None:
    """IN_FLIGHT_FIX when the heap the full collections walked grew during the run: by
    the heap's size (HEAP_GROWTH), or in profiles without it, by the long slices' full
    collections (the first under STARTUP_GC_SHARE of the longest); None when it did not,
    or when the profile cannot tell."""
    run_gc = profile.meta.get("gc")
    heap = run_gc if isinstance(run_gc, dict) else {}
    start, full = heap.get("start_up_blocks"), heap.get("full_blocks_max")
    if all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (start, full)):
        if full < HEAP_GROWTH * start:
            return None
        return IN_FLIGHT_FIX.format(evidence=HEAP_EVIDENCE.format(start=start, full=full))
    full_slices = sorted((e for e in _events(profile, "blocked-slice")
                          if e.get("gc_generation") == FULL_GENERATION and _f(e, "gc_s") > 0),
                         key=lambda e: _f(e, "start_s"))
    if len(full_slices) < 2:
        return None
    first, longest = _f(full_slices[0], "gc_s"), max(_f(e, "gc_s") for e in full_slices)
    if first >= STARTUP_GC_SHARE * longest:
        return None
    return IN_FLIGHT_FIX.format(evidence=DURATION_EVIDENCE.format(first=first, longest=longest))


def _short_gc_queueing(profile: Profile) -> tuple[float, float, float]:
    """The collector's time outside the long slices: (its seconds, their share of the
    loop's busy time, the others' ready wait that share accounts for -- the run's ready
    wait less what the long slices delayed, times the share).  A collector that runs
    half the loop's busy time in slices too short to report one by one made half its
    queueing; loop-saturated would otherwise tell it as the program's work.  Zeros when
    the profile lacks the run's collection time or the loop's utilization."""
    run_gc = profile.meta.get("gc")
    total = _f(run_gc, "total_s") if isinstance(run_gc, dict) else 0.0
    slices = _events(profile, "blocked-slice")
    short = max(0.0, total - sum(_f(e, "gc_s") for e in slices))
    util = profile.hub.get("utilization")
    busy = util * profile.duration_s if isinstance(util, (int, float)) else 0.0
    if short <= 0 or busy <= 0:
        return 0.0, 0.0, 0.0
    share = min(1.0, short / busy)
    ready = sum(g.ready_wait_s or 0.0 for g in _workers(profile))
    held = sum(_f(e, "delayed_others_s") for e in slices) + backlog_after(profile, slices,
                                                                         slices)
    return short, share, share * max(0.0, ready - held)


def loop_held(profile: Profile) -> list[Finding]:
    """Greenlets of one name whose run slices under the block threshold were long
    beside everyone else's and made them the main cause of others' queueing (a hasher
    working in 20 ms chunks among request handlers): ``loop-held``.  Their slices over
    the threshold are loop-blocked's (or blocking-call's) and left out here; nothing is
    reported when the loop was saturated (that finding names its holders)."""
    if loop_saturated(profile):
        return []
    threshold = block_threshold(profile)
    hub = profile.hub.get("id")
    groups: dict[str, list[Any]] = defaultdict(list)
    for g in profile.greenlets:
        if g.id != hub and g.delayed_others_s is not None:
            groups[_base_name(g.name)].append(g)
    delayed_all = sum(g.delayed_others_s or 0.0 for gs in groups.values() for g in gs)
    run_all = sum(g.run_s for gs in groups.values() for g in gs)
    ready_all = sum(g.ready_wait_s or 0.0 for gs in groups.values() for g in gs)
    slices_all = sum(g.switches for gs in groups.values() for g in gs)
    long_slices: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for ev in _events(profile, "blocked-slice"):
        gid = ev.get("greenlet")
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        # (an executor's 10 ms hashes, stretched to 55 ms by two CPU hogs, were neither
        # loop-blocked's nor this finding's: nothing told the loop's CPU)
        if g is not None and not _stretched_by_starving(ev, threshold):
            acc = long_slices[_base_name(g.name)]
            acc[0] += 1
            acc[1] += _f(ev, "run_s")
            acc[2] += _f(ev, "delayed_others_s")
    out = []
    for name, gs in groups.items():
        n_long, run_long, delayed_long = long_slices.get(name, (0, 0.0, 0.0))
        own_slices, own_run = sum(g.switches for g in gs), sum(g.run_s for g in gs)
        slices, run = own_slices - n_long, own_run - run_long
        # what it delayed greenlets of other names, at most: peers that queue behind
        # each other are a busy loop's story (loop-saturated), not one holder's
        delayed = min(sum(g.delayed_others_s or 0.0 for g in gs) - delayed_long,
                      ready_all - sum(g.ready_wait_s or 0.0 for g in gs))
        others_slices = slices_all - own_slices
        if slices <= 0 or not others_slices or delayed < threshold \
                or delayed < HELD_SHARE * delayed_all:
            continue
        mean, others_mean = run / slices, (run_all - own_run) / others_slices
        gids = {g.id for g in gs}
        yields, in_a_row = _in_a_row(profile, gids, slices)
        held_for = mean * in_a_row
        if held_for < HELD_MIN_SLICE_S or held_for < HELD_SLICE_RATIO * others_mean:
            continue
        chained = in_a_row >= 2
        cpu = None if any(g.cpu_s is None for g in gs) else sum(g.cpu_s or 0.0 for g in gs)
        stack = ended = _most_delaying_stack(profile, gids)
        site = (user_site(stack).user or stack[0]) if stack else "an unrecorded place"
        total_run = run + run_long
        hot = seen = None
        if cpu is None:
            what = (f"CPU and blocking cannot be told apart (cpu_clock=False); the slices "
                    f"that delayed most ended at {site}.")
        elif cpu >= (1 - BLOCKING_SHARE) * total_run * (1.0 - _starved_share(profile)):
            # (the running it had a CPU for: a crowded machine's wait for one is neither)
            hot = hot_code(profile, {name})
            if hot is not None:
                stack = hot.stack
            # the sections others queued behind (over the run: sections are not kept
            # per greenlet), when they weigh against what these slices delayed
            inside = "".join(f"; inside section '{sec.name}' ({sec.delayed_others_s:.3f} "
                             "greenlet-s of others' waiting over the run)"
                             for sec in _delaying_sections(profile)
                             if sec.delayed_others_s >= SECTION_SHARE_NAMED * delayed)
            # what the hot code does, where it has a cheaper way: that first (an unseen
            # gateway's deepcopy of a large template per request, one slice each, was
            # told to cut it into pieces, which one deepcopy call cannot be)
            does = _what_it_does(profile, hot)
            what = (f"It was CPU work ({cpu:.3f} s of CPU in {total_run:.3f} s of running)"
                    f"{inside}; "
                    + (f"{hot.told()}; " if hot else "")
                    + f"the slices that delayed most ended at {site}. "
                    + (f"First, what the code does has a cheaper way: {does}. " if does
                       else "")
                    + (SLEEP0_FIX if chained else
                       TICKER_FIX if ended and SLEEP_FRAME.search(ended[0].replace("\\", "/"))
                       else f"Fix: smaller pieces of the work, and {YIELD_BETWEEN_PIECES}; "
                       "or move the work out of the loop (gevent.get_hub().threadpool for "
                       "C code that releases the GIL, a process pool for Python code).")
                    + _threads_story({name}))
        else:
            seen = _seen_short(profile)  # where the slices blocked, if the watch looked
            if seen is not None:
                stack = seen.stack
            what = (f"It was mostly off the CPU ({cpu:.3f} s of CPU in {total_run:.3f} s of "
                    f"running), {_blocking_story(profile, site, seen, 2)}"
                    + _threads_story({name}))
        longer = (
            f"{_sleep0_told(yields, in_a_row, mean)}, {held_for / others_mean:.0f}x the "
            f"other greenlets' {others_mean * 1e3:.2f} ms slices)" if chained else
            f"each under the {threshold:g} s block threshold but "
            f"{mean / others_mean:.0f}x the other greenlets' {others_mean * 1e3:.2f} ms")
        message = (
            f"{_names(profile, [g.id for g in gs])} held the loop in {slices} slices of "
            f"{mean * 1e3:.1f} ms on average, {longer}: other greenlets waited {delayed:.3f} "
            "greenlet-seconds ready to run while they ran, "
            f"{delayed / delayed_all:.0%} of all such waiting"
            + (f" ({n_long} longer slices are left to the loop-blocked finding)"
               if n_long else "")
            + f". {what}")
        out.append(_finding(LOOP_HELD, message, delayed, stack, greenlet=min(gids),
                            stack_is=STACK_CPU_SAMPLES if hot else
                            STACK_STALL_LOOK if seen else STACK_SLICE_END,
                            slices=slices, run_s=run, cpu_s=cpu, mean_slice_s=mean,
                            others_mean_slice_s=others_mean, longer_slices=n_long,
                            zero_sleeps=yields, slices_in_a_row=in_a_row,
                            delayed_others_s=delayed, share=delayed / delayed_all,
                            greenlets=len(gs)))
    return out


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


def _in_a_row(profile: Profile, gids: set[int], slices: int) -> tuple[int, float]:
    """(the yields with gevent.sleep(0) of greenlets *gids*, at most *slices* - 1; how
    many of their *slices* ran back to back as greenlets waiting for I/O saw them: one,
    or up to CALLBACKS_BEFORE_POLL where they yielded with sleep(0) between them)."""
    yields = max(0, min(_zero_sleeps(profile, gids), slices - 1))
    return yields, min(float(CALLBACKS_BEFORE_POLL), slices / max(1, slices - yields))


def _sleep0_told(yields: int, in_a_row: float, mean: float) -> str:
    """How slices of *mean* seconds that yielded with gevent.sleep(0) between them held
    greenlets waiting for I/O: the middle of a sentence, ending inside a parenthesis."""
    return (f"yielding with gevent.sleep(0) between most of them ({yields} times): gevent "
            "runs its queued callbacks, such a yield's wake-up among them, "
            f"{CALLBACKS_BEFORE_POLL} at a time until its switch interval (5 ms by default) "
            "has passed before it polls for I/O, so greenlets waiting for I/O waited "
            f"through about {in_a_row:.0f} of these slices in a row "
            f"({mean * in_a_row * 1e3:.0f} ms")


def _zero_sleeps(profile: Profile, gids: set[int]) -> int:
    """How many times greenlets *gids* yielded with gevent.sleep(0): a sleep at a stack
    they ran from that never waited for a timer (ready at once)."""
    theirs = {tuple(r.stack) for r in profile.runs if r.greenlet in gids}
    return sum(w.count for w in profile.waits
               if w.stack and tuple(w.stack) in theirs and w.event_wait_s == 0.0
               and SLEEP_FRAME.search(w.stack[0].replace("\\", "/")))


def _workers(profile: Profile) -> list[Any]:
    """Greenlets with the wait split, the hub left out (its waits are the loop's)."""
    return [g for g in profile.greenlets if g.id != profile.hub.get("id")
            and g.ready_wait_s is not None and g.event_wait_s is not None]


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


def _starved_share(profile: Profile) -> float:
    """Share of the loop's busy time the traced thread waited for a CPU; 0 unknown."""
    util, wait = profile.hub.get("utilization"), profile.hub.get("cpu_wait_s")
    busy = util * profile.duration_s if util is not None else 0.0
    if wait is None or busy <= 0:
        return 0.0
    return min(1.0, float(wait) / busy)


# cpu-starved's competitors are the program's own when its other threads and child
# processes used at least this share of the run in CPU (a quarter of a core): a local
# server it started, a subprocess per call, a thread re-sorting a list every 50 ms.
OWN_COMPETITOR_SHARE = 0.25


def cpu_starved(profile: Profile) -> list[Finding]:
    """The traced thread was ready to run but waited for a CPU for a large share of the
    loop's busy time: other processes, or a CPU limit (a container's quota) throttling
    the process.  Its greenlets queued meanwhile whatever the code did, so the cure is
    on the machine; loop-saturated leaves this share out."""
    share = _starved_share(profile)
    wait = _f(profile.hub, "cpu_wait_s")
    if share < STARVED_SHARE or wait < STARVED_RUN_SHARE * profile.duration_s:
        return []
    threshold = block_threshold(profile)
    queued = share * sum(g.ready_wait_s or 0.0 for g in _workers(profile))
    cost = max(queued, wait)  # a lone greenlet queues for nobody, yet waited itself
    if cost < threshold:
        return []
    busy = _f(profile.hub, "utilization") * profile.duration_s
    threads, children = _own_competitors(profile)
    own = threads + children
    spawned = None
    if own >= OWN_COMPETITOR_SHARE * profile.duration_s and _own_fill(profile, own, wait):
        parts = [f"other threads used {threads:.3f} s of CPU" if threads else "",
                 f"child processes{'' if threads else ' used'} {children:.3f} s (a local "
                 "server it started, a subprocess per call)" if children else ""]
        held_by = ("its own process's other threads and children, besides any other "
                   "programs, held it off the CPU")
        spawned = _spawned_at(profile) if children >= threads else None
        cure = (
            f" Over the {profile.duration_s:.3f} s run "
            f"this process's {' and its '.join(p for p in parts if p)}, competitors of "
            "its own for the machine's cores"
            + (" (and threads running Python hold the interpreter lock the loop needs)"
               if threads else "")
            + (f". The children were started at {spawned[0]} (its greenlets waited "
               f"{spawned[1]:.3f} s there on child processes): {SPAWN_PER_CALL}"
               if spawned else "")
            + ". Cure those in the program first: less work in them, or run them "
            "elsewhere (another host, a CPU-limited process); then give the process the "
            "CPU its load needs.")
    else:
        held_by = ("other processes on the machine or a CPU limit (a container's CPU quota "
                   "throttling the process) held it off the CPU")
        cure = (" The cure is on the machine, not in the code: give the process the CPU "
                "its load needs (a higher CPU limit or request, fewer worker processes than "
                "cores; a throttled container shows nr_throttled in its cgroup's "
                "cpu.stat), or run it on a less crowded host.")
    message = (
        f"The traced thread waited {wait:.3f} s for a CPU, "
        + (f"{share:.0%} of the {busy:.3f} s the loop was busy" if wait <= busy else
           f"more than the {busy:.3f} s the loop was busy (its wake-ups from the poll "
           "waited for one too)")
        + f": it was ready to run, but {held_by}, and its greenlets queued {queued:.3f} "
        f"greenlet-seconds meanwhile.{cure} "
        "Until then every ready wait in this profile includes this wait.")
    extra = {}
    if spawned:
        # the waits on the children started per call are that cause's too
        cost += spawned[1]
        extra = {"spawned_at": spawned[0], "spawned_wait_s": spawned[1],
                 "cost_meaning": COST_MEANING[CPU_STARVED] + SPAWNED_COST}
    return [_finding(CPU_STARVED, message, cost, [], cpu_wait_s=wait, starved_share=share,
                     busy_s=busy, others_ready_wait_s=queued, own_threads_cpu_s=threads,
                     children_cpu_s=children, **extra)]


SPAWNED_COST = ", plus the greenlet-seconds spent waiting on the child processes started there"


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


# A child process's frames in a wait's stack (gevent's or the standard library's
# subprocess module: run, communicate, wait, the exec check of a new child).
SUBPROCESS_FRAME = re.compile(r"[/\\]subprocess\.py:\d+:")
# Where the program's greenlets waited on child processes at one line of theirs for at
# least this share of the run, in at least SPAWN_MIN_WAITS waits, the children are that
# line's: a process started per call (a child waited on a few times at one line, however
# long, is one process: an unseen service's main ran its load generator that way and
# was told "a process started per call").
SPAWN_WAIT_SHARE = 0.25
SPAWN_MIN_WAITS = 20
# What starting one per call costs, and its cure (cpu-starved's words).
SPAWN_PER_CALL = (
    "a process started per call pays its program's start-up each time (an interpreter's "
    "imports: tens of ms of CPU for what may be microseconds of work) and its fork in "
    "the loop's own thread, so keep a few long-lived helper processes and feed them "
    "over pipes, one item per line (or do the work in-process)")


def _spawned_at(profile: Profile) -> tuple[str, float] | None:
    """(the program's line, its greenlets' wait there) where the most waiting on child
    processes (SUBPROCESS_FRAME in the stack) was done, when that is SPAWN_WAIT_SHARE
    of the run or more (greenlet-seconds: several at once count each) in SPAWN_MIN_WAITS
    waits or more; else None."""
    at: dict[str, list[float]] = {}
    for w in profile.waits:
        line = user_site(w.stack).user
        if line and any(isinstance(f, str) and SUBPROCESS_FRAME.search(f) for f in w.stack):
            acc = at.setdefault(line, [0.0, 0.0])
            acc[0] += w.wait_s
            acc[1] += w.count
    if not at or not profile.duration_s:
        return None
    line, (waited, waits) = max(at.items(), key=lambda kv: kv[1][0])
    return (line, waited) if waited >= SPAWN_WAIT_SHARE * profile.duration_s \
        and waits >= SPAWN_MIN_WAITS else None


# ... and only where they and the loop could have filled the machine's cores: their CPU,
# the loop thread's and its wait for a CPU at least this share of the cores over the
# run (an unseen notification service's sidecar, a third of a core beside a loop that
# needed one, on 2 cores, was blamed while other programs ran a test suite there).
OWN_FILL_SHARE = 0.75


def _own_fill(profile: Profile, own: float, wait: float) -> bool:
    """Whether the process's own threads and children (*own* CPU seconds), with the
    loop's CPU and its *wait* for a CPU, used at least OWN_FILL_SHARE of the cores it
    may run on (``meta["cpus"]``) over the run; yes where the core count is unknown."""
    cpus = profile.meta.get("cpus")
    if not isinstance(cpus, int) or isinstance(cpus, bool) or cpus <= 0:
        return True
    loop = sum(g.cpu_s or 0.0 for g in profile.greenlets if g.id != profile.hub.get("id"))
    loop += _f(profile.hub, "cpu_s")
    return own + loop + wait >= OWN_FILL_SHARE * cpus * profile.duration_s


def _own_competitors(profile: Profile) -> tuple[float, float]:
    """(CPU seconds of this process's threads other than the loop's, of its child
    processes) over the run; 0 for what the profile does not have (older profiles, no
    CPU clock)."""
    return max(0.0, other_threads_cpu(profile) or 0.0), \
        max(0.0, _f(profile.hub, "children_cpu_s"))


def other_threads_cpu(profile: Profile) -> float | None:
    """CPU seconds this process's threads other than the loop's used over the run: the
    whole process's (``hub["process_cpu_s"]``) less the loop thread's, its greenlets'
    and the hub's; None where the profile lacks either."""
    hub = profile.hub
    loop = [g.cpu_s for g in profile.greenlets if g.id != hub.get("id")] + [hub.get("cpu_s")]
    process = hub.get("process_cpu_s")
    if not isinstance(process, (int, float)) or isinstance(process, bool) \
            or any(c is None for c in loop):
        return None
    return process - sum(loop)


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
    starved = _starved_share(profile) if cpu_starved(profile) else 0.0
    if util is not None and starved:
        busy = util * duration
        waited = starved * busy  # the wait for a CPU, at most the busy time
        duration -= waited
        util = (busy - waited) / duration if duration > 0 else 0.0
    ready_all = sum(g.ready_wait_s or 0.0 for g in workers)
    explained += starved * ready_all
    # Busy time the thread spent asleep on the GIL (threadpool tasks running Python) is
    # not the loop's work either: gil-contended's, the same way.  Imported here: gil.py
    # builds on this module.
    from geventperf.findings.gil import gil_contended
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
    if util is None or util < SATURATED_UTILIZATION or not duration \
            or ready < SATURATED_MIN_QUEUE * duration \
            or (ready < SATURATED_HOT_QUEUE_SHARE * (ready + event) and not holders_queued):
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
    had_cpu = held_run * (1.0 - _starved_share(profile))
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
        exit_had = exit_run * (1.0 - _starved_share(profile))
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
        seen, hot = _seen_short(profile), None
        if seen is None:
            # no look at a short slice: the long blocking ones of the same holders (a
            # blocking-call finding) were most likely the same calls, cut shorter
            names = {name for name, _acc in top}
            seen = _seen([e for e in _events(profile, "blocked-slice")
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
                f"s), {_blocking_story(profile, where or 'an unrecorded place', seen, 2, longest)}")
        if _committing(seen):
            # a commit per record leads: its cure is the first thing to read (an unseen
            # order sync's, told at the message's end after the long slices' advice)
            first, cure = cure, ""
    elif (tiny := _tiny_tasks(profile, hot)) is not None:
        tiny_told = True
        first, cure = f" {tiny}.", ""
    else:
        does = _what_it_does(profile, hot)
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
        writes = _sampled_share(profile, PYWSGI_WRITE)
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
                and (cookies := _sampled_share(profile, COOKIE_WORK)) >= COOKIE_CPU_SHARE:
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
            env = _sampled_share(profile, ENV_SCAN)
            cure += _calls_per_request(profile, [name for name, _acc in top[:1]], where)
            # fewer requests first, where the same answers were fetched again and again
            # (an unseen payments sync looked up 210 exchange rates 4 869 times, its
            # cache keyed on a timestamp, and was told a cheaper Session first: 42 % off
            # the run, where a cache that hit took 80 %).  Imported here: held.py builds
            # on this module.
            from geventperf.findings.held import repeats_told
            cure += repeats_told(profile)
            # a Session made per call: its setup and a new connection each time are
            # requests' work here, and sharing one is the cure that comes first (an
            # unseen price pusher told a cheaper Session first gained 8 %; one Session
            # shared by its calls, 32 %)
            per_call = bool(new_sessions)
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
                     + (FAST_PATH_ON if _sampled_cpu(profile, FAST_PATH_FRAME.search)[0] > 0
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
           and not hot else f"; {_ended(where, 2)}" if where and hot and not seen else "")
        + "." + _long_slices_told(same) + cure)
    iterated = _small_reads_site(hot, does) or reads_site
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
                     sections={s.name: s.delayed_others_s for s in sections},
                     **_after_slow_paths(slow, per_call))]


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
    Session cure gained nothing): only the frames inside the program's innermost count."""
    samples = profile.cpu_samples
    if samples is None:
        return None
    inside = [is_client_frame(label) for label in samples.frames]
    via = [REQUEST_FRAME.search(label) is not None for label in samples.frames]
    setup = [label.endswith(_TLS_SETUP) for label in samples.frames]
    parse = [JSON_DECODE.search(label) is not None for label in samples.frames]
    mine = [not is_library_frame(label) for label in samples.frames]
    small = caller_small_read_sites(profile)
    total = under = tls = 0.0
    for frames, cpu in greenlet_samples(profile):
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
    share = _sampled_share(profile, HTTP_SEND)
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


def _partly_blocking(profile: Profile, off_cpu: float | None,
                     held_run: float) -> tuple[str, str | None]:
    """(a sentence, the line) when the holders were off the CPU for PARTLY_BLOCKING_SHARE
    of their running and the CPU samples name the program's line making a blocking call
    (BLOCKING_LINE: the syscall's own CPU is sampled at it); ("", None) otherwise."""
    if off_cpu is None or not held_run > 0 or off_cpu < PARTLY_BLOCKING_SHARE * held_run:
        return "", None
    samples = profile.cpu_samples
    if samples is None:
        return "", None
    lines: dict[str, float] = {}
    total = 0.0
    for frames, cpu in greenlet_samples(profile):
        total += cpu
        own = next((samples.frames[i] for i in frames
                    if not is_library_frame(samples.frames[i])), None)
        if own is not None and BLOCKING_LINE.search(frame_source(own)):
            lines[own] = lines.get(own, 0.0) + cpu
    if not lines or not total > 0:
        return "", None
    line = max(lines, key=lines.__getitem__)
    return (f" The greenlets holding it were off the CPU for {off_cpu:.3f} s of their "
            f"{held_run:.3f} s running ({off_cpu / held_run:.0%}): calls that block the "
            "loop's thread without yielding, which no CPU cure reaches. The CPU samples "
            f"name {line} (`{frame_source(line)}`: {lines[line] / total:.0%} of the sampled "
            "CPU in the call itself). Fix: batch such calls -- one flush and fsync, or one "
            "transaction, per batch of records (a group commit, before the batch is "
            "acknowledged), not one per record -- or hand them to "
            "gevent.get_hub().threadpool, which frees the loop but not the greenlet "
            "waiting for each call (and a database connection must stay on one thread: "
            "a pool of one); an unpatched time.sleep becomes gevent.sleep."), line


def _sampled_share(profile: Profile, endings: tuple[str, ...]) -> float:
    """The share of the greenlets' sampled CPU whose stack holds a frame whose label ends
    with one of *endings*; 0 without samples."""
    hit, total = _sampled_cpu(profile,
                              lambda label: label.replace("\\", "/").endswith(endings))
    return hit / total if total > 0 else 0.0


def _sampled_cpu(profile: Profile, marks: Callable[[str], bool]) -> tuple[float, float]:
    """(the greenlets' sampled CPU whose stack holds a frame whose label *marks*, all
    their sampled CPU); (0, 0) without samples."""
    samples = profile.cpu_samples
    if samples is None:
        return 0.0, 0.0
    marked = [marks(label) for label in samples.frames]
    total = hit = 0.0
    for frames, cpu in greenlet_samples(profile):
        total += cpu
        if any(marked[i] for i in frames):
            hit += cpu
    return hit, total


def greenlet_samples(profile: Profile) -> Iterator[tuple[list[int], float]]:
    """The greenlets' CPU samples (the hub's apart; none without samples): per sampled
    stack, its frame indices (those inside the frame table) and its CPU seconds."""
    samples = profile.cpu_samples
    if samples is None:
        return
    known, hub = len(samples.frames), profile.hub.get("id")
    for st in samples.stacks:
        if st.gid is None or st.gid != hub:
            yield [i for i in st.frames if 0 <= i < known], st.cpu_s


def _most_delaying_stack(profile: Profile, gids: set[int] | None = None) -> list[str]:
    """Where the run slices that delayed others most ended, in code (not at a
    greenlet's exit, nor, while another did, at a server connection's wait for its
    client's next request: a response's end, not where its work was); only slices of
    greenlets *gids* when given; [] if none did."""
    rows = [r for r in profile.runs if r.delayed_others_s and r.stack
            and not r.stack[0].startswith("<") and (gids is None or r.greenlet in gids)]
    working = [r for r in rows if not is_idle_server_wait(r.stack)]
    return max(working or rows, key=lambda r: r.delayed_others_s).stack if rows else []


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


def _ended(site: str, slices: int) -> str:
    """Where *slices* slices ended, said beside where their CPU went."""
    if site.startswith("<"):  # <greenlet exit>: nothing was yielded to
        return "the slice ended as its greenlet exited" if slices == 1 else \
            "the slices ended as their greenlets exited"
    # where the work stopped (a call that waits next): three unseen rounds read the
    # line a slice ended at as a suspect beside the code that ran
    return f"the slice{'' if slices == 1 else 's'} then yielded at {site}, where the work " \
        "stopped, not where it ran"


def _delaying_sections(profile: Profile) -> list[Any]:
    """The sections others queued behind most over the run (delayed_others_s)."""
    return sorted((s for s in profile.sections if s.delayed_others_s),
                  key=lambda s: -(s.delayed_others_s or 0.0))[:TOP_HOLDERS]


def _inside_sections(evs: list[dict[str, Any]], run: float) -> str:
    """", 0.350 s of the 0.500 s inside section 'json.loads'" for the sections the
    slices *evs* (*run* seconds in all) spent at least SECTION_SHARE_NAMED of their time
    in; "" for none (or a profile that did not record it)."""
    inside: dict[str, float] = defaultdict(float)
    for e in evs:
        spent = e.get("sections_s")
        for name, seconds in (spent.items() if isinstance(spent, dict) else ()):
            if isinstance(name, str) and isinstance(seconds, (int, float)):
                inside[name] += float(seconds)
    named = sorted(((n, t) for n, t in inside.items() if t >= SECTION_SHARE_NAMED * run),
                   key=lambda kv: -kv[1])[:TOP_HOLDERS]
    return "".join(f", {t:.3f} s of the {run:.3f} s inside section '{n}'" for n, t in named)


def _base_names(profile: Profile, evs: list[dict[str, Any]]) -> set[str]:
    """The base names of the greenlets that recorded *evs*."""
    found = (profile.greenlet(e.get("greenlet")) for e in evs
             if isinstance(e.get("greenlet"), int))
    return {_base_name(g.name) for g in found if g is not None}


class Seen(NamedTuple):
    """Where the stall watch (Tracer(stall_watch=True)) found the thread while long
    slices held the loop: the program's own line it found most."""

    line: str
    looks: int  # looks that found it there
    total: int  # looks in all
    stack: list[str]  # one of those looks, innermost first
    during: str = "while it held the loop"  # which slices were looked at

    def told(self, capital: bool = False) -> str:
        # (the line's own text where the source is at hand: "found it at app.py:321"
        # did not say it was a sqlite write, which an unseen thumbnail service's was)
        code = frame_source(self.line)
        return (f"{'L' if capital else 'l'}ooks at the thread {self.during} found "
                f"it at {self.line} ({self.looks} of {self.total})"
                + (f", `{_shortened(code)}`" if code else ""))


# A quoted line of source is cut to this many characters: enough to name its call.
QUOTED_CHARS = 100


def _shortened(code: str) -> str:
    return code if len(code) <= QUOTED_CHARS else code[:QUOTED_CHARS - 3] + "..."


def _seen(evs: list[dict[str, Any]]) -> Seen | None:
    """The stall watch's looks during the slices *evs* (``stall_looks`` of each
    event), by the program's own line; None without looks at such a line."""
    looks = (e.get("stall_looks") for e in evs)
    return _seen_weighted((look, 1) for each in looks
                          for look in (each if isinstance(each, list) else ()))


def _seen_short(profile: Profile) -> Seen | None:
    """The stall watch's looks at slices shorter than the threshold (the
    ``stall-looks`` event: [stack, looks] pairs), as _seen."""
    pairs = (pair for ev in _events(profile, "stall-looks")
             for pair in (ev.get("looks") if isinstance(ev.get("looks"), list) else ()))
    return _seen_weighted((pair[0], pair[1]) for pair in pairs
                          if isinstance(pair, list) and len(pair) == 2
                          and isinstance(pair[1], int) and pair[1] > 0)


def _seen_weighted(looks: Iterable[tuple[Any, int]]) -> Seen | None:
    """The program's own line most (look, times seen) pairs found; or, when most looks
    held no line of the program's own and one library frame of theirs beat every
    program line (a server's code after the application returned: pywsgi writing its
    access log to a pipe), that frame; None without either."""
    lines: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    stacks: dict[str, list[str]] = {}
    total = library = 0
    for look, times in looks:
        if not isinstance(look, list) or not look \
                or not all(isinstance(x, str) for x in look):
            continue  # an untrusted profile's
        total += times
        line = own_line(look)
        if line is None:  # named by its innermost frame that says what it did
            line = _telling_frame(look)
            if line is None:
                continue
            library += times
            frames[line] += times
        else:
            lines[line] += times
        stacks.setdefault(line, look)
    best = lines.most_common(1)[0] if lines else None
    if frames and library * 2 > total:
        frame = frames.most_common(1)[0]
        if best is None or frame[1] > best[1]:
            best = frame
    if best is None:
        return None
    return Seen(best[0], best[1], total, list(stacks[best[0]]))


def _telling_frame(look: list[str]) -> str | None:
    """The innermost frame of a look with no program line that is not generic I/O or
    machinery (a socket read, the hub, an import): the library call that blocked, as
    its label; None if every frame is generic."""
    for frame in look:
        path = frame.replace("\\", "/")
        if not path.startswith("<") and not GENERIC_FRAME.search(path):
            return frame_label(frame)
    return None


# Patched modules (profile.meta["monkey_patched"]) after which a blocking call is one
# patching does not reach, and "monkey-patch first" is no fix to lead with.
PATCHED_FOR_BLOCKING = frozenset({"socket", "time", "threading"})


def _suggested_threshold(longest: float) -> float:
    """A block threshold to look at slices as long as *longest* with: half of it, down
    to one significant digit (24.6 ms: 0.01), so the slices a little shorter than the
    longest are over it too."""
    half = longest / 2
    scale = 10.0 ** math.floor(math.log10(half))
    return math.floor(half / scale) * scale


def _where_hint(profile: Profile, longest: float = 0.0) -> str:
    """How to find where a blocking call blocked when no look at the thread found it: the
    stall watch, on, and looking at slices this short (it looks once a slice has held
    the loop half the block threshold: an unseen worker's 2 ms log writes into a full
    pipe went unseen at the default 50 ms, and were named at 4 ms)."""
    if profile.meta.get("stall_watch") is not True:
        return ("where it blocked is unknown: profile with the stall watch on, "
                "Tracer(stall_watch=True); geventperf run has it on")
    seconds = f"{_suggested_threshold(longest):g}" if longest > 0 else "SECONDS"
    return ("where it blocked is unknown: no look at the thread caught it; run again "
            "with a block threshold under the slices' length"
            + (f" (each greenlet's longest: {longest * 1e3:.1f} ms at the median)"
               if longest > 0 else "")
            + f", geventperf run --block-threshold {seconds} or "
            f"Tracer(block_threshold={seconds if longest > 0 else '...'}), and the stall "
            "watch looks at every slice past half of it")


def _querying(seen: Seen | None) -> bool:
    """Whether the stall watch's looks found the thread at a statement that runs a
    database statement (DB_CALL_LINE)."""
    return seen is not None and bool(DB_CALL_LINE.search(statement_source(seen.line)))


# A program's statement that waits for a child process in C, where no monkey-patching
# reaches: os.system and the like always; subprocess's calls where it is not patched.
CHILD_WAIT_LINE = re.compile(r"\bos\.(system|popen|spawn\w*|wait|waitpid|wait3|wait4)\(")
SUBPROCESS_LINE = re.compile(r"\bsubprocess\.(run|call|check_call|check_output|getoutput|"
                             r"getstatusoutput)\(")


def _child_waited(seen: Seen | None, patched: Any) -> bool:
    """Whether the stall watch's looks found the thread at a statement waiting for a
    child process (CHILD_WAIT_LINE, or SUBPROCESS_LINE with subprocess not patched)."""
    if seen is None:
        return False
    text = statement_source(seen.line)
    return bool(CHILD_WAIT_LINE.search(text)) or (
        isinstance(patched, list) and "subprocess" not in patched
        and bool(SUBPROCESS_LINE.search(text)))


def _committing(seen: Seen | None) -> bool:
    """Whether the stall watch's looks found the thread at a line that commits a database
    transaction (COMMIT_LINE)."""
    return seen is not None and bool(COMMIT_LINE.search(frame_source(seen.line)))


def _blocking_story(profile: Profile, site: str, seen: Seen | None = None,
                    slices: int = 1, longest: float = 0.0) -> str:
    """What a slice spent off the CPU was, and its fix: the tail of a sentence."""
    patched = profile.meta.get("monkey_patched")
    unpatched = ""
    if isinstance(patched, list) and "socket" not in patched:
        # the commonest cause of all: patch_all() forgotten, or called after the
        # imports, so every socket (requests', a database driver's) blocks the loop
        unpatched = (" The socket module is not monkey-patched here, so every network "
                     "call through it (requests', a database driver's) blocks the whole loop"
                     + (", and time.sleep too" if "time" not in patched else "") + ".")
    elif isinstance(patched, list) and "time" not in patched:
        unpatched = " The time module is not monkey-patched here, so time.sleep is the " \
                    "blocking one."
    made = (f": {seen.told()}; {_ended(site, slices)}" if seen
            else f" made after their last wait and before they exited, among the last "
            f"things they did ({_where_hint(profile, longest)})" if site == EXIT
            else f" made before the slice ended at {site} ({_where_hint(profile, longest)})")
    access_log = seen is not None and any(
        ACCESS_LOG_FRAME.search(frame.replace("\\", "/")) for frame in seen.stack)
    if seen and (access_log
                 or any(LOGGING_PATH in frame.replace("\\", "/") for frame in seen.stack)):
        # (an unpatched socket matters to a handler logging over the network; an
        # unpatched time.sleep is not what a look inside logging found)
        network = unpatched if isinstance(patched, list) and "socket" not in patched else ""
        what = ("gevent.pywsgi's access log (the server's log=, one line per response, "
                "written after the application returned)" if access_log else "log records")
        fix = ("give WSGIServer a log= that does not block (a file the shipper tails, or "
               "log=None and the lines you need through a logging handler that queues "
               "them)" if access_log else
               "log less on this path, or log to a file the shipper tails (a file takes "
               "writes without waiting for its reader)")
        return (f"writing {what}{made}. A log stream blocks every write once its "
                "reader falls behind (a pipe to a log shipper or a container runtime, a "
                "terminal): the pipe fills and each write waits for the reader, holding the "
                f"whole loop.{network} Fix: {fix}"
                + (", and monkey-patch first for a handler that logs over the network."
                   if network else "."))
    threads = _busy_threads(profile)
    if _committing(seen):
        return (f"committing a database transaction{made}.{threads} Each commit waits for "
                "the disk (an fsync) inside the driver's C code, holding the whole loop, "
                "and a commit per record pays that for every record. Fix: one transaction "
                "per batch of records (a group commit: collect the rows, or commit every "
                "N rows or every interval, before the batch is acknowledged), not one per "
                "record; gevent.get_hub().threadpool frees the loop but not the greenlet "
                "waiting for each commit, and a sqlite connection must stay on one thread "
                "(a pool of one).")
    if _querying(seen):
        return (f"running a database statement{made}.{threads} A DB-API driver runs it in "
                "C, holding the whole loop while it waits: sqlite3 sleeps in its busy "
                "handler until a lock another connection or process holds is free, a "
                "driver not made for gevent waits on its own socket. Fix: run the "
                "statements in gevent.get_hub().threadpool (for sqlite3, a connection per "
                "worker thread, made with check_same_thread=False, or one writer thread "
                "fed by a queue), or use a driver that yields to gevent (a pure-Python "
                "one, monkey-patched; psycopg2 with a gevent wait callback); and keep "
                "whoever holds the lock to short transactions.")
    if _child_waited(seen, patched):
        # (an unseen CI publisher's os.system("curl -T ...") per file ran its 8 uploaders
        # one at a time, and was told this among ten causes; gevent.subprocess took 78 %
        # off the run)
        return (f"waiting for a child process{made}.{threads} os.system (and os.popen, "
                "os.spawn*, os.wait*, and subprocess where it is not monkey-patched) waits "
                "for the child in C, holding the whole loop until it exits, so children "
                "started from several greenlets run one at a time. Fix: start it with "
                "gevent.subprocess (or subprocess once monkey-patched: patch_all() patches "
                "it), whose waits yield, so the children run together; for a transfer the "
                "child makes (curl, a cloud CLI's copy), the program's own requests call "
                "does it without a process.")
    if isinstance(patched, list) \
            and PATCHED_FOR_BLOCKING <= {m for m in patched if isinstance(m, str)}:
        # "monkey-patch first" would send the reader to what is done already
        return (f"in a non-cooperative call{made}.{threads} Monkey-patching is on here (socket, "
                "time and threading patched), so it is a call patching does not reach: one "
                "taken through gevent.monkey.get_original (the real time.sleep, a real "
                "lock) or imported before patch_all() ran (`from time import sleep` above "
                "it), a lock shared with a real OS thread (a C extension's own: a metrics "
                "exporter, an agent, a driver), a child process waited for with os.system "
                "or os.popen, file or DNS I/O (a write to a pipe whose reader falls "
                "behind blocks until it reads), or a C library doing its "
                "own network I/O. Fix: use the cooperative call (gevent.sleep, "
                "gevent.socket, gevent.subprocess, gevent.fileobject: a file object one "
                "greenlet writes at a time -- a writer greenlet fed by a queue -- since "
                "two writing at once raise 'reentrant call'); for a lock shared with a "
                "thread, have that thread hold it only briefly (copy under it, do the slow work outside) "
                "or hand it data through a queue; patch before such imports; or run the "
                "call in gevent.get_hub().threadpool.")
    return ("in a non-cooperative call (time.sleep unpatched, file or DNS I/O, a lock, a "
            "child process waited for with os.system or os.popen, a C library doing its own "
            f"network I/O){made}.{threads}"
            f"{unpatched} Fix: monkey-patch first (gevent.monkey.patch_all() before other "
            "imports), use the cooperative call (gevent.sleep, gevent.socket, "
            "gevent.subprocess), or run it in gevent.get_hub().threadpool.")


def _busy_threads(profile: Profile) -> str:
    """A sentence when this process's threads other than the loop's (and than gevent's
    threadpool's) used at least OWN_COMPETITOR_SHARE of the run in CPU: a thread running
    Python holds the interpreter lock, and the loop's thread waiting for it is off the
    CPU while running, which reads as a blocking call (a thread re-sorting a list every
    50 ms cost a loop 11 % of its run that way, under gil-contended's threshold); ""
    otherwise."""
    # gevent's threadpool records its tasks' CPU: gil-contended tells those
    threads = (other_threads_cpu(profile) or 0.0) \
        - sum(_f(e, "cpu_s") for e in _events(profile, "threadpool"))
    if threads < OWN_COMPETITOR_SHARE * profile.duration_s:
        return ""
    return (f" This process's other threads used {threads:.3f} s of CPU over the "
            f"{profile.duration_s:.3f} s run: one running Python holds the interpreter "
            "lock, and the loop's thread, waiting for it, is off the CPU while running, "
            "as here. If no call there blocks, that is the likeliest cause: find the "
            "thread (py-spy dump --pid PID lists every thread's stack) and have it do "
            "less, or run it in a process of its own.")


def _threads_story(names: set[str]) -> str:
    """What a CPU finding must add when greenlets among *names* (base names) run
    threading.Threads: monkey-patched, they are greenlets of this loop, so the thread
    the program gave the work to (a ThreadPoolExecutor's worker) took none of it off
    the loop.  "" when none does."""
    threads = sorted(n for n in names if n.endswith(THREAD_SUFFIX))[:TOP_HOLDERS]
    if not threads:
        return ""
    who = ", ".join(f"'{n}'" for n in threads)
    return (f" {who} {'runs a threading.Thread' if len(threads) == 1 else 'run threading.Threads'}"
            ", which gevent's monkey-patching makes a greenlet of this loop: work handed to "
            "such a thread (a ThreadPoolExecutor's, say) still runs on the loop. For CPU "
            "work use a process pool (concurrent.futures.ProcessPoolExecutor); for C calls "
            "that release the GIL, gevent.get_hub().threadpool, whose threads are real.")


def _cause(ev: dict[str, Any]) -> str:
    """What a long slice was: the garbage collector, CPU, a blocking call, or unknown
    (no CPU clock).  Time the thread waited for a CPU (``runqueue_s``, a busy machine)
    is none of them."""
    queued = _f(ev, "runqueue_s")
    ran = _f(ev, "run_s") - queued  # the time it had a CPU or gave it up itself
    if ran > 0 and _f(ev, "gc_s") >= GC_SHARE * ran:  # timed without the CPU clock
        return "gc"
    if ev.get("cpu_s") is None:
        return "unknown"
    off = ran - _f(ev, "cpu_s")
    return "blocking-call" if off > BLOCKING_SHARE * ran else "cpu"
