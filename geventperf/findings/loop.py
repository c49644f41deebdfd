"""Holding the loop: long slices that kept ready greenlets waiting, by CPU (loop-blocked,
loop-held) or by a blocking call (blocking-call).  A loop too busy for its greenlets is
saturated.py's; what the held code does and its cheaper way, cheaper.py's; what a
blocking slice was doing, blockingstory.py's; a process held off the CPU, starved.py's."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from geventperf.findings.backlog import backlog_after
from geventperf.findings.blockingstory import (
    COMMIT_LINE,
    blocking_story,
    ended,
    stall_seen,
    stall_seen_short,
)
from geventperf.findings.cheaper import parses_json, small_reads_site, what_it_does
from geventperf.findings.common import (
    BLOCKING_CALL,
    GC_PAUSE,
    LOOP_BLOCKED,
    LOOP_HELD,
    STACK_CPU_SAMPLES,
    STACK_SLICE_END,
    STACK_STALL_LOOK,
    _base_name,
    _events,
    _f,
    _finding,
    _names,
    _workers,
    block_threshold,
)
from geventperf.findings.cpuhot import (
    greenlet_samples,
    hot_code,
)
from geventperf.findings.gil import gil_evidence
from geventperf.findings.starved import starved_share
from geventperf.formats._frames import is_library_frame
from geventperf.frames import (
    frame_source,
    is_idle_server_wait,
    user_site,
    with_connection,
)
from geventperf.profile import THREAD_SUFFIX, Finding, Profile, by_generation

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
# Holders named in a loop-saturated finding.
TOP_HOLDERS = 3
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
        seen = stall_seen(evs)
        if seen is not None:
            stack = seen.stack
        if cause == "blocking-call":
            off = run - (cpu or 0.0) - queued
            tail = (f"{off:.3f} s of it was off the CPU "
                    f"{blocking_story(profile, site, seen, len(evs))}")
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
            does = what_it_does(profile, hot)
            grew = _growing(evs)
            # blocking calls among the CPU work (a commit per record) lead: no CPU cure
            # reaches them (an unseen ingest's sqlite commit per row held the loop
            # 2.5 s, 39 % off the CPU, and was told "CPU work": batching saved 62 %)
            partly, blocking_line = _partly_blocking(profile, run - (cpu or 0.0) - queued,
                                                     run)
            tail = (partly.strip() + " Beyond those calls: i" if partly else "I") + (
                    f"t was CPU work ({cpu:.3f} s of CPU{starved}){inside}; "
                    + (f"{where}; {ended(site, len(evs))}" if where
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
            tail = ((f"{seen.told(capital=True)}; {ended(site, len(evs))}" if seen
                     else f"The slice ended at {site}")
                    + "; CPU and blocking cannot be told apart (cpu_clock=False): profile "
                    "with cpu_clock=True.")
        stack_is = STACK_CPU_SAMPLES if cause == "cpu" and hot is not None else \
            STACK_STALL_LOOK if seen is not None else STACK_SLICE_END
        iterated = small_reads_site(hot, does)
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
    # most likely where (a big document parsed whole); a start-up heap is not theirs,
    # unless that code makes objects as fast as it runs (_allocates_fast)
    hot = hot_code(profile, _base_names(profile, evs))
    if not in_flight and not _allocates_fast(hot):
        hot = None
    # what that code does that has a cheaper way (a pure-Python parser: an unseen stock
    # refresher's minidom parse was told as gc-pause, and lxml saved 3.7x what
    # collecting less often did)
    does = what_it_does(profile, hot)
    fix = in_flight or STARTUP_FIX
    if hot is not None and not in_flight:
        stack = hot.stack
        cause = (f". {hot.told()} (collections fall due where most is allocated): "
                 f"{does or 'it makes objects as fast as it runs'}. Made that fast, its "
                 "objects make collections fall due again and again: fewer of them made, "
                 "fewer collections, and the long-lived objects each full collection walks "
                 "are the rest of it.")
        fix = STARTUP_FIX.replace("Fix: ", "Fix: after that cheaper code, ", 1)
    elif hot is not None:
        stack = hot.stack
        cause = (f". {hot.told()} (collections fall due where most is allocated): most "
                 "likely the code that makes the objects it walks "
                 + ("-- it parses JSON, and every value of a document parsed whole is an "
                    "object the collector walks while the document is held -- "
                    if parses_json(hot) else
                    "(a large document parsed whole, a big result built in memory), ")
                 + "whose CPU the collections add to."
                 + (f" The cheaper code comes first: {does}." if does and not parses_json(hot)
                    else ""))
    else:
        cause = (": that code is not the cause, the number of long-lived objects the "
                 "collector walks is.")
    message = (
        f"The cyclic garbage collector held the loop: {len(evs)} slice(s) over "
        f"{threshold:g} s ({run:.3f} s in all, longest {longest:.3f} s) were "
        f"{collected:.3f} s of collection{gens}{hurt_text}.{besides} It ran inside {who}, "
        f"whichever allocated when a collection fell due{cause}{whole} {fix}")
    return _finding(GC_PAUSE, message, cost + queued, stack,
                    stack_is=STACK_CPU_SAMPLES if hot is not None else STACK_SLICE_END,
                    greenlet=worst.get("greenlet"),
                    section=worst.get("section"), count=len(evs), run_s=run, gc_s=collected,
                    short_gc_s=short, short_gc_queued_s=queued,
                    generations=generations, longest_s=longest, longest_wait_s=kept,
                    threshold_s=threshold, active_s=run,
                    greenlets=len({e.get("greenlet") for e in evs}), backlog_s=backlog)


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


# Code that makes objects as fast as it runs: a deep copy visiting every element (an
# unseen validator deep-copied a 3 400-contig reference per sample: 3 266 collections,
# told "that code is not the cause, the long-lived objects are" and gc.freeze(); sharing
# the reference read-only left 64 collections).
ALLOCATING_FRAME = re.compile(r"[/\\]copy\.py:\d+:(?:_?deepcopy|_deepcopy_\w+|_reconstruct)$")


def _allocates_fast(hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack (cpuhot.HotCode) makes objects as
    fast as it runs (ALLOCATING_FRAME)."""
    return hot is not None and any(ALLOCATING_FRAME.search(str(f)) for f in hot.stack)


def _held_fix(does: str | None, paced: str | None) -> str:
    """loop-held's fix: *paced* (a chain of sleep(0)s', a ticker's) after what the hot
    code *does* that has a cheaper way, or the cheaper way first inside the general fix
    (an unseen validator's deep copy per sample: "First, ... share the object read-only.
    Fix: smaller pieces", and the sentence labelled Fix was the one that did not help)."""
    if paced is not None:
        return (f"First, what the code does has a cheaper way: {does}. " if does else "") + paced
    return ((f"Fix: first make that code cheaper ({does}); then cut what must stay expensive "
             "into smaller pieces" if does else "Fix: smaller pieces of the work")
            + f", and {YIELD_BETWEEN_PIECES}; or move the work out of the loop "
            "(gevent.get_hub().threadpool for C code that releases the GIL, a process pool "
            "for Python code).")


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
    from geventperf.findings.saturated import loop_saturated  # (builds on this module)
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
        elif cpu >= (1 - BLOCKING_SHARE) * total_run * (1.0 - starved_share(profile)):
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
            does = what_it_does(profile, hot)
            what = (f"It was CPU work ({cpu:.3f} s of CPU in {total_run:.3f} s of running)"
                    f"{inside}; "
                    + (f"{hot.told()}; " if hot else "")
                    + f"the slices that delayed most ended at {site}. "
                    + _held_fix(does, SLEEP0_FIX if chained else TICKER_FIX if ended
                                and SLEEP_FRAME.search(ended[0].replace("\\", "/")) else None)
                    + _threads_story({name}))
        else:
            seen = stall_seen_short(profile)  # where the slices blocked, if the watch looked
            if seen is not None:
                stack = seen.stack
            what = (f"It was mostly off the CPU ({cpu:.3f} s of CPU in {total_run:.3f} s of "
                    f"running), {blocking_story(profile, site, seen, 2)}"
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


PARTLY_BLOCKING_FIX = (
    "Fix: batch such calls -- one flush and fsync, or one transaction, per batch of records "
    "(a group commit, before the batch is acknowledged), not one per record -- or hand "
    "them to gevent.get_hub().threadpool, which frees the loop but not the greenlet "
    "waiting for each call (and a database connection must stay on one thread: a pool of "
    "one); an unpatched time.sleep becomes gevent.sleep.")
# ... and when that line commits a database transaction (COMMIT_LINE): the driver's C
# code waits for the disk or for a lock another connection or process holds, and the
# profile cannot tell which, so both are named, with a cure for each (an unseen pick
# confirmer's 24 workers wrote each pick in `with self.conn:` while a cycle-count
# process held the database's lock: told only a disk sync per commit; one writer thread
# took 35 % off its run, where an unseen ingest's commit per row took a group commit).
COMMIT_PARTLY_BLOCKING = (
    "A database commit runs in its driver's C code, holding the whole loop while it "
    "waits for the disk (an fsync per commit) or for a lock another connection or "
    "process holds (sqlite3 sleeps in its busy handler until the lock is free). Fix: one "
    "transaction per batch of records (a group commit, before the batch is acknowledged), "
    "not one per record: fewer syncs and fewer waits for the lock; and hand the database "
    "work to gevent.get_hub().threadpool (a sqlite3 connection stays on one thread: a pool "
    "of one, or one writer thread fed by a queue), which frees the loop for the others "
    "while each call waits.")


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
        if own is not None and (BLOCKING_LINE.search(frame_source(own))
                                or with_connection(own)):
            lines[own] = lines.get(own, 0.0) + cpu
    if not lines or not total > 0:
        return "", None
    line = max(lines, key=lines.__getitem__)
    source = frame_source(line)
    share = lines[line] / total
    in_call = f"{share:.0%} of the sampled CPU in the call itself" if share >= 0.01 else \
        "under 1% of the sampled CPU in the call itself: its time went off the CPU"
    return (f" The greenlets holding it were off the CPU for {off_cpu:.3f} s of their "
            f"{held_run:.3f} s running ({off_cpu / held_run:.0%}): calls that block the "
            "loop's thread without yielding, which no CPU cure reaches. The CPU samples "
            f"name {line} (`{source}`: {in_call}). "
            + (COMMIT_PARTLY_BLOCKING if COMMIT_LINE.search(source) or with_connection(line)
               else PARTLY_BLOCKING_FIX)), line


def _most_delaying_stack(profile: Profile, gids: set[int] | None = None) -> list[str]:
    """Where the run slices that delayed others most ended, in code (not at a
    greenlet's exit, nor, while another did, at a server connection's wait for its
    client's next request: a response's end, not where its work was); only slices of
    greenlets *gids* when given; [] if none did."""
    rows = [r for r in profile.runs if r.delayed_others_s and r.stack
            and not r.stack[0].startswith("<") and (gids is None or r.greenlet in gids)]
    working = [r for r in rows if not is_idle_server_wait(r.stack)]
    return max(working or rows, key=lambda r: r.delayed_others_s).stack if rows else []


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
