"""Tests that kill mutmut survivors of geventperf/findings/ (tox -e mutation): every
finder on hand-built profiles, each finding compared whole -- message word for word,
cost, greenlet, stack and every extra field -- so a changed figure, threshold, wording
or order fails.  Values are binary fractions, so every figure is exact.

The figures were worked out by hand from the inputs (see each scenario's comments) and
checked against the output, not copied from it blindly."""

from __future__ import annotations

import re

import pytest

from geventperf import findings
from geventperf.findings import common, cpuhot, handoff, loop
from geventperf.profile import (
    Finding,
    GreenletStats,
    Profile,
    SectionStats,
    Slice,
    StackTime,
)
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.test_findings import APP, GEVENT, READ_STACK, URLLIB3

HUB = "/venv/lib/python3.11/site-packages/gevent/hub.py"
QUEUE = "/venv/lib/python3.11/site-packages/gevent/queue.py"


def profile(**kwargs) -> Profile:
    p = Profile(duration_s=2.0, greenlets=[
        GreenletStats(id=1, name="main", parent=None),
        GreenletStats(id=2, name="hub", parent=1),
        GreenletStats(id=3, name="app.fetch", parent=1),
        GreenletStats(id=4, name="app.fetch", parent=1),
        GreenletStats(id=5, name="app.parse [3 finished greenlets folded]", parent=1)],
        hub={"id": 2, "run_s": 0.0, "cpu_s": None, "idle_s": None, "utilization": None,
             "polls": None},
        meta={"block_threshold_s": 0.0625})
    for key, value in kwargs.items():
        setattr(p, key, value)
    return p


def c_switch(greenlet, event_wait_s, count=2, stack=READ_STACK, **kw):
    return {"kind": "c-section-switch", "section": "lxml.etree.parse", "greenlet": greenlet,
            "count": count, "wait_s": event_wait_s * 2, "event_wait_s": event_wait_s,
            "file_like": False, "stack": stack, **kw}


def blocked_slice(greenlet, run_s, cpu_s, delayed, runqueue_s=0.0, stack=(f"{APP}:20:job",),
                  longest_wait_s=None, **extra):
    """A slice over the threshold; by default someone was ready through all of it."""
    return {"kind": "blocked-slice", "greenlet": greenlet, "start_s": 0.0, "run_s": run_s,
            "cpu_s": cpu_s, "runqueue_s": runqueue_s, "section": "sec", "stack": list(stack),
            "delayed_others_s": delayed,
            "longest_wait_s": run_s if longest_wait_s is None else longest_wait_s, **extra}


SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def blocked_read_one_greenlet():
    return findings.blocked_reads_in_c_sections(profile(events=[
        c_switch(3, 0.625, count=42, file_like=True)]))


@scenario
def blocked_reads_of_greenlets_of_two_names_and_an_unknown_one():
    # 3 and 4 are both app.fetch, 5 a folded app.parse entry, 9 not in the profile;
    # no urllib3 frame: the read site is "a Python read()"; no user frame: no caller
    stack = [f"{GEVENT}:687:SocketMixin.recv_into"]
    return findings.blocked_reads_in_c_sections(profile(events=[
        c_switch(3, 0.25, stack=stack), c_switch(4, 0.5, stack=stack),
        c_switch(5, 0.125, stack=stack), c_switch(9, 0.0625, stack=stack)]))


@scenario
def blocking_call_in_two_slices_time_unpatched():
    # run 0.5 + 0.25 = 0.75, CPU 0.1875, run-queue 0.125: off the CPU 0.4375 ("0.438");
    # each slice is off the CPU for more than half the time it had one: blocking calls.
    # The second ended at its greenlet's exit, so the first names the place.
    p = profile(events=[
        blocked_slice(3, 0.5, 0.125, 0.75, runqueue_s=0.0625),
        blocked_slice(4, 0.25, 0.0625, 0.25, runqueue_s=0.0625, stack=["<greenlet exit>"])])
    p.meta["monkey_patched"] = ["socket"]
    return findings.loop_blocked(p)


@scenario
def blocking_call_time_patched():
    p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
    p.meta["monkey_patched"] = ["socket", "time"]
    return findings.loop_blocked(p)


@scenario
def blocking_call_all_patched():
    # socket, time and threading patched (as patch_all leaves them): the call is one
    # patching does not reach, and the fix does not lead with "monkey-patch first"
    p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
    p.meta["monkey_patched"] = ["_thread", "os", "socket", "threading", "time"]
    return findings.loop_blocked(p)


STDLIB_SOCKET = "/usr/lib/python3.11/socket.py"


def stall_looks(at=32, other=1):
    """The stall watch's looks during a slice: 3 at the app's line *at* (beneath the
    standard library's socket: not the reader's code), *other* at another line, and
    what an untrusted profile may hold instead of a look (ignored)."""
    return ([[f"{STDLIB_SOCKET}:706:readinto", f"{APP}:{at}:keeper"]] * 3
            + [[f"{APP}:40:other"]] * other + ["x", [f"{APP}:1:f", 3]])


@scenario
def slices_seen_by_the_stall_watch():
    # Two blocking slices ending at keeper:31 (where they yielded), seen at keeper:32
    # 6 of 8 looks (junk not counted): named there, with a look's stack.  A CPU slice
    # the same, without CPU samples: the looks tell where it ran; with samples, they do.
    # A slice of an unknown cause (no CPU clock): the looks too.  Looks only at a socket
    # read, generic I/O that says nothing: as without looks.
    out = []
    ended = [f"{APP}:31:keeper"]
    out += findings.loop_blocked(profile(events=[
        blocked_slice(g, 0.5, 0.0, 0.5, stack=ended, stall_looks=stall_looks())
        for g in (3, 4)]))
    cpu = profile(events=[blocked_slice(3, 0.5, 0.5, 0.75, stack=ended,
                                        stall_looks=stall_looks())])
    out += findings.loop_blocked(cpu)
    cpu.cpu_samples = hot_samples()
    out += findings.loop_blocked(cpu)
    out += findings.loop_blocked(profile(events=[
        blocked_slice(3, 0.5, None, 0.75, stack=ended, stall_looks=stall_looks())]))
    out += findings.loop_blocked(profile(events=[
        blocked_slice(3, 0.5, 0.0, 0.5, stack=ended,
                      stall_looks=[[f"{STDLIB_SOCKET}:706:readinto"]])]))
    return out


@scenario
def blocking_call_socket_unpatched():
    # Nothing patched (patch_all() forgotten): the socket is named, time.sleep with it;
    # time patched alone: the socket only.
    out = []
    for patched in ([], ["time"]):
        p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
        p.meta["monkey_patched"] = patched
        out += findings.loop_blocked(p)
    return out


@scenario
def cpu_slice():
    return findings.loop_blocked(profile(events=[blocked_slice(3, 0.5, 0.5, 0.75)]))


def backlogged(stall=0.5, waiting=4, lingering=0.0, usual_at=3.875):
    """A 4 s run: app.fetch (#3) holds the loop from 1 s for *stall* s while *waiting*
    greenlets became ready at its start, which run 0.125 s each, one after another, once
    it ends; one more (#20) is ready for the 0.25 s before *usual_at* (the usual queue,
    and the last greenlet ready), and with *lingering*, one (#21) stays ready from 1 s
    for that long."""
    p = profile(duration_s=4.0)
    end = 1.0 + stall
    slices = [Slice(greenlet=3, start_s=1.0, duration_s=stall, ready_s=0.0),
              Slice(greenlet=20, start_s=usual_at, duration_s=0.125, ready_s=0.25),
              Slice(greenlet=2, start_s=usual_at - 0.25, duration_s=0.125, ready_s=0.25)]
    for k in range(waiting):
        start = end + 0.125 * k
        slices.append(Slice(greenlet=10 + k, start_s=start, duration_s=0.125,
                            ready_s=start - 1.0))
    if lingering:
        slices.append(Slice(greenlet=21, start_s=1.0 + lingering, duration_s=0.0,
                            ready_s=lingering))
    p.slices = sorted(slices, key=lambda s: s.start_s)
    p.events = [blocked_slice(3, stall, stall, waiting * stall, start_s=1.0)]
    return p


@scenario
def cpu_slice_leaves_a_backlog():
    # four greenlets ready through a 0.5 s slice (2 greenlet-s) then queue 0.75 greenlet-s
    # more while they run in turn, until the queue empties at 1.875 s; at the usual
    # queue's length (0.25 greenlet-s over the 2 s outside, from the first greenlet ready
    # at 1 s to the last at 3.875 s: the time before, when nobody could queue, and the
    # hub's own ready wait left out) those 0.375 s would have held 0.046875: the cost is
    # 2 + 0.703125.  A queue that never empties counts at most ten stalls long: 0.625 s
    # after a 0.0625 s one (0.0625 x 4 during; 0.125 + 0.25 + 0.375 from three of the four
    # and 0.625 from #21 after, less 0.625 s of the usual 1.5625 greenlet-s over the 2 s
    # outside: 0.888671875 in all); a timeline with slices dropped: no backlog
    dropped = backlogged()
    dropped.slices_dropped = 1
    return [*findings.loop_blocked(backlogged()),
            *findings.loop_blocked(backlogged(stall=0.0625, lingering=2.0,
                                              usual_at=3.6875)),
            *findings.loop_blocked(dropped)]


JSON_ENCODER = "/usr/lib/python3.11/json/encoder.py"


def cpu_samples(stacks) -> CpuSamples:
    """CPU samples of (frames, greenlet, count, cpu_s) stacks, frames innermost first."""
    frames: list[str] = []
    built = []
    for labels, greenlet, count, cpu_s in stacks:
        for label in labels:
            if label not in frames:
                frames.append(label)
        built.append(SampledStack(frames=[frames.index(lab) for lab in labels],
                                  greenlet=greenlet, sections=[], count=count, cpu_s=cpu_s))
    return CpuSamples(frames=frames, first_lines=[1] * len(frames), stacks=built)


def hot_samples(line24=0.375, line26=0.0, library=0.125, library_count=2, other=0.0):
    """app.fetch's CPU samples: job's line 24 (beneath json's encoder: the standard
    library is not the reader's code), job's line 26, another function, and stacks of
    library frames only (counted in the total, named nowhere); main's 4 s elsewhere is
    not the slices' greenlets'."""
    stacks = [([f"{JSON_ENCODER}:200:iterencode", f"{APP}:24:job", f"{APP}:9:run"],
               "app.fetch", 3, line24),
              ([f"{APP}:26:job", f"{APP}:9:run"], "app.fetch", 1, line26),
              ([f"{APP}:70:other", f"{APP}:9:run"], "app.fetch", 1, other),
              (READ_STACK[:3], "app.fetch", library_count, library),
              ([f"{APP}:99:setup"], "main", 32, 4.0)]
    return cpu_samples([st for st in stacks if st[3]])


@scenario
def cpu_slice_with_samples_names_the_line_that_burned_it():
    # The slice ended at job:20; the samples put the CPU elsewhere.
    # 1. job 0.375 of 0.5 (75 %), all at line 24, over 5 samples: "at" line 24, and the
    #    finding's stack is the sampled one.
    # 2. 4 samples (the library stack's 2 -> 1): under MIN_SAMPLES, nothing named.
    # 3. job 0.25 of 1.0, exactly HOT_SHARE (line 24 0.125, line 26 0.125, other 0.125,
    #    library 0.625: lines tie, the first kept): named, "in job", half at line 24.
    # 4. 2^-20 s moved from job's line 26 to the library: under HOT_SHARE, nothing named.
    # 5. line 24 0.375 of job's 0.5: exactly ONE_LINE_SHARE: "at" line 24.
    # 6. 2^-20 s moved from line 24 to line 26: under it: "in job", 75 % at line 24.
    tiny = 2 ** -20
    out = []
    for samples in (hot_samples(), hot_samples(library_count=1),
                    hot_samples(0.125, 0.125, 0.625, other=0.125),
                    hot_samples(0.125, 0.125 - tiny, 0.625 + tiny, other=0.125),
                    hot_samples(0.375, 0.125),
                    hot_samples(0.375 - tiny, 0.125 + tiny)):
        out += findings.loop_blocked(profile(events=[blocked_slice(3, 0.5, 0.5, 0.75)],
                                             cpu_samples=samples))
    # 7. two slices, both ending as their greenlets exited: nothing was yielded to
    exits = [blocked_slice(g, 0.5, 0.5, 0.75, stack=["<greenlet exit>"]) for g in (3, 4)]
    return out + findings.loop_blocked(profile(events=exits, cpu_samples=hot_samples()))


@scenario
def cpu_spread_over_small_functions_names_the_one_above_them():
    # a validator's CPU spread over four small functions, 0.0625 s each of 1.0 s (none
    # holds HOT_SHARE on its own), 0.25 s together, exactly HOT_SHARE, all under validate
    # (line 30), under job (line 24, with as much: the inner one, validate, is named),
    # under run (the entry point, outermost: never named); the rest in the library.
    # With 2^-20 s less under validate: nothing named
    tiny = 2 ** -20
    out = []
    for spread in (0.0625, 0.0625 - tiny / 4):
        stacks = [([f"{APP}:{40 + k}:check_{k}", f"{APP}:30:validate", f"{APP}:24:job",
                    f"{APP}:9:run"], "app.fetch", 2, spread) for k in range(4)]
        stacks.append((READ_STACK[:3], "app.fetch", 2, 1.0 - 4 * spread))
        out += findings.loop_blocked(profile(events=[blocked_slice(3, 0.5, 0.5, 0.75)],
                                             cpu_samples=cpu_samples(stacks)))
    return out


@scenario
def cpu_slices_name_the_sections_they_ran_in():
    # Two 0.5 s slices: json.loads 0.125 + 0.125 = 0.25 s, exactly SECTION_SHARE_NAMED of
    # the 1.0 s held; lxml 0.25 s too (named after it: ties keep their order); tiny
    # 0.0625 s is not.  Then json.loads 2^-20 s under: lxml alone.  Then what an
    # untrusted profile may hold in the second slice (not a dict; a figure that is no
    # number and a name that is no text): ignored, json.loads' 0.125 s alone is too little.
    tiny = 2 ** -20
    out = []
    for json_s, second in ((0.125, {"json.loads": 0.125, "lxml": 0.25}),
                           (0.125 - tiny, {"json.loads": 0.125, "lxml": 0.25}),
                           (0.125, "json.loads"),
                           (0.125, {"json.loads": "0.125", 7: 0.25})):
        out += findings.loop_blocked(profile(events=[
            blocked_slice(3, 0.5, 0.5, 0.75, sections_s={"json.loads": json_s, "tiny": 0.0625}),
            blocked_slice(4, 0.5, 0.5, 0.75, sections_s=second)]))
    return out


@scenario
def loop_held_names_the_sections_others_queued_behind():
    # The hasher delayed others 4.0 s: a section is named from 1.0 s (SECTION_SHARE_NAMED)
    # of others' waiting over the run; 'crc' at 2^-20 s less is not.
    from tests.test_findings import held_profile
    p = held_profile()
    p.sections = [SectionStats(name="hashlib", c=True, delayed_others_s=1.0),
                  SectionStats(name="crc", c=True, delayed_others_s=1.0 - 2 ** -20)]
    return findings.loop_held(p)


@scenario
def loop_held_with_samples_names_the_line_that_burned_it():
    from tests.test_findings import held_profile
    p = held_profile()
    p.cpu_samples = cpu_samples([([f"{APP}:23:hash_passwords"], "app.hasher", 8, 0.5),
                                 ([f"{APP}:40:handler"], "app.fetch", 8, 0.5)])
    return findings.loop_held(p)


@scenario
def loop_held_by_a_ticker_is_told_to_do_less_per_tick():
    # the hasher's slices end in gevent.sleep (hub.py): a greenlet on a timer, whose
    # cost is each tick's work: do less per tick, or tick less often (not "yield more")
    from tests.test_findings import held_profile
    p = held_profile()
    p.runs[0].stack = [f"{HUB}:166:sleep", f"{APP}:22:report"]
    return findings.loop_held(p)


@scenario
def unknown_cause_slice_of_an_older_profile():
    # no CPU clock, no delayed_others_s: the run time is the cost
    ev = blocked_slice(3, 0.25, None, None)
    del ev["delayed_others_s"], ev["longest_wait_s"]
    return findings.loop_blocked(profile(events=[ev]))


@scenario
def slices_others_joined_only_at_their_end():
    # main's start-up slice: 2.0 greenlet-seconds of others' waiting, but none of them
    # waited even half a threshold (0.03125 s) of it (spawned just before it yielded):
    # no finding.  app.fetch kept one waiting exactly half a threshold: a finding.
    return findings.loop_blocked(profile(events=[
        blocked_slice(1, 0.25, 0.25, 2.0, longest_wait_s=0.03125 - 2 ** -20),
        blocked_slice(3, 0.5, 0.5, 0.25, longest_wait_s=0.03125)]))


@scenario
def gc_filled_slices_are_one_gc_pause_across_names():
    # app.fetch (#3): 0.25 s collected of 0.5 s with 0.0 s waiting for a CPU, exactly
    # GC_SHARE; app.parse (#5): 0.375 of 0.5 (generation 1): one gc-pause for both,
    # cost 0.5 + 0.25, the worst slice (#3's 0.5 s, first of the equal) placing it.
    # main (#1): 0.125 of 0.5 after 0.25 s waiting for a CPU leaves 0.25 s run,
    # exactly half of it collected: gc too.  #4 (app.fetch) collected 0.1875 of 0.5,
    # under half: loop-blocked CPU work, naming the collection (over a quarter).
    p = profile(events=[
        blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.25, gc_generation=2),
        blocked_slice(5, 0.5, 0.5, 0.25, gc_s=0.375, gc_generation=1),
        blocked_slice(1, 0.5, 0.25, 0.125, runqueue_s=0.25, gc_s=0.125, gc_generation=2),
        blocked_slice(4, 0.5, 0.5, 0.25, gc_s=0.1875, gc_generation=0)])
    p.meta["gc"] = {"collections": [40, 6, 2], "total_s": 1.5, "longest_s": 0.375,
                    "longest_generation": 1}
    return findings.loop_blocked(p)


@scenario
def gc_pause_takes_the_queueing_behind_short_collections():
    # a slice of 0.5 s, 0.375 of it collecting (gc-pause, delaying others 0.5 s); the run
    # collected 0.75 s, so 0.375 s in short slices: a quarter of the loop's 1.5 s busy
    # time (utilization 0.75 of 2 s).  Ready wait 1.0 + 1.5 = 2.5, less the 0.5 the long
    # slice delayed: 2.0 x 0.25 = 0.5 more, cost 1.0
    p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.375, gc_generation=2)],
                hub={"id": 2, "utilization": 0.75})
    p.meta["gc"] = {"collections": [40, 6, 2], "total_s": 0.75, "longest_s": 0.375,
                    "longest_generation": 2}
    for gid, ready in ((3, 1.0), (4, 1.5)):
        p.greenlet(gid).ready_wait_s, p.greenlet(gid).event_wait_s = ready, 0.5
    return findings.loop_blocked(p)


@scenario
def gc_pause_of_a_heap_built_in_flight_or_at_start_up():
    # full collections in long slices, in time order: main's at the start (0.125 s, a
    # slice nobody waited through), then 0.25 + 2**-16 and 0.25: the first under half the
    # longest, the heap grew during the run ("in flight"); with the longest exactly 0.25,
    # half of it: start-up's fix; with only one full collection (the others generation
    # 1): nothing to compare, start-up's fix
    def run(later_gc, generation=2):
        return findings.loop_blocked(profile(events=[
            blocked_slice(1, 0.25, 0.25, 0.0, gc_s=0.125, gc_generation=generation,
                          longest_wait_s=0.0),
            blocked_slice(3, 0.5, 0.5, 0.5, gc_s=later_gc, gc_generation=2, start_s=1.0),
            blocked_slice(4, 0.5, 0.5, 0.25, gc_s=0.25, gc_generation=generation,
                          start_s=1.5)]))
    return [*run(0.25 + 2 ** -16), *run(0.25), *run(0.5, generation=1)]


@scenario
def gc_pause_told_in_flight_by_the_heaps_size():
    # The heap's size decides where the profile has it, whatever the durations say:
    # 1024 blocks when start-up ended, up to 2048 at full collections (HEAP_GROWTH): in
    # flight, though the durations say start-up; at 2047: start-up, though the durations
    # say in flight.  A figure that is no count (an untrusted profile's): the durations.
    def run(later_gc, heap):
        p = profile(events=[
            blocked_slice(1, 0.25, 0.25, 0.0, gc_s=0.125, gc_generation=2, longest_wait_s=0.0),
            blocked_slice(3, 0.5, 0.5, 0.5, gc_s=later_gc, gc_generation=2, start_s=1.0),
            blocked_slice(4, 0.5, 0.5, 0.25, gc_s=0.25, gc_generation=2, start_s=1.5)])
        p.meta["gc"] = heap
        return findings.loop_blocked(p)
    return [*run(0.25, {"start_up_blocks": 1024, "full_blocks_max": 2048}),
            *run(0.5, {"start_up_blocks": 1024, "full_blocks_max": 2047}),
            *run(0.5, {"start_up_blocks": True, "full_blocks_max": "2048"})]


@scenario
def cpu_slices_parsing_json_are_told_to_parse_less():
    # the samples' heaviest stack at job's line 24 runs requests' Response.json (json's
    # decoder beneath): loop-blocked's cheaper code is less JSON, and gc-pause over data
    # in flight says every value parsed is an object it walks
    decode = ["/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode",
              f"{REQUESTS_PKG}/models.py:1116:Response.json", f"{APP}:24:job", f"{APP}:9:run"]
    samples = cpu_samples([(decode, "app.fetch", 5, 0.5)])
    cpu = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5)], cpu_samples=samples)
    gc = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.375, gc_generation=2)],
                 cpu_samples=samples)
    gc.meta["gc"] = {"start_up_blocks": 1024, "full_blocks_max": 4096}
    return [*findings.loop_blocked(cpu), *findings.loop_blocked(gc)]


@scenario
def cpu_slices_parsing_the_same_json_again_are_told_to_parse_once():
    # the same 0.5 s of Response.json's CPU over 500 000 bytes of bodies read (1 MB/s):
    # JSON_CHEAPER as before; 499 999 bytes: the bodies were parsed again and again, and
    # the cure is to parse each once; without body-reads events: as before
    decode = ["/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode",
              f"{REQUESTS_PKG}/models.py:1116:Response.json", f"{APP}:24:job", f"{APP}:9:run"]

    def run(nbytes):
        p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5)],
                    cpu_samples=cpu_samples([(decode, "app.fetch", 5, 0.5)]))
        if nbytes:
            p.events.append({"kind": "body-reads", "site": f"{APP}:24:job", "reads": 10,
                             "bytes": nbytes, "bodies": 10})
        return findings.loop_blocked(p)
    return [*run(500_000), *run(499_999), *run(0)]


@scenario
def gc_pause_in_flight_names_the_code_that_made_them():
    # the heap grew during the run and app.fetch's CPU samples put 75 % at job's line 24:
    # told as most likely where the objects are made, and the finding's stack is the
    # sampled one; a heap built at start-up is not the greenlets' code (the same samples
    # name nothing)
    def run(full_blocks):
        p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.375, gc_generation=2),
                            blocked_slice(4, 0.5, 0.5, 0.25, gc_s=0.25, gc_generation=2)],
                    cpu_samples=hot_samples())
        p.meta["gc"] = {"start_up_blocks": 1024, "full_blocks_max": full_blocks}
        return findings.loop_blocked(p)
    return [*run(4096), *run(1024)]


@scenario
def gc_pause_of_a_pure_python_parser_names_the_c_one():
    # the hot stack runs minidom's DOM builder: the cheaper code (lxml) is told first,
    # both in the gc-pause (in flight) and in a CPU slice's fix
    parse = ["/usr/lib/python3.11/xml/dom/expatbuilder.py:220:ExpatBuilder.parseString",
             "/usr/lib/python3.11/xml/dom/minidom.py:2000:parseString", f"{APP}:22:in_stock",
             f"{APP}:9:run"]
    samples = cpu_samples([(parse, "app.fetch", 5, 0.5)])
    gc = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.375, gc_generation=2)],
                 cpu_samples=samples)
    gc.meta["gc"] = {"start_up_blocks": 1024, "full_blocks_max": 4096}
    cpu = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5)], cpu_samples=samples)
    return [*findings.loop_blocked(gc), *findings.loop_blocked(cpu)]


POOL = "/venv/lib/python3.11/site-packages/gevent/pool.py"
SLOT_STACK = [f"{POOL}:636:Pool.add", f"{POOL}:603:Pool.start", f"{APP}:40:submit"]
MAP_SLOT_STACK = [f"{POOL}:636:Pool.add", f"{POOL}:165:GroupMappingMixin.__map"]


def pool_profile(idle_s, slot_waits, map_caller=False):
    """A 2 s run whose hub idled *idle_s*; *slot_waits*: (stack, event wait) rows."""
    p = profile(hub={"id": 2, "idle_s": idle_s}, waits=[
        StackTime(stack=list(stack), count=4, wait_s=ev + 0.125, event_wait_s=ev,
                  ready_wait_s=0.125) for stack, ev in slot_waits])
    p.runs = [StackTime(stack=list(stack), count=4, greenlet=gid)
              for (stack, _ev), gid in zip(slot_waits, (1, 3))]
    if map_caller:  # main waits for Pool.map's results, called from its code
        p.waits.append(StackTime(stack=[f"{POOL}:202:GroupMappingMixin.map",
                                        f"{APP}:12:main"], count=1, wait_s=1.75,
                                 event_wait_s=1.75, ready_wait_s=0.0))
    return p


@scenario
def pool_full_behind_a_spin_wait():
    # the hub idled a quarter of the 2 s run, but a spin-wait's 2000 gevent.sleep(0)
    # yields (2**-9 s of slices, 0.5 s of hub rounds: its 2000 of the hub's 4000
    # switches of 1 s of work) kept it from idling: counted as idle, more than half the
    # run, and the full pool is told, saying so; without the spin, none
    def run(spin):
        p = pool_profile(0.5, [(SLOT_STACK, 0.5)])
        hub = p.greenlet(2)
        hub.run_s, hub.switches = 1.5, 4000
        if spin:  # app.parse (#5), not one of the pool's jobs, spins
            p.greenlet(5).parent = None
            stack = [f"{HUB}:166:sleep", f"{APP}:22:wait_done"]
            p.runs.append(StackTime(stack=stack, count=2000, run_s=2 ** -9, greenlet=5))
            p.waits.append(StackTime(stack=stack, count=2000, wait_s=0.0, event_wait_s=0.0))
        return findings.pool_full(p)
    return [*run(True), *run(False)]


@scenario
def pool_full_at_half_idle_and_the_threshold():
    # idle exactly half the 2 s run, slot waits 0.03125 + 0.03125 = the 0.0625 threshold
    # (their ready wait not counted): a finding, at the user's line, main and app.fetch
    return findings.pool_full(pool_profile(1.0, [(SLOT_STACK, 0.03125),
                                                 (SLOT_STACK[:2], 0.03125)]))


@scenario
def pool_full_not_with_a_busy_loop_nor_short_waits():
    # idle just under half the run; then waits just under the threshold: none
    busy = pool_profile(1.0 - 2 ** -20, [(SLOT_STACK, 0.5)])
    short = pool_profile(1.5, [(SLOT_STACK, 0.0625 - 2 ** -20)])
    no_idle = pool_profile(None, [(SLOT_STACK, 0.5)])
    return [*findings.pool_full(busy), *findings.pool_full(short),
            *findings.pool_full(no_idle)]


@scenario
def pool_full_inside_pool_map_names_the_maps_caller():
    return findings.pool_full(pool_profile(1.5, [(MAP_SLOT_STACK, 1.5)], map_caller=True))


GEVENT_THREAD = "/venv/lib/python3.11/site-packages/gevent/thread.py"
GEVENT_LOCK = "/venv/lib/python3.11/site-packages/gevent/lock.py"
THREADING = "/usr/lib/python3.11/threading.py"


@scenario
def lock_contended_on_patched_locks_not_on_events():
    # a patched threading.Lock at the app's line (0.25 s) and an RLock taken with
    # "with" (0.125 s): 0.375 s, a finding named by the larger; an Event's inner lock
    # (1 s) and a queue's (1 s) are waits for an event, left out.  Idle 1.5 s of 2 s.
    p = pool_profile(1.5, [
        ([f"{GEVENT_THREAD}:320:LockType.acquire", f"{APP}:50:update_token"], 0.25),
        ([f"{GEVENT_LOCK}:313:RLock.acquire", f"{GEVENT_LOCK}:333:RLock.__enter__",
          f"{APP}:60:log_it"], 0.125),
        ([f"{GEVENT_THREAD}:320:LockType.acquire", f"{THREADING}:320:Condition.wait",
          f"{THREADING}:622:Event.wait", f"{APP}:70:wait_ready"], 1.0),
        ([f"{GEVENT_THREAD}:320:LockType.acquire", "/usr/lib/python3.11/queue.py:171:Queue.get",
          f"{APP}:80:consume"], 1.0)])
    p.runs.append(StackTime(stack=[f"{GEVENT_LOCK}:313:RLock.acquire",
                                   f"{GEVENT_LOCK}:333:RLock.__enter__", f"{APP}:60:log_it"],
                            count=1, greenlet=4))
    return findings.lock_contended(p)


@scenario
def lock_contended_not_with_only_event_waits_or_a_busy_loop():
    event_only = pool_profile(1.5, [([f"{GEVENT_THREAD}:320:LockType.acquire",
                                      f"{THREADING}:320:Condition.wait"], 1.0)])
    busy = pool_profile(0.5, [([f"{GEVENT_THREAD}:320:LockType.acquire", f"{APP}:50:f"], 1.0)])
    lock_only = pool_profile(1.5, [([f"{GEVENT_THREAD}:320:LockType.acquire"], 1.0)])
    # the last: a lock frame and nothing under it (a truncated stack) is still a lock
    return [*findings.lock_contended(event_only), *findings.lock_contended(busy),
            *findings.lock_contended(lock_only)]


@scenario
def lock_contended_on_a_compiled_semaphore_at_the_line_that_took_it():
    # gevent's Semaphore is compiled: the app's own line is the innermost frame.  There,
    # entering a with block (0.25 s) and calling .acquire (0.125 s) are lock waits:
    # 0.375 s, named by the larger.  Not: a queue's get at the app's line (1 s), a with
    # block entered inside gevent (Pool.add, 0.5 s: the library's line is innermost), a
    # wait whose call is unknown (1 s).
    p = pool_profile(1.5, [([f"{APP}:50:handler"], 0.25), ([f"{APP}:51:handler2"], 0.125),
                           ([f"{APP}:80:consume"], 1.0), (SLOT_STACK, 0.5),
                           ([f"{APP}:90:other"], 1.0)])
    for w, call in zip(p.waits, ["with", "acquire", "get", "with", None]):
        w.call = call
    return findings.lock_contended(p)


@scenario
def lock_contended_on_a_rate_limiters_semaphore():
    # as above, 8 waits in all: with 4 greenlets that ran BoundedSemaphore.release
    # (permits given back on timers), exactly half: told as a rate limit, whose budget
    # is the fix; with 3, as before
    def made(timers):
        p = pool_profile(1.5, [([f"{APP}:50:handler"], 0.25), ([f"{APP}:51:handler2"], 0.125)])
        for w, call in zip(p.waits, ["with", "acquire"]):
            w.call = call
        p.greenlets += [GreenletStats(id=10 + n, parent=1,
                                      name="gevent._gevent_c_semaphore.BoundedSemaphore.release")
                        for n in range(timers)]
        return p
    return [*findings.lock_contended(made(4)), *findings.lock_contended(made(3))]


@scenario
def lock_contended_on_both_kinds_of_lock():
    p = pool_profile(1.5, [([f"{GEVENT_THREAD}:320:LockType.acquire", f"{APP}:50:update_token"],
                            0.125), ([f"{APP}:60:handler"], 0.25)])
    p.waits[1].call = "with"
    return findings.lock_contended(p)


URLLIB3_POOL = "/venv/lib/python3.11/site-packages/urllib3/connectionpool.py"
CONN_WAIT_STACK = [f"{URLLIB3_POOL}:280:HTTPConnectionPool._get_conn",
                   f"{URLLIB3_POOL}:773:HTTPConnectionPool.urlopen",
                   "/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send",
                   f"{APP}:18:worker"]
# the standard library's queue (gevent patched threading, not queue) under _get_conn
STDLIB_CONN_WAIT_STACK = [f"{GEVENT_THREAD}:320:LockType.acquire",
                          f"{THREADING}:320:Condition.wait",
                          "/usr/lib/python3.11/queue.py:180:Queue.get", *CONN_WAIT_STACK]
# a pooled connection's drop check polls, under _get_conn too: no wait for a connection
DROP_CHECK_STACK = ["/venv/lib/python3.11/site-packages/gevent/select.py:348:poll.poll",
                    "/venv/lib/python3.11/site-packages/urllib3/util/wait.py:77:do_poll",
                    "/venv/lib/python3.11/site-packages/urllib3/connection.py:420:is_connected",
                    *CONN_WAIT_STACK]


@scenario
def connection_pool_full_on_urllib3_queue_waits_not_its_drop_check():
    # _get_conn's queue, compiled (0.5 s) and the standard library's under patched locks
    # (0.25 s): 0.75 s, named by the larger, main (the compiled row's runs greenlet); the
    # drop check's poll (1 s) is no wait for a connection.  Idle 1.5 of 2 s.
    return findings.connection_pool_full(pool_profile(1.5, [
        (CONN_WAIT_STACK, 0.5), (STDLIB_CONN_WAIT_STACK, 0.25), (DROP_CHECK_STACK, 1.0)]))


@scenario
def connection_pool_full_tells_connections_idle_between_uses():
    # the waiters' ready wait at the pool, 0.25 s: 12.5 % of one blocking connection's
    # 2 s, told with the code the loop's holder (app.fetch, #3) burned (job:24, 75 % of
    # its samples); at two connections 6.25 %, and a pool that does not block counts no
    # connection-time: not told
    def run(maxsize, block=True):
        p = pool_profile(1.5, [(CONN_WAIT_STACK, 0.5), (STDLIB_CONN_WAIT_STACK, 0.25)])
        p.events = [{"kind": "urllib3-pool", "pool": "http://up", "maxsize": maxsize,
                     "pools": 1, "block": block}]
        p.greenlet(3).delayed_others_s = 1.0
        p.cpu_samples = hot_samples()
        return findings.connection_pool_full(p)
    return [*run(1), *run(2), *run(1, block=False)]


@scenario
def connection_pool_full_not_with_a_busy_loop_nor_short_waits():
    return [*findings.connection_pool_full(pool_profile(1.0 - 2 ** -20, [(CONN_WAIT_STACK, 1.0)])),
            *findings.connection_pool_full(pool_profile(1.5, [(CONN_WAIT_STACK,
                                                               0.0625 - 2 ** -20)]))]


def test_a_wait_for_a_pooled_connection_is_no_hand_off():
    waits = [StackTime(stack=list(stack), call=call) for stack, call in (
        (CONN_WAIT_STACK, "get"), (STDLIB_CONN_WAIT_STACK, None), (DROP_CHECK_STACK, None))]
    assert [findings.handoff.is_handoff(w) for w in waits] == [False, False, False]
    assert findings.handoff.is_handoff(StackTime(stack=STDLIB_CONN_WAIT_STACK[:3] + [
        f"{APP}:80:consume"]))


REQUESTS_PKG = "/venv/lib/python3.11/site-packages/requests"
URLLIB3_PKG = "/venv/lib/python3.11/site-packages/urllib3"
API_CALL = [f"{REQUESTS_PKG}/sessions.py:589:Session.request",
            f"{REQUESTS_PKG}/api.py:59:request", f"{REQUESTS_PKG}/api.py:73:get",
            f"{APP}:15:worker"]
OPENING = [f"{URLLIB3_PKG}/util/connection.py:60:create_connection",
           f"{URLLIB3_PKG}/connection.py:239:HTTPConnection._new_conn",
           f"{URLLIB3_PKG}/connection.py:398:HTTPConnection.connect",
           f"{URLLIB3_PKG}/connectionpool.py:493:HTTPConnectionPool._make_request"]
LOOKUP_STACK = ["/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply",
                *OPENING, *API_CALL]
CONNECT_STACK = [f"{GEVENT}:631:SocketMixin._internal_connect", *OPENING, *API_CALL]


def api_profile(lookups=16, lookup_s=0.5, connect_s=0.125, runs=True, read_s=2.0):
    """Waits of connections opened under requests.get (a name lookup, a connect), one
    under a Session's own call (1 s) and a response read under requests.get (*read_s*);
    the run slices that ended opening them, 0.5 s."""
    p = profile(waits=[
        StackTime(stack=list(LOOKUP_STACK), count=lookups, wait_s=lookup_s,
                  event_wait_s=lookup_s / 2, ready_wait_s=lookup_s / 2, call="get"),
        StackTime(stack=list(CONNECT_STACK), count=lookups - 1, wait_s=connect_s,
                  event_wait_s=connect_s, ready_wait_s=0.0),
        StackTime(stack=[*CONNECT_STACK[:5], f"{APP}:30:with_a_session"], count=40,
                  wait_s=1.0, event_wait_s=1.0, ready_wait_s=0.0),
        StackTime(stack=[*READ_STACK[:3], *API_CALL], count=16, wait_s=read_s,
                  event_wait_s=read_s, ready_wait_s=0.0)])
    if runs:
        p.runs = [StackTime(stack=list(LOOKUP_STACK), count=lookups, run_s=0.375, cpu_s=0.25,
                            greenlet=3),
                  StackTime(stack=list(CONNECT_STACK), count=lookups - 1, run_s=0.125,
                            greenlet=4)]
    return p


@scenario
def session_per_request_counts_the_connections_requests_get_opened():
    # under requests.get: the lookup (16 waits, 0.5 s) and the connect (15, 0.125 s):
    # at least 16 connections, 0.625 s; CPU 0.25 s in the lookup's slices (the connect's
    # is unmeasured).  Not: a connect under a Session's own call, a read under get.
    # Calls in flight: (0.625 + 2 s read + 0.5 s run under get) / 2 s = 1.5625.
    return findings.session_per_request(api_profile())


@scenario
def session_per_request_not_for_a_few_calls_or_short_waits():
    # 9 connections (one fewer than the minimum); waits just under the threshold; 16
    # connections for just over 8 calls in flight ((16 + 2**-16) s inside get over 2 s);
    # 16 connections made by 9 greenlets named app.fetch (#3, #4 and 7 folded)
    return [*findings.session_per_request(api_profile(lookups=9)),
            *findings.session_per_request(api_profile(read_s=14.875 + 2 ** -16)),
            *findings.session_per_request(_named_callers(api_profile(), 7)),
            *findings.session_per_request(api_profile(lookup_s=0.03125,
                                                      connect_s=0.03125 - 2 ** -20))]


@scenario
def session_per_request_of_a_full_pools_jobs():
    # session_per_request_not_for_a_few_calls_or_short_waits' 9 callers named
    # app.fetch, but spawned by main (#1) into a gevent Pool it waited 0.5 s for slots
    # of: they ran at most the pool's size at once, no burst needing a connection each,
    # and the 16 connections for about one call in flight are told; with main's slot
    # waits under a block threshold, not
    def run(slot_wait):
        p = _named_callers(api_profile(), 7)
        for gid in (3, 4, 5):
            p.greenlet(gid).parent = 1
        p.waits.append(StackTime(stack=list(SLOT_STACK), count=4, wait_s=slot_wait,
                                 event_wait_s=slot_wait, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=list(SLOT_STACK), count=4, greenlet=1))
        return findings.session_per_request(p)
    return [*run(0.5), *run(0.03125)]


@scenario
def session_per_request_at_the_edges():
    # exactly 10 connections and exactly the 0.0625 s threshold of waiting, no slice
    # recorded there: a finding without a CPU figure; 16 connections for exactly 8
    # calls in flight (16 s inside get over 2 s), and for exactly 8 calling greenlets
    return [*findings.session_per_request(api_profile(lookups=10, lookup_s=0.03125,
                                                      connect_s=0.03125, runs=False)),
            *findings.session_per_request(api_profile(read_s=14.875)),
            *findings.session_per_request(_named_callers(api_profile(), 6))]


SESSION_CONNECT = [*CONNECT_STACK[:5], f"{APP}:30:with_a_session"]


def urllib3_pool(pool, opened, peak, maxsize, discarded, block=False, pools=1):
    return {"kind": "urllib3-pool", "pool": pool, "pools": pools, "maxsize": maxsize,
            "block": block, "checkouts": 4 * opened, "peak_in_use": peak, "opened": opened,
            "discarded": discarded}


def setup_samples():
    """CPU samples: 0.25 s of the greenlets' 1 s under a connection's set-up (a connect
    frame), and the hub's 1 s (left out)."""
    connect = f"{URLLIB3_PKG}/connection.py:398:HTTPConnection.connect"
    return CpuSamples(frames=[connect, f"{APP}:30:with_a_session", f"{HUB}:1:Hub.run"],
                      first_lines=[390, 28, 1],
                      stacks=[SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[],
                                           count=1, cpu_s=0.25, gid=3),
                              SampledStack(frames=[1], greenlet="app.fetch", sections=[],
                                           count=3, cpu_s=0.75, gid=4),
                              SampledStack(frames=[2], greenlet="hub", sections=[], count=4,
                                           cpu_s=1.0, gid=2)])


def churn_profile(pools, event=0.5, samples=True, lookups=16):
    """api_profile's connections opened under a Session's own call (40, waiting *event*
    s for the network and 0.25 s queued) beside requests.get's (session-per-request's:
    not these findings'), with *pools* (urllib3-pool events); the greenlets' ready wait
    is 4 s (#3 2 s, #4 and the folded app.parse 1 s each) and, with *samples*, a quarter
    of their sampled CPU set connections up: 1 s of queueing."""
    p = api_profile(lookups=lookups)
    [row] = [w for w in p.waits if w.stack == SESSION_CONNECT]
    row.wait_s, row.event_wait_s, row.ready_wait_s = event + 0.25, event, 0.25
    for gid, ready in ((1, 0.0), (3, 2.0), (4, 1.0), (5, 1.0)):
        g = p.greenlet(gid)
        g.ready_wait_s, g.event_wait_s = ready, 0.25
    p.cpu_samples = setup_samples() if samples else None
    p.events = list(pools)
    return p


@scenario
def connection_churn_takes_the_share_of_connections_past_the_peak():
    # https://a keeps 4, had 16 in flight, opened 64: 48 past the peak, the worst;
    # http://b keeps 8, had 32, opened 64: 32 past (the fix's size: the larger peak).  A
    # blocking pool (waits, never discards) is not churn and not counted.  Share 80 /
    # 128 = 0.625 of (0.5 s waiting for the network to open + 1 s of queueing behind the
    # CPU that set connections up): cost 0.9375 s, 0.625 s of it others' ready wait.
    # The requests.get rows are not counted.
    return findings.connection_churn(churn_profile([
        urllib3_pool("http://b:80", 64, 32, 8, 32),
        urllib3_pool("https://a:443", 64, 16, 4, 60),
        urllib3_pool("http://c:80", 64, 16, 4, 48, block=True)]))


@scenario
def connection_churn_of_pools_in_several_sizes():
    # two Sessions on https://a, pool_maxsize 4 and 16: the message gives both sizes;
    # a minsize the size itself, or none (an older profile), gives the one
    out = []
    for minsize in (4, 16, None):
        pool = urllib3_pool("https://a:443", 64, 16, 16, 60)
        pool["pools"] = 2
        if minsize is not None:
            pool["minsize"] = minsize
        out += findings.connection_churn(churn_profile([pool]))
    return out


@scenario
def connection_churn_not_for_few_reopened_or_short_waits():
    # 9 opened past the peak (25 - 16); 9 discarded; a blocking pool; a cost just under
    # the 0.0625 s threshold without CPU samples (0.5 x (2**-3 - 2**-20)); no pool events
    # (a profile from before the pool watch); no connect waits outside requests.get
    # (the session-per-request rows are that finding's)
    no_rows = churn_profile([urllib3_pool("https://a:443", 64, 16, 4, 60)])
    no_rows.waits = [w for w in no_rows.waits if w.stack != SESSION_CONNECT]
    return [*findings.connection_churn(churn_profile([
                urllib3_pool("https://a:443", 25, 16, 4, 60)])),
            *findings.connection_churn(churn_profile([
                urllib3_pool("https://a:443", 64, 16, 4, 9)])),
            *findings.connection_churn(churn_profile([
                urllib3_pool("https://a:443", 64, 16, 4, 60, block=True)])),
            *findings.connection_churn(churn_profile(
                [urllib3_pool("http://a:80", 32, 16, 4, 10)], event=2 ** -3 - 2 ** -20,
                samples=False)),
            *findings.connection_churn(churn_profile([])),
            *findings.connection_churn(no_rows)]


@scenario
def connection_churn_at_the_edges():
    # exactly 10 discarded and a cost of exactly the threshold without CPU samples: 16
    # of 32 past the peak, 0.5 x 2**-3; exactly 10 past the peak (26 - 16), the pool's
    # size above its peak (a size of 20 keeps 20: 6 past it, none)
    return [*findings.connection_churn(churn_profile(
                [urllib3_pool("http://a:80", 32, 16, 4, 10)], event=2 ** -3, samples=False)),
            *findings.connection_churn(churn_profile([
                urllib3_pool("http://a:80", 26, 16, 4, 60)])),
            *findings.connection_churn(churn_profile([
                urllib3_pool("http://a:80", 26, 16, 20, 60)]))]


def with_saturated(other):
    """saturated() (its ready wait 3.5 s) with *other*'s waits, pool events, meta and
    CPU samples (a quarter set connections up: 0.875 s of its queueing)."""
    p = saturated()
    p.waits, p.events, p.meta = other.waits, other.events, {**p.meta, **other.meta}
    p.cpu_samples = other.cpu_samples
    return p


@scenario
def loop_saturated_leaves_the_churn_its_queueing():
    # 3.5 s less the 0.546875 s the churn takes (0.625 x 0.875 s)
    return findings.loop_saturated(with_saturated(churn_profile([
        urllib3_pool("http://b:80", 64, 32, 8, 32),
        urllib3_pool("https://a:443", 64, 16, 4, 60)])))


def leak_pool(pool, opened, unreturned, block=False):
    return {**urllib3_pool(pool, opened, opened, 16, 0, block=block), "unreturned": unreturned}


def leak_profile(pools, alive=None, rows=True):
    """churn_profile's connection waits and samples, *pools*, and *alive* greenlets at
    the end (meta.alive_at_end; None: a snapshot)."""
    p = churn_profile(pools)
    p.meta["alive_at_end"] = alive
    if not rows:
        p.waits = [w for w in p.waits if w.stack != SESSION_CONNECT]
    return p


@scenario
def connection_leak_counts_what_the_live_greenlets_cannot_hold():
    # 40 + 8 connections still out, 16 greenlets alive (a count not a number, and a
    # negative one, ignored): 32 leaked of 128 opened, share 0.25 of (0.5 s waiting to
    # open + 1 s of queueing): 0.375 s, 0.25 s of it others' ready wait.  The blocking
    # pool still holds some out: its requests will wait for ever.
    return findings.connection_leak(leak_profile(
        [leak_pool("https://a:443", 64, 40), leak_pool("http://b:80", 64, 8, block=True),
         leak_pool("http://c:80", 0, 0, block=True)],
        alive={"app.fetch": 12, "app.parse": 4, "odd": "x", "neg": -3}))


@scenario
def connection_leak_not_within_the_live_greenlets_or_few():
    # 25 out for 16 alive: 9 leaked; a snapshot (no alive_at_end: every greenlet of the
    # profile, 5, may be reading) with 14 out: 9; no pool events
    return [*findings.connection_leak(leak_profile([leak_pool("http://a:80", 64, 25)],
                                                   alive={"app.fetch": 16})),
            *findings.connection_leak(leak_profile([leak_pool("http://a:80", 64, 14)])),
            *findings.connection_leak(leak_profile([], alive={}))]


@scenario
def connection_leak_at_the_edges():
    # exactly 10 leaked (26 out, 16 alive); none alive and no connect waits recorded
    # (no stack, no site; the CPU that set them up still costs: 0.625 x 1 s); more out
    # than opened while tracing (checked out before it): the leak is at most what was
    # opened, share 1.0; a snapshot with 15 out for its 5 greenlets: 10
    return [*findings.connection_leak(leak_profile([leak_pool("http://a:80", 64, 26)],
                                                   alive={"app.fetch": 16})),
            *findings.connection_leak(leak_profile([leak_pool("https://a:443", 64, 40)],
                                                   alive={}, rows=False)),
            *findings.connection_leak(leak_profile([leak_pool("http://a:80", 12, 40)],
                                                   alive={})),
            *findings.connection_leak(leak_profile([leak_pool("http://a:80", 64, 15)]))]


@scenario
def loop_saturated_leaves_the_leak_its_queueing():
    # 3.5 s less the 0.21875 s the leak takes (0.25 x 0.875 s)
    return findings.loop_saturated(with_saturated(leak_profile(
        [leak_pool("https://a:443", 64, 40), leak_pool("http://b:80", 64, 8)],
        alive={"app.fetch": 16})))


@scenario
def session_per_request_by_new_pools():
    # requests.get opened only 9 connections (too few for its own case); http://a was
    # reached through 48 pools (at least 10, and twice its peak of 8 in flight), opening
    # 48 connections: 38 past what one pool of 10 keeps; http://b through 12 pools for a
    # peak of 8 (under twice): not counted, its 16 connections are in the denominator.
    # Share 38 / 64 = 0.59375 of (0.5 s + 1 s): 0.890625 s.
    return findings.session_per_request(churn_profile(
        [urllib3_pool("http://a:80", 48, 8, 10, 0, pools=48),
         urllib3_pool("http://b:80", 16, 8, 10, 0, pools=12)], lookups=9))


@scenario
def session_per_request_not_by_a_few_pools():
    # 9 pools (under 10); 15 pools for a peak of 8 (under 16); 9 connections past the
    # pool's size (19 opened, size 10)
    return [*findings.session_per_request(churn_profile(
                [urllib3_pool("http://a:80", 48, 2, 10, 0, pools=9)], lookups=9)),
            *findings.session_per_request(churn_profile(
                [urllib3_pool("http://a:80", 48, 8, 10, 0, pools=15)], lookups=9)),
            *findings.session_per_request(churn_profile(
                [urllib3_pool("http://a:80", 19, 2, 10, 0, pools=19)], lookups=9))]


@scenario
def session_per_request_by_new_pools_at_the_edges():
    # exactly twice the peak (16 pools for 8) and exactly 10 past the size (20 opened,
    # size 10); exactly 10 pools for a peak of 5
    return [*findings.session_per_request(churn_profile(
                [urllib3_pool("http://a:80", 20, 8, 10, 0, pools=16)], lookups=9)),
            *findings.session_per_request(churn_profile(
                [urllib3_pool("http://a:80", 48, 5, 10, 0, pools=10)], lookups=9))]


@scenario
def session_per_request_by_pools_closed_past_pool_connections():
    # 11 hosts (past the 10 a PoolManager keeps), each reached through 36 pools for 40
    # requests (exactly EVICTED_POOLS_SHARE): one Session's pools closed and made again,
    # told first as that with pool_connections as the fix; 37 pools for 40: a pool per
    # call, the Session-per-call story (with pool_connections after it)
    def spread(pools):
        events = [urllib3_pool(f"https://h{i}:443", 40, 3, 10, 0, pools=pools)
                  for i in range(11)]
        for e in events:
            e["checkouts"] = 40
        return findings.session_per_request(churn_profile(events, lookups=9))
    return [*spread(36), *spread(37)]


FAILING_CALL = [f"{GEVENT}:687:SocketMixin.recv_into",
                f"{URLLIB3_PKG}/connectionpool.py:793:HTTPConnectionPool.urlopen",
                f"{REQUESTS_PKG}/adapters.py:696:HTTPAdapter.send", f"{APP}:40:call"]


def failing_pool(pool, failed, calls, failed_s, errors, sites, timeout=None):
    return {"kind": "urllib3-pool", "pool": pool, "calls": calls, "failed": failed,
            "failed_s": failed_s, "read_timeout_s": timeout, "errors": errors,
            "sites": sites}


def failing_profile(pools, call=FAILING_CALL):
    """The waits of calls made at app line 40 (2 s, one greenlet #3), waiting at *call*
    (failing, by default), and of a call elsewhere (0.5 s), with *pools*."""
    p = profile(waits=[StackTime(stack=list(call), count=10, wait_s=2.0,
                                 event_wait_s=2.0, ready_wait_s=0.0),
                       StackTime(stack=[*FAILING_CALL[:3], f"{APP}:41:other"], count=2,
                                 wait_s=0.5, event_wait_s=0.5, ready_wait_s=0.0)],
                runs=[StackTime(stack=list(call), count=10, run_s=0.125, greenlet=3)])
    p.events = list(pools)
    return p


@scenario
def requests_failed_by_error_with_its_story():
    # a: 8 of 10 raised in 2 s (6 read timeouts at 0.25 s, 2 resets), all from line 40;
    # b: 2 of 2 refused in 0.5 s, one from 40 and one from 41; c: none raised.  2.5 s
    # lost over 10 failures; errors merged across pools, most first; line 40 made 9.
    return findings.requests_failed(failing_profile([
        failing_pool("http://b:80", 2, 2, 0.5, [["NewConnectionError", 2]],
                     [[f"{APP}:40:call", 1], [f"{APP}:41:other", 1]]),
        failing_pool("https://a:443", 8, 10, 2.0,
                     [["ReadTimeoutError", 6], ["ProtocolError", 2]],
                     [[f"{APP}:40:call", 8]], timeout=0.25),
        failing_pool("http://c:80", 0, 5, 0.0, [], [])]))


@scenario
def requests_failed_not_under_the_threshold():
    # 0.0625 - 2**-20 s lost; a pool whose failed count is 0 whatever its time says; a
    # time that is not finite
    return [*findings.requests_failed(failing_profile([failing_pool(
                "http://a:80", 1, 1, 0.0625 - 2 ** -20, [["ReadTimeoutError", 1]], [])])),
            *findings.requests_failed(failing_profile([failing_pool(
                "http://a:80", 0, 4, 1.0, [["ReadTimeoutError", 1]], [])])),
            *findings.requests_failed(failing_profile([failing_pool(
                "http://a:80", 3, 4, float("inf"), [["ReadTimeoutError", 3]], [])]))]


@scenario
def requests_failed_at_the_edges():
    # exactly the 0.0625 s threshold; a gevent.Timeout and an error of no known kind
    # (told by its name); no calling line recorded (no stack, no site); malformed
    # pairs, counts under 1 or not integers, and tables that are not lists skipped
    return findings.requests_failed(failing_profile([failing_pool(
        "http://a:80", 2, 2, 0.0625, [["Timeout", 1], ["WeirdError", 1], ["x"], [3, 1],
                                      ["y", "1"], ["neg", -5], ["flag", True]], [["z"]]),
        failing_pool("http://b:80", 1, 1, 0.0, 5, 7)]))


@scenario
def requests_failed_timeout_within_the_usual_latency():
    # 8 gevent.Timeouts after 0.25 s each (2 s); the requests that answered took 0.125 s
    # to their heads on average (5 timed: 0.375 s over 3 new, 0.25 s over 2 reused):
    # exactly half of 0.25 s, so the timeout is what to change; 0.125 - 2**-16 s on
    # average, and the upstream's side is named as before; 4 answers are too few
    def timed(new_s, reused_s, new_n=3):
        pool = failing_pool("http://a:80", 8, 13, 2.0, [["Timeout", 8]],
                            [[f"{APP}:40:call", 8]])
        pool["trails"] = {"new": [new_n, 0, 0.0, 0.0, new_s], "reused": [2, 0, 0.0, 0.0,
                                                                        reused_s]}
        return findings.requests_failed(failing_profile([pool]))
    return [*timed(0.375, 0.25), *timed(0.375, 0.25 - 5 * 2 ** -16),
            *timed(0.25, 0.25, new_n=2)]


@scenario
def requests_failed_retried_inside_against_the_read_timeout():
    # 4 read timeouts after 0.5 s each (2 s): four attempts of a 0.125 s read timeout
    # each, urllib3 retrying inside (40 checkouts for 10 calls).  The requests that
    # answered took 0.0625 s to their heads (5 timed): exactly half the read timeout,
    # so the timeout is what to change (against the 0.5 s they gave up after, it would
    # not be); 2**-16 s less and the upstream's side is named.  Without more checkouts
    # than calls, no word of retries
    def retried(heads_s, checkouts=40):
        pool = failing_pool("http://a:80", 4, 10, 2.0, [["ReadTimeoutError", 4]],
                            [[f"{APP}:40:call", 4]], timeout=0.125)
        pool["checkouts"] = checkouts
        pool["trails"] = {"new": [5, 0, 0.0, 0.0, heads_s]}
        return findings.requests_failed(failing_profile([pool]))
    return [*retried(0.3125), *retried(0.3125 - 2 ** -16), *retried(0.3125, checkouts=10),
            # MIN_RETRIES_TOLD: 10 attempts past the calls told, 9 not
            *retried(0.3125, checkouts=20), *retried(0.3125, checkouts=19)]


# The body read of a call made at app line 40: where stalled bodies wait.
BODY_READ = [f"{GEVENT}:687:SocketMixin.recv_into",
             "/usr/lib/python3.11/http/client.py:473:HTTPResponse.read",
             f"{URLLIB3_PKG}/response.py:1029:HTTPResponse._fp_read",
             f"{REQUESTS_PKG}/models.py:1042:Response.content", f"{APP}:40:call"]


def trail_pool(pool, reused, new, heads=(0.0, 0.0)):
    """A pool event with body-after-head trails [n, stalled, seconds, seconds stalled,
    seconds to the heads] (*heads*: the reused and the new connections' last figure)."""
    return {"kind": "urllib3-pool", "pool": pool, "calls": reused[0] + new[0],
            "trails": {"reused": [*reused, heads[0]], "new": [*new, heads[1]]}}


def trail_profile(pools):
    """Waits in the body read under app line 40 (2 s, greenlet #3), and elsewhere."""
    return failing_profile(pools, BODY_READ)


@scenario
def delayed_ack_stall_on_reused_connections_only():
    # a: 12 of 16 reused bodies stalled, 0.5 s of them; 4 new ones took 0.0625 s in all
    # (1/64 s each, none stalled): 0.5 - 12/64 = 0.3125 s lost.  b: 10 of 20 (exactly
    # half) stalled for 0.75 s, 3 new with 1 stalled (a third: more than a quarter): no.
    # c: every reused body stalled but no new connection to compare with: no.  a's
    # requests waited 1.5 s for their heads: 0.5 s stalled of 2.125 s.
    return findings.delayed_ack_stall(trail_profile([
        trail_pool("http://a:80", [16, 12, 0.625, 0.5], [4, 0, 0.0625, 0.0], (1.5, 0.25)),
        trail_pool("http://b:80", [20, 10, 0.75, 0.75], [3, 1, 0.25, 0.0625]),
        trail_pool("http://c:80", [30, 30, 1.5, 1.5], [0, 0, 0.0, 0.0])]))


@scenario
def delayed_ack_stall_at_the_edges():
    # exactly MIN_STALLS (10) stalls, exactly half of the reused, exactly MIN_NEW (3) new
    # ones (1/32 s each, none stalled), costing exactly the 0.0625 s threshold
    # (0.375 - 10/32); then a quarter of 4 new ones stalled: still told apart; then
    # stalls of exactly a tenth (MIN_TIME_SHARE) of the reused requests' time (0.5 s
    # of 0.5 + 4.5 s)
    return [*findings.delayed_ack_stall(trail_profile([
                trail_pool("http://a:80", [20, 10, 0.5, 0.375], [3, 0, 0.09375, 0.0])])),
            *findings.delayed_ack_stall(trail_profile([
                trail_pool("http://b:80", [10, 10, 0.5, 0.5], [4, 1, 0.0625, 0.0625])])),
            *findings.delayed_ack_stall(trail_profile([
                trail_pool("http://c:80", [10, 10, 0.5, 0.5], [4, 0, 0.0, 0.0], (4.5, 0.0))]))]


@scenario
def delayed_ack_stall_not_below_its_edges():
    # 9 stalls; 10 of 21 (under half); 2 new ones; 2 of 7 new stalled (over a quarter);
    # stalls just under a tenth of the requests' time (heads 2**-16 s later);
    # 0.0625 - 2**-20 s lost; malformed trails (a bool, a negative, a short list, NaN,
    # more stalled than bodies, not a dict, an integer too large for a float); a host
    # whose stalls took no longer than its new connections' bodies (nothing lost: not
    # listed); and, found, without body-read
    # waits: no stack, no site
    no_reads = trail_profile([trail_pool("http://a:80", [10, 10, 0.5, 0.5], [4, 0, 0.0, 0.0])])
    no_reads.waits = []
    return [*findings.delayed_ack_stall(trail_profile([
                trail_pool("http://a:80", [9, 9, 0.5, 0.5], [4, 0, 0.0, 0.0]),
                trail_pool("http://b:80", [21, 10, 0.5, 0.5], [4, 0, 0.0, 0.0]),
                trail_pool("http://c:80", [10, 10, 0.5, 0.5], [2, 0, 0.0, 0.0]),
                trail_pool("http://d:80", [10, 10, 0.5, 0.5], [7, 2, 0.0, 0.0]),
                trail_pool("http://m:80", [10, 10, 0.5, 0.5], [4, 0, 0.0, 0.0],
                           (4.5 + 2 ** -16, 0.0)),
                trail_pool("http://e:80", [10, 10, 0.0625 - 2 ** -20, 0.0625 - 2 ** -20],
                           [4, 0, 0.0, 0.0]),
                trail_pool("http://f:80", [10, True, 0.5, 0.5], [4, 0, 0.0, 0.0]),
                trail_pool("http://g:80", [10, 10, -0.5, 0.5], [4, 0, 0.0, 0.0]),
                trail_pool("http://h:80", [10, 10, 0.5], [4, 0, 0.0, 0.0]),
                trail_pool("http://i:80", [10, 10, 0.5, float("nan")], [4, 0, 0.0, 0.0]),
                trail_pool("http://j:80", [10, 11, 0.5, 0.5], [4, 0, 0.0, 0.0]),
                {"kind": "urllib3-pool", "pool": "http://k:80", "trails": [1, 2]},
                {"kind": "urllib3-pool", "pool": 5,
                 "trails": {"reused": [10, 10, 0.5, 0.5, 0.0], "new": [4, 0, 0.0, 0.0, 0.0]}},
                {"kind": "urllib3-pool", "pool": "http://n:80",  # four figures, not five
                 "trails": {"reused": [10, 10, 0.5, 0.5], "new": [4, 0, 0.0, 0.0]}},
                trail_pool("http://l:80", [10, 10, 0.5, 0.5], [4, 0, 0.25, 0.0]),
                trail_pool("http://o:80", [10 ** 400, 10, 0.5, 0.5], [4, 0, 0.0, 0.0])])),
            *findings.delayed_ack_stall(no_reads)]


# Where a request waits for its answer: urllib3's getresponse, under app line 40.
ANSWER_WAIT = [f"{GEVENT}:687:SocketMixin.recv_into",
               f"{URLLIB3_PKG}/connection.py:516:HTTPConnection.getresponse",
               f"{URLLIB3_PKG}/connectionpool.py:534:HTTPConnectionPool._make_request",
               f"{REQUESTS_PKG}/adapters.py:696:HTTPAdapter.send", f"{APP}:40:call"]


def sends_pool(pool, reused, new, nagle=True):
    """A pool event: requests that sent a body, [n, seconds to their heads] per kind."""
    return {"kind": "urllib3-pool", "pool": pool, "nagle": nagle,
            "sends": {"reused": reused, "new": new}}


def sends_profile(pools):
    """Waits for an answer under app line 40 (2 s, greenlet #3), and elsewhere."""
    return failing_profile(pools, ANSWER_WAIT)


@scenario
def request_body_stall_by_host():
    # a: 16 posts on reused connections waited 1 s for their answers (1/16 s each), 4 on
    # new ones 1/64 s each: 3/64 s more each, 0.75 s lost.  b: the same, its
    # connections with TCP_NODELAY: no.  c: 12 at 0.25 s each against 0.5 s on new
    # ones: not later.
    return findings.request_body_stall(sends_profile([
        sends_pool("http://a:80", [16, 1.0], [4, 0.0625]),
        sends_pool("http://b:80", [16, 1.0], [4, 0.0625], nagle=False),
        sends_pool("http://c:80", [12, 3.0], [4, 2.0])]))


@scenario
def request_body_stall_at_the_edges():
    # exactly 10 requests and 3 new ones, 0.035 s more each than on new ones (to the
    # float: 0.35 against 0.315), that being a tenth of a reused request's time; listed
    # after a host losing more (16 requests 1/16 s later each).  The block threshold
    # never binds: 10 requests 0.035 s later make 0.35 s.
    return findings.request_body_stall(sends_profile([
        sends_pool("http://a:80", [10, 3.5], [3, 1.2599999999999998 * 3 / 4]),
        sends_pool("http://b:80", [16, 1.0], [4, 0.0])]))


@scenario
def request_body_stall_not_below_its_edges():
    # 9 requests; 2 new ones; 0.034 s more each; 0.04 s more, under a tenth of the
    # request's 0.5 s; nagle not exactly True;
    # malformed sends (a bool, a negative, NaN, a short list, not a dict, an integer
    # too large for a float); a pool
    # named by a number
    return findings.request_body_stall(sends_profile([
        sends_pool("http://a:80", [9, 0.9], [4, 0.0]),
        sends_pool("http://b:80", [10, 1.0], [2, 0.0]),
        sends_pool("http://c:80", [10, 0.34], [4, 0.0]),
        sends_pool("http://d:80", [10, 5.0], [4, 1.84]),
        sends_pool("http://f:80", [10, 1.0], [4, 0.0], nagle=1),
        sends_pool("http://g:80", [True, 1.0], [4, 0.0]),
        sends_pool("http://h:80", [10, -1.0], [4, 0.0]),
        sends_pool("http://i:80", [10, float("nan")], [4, 0.0]),
        sends_pool("http://j:80", [10], [4, 0.0]),
        {"kind": "urllib3-pool", "pool": "http://k:80", "nagle": True, "sends": [1]},
        sends_pool(5, [10, 1.0], [4, 0.0]),
        sends_pool("http://l:80", [10 ** 400, 1.0], [4, 0.0])]))


def served(responses, kept, nagle):
    return {"kind": "pywsgi-responses", "responses": responses, "kept": kept,
            "nagle": nagle}


@scenario
def server_nagle_counted_over_servers():
    # two records (a reset between, say): 6 + 4 held of 12 + 8 responses: 10 x 0.04 s
    return findings.server_nagle(profile(events=[served(12, 8, 6), served(8, 5, 4)]))


@scenario
def server_nagle_not_below_its_edges():
    # 9 held; 10 held under a 0.5 s block threshold (0.4 s); junk counts (a bool, a
    # string, a negative, NaN, an integer too large for a float) count nothing
    strict = profile(events=[served(20, 10, 10)])
    strict.meta["block_threshold_s"] = 0.5
    return [*findings.server_nagle(profile(events=[served(20, 9, 9)])),
            *findings.server_nagle(strict),
            *findings.server_nagle(profile(events=[
                served(20, 9, 9), served(1, 1, True), served(1, 1, "5"), served(1, 1, -4),
                served(1, 1, float("nan")), served(1, 1, 10 ** 400)]))]


def pooled_server(idle, pool_size=4, connections=5, other=None, filled=1, servers=1):
    """A 2 s run whose pywsgi server (a pool of *pool_size*, *connections* seen, *filled*
    of them taking its last slot) had its connections wait *idle* s for their clients'
    next requests, in two rows."""
    ev = {"kind": "pywsgi-responses", "served": 40, "responses": 40, "kept": 30,
          "nagle": 0, "connections": connections, "servers": servers}
    if pool_size is not None:
        ev.update(pool_size=pool_size, pool_filled=filled)
    return profile(events=[ev, *(other or [])], waits=[
        StackTime(stack=list(IDLE_SERVER_STACK), count=30, wait_s=idle * 0.75,
                  event_wait_s=idle * 0.75, ready_wait_s=0.0),
        StackTime(stack=[*IDLE_SERVER_STACK[:1], f"{PYWSGI}:780:WSGIHandler.handle"],
                  count=10, wait_s=idle * 0.25, event_wait_s=idle * 0.25, ready_wait_s=0.0),
        StackTime(stack=[f"{APP}:50:handler"], count=40, wait_s=1.0, event_wait_s=1.0,
                  ready_wait_s=0.0)])


@scenario
def server_pool_full_at_its_edges():
    # idle connections held 4 s over the 2 s run: 2 of the pool's 4 slots on average,
    # exactly half, the pool filled once: one; held 2 - 2**-16 s: none; a pool never
    # full: none; no pool (the default spawn, unbounded) or junk sizes (a bool, a
    # string, negative): none; two servers, or two records (their idle waits cannot be
    # told apart): none; idle past the slots (8.5 s: 4.25 held of 4, over 5 % more): none
    out = findings.server_pool_full(pooled_server(4.0))
    out += findings.server_pool_full(pooled_server(4.0 - 2 ** -16))
    out += findings.server_pool_full(pooled_server(4.0, filled=0))
    out += findings.server_pool_full(pooled_server(4.0, pool_size=None))
    for junk in (True, "4", -4):
        out += findings.server_pool_full(pooled_server(4.0, pool_size=junk))
    out += findings.server_pool_full(pooled_server(4.0, servers=2))
    out += findings.server_pool_full(pooled_server(4.0, other=[
        {"kind": "pywsgi-responses", "served": 1, "responses": 1, "kept": 0, "nagle": 0,
         "connections": 20, "pool_size": 16, "pool_filled": 1, "servers": 1}]))
    out += findings.server_pool_full(pooled_server(8.5))
    return out


@scenario
def serial_bottleneck_tells_a_gate_whose_setter_sleeps():
    # two app.fetch greenlets waited 0.5 s in wait() at their line, 6 times (3 each: a
    # gate), beside 1.5 s at their own calls; app.refresh made 2 calls of 0.15 s at its
    # line (at least half a wait, 0.083 s): 0.5 of 2.3 s of event wait (21.7 %): the gate
    # told on its own, naming the refresher's line; with 2.0 s at their calls (17.9 %):
    # not; calls of 0.03125 s (under half a wait): not
    def gate(own_calls=1.5, refresh_call=0.15):
        gate_stack = [f"{APP}:40:app"]
        own = [*JOB_CALL[:1], f"{URLLIB3_PKG}/connectionpool.py:793:HTTPConnectionPool."
               "urlopen", f"{APP}:41:app"]
        refresh = [*JOB_CALL[:1], f"{URLLIB3_PKG}/connectionpool.py:793:"
                   "HTTPConnectionPool.urlopen", f"{APP}:20:fetch_rules"]
        p = profile(waits=[
            StackTime(stack=gate_stack, count=6, wait_s=0.5, event_wait_s=0.5,
                      ready_wait_s=0.0, call="wait"),
            StackTime(stack=own, count=12, wait_s=own_calls, event_wait_s=own_calls,
                      ready_wait_s=0.0),
            StackTime(stack=refresh, count=2, wait_s=2 * refresh_call,
                      event_wait_s=2 * refresh_call, ready_wait_s=0.0)])
        p.greenlets.append(GreenletStats(id=6, name="app.refresh", parent=1))
        p.runs = [StackTime(stack=gate_stack, count=6, greenlet=3),
                  StackTime(stack=own, count=12, greenlet=4),
                  StackTime(stack=refresh, count=2, greenlet=6)]
        return findings.serial_bottleneck(p)
    return [*gate(), *gate(own_calls=2.0), *gate(refresh_call=0.03125)]


@scenario
def server_pool_full_of_busy_connections():
    # a pool of 4, 24 connections, none idle-waiting: the handlers waited 3 s at their
    # call while the hub idled 1.5 of the 2 s run; 3 connections took the last slot (of
    # 24: over a tenth): one, costing the handlers' 3 s; 2 took it: none; as many
    # connections as slots: none; a loop idle under half the run: none
    def busy(filled=3, connections=24, idle_s=1.5):
        ev = {"kind": "pywsgi-responses", "served": 96, "responses": 96, "kept": 72,
              "nagle": 0, "connections": connections, "servers": 1, "pool_size": 4,
              "pool_filled": filled}
        call = [*FAILING_CALL, f"{PYWSGI}:1057:WSGIHandler.run_application"]
        p = profile(events=[ev], hub={"id": 2, "idle_s": idle_s}, waits=[
            StackTime(stack=call, count=96, wait_s=3.25, event_wait_s=3.0,
                      ready_wait_s=0.25)])
        p.runs = [StackTime(stack=call, count=96, greenlet=3)]
        return findings.server_pool_full(p)
    return [*busy(), *busy(filled=2), *busy(connections=4), *busy(idle_s=0.9375)]


IN_HANDLER_CALL = ["/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin",
                   f"{URLLIB3_POOL}:540:HTTPConnectionPool._make_request",
                   f"{APP}:27:fetch_items", f"{APP}:35:app",
                   "/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:"
                   "WSGIHandler.run_application"]


def served_calls(responses, calls, in_handler=4.0, elsewhere=1.0):
    """A 2 s run: a pywsgi server's *responses* (served; those with a body are fewer),
    its handlers' *calls* (waits for a response's head on their own stacks, *in_handler*
    s), and a greenlet of its own's 400 calls (*elsewhere* s)."""
    return profile(events=[
        {"kind": "pywsgi-responses", "served": responses, "responses": 1, "kept": 0,
         "nagle": 0},
        {"kind": "urllib3-pool", "pool": "http://up", "calls": calls + 400}], waits=[
        StackTime(stack=list(IN_HANDLER_CALL), count=calls, wait_s=in_handler,
                  event_wait_s=in_handler, ready_wait_s=0.0),
        StackTime(stack=["/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin",
                         f"{URLLIB3_POOL}:540:HTTPConnectionPool._make_request",
                         f"{APP}:60:refresh"], count=400, wait_s=elsewhere,
                  event_wait_s=elsewhere, ready_wait_s=0.0),
        StackTime(stack=[f"{APP}:70:idle"], count=1, wait_s=3.0, event_wait_s=3.0,
                  ready_wait_s=0.0)])


JOB_CALL = ["/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin",
            f"{URLLIB3_POOL}:540:HTTPConnectionPool._make_request", f"{APP}:27:details",
            f"{APP}:40:main"]
JOB_STREAM = ["/usr/lib/python3.11/http/client.py:473:HTTPResponse.read",
              f"{URLLIB3_POOL}:1029:HTTPResponse._fp_read", f"{APP}:38:main"]


def job_calls(calls=50, waited=0.75, streamed=0.25, peak=2, owners=(1, 1)):
    """A 2 s job, no server: *calls* heads waited for at details (*waited* s) beside an
    index streamed at main (*streamed* s), the last left by greenlets *owners*; the pools'
    peak *peak*, the busiest keeping 4 (cost: 1 s x 3/4)."""
    p = profile(events=[
        {"kind": "urllib3-pool", "pool": "http://up", "calls": calls, "maxsize": 4,
         "peak_in_use": peak},
        {"kind": "urllib3-pool", "pool": "http://index", "calls": 1, "maxsize": 10,
         "peak_in_use": 1}], waits=[
        StackTime(stack=list(JOB_CALL), count=calls, wait_s=waited, event_wait_s=waited,
                  ready_wait_s=0.0),
        StackTime(stack=list(JOB_STREAM), count=3, wait_s=streamed, event_wait_s=streamed,
                  ready_wait_s=0.0)])
    p.hub["utilization"] = 0.125
    p.runs = [StackTime(stack=list(JOB_CALL), count=calls, run_s=0.01, greenlet=owners[0]),
              StackTime(stack=list(JOB_STREAM), count=3, run_s=0.01, greenlet=owners[1])]
    return p


@scenario
def sequential_calls_of_a_job_at_their_edges():
    # 50 calls waiting, with the stream, 1 s of the 2 s run (half) and 2 connections at
    # most in use: one, in main; 49 calls, 1 - 2**-16 s, 3.0 + 2**-14 s (more than 1.5 in
    # flight), a peak of 3, or a stack last left by another greenlet: none
    unpeaked = job_calls()
    del unpeaked.events[0]["peak_in_use"]
    lone = job_calls(peak=1)
    lone.events[0]["maxsize"] = 1
    return [*findings.sequential_calls(job_calls()),
            # a pool of one connection: the fix names requests' default 10 at once
            *findings.sequential_calls(lone),
            # a pool whose peak was not recorded proves nothing about calls at once
            *findings.sequential_calls(unpeaked),
            *findings.sequential_calls(job_calls(calls=49)),
            *findings.sequential_calls(job_calls(streamed=0.25 - 2 ** -16)),
            *findings.sequential_calls(job_calls(waited=2.75 + 2 ** -14)),
            *findings.sequential_calls(job_calls(peak=3)),
            *findings.sequential_calls(job_calls(owners=(1, 3)))]


def pool_jobs_profile(jobs=20, calls=(20, 20, 20), means=(0.03125, 0.03125, 0.03125),
                      failed=0, slot_wait=1.0, strangers=0):
    """A full Pool: main (#1) waited *slot_wait* s for slots, spawning *jobs* app.job
    greenlets (#10...), whose client calls waited at three lines: *calls* heads of
    *means* s each (the last job left each stack).  *strangers* more app.job greenlets
    (#500...) were spawned by a greenlet (#2) that never left a slot wait last."""
    p = pool_profile(1.5, [(SLOT_STACK, slot_wait)])
    for g in p.greenlets:
        g.parent = None  # main spawned only the jobs
    p.greenlets += [GreenletStats(id=10 + i, name="app.job", parent=1, event_wait_s=0.0)
                    for i in range(jobs)]
    p.greenlets += [GreenletStats(id=500 + i, name="app.job", parent=2, event_wait_s=0.0)
                    for i in range(strangers)]
    for line, (n, mean) in enumerate(zip(calls, means)):
        stack = [JOB_CALL[0], JOB_CALL[1], f"{APP}:{60 + line}:job"]
        p.waits.append(StackTime(stack=stack, count=n, wait_s=n * mean,
                                 event_wait_s=n * mean, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=stack, count=n, greenlet=10 + jobs - 1))
    p.greenlet(10).event_wait_s = sum(n * m for n, m in zip(calls, means))
    p.events = [{"kind": "urllib3-pool", "pool": "http://up", "calls": sum(calls),
                 "failed": failed}]
    return p


@scenario
def sequential_calls_of_a_pools_jobs_at_their_edges():
    # 20 jobs of a full pool, three 31.25 ms calls each in turn at three lines: 1.875 s
    # waited, 1.25 s of it saved made together (each job waits its slowest: 31.25 ms).
    # Made together they save their waiting less the longest mean call's per job: with
    # the third line's calls six times longer (187.5 ms beside two of 31.25 ms), 1.25 of
    # 5 s (exactly MIN_SAVED_SHARE): one; 2**-10 s longer, none.  19 jobs; 39 calls
    # for 20 jobs (under two each); the extra calls (40) half failures (20 failed):
    # retries, none; the pool never full (its spawner waited under a block threshold):
    # none; 40 more jobs of the name from a spawner that never left a slot wait last
    # (hedged reads from many readers): 60 calls for 60 jobs, none
    out = findings.sequential_calls(pool_jobs_profile())
    out += findings.sequential_calls(pool_jobs_profile(means=(0.03125, 0.03125, 0.1875)))
    out += findings.sequential_calls(pool_jobs_profile(
        means=(0.03125, 0.03125, 0.1875 + 2 ** -10)))
    out += findings.sequential_calls(pool_jobs_profile(jobs=19))
    out += findings.sequential_calls(pool_jobs_profile(calls=(20, 19, 0)))
    out += findings.sequential_calls(pool_jobs_profile(failed=20))
    out += findings.sequential_calls(pool_jobs_profile(slot_wait=0.03125))
    out += findings.sequential_calls(pool_jobs_profile(strangers=40))
    return out


@scenario
def sequential_calls_at_their_edges():
    # 80 calls for 20 responses (4 each; the 400 calls of a greenlet of its own, and
    # the pools' count, apart), 4 s of their 5 s of waiting on the handlers' own stacks
    # (80 %): one, costing 4 s less one call's worth per response (1 s), told as a loop
    # over items; 79 calls: told as a few calls that may need each other's answers, and
    # so are 40 (2 each, costing 2 s); 39 calls, 19 responses, or 4 - 2**-16 s in the
    # handlers: none
    return [*findings.sequential_calls(served_calls(20, 80)),
            *findings.sequential_calls(served_calls(20, 79)),
            *findings.sequential_calls(served_calls(20, 40)),
            *findings.sequential_calls(served_calls(20, 39)),
            *findings.sequential_calls(served_calls(19, 76)),
            *findings.sequential_calls(served_calls(20, 80, in_handler=4.0 - 2 ** -16))]


EPS = 2 ** -7


def batched(batches=3, size=8, slow=0.4375, fast=0.0625):
    """A 2 s run: main (#1) runs EPS s at each 0.5 s mark, spawning *size* greenlets
    that run EPS s at once, then end after *fast* s (one of them after *slow* s)."""
    p = profile()
    p.greenlets = [GreenletStats(id=1, name="main", parent=None),
                   GreenletStats(id=2, name="hub", parent=1)]
    slices, gid = [], 10
    for k in range(batches + 1):
        t = k * 0.5
        slices.append(Slice(greenlet=1, start_s=t, duration_s=EPS))
        if k == batches:
            break
        for member in range(size):
            life = slow if member == 0 else fast
            p.greenlets.append(GreenletStats(id=gid, name="app.check", parent=1))
            slices += [Slice(greenlet=gid, start_s=t + EPS, duration_s=EPS),
                       Slice(greenlet=gid, start_s=t + life, duration_s=EPS)]
            gid += 1
    p.slices = sorted(slices, key=lambda s: s.start_s)
    p.waits = [StackTime(stack=[f"{APP}:36:main"], count=4, wait_s=1.5, event_wait_s=1.5,
                         ready_wait_s=0.0, call="joinall")]
    p.runs = [StackTime(stack=[f"{APP}:36:main"], count=4, greenlet=1)]
    return p


@scenario
def batch_barrier_at_its_edges():
    # three batches of 8 (one member 0.4375 s, seven 0.0625 s): main waited 63 EPS =
    # 0.4921875 s after each, 1.4765625 s (74 % of the run), with 0.875 greenlet-s of
    # members alive per batch: 1.78 on average, under a quarter of the peak of 8 (2).
    # Cost: 1.4765625 - 3 x 0.875 / 8 = 1.1484375 s.  Two batches, seven members, every
    # member slow (7.1 alive on average), or a timeline missing slices: none
    dropped = batched()
    dropped.slices_dropped = 1
    return [*findings.batch_barrier(batched()), *findings.batch_barrier(batched(batches=2)),
            *findings.batch_barrier(batched(size=7)),
            *findings.batch_barrier(batched(fast=0.4375)),
            *findings.batch_barrier(dropped)]


@scenario
def batches_and_turns_of_a_spawner_that_paced_itself():
    # the same spawners asleep at their own line's gevent.sleep for half their waiting
    # (a dispatcher spawning on a schedule): none; for just under half: both findings
    def paced(p, stack, slept):
        p.waits[0].wait_s = p.waits[0].event_wait_s = p.waits[0].event_wait_s - slept
        p.waits.append(StackTime(stack=[f"{HUB}:166:sleep", *stack], count=10, wait_s=slept,
                                 event_wait_s=slept, ready_wait_s=0.0, call="sleep"))
        p.runs.append(StackTime(stack=[f"{HUB}:166:sleep", *stack], count=10, greenlet=p.runs[0].greenlet))
        return p
    half_batched, half_turned = 0.75, 0.875  # of 1.5 s and 1.75 s waited
    return [*findings.batch_barrier(paced(batched(), [f"{APP}:35:main"], half_batched)),
            *findings.batch_barrier(paced(batched(), [f"{APP}:35:main"],
                                          half_batched - 2 ** -16)),
            *findings.awaited_in_turn(paced(in_turn(), [f"{APP}:39:handle"], half_turned)),
            *findings.awaited_in_turn(paced(in_turn(), [f"{APP}:39:handle"],
                                            half_turned - 2 ** -16))]


def in_turn(children=4, life=0.4375, between=0.0, child_run=2 * EPS, woke=0.0,
            stack=(f"{APP}:40:handle",)):
    """A 2 s run: 'app.handle' (#3) spawns *children* greenlets one after another, each
    living *life* s (run EPS s at its start and at its end) while it waits at *stack*,
    and spawning the next as the one before ends (or when it wakes *woke* s later, or
    after a wait of its own of *between* s)."""
    p = profile()
    p.greenlets = [GreenletStats(id=1, name="main", parent=None),
                   GreenletStats(id=2, name="hub", parent=1),
                   GreenletStats(id=3, name="app.handle", parent=1)]
    slices, t = [], 0.0
    for gid in range(10, 10 + children):
        slices.append(Slice(greenlet=3, start_s=t, duration_s=EPS))
        p.greenlets.append(GreenletStats(id=gid, name="app.fetch", parent=3,
                                         run_s=child_run))
        slices += [Slice(greenlet=gid, start_s=t + EPS, duration_s=EPS),
                   Slice(greenlet=gid, start_s=t + life, duration_s=EPS)]
        t += life + EPS + woke
        if between:
            slices.append(Slice(greenlet=3, start_s=t, duration_s=EPS))
            t += between
    slices.append(Slice(greenlet=3, start_s=t, duration_s=EPS))
    p.slices = sorted(slices, key=lambda s: s.start_s)
    p.waits = [StackTime(stack=list(stack), count=children, wait_s=children * life,
                         event_wait_s=children * life, ready_wait_s=0.0, call="get")]
    p.runs = [StackTime(stack=list(stack), count=children, greenlet=3)]
    return p


@scenario
def awaited_in_turn_at_its_edges():
    # four greenlets of 0.4375 s, each spawned as the one before ended: handle waited
    # through all four lives, 1.75 s; together, about the longest (0.4375 s): cost
    # 1.3125 s.  Two greenlets (under three in turn), a wait of handle's own between
    # them (a loop over jobs), greenlets running more than half their lives, a spawner
    # waking a block threshold and more after each ended (a scheduler sleeping out its
    # period), one waiting for a Pool's free slot (a Pool(1)'s feeder: pool-full's), or
    # a timeline missing slices: none
    dropped = in_turn()
    dropped.slices_dropped = 1
    pool_slot = ("/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add",
                 f"{APP}:40:handle")
    return [*findings.awaited_in_turn(in_turn()), *findings.awaited_in_turn(in_turn(2)),
            *findings.awaited_in_turn(in_turn(between=0.125)),
            *findings.awaited_in_turn(in_turn(child_run=0.25)),
            *findings.awaited_in_turn(in_turn(woke=0.0625 + EPS)),
            *findings.awaited_in_turn(in_turn(stack=pool_slot)),
            *findings.awaited_in_turn(dropped)]


def _named_callers(p, folded):
    """*p* with 'app.fetch' standing for 2 + *folded* greenlets (a folded entry)."""
    p.greenlet(5).name = f"app.fetch [{folded} finished greenlets folded]"
    return p


def gil_profile(cpu_wait=0.125, checksum_cpu=0.5, ready=(1.0, 0.5), events=True):
    """A 2 s run whose loop thread ran off the CPU: the hub 0.375 s of its 0.5 s working
    (run 1 s, idle 0.5 s, CPU 0.125 s), app.fetch #3 0.375 s, #4 0.25 s, less the
    thread's *cpu_wait* for a CPU; the threadpool ran app.checksum (*checksum_cpu* s of
    CPU, 8 tasks, sent by #3 and #4) and app.hash (0.25 s), a name lookup (4 s, which
    releases the lock) and app.zip (no CPU)."""
    p = profile(hub={"id": 2, "run_s": 1.0, "cpu_s": 0.125, "idle_s": 0.5,
                     "utilization": 0.75, "polls": 10, "cpu_wait_s": cpu_wait})
    for gid, run, cpu in ((1, 0.25, 0.25), (3, 0.5, 0.125), (4, 0.5, 0.25)):
        p.greenlet(gid).run_s, p.greenlet(gid).cpu_s = run, cpu
    p.greenlet(3).ready_wait_s, p.greenlet(4).ready_wait_s = ready
    pool = {"kind": "threadpool", "pool": "hub", "dns": False, "sites": [],
            "greenlet_ids": []}
    if events:
        p.events = [
            {**pool, "function": "app.checksum", "cpu_s": checksum_cpu, "tasks": 8,
             "sites": [[f"{APP}:23:handler", 8]], "greenlet_ids": [3, 4]},
            {**pool, "function": "_socket.getaddrinfo", "dns": True, "cpu_s": 4.0, "tasks": 9},
            {**pool, "function": "app.zip", "cpu_s": 0.0, "tasks": 3},
            {**pool, "function": "app.hash", "cpu_s": 0.25, "tasks": 2}]
    return p


@scenario
def gil_contended_when_threadpool_python_held_the_lock():
    # off the CPU: 0.375 + 0.375 + 0.25 - 0.125 = 0.875 s (44 % of the run, over 25 %);
    # threads' CPU 0.5 + 0.25 = 0.75 s (the lookup and app.zip left out), over half of
    # it.  Cost: ready 1.5 s x 0.875 / 1.5 s busy = 0.875.  Named by app.checksum.
    return findings.gil_contended(gil_profile())


@scenario
def gil_contended_not_past_each_guard():
    # off just under a quarter of the run (cpu_wait 0.5 + 2**-16); threads' CPU just
    # under half the off time (0.1875 - 2**-16 + 0.25 of 0.875); a cost under the
    # threshold; a greenlet without a CPU figure; no threadpool at all
    no_cpu = gil_profile()
    no_cpu.greenlet(5).cpu_s = None
    return [*findings.gil_contended(gil_profile(cpu_wait=0.5 + 2 ** -16)),
            *findings.gil_contended(gil_profile(checksum_cpu=0.1875 - 2 ** -16)),
            *findings.gil_contended(gil_profile(ready=(0.0625 - 2 ** -16, 0.0))),
            *findings.gil_contended(no_cpu),
            *findings.gil_contended(gil_profile(events=False))]


@scenario
def gil_contended_by_threads_of_the_programs_own():
    # No threadpool task: the process's CPU less the loop thread's (0.25 + 0.125 + 0.25
    # + the hub's 0.125 = 0.75 s) is the other threads'.  1.1875 s of process CPU leaves
    # exactly half the 0.875 s off the CPU: a finding, costed 0.875 as the tasks' is;
    # 2**-16 s less: none.  Beside tasks too few to explain it (app.hash's 0.25 s), their
    # CPU and the name lookups' 4 s are not the other threads': 5.4375 s of process CPU
    # is again exactly half.  A figure that is no number (an untrusted profile's): none.
    out = []
    for process, events in ((1.1875, False), (1.1875 - 2 ** -16, False), (5.4375, True),
                            (True, False)):
        p = gil_profile(checksum_cpu=0.0, events=events)
        p.hub["process_cpu_s"] = process
        out += findings.gil_contended(p)
    return out


@scenario
def gil_contended_at_the_edges():
    # off exactly a quarter of the run (1.0 - cpu_wait 0.5) with threads' CPU exactly
    # half of it (0.25 s: app.hash alone, app.checksum none, so no site or greenlet to
    # name); cost 1.5 x 0.5 / 1.5 = 0.5
    return findings.gil_contended(gil_profile(cpu_wait=0.5, checksum_cpu=0.0))


@scenario
def gil_contention_takes_the_long_off_cpu_slices_from_blocking_call():
    # the same off-CPU slice is a blocking call without threadpool Python, and left to
    # gil-contended with it
    with_gil, without = gil_profile(), gil_profile(events=False)
    for p in (with_gil, without):
        p.events = [*p.events, blocked_slice(3, 0.25, 0.0, 0.25)]
    return [*findings.loop_blocked(with_gil), *findings.loop_blocked(without)]


RETRY_PY = "/venv/lib/python3.11/site-packages/urllib3/util/retry.py"
BACKOFF_STACK = [f"{HUB}:166:sleep", f"{RETRY_PY}:383:Retry._sleep_backoff",
                 f"{RETRY_PY}:399:Retry.sleep", f"{URLLIB3_POOL}:972:HTTPConnectionPool.urlopen",
                 f"{APP}:23:worker"]
RETRY_AFTER_STACK = [f"{HUB}:166:sleep", f"{RETRY_PY}:376:Retry.sleep_for_retry",
                     f"{URLLIB3_POOL}:940:HTTPConnectionPool.urlopen", f"{APP}:30:poll"]


@scenario
def retry_backoff_sums_the_sleeps_before_retries():
    # back-off 0.5 s (4 sleeps) + Retry-After 0.25 s (2 sleeps) = 0.75 s, named by the
    # back-off's line (#3 slept there last), told as the back-off; the request's own
    # wait (1 s) and a sleep outside urllib3 (1 s) are not retries.  With the
    # Retry-After's sleeps at 0.5 s, half of them: told as the upstream's Retry-After
    def made(after):
        p = profile(waits=[
            StackTime(stack=list(BACKOFF_STACK), count=4, wait_s=0.5, event_wait_s=0.5,
                      ready_wait_s=0.0),
            StackTime(stack=list(RETRY_AFTER_STACK), count=2, wait_s=after,
                      event_wait_s=after, ready_wait_s=0.0),
            StackTime(stack=[*READ_STACK[:3], f"{URLLIB3_POOL}:972:HTTPConnectionPool.urlopen",
                             f"{APP}:23:worker"], count=6, wait_s=1.0),
            StackTime(stack=[f"{HUB}:166:sleep", f"{APP}:40:tick"], count=8, wait_s=1.0)])
        p.runs = [StackTime(stack=list(BACKOFF_STACK), count=4, greenlet=3)]
        return p
    return [*findings.retry_backoff(made(0.25)), *findings.retry_backoff(made(0.5))]


@scenario
def retry_backoff_from_the_threshold_on():
    # sleeps of just under the 0.0625 s threshold: none; exactly it: one, unnamed
    def slept(seconds):
        return profile(waits=[StackTime(stack=list(BACKOFF_STACK), count=1, wait_s=seconds)])
    return [*findings.retry_backoff(slept(0.0625 - 2 ** -20)),
            *findings.retry_backoff(slept(0.0625))]


GEVENT_HUB = "/venv/lib/python3.11/site-packages/gevent/hub.py"
PYWSGI = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py"
FEEDER_STACK = [f"{GEVENT}:687:SocketMixin.recv_into", f"{URLLIB3}:1134:HTTPResponse.read",
                f"{APP}:20:produce"]


TIMER_FEEDER_STACK = [f"{GEVENT_HUB}:166:sleep", f"{APP}:20:produce"]
# a server's connection awaiting its client's next request (frames.is_idle_server_wait)
IDLE_SERVER_STACK = [f"{PYWSGI}:723:WSGIHandler.read_requestline",
                     f"{PYWSGI}:774:WSGIHandler.handle_one_request"]


def handoff_profile(idle_s=1.5, consume=3.0, join=1.0, feed=1.5, feed_run=0.25,
                    feeder_stack=FEEDER_STACK, consume_waits=8):
    """A 2 s run: app.fetch #4 waits *consume* s in *consume_waits* waits in a queue's
    get() at the app's line,
    main *join* s in joinall(), an Event's inner patched lock 0.5 s more; app.fetch #3
    runs *feed_run* s and waits *feed* s at *feeder_stack* (reading the network at its
    produce line); a with block at the app's line (a compiled lock, 0.5 s) is no
    hand-off."""
    p = profile(hub={"id": 2, "idle_s": idle_s}, waits=[
        StackTime(stack=[f"{APP}:80:consume"], count=consume_waits, wait_s=consume + 0.125,
                  event_wait_s=consume, ready_wait_s=0.125, call="get"),
        StackTime(stack=[f"{APP}:12:main"], count=1, wait_s=join, event_wait_s=join,
                  ready_wait_s=0.0, call="joinall"),
        StackTime(stack=[f"{GEVENT_THREAD}:320:LockType.acquire",
                         f"{THREADING}:320:Condition.wait", f"{APP}:70:wait_ready"],
                  count=1, wait_s=0.5, event_wait_s=0.5, ready_wait_s=0.0),
        StackTime(stack=list(feeder_stack), count=12, wait_s=feed, event_wait_s=feed,
                  ready_wait_s=0.0),
        StackTime(stack=[f"{APP}:50:handler"], count=2, wait_s=0.5, event_wait_s=0.5,
                  ready_wait_s=0.0, call="with")])
    p.runs = [StackTime(stack=[f"{APP}:80:consume"], count=8, greenlet=4),
              StackTime(stack=[f"{APP}:12:main"], count=1, greenlet=1),
              StackTime(stack=list(feeder_stack), count=12, greenlet=3),
              StackTime(stack=[f"{APP}:50:handler"], count=2, greenlet=2)]
    p.greenlet(3).run_s, p.greenlet(3).event_wait_s = feed_run, feed
    p.greenlet(3).name = "app.produce"  # (a feeder of the waiters' own name: peers)
    p.greenlet(4).event_wait_s = consume
    p.greenlet(1).event_wait_s = join
    # a greenlet other than the main one joins: its joinall is a hand-off (the main
    # greenlet's wait for the run's end is not: serial_bottleneck_not_the_main_end_wait)
    p.greenlet(1).name = "app.driver"
    # the hub "waited" at a with block and ran all run: never a feeder
    p.greenlet(2).run_s, p.greenlet(2).event_wait_s = 2.0, 0.5
    return p


@scenario
def serial_bottleneck_told_as_a_gate_at_its_edge():
    # the heaviest hand-off waited in wait() (an event) 6 times, the last left by
    # greenlets of two names (app.fetch, app.driver: one greenlet each): 3 waits each,
    # an event set again and again, told as a gate; 5 waits: a result awaited, the
    # busy feeder's story
    def gate(waits):
        p = handoff_profile(consume_waits=waits)
        p.waits[0].call = "wait"
        return findings.serial_bottleneck(p)
    return [*gate(6), *gate(5)]


def lockstep_profile(put=0.5, get=0.75, consumer="app.load"):
    """A 2 s run: app.extract (#3) waited *put* s in put() at its line (40 times), and
    *consumer* (#4) *get* s in get() at its own (4 times)."""
    p = profile(waits=[
        StackTime(stack=[f"{APP}:34:extract"], count=40, wait_s=put, event_wait_s=put,
                  ready_wait_s=0.0, call="put"),
        StackTime(stack=[f"{APP}:40:load"], count=4, wait_s=get, event_wait_s=get,
                  ready_wait_s=0.0, call="get")])
    p.runs = [StackTime(stack=[f"{APP}:34:extract"], count=40, greenlet=3),
              StackTime(stack=[f"{APP}:40:load"], count=4, greenlet=4)]
    p.greenlet(3).name, p.greenlet(4).name = "app.extract", consumer
    return p


@scenario
def queue_lockstep_at_its_edges():
    # each side waited at least a quarter of the 2 s run (put 0.5 s exactly): one,
    # costing the smaller side (0.5 s); put 0.5 - 2**-16 s, or both sides of one name
    # (a middle stage waiting on both its queues): none
    return [*findings.queue_lockstep(lockstep_profile()),
            *findings.queue_lockstep(lockstep_profile(put=0.5 - 2 ** -16)),
            *findings.queue_lockstep(lockstep_profile(consumer="app.extract"))]


@scenario
def queue_full_not_from_mains_end_wait_nor_without_a_consumer():
    # the producer waited 1.5 s in put(); the only get() is main's wait for the run's
    # end (a Greenlet's get, woken once): no consumer, and without one nothing is told
    p = lockstep_profile(put=1.5, get=0.0)
    p.waits[1] = StackTime(stack=[f"{APP}:60:main"], count=1, wait_s=1.9, event_wait_s=1.9,
                           ready_wait_s=0.0, call="get")
    p.runs[1] = StackTime(stack=[f"{APP}:60:main"], count=1, greenlet=1)
    return findings.queue_lockstep(p)


@scenario
def queue_full_at_its_edges():
    # the producer waited half the 2 s run in put() (1 s), its one consumer a quarter
    # less a little in get(): queue-full, costing the put waits; 2**-16 s less in put(),
    # or two consumers of the name (workers-saturated's, or a pool's): none
    two = lockstep_profile(put=1.0, get=0.5 - 2 ** -16)
    two.greenlets.append(GreenletStats(id=6, name="app.load", parent=1))
    return [*findings.queue_lockstep(lockstep_profile(put=1.0, get=0.5 - 2 ** -16)),
            *findings.queue_lockstep(lockstep_profile(put=1.0 - 2 ** -16, get=0.25)),
            *findings.queue_lockstep(two)]


@scenario
def queue_full_tells_its_consumers_calls_in_turn():
    # queue_full_at_its_edges' first profile, whose one consumer (app.load, #4) also made
    # sequential_calls_of_a_job_at_their_edges' 50 calls in turn: one finding, the
    # queue's, telling them; the calls made by another greenlet (#3): both findings
    def run(caller):
        p = job_calls(owners=(caller, caller))
        q = lockstep_profile(put=1.0, get=0.5 - 2 ** -16)
        p.waits += q.waits
        p.runs += q.runs
        p.greenlet(3).name, p.greenlet(4).name = "app.extract", "app.load"
        return findings.without_calls_told(findings.queue_lockstep(p)
                                           + findings.sequential_calls(p))
    return [*run(4), *run(3)]


@scenario
def serial_bottleneck_names_the_busy_feeder():
    # hand-offs: get 3 + joinall 1 + the Event's lock 0.5 = 4.5 s of 6.5 s event wait
    # (69 %), over 2 x the 2 s run; idle 1.5 of 2 s.  app.fetch #3 was busy 0.25 + 1.5 =
    # 1.75 s (88 %): the feeder, at its produce line.  The compiled with block (0.5 s) is
    # no hand-off; the hub is never a feeder.
    return findings.serial_bottleneck(handoff_profile())


@scenario
def serial_bottleneck_not_past_each_guard():
    # each guard just failed: hand-offs under half of the event wait (4.5 of 9.0 + 2**-16
    # with the feeder waiting 4.0 + 2**-16), under two waiters' worth (4 - 2**-16 with
    # consume 2 - 2**-16 and join 1.5), the loop busy (idle just under half), the feeder
    # busy just under half the run (0.25 + 0.75 - 2**-16)
    return [*findings.serial_bottleneck(handoff_profile(feed=4.0 + 2 ** -16)),
            *findings.serial_bottleneck(handoff_profile(consume=2.0 - 2 ** -16, join=1.5)),
            *findings.serial_bottleneck(handoff_profile(idle_s=1.0 - 2 ** -20)),
            *findings.serial_bottleneck(handoff_profile(feed=0.75 - 2 ** -16))]


@scenario
def serial_bottleneck_feeder_on_a_timer():
    # the feeder slept in gevent.sleep at its produce line 1.5 s of its 0.25 + 1.5 s busy,
    # in 12 sleeps of 0.125 s, and each of the 24 waits at consume lasted one of them:
    # told as a timer to wake, not as work to do concurrently; at exactly half its busy
    # time asleep (run 1.5 s) still a timer; just under (run 1.5 + 2**-16), work
    return [*findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK,
                                                        consume_waits=24)),
            *findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK,
                                                        feed_run=1.5, consume_waits=24)),
            *findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK,
                                                        feed_run=1.5 + 2 ** -16,
                                                        consume_waits=24))]


@scenario
def serial_bottleneck_timer_outnumbered_by_its_waiters():
    # as above, but each of 8 waits at consume lasted 3 of the timer's sleeps (0.375 s),
    # and each of 16, exactly 1.5 (0.1875 s): the waiters outnumbered what its wake-ups
    # brought (spare capacity, or a rate limit the program chose): no finding; 17 waits
    # (1.41 sleeps each) are a timer's to wake.  Waits to put() into a full queue are its
    # consumer falling behind, never spare.
    put = handoff_profile(feeder_stack=TIMER_FEEDER_STACK)
    put.waits[0].call = "put"
    return [*findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK)),
            *findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK,
                                                        consume_waits=16)),
            *findings.serial_bottleneck(handoff_profile(feeder_stack=TIMER_FEEDER_STACK,
                                                        consume_waits=17)),
            *findings.serial_bottleneck(put)]


@scenario
def serial_bottleneck_not_the_main_end_wait():
    # the driver is the program's main greenlet: its joinall (1 s of the 2 s run, woken
    # once) is its wait for the run's end, neither a hand-off nor working wait, which
    # leaves 3.5 s of hand-offs (58 % of 6 s of event wait) at 1.75 waiters' worth:
    # under two, no finding.  With 4.0 s at consume it is one, without the main's part
    # in the cost or its name among the waiters; woken 101 times (a joinall over a
    # stream of batches) the wait is a hand-off again.
    def made(consume=3.0, wakes=1):
        p = handoff_profile(consume=consume)
        p.greenlet(1).name = "main"
        p.waits[1].count = wakes
        return p
    return [*findings.serial_bottleneck(made()),
            *findings.serial_bottleneck(made(consume=4.0)),
            *findings.serial_bottleneck(made(wakes=101))]


@scenario
def serial_bottleneck_beside_idle_server_connections():
    # 5 s of a service's connections awaiting their clients' next requests (greenlet #5,
    # at pywsgi's read_requestline all run) count neither in the event wait hand-offs
    # are a share of (4.5 of 6.5 s, as without them; with them 4.5 of 11.5 s, under
    # half) nor as a feeder's busy time (#5 ran 0.1 s)
    p = handoff_profile()
    p.waits.append(StackTime(stack=list(IDLE_SERVER_STACK), count=30, wait_s=5.0,
                             event_wait_s=5.0, ready_wait_s=0.0))
    p.runs.append(StackTime(stack=list(IDLE_SERVER_STACK), count=30, greenlet=5))
    p.greenlet(5).run_s, p.greenlet(5).event_wait_s = 0.1, 5.0
    return findings.serial_bottleneck(p)


LISTEN_STACK = [f"{GEVENT}:687:SocketMixin.recv_into", f"{APP}:12:listen"]


def workers_profile(work=3.4, taken=0.18, idle_s=1.0, run=0.1, second="app.fetch",
                    fed=0.5):
    """A 2 s run: app.fetch #3 and #4, a pool of two, each ran *run* s; they waited
    *work* s on the network at their produce line (the stack #3 left last) and *taken*
    s for their next item at a queue's get() (the stack #4 left last); main, what feeds
    them, waited *fed* s on the network at its listen line; the hub idled *idle_s*.
    *second*: #4's name."""
    p = profile(hub={"id": 2, "idle_s": idle_s}, waits=[
        StackTime(stack=[f"{APP}:80:consume"], count=6, wait_s=taken, event_wait_s=taken,
                  ready_wait_s=0.0, call="get"),
        StackTime(stack=list(FEEDER_STACK), count=40, wait_s=work, event_wait_s=work,
                  ready_wait_s=0.0),
        StackTime(stack=list(LISTEN_STACK), count=6, wait_s=fed, event_wait_s=fed,
                  ready_wait_s=0.0)])
    p.runs = [StackTime(stack=[f"{APP}:80:consume"], count=6, greenlet=4),
              StackTime(stack=list(FEEDER_STACK), count=40, greenlet=3),
              StackTime(stack=list(LISTEN_STACK), count=6, greenlet=1)]
    p.greenlet(1).run_s, p.greenlet(1).event_wait_s = 0.0, fed
    for g in (p.greenlet(3), p.greenlet(4)):
        g.run_s, g.event_wait_s, g.ready_wait_s = run, (work + taken) / 2, 0.0
    p.greenlet(4).name = second
    return p


@scenario
def workers_saturated_at_the_edges():
    # busy exactly 90 % of two workers' run (0.1 + 0.1 + 3.4 = 3.6 of 4 greenlet-s),
    # input waits exactly 5 % of that (0.18 s), the hub idle exactly half the run, main
    # (the feeder) busy exactly a quarter of it
    return findings.workers_saturated(workers_profile())


@scenario
def workers_saturated_not_past_each_guard():
    # each guard just failed: busy under 90 % (work 3.4 - 2**-16), input waits over 5 %
    # of the busy time, the hub idle under half the run, and #4 renamed: a "pool" of one
    # working greenlet, and another one waiting for input
    lone = workers_profile(second="app.other")
    # ... no other greenlet busy a quarter of the run (a batch queued at once); and the
    # pool's stacks include a server connection awaiting its client's next request (a
    # server's per-connection handlers, fed by their clients)
    served = workers_profile()
    served.waits.append(StackTime(stack=list(IDLE_SERVER_STACK), count=3, wait_s=0.25,
                                  event_wait_s=0.25, ready_wait_s=0.0))
    served.runs.append(StackTime(stack=list(IDLE_SERVER_STACK), count=3, greenlet=4))
    return [*findings.workers_saturated(workers_profile(fed=0.5 - 2 ** -16)),
            *findings.workers_saturated(served),
            *findings.workers_saturated(workers_profile(work=3.4 - 2 ** -16)),
            *findings.workers_saturated(workers_profile(taken=0.18 + 2 ** -16)),
            *findings.workers_saturated(workers_profile(idle_s=1.0 - 2 ** -20)),
            *findings.workers_saturated(lone)]


@scenario
def serial_bottleneck_at_the_edges():
    # hand-offs exactly half the event wait (4.5 of 9) with a feeder busy exactly half
    # the run (0.25 + 0.75: its own wait capped by what it waited itself, 0.75 of the
    # stack's 4.0) is one; so are hand-offs of exactly two waiters' worth (2.5 + 1.0 +
    # 0.5 = 4 s)
    p = handoff_profile(feed=4.0)
    p.greenlet(3).event_wait_s = 0.75
    q = handoff_profile(consume=2.5, join=1.0)
    return [*findings.serial_bottleneck(p), *findings.serial_bottleneck(q)]


@scenario
def gc_pause_of_an_older_or_partial_record():
    # a slice the collector filled, without its generation and in a profile whose meta
    # has no run-wide figures (or figures that are not counts): the message says what it
    # knows, and nothing of the rest
    p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.5, gc_s=0.5)])
    p.meta["gc"] = {"collections": ["many"], "total_s": 1.0}
    return findings.loop_blocked(p)


@scenario
def pool_full_says_what_its_jobs_waited_on():
    # main (#1) waited 1.5 s for a slot; its jobs (app.fetch, app.parse: main spawned
    # them) left a request stack (10 waits of 0.1 s, by app.fetch #4) and a small
    # sleep: the request is named, 100 ms each, with the upstream's time to its heads
    # from the host with the most timed responses (http://a: 10 in 1.5 s), 10 of the
    # 12 timed (at least 80 %: most likely the jobs' host).  Beside a folded record of
    # many hosts' 90 responses, http://a is no longer most of them: the line alone, as
    # without timed responses; with no waits of the jobs, no sentence
    def jobs(pools, waits=True):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        if waits:
            p.waits += [StackTime(stack=list(FAILING_CALL), count=10, wait_s=1.0,
                                  event_wait_s=1.0, ready_wait_s=0.0),
                        StackTime(stack=[f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"],
                                  count=2, wait_s=0.25, event_wait_s=0.25, ready_wait_s=0.0)]
            p.runs += [StackTime(stack=list(FAILING_CALL), count=10, greenlet=4),
                       StackTime(stack=[f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"],
                                 count=2, greenlet=5)]
        p.events = pools
        return p

    timed = [{"kind": "urllib3-pool", "pool": "http://b:80", "pools": 1,
              "trails": {"new": [2, 0, 0.0, 0.0, 4.0]}},
             {"kind": "urllib3-pool", "pool": "http://a:80", "pools": 1,
              "trails": {"new": [6, 0, 0.0, 0.0, 0.75], "reused": [4, 0, 0.0, 0.0, 0.75]}}]
    folded = {"kind": "urllib3-pool", "pool": "<other pools>", "pools": 9,
              "trails": {"new": [90, 0, 0.0, 0.0, 90.0]}}
    return [*findings.pool_full(jobs(timed)), *findings.pool_full(jobs([*timed, folded])),
            *findings.pool_full(jobs([])), *findings.pool_full(jobs(timed, waits=False))]


@scenario
def pool_full_tells_gets_asking_for_the_same_urls_again():
    # the jobs' host answered 10 timed GETs: 20 GETs for 5 URLs (4 each: told, with a
    # cache as the fix and the most asked URL); 19 for 5 (under REPEATS_MIN_GETS), 20
    # for 6 (3.3 each), and a host whose URLs were too many to count (None): not told
    def jobs(gets, distinct):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.waits.append(StackTime(stack=list(FAILING_CALL), count=10, wait_s=1.0,
                                 event_wait_s=1.0, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=list(FAILING_CALL), count=10, greenlet=4))
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "pools": 1,
                     "trails": {"new": [10, 0, 0.0, 0.0, 1.0]}, "gets": gets,
                     "distinct_gets": distinct,
                     "top_gets": [["/profiles/7", 9]] if distinct else []}]
        return p
    return [f for gets, distinct in ((20, 5), (19, 5), (20, 6), (20, None))
            for f in findings.pool_full(jobs(gets, distinct))]


@scenario
def pool_full_tells_jobs_walking_pages_one_call_at_a_time():
    # the jobs (five: two app.fetch, a folded record of three app.parse) waited for 50
    # answers' heads at their request line: 10 calls each, told, and the fix starts
    # with fewer, larger calls; 49: not told
    head = [ANSWER_WAIT[0], "/py/lib/python3.11/http/client.py:325:HTTPResponse.begin",
            *ANSWER_WAIT[1:]]

    def jobs(calls):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.waits.append(StackTime(stack=list(head), count=calls, wait_s=1.0,
                                 event_wait_s=1.0, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=list(head), count=calls, greenlet=4))
        return findings.pool_full(p)
    return [*jobs(50), *jobs(49)]


@scenario
def pool_full_quotes_an_upstream_only_for_as_many_answers_as_calls():
    # the jobs waited 10 times at their request line; http://a answered 20 timed (twice
    # those waits, CALLS_SLACK): quoted; 21: other lines' calls, not quoted
    def jobs(answers):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.waits.append(StackTime(stack=list(FAILING_CALL), count=10, wait_s=1.0,
                                 event_wait_s=1.0, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=list(FAILING_CALL), count=10, greenlet=4))
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "pools": 1,
                     "trails": {"new": [answers, 0, 0.0, 0.0, answers * 0.05]}}]
        return findings.pool_full(p)
    return [*jobs(20), *jobs(21)]


@scenario
def pool_full_tells_jobs_asleep_or_joining_what_they_started():
    # the jobs' heaviest wait (2 s, beside 1 s of requests): gevent.sleep called at the
    # program's line (a back-off: the timer's story, not a larger Pool); a joinall at
    # it (the greenlets they started); a Greenlet's join (one greenlet, maybe with a
    # timeout: the pool's story, the call named); a with block (no call named).  Asleep
    # beside 5 answers of 503 in 100 calls (5 %), its 12 sleeps not one per failed
    # answer (retry_backoff_of_the_programs_own_sleeps): told as what the sleeps back
    # off from; 4 of 100: not
    def jobs(stack, call=None, errors=0, wait=2.0, sleeps=4):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 100,
                     "statuses": [["503", errors], ["bad", 3], ["500", True]]}]
        p.waits += [StackTime(stack=list(FAILING_CALL), count=10, wait_s=1.0,
                              event_wait_s=1.0, ready_wait_s=0.0),
                    StackTime(stack=list(stack), count=sleeps, wait_s=wait,
                              event_wait_s=wait, ready_wait_s=0.0, call=call)]
        p.runs += [StackTime(stack=list(FAILING_CALL), count=10, greenlet=4),
                   StackTime(stack=list(stack), count=sleeps, greenlet=5)]
        return findings.pool_full(p)
    return [*jobs([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"], "sleep"),
            *jobs([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"], "sleep", errors=5, sleeps=12),
            *jobs([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"], "sleep", errors=4),
            # asleep a third of their waiting (0.5 of 1.5 s), the requests heavier: told
            # too, naming the sleep; a fifth (0.25 of 1.25 s): the pool's story
            *jobs([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"], "sleep", wait=0.5),
            *jobs([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"], "sleep", wait=0.25),
            # urllib3's Retry back-off sleeps under the program's line: retry-backoff's,
            # not the program's timer (the pool's story)
            *jobs(BACKOFF_STACK, "sleep"),
            *jobs([f"{APP}:21:job"], "joinall"), *jobs([f"{APP}:22:job"], "join"),
            *jobs([f"{APP}:23:job"], "with")]


@scenario
def retry_backoff_of_the_programs_own_sleeps():
    # jobs in a full pool slept 2 s at the program's line beside 10 requests, and the
    # upstream answered 6 of 100 calls with a 503: 3 sleeps (half a sleep per failed
    # answer) and 12 (twice) are a retry loop's back-off, told as retry-backoff, and the
    # pool then has no finding of its own; 2 and 13 sleeps are not (the pool's story,
    # the sleeps a timer of the program's own); no error answers: not either
    def jobs(sleeps, errors=6):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 100,
                     "statuses": [["503", errors]]}]
        sleep = [f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"]
        p.waits += [StackTime(stack=list(FAILING_CALL), count=10, wait_s=1.0,
                              event_wait_s=1.0, ready_wait_s=0.0),
                    StackTime(stack=sleep, count=sleeps, wait_s=2.0, event_wait_s=2.0,
                              ready_wait_s=0.0, call="sleep")]
        p.runs += [StackTime(stack=list(FAILING_CALL), count=10, greenlet=4),
                   StackTime(stack=sleep, count=sleeps, greenlet=5)]
        return [*findings.retry_backoff(p), *findings.pool_full(p)]
    return [*jobs(3), *jobs(12), *jobs(2), *jobs(13), *jobs(6, errors=0)]


@scenario
def retry_backoff_of_a_throttled_upstream_sends_fewer_at_once():
    # the 6 error answers: 429s 3 of 6 (half: throttled, told with the peak in flight and
    # a Pool as the fix), 2 of 6 (a 503's story); no peak recorded: the sentence without it
    def jobs(too_many, peak=40):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 100,
                     "statuses": [["429", too_many], ["503", 6 - too_many]],
                     **({"peak_in_use": peak} if peak else {})}]
        sleep = [f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job"]
        p.waits.append(StackTime(stack=sleep, count=6, wait_s=2.0, event_wait_s=2.0,
                                 ready_wait_s=0.0, call="sleep"))
        p.runs.append(StackTime(stack=sleep, count=6, greenlet=5))
        return findings.retry_backoff(p)
    return [*jobs(3), *jobs(2), *jobs(6, peak=0)]


@scenario
def pool_full_counts_the_run_as_with_a_cpu_to_itself():
    # the hub idled 0.75 s of the 2 s run (37.5 %), and the thread waited 0.5 s for a
    # CPU: 0.75 of the 1.5 s it would have taken with a CPU to itself, exactly half:
    # the pool paced the work, told with the wait; 2^-20 s less of that wait: not
    tiny = 2 ** -20
    out = []
    for wait in (0.5, 0.5 - tiny):
        p = pool_profile(0.75, [(SLOT_STACK, 1.5)])
        p.hub["cpu_wait_s"] = wait
        out += findings.pool_full(p)
    return out


@scenario
def pool_full_asleep_at_its_share():
    # sleeps at one line reached by two call paths (0.25 + 0.125 s) beside 0.875 s of
    # requests: 0.375 of 1.25 s, exactly SLEPT_SHARE: the timer's story, costing both
    # rows' 0.375 s; 2**-20 s less asleep: the pool's
    def jobs(second):
        p = pool_profile(1.5, [(SLOT_STACK, 1.5)])
        rows = [(list(FAILING_CALL), 10, 0.875),
                ([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job", f"{APP}:30:run"], 2, 0.25),
                ([f"{GEVENT_HUB}:166:sleep", f"{APP}:20:job", f"{APP}:31:run"], 1, second)]
        for stack, count, wait in rows:
            p.waits.append(StackTime(stack=stack, count=count, wait_s=wait, event_wait_s=wait,
                                     ready_wait_s=0.0, call="sleep" if count < 10 else None))
            p.runs.append(StackTime(stack=stack, count=count, greenlet=4))
        return findings.pool_full(p)
    return [*jobs(0.125), *jobs(0.125 - 2 ** -20)]


@scenario
def lock_contended_says_who_starved_and_what_holders_did():
    # app.fetch waited 2 s at a with block (a compiled semaphore) in 4 waits: 0.5 s each,
    # a quarter of the 2 s run, is no starving; in 2 waits, 1 s each, half the run, it
    # is.  Besides the lock, app.fetch (#4's last) made requests: 10 waits of 25 ms, the
    # upstream 75 ms to its heads (10 timed)
    def run(waits):
        p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
        p.waits[0].call, p.waits[0].count = "with", waits
        p.runs[0].greenlet = 3
        p.waits.append(StackTime(stack=list(FAILING_CALL), count=10, wait_s=0.25,
                                 event_wait_s=0.25, ready_wait_s=0.0))
        p.runs.append(StackTime(stack=list(FAILING_CALL), count=10, greenlet=4))
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80",
                     "trails": {"new": [10, 0, 0.0, 0.0, 0.75]}}]
        return findings.lock_contended(p)
    return [*run(4), *run(2)]


@scenario
def lock_contended_by_a_semaphore_letting_few_calls_through():
    # the holders' calls inside lookup (lock_contended_names_the_calls_inside_the_
    # function_that_takes_it's resolve calls), and the pool never had more than 2 of
    # its 10 connections in use: a Semaphore(2), the larger n first in the fix; a peak
    # of 1 (a mutex), or of the pool's size (the lock did not hold them back): the
    # lock's story as before
    def run(peak):
        p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
        p.waits[0].call = "with"
        p.runs[0].greenlet = 3
        p.waits.append(StackTime(stack=[f"{GEVENT}:687:SocketMixin.recv_into",
                                        f"{APP}:67:lookup", f"{APP}:90:resolve"],
                                 count=10, wait_s=1.25, event_wait_s=1.25, ready_wait_s=0.0))
        p.events = [{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 10,
                     "maxsize": 10, "peak_in_use": peak}]
        return findings.lock_contended(p)
    return [*run(2), *run(1), *run(10)]


@scenario
def lock_contended_names_the_calls_inside_the_function_that_takes_it():
    # a with block at app line 66 (lookup) waited 2 s; inside lookup, line 67 made calls
    # from two callers: export's 4 (their heads 2 s: 500 ms each, with a 1 s connect
    # wait that counts in the time, not as calls) and resolve's 10 waits of 125 ms (no
    # head: per wait).  Export's per call is exactly 4x resolve's: callers of different
    # kinds share it; 2**-16 s less and not.  Line 66's own waits are the lock's
    HEAD = ["/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin"]

    def run(export_s):
        p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
        p.waits[0].call = "with"
        p.runs[0].greenlet = 3
        for stack, count, wait in (
                ([*HEAD, f"{APP}:67:lookup", f"{APP}:80:export"], 4, export_s - 1.0),
                ([f"{GEVENT}:687:SocketMixin.connect", f"{APP}:67:lookup",
                  f"{APP}:80:export"], 4, 1.0),
                ([f"{GEVENT}:687:SocketMixin.recv_into", f"{APP}:67:lookup",
                  f"{APP}:90:resolve"], 10, 1.25)):
            p.waits.append(StackTime(stack=stack, count=count, wait_s=wait,
                                     event_wait_s=wait, ready_wait_s=0.0))
        return findings.lock_contended(p)
    return [*run(2.0), *run(2.0 - 2 ** -16)]


@scenario
def lock_contended_on_a_log_handlers_lock():
    # a patched RLock taken in logging's Handler.acquire (2 s): told at the line that
    # logged, past logging's frames; with no frame of the program's past them (a library
    # logging), at the library's line that logged
    logging_py = "/usr/lib/python3.11/logging/__init__.py"
    lock = [f"{GEVENT_THREAD}:320:LockType.acquire", f"{THREADING}:168:_RLock.acquire",
            f"{logging_py}:927:Handler.acquire", f"{logging_py}:976:Handler.handle",
            f"{logging_py}:1706:Logger.callHandlers"]
    out = []
    for outer in ([f"{APP}:18:work"], [f"{URLLIB3_POOL}:290:HTTPConnectionPool._get_conn"]):
        p = pool_profile(1.5, [([*lock, *outer], 2.0)])
        p.runs[0].greenlet = 3
        out += findings.lock_contended(p)
    return out


@scenario
def lock_contended_counts_the_cpu_inside_the_function_that_takes_it():
    # a with block at app line 66 (lookup) waited 2 s; inside lookup, samples put 0.0625 s
    # of CPU (a block threshold) under line 68 (a JSON parse), some at line 66 itself
    # (taking the lock: not the holder's work) and some elsewhere: told, all at line 68;
    # 2**-20 s less: no CPU sentence, and without waits inside no sentence at all
    decode = "/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode"

    def run(parse):
        p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
        p.waits[0].call = "with"
        p.runs[0].greenlet = 3
        p.cpu_samples = cpu_samples([
            ([decode, f"{APP}:68:lookup", f"{APP}:80:export"], "app.fetch", 5, parse),
            ([f"{APP}:66:lookup", f"{APP}:80:export"], "app.fetch", 3, 0.5),
            ([f"{APP}:90:resolve"], "app.fetch", 3, 0.5)])
        return findings.lock_contended(p)
    return [*run(0.0625), *run(0.0625 - 2 ** -20)]


@scenario
def pool_full_spawned_by_imap_names_no_line():
    # the slot waits of Pool.imap's own greenlet, and no Pool.map waiting for results:
    # no line of the user's to name
    return findings.pool_full(pool_profile(1.5, [(MAP_SLOT_STACK, 1.5)]))


@scenario
def slices_at_the_threshold_and_under_it():
    # cost exactly the threshold: a finding; the other group just under: none
    return findings.loop_blocked(profile(events=[
        blocked_slice(3, 0.5, 0.5, 0.0625), blocked_slice(1, 0.5, 0.5, 0.0625 - 2 ** -20)]))


def saturated(explained=False):
    # ready 2 + 1 + 0.5 = 3.5 over event 0.5 in a 2 s run at 97 %: saturated.  Holders
    # by delayed others: app.fetch 1.5 + 0.5 over 1.5 s run (1.3 others ready on
    # average), app.parse (a folded entry) 0.25 / 0.125, main 0.125 / 0.25; "idle" is
    # fourth and not named.  Sections: the top three.  The slice ending at a greenlet's
    # exit delayed most but names no place: crunch does.
    p = profile(duration_s=2.0)
    p.hub["utilization"] = 0.96875
    for g, ready, event, delayed, run in ((3, 2.0, 0.25, 1.5, 1.0), (4, 1.0, 0.25, 0.5, 0.5),
                                          (5, 0.5, 0.0, 0.25, 0.125), (1, 0.0, 0.0, 0.125, 0.25)):
        gs = p.greenlet(g)
        gs.ready_wait_s, gs.event_wait_s, gs.delayed_others_s, gs.run_s = ready, event, delayed, run
        gs.cpu_s = run  # CPU work (see loop_saturated_by_holders_off_the_cpu)
    # a fourth holder (no wait split of its own), below the top three
    p.greenlets.append(GreenletStats(id=6, name="idle", parent=1, run_s=0.5,
                                     delayed_others_s=0.0625))
    p.sections = [SectionStats(name="json", c=True, delayed_others_s=0.375),
                  SectionStats(name="xml", c=True, delayed_others_s=0.5),
                  SectionStats(name="csv", c=True, delayed_others_s=0.25),
                  SectionStats(name="tiny", c=True, delayed_others_s=0.0625),
                  SectionStats(name="quiet", c=False, delayed_others_s=None)]
    p.runs = [StackTime(stack=["<greenlet exit>"], count=1, run_s=1.0, delayed_others_s=9.0),
              StackTime(stack=[f"{APP}:30:crunch"], count=5, run_s=1.0, delayed_others_s=2.0),
              StackTime(stack=[f"{APP}:31:other"], count=5, run_s=1.0, delayed_others_s=1.0)]
    if explained:
        p.events = [blocked_slice(3, 0.5, 0.5, 0.25)]
    return p


@scenario
def loop_saturated_with_holders_sections_and_site():
    return findings.loop_saturated(saturated())


@scenario
def loop_saturated_at_its_queue_share():
    # ready 3.5 of all waiting: 45.05 % with 4.27 s of event wait, 44.93 % with 4.29 s.
    # With the holders' CPU sampled at the program's handler (hot code): a finding at
    # 45.05 %, none at 44.93 %; without samples, 45.05 % is not the larger part: none
    out = []
    for event, samples in ((4.27, True), (4.29, True), (4.27, False)):
        p = saturated()
        p.greenlet(5).event_wait_s = event - 0.5
        if samples:
            p.cpu_samples = cpu_samples([([f"{APP}:40:handler"], "app.fetch", 9, 1.0)])
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_hot_share_not_for_holders_off_the_cpu():
    # 45.05 % queueing with the handler's line hot in the samples, but the holders ran
    # mostly off the CPU (CPU an eighth of their run): the samples see none of that
    # time, so the share must be the larger part: none
    p = saturated()
    p.greenlet(5).event_wait_s = 4.27 - 0.5
    p.cpu_samples = cpu_samples([([f"{APP}:40:handler"], "app.fetch", 9, 1.0)])
    for g in (3, 4, 5, 1):
        p.greenlet(g).cpu_s = p.greenlet(g).run_s / 8
    return findings.loop_saturated(p)


@scenario
def loop_saturated_by_tiny_threadpool_tasks():
    # the holders' CPU sampled at the handler's line, which sent 1000 json.loads tasks to
    # the threadpool: 0.1 s of work, 100 us each, at most TINY_TASK_S: the hand-off is
    # the cost (0.5 s waited for results: 500 us each); 2**-20 s more work, or 999
    # tasks, or tasks sent from another line: the CPU cure as usual
    out = []
    for run, tasks, site in ((0.1, 1000, f"{APP}:40:handler"),
                             (0.1 + 2 ** -20, 1000, f"{APP}:40:handler"),
                             (0.0999, 999, f"{APP}:40:handler"),
                             (0.1, 1000, f"{APP}:41:handler")):
        p = saturated()
        p.cpu_samples = cpu_samples([([f"{APP}:40:handler"], "app.fetch", 9, 1.0)])
        p.events = [pool_event("json.loads", tasks, 0.25, run, result_s=0.5,
                               sites=[[site, tasks]])]
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_less_what_a_long_slice_explains():
    return findings.loop_saturated(saturated(explained=True))


@scenario
def loop_saturated_counts_its_top_holders_long_slices():
    # app.fetch (greenlet 3's name) made 2.0 of the named holders' 2.375 greenlet-s of
    # queueing, and its slice over the threshold burned the CPU in the same code (its
    # samples: the handler): one cause, one finding, the saturated loop's, costing
    # both.  main's share raised to 1.75: app.fetch made exactly SAME_HOLDER_SHARE (2.0
    # of 4.0), still one; 2^-20 s more and under it: two findings.  The slice in
    # app.parse (not the top holder): two findings.
    out = []
    for main_delayed, slice_of in ((0.125, 3), (1.75, 3), (1.75 + 2 ** -20, 3), (0.125, 5)):
        p = saturated()
        p.greenlet(1).delayed_others_s = main_delayed
        p.events = [blocked_slice(slice_of, 0.5, 0.5, 0.25)]
        p.cpu_samples = cpu_samples([([f"{APP}:40:handler"], "app.fetch", 9, 1.0),
                                     ([f"{APP}:50:parse"], "app.parse", 9, 1.0)])
        out += findings.without_slices_told(findings.loop_saturated(p)
                                            + findings.loop_blocked(p))
    return out


@scenario
def loop_saturated_tells_the_cpu_of_the_holders_that_queued_others():
    # app.fetch queued others 0.75 s, app.parse 0.25: exactly HOT_HOLDER_SHARE of the
    # 1.0 s, so parse's samples count (handler 0.5 s, parse 0.5 s: 50 % each, the first
    # kept); 2^-20 s less and they do not (handler: 100 %).
    out = []
    for parse in (0.25, 0.25 - 2 ** -20):
        p = saturated()
        for g, delayed in ((3, 0.75), (4, 0.0), (5, parse), (1, 0.0), (6, 0.0)):
            p.greenlet(g).delayed_others_s = delayed
        p.cpu_samples = cpu_samples([([f"{APP}:40:handler"], "app.fetch", 5, 0.5),
                                     ([f"{APP}:50:parse"], "app.parse", 4, 0.5)])
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_by_holders_off_the_cpu():
    # the top three holders ran 1.5 + 0.125 + 0.25 = 1.875 s.  With 0.9375 s of CPU,
    # exactly half was off it: CPU work (the CPU cure).  With 2^-20 s less CPU, more than
    # half: the blocking-call story, where the slices that delayed most ended: as their
    # greenlets exited (9.0 greenlet-s, over crunch's 2.0), so no place in code is named.
    # The same, but the thread waited 0.0625 s for a CPU in the 1.9375 s the loop was
    # busy: the holders' share of that wait (1.875 / 31) is not blocking, which leaves
    # 0.877 s off the CPU of the 1.815 s they had it: CPU work again.
    out = []
    for main_cpu, cpu_wait in ((0.0625, None), (0.0625 - 2 ** -20, None),
                               (0.0625 - 2 ** -20, 0.0625)):
        p = saturated()
        p.hub["cpu_wait_s"] = cpu_wait
        for g, cpu in ((3, 0.5), (4, 0.25), (5, 0.125), (1, main_cpu)):
            p.greenlet(g).cpu_s = cpu
        out += findings.loop_saturated(p)
    return out


URLLIB3_POOL = "/venv/lib/python3.11/site-packages/urllib3/connectionpool.py"
HTTP_CLIENT = "/usr/lib/python3.11/http/client.py"


@scenario
def loop_saturated_by_requests_own_cpu():
    # CPU samples of the workers: 0.25 s under requests, 0.125 under urllib3 and 0.125
    # under http.client (beneath the app's frame), 0.5 in the app alone: exactly half
    # beneath the HTTP client stack, which the message names.  The hub's 4 s of samples
    # in the app do not count.  With 2^-20 s moved from the client to the app: under
    # half, no mention.  With bodies read 20 times each on average (per-read work, the
    # small-body-reads story), told as per read; 19.75 times, per request.
    out = []
    for moved, reads in ((0.0, 0), (2 ** -20, 0), (0.0, 80), (0.0, 79)):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        p.cpu_samples = CpuSamples(
            frames=[f"{REQUESTS}:10:get", f"{URLLIB3_POOL}:20:urlopen",
                    f"{HTTP_CLIENT}:30:begin", f"{APP}:40:handler"],
            first_lines=[1, 1, 1, 1], stacks=[
                SampledStack(frames=[0, 3], greenlet="app.fetch", sections=[], count=2,
                             cpu_s=0.25, gid=3),
                SampledStack(frames=[1, 3], greenlet="app.fetch", sections=[], count=1,
                             cpu_s=0.125, gid=4),
                SampledStack(frames=[2, 3], greenlet="main", sections=[], count=1,
                             cpu_s=0.125 - moved, gid=1),
                SampledStack(frames=[3], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=0.5 + moved, gid=3),
                SampledStack(frames=[3], greenlet="hub", sections=[], count=32,
                             cpu_s=4.0, gid=2)])
        if reads:
            p.events = [{"kind": "body-reads", "site": f"{APP}:40:handler", "reads": reads,
                         "bytes": reads * 1024, "bodies": 4}]
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_by_requests_own_cpu_not_json_but_the_environment():
    # as above, 0.5 s of the workers' 1 s of samples beneath the HTTP client stack; with
    # 2^-20 s of it also beneath Response.json (the body's parse), under half: no
    # mention.  With 0.25 s of it reading proxy settings from the environment (a
    # quarter of the samples), trust_env = False is named; 2^-20 s less, not
    out = []
    env_frame = f"{REQUESTS}:700:get_environ_proxies"
    json_frame = "/venv/lib/python3.11/site-packages/requests/models.py:970:Response.json"
    for extra, cpu in ((json_frame, 2 ** -20), (env_frame, 0.25), (env_frame, 0.25 - 2 ** -20)):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        p.cpu_samples = CpuSamples(
            frames=[f"{REQUESTS}:10:get", f"{APP}:40:handler", extra],
            first_lines=[1, 1, 1], stacks=[
                SampledStack(frames=[2, 0, 1], greenlet="app.fetch", sections=[], count=1,
                             cpu_s=cpu, gid=3),
                SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=0.5 - cpu, gid=3),
                SampledStack(frames=[1], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=0.5, gid=3)])
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_by_requests_own_cpu_in_a_grown_cookie_jar():
    # as above, with 0.25 s of the samples beneath requests merging the session's jar
    # into the requests (a quarter): the cookie jar is told, not the fast path; 2^-20 s
    # less: requests' per-request work and the fast path, as before
    out = []
    merge = f"{REQUESTS.rsplit('/', 1)[0]}/cookies.py:620:merge_cookies"
    for cpu in (0.25, 0.25 - 2 ** -20):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        p.cpu_samples = CpuSamples(
            frames=[f"{REQUESTS}:10:get", f"{APP}:40:handler", merge],
            first_lines=[1, 1, 1], stacks=[
                SampledStack(frames=[2, 0, 1], greenlet="app.fetch", sections=[], count=1,
                             cpu_s=cpu, gid=3),
                SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=0.5 - cpu, gid=3),
                SampledStack(frames=[1], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=0.5, gid=3)])
        out += findings.loop_saturated(p)
    return out


def outliving_profile(alive=20, orphans=20, switches=6, spawner_alive=False):
    """*alive* app.keeper greenlets (#100...) still alive at the end, *orphans* of them
    spawned by app.job greenlets (#10...; alive at the end too if *spawner_alive*), the
    rest by main; *switches* each.  They slept at app line 38 and waited for answers at
    line 39 (HTTPResponse.begin), 4 and 2 times each; ran 2^-6 s and kept others
    waiting 2^-5 s each."""
    p = profile()
    p.greenlets += [GreenletStats(id=10 + i, name="app.job", parent=1) for i in range(orphans)]
    p.greenlets += [GreenletStats(id=100 + i, name="app.keeper",
                                  parent=10 + i if i < orphans else 1, switches=switches,
                                  run_s=2 ** -6, delayed_others_s=2 ** -5)
                    for i in range(alive)]
    p.meta["alive_at_end"] = {"app.keeper": alive, **({"app.job": 1} if spawner_alive else {})}
    sleep = ["/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep", f"{APP}:38:keeper"]
    answer = [f"{GEVENT}:687:SocketMixin.recv_into",
              "/py/lib/python3.11/http/client.py:325:HTTPResponse.begin", f"{APP}:39:keeper"]
    p.waits = [StackTime(stack=sleep, count=4 * alive, wait_s=alive, event_wait_s=alive,
                         ready_wait_s=0.0),
               StackTime(stack=answer, count=2 * alive, wait_s=alive / 4,
                         event_wait_s=alive / 8, ready_wait_s=alive / 8)]
    p.runs = [StackTime(stack=sleep, count=4 * alive, greenlet=100),
              StackTime(stack=answer, count=2 * alive, greenlet=101)]
    return p


@scenario
def greenlet_leak_at_its_edges():
    # 20 keepers alive at the end, all started by finished jobs, 6 switches each: told,
    # costing their 20 x (2^-6 + 2^-5) s; a finding of 4 s about a keeper is theirs too
    # (cost 4, named); one of main's (or the hub's) would not be.  19 alive; 10 of 20
    # orphans (half): told; 9: none; 6 switches less one in all: none; the jobs' name
    # still alive (a spawner that runs on): none
    caused = Finding(kind="connection-churn", message="m", greenlet=105, cost_s=4.0)
    mains = Finding(kind="loop-saturated", message="m", greenlet=1, cost_s=8.0)
    short = outliving_profile()
    short.greenlets[-1].switches -= 1
    return [*findings.greenlet_leaks(outliving_profile()),
            *findings.greenlet_leaks(outliving_profile(), [caused, mains]),
            *findings.greenlet_leaks(outliving_profile(alive=19, orphans=19)),
            *findings.greenlet_leaks(outliving_profile(orphans=10)),
            *findings.greenlet_leaks(outliving_profile(orphans=9)),
            *findings.greenlet_leaks(short),
            *findings.greenlet_leaks(outliving_profile(spawner_alive=True))]


def repeated_profile(count=20, calls=80, gets=30, sent=1, counted=True):
    """A pool that answered *calls* requests, *count* of them one POST alike, first sent
    from app line 46 (where 20 calls waited 2 s for their heads); *gets* and *sent*
    different GETs and other requests counted (None: too many to count)."""
    head = [f"{GEVENT}:687:SocketMixin.recv_into",
            "/py/lib/python3.11/http/client.py:325:HTTPResponse.begin", f"{APP}:46:refresh"]
    p = profile(waits=[StackTime(stack=head, count=20, wait_s=2.5, event_wait_s=2.0,
                                 ready_wait_s=0.5)])
    p.greenlet(3).ready_wait_s = 0.5  # queueing, of which the repeats take their share
    p.greenlet(2).ready_wait_s = 8.0  # the hub's: not the greenlets'
    p.events = [{"kind": "urllib3-pool", "pool": "http://auth:80", "calls": calls,
                 "distinct_gets": gets, "distinct_sent": sent,
                 "same_requests": [["POST /token #0000abcd", count, f"{APP}:46:refresh"],
                                   ["GET /item/1", 1, f"{APP}:50:lookup"]] if counted else []}]
    return p


@scenario
def repeated_request_at_its_edges():
    # a POST alike 20 times of 80 requests (a quarter), the other 60 varied (30
    # different things at least: half): told, costing 2 s x 19/20 and 19/80 of the
    # greenlets' 0.5 s of queueing; 19 times; 20 of 81
    # (under a quarter); 20 of 29 (9 others, under half its count); 29 different (under
    # half the others): none; a table too full to count stands for many: told; nothing
    # counted: none
    return [f for p in (repeated_profile(), repeated_profile(count=19),
                        repeated_profile(calls=81), repeated_profile(calls=29),
                        repeated_profile(gets=29), repeated_profile(gets=None, sent=None),
                        repeated_profile(counted=False))
            for f in findings.repeated_requests(p)]


@scenario
def loop_saturated_writing_pywsgi_pieces():
    # 0.375 + 0.03125 s of the workers' 1 s of samples under pywsgi's WSGIHandler.write
    # (40.6 %): told, with yielding larger pieces as the cure; 0.375 s (37.5 %): not
    out = []
    write = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py:888:WSGIHandler.write"
    for cpu in (0.375 + 0.03125, 0.375):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        p.cpu_samples = CpuSamples(
            frames=[write, f"{APP}:40:handler"], first_lines=[1, 1], stacks=[
                SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[], count=1,
                             cpu_s=cpu, gid=3),
                SampledStack(frames=[1], greenlet="app.fetch", sections=[], count=4,
                             cpu_s=1.0 - cpu, gid=3)])
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_tells_the_cheaper_way_of_standard_library_hot_code():
    # the workers' hot stack runs pprint (a disabled debug log's eager pformat), then
    # _strptime, then copy.deepcopy, then the program's own code only: the first three
    # get their specific cure first, before the generic ones; the last the generic one
    # with "compute once"
    out = []
    for inner in ("/usr/lib/python3.11/pprint.py:158:PrettyPrinter._format",
                  "/usr/lib/python3.11/_strptime.py:349:_strptime",
                  "/usr/lib/python3.11/copy.py:128:deepcopy", None):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        frames = [f"{APP}:23:app"] + ([inner] if inner else [])
        stack = [1, 0] if inner else [0]
        p.cpu_samples = CpuSamples(frames=frames, first_lines=[1] * len(frames), stacks=[
            SampledStack(frames=stack, greenlet="app.fetch", sections=[], count=8,
                         cpu_s=1.0, gid=3)])
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_sending_request_bodies_in_pieces():
    # 1 s of samples: 0.40625 sending (http.client's send under urllib3's request), at
    # least BODY_PIECES_CPU_SHARE, and 0.03125 in the body's generator right inside that
    # request: told, naming the generator, with requests' per-request cure left out;
    # the same sends without the generator's samples: not told (no iterable body); the
    # generator with sends of 0.375: not told (under the share)
    send = ["/usr/lib/python3.11/http/client.py:1009:HTTPConnection.send",
            f"{URLLIB3_PKG}/connection.py:579:HTTPConnection.request",
            f"{REQUESTS_PKG}/adapters.py:696:HTTPAdapter.send", f"{APP}:32:ship"]
    made = [f"{APP}:23:lines", f"{URLLIB3_PKG}/connection.py:571:HTTPConnection.request",
            f"{REQUESTS_PKG}/adapters.py:696:HTTPAdapter.send", f"{APP}:32:ship"]
    frames = list(dict.fromkeys(send + made))
    out = []
    for sending, generator in ((0.40625, 0.03125), (0.40625, 0.0), (0.375, 0.03125)):
        p = saturated()
        for g in (3, 4, 5, 1):
            p.greenlet(g).cpu_s = p.greenlet(g).run_s
        stacks = [SampledStack(frames=[frames.index(f) for f in send], greenlet="app.fetch",
                               sections=[], count=6, cpu_s=sending, gid=3),
                  SampledStack(frames=[frames.index(f"{APP}:32:ship")], greenlet="app.fetch",
                               sections=[], count=6, cpu_s=1.0 - sending - generator, gid=3)]
        if generator:
            stacks.append(SampledStack(frames=[frames.index(f) for f in made],
                                       greenlet="app.fetch", sections=[], count=1,
                                       cpu_s=generator, gid=3))
        p.cpu_samples = CpuSamples(frames=frames, first_lines=[1] * len(frames),
                                   stacks=stacks)
        out += findings.loop_saturated(p)
    return out


@scenario
def loop_saturated_writing_pywsgi_pieces_names_the_iterable():
    # inside pywsgi's process_result: the program's generator (0.25 s) beside a library
    # frame (0.375 s, not the program's) and the write itself; the generator is named
    pywsgi = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py"
    p = saturated()
    for g in (3, 4, 5, 1):
        p.greenlet(g).cpu_s = p.greenlet(g).run_s
    p.cpu_samples = CpuSamples(
        frames=[f"{pywsgi}:888:WSGIHandler.write", f"{pywsgi}:990:WSGIHandler.process_result",
                f"{APP}:18:csv_rows", f"{REQUESTS}:10:iter_content"],
        first_lines=[1, 1, 1, 1], stacks=[
            SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[], count=4,
                         cpu_s=0.5, gid=3),
            SampledStack(frames=[2, 1], greenlet="app.fetch", sections=[], count=2,
                         cpu_s=0.25, gid=3),
            SampledStack(frames=[3, 1], greenlet="app.fetch", sections=[], count=3,
                         cpu_s=0.375, gid=3)])
    return findings.loop_saturated(p)


def storm(stack, count=2000, run_s=0.03125, event_wait_s=0.5, greenlet=3, delayed=None,
          hub_delayed=None, children=0):
    # hub busy 1.5 - 0.5 idle = 1 s over 4000 switches: 0.25 ms a switch, times 2000
    # = 0.5 s; 0.03125 s / 2000 = 15.6 us of work between switches
    hub = GreenletStats(id=2, name="hub", parent=None, run_s=1.5, switches=4000,
                        delayed_others_s=hub_delayed)
    p = profile(runs=[StackTime(stack=stack, count=count, run_s=run_s, greenlet=greenlet,
                                delayed_others_s=delayed)],
                waits=[StackTime(stack=stack, count=count, wait_s=1.0,
                                 event_wait_s=event_wait_s)])
    p.greenlets[1] = hub
    if children:  # greenlets the storming one spawned (a folded entry for them all)
        p.greenlets.append(GreenletStats(
            id=90, name=f"app.child [{children} finished greenlets folded]", parent=greenlet))
    p.hub["idle_s"] = 0.5
    return findings.switch_storms(p)


@scenario
def storm_of_small_reads():
    return storm([f"{GEVENT}:687:SocketMixin.recv", f"{URLLIB3}:1:read", f"{APP}:12:read_small"])


@scenario
def storm_of_a_compiled_wait_once_per_greenlet_it_spawned():
    # 2000 wake-ups at the program's own line, no call recorded (gevent.iwait over the
    # greenlets it spawned): one per result with 1819 children (2000 <= 1.1 x 1819), no
    # storm; with 1818, 2000 > 1999.8: a storm
    return [*storm([f"{APP}:34:collect"], children=1819),
            *storm([f"{APP}:34:collect"], children=1818)]


@scenario
def storm_of_sleep0():
    return storm([f"{HUB}:166:sleep", f"{APP}:22:tick"], event_wait_s=0.0, greenlet=None)


@scenario
def storm_of_a_spin_wait():
    # gevent.sleep(0) with 2^-9 s / 2000 = 0.98 us between yields: a spin-wait, told to
    # wait on an Event.  Others queued 0.5 greenlet-s behind its slices, and 0.25 behind
    # the hub, half of whose 4000 switches were its 2000: 0.5 + 0.125 on top of the
    # 0.5 s of switching
    return storm([f"{HUB}:166:sleep", f"{APP}:22:wait_done"], run_s=2 ** -9,
                 event_wait_s=0.0, delayed=0.5, hub_delayed=0.25)


def test_a_spin_waits_queueing_is_the_storms_not_the_saturated_loops():
    # saturated()'s loop, with a spinner among its slices: the others' 0.5 greenlet-s
    # behind its slices and the hub's share (its 2000 of the hub's 4000 switches, of
    # 0.25) are the storm's, and the saturated loop's figure is that much smaller
    p = saturated()
    before = findings.loop_saturated(p)[0].cost_s
    spin = [f"{HUB}:166:sleep", f"{APP}:22:wait_done"]
    p.runs.append(StackTime(stack=spin, count=2000, run_s=2 ** -9, greenlet=4,
                            delayed_others_s=0.5))
    p.waits.append(StackTime(stack=spin, count=2000, wait_s=0.0, event_wait_s=0.0))
    hub = p.greenlet(2)
    hub.run_s, hub.switches, hub.delayed_others_s = 1.5, 4000, 0.25
    [storm_found] = findings.switch_storms(p)
    assert storm_found.extra["others_ready_wait_s"] == 0.625
    assert findings.loop_saturated(p)[0].cost_s == before - 0.625


@scenario
def storm_of_short_timers():
    return storm([f"{HUB}:166:sleep", f"{APP}:22:tick"], event_wait_s=0.25)


@scenario
def storm_of_queue_handoffs():
    return storm([f"{QUEUE}:300:get", f"{APP}:40:consume"])


@scenario
def storm_elsewhere():
    return storm([f"{APP}:50:spin"])


@scenario
def small_body_reads_asked_for_by_the_caller():
    # reads of exactly 5 KiB on average, half requests' own 10 KiB piece: .content's,
    # which geventperf.mount(session) makes large; a byte fewer in all: the caller asked
    # for small pieces (iter_content(chunk_size=...), raw.read(n)), and only it can ask
    # for more
    return findings.small_body_reads(profile(events=[
        {"kind": "body-reads", "site": f"{APP}:70:content", "reads": 400,
         "bytes": 400 * 5 * 1024, "bodies": 4, "read_s": 0.5, "run_s": 0.125},
        {"kind": "body-reads", "site": f"{APP}:71:chunks", "reads": 400,
         "bytes": 400 * 5 * 1024 - 1, "bodies": 4, "read_s": 0.5, "run_s": 0.125}]))


@scenario
def small_body_reads_at_a_site():
    # 4 MiB in 400 reads: 10.2 KiB a read, a finding; 99 reads: too few; a mean of
    # exactly 64 KiB: not small; one byte under, in a profile without run_s or bodies:
    # a finding costing its read_s, of one body
    return findings.small_body_reads(profile(events=[
        {"kind": "body-reads", "site": f"{APP}:60:fetch", "reads": 400, "bytes": 4 * 2 ** 20,
         "bodies": 4, "read_s": 0.5, "run_s": 0.125},
        {"kind": "body-reads", "site": f"{APP}:61:few", "reads": 99, "bytes": 99,
         "bodies": 1, "read_s": 0.5, "run_s": 0.5},
        {"kind": "body-reads", "site": f"{APP}:62:large", "reads": 100,
         "bytes": 100 * 64 * 1024, "bodies": 1, "read_s": 0.5, "run_s": 0.5},
        {"kind": "body-reads", "site": f"{APP}:63:older", "reads": 100,
         "bytes": 100 * 64 * 1024 - 1, "bodies": 0, "read_s": 0.25}]))


def lxml_parse(greenlet, other, guarded, stack=(f"{APP}:43:fetch_and_parse",)):
    return {"kind": "lxml-concurrent-parse", "greenlet": greenlet, "other": other,
            "section": "lxml.etree.parse", "stack": list(stack), "guarded": guarded}


@scenario
def deadlock_risk_unguarded_twice():
    # cost: the suspended time (wait_s) of the two greenlets involved, 0.5 + 0.25;
    # greenlet 5's suspension is not theirs
    return findings.deadlock_risks(profile(events=[
        lxml_parse(3, 4, False), lxml_parse(4, 3, False),
        c_switch(3, 0.25), c_switch(4, 0.125), c_switch(5, 8.0)]))


@scenario
def deadlock_risk_guarded_at_no_site():
    return findings.deadlock_risks(profile(events=[lxml_parse(5, 3, True, stack=())]))


def pool_event(function, tasks, queued, run, **kw):
    return {"kind": "threadpool", "pool": kw.pop("pool", "gevent's default threadpool"),
            "function": function, "tasks": tasks, "saturated": kw.pop("saturated", tasks),
            "queued_s": queued, "queued_max_s": queued / 2, "run_s": run, "maxsize": 4,
            "depth_max": 3, "depth_mean": 1.5, "default_pool": True, **kw}


@scenario
def threadpool_full_of_dns():
    # queued 1 + 0.5; depth mean weighted by tasks (1.5 * 8 + 0.5 * 4) / 12 = 1.2; DNS
    # ran 3 of the 4 worker-seconds: the cause; the peak had 5 ahead: maxsize 6
    return findings.threadpool_saturated(profile(events=[
        pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True, greenlets=2,
                   greenlet_ids=[3, 4, 77], sites=[[f"{APP}:70:connect", 8]]),
        pool_event("work", 4, 0.5, 1.0, depth_max=5, depth_mean=0.5)]))


@scenario
def threadpool_leaves_a_connection_finding_its_lookups():
    # 8 lookups queued 1 s, 6 of them from urllib3's create_connection; connection-churn
    # says 0.625 of the connections need not have been opened: 0.625 x 1 x 6/8 =
    # 0.46875 s of the queueing is its, the pool's cost 1.5 - 0.46875
    p = churn_profile([urllib3_pool("http://b:80", 64, 32, 8, 32),
                       urllib3_pool("https://a:443", 64, 16, 4, 60)])
    p.events += [
        pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True, greenlets=2,
                   sites=[[f"{URLLIB3_PKG}/util/connection.py:60:create_connection", 6],
                          [f"{APP}:70:connect", 2]]),
        pool_event("work", 4, 0.5, 1.0, depth_max=5, depth_mean=0.5)]
    return findings.threadpool_saturated(p)


def kept_pool(pool, opened, new, reused, **kw):
    """A pool event whose timed responses came *new* on new connections and *reused* on
    reused ones, of *opened* connections made by the pool."""
    event = urllib3_pool(pool, opened, 4, 10, 0, **kw)
    event["trails"] = {"new": [new, 0, 0.0, 0.0, new * 0.01],
                       "reused": [reused, 0, 0.0, 0.0, reused * 0.01]}
    return event


@scenario
def connections_not_kept_alive_by_their_server():
    # https://a's pool opened 4 connections, yet 180 of 200 timed responses came on new
    # ones (reused exactly 10 %): 176 made again; http://b 30 of 30 new for 10 opened: 20
    # more: 196 of the 905 connections every pool made (opened, and made again), that
    # share of the opening cost (0.5 s of waits + 1 s queued behind set-up CPU).  Not
    # for: reused over 10 % (179 of 200 new), fewer than 10
    # made again (13 new for 4 opened), the folded record of many hosts, no trails.
    kept = [kept_pool("http://c:80", 4, 179, 21), kept_pool("http://d:80", 4, 13, 0),
            kept_pool("<other pools>", 4, 500, 0, pools=64), urllib3_pool("http://e:80",
                                                                           4, 4, 10, 0)]
    return [*findings.not_kept_alive(churn_profile([
                kept_pool("https://a:443", 4, 180, 20), kept_pool("http://b:80", 10, 30, 0),
                *kept])),
            *findings.not_kept_alive(churn_profile(kept))]


@scenario
def connections_not_kept_alive_told_by_who_closed_them():
    # 180 of 200 timed responses on new connections: with 90 heads saying
    # Connection: close (exactly half of the 180) the server closed them; with 89, most
    # closes were this side's (unread stream=True bodies closed), and the fix says so
    def closing(count):
        event = kept_pool("https://a:443", 4, 180, 20)
        event.update(calls=200, closing=count)
        return findings.not_kept_alive(churn_profile([event]))
    return [*closing(90), *closing(89)]


@scenario
def connection_churn_and_lookups_past_many_in_flight():
    # 101 requests in flight to one host: the fix bounds the calls (a gevent Pool) rather
    # than holding 101 connections open on it; at exactly 100, a pool that size.  The
    # threadpool's peak of 101 tasks at once (100 ahead) gives no 101-thread pool either,
    # for DNS of new connections, for DNS alone, or for other work; 100 at once does
    many = [urllib3_pool("http://b:80", 400, 101, 8, 300)]
    edge = [urllib3_pool("http://b:80", 400, 100, 8, 300)]
    connect = [[f"{URLLIB3_PKG}/util/connection.py:60:create_connection", 6]]
    return [*findings.connection_churn(churn_profile(many)),
            *findings.connection_churn(churn_profile(edge)),
            *findings.threadpool_saturated(profile(events=[
                pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True, sites=connect,
                           depth_max=100)])),
            *findings.threadpool_saturated(profile(events=[
                pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True, depth_max=100)])),
            *findings.threadpool_saturated(profile(events=[
                pool_event("work", 8, 1.0, 3.0, depth_max=100)])),
            *findings.threadpool_saturated(profile(events=[
                pool_event("work", 8, 1.0, 3.0, depth_max=99)]))]


@scenario
def connection_findings_read_no_shape_in_folded_hosts():
    # past 64 hosts the rest fold into one record: its pools and peaks add up many
    # hosts', so neither churn nor new pools is read there; a pool that discarded with
    # fewer out at once than its size (connections out before tracing) is told to grow
    # past its size, not to shrink to its peak; a program spread over 11 hosts is told
    # about pool_connections
    folded = churn_profile([urllib3_pool("<other pools>", 64, 16, 4, 60, pools=64)],
                           lookups=9)
    many = churn_profile([urllib3_pool(f"http://h{i}:80", 48, 8, 10, 0, pools=48)
                          for i in range(11)], lookups=9)
    return [*findings.connection_churn(folded), *findings.session_per_request(folded),
            *findings.connection_churn(churn_profile([
                urllib3_pool("http://a:80", 64, 3, 10, 40)])),
            *findings.session_per_request(many)]


@scenario
def threadpool_explains_no_more_than_it_queued():
    # a site count below one is no count: 6 lookups of 8 from create_connection, as
    # threadpool_leaves_a_connection_finding_its_lookups (0.46875 s of 1 s taken)
    p = churn_profile([urllib3_pool("http://b:80", 64, 32, 8, 32),
                       urllib3_pool("https://a:443", 64, 16, 4, 60)])
    p.events += [pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True,
                            sites=[[f"{URLLIB3_PKG}/util/connection.py:60:create_connection",
                                    6], [f"{URLLIB3_PKG}/util/connection.py:60:x", -9]])]
    return findings.threadpool_saturated(p)


@scenario
def threadpool_dns_queued_behind_work_in_a_pool_of_its_own():
    return findings.threadpool_saturated(profile(events=[
        pool_event("getaddrinfo", 2, 0.25, 0.5, dns=True, default_pool=False, pool="pool-1"),
        pool_event("crunch", 4, 1.0, 2.0, default_pool=False, pool="pool-1", greenlets=6,
                   greenlet_names=["a", "b", "c", "d", "e", "a"])]))


@scenario
def threadpool_tells_dns_only_where_it_queued_a_tenth():
    # lookups queued 0.125 of 1.125 s (11 %): told, with a resolver off the pool; 0.0625
    # of 1.0625 s (5.9 %): neither (the lookups are no lever there)
    return [f for dns in (0.125, 0.0625) for f in findings.threadpool_saturated(profile(
        events=[pool_event("getaddrinfo", 2, dns, 0.0625, dns=True),
                pool_event("work", 8, 1.0, 4.0)]))]


@scenario
def threadpool_tasks_that_waited_in_their_threads():
    # the tasks ran 4 worker-seconds (lookups' 0.0625 apart); the process's threads
    # besides the loop's used 0.9375 s: under a quarter, they waited there; 1.0 s: not
    # under it; socket patched, not patched, or not said
    out = []
    for threads_cpu, patched in ((0.9375, ["socket"]), (0.9375, ["time"]), (0.9375, None),
                                 (1.0, ["socket"])):
        p = profile(events=[pool_event("getaddrinfo", 2, 0.125, 0.0625, dns=True),
                            pool_event("fetch_in_thread", 8, 1.0, 4.0)])
        for g in p.greenlets:
            g.cpu_s = 0.5 if g.id == 3 else 0.0
        p.hub.update(cpu_s=0.0, process_cpu_s=0.5 + threads_cpu)
        if patched is not None:
            p.meta["monkey_patched"] = patched
        out += findings.threadpool_saturated(p)
    return out


@scenario
def threadpool_many_functions_no_dns():
    # seven functions, five written; the "other pools" bucket and a pool never full are
    # no finding; queued one 2**-20 s under SATURATED_MIN_QUEUED_S is none, exactly at
    # it is one
    return findings.threadpool_saturated(profile(events=[
        pool_event(f"f{i}", 1, 0.0625 * (i + 1), 0.5, greenlets=1) for i in range(7)]
        + [pool_event("other", 1, 5.0, 5.0, pool="<other pools>"),
           pool_event("quiet", 1, 5.0, 5.0, pool="pool-9", saturated=0),
           pool_event("short", 1, 0.05 - 2 ** -20, 5.0, pool="pool-8", default_pool=False),
           pool_event("enough", 2, 0.05, 0.25, pool="pool-7", default_pool=False,
                      saturated=1, maxsize=2, depth_max=0, depth_mean=0.0,
                      sites=[["x.py:1:f", 2]])]))


PB = "/venv/lib/python3.11/site-packages/google/protobuf/internal/decoder.py"
THRIFT = "/venv/lib/python3.11/site-packages/thrift/protocol/TBinaryProtocol.py"
JSON_ENC = "/usr/lib/python3.11/json/encoder.py"
REQUESTS = "/venv/lib/python3.11/site-packages/requests/models.py"
MSGPACK = "/venv/lib/python3.11/site-packages/msgpack/fallback.py"


def sampled(stacks, libraries=None, **profile_kw):
    """A profile whose CPU samples are *stacks*: (frames, greenlet, count, cpu_s)."""
    samples = cpu_samples(stacks)
    samples.libraries = dict(libraries or {})
    p = profile(cpu_samples=samples, **profile_kw)
    # running 0.5 + 0.25 + 0.25 = 1 s, ready wait 0.5 s
    for gid, run, ready in ((3, 0.5, 0.25), (4, 0.25, 0.25), (1, 0.25, None)):
        p.greenlet(gid).run_s, p.greenlet(gid).ready_wait_s = run, ready
    return p


APP_SPIN = f"{APP}:3:spin"


@scenario
def slow_protobuf_backend_across_four_greenlets():
    # protobuf 0.5 of 1 s sampled, over four greenlet names (three written); its own
    # cost is its share of the running time (0.5 * 1 s) or its CPU (0.5 s), whichever is
    # larger, plus its share of the ready wait (0.5 * 0.5 s)
    return findings.slow_paths(sampled([
        ([f"{PB}:10:DecodeField", APP_SPIN], "w1", 4, 0.25),
        ([f"{PB}:20:_DecodeVarint", f"{APP}:4:decode"], "w2", 2, 0.125),
        ([f"{PB}:10:DecodeField", APP_SPIN], "w3", 1, 0.0625),
        ([f"{PB}:10:DecodeField", APP_SPIN], "w4", 1, 0.0625),
        ([APP_SPIN], "w1", 8, 0.5)], {"protobuf_backend": "python"}))


@scenario
def slow_paths_need_their_library_fact_and_first_entry_wins():
    # thrift: the fastbinary fact unknown does not rule an entry out, so the first
    # thrift entry (fastbinary importable) applies; a stack holding thrift and msgpack
    # frames is thrift's (earlier in the table); json's encoder counts only its Python
    # encoding functions, and only with _json present (json_c True)
    return findings.slow_paths(sampled([
        ([f"{THRIFT}:5:readI32", f"{MSGPACK}:9:unpack"], "t", 5, 0.25),
        ([f"{MSGPACK}:9:unpack"], "m", 5, 0.25),
        ([f"{JSON_ENC}:200:_iterencode_dict"], "j", 5, 0.125),
        ([f"{JSON_ENC}:100:JSONEncoder.default"], "j", 5, 0.125),
        ([f"{REQUESTS}:790:Response.apparent_encoding"], "r", 5, 0.125),
        ([f"{REQUESTS}:800:Response.text"], "r", 5, 0.125)], {"json_c": True}))


@scenario
def slow_paths_at_the_share_and_sample_minimums():
    # msgpack: exactly MIN_SHARE (0.0625 of 1.25 s = 0.05) with MIN_SAMPLES: a finding;
    # requests: a bigger share from one sample too few: none
    return findings.slow_paths(sampled([
        ([f"{MSGPACK}:9:unpack"], "m", 5, 0.0625),
        ([f"{REQUESTS}:790:Response.apparent_encoding"], "r", 4, 0.5),
        ([APP_SPIN], "a", 100, 0.6875)]))


@scenario
def slow_paths_of_a_profile_without_samples():
    no_cpu = sampled([([f"{MSGPACK}:9:unpack"], "m", 5, 0.0)])
    return findings.slow_paths(profile()) + findings.slow_paths(no_cpu)



# -- more edges: where a read site starts, a cause at exactly half, the storm stories,
# thread pools at their boundaries

WIN_URLLIB3 = "C:\\venv\\Lib\\site-packages\\urllib3\\response.py"


@scenario
def read_site_is_the_outermost_reader_before_the_users_code():
    # gevent's hub, greenlet and geventperf's own frames between readers do not end the
    # run of readers; the user's frame does (the requests frame outside it is not the
    # site); a Windows path is a reader too
    stack = [f"{GEVENT}:687:SocketMixin.recv_into",
             "/venv/lib/python3.11/site-packages/gevent/hub.py:100:wait",
             f"{WIN_URLLIB3}:1134:HTTPResponse.read",
             "/venv/lib/python3.11/site-packages/greenlet/x.py:1:switch",
             "/work/geventperf/sections.py:234:wrapper",
             "/venv/lib/python3.11/site-packages/requests/models.py:899:content",
             f"{APP}:43:fetch", "/venv/lib/python3.11/site-packages/requests/api.py:1:get"]
    return findings.blocked_reads_in_c_sections(profile(events=[c_switch(3, 0.5, stack=stack)]))


@scenario
def read_site_after_a_users_inner_frame():
    # the user's own frame innermost (a callback the parser called) does not end the
    # search: nothing was found yet
    stack = [f"{APP}:9:on_data", f"{URLLIB3}:1134:HTTPResponse.read", f"{APP}:43:fetch"]
    return findings.blocked_reads_in_c_sections(profile(events=[c_switch(3, 0.5, stack=stack)]))


@scenario
def slice_off_the_cpu_for_exactly_half_is_cpu():
    # 0.25 s of CPU in 0.5 s: off the CPU exactly BLOCKING_SHARE of it, not more
    return findings.loop_blocked(profile(events=[blocked_slice(3, 0.5, 0.25, 0.5)]))


@scenario
def storms_of_every_hand_off_and_near_misses():
    # each of gevent's hand-off modules; ":sleep" in the user's own frame is not
    # gevent's sleep; gevent's hub seventh in the stack is past the frames looked at
    out = []
    for module in ("event.py", "lock.py", "_semaphore.py", "_event.py"):
        out += storm([f"/venv/lib/python3.11/site-packages/gevent/{module}:1:wait",
                      f"{APP}:40:consume"])
    out += storm([f"{APP}:5:sleep"])
    out += storm([f"{APP}:{i}:f" for i in range(6)] + [f"{HUB}:166:sleep"])
    return out


@scenario
def threadpool_boundaries():
    # pool-a: one task (the mean depth is its own); DNS exactly half the busy time is
    #   the cause; four names shown, none left over; five functions, all written
    # pool-b: a pool whose workers ran nothing measurable (its queue waited for threads
    #   to start, not for work) is no finding; pool-d: one that ran 2**-20 s under
    #   SATURATED_MIN_BUSY_S is none, exactly at it is one
    # pool-c: DNS the cause with under a second of work
    a = [pool_event("getaddrinfo", 1, 0.125, 1.0, pool="pool-a", dns=True,
                    depth_mean=1.5, greenlets=4, greenlet_names=["a", "b", "c", "d"])] + \
        [pool_event(f"g{i}", 0, 0.0625, 0.25, pool="pool-a", saturated=0) for i in range(4)]
    b = [pool_event("getaddrinfo", 1, 0.5, 0.0, pool="pool-b", dns=True),
         pool_event("idle", 0, 0.0, 0.0, pool="pool-b", saturated=0)]
    c = [pool_event("getaddrinfo", 2, 0.5, 0.25, pool="pool-c", dns=True),
         pool_event("work", 2, 0.5, 0.25, pool="pool-c")]
    d = [pool_event("getaddrinfo", 1, 0.5, 0.025, pool="pool-d", dns=True),
         pool_event("work", 1, 0.5, 0.025 - 2 ** -20, pool="pool-d"),
         pool_event("getaddrinfo", 1, 0.5, 0.025, pool="pool-e", dns=True),
         pool_event("work", 1, 0.5, 0.025, pool="pool-e")]
    return findings.threadpool_saturated(profile(events=a + b + c + d))


def test_a_kind_without_a_cost_meaning_says_none():
    f = common._finding("some-new-kind", "It happened.", 0.5, ["a"], greenlet=3, count=2)
    assert f.to_dict() == {"kind": "some-new-kind", "message": "It happened. [cost 0.500 s: ]",
                           "greenlet": 3, "section": None, "stack": ["a"], "cost_s": 0.5,
                           "count": 2, "cost_meaning": "", "hazard": False}


def test_folded_names_keep_their_spaces():
    assert common._base_name("pool worker [3 finished greenlets folded]") == "pool worker"
    assert common._base_name("a [b] [3 finished greenlets folded]") == "a"


# -- the edges the first scenarios left open

@scenario
def deadlock_risk_whose_other_parse_is_unknown():
    # no "other" greenlet recorded: the ids to name are a greenlet and None
    ev = lxml_parse(3, None, False)
    return findings.deadlock_risks(profile(events=[ev]))


@scenario
def slices_at_the_default_threshold_of_a_profile_that_names_none():
    # no block_threshold_s in meta: the tracer's default, 0.05 s
    p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.0625)])
    p.meta = {}
    return findings.loop_blocked(p)


@scenario
def slices_placed_where_they_ended_in_code():
    # the longest slice ended at a greenlet's exit: the shorter one that ended in code
    # names the place; a greenlet the profile lacks; a slice with no stack and one with
    # only gevent's frames (no user frame: its innermost frame is the place); a group
    # under the threshold first does not stop the others
    hub_only = ["/venv/lib/python3.11/site-packages/gevent/hub.py:100:switch",
                "/venv/lib/python3.11/site-packages/gevent/greenlet.py:900:run"]
    no_stack = blocked_slice(1, 0.25, 0.25, 0.5)
    del no_stack["stack"]
    return findings.loop_blocked(profile(events=[
        blocked_slice(5, 0.25, 0.25, 2 ** -10),
        blocked_slice(3, 0.75, 0.75, 0.5, stack=["<greenlet exit>"]),
        blocked_slice(3, 0.25, 0.25, 0.5),
        blocked_slice(99, 0.5, 0.5, 0.5, stack=hub_only),
        no_stack]))


def saturated_edge(utilization=0.6, ready=2.0, event=1.0):
    p = profile(duration_s=2.0)
    p.hub["utilization"] = utilization
    # the hub's own figures must not count as a worker's; a greenlet without the wait
    # split is not a worker either
    hub = p.greenlet(2)
    hub.ready_wait_s, hub.event_wait_s = 8.0, 8.0
    p.greenlet(3).ready_wait_s, p.greenlet(3).event_wait_s = ready, event
    p.greenlet(4).ready_wait_s, p.greenlet(4).event_wait_s = 4.0, None
    # a holder that never ran (delayed others but no run time) is not named
    p.greenlet(5).delayed_others_s, p.greenlet(5).run_s = 0.5, 0.0
    return p


@scenario
def loop_saturated_at_its_thresholds_with_nobody_to_name():
    # utilization exactly SATURATED_UTILIZATION, ready exactly one greenlet queued on
    # average (2 s over a 2 s run): saturated; no sections, no run stacks, no holder
    # that ran: the message names none
    return findings.loop_saturated(saturated_edge())


@scenario
def loop_saturated_needs_its_queue_share_and_utilization():
    # ready 2 of 4.5 s waited: 44 % queueing, not the larger part (no hot code)
    return findings.loop_saturated(saturated_edge(ready=2.0, event=2.5)) + \
        findings.loop_saturated(saturated_edge(utilization=0.6 - 2 ** -20))


@scenario
def loop_saturated_weighs_its_queueing_against_waits_other_than_limits():
    # ready 2 of 4.5 s waited, 44 % (not the larger part), but 0.75 s of the 2.5 s event
    # wait was at a gevent Pool's free slot (a limit: waits for its holders, whom the
    # busy loop kept waiting): 2 against 1.75, the larger part: saturated; at a request
    # instead: not
    out = []
    for stack in (SLOT_STACK, list(FAILING_CALL)):
        p = saturated_edge(ready=2.0, event=2.5)
        p.waits = [StackTime(stack=list(stack), count=4, wait_s=0.75, event_wait_s=0.75,
                             ready_wait_s=0.0)]
        out += findings.loop_saturated(p)
    return out


@scenario
def blocked_reads_of_an_older_profile():
    # no event/ready split (the whole wait is the cost), no count, no read frame
    ev = c_switch(3, 0.5, stack=[f"{APP}:43:fetch"])
    del ev["event_wait_s"], ev["count"]
    return findings.blocked_reads_in_c_sections(profile(events=[ev]))


@scenario
def storms_skipped_and_found_in_one_profile():
    # skipped first, each for its own reason (too few, too much work, a placeholder
    # stack, waits of exactly 1 ms for their event), then a storm whose stack has no
    # user frame; the hub's idle time unknown: all its time counts as busy
    hub = GreenletStats(id=2, name="hub", parent=None, run_s=1.0, switches=4000)
    gevent_only = [f"{QUEUE}:300:get", f"{HUB}:166:switch"]
    paced = [f"{APP}:70:paced"]
    p = profile(
        runs=[StackTime(stack=[f"{APP}:1:few"], count=999, run_s=0.001, greenlet=3),
              StackTime(stack=[f"{APP}:2:slow"], count=2000, run_s=0.1, greenlet=3),
              StackTime(stack=["<hub wait>"], count=5000, run_s=0.001, greenlet=3),
              StackTime(stack=paced, count=2000, run_s=0.001, greenlet=3),
              StackTime(stack=gevent_only, count=2000, run_s=0.001, greenlet=4)],
        waits=[StackTime(stack=paced, count=2000, wait_s=2.0, event_wait_s=2.0)])
    p.greenlets[1] = hub
    return findings.switch_storms(p)


@scenario
def small_body_reads_of_events_missing_figures():
    return findings.small_body_reads(profile(events=[
        {"kind": "body-reads", "site": f"{APP}:80:nobytes", "reads": 100, "bodies": 2,
         "read_s": 0.5, "run_s": 0.25},
        {"kind": "body-reads", "site": f"{APP}:81:noreads", "bytes": 10}]))


@scenario
def slow_paths_summed_per_greenlet_named_by_cpu_and_windows_paths():
    # one greenlet's two stacks in a slow path add up; names by CPU, not alphabet; two
    # equally heavy stacks: the first names the stack; a Windows path matches; the
    # running time is 1.25 s here (the share times it, not over it); a path entry
    # below the minimums seen first does not stop the others
    p = sampled([
        ([f"{REQUESTS}:790:Response.apparent_encoding"], "r", 1, 0.0625),
        ([f"{MSGPACK}:9:unpack"], "zeta", 4, 0.25),
        ([f"{MSGPACK}:10:unpack", APP_SPIN], "zeta", 4, 0.25),
        (["C:\\py\\Lib\\site-packages\\msgpack\\fallback.py:9:unpack"], "alpha", 4, 0.125),
        ([APP_SPIN], "zeta", 8, 0.3125)])
    p.greenlet(1).run_s = 0.5
    return findings.slow_paths(p)


@scenario
def small_body_reads_not_for_bodies_read_in_two_pieces_or_fewer():
    # 100 bodies in 200 reads (2 KiB each): exactly two a body, none; in 201 reads: one
    # more than that, a finding
    return findings.small_body_reads(profile(events=[
        {"kind": "body-reads", "site": f"{APP}:70:two", "reads": 200, "bytes": 200 * 2048,
         "bodies": 100, "read_s": 0.5, "run_s": 0.25},
        {"kind": "body-reads", "site": f"{APP}:71:more", "reads": 201, "bytes": 201 * 2048,
         "bodies": 100, "read_s": 0.5, "run_s": 0.25}]))


@scenario
def small_body_reads_without_bodies_or_site():
    return findings.small_body_reads(profile(events=[
        {"kind": "body-reads", "reads": 100, "bytes": 1000, "read_s": 0.5}]))


@scenario
def slices_without_a_stack_beside_one_placed_in_code():
    no_stack = blocked_slice(1, 0.5, 0.5, 0.5)
    del no_stack["stack"]
    return findings.loop_blocked(profile(events=[no_stack, blocked_slice(1, 0.25, 0.25, 0.5)]))


@scenario
def loop_saturated_with_no_holder_at_all():
    p = saturated_edge()
    p.greenlet(5).delayed_others_s = None
    return findings.loop_saturated(p)


@scenario
def threadpool_of_six_functions():
    return findings.threadpool_saturated(profile(events=[
        pool_event(f"h{i}", 1, 0.0625 * (i + 1), 0.5, pool="pool-6") for i in range(6)]))

# The findings each scenario gives, as Finding.to_dict() writes them.
EXPECTED = {
    'blocked_read_one_greenlet': [{'caller': '/srv/app/worker.py:43:fetch_and_parse',
      'cost_meaning': 'greenlet-seconds spent suspended inside the C section waiting for its '
                      'input (event wait; queueing behind other greenlets not counted)',
      'cost_s': 0.625,
      'count': 42,
      'file_like': True,
      'fix': 'read the body first, then parse bytes',
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocked-read-in-c-section',
      'message': "greenlet 'app.fetch' (#3) was switched out 42 time(s) inside C section "
                 "'lxml.etree.parse', waiting 0.625 s in all for input the parser read through "
                 '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read '
                 '(parser called at /srv/app/worker.py:43:fetch_and_parse). A C parser reading '
                 "the network stops mid-parse on every packet (and lxml's parser lock can "
                 'deadlock). Fix: read the body first, e.g. geventperf.mount(session) '
                 '(GeventAdapter) and response.content, then parse the bytes '
                 '(lxml.etree.fromstring(body), json.loads(body)). [cost 0.625 s: '
                 'greenlet-seconds spent suspended inside the C section waiting for its input '
                 '(event wait; queueing behind other greenlets not counted)]',
      'names': {'app.fetch': 0.625},
      'read_site': '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
      'section': 'lxml.etree.parse',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/socket.py:706:SocketIO.readinto',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/work/geventperf/sections.py:234:wrapper',
                '/srv/app/worker.py:43:fetch_and_parse'],
      'wait_s': 0.625}],
    'blocked_reads_of_greenlets_of_two_names_and_an_unknown_one': [{'caller': None,
      'cost_meaning': 'greenlet-seconds spent suspended inside the C section waiting for its '
                      'input (event wait; queueing behind other greenlets not counted)',
      'cost_s': 0.9375,
      'count': 8,
      'file_like': False,
      'fix': 'read the body first, then parse bytes',
      'greenlet': 4,
      'greenlets': 4,
      'hazard': False,
      'kind': 'blocked-read-in-c-section',
      'message': "4 greenlets named 'app.fetch' (2), 'app.parse' (1), '?' (1) were switched "
                 "out 8 time(s) inside C section 'lxml.etree.parse', waiting 0.938 s in all "
                 'for input the parser read through '
                 '/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into. '
                 "A C parser reading the network stops mid-parse on every packet (and lxml's "
                 'parser lock can deadlock). Fix: read the body first, e.g. '
                 'geventperf.mount(session) (GeventAdapter) and response.content, then parse '
                 'the bytes (lxml.etree.fromstring(body), json.loads(body)). [cost 0.938 s: '
                 'greenlet-seconds spent suspended inside the C section waiting for its input '
                 '(event wait; queueing behind other greenlets not counted)]',
      'names': {'?': 0.0625, 'app.fetch': 0.75, 'app.parse': 0.125},
      'read_site': '/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
      'section': 'lxml.etree.parse',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into'],
      'wait_s': 0.9375}],
    'blocking_call_in_two_slices_time_unpatched': [{'active_s': 0.75,
      'backlog_s': 0.0,
      'blocking_s': 0.4375,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 1.0,
      'count': 2,
      'cpu_s': 0.1875,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 0.750 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.000 greenlet-seconds of their waiting (one waited up to 0.500 s). 0.438 '
                 's of it was off the CPU in a non-cooperative call (time.sleep unpatched, '
                 'file or DNS I/O, a lock, a child process waited for with os.system or '
                 'os.popen, a C library doing its own network I/O) made before the slice '
                 'ended at /srv/app/worker.py:20:job (where it blocked is unknown: profile '
                 'with the stall watch on, Tracer(stall_watch=True); geventperf run has it '
                 'on). The time module is not monkey-patched here, so time.sleep is the '
                 'blocking one. Fix: monkey-patch first (gevent.monkey.patch_all() before '
                 'other imports), use the cooperative call (gevent.sleep, gevent.socket, '
                 'gevent.subprocess), or run it in gevent.get_hub().threadpool. [cost 1.000 '
                 's: greenlet-seconds other greenlets spent ready to run but held up while '
                 'the call blocked the thread, and in the backlog it left (the ready queue '
                 'above its usual length until it next emptied)]',
      'run_s': 0.75,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'blocking_call_time_patched': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.5,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). 0.500 s of it was off the CPU in a non-cooperative '
                 'call (time.sleep unpatched, file or DNS I/O, a lock, a child process '
                 'waited for with os.system or os.popen, a C library doing its own network '
                 'I/O) made before the slice ended at /srv/app/worker.py:20:job (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). Fix: monkey-patch '
                 'first (gevent.monkey.patch_all() before other imports), use the '
                 'cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or run '
                 'it in gevent.get_hub().threadpool. [cost 0.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'cpu_slice': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.750 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'unknown_cause_slice_of_an_older_profile': [{'active_s': 0.25,
      'backlog_s': 0.0,
      'blocking_s': None,
      'cause': 'unknown',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above '
                      'its usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': None,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.25,
      'longest_wait_s': None,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.250 s without yielding. The "
                 'slice ended at /srv/app/worker.py:20:job; CPU and blocking cannot be told '
                 'apart (cpu_clock=False): profile with cpu_clock=True. [cost 0.250 s: '
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.25,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'slices_at_the_threshold_and_under_it': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.0625,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.062 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.062 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_saturated_with_holders_sections_and_site': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). Which functions used the CPU: profile '
                 'with CPU samples (Tracer(cpu_samples=True); geventperf run takes them '
                 'unless --no-cpu-samples). [cost 3.500 s: greenlet-seconds greenlets spent '
                 "ready to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'loop_saturated_less_what_a_long_slice_explains': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.25,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.250 '
                 'greenlet-seconds ready to run but queued (besides the 0.250 s the long '
                 'slices, slow paths and waits for a CPU reported apart caused), against '
                 "0.500 s waiting for I/O, timers or locks. Who held the loop: 'app.fetch' "
                 '(x2: ran 1.500 s while 1.3 others were ready on average, 2.000 greenlet-s '
                 "of their waiting); 'app.parse' (x1: ran 0.125 s while 2.0 others were "
                 "ready on average, 0.250 greenlet-s of their waiting); 'main' (x1: ran "
                 '0.250 s while 0.5 others were ready on average, 0.125 greenlet-s of their '
                 "waiting); inside sections 'xml' (0.500 greenlet-s), 'json' (0.375 "
                 "greenlet-s), 'csv' (0.250 greenlet-s); the slices that delayed most ended "
                 'at /srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). Which functions used the CPU: profile '
                 'with CPU samples (Tracer(cpu_samples=True); geventperf run takes them '
                 'unless --no-cpu-samples). [cost 3.250 s: greenlet-seconds greenlets spent '
                 "ready to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.25,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'storm_of_small_reads': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:12:read_small with 15.6 us of work between switches on '
                 'average: the small-chunk read pattern: each small read finds the socket '
                 "empty and goes through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: read in large pieces (geventperf.mount(session): GeventAdapter, '
                 '512 KiB reads) instead of many small read()/iter_content() calls. [cost '
                 "0.500 s: seconds of loop time spent switching (switch-outs times the hub's "
                 'mean time per switch), plus the greenlet-seconds others spent ready to run '
                 "behind these slices and the hub's share of their wait that these switches "
                 'made (its switches from here over all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:12:read_small',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1:read',
                '/srv/app/worker.py:12:read_small'],
      'switching_s': 0.5}],
    'storm_of_sleep0': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': None,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': 'greenlets switched out 2000 times at /srv/app/worker.py:22:tick with 15.6 us '
                 'of work between switches on average: a tight loop yielding with '
                 'gevent.sleep(0); each yield is a round trip through the hub that does no '
                 "work. The switching took 0.500 s of the loop's time. Fix: yield less often "
                 '(every N items, or after some milliseconds of work); if the loop polls a '
                 'condition, wait on what it polls for: a gevent.event.Event (event.wait() '
                 'here, event.set() where the condition becomes true), an AsyncResult, a '
                 "Queue's get(), or gevent.joinall on the greenlets it waits for; the loop "
                 'then sleeps until woken and costs nothing meanwhile. [cost 0.500 s: seconds '
                 "of loop time spent switching (switch-outs times the hub's mean time per "
                 'switch), plus the greenlet-seconds others spent ready to run behind these '
                 "slices and the hub's share of their wait that these switches made (its "
                 'switches from here over all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:22:tick',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:22:tick'],
      'switching_s': 0.5}],
    'storm_of_short_timers': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:22:tick with 15.6 us of work between switches on average: '
                 'a tight loop yielding with gevent.sleep on very short timers; each yield is '
                 'a round trip through the hub that does no work. The switching took 0.500 s '
                 "of the loop's time. Fix: yield less often (every N items, or after some "
                 'milliseconds of work); if the loop polls a condition, wait on what it polls '
                 'for: a gevent.event.Event (event.wait() here, event.set() where the '
                 "condition becomes true), an AsyncResult, a Queue's get(), or gevent.joinall "
                 'on the greenlets it waits for; the loop then sleeps until woken and costs '
                 'nothing meanwhile. [cost 0.500 s: seconds of loop time spent switching '
                 "(switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:22:tick',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:22:tick'],
      'switching_s': 0.5}],
    'storm_of_queue_handoffs': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:40:consume with 15.6 us of work between switches on '
                 'average: greenlets handing items to each other one at a time; every hand-off '
                 "is a round trip through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: hand off batches, or call the function directly instead of a '
                 'queue round trip per item. [cost 0.500 s: seconds of loop time spent '
                 "switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:40:consume',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/queue.py:300:get',
                '/srv/app/worker.py:40:consume'],
      'switching_s': 0.5}],
    'storm_elsewhere': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:50:spin with 15.6 us of work between switches on average: '
                 'the switching costs more than the work between switches. The switching took '
                 "0.500 s of the loop's time. Fix: do more work per switch: batch the items, "
                 'or yield less often. [cost 0.500 s: seconds of loop time spent switching '
                 "(switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:50:spin',
      'spin': False,
      'stack': ['/srv/app/worker.py:50:spin'],
      'switching_s': 0.5}],
    'small_body_reads_at_a_site': [{'bodies': 4,
      'bytes': 4194304,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.125,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 10485.76,
      'message': '4 response bodies (4.0 MiB) were read in 400 reads of 10.2 KiB on average '
                 "(100 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:60:fetch; each read is a trip through requests, urllib3 '
                 'and http.client. Fix: read bodies in large pieces: geventperf.mount(session) '
                 '(512 KiB reads, Content-Length bodies into one buffer), then parse the '
                 'bytes. [cost 0.125 s: seconds the reading greenlets spent inside the reads, '
                 'network waits left out (a large read waits for the network as long)]',
      'read_s': 0.5,
      'reads': 400,
      'section': None,
      'site': '/srv/app/worker.py:60:fetch',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:60:fetch']},
     {'bodies': 1,
      'bytes': 6553599,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.25,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 65535.99,
      'message': '1 response bodies (6.2 MiB) were read in 100 reads of 64.0 KiB on average '
                 "(100 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:63:older; each read is a trip through requests, urllib3 '
                 'and http.client. Fix: read bodies in large pieces: geventperf.mount(session) '
                 '(512 KiB reads, Content-Length bodies into one buffer), then parse the '
                 'bytes. [cost 0.250 s: seconds the reading greenlets spent inside the reads, '
                 'network waits left out (a large read waits for the network as long)]',
      'read_s': 0.25,
      'reads': 100,
      'section': None,
      'site': '/srv/app/worker.py:63:older',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:63:older']}],
    'deadlock_risk_unguarded_twice': [{'cost_meaning': 'a hazard, ranked above every cost; the figure is how long the parses '
                      'involved were suspended inside lxml (greenlet-seconds)',
      'cost_s': 0.75,
      'count': 2,
      'greenlet': 3,
      'greenlets': 2,
      'guarded': False,
      'hazard': True,
      'kind': 'c-section-deadlock-risk',
      'message': "2 greenlets named 'app.fetch' entered lxml.etree.parse(<file-like>) at "
                 '/srv/app/worker.py:43:fetch_and_parse while another was suspended inside one '
                 "with the same parser (2 time(s)): this deadlocks the thread on lxml's parser "
                 'lock (an OS lock gevent does not patch). Fix the code before the guard is '
                 'turned off: read the body first and parse bytes '
                 '(lxml.etree.fromstring(response.content)), or pass a parser per call '
                 '(lxml.etree.parse(f, lxml.etree.XMLParser())). [cost 0.750 s: a hazard, '
                 'ranked above every cost; the figure is how long the parses involved were '
                 'suspended inside lxml (greenlet-seconds)]',
      'other_greenlet': 4,
      'section': 'lxml.etree.parse',
      'stack': ['/srv/app/worker.py:43:fetch_and_parse']}],
    'deadlock_risk_guarded_at_no_site': [{'cost_meaning': 'a hazard, ranked above every cost; the figure is how long the parses '
                      'involved were suspended inside lxml (greenlet-seconds)',
      'cost_s': 0.0,
      'count': 1,
      'greenlet': 5,
      'greenlets': 2,
      'guarded': True,
      'hazard': True,
      'kind': 'c-section-deadlock-risk',
      'message': "2 greenlets named 'app.fetch' (1), 'app.parse' (1) entered "
                 'lxml.etree.parse(<file-like>) at ? while another was suspended inside one '
                 'with the same parser (1 time(s)): the process stayed alive only because '
                 'Tracer(lxml_guard=True) gave the second parse a parser of its own: without '
                 "the guard this thread deadlocks on lxml's parser lock (an OS lock gevent "
                 'does not patch). Fix the code before the guard is turned off: read the body '
                 'first and parse bytes (lxml.etree.fromstring(response.content)), or pass a '
                 'parser per call (lxml.etree.parse(f, lxml.etree.XMLParser())). [cost 0.000 '
                 's: a hazard, ranked above every cost; the figure is how long the parses '
                 'involved were suspended inside lxml (greenlet-seconds)]',
      'other_greenlet': 3,
      'section': 'lxml.etree.parse',
      'stack': []}],
    'threadpool_full_of_dns': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.5,
      'default_pool': True,
      'depth_max': 5,
      'depth_mean': 1.1666666666666667,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 1.0,
      'dns_run_s': 3.0,
      'explained_by_connections_s': 0.0,
      'fix': 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 6 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '2 greenlet(s) (app.fetch)',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': '/srv/app/worker.py:70:connect',
                     'tasks': 8},
                    {'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.25,
                     'queued_s': 0.5,
                     'run_s': 1.0,
                     'site': None,
                     'tasks': 4}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 12 of 12 task(s) found "
                 'every worker busy, and tasks queued 1.500 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 5 task(s) ahead, 1.2 on '
                 'average). Queued: getaddrinfo x8 (DNS): queued 1.000 s, ran 3.000 s in '
                 'worker threads (0.375 s each), spawned by 2 greenlet(s) (app.fetch), '
                 'called at /srv/app/worker.py:70:connect; work x4: queued 0.500 s, ran '
                 '1.000 s in worker threads (0.250 s each). DNS resolution is the cause: '
                 'lookups ran 3.000 of the 4.000 worker-seconds that kept the pool busy '
                 "(gevent's thread resolver runs every getaddrinfo on this pool). Fix: "
                 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool, or cache the lookups; or a bigger pool: '
                 'gevent.get_hub().threadpool.maxsize = 6 (before the burst). Cost: '
                 'greenlet-seconds tasks spent queued for a free worker thread of this pool: '
                 'from ThreadPool.spawn until a worker started them, summed over the tasks '
                 "(less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.5,
      'run_s': 4.0,
      'saturated_tasks': 12,
      'section': None,
      'stack': ['/srv/app/worker.py:70:connect'],
      'suggested_maxsize': 6,
      'tasks': 12,
      'tasks_waited': False}],
    'threadpool_dns_queued_behind_work_in_a_pool_of_its_own': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.25,
      'default_pool': False,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.25,
      'dns_run_s': 0.5,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: a bigger maxsize for that pool (pool.maxsize = 4); or a '
             'cooperative alternative to the queued blocking calls so they need no thread; '
             'and GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool',
      'functions': [{'dns': False,
                     'function': 'crunch',
                     'greenlets': '6 greenlet(s) (a, b, c, d, 1 more name(s))',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 2.0,
                     'site': None,
                     'tasks': 4},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.25,
                     'queued_s': 0.25,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': 'pool-1 (maxsize 4) was full: 6 of 6 task(s) found every worker busy, and '
                 'tasks queued 1.250 greenlet-seconds in all for a free worker thread '
                 '(longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). Queued: crunch '
                 'x4: queued 1.000 s, ran 2.000 s in worker threads (0.500 s each), spawned '
                 'by 6 greenlet(s) (a, b, c, d, 1 more name(s)); getaddrinfo x2 (DNS): '
                 'queued 0.250 s, ran 0.500 s in worker threads (0.250 s each). DNS lookups '
                 "queued 0.250 s behind this work: every new connection's getaddrinfo waits "
                 'for a free worker too. Fix: a bigger pool: a bigger maxsize for that pool '
                 '(pool.maxsize = 4); or a cooperative alternative to the queued blocking '
                 'calls so they need no thread; and GEVENT_RESOLVER=ares (or dnspython): a '
                 'resolver that does not use the threadpool. Cost: greenlet-seconds tasks '
                 'spent queued for a free worker thread of this pool: from ThreadPool.spawn '
                 "until a worker started them, summed over the tasks (less the lookups' "
                 'share a connection finding counts).',
      'pool': 'pool-1',
      'queued_max_s': 0.5,
      'queued_s': 1.25,
      'run_s': 2.5,
      'saturated_tasks': 6,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 6,
      'tasks_waited': False}],
    'threadpool_many_functions_no_dns': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.75,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': False,
      'dns_cause': False,
      'dns_queued_s': 0,
      'dns_run_s': 0,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or '
             'a cooperative alternative to the queued blocking calls so they need no thread',
      'functions': [{'dns': False,
                     'function': 'f6',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.4375,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f5',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.375,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f4',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.3125,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f3',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.25,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f2',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.1875,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f1',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.125,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'f0',
                     'greenlets': '1 greenlet(s)',
                     'mean_run_s': 0.5,
                     'queued_s': 0.0625,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 7 of 7 task(s) found "
                 'every worker busy, and tasks queued 1.750 greenlet-seconds in all for a '
                 'free worker thread (longest 0.219 s; up to 3 task(s) ahead, 1.5 on '
                 'average). Queued: f6 x1: queued 0.438 s, ran 0.500 s in worker threads '
                 '(0.500 s each), spawned by 1 greenlet(s); f5 x1: queued 0.375 s, ran 0.500 '
                 's in worker threads (0.500 s each), spawned by 1 greenlet(s); f4 x1: '
                 'queued 0.312 s, ran 0.500 s in worker threads (0.500 s each), spawned by 1 '
                 'greenlet(s); f3 x1: queued 0.250 s, ran 0.500 s in worker threads (0.500 s '
                 'each), spawned by 1 greenlet(s); f2 x1: queued 0.188 s, ran 0.500 s in '
                 'worker threads (0.500 s each), spawned by 1 greenlet(s); 2 more '
                 'function(s). Fix: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
                 '(before the burst); or a cooperative alternative to the queued blocking '
                 'calls so they need no thread. Cost: greenlet-seconds tasks spent queued '
                 'for a free worker thread of this pool: from ThreadPool.spawn until a '
                 "worker started them, summed over the tasks (less the lookups' share a "
                 'connection finding counts).',
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.21875,
      'queued_s': 1.75,
      'run_s': 3.5,
      'saturated_tasks': 7,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 7,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 0.05,
      'default_pool': False,
      'depth_max': 0,
      'depth_mean': 0.0,
      'dns': False,
      'dns_cause': False,
      'dns_queued_s': 0,
      'dns_run_s': 0,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: a bigger maxsize for that pool (pool.maxsize = 1); or a '
             'cooperative alternative to the queued blocking calls so they need no thread',
      'functions': [{'dns': False,
                     'function': 'enough',
                     'greenlets': '',
                     'mean_run_s': 0.125,
                     'queued_s': 0.05,
                     'run_s': 0.25,
                     'site': 'x.py:1:f',
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 2,
      'message': 'pool-7 (maxsize 2) was full: 1 of 2 task(s) found every worker busy, and '
                 'tasks queued 0.050 greenlet-seconds in all for a free worker thread '
                 '(longest 0.025 s; up to 0 task(s) ahead, 0.0 on average). Queued: enough '
                 'x2: queued 0.050 s, ran 0.250 s in worker threads (0.125 s each), called '
                 'at x.py:1:f. Fix: a bigger pool: a bigger maxsize for that pool '
                 '(pool.maxsize = 1); or a cooperative alternative to the queued blocking '
                 'calls so they need no thread. Cost: greenlet-seconds tasks spent queued '
                 'for a free worker thread of this pool: from ThreadPool.spawn until a '
                 "worker started them, summed over the tasks (less the lookups' share a "
                 'connection finding counts).',
      'pool': 'pool-7',
      'queued_max_s': 0.025,
      'queued_s': 0.05,
      'run_s': 0.25,
      'saturated_tasks': 1,
      'section': None,
      'stack': ['x.py:1:f'],
      'suggested_maxsize': 1,
      'tasks': 2,
      'tasks_waited': False}],
    'slow_protobuf_backend_across_four_greenlets': [{'by_greenlet': {'w1': 0.25, 'w2': 0.125, 'w3': 0.0625, 'w4': 0.0625},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the sampled "
                      "CPU, times the run's running time plus its ready wait (the others' "
                      'queueing while it held the loop)',
      'cost_s': 0.75,
      'cpu_s': 0.5,
      'cpu_share': 0.5,
      'fix': "use protobuf's C backend: unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION (or set "
             "it to 'upb') and install a protobuf wheel for this platform (pip install "
             '--force-reinstall protobuf); check with '
             "google.protobuf.internal.api_implementation.Type() == 'upb'",
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "50% of the sampled CPU (0.500 s of 1.000 s) ran in google.protobuf's "
                 "protobuf backend (api_implementation.Type() == 'python'); greenlets: 'w1' "
                 "0.250 s, 'w2' 0.125 s, 'w3' 0.062 s. Fix: use protobuf's C backend: unset "
                 "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION (or set it to 'upb') and install a "
                 'protobuf wheel for this platform (pip install --force-reinstall protobuf); '
                 "check with google.protobuf.internal.api_implementation.Type() == 'upb' [cost "
                 "0.750 s: greenlet-seconds: the pure-Python implementation's share of the "
                 "sampled CPU, times the run's running time plus its ready wait (the others' "
                 'queueing while it held the loop)]',
      'module': 'google.protobuf',
      'others_ready_wait_s': 0.25,
      'run_s': 0.5,
      'samples': 8,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/google/protobuf/internal/decoder.py:10:DecodeField',
                '/srv/app/worker.py:3:spin']}],
    'slow_paths_need_their_library_fact_and_first_entry_wins': [{'by_greenlet': {'t': 0.25},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the "
                      "sampled CPU, times the run's running time plus its ready wait (the "
                      "others' queueing while it held the loop)",
      'cost_s': 0.375,
      'cpu_s': 0.25,
      'cpu_share': 0.25,
      'fix': 'use TBinaryProtocolAcceleratedFactory (or TCompactProtocolAcceleratedFactory) '
             'over a transport that is a TTransport.CReadableTransport (TBufferedTransport, '
             'TFramedTransport, TMemoryBuffer); a custom transport must subclass '
             'CReadableTransport and implement cstringio_buf and cstringio_refill',
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "25% of the sampled CPU (0.250 s of 1.000 s) ran in thrift.protocol's "
                 'TBinaryProtocol/TCompactProtocol while thrift.protocol.fastbinary is '
                 'importable: the accelerated protocol was not used, because the protocol is '
                 'not TBinaryProtocolAccelerated/TCompactProtocolAccelerated, or its '
                 "transport is not a TTransport.CReadableTransport; greenlets: 't' 0.250 s. "
                 'Fix: use TBinaryProtocolAcceleratedFactory (or '
                 'TCompactProtocolAcceleratedFactory) over a transport that is a '
                 'TTransport.CReadableTransport (TBufferedTransport, TFramedTransport, '
                 'TMemoryBuffer); a custom transport must subclass CReadableTransport and '
                 'implement cstringio_buf and cstringio_refill [cost 0.375 s: '
                 "greenlet-seconds: the pure-Python implementation's share of the sampled "
                 "CPU, times the run's running time plus its ready wait (the others' "
                 'queueing while it held the loop)]',
      'module': 'thrift.protocol',
      'others_ready_wait_s': 0.125,
      'run_s': 0.25,
      'samples': 5,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/thrift/protocol/TBinaryProtocol.py:5:readI32',
                '/venv/lib/python3.11/site-packages/msgpack/fallback.py:9:unpack']},
     {'by_greenlet': {'m': 0.25},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the "
                      "sampled CPU, times the run's running time plus its ready wait (the "
                      "others' queueing while it held the loop)",
      'cost_s': 0.375,
      'cpu_s': 0.25,
      'cpu_share': 0.25,
      'fix': "install msgpack's C extension (pip install --force-reinstall msgpack, with "
             'MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or msgpack.Unpacker, '
             'not msgpack.fallback',
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "25% of the sampled CPU (0.250 s of 1.000 s) ran in msgpack.fallback's "
                 "msgpack implementation (msgpack.fallback); greenlets: 'm' 0.250 s. Fix: "
                 "install msgpack's C extension (pip install --force-reinstall msgpack, with "
                 'MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or '
                 'msgpack.Unpacker, not msgpack.fallback [cost 0.375 s: greenlet-seconds: '
                 "the pure-Python implementation's share of the sampled CPU, times the run's "
                 "running time plus its ready wait (the others' queueing while it held the "
                 'loop)]',
      'module': 'msgpack.fallback',
      'others_ready_wait_s': 0.125,
      'run_s': 0.25,
      'samples': 5,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/msgpack/fallback.py:9:unpack']},
     {'by_greenlet': {'j': 0.125},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the "
                      "sampled CPU, times the run's running time plus its ready wait (the "
                      "others' queueing while it held the loop)",
      'cost_s': 0.1875,
      'cpu_s': 0.125,
      'cpu_share': 0.125,
      'fix': 'call json.dumps(obj) without indent= and write the string (json.dump streams '
             'through the Python encoder), or use ujson/orjson',
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "12% of the sampled CPU (0.125 s of 1.000 s) ran in json's json encoder: "
                 'json.dumps(indent=...) and json.dump(obj, file) encode in Python even with '
                 "_json; greenlets: 'j' 0.125 s. Fix: call json.dumps(obj) without indent= "
                 'and write the string (json.dump streams through the Python encoder), or '
                 'use ujson/orjson [cost 0.188 s: greenlet-seconds: the pure-Python '
                 "implementation's share of the sampled CPU, times the run's running time "
                 "plus its ready wait (the others' queueing while it held the loop)]",
      'module': 'json',
      'others_ready_wait_s': 0.0625,
      'run_s': 0.125,
      'samples': 5,
      'section': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:_iterencode_dict']},
     {'by_greenlet': {'r': 0.125},
      'cost_meaning': "greenlet-seconds: encoding detection's share of the sampled CPU, "
                      "times the run's running time plus its ready wait (the others' "
                      'queueing while it held the loop)',
      'cost_s': 0.1875,
      'cpu_s': 0.125,
      'cpu_share': 0.125,
      'fix': 'set response.encoding to the charset the body is really in before reading '
             "response.text (have the upstream declare it in Content-Type; 'utf-8' only for "
             'a UTF-8 body: any other comes back with U+FFFD where it does not decode), or '
             'parse response.content (bytes) directly where the parser decodes it right '
             '(json.loads reads UTF-8, -16 and -32 only)',
      'greenlet': None,
      'hazard': False,
      'kind': 'charset-detection',
      'message': "12% of the sampled CPU (0.125 s of 1.000 s) ran in requests's encoding "
                 "guessed by requests' Response.text (Response.apparent_encoding: charset "
                 'detection over the whole body, in Python) because the response declared no '
                 "charset; greenlets: 'r' 0.125 s. Fix: set response.encoding to the charset "
                 'the body is really in before reading response.text (have the upstream '
                 "declare it in Content-Type; 'utf-8' only for a UTF-8 body: any other comes "
                 'back with U+FFFD where it does not decode), or parse response.content '
                 '(bytes) directly where the parser decodes it right (json.loads reads '
                 'UTF-8, -16 and -32 only) [cost 0.188 s: greenlet-seconds: encoding '
                 "detection's share of the sampled CPU, times the run's running time plus "
                 "its ready wait (the others' queueing while it held the loop)]",
      'module': 'requests',
      'others_ready_wait_s': 0.0625,
      'run_s': 0.125,
      'samples': 5,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/requests/models.py:790:Response.apparent_encoding']}],
    'slow_paths_at_the_share_and_sample_minimums': [{'by_greenlet': {'m': 0.0625},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the sampled "
                      "CPU, times the run's running time plus its ready wait (the others' "
                      'queueing while it held the loop)',
      'cost_s': 0.0875,
      'cpu_s': 0.0625,
      'cpu_share': 0.05,
      'fix': "install msgpack's C extension (pip install --force-reinstall msgpack, with "
             'MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or msgpack.Unpacker, '
             'not msgpack.fallback',
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "5% of the sampled CPU (0.062 s of 1.250 s) ran in msgpack.fallback's msgpack "
                 "implementation (msgpack.fallback); greenlets: 'm' 0.062 s. Fix: install "
                 "msgpack's C extension (pip install --force-reinstall msgpack, with "
                 'MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or '
                 'msgpack.Unpacker, not msgpack.fallback [cost 0.087 s: greenlet-seconds: the '
                 "pure-Python implementation's share of the sampled CPU, times the run's "
                 "running time plus its ready wait (the others' queueing while it held the "
                 'loop)]',
      'module': 'msgpack.fallback',
      'others_ready_wait_s': 0.025,
      'run_s': 0.0625,
      'samples': 5,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/msgpack/fallback.py:9:unpack']}],
    'slow_paths_of_a_profile_without_samples': [],
    'read_site_is_the_outermost_reader_before_the_users_code': [{'caller': '/srv/app/worker.py:43:fetch',
      'cost_meaning': 'greenlet-seconds spent suspended inside the C section waiting for its '
                      'input (event wait; queueing behind other greenlets not counted)',
      'cost_s': 0.5,
      'count': 2,
      'file_like': False,
      'fix': 'read the body first, then parse bytes',
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocked-read-in-c-section',
      'message': "greenlet 'app.fetch' (#3) was switched out 2 time(s) inside C section "
                 "'lxml.etree.parse', waiting 0.500 s in all for input the parser read through "
                 '/venv/lib/python3.11/site-packages/requests/models.py:899:content (parser '
                 'called at /srv/app/worker.py:43:fetch). A C parser reading the network stops '
                 "mid-parse on every packet (and lxml's parser lock can deadlock). Fix: read "
                 'the body first, e.g. geventperf.mount(session) (GeventAdapter) and '
                 'response.content, then parse the bytes (lxml.etree.fromstring(body), '
                 'json.loads(body)). [cost 0.500 s: greenlet-seconds spent suspended inside '
                 'the C section waiting for its input (event wait; queueing behind other '
                 'greenlets not counted)]',
      'names': {'app.fetch': 0.5},
      'read_site': '/venv/lib/python3.11/site-packages/requests/models.py:899:content',
      'section': 'lxml.etree.parse',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/gevent/hub.py:100:wait',
                'C:\\venv\\Lib\\site-packages\\urllib3\\response.py:1134:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/greenlet/x.py:1:switch',
                '/work/geventperf/sections.py:234:wrapper',
                '/venv/lib/python3.11/site-packages/requests/models.py:899:content',
                '/srv/app/worker.py:43:fetch',
                '/venv/lib/python3.11/site-packages/requests/api.py:1:get'],
      'wait_s': 0.5}],
    'read_site_after_a_users_inner_frame': [{'caller': '/srv/app/worker.py:9:on_data',
      'cost_meaning': 'greenlet-seconds spent suspended inside the C section waiting for its '
                      'input (event wait; queueing behind other greenlets not counted)',
      'cost_s': 0.5,
      'count': 2,
      'file_like': False,
      'fix': 'read the body first, then parse bytes',
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocked-read-in-c-section',
      'message': "greenlet 'app.fetch' (#3) was switched out 2 time(s) inside C section "
                 "'lxml.etree.parse', waiting 0.500 s in all for input the parser read through "
                 '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read '
                 '(parser called at /srv/app/worker.py:9:on_data). A C parser reading the '
                 "network stops mid-parse on every packet (and lxml's parser lock can "
                 'deadlock). Fix: read the body first, e.g. geventperf.mount(session) '
                 '(GeventAdapter) and response.content, then parse the bytes '
                 '(lxml.etree.fromstring(body), json.loads(body)). [cost 0.500 s: '
                 'greenlet-seconds spent suspended inside the C section waiting for its input '
                 '(event wait; queueing behind other greenlets not counted)]',
      'names': {'app.fetch': 0.5},
      'read_site': '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
      'section': 'lxml.etree.parse',
      'stack': ['/srv/app/worker.py:9:on_data',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:43:fetch'],
      'wait_s': 0.5}],
    'slice_off_the_cpu_for_exactly_half_is_cpu': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.25,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.25,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.250 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'storms_of_every_hand_off_and_near_misses': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:40:consume with 15.6 us of work between switches on '
                 'average: greenlets handing items to each other one at a time; every hand-off '
                 "is a round trip through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: hand off batches, or call the function directly instead of a '
                 'queue round trip per item. [cost 0.500 s: seconds of loop time spent '
                 "switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:40:consume',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/event.py:1:wait',
                '/srv/app/worker.py:40:consume'],
      'switching_s': 0.5},
     {'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:40:consume with 15.6 us of work between switches on '
                 'average: greenlets handing items to each other one at a time; every hand-off '
                 "is a round trip through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: hand off batches, or call the function directly instead of a '
                 'queue round trip per item. [cost 0.500 s: seconds of loop time spent '
                 "switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:40:consume',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/lock.py:1:wait',
                '/srv/app/worker.py:40:consume'],
      'switching_s': 0.5},
     {'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:40:consume with 15.6 us of work between switches on '
                 'average: greenlets handing items to each other one at a time; every hand-off '
                 "is a round trip through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: hand off batches, or call the function directly instead of a '
                 'queue round trip per item. [cost 0.500 s: seconds of loop time spent '
                 "switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:40:consume',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_semaphore.py:1:wait',
                '/srv/app/worker.py:40:consume'],
      'switching_s': 0.5},
     {'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:40:consume with 15.6 us of work between switches on '
                 'average: greenlets handing items to each other one at a time; every hand-off '
                 "is a round trip through the hub. The switching took 0.500 s of the loop's "
                 'time. Fix: hand off batches, or call the function directly instead of a '
                 'queue round trip per item. [cost 0.500 s: seconds of loop time spent '
                 "switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:40:consume',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_event.py:1:wait',
                '/srv/app/worker.py:40:consume'],
      'switching_s': 0.5},
     {'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:5:sleep with 15.6 us of work between switches on average: '
                 'the switching costs more than the work between switches. The switching took '
                 "0.500 s of the loop's time. Fix: do more work per switch: batch the items, "
                 'or yield less often. [cost 0.500 s: seconds of loop time spent switching '
                 "(switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:5:sleep',
      'spin': False,
      'stack': ['/srv/app/worker.py:5:sleep'],
      'switching_s': 0.5},
     {'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at /srv/app/worker.py:0:f "
                 'with 15.6 us of work between switches on average: the switching costs more '
                 "than the work between switches. The switching took 0.500 s of the loop's "
                 'time. Fix: do more work per switch: batch the items, or yield less often. '
                 '[cost 0.500 s: seconds of loop time spent switching (switch-outs times the '
                 "hub's mean time per switch), plus the greenlet-seconds others spent ready to "
                 "run behind these slices and the hub's share of their wait that these "
                 'switches made (its switches from here over all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:0:f',
      'spin': False,
      'stack': ['/srv/app/worker.py:0:f',
                '/srv/app/worker.py:1:f',
                '/srv/app/worker.py:2:f',
                '/srv/app/worker.py:3:f',
                '/srv/app/worker.py:4:f',
                '/srv/app/worker.py:5:f',
                '/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep'],
      'switching_s': 0.5}],
    'threadpool_boundaries': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 0.375,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 0.125,
      'dns_run_s': 1.0,
      'explained_by_connections_s': 0.0,
      'fix': 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 4 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '4 greenlet(s) (a, b, c, d)',
                     'mean_run_s': 1.0,
                     'queued_s': 0.125,
                     'run_s': 1.0,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'g0',
                     'greenlets': '',
                     'mean_run_s': 0.0,
                     'queued_s': 0.0625,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 0},
                    {'dns': False,
                     'function': 'g1',
                     'greenlets': '',
                     'mean_run_s': 0.0,
                     'queued_s': 0.0625,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 0},
                    {'dns': False,
                     'function': 'g2',
                     'greenlets': '',
                     'mean_run_s': 0.0,
                     'queued_s': 0.0625,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 0},
                    {'dns': False,
                     'function': 'g3',
                     'greenlets': '',
                     'mean_run_s': 0.0,
                     'queued_s': 0.0625,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 0}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': 'pool-a (maxsize 4) was full: 1 of 1 task(s) found every worker busy, and '
                 'tasks queued 0.375 greenlet-seconds in all for a free worker thread '
                 '(longest 0.062 s; up to 3 task(s) ahead, 1.5 on average). Queued: '
                 'getaddrinfo x1 (DNS): queued 0.125 s, ran 1.000 s in worker threads (1.000 '
                 's each), spawned by 4 greenlet(s) (a, b, c, d); g0 x0: queued 0.062 s, ran '
                 '0.250 s in worker threads (0.000 s each); g1 x0: queued 0.062 s, ran 0.250 '
                 's in worker threads (0.000 s each); g2 x0: queued 0.062 s, ran 0.250 s in '
                 'worker threads (0.000 s each); g3 x0: queued 0.062 s, ran 0.250 s in '
                 'worker threads (0.000 s each). DNS resolution is the cause: lookups ran '
                 "1.000 of the 2.000 worker-seconds that kept the pool busy (gevent's thread "
                 'resolver runs every getaddrinfo on this pool). Fix: GEVENT_RESOLVER=ares '
                 '(or dnspython): a resolver that does not use the threadpool, or cache the '
                 'lookups; or a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before '
                 'the burst). Cost: greenlet-seconds tasks spent queued for a free worker '
                 'thread of this pool: from ThreadPool.spawn until a worker started them, '
                 "summed over the tasks (less the lookups' share a connection finding "
                 'counts).',
      'pool': 'pool-a',
      'queued_max_s': 0.0625,
      'queued_s': 0.375,
      'run_s': 2.0,
      'saturated_tasks': 1,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 1,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 0.5,
      'dns_run_s': 0.25,
      'explained_by_connections_s': 0.0,
      'fix': 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 4 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.125,
                     'queued_s': 0.5,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 2},
                    {'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.125,
                     'queued_s': 0.5,
                     'run_s': 0.25,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': 'pool-c (maxsize 4) was full: 4 of 4 task(s) found every worker busy, and '
                 'tasks queued 1.000 greenlet-seconds in all for a free worker thread '
                 '(longest 0.250 s; up to 3 task(s) ahead, 1.5 on average). Queued: '
                 'getaddrinfo x2 (DNS): queued 0.500 s, ran 0.250 s in worker threads (0.125 '
                 's each); work x2: queued 0.500 s, ran 0.250 s in worker threads (0.125 s '
                 'each). DNS resolution is the cause: lookups ran 0.250 of the 0.500 '
                 "worker-seconds that kept the pool busy (gevent's thread resolver runs "
                 'every getaddrinfo on this pool). Fix: GEVENT_RESOLVER=ares (or dnspython): '
                 'a resolver that does not use the threadpool, or cache the lookups; or a '
                 'bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst). '
                 'Cost: greenlet-seconds tasks spent queued for a free worker thread of this '
                 'pool: from ThreadPool.spawn until a worker started them, summed over the '
                 "tasks (less the lookups' share a connection finding counts).",
      'pool': 'pool-c',
      'queued_max_s': 0.25,
      'queued_s': 1.0,
      'run_s': 0.5,
      'saturated_tasks': 4,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 4,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 0.5,
      'dns_run_s': 0.025,
      'explained_by_connections_s': 0.0,
      'fix': 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 4 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.025,
                     'queued_s': 0.5,
                     'run_s': 0.025,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.025,
                     'queued_s': 0.5,
                     'run_s': 0.025,
                     'site': None,
                     'tasks': 1}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': 'pool-e (maxsize 4) was full: 2 of 2 task(s) found every worker busy, and '
                 'tasks queued 1.000 greenlet-seconds in all for a free worker thread '
                 '(longest 0.250 s; up to 3 task(s) ahead, 1.5 on average). Queued: '
                 'getaddrinfo x1 (DNS): queued 0.500 s, ran 0.025 s in worker threads (0.025 '
                 's each); work x1: queued 0.500 s, ran 0.025 s in worker threads (0.025 s '
                 'each). DNS resolution is the cause: lookups ran 0.025 of the 0.050 '
                 "worker-seconds that kept the pool busy (gevent's thread resolver runs "
                 'every getaddrinfo on this pool). Fix: GEVENT_RESOLVER=ares (or dnspython): '
                 'a resolver that does not use the threadpool, or cache the lookups; or a '
                 'bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst). '
                 'Cost: greenlet-seconds tasks spent queued for a free worker thread of this '
                 'pool: from ThreadPool.spawn until a worker started them, summed over the '
                 "tasks (less the lookups' share a connection finding counts).",
      'pool': 'pool-e',
      'queued_max_s': 0.25,
      'queued_s': 1.0,
      'run_s': 0.05,
      'saturated_tasks': 2,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 2,
      'tasks_waited': False}],
    'deadlock_risk_whose_other_parse_is_unknown': [{'cost_meaning': 'a hazard, ranked above every cost; the figure is how long the parses '
                      'involved were suspended inside lxml (greenlet-seconds)',
      'cost_s': 0.0,
      'count': 1,
      'greenlet': 3,
      'greenlets': 2,
      'guarded': False,
      'hazard': True,
      'kind': 'c-section-deadlock-risk',
      'message': "greenlet 'app.fetch' (#3) entered lxml.etree.parse(<file-like>) at "
                 '/srv/app/worker.py:43:fetch_and_parse while another was suspended inside one '
                 "with the same parser (1 time(s)): this deadlocks the thread on lxml's parser "
                 'lock (an OS lock gevent does not patch). Fix the code before the guard is '
                 'turned off: read the body first and parse bytes '
                 '(lxml.etree.fromstring(response.content)), or pass a parser per call '
                 '(lxml.etree.parse(f, lxml.etree.XMLParser())). [cost 0.000 s: a hazard, '
                 'ranked above every cost; the figure is how long the parses involved were '
                 'suspended inside lxml (greenlet-seconds)]',
      'other_greenlet': None,
      'section': 'lxml.etree.parse',
      'stack': ['/srv/app/worker.py:43:fetch_and_parse']}],
    'slices_at_the_default_threshold_of_a_profile_that_names_none': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.0625,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.062 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.062 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.05}],
    'slices_placed_where_they_ended_in_code': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.0,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.75,
      'longest_wait_s': 0.75,
      'message': "greenlet 'app.fetch' (#3) held the loop 1.000 s without yielding (2 slices "
                 'over 0.0625 s, longest 0.750 s), while others were ready to run: 1.000 '
                 'greenlet-seconds of their waiting (one waited up to 0.750 s). It was CPU '
                 'work (1.000 s of CPU); the slice ended at /srv/app/worker.py:20:job. Fix: '
                 'first make that code cheaper (one line burning the CPU this long is often '
                 'work that grows with the square of its input: += on bytes or str in a '
                 'loop, a list searched inside a loop, a sort or copy repeated); then split '
                 'what must stay expensive and yield between pieces of a millisecond or two '
                 'with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 1.000 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 99,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'greenlet #99 held the loop 0.500 s without yielding, while others were '
                 'ready to run: 0.500 greenlet-seconds of their waiting (one waited up to '
                 '0.500 s). It was CPU work (0.500 s of CPU); the slice ended at '
                 '/venv/lib/python3.11/site-packages/gevent/hub.py:100:switch. Fix: first '
                 'make that code cheaper (one line burning the CPU this long is often work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated); then split what '
                 'must stay expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O '
                 'of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:100:switch',
                '/venv/lib/python3.11/site-packages/gevent/greenlet.py:900:run'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.25,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.25,
      'gc_s': 0.0,
      'greenlet': 1,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.25,
      'longest_wait_s': 0.25,
      'message': "greenlet 'main' (#1) held the loop 0.250 s without yielding, while others "
                 'were ready to run: 0.500 greenlet-seconds of their waiting (one waited up '
                 'to 0.250 s). It was CPU work (0.250 s of CPU); the slice ended at ?. Fix: '
                 'first make that code cheaper (one line burning the CPU this long is often '
                 'work that grows with the square of its input: += on bytes or str in a '
                 'loop, a list searched inside a loop, a sort or copy repeated); then split '
                 'what must stay expensive and yield between pieces of a millisecond or two '
                 'with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.25,
      'section': 'sec',
      'small_reads_site': None,
      'stack': [],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_saturated_at_its_thresholds_with_nobody_to_name': [{'active_s': 1.2,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 2.0,
      'event_wait_s': 1.0,
      'greenlet': 5,
      'hazard': False,
      'holders': {'app.parse': 0.5},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 60% of the run, and greenlets waited 2.000 '
                 'greenlet-seconds ready to run but queued, against 1.000 s waiting for I/O, '
                 "timers or locks. Who held the loop: no greenlet's recorded run slices "
                 "overlapped the waiting (the hub's own callbacks, or slices the tracer did "
                 'not see). The cure is on the CPU side, not the I/O side: less work per '
                 'request in these greenlets (compute once what is the same from request to '
                 'request and keep it: a verified credential or key, a compiled pattern or '
                 'template, a parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list searched inside '
                 'a loop, a sort or copy repeated), fewer greenlets per process and more '
                 'processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). Which functions used the CPU: profile with '
                 'CPU samples (Tracer(cpu_samples=True); geventperf run takes them unless '
                 '--no-cpu-samples). [cost 2.000 s: greenlet-seconds greenlets spent ready '
                 "to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 2.0,
      'section': None,
      'sections': {},
      'small_reads_site': None,
      'stack': [],
      'stack_is': 'slice-end',
      'utilization': 0.6}],
    'loop_saturated_needs_its_queue_share_and_utilization': [],
    'blocked_reads_of_an_older_profile': [{'caller': '/srv/app/worker.py:43:fetch',
      'cost_meaning': 'greenlet-seconds spent suspended inside the C section waiting for its '
                      'input (event wait; queueing behind other greenlets not counted)',
      'cost_s': 1.0,
      'count': 0,
      'file_like': False,
      'fix': 'read the body first, then parse bytes',
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocked-read-in-c-section',
      'message': "greenlet 'app.fetch' (#3) was switched out 0 time(s) inside C section "
                 "'lxml.etree.parse', waiting 1.000 s in all for input the parser read through "
                 'a Python read() (parser called at /srv/app/worker.py:43:fetch). A C parser '
                 "reading the network stops mid-parse on every packet (and lxml's parser lock "
                 'can deadlock). Fix: read the body first, e.g. geventperf.mount(session) '
                 '(GeventAdapter) and response.content, then parse the bytes '
                 '(lxml.etree.fromstring(body), json.loads(body)). [cost 1.000 s: '
                 'greenlet-seconds spent suspended inside the C section waiting for its input '
                 '(event wait; queueing behind other greenlets not counted)]',
      'names': {'app.fetch': 1.0},
      'read_site': None,
      'section': 'lxml.etree.parse',
      'stack': ['/srv/app/worker.py:43:fetch'],
      'wait_s': 1.0}],
    'storms_skipped_and_found_in_one_profile': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 4,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 5e-07,
      'message': "greenlet 'app.fetch' (#4) switched out 2000 times at "
                 '/venv/lib/python3.11/site-packages/gevent/queue.py:300:get with 0.5 us of '
                 'work between switches on average: greenlets handing items to each other one '
                 'at a time; every hand-off is a round trip through the hub. The switching '
                 "took 0.500 s of the loop's time. Fix: hand off batches, or call the "
                 'function directly instead of a queue round trip per item. [cost 0.500 s: '
                 "seconds of loop time spent switching (switch-outs times the hub's mean time "
                 'per switch), plus the greenlet-seconds others spent ready to run behind '
                 "these slices and the hub's share of their wait that these switches made "
                 '(its switches from here over all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.001,
      'section': None,
      'site': '/venv/lib/python3.11/site-packages/gevent/queue.py:300:get',
      'spin': False,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/queue.py:300:get',
                '/venv/lib/python3.11/site-packages/gevent/hub.py:166:switch'],
      'switching_s': 0.5}],
    'small_body_reads_of_events_missing_figures': [{'bodies': 2,
      'bytes': 0,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.25,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 0.0,
      'message': '2 response bodies (0.0 MiB) were read in 100 reads of 0 bytes on average '
                 "(50 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:80:nobytes; each read is a trip through requests, '
                 'urllib3 and http.client. Fix: the code at /srv/app/worker.py:80:nobytes '
                 'asks for 0 bytes per call (iter_content(chunk_size=...), raw.read(n), or a '
                 'parser reading response.raw): ask for large pieces '
                 '(iter_content(chunk_size=512 * 1024)) or read the body whole '
                 '(response.content) and parse the bytes; geventperf.mount(session) makes '
                 ".content's reads large, not a caller's own small ones. [cost 0.250 s: "
                 'seconds the reading greenlets spent inside the reads, network waits left '
                 'out (a large read waits for the network as long)]',
      'read_s': 0.5,
      'reads': 100,
      'section': None,
      'site': '/srv/app/worker.py:80:nobytes',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:80:nobytes']}],
    'slow_paths_summed_per_greenlet_named_by_cpu_and_windows_paths': [{'by_greenlet': {'alpha': 0.125, 'zeta': 0.5},
      'cost_meaning': "greenlet-seconds: the pure-Python implementation's share of the sampled "
                      "CPU, times the run's running time plus its ready wait (the others' "
                      'queueing while it held the loop)',
      'cost_s': 1.09375,
      'cpu_s': 0.625,
      'cpu_share': 0.625,
      'fix': "install msgpack's C extension (pip install --force-reinstall msgpack, with "
             'MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or msgpack.Unpacker, '
             'not msgpack.fallback',
      'greenlet': None,
      'hazard': False,
      'kind': 'pure-python-fallback',
      'message': "62% of the sampled CPU (0.625 s of 1.000 s) ran in msgpack.fallback's "
                 "msgpack implementation (msgpack.fallback); greenlets: 'zeta' 0.500 s, "
                 "'alpha' 0.125 s. Fix: install msgpack's C extension (pip install "
                 '--force-reinstall msgpack, with MSGPACK_PUREPYTHON unset) and call '
                 'msgpack.packb/unpackb or msgpack.Unpacker, not msgpack.fallback [cost 1.094 '
                 "s: greenlet-seconds: the pure-Python implementation's share of the sampled "
                 "CPU, times the run's running time plus its ready wait (the others' queueing "
                 'while it held the loop)]',
      'module': 'msgpack.fallback',
      'others_ready_wait_s': 0.3125,
      'run_s': 0.78125,
      'samples': 12,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/msgpack/fallback.py:9:unpack']}],
    'small_body_reads_without_bodies_or_site': [{'bodies': 1,
      'bytes': 1000,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.5,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 10.0,
      'message': '1 response bodies (0.0 MiB) were read in 100 reads of 10 bytes on average '
                 "(100 per body) through urllib3's HTTPResponse.read, called from ?; each "
                 'read is a trip through requests, urllib3 and http.client. Fix: the code at '
                 '? asks for 10 bytes per call (iter_content(chunk_size=...), raw.read(n), '
                 'or a parser reading response.raw): ask for large pieces '
                 '(iter_content(chunk_size=512 * 1024)) or read the body whole '
                 '(response.content) and parse the bytes; geventperf.mount(session) makes '
                 ".content's reads large, not a caller's own small ones. [cost 0.500 s: "
                 'seconds the reading greenlets spent inside the reads, network waits left '
                 'out (a large read waits for the network as long)]',
      'read_s': 0.5,
      'reads': 100,
      'section': None,
      'site': '?',
      'small_read_bytes': 65536,
      'stack': ['?']}],
    'slices_without_a_stack_beside_one_placed_in_code': [{'active_s': 0.75,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.0,
      'count': 2,
      'cpu_s': 0.75,
      'gc_s': 0.0,
      'greenlet': 1,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'main' (#1) held the loop 0.750 s without yielding (2 slices over "
                 '0.0625 s, longest 0.500 s), while others were ready to run: 1.000 '
                 'greenlet-seconds of their waiting (one waited up to 0.500 s). It was CPU '
                 'work (0.750 s of CPU); the slice ended at /srv/app/worker.py:20:job. Fix: '
                 'first make that code cheaper (one line burning the CPU this long is often '
                 'work that grows with the square of its input: += on bytes or str in a '
                 'loop, a list searched inside a loop, a sort or copy repeated); then split '
                 'what must stay expensive and yield between pieces of a millisecond or two '
                 'with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 1.000 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.75,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_saturated_with_no_holder_at_all': [{'active_s': 1.2,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 2.0,
      'event_wait_s': 1.0,
      'greenlet': None,
      'hazard': False,
      'holders': {},
      'holders_off_cpu_s': None,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 60% of the run, and greenlets waited 2.000 '
                 'greenlet-seconds ready to run but queued, against 1.000 s waiting for I/O, '
                 "timers or locks. Who held the loop: no greenlet's recorded run slices "
                 "overlapped the waiting (the hub's own callbacks, or slices the tracer did "
                 'not see). The cure is on the CPU side, not the I/O side: less work per '
                 'request in these greenlets (compute once what is the same from request to '
                 'request and keep it: a verified credential or key, a compiled pattern or '
                 'template, a parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list searched inside '
                 'a loop, a sort or copy repeated), fewer greenlets per process and more '
                 'processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). Which functions used the CPU: profile with '
                 'CPU samples (Tracer(cpu_samples=True); geventperf run takes them unless '
                 '--no-cpu-samples). [cost 2.000 s: greenlet-seconds greenlets spent ready '
                 "to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 2.0,
      'section': None,
      'sections': {},
      'small_reads_site': None,
      'stack': [],
      'stack_is': 'slice-end',
      'utilization': 0.6}],
    'threadpool_of_six_functions': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.3125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': False,
      'dns_cause': False,
      'dns_queued_s': 0,
      'dns_run_s': 0,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or '
             'a cooperative alternative to the queued blocking calls so they need no thread',
      'functions': [{'dns': False,
                     'function': 'h5',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.375,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'h4',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.3125,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'h3',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.25,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'h2',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.1875,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'h1',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.125,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1},
                    {'dns': False,
                     'function': 'h0',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 0.0625,
                     'run_s': 0.5,
                     'site': None,
                     'tasks': 1}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': 'pool-6 (maxsize 4) was full: 6 of 6 task(s) found every worker busy, and '
                 'tasks queued 1.312 greenlet-seconds in all for a free worker thread '
                 '(longest 0.188 s; up to 3 task(s) ahead, 1.5 on average). Queued: h5 x1: '
                 'queued 0.375 s, ran 0.500 s in worker threads (0.500 s each); h4 x1: '
                 'queued 0.312 s, ran 0.500 s in worker threads (0.500 s each); h3 x1: '
                 'queued 0.250 s, ran 0.500 s in worker threads (0.500 s each); h2 x1: '
                 'queued 0.188 s, ran 0.500 s in worker threads (0.500 s each); h1 x1: '
                 'queued 0.125 s, ran 0.500 s in worker threads (0.500 s each); 1 more '
                 'function(s). Fix: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
                 '(before the burst); or a cooperative alternative to the queued blocking '
                 'calls so they need no thread. Cost: greenlet-seconds tasks spent queued '
                 'for a free worker thread of this pool: from ThreadPool.spawn until a '
                 "worker started them, summed over the tasks (less the lookups' share a "
                 'connection finding counts).',
      'pool': 'pool-6',
      'queued_max_s': 0.1875,
      'queued_s': 1.3125,
      'run_s': 3.0,
      'saturated_tasks': 6,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 6,
      'tasks_waited': False}],
    'slices_others_joined_only_at_their_end': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.03125,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.250 greenlet-seconds of their waiting (one '
                 'waited up to 0.031 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.250 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'pool_full_at_half_idle_and_the_threshold': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 0.0625,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.5,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 0.062 s for a free slot (8 '
                 'times, for the pool used at /srv/app/worker.py:40:submit; 2 greenlets '
                 "named 'main' (1), 'app.fetch' (1) waited) while the loop sat idle 50% of "
                 'the run: the jobs were waiting, not computing, and no other finding '
                 "explains their waits, so the pool's size paced the work. Fix: a larger "
                 'Pool(size) if what the jobs wait on (a downstream service) can take more '
                 'requests at once; if it cannot, the time each job waits is the lever (an '
                 "upstream's latency is its own to cut: its slow query, its capacity); if "
                 "the limit is deliberate (a downstream's rate limit), this is what it "
                 'costs. To tell which: run once with half the Pool size; answers that take '
                 'about as long mean the upstream had room, and a larger Pool helps; answers '
                 'that take about half as long mean it queues them (its own limit), and a '
                 'larger Pool gains nothing. [cost 0.062 s: greenlet-seconds spent waiting '
                 'for a free slot of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 0.0625,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 8}],
    'pool_full_not_with_a_busy_loop_nor_short_waits': [],
    'pool_full_inside_pool_map_names_the_maps_caller': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:12:main; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. Fix: a larger Pool(size) if what the jobs wait "
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:12:main',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:165:GroupMappingMixin.__map'],
      'waits': 4}],
    'loop_saturated_by_holders_off_the_cpu': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.9375,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). Which functions used the CPU: profile '
                 'with CPU samples (Tracer(cpu_samples=True); geventperf run takes them '
                 'unless --no-cpu-samples). [cost 3.500 s: greenlet-seconds greenlets spent '
                 "ready to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.9375009536743164,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); the slices that delayed most ended as their greenlets exited. '
                 'Most of their running was off the CPU (0.938 s of 1.875 s), in a '
                 'non-cooperative call (time.sleep unpatched, file or DNS I/O, a lock, a '
                 'child process waited for with os.system or os.popen, a C library doing its '
                 'own network I/O) made after their last wait and before they exited, among '
                 'the last things they did (where it blocked is unknown: profile with the '
                 'stall watch on, Tracer(stall_watch=True); geventperf run has it on). Fix: '
                 'monkey-patch first (gevent.monkey.patch_all() before other imports), use '
                 'the cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or '
                 'run it in gevent.get_hub().threadpool. [cost 3.500 s: greenlet-seconds '
                 "greenlets spent ready to run but queued behind others (the run's ready "
                 'wait, less what a loop-blocked, blocking-call, slow-path or cpu-starved '
                 "finding explains), plus the queueing behind the top holder's own slices "
                 'over the block threshold when they burned the CPU in the same code (no '
                 'loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['<greenlet exit>'],
      'stack_is': 'slice-end',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.8770170827065744,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). Which functions used the CPU: profile '
                 'with CPU samples (Tracer(cpu_samples=True); geventperf run takes them '
                 'unless --no-cpu-samples). [cost 3.500 s: greenlet-seconds greenlets spent '
                 "ready to run but queued behind others (the run's ready wait, less what a "
                 'loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'small_body_reads_not_for_bodies_read_in_two_pieces_or_fewer': [{'bodies': 100,
      'bytes': 411648,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.25,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 2048.0,
      'message': '100 response bodies (0.4 MiB) were read in 201 reads of 2.0 KiB on average '
                 "(2 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:71:more; each read is a trip through requests, urllib3 '
                 'and http.client. Fix: the code at /srv/app/worker.py:71:more asks for 2.0 '
                 'KiB per call (iter_content(chunk_size=...), raw.read(n), or a parser '
                 'reading response.raw): ask for large pieces (iter_content(chunk_size=512 * '
                 '1024)) or read the body whole (response.content) and parse the bytes; '
                 "geventperf.mount(session) makes .content's reads large, not a caller's own "
                 'small ones. [cost 0.250 s: seconds the reading greenlets spent inside the '
                 'reads, network waits left out (a large read waits for the network as '
                 'long)]',
      'read_s': 0.5,
      'reads': 201,
      'section': None,
      'site': '/srv/app/worker.py:71:more',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:71:more']}],
    'loop_saturated_by_requests_own_cpu': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 57% of their sampled CPU (7 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, '
                 'urllib3 and http.client themselves: their per-request work (proxy settings '
                 'read from the environment, URL parsing, header checks) is a cause of its '
                 'own. geventperf.Session(), or geventperf.mount(session, fast_path=True), '
                 "does that work once per session (about half of requests' CPU per call in "
                 "this project's benchmarks). Beyond that: less work per request in these "
                 'greenlets (compute once what is the same from request to request and keep '
                 'it: a verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: '
                 '+= on bytes or str in a loop, a list searched inside a loop, a sort or '
                 'copy repeated), fewer greenlets per process and more processes, or '
                 'CPU-heavy work moved out of the loop (a process pool; a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 57% of their sampled CPU (7 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 57% of their sampled CPU (7 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, '
                 'urllib3 and http.client themselves, most of it per read, not per request: '
                 '80 reads for 4 bodies (small-body-reads): read in large pieces, and the '
                 'per-read work goes with the reads. Beyond that: less work per request in '
                 'these greenlets (compute once what is the same from request to request and '
                 'keep it: a verified credential or key, a compiled pattern or template, a '
                 'parsed configuration; and look for work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated), fewer greenlets per process and more processes, or '
                 'CPU-heavy work moved out of the loop (a process pool; a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 57% of their sampled CPU (7 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, '
                 'urllib3 and http.client themselves: their per-request work (proxy settings '
                 'read from the environment, URL parsing, header checks) is a cause of its '
                 'own. geventperf.Session(), or geventperf.mount(session, fast_path=True), '
                 "does that work once per session (about half of requests' CPU per call in "
                 "this project's benchmarks). Beyond that: less work per request in these "
                 'greenlets (compute once what is the same from request to request and keep '
                 'it: a verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: '
                 '+= on bytes or str in a loop, a list searched inside a loop, a sort or '
                 'copy repeated), fewer greenlets per process and more processes, or '
                 'CPU-heavy work moved out of the loop (a process pool; a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'lock_contended_on_patched_locks_not_on_events': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 0.375,
      'greenlet': 1,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 0.375,
      'message': "A lock was contended: greenlets such as 'app.fetch', 'main' waited 0.375 s in "
                 'all to take a monkey-patched threading lock (8 times, most at '
                 '/srv/app/worker.py:50:update_token) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Fix: hold it for less '
                 '-- make slow calls (the network, the disk) outside the locked block and lock '
                 'only the shared state -- or use one lock per resource. [cost 0.375 s: '
                 'greenlet-seconds spent waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:50:update_token',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/thread.py:320:LockType.acquire',
                '/srv/app/worker.py:50:update_token'],
      'waits': 8}],
    'lock_contended_not_with_only_event_waits_or_a_busy_loop': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 1.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 1.0,
      'message': "A lock was contended: greenlets such as 'main' waited 1.000 s in all to take a "
                 'monkey-patched threading lock (4 times, most at an unrecorded place) while the '
                 'loop sat idle 75% of the run: the lock made them take turns, and no other '
                 'finding explains their waits, so whatever its holders do while holding it paced '
                 'the work. Fix: hold it for less -- make slow calls (the network, the disk) '
                 'outside the locked block and lock only the shared state -- or use one lock per '
                 'resource. [cost 1.000 s: greenlet-seconds spent waiting to take a lock while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': 'an unrecorded place',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/thread.py:320:LockType.acquire'],
      'waits': 4}],
    'lock_contended_on_a_compiled_semaphore_at_the_line_that_took_it': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 0.375,
      'greenlet': 1,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 0.375,
      'message': "A lock was contended: greenlets such as 'app.fetch', 'main' waited 0.375 s "
                 'in all to take a gevent lock or semaphore (8 times, most at '
                 '/srv/app/worker.py:50:handler) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Fix: hold it for '
                 'less -- make slow calls (the network, the disk) outside the locked block and '
                 'lock only the shared state -- or use one lock per resource; for a '
                 'Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 0.375 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:50:handler',
      'stack': ['/srv/app/worker.py:50:handler'],
      'waits': 8}],
    'lock_contended_on_both_kinds_of_lock': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 0.375,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 0.375,
      'message': "A lock was contended: greenlets such as 'app.fetch', 'main' waited 0.375 s "
                 'in all to take locks and semaphores (8 times, most at '
                 '/srv/app/worker.py:60:handler) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Fix: hold it for '
                 'less -- make slow calls (the network, the disk) outside the locked block and '
                 'lock only the shared state -- or use one lock per resource; for a '
                 'Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 0.375 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:60:handler',
      'stack': ['/srv/app/worker.py:60:handler'],
      'waits': 8}],
    'pool_full_spawned_by_imap_names_no_line': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, inside gevent's Pool.imap; greenlet 'main' (#1) waited) while the "
                 'loop sat idle 75% of the run: the jobs were waiting, not computing, and no '
                 "other finding explains their waits, so the pool's size paced the work. "
                 'Fix: a larger Pool(size) if what the jobs wait on (a downstream service) '
                 'can take more requests at once; if it cannot, the time each job waits is '
                 "the lever (an upstream's latency is its own to cut: its slow query, its "
                 "capacity); if the limit is deliberate (a downstream's rate limit), this is "
                 'what it costs. To tell which: run once with half the Pool size; answers '
                 'that take about as long mean the upstream had room, and a larger Pool '
                 'helps; answers that take about half as long mean it queues them (its own '
                 'limit), and a larger Pool gains nothing. [cost 1.500 s: greenlet-seconds '
                 'spent waiting for a free slot of a gevent Pool while the loop sat mostly '
                 'idle]',
      'section': None,
      'site': None,
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:165:GroupMappingMixin.__map'],
      'waits': 4}],
    'serial_bottleneck_at_the_edges': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.5,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (50% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 50% of the run, "
                 '0.750 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 10},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.0,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6666666666666666,
      'handoff_wait_s': 4.0,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.000 s in all at hand-offs (67% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 88% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.000 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 10}],
    'serial_bottleneck_names_the_busy_feeder': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 88% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 10}],
    'serial_bottleneck_not_past_each_guard': [],
    'connection_pool_full_not_with_a_busy_loop_nor_short_waits': [],
    'connection_pool_full_on_urllib3_queue_waits_not_its_drop_check': [{'cost_meaning': 'greenlet-seconds '
                                                                                        'spent '
                                                                                        'waiting '
                                                                                        'for a '
                                                                                        'free '
                                                                                        'connection '
                                                                                        'of '
                                                                                        "requests' "
                                                                                        'connection '
                                                                                        'pool '
                                                                                        'while '
                                                                                        'the loop '
                                                                                        'sat '
                                                                                        'mostly '
                                                                                        'idle',
                                                                        'cost_s': 0.75,
                                                                        'greenlet': 1,
                                                                        'hazard': False,
                                                                        'idle_share': 0.75,
                                                                        'kind': 'connection-pool-full',
                                                                        'message': "requests' "
                                                                                   'connection '
                                                                                   'pool was '
                                                                                   'full: '
                                                                                   'greenlets '
                                                                                   'such as '
                                                                                   "'app.fetch', "
                                                                                   "'main' waited "
                                                                                   '0.750 s in '
                                                                                   'all for a '
                                                                                   'free '
                                                                                   'connection (8 '
                                                                                   'times, most '
                                                                                   'at '
                                                                                   '/srv/app/worker.py:18:worker) '
                                                                                   'while the '
                                                                                   'loop sat idle '
                                                                                   '75% of the '
                                                                                   'run: the '
                                                                                   'adapter keeps '
                                                                                   'at most '
                                                                                   'pool_maxsize '
                                                                                   'connections '
                                                                                   'per host and, '
                                                                                   'with '
                                                                                   'pool_block=True, '
                                                                                   'a request '
                                                                                   'that finds '
                                                                                   'them all in '
                                                                                   'use waits for '
                                                                                   'one; no other '
                                                                                   'finding '
                                                                                   'explains '
                                                                                   'their waits, '
                                                                                   'so that size '
                                                                                   'paced the '
                                                                                   'work (the '
                                                                                   'network was '
                                                                                   'not the slow '
                                                                                   'part). Fix: '
                                                                                   'mount an '
                                                                                   'adapter with '
                                                                                   'a '
                                                                                   'pool_maxsize '
                                                                                   'as large as '
                                                                                   'the number of '
                                                                                   'greenlets '
                                                                                   'that share '
                                                                                   'the session '
                                                                                   '(requests.adapters.HTTPAdapter(pool_maxsize=n, '
                                                                                   'pool_block=True), '
                                                                                   'or '
                                                                                   'geventperf.mount(session, '
                                                                                   'pool_maxsize=n)) '
                                                                                   'if the '
                                                                                   'downstream '
                                                                                   'can take that '
                                                                                   'many '
                                                                                   'connections; '
                                                                                   'if the limit '
                                                                                   'is deliberate '
                                                                                   '(the '
                                                                                   "downstream's "
                                                                                   'own '
                                                                                   'connection '
                                                                                   'limit), this '
                                                                                   'is what it '
                                                                                   'costs. [cost '
                                                                                   '0.750 s: '
                                                                                   'greenlet-seconds '
                                                                                   'spent waiting '
                                                                                   'for a free '
                                                                                   'connection of '
                                                                                   "requests' "
                                                                                   'connection '
                                                                                   'pool while '
                                                                                   'the loop sat '
                                                                                   'mostly idle]',
                                                                        'section': None,
                                                                        'site': '/srv/app/worker.py:18:worker',
                                                                        'slot_wait_s': 0.75,
                                                                        'stack': ['/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:280:HTTPConnectionPool._get_conn',
                                                                                  '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:773:HTTPConnectionPool.urlopen',
                                                                                  '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                                                                                  '/srv/app/worker.py:18:worker'],
                                                                        'waits': 8}],
    'session_per_request_at_the_edges': [{'callers': 0,
                                          'calls_in_flight': 1.03125,
                                          'connect_wait_s': 0.0625,
                                          'connections': 10,
                                          'cost_meaning': 'greenlet-seconds spent waiting while '
                                                          "opening the connections requests' "
                                                          'module-level functions open for every '
                                                          'call (the name lookup, the connect)',
                                          'cost_s': 0.0625,
                                          'greenlet': None,
                                          'hazard': False,
                                          'kind': 'session-per-request',
                                          'message': 'A new connection for every request: '
                                                     "greenlets called requests' module-level "
                                                     'functions (requests.get, requests.post, '
                                                     '...; most at /srv/app/worker.py:15:worker), '
                                                     'which build a new Session for each call and '
                                                     'close it after, so nothing is kept alive: '
                                                     'at least 10 connections were opened, each '
                                                     'resolving the host name and connecting '
                                                     'again, 0.062 s of waiting in all. A shared '
                                                     'Session keeps about as many connections as '
                                                     'calls are in flight at once (here 1.0 on '
                                                     'average, made by 0 greenlets). Fix: create '
                                                     'one requests.Session (or '
                                                     'geventperf.Session) per worker or per '
                                                     'process and call its get/post: its '
                                                     'kept-alive connections skip the lookup, the '
                                                     'connect and the set-up. [cost 0.062 s: '
                                                     'greenlet-seconds spent waiting while '
                                                     "opening the connections requests' "
                                                     'module-level functions open for every call '
                                                     '(the name lookup, the connect)]',
                                          'section': None,
                                          'setup_cpu_s': None,
                                          'site': '/srv/app/worker.py:15:worker',
                                          'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply',
                                                    '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                                                    '/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:59:request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:73:get',
                                                    '/srv/app/worker.py:15:worker']},
                                         {'callers': 2,
                                          'calls_in_flight': 8.0,
                                          'connect_wait_s': 0.625,
                                          'connections': 16,
                                          'cost_meaning': 'greenlet-seconds spent waiting while '
                                                          "opening the connections requests' "
                                                          'module-level functions open for every '
                                                          'call (the name lookup, the connect)',
                                          'cost_s': 0.625,
                                          'greenlet': 3,
                                          'hazard': False,
                                          'kind': 'session-per-request',
                                          'message': 'A new connection for every request: '
                                                     "greenlets such as 'app.fetch' called "
                                                     "requests' module-level functions "
                                                     '(requests.get, requests.post, ...; most at '
                                                     '/srv/app/worker.py:15:worker), which build '
                                                     'a new Session for each call and close it '
                                                     'after, so nothing is kept alive: at least '
                                                     '16 connections were opened, each resolving '
                                                     'the host name and connecting again, 0.625 s '
                                                     'of waiting in all; 0.250 s of CPU ran in '
                                                     'the slices that ended opening them '
                                                     '(building a Session, its adapters and pools '
                                                     'each time). A shared Session keeps about as '
                                                     'many connections as calls are in flight at '
                                                     'once (here 8.0 on average, made by 2 '
                                                     'greenlets). Fix: create one '
                                                     'requests.Session (or geventperf.Session) '
                                                     'per worker or per process and call its '
                                                     'get/post: its kept-alive connections skip '
                                                     'the lookup, the connect and the set-up. '
                                                     '[cost 0.625 s: greenlet-seconds spent '
                                                     'waiting while opening the connections '
                                                     "requests' module-level functions open for "
                                                     'every call (the name lookup, the connect)]',
                                          'section': None,
                                          'setup_cpu_s': 0.25,
                                          'site': '/srv/app/worker.py:15:worker',
                                          'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply',
                                                    '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                                                    '/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:59:request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:73:get',
                                                    '/srv/app/worker.py:15:worker']},
                                         {'callers': 8,
                                          'calls_in_flight': 1.5625,
                                          'connect_wait_s': 0.625,
                                          'connections': 16,
                                          'cost_meaning': 'greenlet-seconds spent waiting while '
                                                          "opening the connections requests' "
                                                          'module-level functions open for every '
                                                          'call (the name lookup, the connect)',
                                          'cost_s': 0.625,
                                          'greenlet': 3,
                                          'hazard': False,
                                          'kind': 'session-per-request',
                                          'message': 'A new connection for every request: '
                                                     "greenlets such as 'app.fetch' called "
                                                     "requests' module-level functions "
                                                     '(requests.get, requests.post, ...; most at '
                                                     '/srv/app/worker.py:15:worker), which build '
                                                     'a new Session for each call and close it '
                                                     'after, so nothing is kept alive: at least '
                                                     '16 connections were opened, each resolving '
                                                     'the host name and connecting again, 0.625 s '
                                                     'of waiting in all; 0.250 s of CPU ran in '
                                                     'the slices that ended opening them '
                                                     '(building a Session, its adapters and pools '
                                                     'each time). A shared Session keeps about as '
                                                     'many connections as calls are in flight at '
                                                     'once (here 1.6 on average, made by 8 '
                                                     'greenlets). Fix: create one '
                                                     'requests.Session (or geventperf.Session) '
                                                     'per worker or per process and call its '
                                                     'get/post: its kept-alive connections skip '
                                                     'the lookup, the connect and the set-up. '
                                                     '[cost 0.625 s: greenlet-seconds spent '
                                                     'waiting while opening the connections '
                                                     "requests' module-level functions open for "
                                                     'every call (the name lookup, the connect)]',
                                          'section': None,
                                          'setup_cpu_s': 0.25,
                                          'site': '/srv/app/worker.py:15:worker',
                                          'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply',
                                                    '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                                                    '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                                                    '/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:59:request',
                                                    '/venv/lib/python3.11/site-packages/requests/api.py:73:get',
                                                    '/srv/app/worker.py:15:worker']}],
    'session_per_request_counts_the_connections_requests_get_opened': [{'callers': 2,
                                                                        'calls_in_flight': 1.5625,
                                                                        'connect_wait_s': 0.625,
                                                                        'connections': 16,
                                                                        'cost_meaning': 'greenlet-seconds '
                                                                                        'spent '
                                                                                        'waiting '
                                                                                        'while '
                                                                                        'opening '
                                                                                        'the '
                                                                                        'connections '
                                                                                        "requests' "
                                                                                        'module-level '
                                                                                        'functions '
                                                                                        'open for '
                                                                                        'every '
                                                                                        'call '
                                                                                        '(the '
                                                                                        'name '
                                                                                        'lookup, '
                                                                                        'the '
                                                                                        'connect)',
                                                                        'cost_s': 0.625,
                                                                        'greenlet': 3,
                                                                        'hazard': False,
                                                                        'kind': 'session-per-request',
                                                                        'message': 'A new '
                                                                                   'connection '
                                                                                   'for every '
                                                                                   'request: '
                                                                                   'greenlets '
                                                                                   'such as '
                                                                                   "'app.fetch' "
                                                                                   'called '
                                                                                   "requests' "
                                                                                   'module-level '
                                                                                   'functions '
                                                                                   '(requests.get, '
                                                                                   'requests.post, '
                                                                                   '...; most at '
                                                                                   '/srv/app/worker.py:15:worker), '
                                                                                   'which build a '
                                                                                   'new Session '
                                                                                   'for each call '
                                                                                   'and close it '
                                                                                   'after, so '
                                                                                   'nothing is '
                                                                                   'kept alive: '
                                                                                   'at least 16 '
                                                                                   'connections '
                                                                                   'were opened, '
                                                                                   'each '
                                                                                   'resolving the '
                                                                                   'host name and '
                                                                                   'connecting '
                                                                                   'again, 0.625 '
                                                                                   's of waiting '
                                                                                   'in all; 0.250 '
                                                                                   's of CPU ran '
                                                                                   'in the slices '
                                                                                   'that ended '
                                                                                   'opening them '
                                                                                   '(building a '
                                                                                   'Session, its '
                                                                                   'adapters and '
                                                                                   'pools each '
                                                                                   'time). A '
                                                                                   'shared '
                                                                                   'Session keeps '
                                                                                   'about as many '
                                                                                   'connections '
                                                                                   'as calls are '
                                                                                   'in flight at '
                                                                                   'once (here '
                                                                                   '1.6 on '
                                                                                   'average, made '
                                                                                   'by 2 '
                                                                                   'greenlets). '
                                                                                   'Fix: create '
                                                                                   'one '
                                                                                   'requests.Session '
                                                                                   '(or '
                                                                                   'geventperf.Session) '
                                                                                   'per worker or '
                                                                                   'per process '
                                                                                   'and call its '
                                                                                   'get/post: its '
                                                                                   'kept-alive '
                                                                                   'connections '
                                                                                   'skip the '
                                                                                   'lookup, the '
                                                                                   'connect and '
                                                                                   'the set-up. '
                                                                                   '[cost 0.625 '
                                                                                   's: '
                                                                                   'greenlet-seconds '
                                                                                   'spent waiting '
                                                                                   'while opening '
                                                                                   'the '
                                                                                   'connections '
                                                                                   "requests' "
                                                                                   'module-level '
                                                                                   'functions '
                                                                                   'open for '
                                                                                   'every call '
                                                                                   '(the name '
                                                                                   'lookup, the '
                                                                                   'connect)]',
                                                                        'section': None,
                                                                        'setup_cpu_s': 0.25,
                                                                        'site': '/srv/app/worker.py:15:worker',
                                                                        'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply',
                                                                                  '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                                                                                  '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                                                                                  '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                                                                                  '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                                                                                  '/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request',
                                                                                  '/venv/lib/python3.11/site-packages/requests/api.py:59:request',
                                                                                  '/venv/lib/python3.11/site-packages/requests/api.py:73:get',
                                                                                  '/srv/app/worker.py:15:worker']}],
    'session_per_request_not_for_a_few_calls_or_short_waits': [],
    'gil_contended_at_the_edges': [{'cost_meaning': 'greenlet-seconds other greenlets spent ready '
                                                    "to run but held up while the loop's thread "
                                                    'waited for the interpreter lock',
                                    'cost_s': 0.5,
                                    'function': 'app.hash',
                                    'greenlet': None,
                                    'hazard': False,
                                    'kind': 'gil-contended',
                                    'message': "The loop's thread waited for the GIL: while "
                                               'running greenlets and the hub it was off the CPU '
                                               '0.500 s (25% of the run; not waiting for a CPU, '
                                               "not in a cooperative wait) while gevent's "
                                               'threadpool ran Python for 0.250 s of CPU in its '
                                               'worker threads: app.hash (0.250 s in 2 tasks), '
                                               'sent there by greenlets. A thread running Python '
                                               "holds the interpreter lock the loop's thread "
                                               'needs to run anything, and lets go of it only '
                                               'every few milliseconds, so greenlets queued: up '
                                               'to 0.500 greenlet-seconds of their ready wait. '
                                               'Fix: run CPU-heavy Python in processes (a '
                                               'concurrent.futures.ProcessPoolExecutor, '
                                               'multiprocessing), not in the threadpool, which '
                                               'suits calls that release the GIL (file and DNS '
                                               'I/O, C code such as zlib or hashlib on large '
                                               'buffers). [cost 0.500 s: greenlet-seconds other '
                                               'greenlets spent ready to run but held up while '
                                               "the loop's thread waited for the interpreter "
                                               'lock]',
                                    'off_cpu_s': 0.5,
                                    'section': None,
                                    'site': None,
                                    'stack': [],
                                    'threads_cpu_s': 0.25}],
    'gil_contended_not_past_each_guard': [],
    'gil_contended_when_threadpool_python_held_the_lock': [{'cost_meaning': 'greenlet-seconds '
                                                                            'other greenlets '
                                                                            'spent ready to run '
                                                                            'but held up while '
                                                                            "the loop's thread "
                                                                            'waited for the '
                                                                            'interpreter lock',
                                                            'cost_s': 0.875,
                                                            'function': 'app.checksum',
                                                            'greenlet': 3,
                                                            'hazard': False,
                                                            'kind': 'gil-contended',
                                                            'message': "The loop's thread waited "
                                                                       'for the GIL: while '
                                                                       'running greenlets and the '
                                                                       'hub it was off the CPU '
                                                                       '0.875 s (44% of the run; '
                                                                       'not waiting for a CPU, '
                                                                       'not in a cooperative '
                                                                       "wait) while gevent's "
                                                                       'threadpool ran Python for '
                                                                       '0.750 s of CPU in its '
                                                                       'worker threads: '
                                                                       'app.checksum (0.500 s in '
                                                                       '8 tasks), app.hash (0.250 '
                                                                       's in 2 tasks), sent there '
                                                                       'by 2 greenlets named '
                                                                       "'app.fetch' at "
                                                                       '/srv/app/worker.py:23:handler. '
                                                                       'A thread running Python '
                                                                       'holds the interpreter '
                                                                       "lock the loop's thread "
                                                                       'needs to run anything, '
                                                                       'and lets go of it only '
                                                                       'every few milliseconds, '
                                                                       'so greenlets queued: up '
                                                                       'to 0.875 greenlet-seconds '
                                                                       'of their ready wait. Fix: '
                                                                       'run CPU-heavy Python in '
                                                                       'processes (a '
                                                                       'concurrent.futures.ProcessPoolExecutor, '
                                                                       'multiprocessing), not in '
                                                                       'the threadpool, which '
                                                                       'suits calls that release '
                                                                       'the GIL (file and DNS '
                                                                       'I/O, C code such as zlib '
                                                                       'or hashlib on large '
                                                                       'buffers). [cost 0.875 s: '
                                                                       'greenlet-seconds other '
                                                                       'greenlets spent ready to '
                                                                       'run but held up while the '
                                                                       "loop's thread waited for "
                                                                       'the interpreter lock]',
                                                            'off_cpu_s': 0.875,
                                                            'section': None,
                                                            'site': '/srv/app/worker.py:23:handler',
                                                            'stack': ['/srv/app/worker.py:23:handler'],
                                                            'threads_cpu_s': 0.75}],
    'gil_contention_takes_the_long_off_cpu_slices_from_blocking_call': [{'active_s': 0.25,
      'backlog_s': 0.0,
      'blocking_s': 0.25,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.25,
      'longest_wait_s': 0.25,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.250 s without yielding, while "
                 'others were ready to run: 0.250 greenlet-seconds of their waiting (one '
                 'waited up to 0.250 s). 0.250 s of it was off the CPU in a non-cooperative '
                 'call (time.sleep unpatched, file or DNS I/O, a lock, a child process '
                 'waited for with os.system or os.popen, a C library doing its own network '
                 'I/O) made before the slice ended at /srv/app/worker.py:20:job (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). Fix: monkey-patch '
                 'first (gevent.monkey.patch_all() before other imports), use the '
                 'cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or run '
                 'it in gevent.get_hub().threadpool. [cost 0.250 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.25,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'retry_backoff_from_the_threshold_on': [{'backoff_s': 0.0625,
      'cost_meaning': "greenlet-seconds spent sleeping in urllib3's retry back-off before "
                      'retrying failed requests',
      'cost_s': 0.0625,
      'greenlet': None,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': 'Requests were retried: greenlets waited 0.062 s in all sleeping in '
                 "urllib3's retry back-off (1 sleep of 0.062 s on average, most under "
                 '/srv/app/worker.py:23:worker): the upstream failed them -- a status in the '
                 "Retry's status_forcelist (503, 429), a refused or reset connection -- and "
                 "the adapter's Retry slept before each new attempt, growing with "
                 "backoff_factor. That time went to the upstream's failures, not to its "
                 'answers. Fix: find why the upstream fails (its status codes and logs); if '
                 'latency matters more than eventual success, cap the back-off '
                 '(Retry(backoff_max=...)) and the attempts (Retry(total=...)), or fail fast '
                 'and let the caller decide. [cost 0.062 s: greenlet-seconds spent sleeping '
                 "in urllib3's retry back-off before retrying failed requests]",
      'retry_after_s': 0,
      'section': None,
      'site': '/srv/app/worker.py:23:worker',
      'sleeps': 1,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:383:Retry._sleep_backoff',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:399:Retry.sleep',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:972:HTTPConnectionPool.urlopen',
                '/srv/app/worker.py:23:worker']}],
    'retry_backoff_sums_the_sleeps_before_retries': [{'backoff_s': 0.75,
      'cost_meaning': "greenlet-seconds spent sleeping in urllib3's retry back-off before "
                      'retrying failed requests',
      'cost_s': 0.75,
      'greenlet': 3,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.fetch' waited 0.750 s in all "
                 "sleeping in urllib3's retry back-off (6 sleeps of 0.125 s on average, most "
                 'under /srv/app/worker.py:23:worker): the upstream failed them -- a status '
                 "in the Retry's status_forcelist (503, 429), a refused or reset connection "
                 "-- and the adapter's Retry slept before each new attempt, growing with "
                 "backoff_factor. That time went to the upstream's failures, not to its "
                 'answers. Fix: find why the upstream fails (its status codes and logs); if '
                 'latency matters more than eventual success, cap the back-off '
                 '(Retry(backoff_max=...)) and the attempts (Retry(total=...)), or fail fast '
                 'and let the caller decide. [cost 0.750 s: greenlet-seconds spent sleeping '
                 "in urllib3's retry back-off before retrying failed requests]",
      'retry_after_s': 0.25,
      'section': None,
      'site': '/srv/app/worker.py:23:worker',
      'sleeps': 6,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:383:Retry._sleep_backoff',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:399:Retry.sleep',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:972:HTTPConnectionPool.urlopen',
                '/srv/app/worker.py:23:worker']},
     {'backoff_s': 1.0,
      'cost_meaning': "greenlet-seconds spent sleeping in urllib3's retry back-off before "
                      'retrying failed requests',
      'cost_s': 1.0,
      'greenlet': 3,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.fetch' waited 1.000 s in all "
                 "sleeping in urllib3's retry back-off (6 sleeps of 0.167 s on average, most "
                 'under /srv/app/worker.py:23:worker): the upstream failed them -- a status '
                 "in the Retry's status_forcelist (503, 429), a refused or reset connection "
                 "-- and 50% of that time slept for the upstream's Retry-After header "
                 '(urllib3 sleeps as long as a 503, 429 or 413 answer asks, and backoff_max '
                 "does not cap it). That time went to the upstream's failures, not to its "
                 'answers. Fix: find why the upstream fails (its status codes and logs); if '
                 "latency matters more than the upstream's request to slow down, "
                 'Retry(respect_retry_after_header=False) retries the statuses in '
                 'status_forcelist on the back-off instead (capped by backoff_max; with '
                 'backoff_factor=0, at once; a status retried only for its Retry-After is '
                 'then not retried), or, in urllib3 releases that have it, '
                 "Retry(retry_after_max=...) caps the header's wait; and cap the attempts "
                 '(Retry(total=...)), or fail fast and let the caller decide. [cost 1.000 s: '
                 "greenlet-seconds spent sleeping in urllib3's retry back-off before "
                 'retrying failed requests]',
      'retry_after_s': 0.5,
      'section': None,
      'site': '/srv/app/worker.py:23:worker',
      'sleeps': 6,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:383:Retry._sleep_backoff',
                '/venv/lib/python3.11/site-packages/urllib3/util/retry.py:399:Retry.sleep',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:972:HTTPConnectionPool.urlopen',
                '/srv/app/worker.py:23:worker']}],
    'gc_filled_slices_are_one_gc_pause_across_names': [{'active_s': 1.5,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.875,
      'count': 3,
      'gc_s': 0.75,
      'generations': [1, 2],
      'greenlet': 3,
      'greenlets': 3,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 3 slice(s) over 0.0625 s '
                 '(1.500 s in all, longest 0.500 s) were 0.750 s of collection (generations '
                 '1, 2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.875 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 3 greenlets named '
                 "'app.fetch' (1), 'app.parse' (1), 'main' (1), whichever allocated when a "
                 'collection fell due: that code is not the cause, the number of long-lived '
                 'objects the collector walks is. Over the whole run it collected 48 times '
                 'for 1.500 s (40 / 6 / 2 by generation, youngest first). Fix: call '
                 'gc.freeze() once start-up has built its long-lived objects (caches, parsed '
                 'configuration, imported modules; in a pre-fork server, before forking): '
                 'later collections skip them. Or collect less often (gc.set_threshold with '
                 "a larger first threshold), or keep big caches out of the collector's sight "
                 '(fewer, larger objects: bytes or arrays rather than dicts and lists). '
                 '[cost 0.875 s: greenlet-seconds other greenlets spent ready to run but '
                 'held up by these slices, which the garbage collector mostly filled, and in '
                 'the backlog they left (the ready queue above its usual length until it '
                 "next emptied), plus the collector's share of the rest of the queueing (its "
                 "time in shorter slices over the loop's busy time)]",
      'run_s': 1.5,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.1875,
      'greenlet': 4,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#4) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.250 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU, 0.188 s of it '
                 'garbage collection); the slice ended at /srv/app/worker.py:20:job. Fix: '
                 'first make that code cheaper (one line burning the CPU this long is often '
                 'work that grows with the square of its input: += on bytes or str in a '
                 'loop, a list searched inside a loop, a sort or copy repeated); then split '
                 'what must stay expensive and yield between pieces of a millisecond or two '
                 'with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.250 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'gc_pause_of_an_older_or_partial_record': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.5,
      'count': 1,
      'gc_s': 0.5,
      'generations': [],
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 1 slice(s) over 0.0625 s '
                 '(0.500 s in all, longest 0.500 s) were 0.500 s of collection, while others '
                 'were ready to run: 0.500 greenlet-seconds of their waiting (one waited up '
                 "to 0.500 s). It ran inside greenlet 'app.fetch' (#3), whichever allocated "
                 'when a collection fell due: that code is not the cause, the number of '
                 'long-lived objects the collector walks is. Fix: call gc.freeze() once '
                 'start-up has built its long-lived objects (caches, parsed configuration, '
                 'imported modules; in a pre-fork server, before forking): later collections '
                 'skip them. Or collect less often (gc.set_threshold with a larger first '
                 "threshold), or keep big caches out of the collector's sight (fewer, larger "
                 'objects: bytes or arrays rather than dicts and lists). [cost 0.500 s: '
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, which the garbage collector mostly filled, and in the backlog they '
                 'left (the ready queue above its usual length until it next emptied), plus '
                 "the collector's share of the rest of the queueing (its time in shorter "
                 "slices over the loop's busy time)]",
      'run_s': 0.5,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'gc_pause_takes_the_queueing_behind_short_collections': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 1.0,
      'count': 1,
      'gc_s': 0.375,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 1 slice(s) over 0.0625 s '
                 '(0.500 s in all, longest 0.500 s) were 0.375 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.500 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). Collections in slices under the '
                 "threshold took 0.375 s more, 25% of the loop's busy time: the queueing "
                 'behind them, 0.500 greenlet-seconds by that share, is counted here too. It '
                 "ran inside greenlet 'app.fetch' (#3), whichever allocated when a "
                 'collection fell due: that code is not the cause, the number of long-lived '
                 'objects the collector walks is. Over the whole run it collected 48 times '
                 'for 0.750 s (40 / 6 / 2 by generation, youngest first). Fix: call '
                 'gc.freeze() once start-up has built its long-lived objects (caches, parsed '
                 'configuration, imported modules; in a pre-fork server, before forking): '
                 'later collections skip them. Or collect less often (gc.set_threshold with '
                 "a larger first threshold), or keep big caches out of the collector's sight "
                 '(fewer, larger objects: bytes or arrays rather than dicts and lists). '
                 '[cost 1.000 s: greenlet-seconds other greenlets spent ready to run but '
                 'held up by these slices, which the garbage collector mostly filled, and in '
                 'the backlog they left (the ready queue above its usual length until it '
                 "next emptied), plus the collector's share of the rest of the queueing (its "
                 "time in shorter slices over the loop's busy time)]",
      'run_s': 0.5,
      'section': 'sec',
      'short_gc_queued_s': 0.5,
      'short_gc_s': 0.375,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'gc_pause_of_a_heap_built_in_flight_or_at_start_up': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.5000152587890625,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.500 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'The objects it walks were made during the run, not at start-up: its first '
                 'long full collection took 0.125 s and its longest 0.250 s, as data in '
                 'flight (parsed documents, request state) piled up, which gc.freeze() at '
                 'start-up cannot reach. Fix: hold fewer of them at once (fewer big '
                 'documents in flight together, keep only what you need of each and drop the '
                 'rest), or collect less often (gc.set_threshold with larger thresholds). '
                 '[cost 0.750 s: greenlet-seconds other greenlets spent ready to run but '
                 'held up by these slices, which the garbage collector mostly filled, and in '
                 'the backlog they left (the ready queue above its usual length until it '
                 "next emptied), plus the collector's share of the rest of the queueing (its "
                 "time in shorter slices over the loop's busy time)]",
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.5,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.500 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'Fix: call gc.freeze() once start-up has built its long-lived objects '
                 '(caches, parsed configuration, imported modules; in a pre-fork server, '
                 'before forking): later collections skip them. Or collect less often '
                 '(gc.set_threshold with a larger first threshold), or keep big caches out '
                 "of the collector's sight (fewer, larger objects: bytes or arrays rather "
                 'than dicts and lists). [cost 0.750 s: greenlet-seconds other greenlets '
                 'spent ready to run but held up by these slices, which the garbage '
                 'collector mostly filled, and in the backlog they left (the ready queue '
                 "above its usual length until it next emptied), plus the collector's share "
                 "of the rest of the queueing (its time in shorter slices over the loop's "
                 'busy time)]',
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.75,
      'generations': [1, 2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.750 s of collection (generations '
                 '1, 2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'Fix: call gc.freeze() once start-up has built its long-lived objects '
                 '(caches, parsed configuration, imported modules; in a pre-fork server, '
                 'before forking): later collections skip them. Or collect less often '
                 '(gc.set_threshold with a larger first threshold), or keep big caches out '
                 "of the collector's sight (fewer, larger objects: bytes or arrays rather "
                 'than dicts and lists). [cost 0.750 s: greenlet-seconds other greenlets '
                 'spent ready to run but held up by these slices, which the garbage '
                 'collector mostly filled, and in the backlog they left (the ready queue '
                 "above its usual length until it next emptied), plus the collector's share "
                 "of the rest of the queueing (its time in shorter slices over the loop's "
                 'busy time)]',
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'cpu_slice_with_samples_names_the_line_that_burned_it': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '75% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (one line burning the CPU this long is often work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated); then split what '
                 'must stay expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O '
                 'of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.750 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.750 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '25% of their sampled CPU (7 samples in all) in job (/srv/app/worker.py), '
                 '50% of that at line 24; the slice ended at /srv/app/worker.py:20:job, '
                 'where it yielded. Fix: first make that code cheaper (one line burning the '
                 'CPU this long is often work that grows with the square of its input: += on '
                 'bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated); then split what must stay expensive and yield between pieces of '
                 'a millisecond or two with gevent.idle() (it resumes once the loop has run '
                 'what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before '
                 'it polls for I/O; or move it to a process pool (a C call that releases the '
                 "GIL, such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost "
                 '0.750 s: greenlet-seconds other greenlets spent ready to run but held up '
                 'by these slices, and in the backlog they left (the ready queue above its '
                 'usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended '
                 'at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the '
                 'loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.750 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '60% of their sampled CPU (6 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (one line burning the CPU this long is often work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated); then split what '
                 'must stay expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O '
                 'of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.750 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '80% of their sampled CPU (6 samples in all) in job (/srv/app/worker.py), '
                 '75% of that at line 24; the slice ended at /srv/app/worker.py:20:job, '
                 'where it yielded. Fix: first make that code cheaper (one line burning the '
                 'CPU this long is often work that grows with the square of its input: += on '
                 'bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated); then split what must stay expensive and yield between pieces of '
                 'a millisecond or two with gevent.idle() (it resumes once the loop has run '
                 'what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before '
                 'it polls for I/O; or move it to a process pool (a C call that releases the '
                 "GIL, such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost "
                 '0.750 s: greenlet-seconds other greenlets spent ready to run but held up '
                 'by these slices, and in the backlog they left (the ready queue above its '
                 'usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.5,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.500 greenlet-seconds of their waiting (one waited up to 0.500 s). It was '
                 'CPU work (1.000 s of CPU); CPU samples put 75% of their sampled CPU (5 '
                 'samples in all) at /srv/app/worker.py:24:job; the slices ended as their '
                 'greenlets exited. Fix: first make that code cheaper (one line burning the '
                 'CPU this long is often work that grows with the square of its input: += on '
                 'bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated); then split what must stay expensive and yield between pieces of '
                 'a millisecond or two with gevent.idle() (it resumes once the loop has run '
                 'what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before '
                 'it polls for I/O; or move it to a process pool (a C call that releases the '
                 "GIL, such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost "
                 '1.500 s: greenlet-seconds other greenlets spent ready to run but held up '
                 'by these slices, and in the backlog they left (the ready queue above its '
                 'usual length until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625}],
    'loop_held_with_samples_names_the_line_that_burned_it': [{'cost_meaning': 'greenlet-seconds other greenlets spent ready to run while these '
                      "greenlets' slices under the block threshold ran",
      'cost_s': 4.0,
      'cpu_s': 0.5,
      'delayed_others_s': 4.0,
      'greenlet': 5,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-held',
      'longer_slices': 0,
      'mean_slice_s': 0.025,
      'message': "greenlet 'app.hasher' (#5) held the loop in 20 slices of 25.0 ms on average, "
                 "each under the 0.05 s block threshold but 99x the other greenlets' 0.25 ms: "
                 'other greenlets waited 4.000 greenlet-seconds ready to run while they ran, 80% '
                 'of all such waiting. It was CPU work (0.500 s of CPU in 0.500 s of running); '
                 'CPU samples put 100% of their sampled CPU (8 samples in all) at '
                 '/srv/app/worker.py:23:hash_passwords; the slices that delayed most ended at '
                 '/srv/app/worker.py:22:hash_passwords. Fix: smaller pieces of the work, and '
                 'yield between pieces of a millisecond or two with gevent.idle() (it resumes '
                 'once the loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls for '
                 'I/O before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before it '
                 'polls for I/O; or move the work out of the loop (gevent.get_hub().threadpool '
                 'for C code that releases the GIL, a process pool for Python code). [cost 4.000 '
                 "s: greenlet-seconds other greenlets spent ready to run while these greenlets' "
                 'slices under the block threshold ran]',
      'others_mean_slice_s': 0.0002537313432835823,
      'run_s': 0.5,
      'section': None,
      'share': 0.8,
      'slices': 20,
      'slices_in_a_row': 1.0,
      'stack': ['/srv/app/worker.py:23:hash_passwords'],
      'stack_is': 'cpu-samples',
      'zero_sleeps': 0}],
    'cpu_slices_name_the_sections_they_ran_in': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.5,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.500 greenlet-seconds of their waiting (one waited up to 0.500 s). It was '
                 'CPU work (1.000 s of CPU), 0.250 s of the 1.000 s inside section '
                 "'json.loads', 0.250 s of the 1.000 s inside section 'lxml'; the slice "
                 'ended at /srv/app/worker.py:20:job. Fix: first make that code cheaper (one '
                 'line burning the CPU this long is often work that grows with the square of '
                 'its input: += on bytes or str in a loop, a list searched inside a loop, a '
                 'sort or copy repeated); then split what must stay expensive and yield '
                 'between pieces of a millisecond or two with gevent.idle() (it resumes once '
                 'the loop has run what is pending, the I/O of waiting greenlets included: '
                 'suited to background work) or gevent.sleep(0.001) (a timer: the loop polls '
                 'for I/O before it fires), not gevent.sleep(0): that gives way only to '
                 'greenlets already ready, and gevent runs up to 50 such wake-ups back to '
                 'back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 1.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.5,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.500 greenlet-seconds of their waiting (one waited up to 0.500 s). It was '
                 "CPU work (1.000 s of CPU), 0.250 s of the 1.000 s inside section 'lxml'; "
                 'the slice ended at /srv/app/worker.py:20:job. Fix: first make that code '
                 'cheaper (one line burning the CPU this long is often work that grows with '
                 'the square of its input: += on bytes or str in a loop, a list searched '
                 'inside a loop, a sort or copy repeated); then split what must stay '
                 'expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O '
                 'of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 1.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.5,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.500 greenlet-seconds of their waiting (one waited up to 0.500 s). It was '
                 'CPU work (1.000 s of CPU); the slice ended at /srv/app/worker.py:20:job. '
                 'Fix: first make that code cheaper (one line burning the CPU this long is '
                 'often work that grows with the square of its input: += on bytes or str in '
                 'a loop, a list searched inside a loop, a sort or copy repeated); then '
                 'split what must stay expensive and yield between pieces of a millisecond '
                 'or two with gevent.idle() (it resumes once the loop has run what is '
                 'pending, the I/O of waiting greenlets included: suited to background work) '
                 'or gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), '
                 'not gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 1.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.5,
      'count': 2,
      'cpu_s': 1.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.500 greenlet-seconds of their waiting (one waited up to 0.500 s). It was '
                 'CPU work (1.000 s of CPU); the slice ended at /srv/app/worker.py:20:job. '
                 'Fix: first make that code cheaper (one line burning the CPU this long is '
                 'often work that grows with the square of its input: += on bytes or str in '
                 'a loop, a list searched inside a loop, a sort or copy repeated); then '
                 'split what must stay expensive and yield between pieces of a millisecond '
                 'or two with gevent.idle() (it resumes once the loop has run what is '
                 'pending, the I/O of waiting greenlets included: suited to background work) '
                 'or gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), '
                 'not gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 1.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_held_names_the_sections_others_queued_behind': [{'cost_meaning': 'greenlet-seconds other greenlets spent ready to run while these '
                      "greenlets' slices under the block threshold ran",
      'cost_s': 4.0,
      'cpu_s': 0.5,
      'delayed_others_s': 4.0,
      'greenlet': 5,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-held',
      'longer_slices': 0,
      'mean_slice_s': 0.025,
      'message': "greenlet 'app.hasher' (#5) held the loop in 20 slices of 25.0 ms on average, "
                 "each under the 0.05 s block threshold but 99x the other greenlets' 0.25 ms: "
                 'other greenlets waited 4.000 greenlet-seconds ready to run while they ran, 80% '
                 'of all such waiting. It was CPU work (0.500 s of CPU in 0.500 s of running); '
                 "inside section 'hashlib' (1.000 greenlet-s of others' waiting over the run); "
                 'the slices that delayed most ended at /srv/app/worker.py:22:hash_passwords. '
                 'Fix: smaller pieces of the work, and yield between pieces of a millisecond or '
                 'two with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and gevent '
                 'runs up to 50 such wake-ups back to back before it polls for I/O; or move the '
                 'work out of the loop (gevent.get_hub().threadpool for C code that releases the '
                 'GIL, a process pool for Python code). [cost 4.000 s: greenlet-seconds other '
                 "greenlets spent ready to run while these greenlets' slices under the block "
                 'threshold ran]',
      'others_mean_slice_s': 0.0002537313432835823,
      'run_s': 0.5,
      'section': None,
      'share': 0.8,
      'slices': 20,
      'slices_in_a_row': 1.0,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:159:sleep',
                '/srv/app/worker.py:22:hash_passwords'],
      'stack_is': 'slice-end',
      'zero_sleeps': 0}],
    'blocking_call_socket_unpatched': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.5,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). 0.500 s of it was off the CPU in a non-cooperative '
                 'call (time.sleep unpatched, file or DNS I/O, a lock, a child process '
                 'waited for with os.system or os.popen, a C library doing its own network '
                 'I/O) made before the slice ended at /srv/app/worker.py:20:job (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). The socket module is '
                 "not monkey-patched here, so every network call through it (requests', a "
                 "database driver's) blocks the whole loop, and time.sleep too. Fix: "
                 'monkey-patch first (gevent.monkey.patch_all() before other imports), use '
                 'the cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or '
                 'run it in gevent.get_hub().threadpool. [cost 0.500 s: greenlet-seconds '
                 'other greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.5,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). 0.500 s of it was off the CPU in a non-cooperative '
                 'call (time.sleep unpatched, file or DNS I/O, a lock, a child process '
                 'waited for with os.system or os.popen, a C library doing its own network '
                 'I/O) made before the slice ended at /srv/app/worker.py:20:job (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). The socket module is '
                 "not monkey-patched here, so every network call through it (requests', a "
                 "database driver's) blocks the whole loop. Fix: monkey-patch first "
                 '(gevent.monkey.patch_all() before other imports), use the cooperative call '
                 '(gevent.sleep, gevent.socket, gevent.subprocess), or run it in '
                 'gevent.get_hub().threadpool. [cost 0.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'gc_pause_told_in_flight_by_the_heaps_size': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.5,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.500 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'The objects it walks were made during the run, not at start-up: the heap '
                 "held 1,024 memory blocks when start-up ended (the program's first yield to "
                 'the loop) and up to 2,048 when full collections began, as data in flight '
                 '(parsed documents, request state) piled up, which gc.freeze() at start-up '
                 'cannot reach. Fix: hold fewer of them at once (fewer big documents in '
                 'flight together, keep only what you need of each and drop the rest), or '
                 'collect less often (gc.set_threshold with larger thresholds). [cost 0.750 '
                 's: greenlet-seconds other greenlets spent ready to run but held up by '
                 'these slices, which the garbage collector mostly filled, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 "emptied), plus the collector's share of the rest of the queueing (its time "
                 "in shorter slices over the loop's busy time)]",
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.75,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.750 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'Fix: call gc.freeze() once start-up has built its long-lived objects '
                 '(caches, parsed configuration, imported modules; in a pre-fork server, '
                 'before forking): later collections skip them. Or collect less often '
                 '(gc.set_threshold with a larger first threshold), or keep big caches out '
                 "of the collector's sight (fewer, larger objects: bytes or arrays rather "
                 'than dicts and lists). [cost 0.750 s: greenlet-seconds other greenlets '
                 'spent ready to run but held up by these slices, which the garbage '
                 'collector mostly filled, and in the backlog they left (the ready queue '
                 "above its usual length until it next emptied), plus the collector's share "
                 "of the rest of the queueing (its time in shorter slices over the loop's "
                 'busy time)]',
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.75,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.750 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'The objects it walks were made during the run, not at start-up: its first '
                 'long full collection took 0.125 s and its longest 0.500 s, as data in '
                 'flight (parsed documents, request state) piled up, which gc.freeze() at '
                 'start-up cannot reach. Fix: hold fewer of them at once (fewer big '
                 'documents in flight together, keep only what you need of each and drop the '
                 'rest), or collect less often (gc.set_threshold with larger thresholds). '
                 '[cost 0.750 s: greenlet-seconds other greenlets spent ready to run but '
                 'held up by these slices, which the garbage collector mostly filled, and in '
                 'the backlog they left (the ready queue above its usual length until it '
                 "next emptied), plus the collector's share of the rest of the queueing (its "
                 "time in shorter slices over the loop's busy time)]",
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_saturated_tells_the_cpu_of_the_holders_that_queued_others': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 0.75, 'app.parse': 0.25},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x1: ran 1.000 s while 0.8 "
                 'others were ready on average, 0.750 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); inside sections 'xml' (0.500 greenlet-s), "
                 "'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU samples put 50% "
                 'of their sampled CPU (9 samples in all) at /srv/app/worker.py:40:handler, '
                 'and next 50% in parse (/srv/app/worker.py), most at line 50; the slices '
                 'that delayed most ended at /srv/app/worker.py:30:crunch, where they '
                 'yielded. The cure is on the CPU side, not the I/O side: less work per '
                 'request in these greenlets (compute once what is the same from request to '
                 'request and keep it: a verified credential or key, a compiled pattern or '
                 'template, a parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list searched inside '
                 'a loop, a sort or copy repeated), fewer greenlets per process and more '
                 'processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 0.75, 'app.parse': 0.2499990463256836},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x1: ran 1.000 s while 0.8 "
                 'others were ready on average, 0.750 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); inside sections 'xml' (0.500 greenlet-s), "
                 "'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU samples put 100% "
                 'of their sampled CPU (5 samples in all) at /srv/app/worker.py:40:handler; '
                 'the slices that delayed most ended at /srv/app/worker.py:30:crunch, where '
                 'they yielded. The cure is on the CPU side, not the I/O side: less work per '
                 'request in these greenlets (compute once what is the same from request to '
                 'request and keep it: a verified credential or key, a compiled pattern or '
                 'template, a parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list searched inside '
                 'a loop, a sort or copy repeated), fewer greenlets per process and more '
                 'processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'slices_seen_by_the_stall_watch': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'blocking_s': 1.0,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 1.0,
      'count': 2,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "2 greenlets named 'app.fetch' held the loop 1.000 s without yielding (2 "
                 'slices over 0.0625 s, longest 0.500 s), while others were ready to run: '
                 '1.000 greenlet-seconds of their waiting (one waited up to 0.500 s). 1.000 '
                 's of it was off the CPU in a non-cooperative call (time.sleep unpatched, '
                 'file or DNS I/O, a lock, a child process waited for with os.system or '
                 'os.popen, a C library doing its own network I/O): looks at the thread '
                 'while it held the loop found it at /srv/app/worker.py:32:keeper (6 of 8); '
                 'the slices ended at /srv/app/worker.py:31:keeper, where they yielded. Fix: '
                 'monkey-patch first (gevent.monkey.patch_all() before other imports), use '
                 'the cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or '
                 'run it in gevent.get_hub().threadpool. [cost 1.000 s: greenlet-seconds '
                 'other greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 1.0,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/socket.py:706:readinto', '/srv/app/worker.py:32:keeper'],
      'stack_is': 'stall-look',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); looks at the '
                 'thread while it held the loop found it at /srv/app/worker.py:32:keeper (3 '
                 'of 4); the slice ended at /srv/app/worker.py:31:keeper, where it yielded. '
                 'Fix: first make that code cheaper (one line burning the CPU this long is '
                 'often work that grows with the square of its input: += on bytes or str in '
                 'a loop, a list searched inside a loop, a sort or copy repeated); then '
                 'split what must stay expensive and yield between pieces of a millisecond '
                 'or two with gevent.idle() (it resumes once the loop has run what is '
                 'pending, the I/O of waiting greenlets included: suited to background work) '
                 'or gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), '
                 'not gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.750 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/socket.py:706:readinto', '/srv/app/worker.py:32:keeper'],
      'stack_is': 'stall-look',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '75% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:31:keeper, where it yielded. Fix: '
                 'first make that code cheaper (one line burning the CPU this long is often '
                 'work that grows with the square of its input: += on bytes or str in a '
                 'loop, a list searched inside a loop, a sort or copy repeated); then split '
                 'what must stay expensive and yield between pieces of a millisecond or two '
                 'with gevent.idle() (it resumes once the loop has run what is pending, the '
                 'I/O of waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and '
                 'gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.750 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': None,
      'cause': 'unknown',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': None,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). Looks at the thread while it held the loop found it '
                 'at /srv/app/worker.py:32:keeper (3 of 4); the slice ended at '
                 '/srv/app/worker.py:31:keeper, where it yielded; CPU and blocking cannot be '
                 'told apart (cpu_clock=False): profile with cpu_clock=True. [cost 0.750 s: '
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual '
                 'length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/socket.py:706:readinto', '/srv/app/worker.py:32:keeper'],
      'stack_is': 'stall-look',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.5,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). 0.500 s of it was off the CPU in a non-cooperative '
                 'call (time.sleep unpatched, file or DNS I/O, a lock, a child process '
                 'waited for with os.system or os.popen, a C library doing its own network '
                 'I/O) made before the slice ended at /srv/app/worker.py:31:keeper (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). Fix: monkey-patch '
                 'first (gevent.monkey.patch_all() before other imports), use the '
                 'cooperative call (gevent.sleep, gevent.socket, gevent.subprocess), or run '
                 'it in gevent.get_hub().threadpool. [cost 0.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up while the call blocked the '
                 'thread, and in the backlog it left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:31:keeper'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'gil_contended_by_threads_of_the_programs_own': [{'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while the '
                      "loop's thread waited for the interpreter lock",
      'cost_s': 0.875,
      'function': None,
      'greenlet': None,
      'hazard': False,
      'kind': 'gil-contended',
      'message': "The loop's thread waited for the GIL: while running greenlets and the hub it "
                 'was off the CPU 0.875 s (44% of the run; not waiting for a CPU, not in a '
                 'cooperative wait) while other threads of the process used 0.438 s of CPU: not '
                 "gevent's threadpool, but threads the program or a library started (threading's "
                 'original Thread, or _thread). A thread running Python holds the interpreter '
                 "lock the loop's thread needs to run anything, and lets go of it only every few "
                 'milliseconds, so greenlets queued: up to 0.875 greenlet-seconds of their ready '
                 'wait. Fix: run CPU-heavy Python in processes (a '
                 'concurrent.futures.ProcessPoolExecutor, multiprocessing), not in threads '
                 'beside the loop. [cost 0.875 s: greenlet-seconds other greenlets spent ready '
                 "to run but held up while the loop's thread waited for the interpreter lock]",
      'off_cpu_s': 0.875,
      'section': None,
      'site': None,
      'stack': [],
      'threads_cpu_s': 0.4375},
     {'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while the '
                      "loop's thread waited for the interpreter lock",
      'cost_s': 0.875,
      'function': None,
      'greenlet': None,
      'hazard': False,
      'kind': 'gil-contended',
      'message': "The loop's thread waited for the GIL: while running greenlets and the hub it "
                 'was off the CPU 0.875 s (44% of the run; not waiting for a CPU, not in a '
                 'cooperative wait) while other threads of the process used 0.438 s of CPU: not '
                 "gevent's threadpool, but threads the program or a library started (threading's "
                 'original Thread, or _thread). A thread running Python holds the interpreter '
                 "lock the loop's thread needs to run anything, and lets go of it only every few "
                 'milliseconds, so greenlets queued: up to 0.875 greenlet-seconds of their ready '
                 'wait. Fix: run CPU-heavy Python in processes (a '
                 'concurrent.futures.ProcessPoolExecutor, multiprocessing), not in threads '
                 'beside the loop. [cost 0.875 s: greenlet-seconds other greenlets spent ready '
                 "to run but held up while the loop's thread waited for the interpreter lock]",
      'off_cpu_s': 0.875,
      'section': None,
      'site': None,
      'stack': [],
      'threads_cpu_s': 0.4375}],
    'connection_churn_takes_the_share_of_connections_past_the_peak': [{'bound_concurrency': False,
      'churn_share': 0.625,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 0.9375,
      'fix_pool_maxsize': 32,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for https://a:443 "
                 'keeps 4 connections (pool_maxsize), but up to 16 requests were in flight '
                 'to it at once. It discarded 60 connections that came back to the full '
                 'pool, and the next requests opened new ones: 64 opened, 48 more than a '
                 'pool of 16 would have (a connect and a TLS handshake each); http://b:80: '
                 'size 8, up to 32 in flight, 32 discarded; most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 62% of that '
                 'is the churn. Fix: a pool as large as the requests in flight: '
                 "geventperf.mount(session, pool_maxsize=32), or session.mount('https://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=32)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 0.938 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.625,
      'peak_in_use': 16,
      'pool_maxsize': 4,
      'pools': ['https://a:443', 'http://b:80'],
      'reopened': 80,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'connection_churn_not_for_few_reopened_or_short_waits': [],
    'connection_churn_at_the_edges': [{'bound_concurrency': False,
      'churn_share': 0.5,
      'connect_wait_s': 0.125,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 0.0625,
      'fix_pool_maxsize': 16,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for http://a:80 "
                 'keeps 4 connections (pool_maxsize), but up to 16 requests were in flight '
                 'to it at once. It discarded 10 connections that came back to the full '
                 'pool, and the next requests opened new ones: 32 opened, 16 more than a '
                 'pool of 16 would have (a connect each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.125 s was spent '
                 'waiting to open connections; 50% of that is the churn. Fix: a pool as '
                 'large as the requests in flight: geventperf.mount(session, '
                 "pool_maxsize=16), or session.mount('http://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=16)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 0.062 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.0,
      'peak_in_use': 16,
      'pool_maxsize': 4,
      'pools': ['http://a:80'],
      'reopened': 16,
      'section': None,
      'setup_cpu_share': None,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'bound_concurrency': False,
      'churn_share': 0.38461538461538464,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 0.576923076923077,
      'fix_pool_maxsize': 16,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for http://a:80 "
                 'keeps 4 connections (pool_maxsize), but up to 16 requests were in flight '
                 'to it at once. It discarded 60 connections that came back to the full '
                 'pool, and the next requests opened new ones: 26 opened, 10 more than a '
                 'pool of 16 would have (a connect each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 38% of that '
                 'is the churn. Fix: a pool as large as the requests in flight: '
                 "geventperf.mount(session, pool_maxsize=16), or session.mount('http://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=16)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 0.577 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.38461538461538464,
      'peak_in_use': 16,
      'pool_maxsize': 4,
      'pools': ['http://a:80'],
      'reopened': 10,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'loop_saturated_leaves_the_churn_its_queueing': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 2.953125,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 2.953 '
                 'greenlet-seconds ready to run but queued (besides the 0.547 s the long '
                 'slices, slow paths and waits for a CPU reported apart caused), against '
                 "0.500 s waiting for I/O, timers or locks. Who held the loop: 'app.fetch' "
                 '(x2: ran 1.500 s while 1.3 others were ready on average, 2.000 greenlet-s '
                 "of their waiting); 'app.parse' (x1: ran 0.125 s while 2.0 others were "
                 "ready on average, 0.250 greenlet-s of their waiting); 'main' (x1: ran "
                 '0.250 s while 0.5 others were ready on average, 0.125 greenlet-s of their '
                 "waiting); inside sections 'xml' (0.500 greenlet-s), 'json' (0.375 "
                 "greenlet-s), 'csv' (0.250 greenlet-s); the slices that delayed most ended "
                 'at /srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). [cost 2.953 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 2.953125,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'connection_leak_counts_what_the_live_greenlets_cannot_hold': [{'alive_at_end': 16,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections opened that were never returned to their '
                      'pool (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.375,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-leak',
      'leak_share': 0.25,
      'leaked': 32,
      'message': 'Connections never returned to their pool: 48 connections checked out of '
                 "urllib3's pools (most for https://a:443) were still out when tracing "
                 'stopped, 32 more than the 16 greenlets still alive could have been '
                 'reading. A response made with stream=True keeps its connection until its '
                 'body is read to the end or it is closed; the pool opens a new connection '
                 'for the next request instead (128 made for 512 requests, a connect and a '
                 'TLS handshake each), and the lost ones stay open until garbage-collected, '
                 'holding a file descriptor here and a connection slot on the server. The '
                 'pool blocks (pool_block=True): once its connections are all out, every '
                 'request waits for one that never comes back. Most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 25% of that '
                 'is the leak. Fix: read every streamed body to the end (response.content, '
                 'or iter_content until it stops): its connection then goes back to the pool '
                 'for the next request. Where a body is not wanted, do not stream it, or '
                 'close the response (`with session.get(url, stream=True) as response:`, or '
                 'response.close() in a finally): that ends the leak, but closing an unread '
                 'body closes its socket too, so the next request connects again. [cost '
                 '0.375 s: the share of connections opened that were never returned to their '
                 'pool (over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.25,
      'pools': ['https://a:443', 'http://b:80'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session'],
      'unreturned': 48}],
    'connection_leak_not_within_the_live_greenlets_or_few': [],
    'connection_leak_at_the_edges': [{'alive_at_end': 16,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections opened that were never returned to their '
                      'pool (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.234375,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-leak',
      'leak_share': 0.15625,
      'leaked': 10,
      'message': 'Connections never returned to their pool: 26 connections checked out of '
                 "urllib3's pools (most for http://a:80) were still out when tracing "
                 'stopped, 10 more than the 16 greenlets still alive could have been '
                 'reading. A response made with stream=True keeps its connection until its '
                 'body is read to the end or it is closed; the pool opens a new connection '
                 'for the next request instead (64 made for 256 requests, a connect each), '
                 'and the lost ones stay open until garbage-collected, holding a file '
                 'descriptor here and a connection slot on the server. Most were opened '
                 'under /srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 16% of that '
                 'is the leak. Fix: read every streamed body to the end (response.content, '
                 'or iter_content until it stops): its connection then goes back to the pool '
                 'for the next request. Where a body is not wanted, do not stream it, or '
                 'close the response (`with session.get(url, stream=True) as response:`, or '
                 'response.close() in a finally): that ends the leak, but closing an unread '
                 'body closes its socket too, so the next request connects again. [cost '
                 '0.234 s: the share of connections opened that were never returned to their '
                 'pool (over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.15625,
      'pools': ['http://a:80'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session'],
      'unreturned': 26},
     {'alive_at_end': 0,
      'connect_wait_s': 0,
      'cost_meaning': 'the share of connections opened that were never returned to their '
                      'pool (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.625,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-leak',
      'leak_share': 0.625,
      'leaked': 40,
      'message': 'Connections never returned to their pool: 40 connections checked out of '
                 "urllib3's pools (most for https://a:443) were still out when tracing "
                 'stopped, and no greenlet was still alive to be reading them. A response '
                 'made with stream=True keeps its connection until its body is read to the '
                 'end or it is closed; the pool opens a new connection for the next request '
                 'instead (64 made for 256 requests, a connect and a TLS handshake each), '
                 'and the lost ones stay open until garbage-collected, holding a file '
                 'descriptor here and a connection slot on the server. 0.000 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 62% of that '
                 'is the leak. Fix: read every streamed body to the end (response.content, '
                 'or iter_content until it stops): its connection then goes back to the pool '
                 'for the next request. Where a body is not wanted, do not stream it, or '
                 'close the response (`with session.get(url, stream=True) as response:`, or '
                 'response.close() in a finally): that ends the leak, but closing an unread '
                 'body closes its socket too, so the next request connects again. [cost '
                 '0.625 s: the share of connections opened that were never returned to their '
                 'pool (over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.625,
      'pools': ['https://a:443'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': None,
      'stack': [],
      'unreturned': 40},
     {'alive_at_end': 0,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections opened that were never returned to their '
                      'pool (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 1.5,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-leak',
      'leak_share': 1.0,
      'leaked': 12,
      'message': 'Connections never returned to their pool: 40 connections checked out of '
                 "urllib3's pools (most for http://a:80) were still out when tracing "
                 'stopped, and no greenlet was still alive to be reading them. A response '
                 'made with stream=True keeps its connection until its body is read to the '
                 'end or it is closed; the pool opens a new connection for the next request '
                 'instead (12 made for 48 requests, a connect each), and the lost ones stay '
                 'open until garbage-collected, holding a file descriptor here and a '
                 'connection slot on the server. Most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 100% of that '
                 'is the leak. Fix: read every streamed body to the end (response.content, '
                 'or iter_content until it stops): its connection then goes back to the pool '
                 'for the next request. Where a body is not wanted, do not stream it, or '
                 'close the response (`with session.get(url, stream=True) as response:`, or '
                 'response.close() in a finally): that ends the leak, but closing an unread '
                 'body closes its socket too, so the next request connects again. [cost '
                 '1.500 s: the share of connections opened that were never returned to their '
                 'pool (over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 1.0,
      'pools': ['http://a:80'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session'],
      'unreturned': 40},
     {'alive_at_end': 5,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections opened that were never returned to their '
                      'pool (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.234375,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-leak',
      'leak_share': 0.15625,
      'leaked': 10,
      'message': 'Connections never returned to their pool: 15 connections checked out of '
                 "urllib3's pools (most for http://a:80) were still out when tracing "
                 'stopped, 10 more than the 5 greenlets still alive could have been reading. '
                 'A response made with stream=True keeps its connection until its body is '
                 'read to the end or it is closed; the pool opens a new connection for the '
                 'next request instead (64 made for 256 requests, a connect each), and the '
                 'lost ones stay open until garbage-collected, holding a file descriptor '
                 'here and a connection slot on the server. Most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 16% of that '
                 'is the leak. Fix: read every streamed body to the end (response.content, '
                 'or iter_content until it stops): its connection then goes back to the pool '
                 'for the next request. Where a body is not wanted, do not stream it, or '
                 'close the response (`with session.get(url, stream=True) as response:`, or '
                 'response.close() in a finally): that ends the leak, but closing an unread '
                 'body closes its socket too, so the next request connects again. [cost '
                 '0.234 s: the share of connections opened that were never returned to their '
                 'pool (over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.15625,
      'pools': ['http://a:80'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session'],
      'unreturned': 15}],
    'loop_saturated_leaves_the_leak_its_queueing': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.28125,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.281 '
                 'greenlet-seconds ready to run but queued (besides the 0.219 s the long '
                 'slices, slow paths and waits for a CPU reported apart caused), against '
                 "0.500 s waiting for I/O, timers or locks. Who held the loop: 'app.fetch' "
                 '(x2: ran 1.500 s while 1.3 others were ready on average, 2.000 greenlet-s '
                 "of their waiting); 'app.parse' (x1: ran 0.125 s while 2.0 others were "
                 "ready on average, 0.250 greenlet-s of their waiting); 'main' (x1: ran "
                 '0.250 s while 0.5 others were ready on average, 0.125 greenlet-s of their '
                 "waiting); inside sections 'xml' (0.500 greenlet-s), 'json' (0.375 "
                 "greenlet-s), 'csv' (0.250 greenlet-s); the slices that delayed most ended "
                 'at /srv/app/worker.py:30:crunch. The cure is on the CPU side, not the I/O '
                 'side: less work per request in these greenlets (compute once what is the '
                 'same from request to request and keep it: a verified credential or key, a '
                 'compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). [cost 3.281 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.28125,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'requests_failed_by_error_with_its_story': [{'calls': 12,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.5,
      'errors': {'NewConnectionError': 2, 'ProtocolError': 2, 'ReadTimeoutError': 6},
      'failed': 10,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 10 of 12 requests raised instead of answering '
                 '(ReadTimeoutError x6, ProtocolError x2, NewConnectionError x2), after '
                 '0.250 s each on average: 2.500 greenlet-seconds spent in requests that got '
                 'no answer (https://a:443: 8 of 10, 2.000 s; http://b:80: 2 of 2, 0.500 s), '
                 'most made at /srv/app/worker.py:40:call. The upstream did not answer '
                 'within the read timeout (0.25 s): it is slower than the timeout allows (a '
                 'timeout too short for it, or an upstream that needs fixing) or it is down, '
                 'and then a circuit breaker stops paying the timeout on every call; the '
                 'upstream closed or reset the connection mid-request: a kept-alive '
                 'connection it had already closed (its idle timeout shorter than the '
                 "client's reuse), or it crashed; no connection could be made: refused "
                 '(nothing listening) or the host unreachable; each attempt fails at once, '
                 'so retries and callers that try again add up. That time bought no answer: '
                 "the fix is on the upstream's side, or in the timeout, retries and fallback "
                 'the calls give it. [cost 2.500 s: greenlet-seconds spent inside requests '
                 'that raised (a timeout, a refused or reset connection) instead of '
                 "answering; urllib3's retry back-off inside them is retry-backoff's figure "
                 'too]',
      'pools': ['https://a:443', 'http://b:80'],
      'read_timeout_s': 0.25,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': False}],
    'requests_failed_not_under_the_threshold': [],
    'requests_failed_at_the_edges': [{'calls': 3,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 0.0625,
      'errors': {'Timeout': 1, 'WeirdError': 1},
      'failed': 3,
      'greenlet': None,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 3 of 3 requests raised instead of answering (Timeout x1, '
                 'WeirdError x1), after 0.021 s each on average: 0.062 greenlet-seconds '
                 'spent in requests that got no answer (http://a:80: 2 of 2, 0.062 s; '
                 'http://b:80: 1 of 1, 0.000 s). A gevent.Timeout around the call expired '
                 'first: the upstream was slower than the time the program gave it; '
                 'WeirdError was raised. That time bought no answer: the fix is on the '
                 "upstream's side, or in the timeout, retries and fallback the calls give "
                 'it. [cost 0.062 s: greenlet-seconds spent inside requests that raised (a '
                 "timeout, a refused or reset connection) instead of answering; urllib3's "
                 "retry back-off inside them is retry-backoff's figure too]",
      'pools': ['http://a:80', 'http://b:80'],
      'read_timeout_s': None,
      'section': None,
      'site': None,
      'stack': [],
      'timeout_near_latency': False}],
    'session_per_request_by_new_pools': [{'avoidable': 38,
      'connect_wait_s': 0.5,
      'connections': 48,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.890625,
      'evicted': False,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'A new connection pool for every request: greenlets made their requests to '
                 'http://a:80 through 48 different urllib3 pools (one per requests.Session '
                 'or adapter made; most opened connections under '
                 '/srv/app/worker.py:30:with_a_session), so nothing was kept alive: 48 '
                 'connections opened for 192 requests, 38 more than one shared pool would '
                 'have kept (the most in flight at once: 8). 0.500 s was spent waiting to '
                 'open connections; 25% of the sampled CPU set connections up and closed '
                 'them, which queued the others about 1.000 greenlet-s; 59% of that is the '
                 'new pools. Fix: create one requests.Session (or geventperf.Session) per '
                 'worker or per process and reuse it for every call, not one per call (a '
                 '`with requests.Session() as s:` around each request); its kept-alive '
                 'connections skip the lookup, the connect and the set-up. [cost 0.891 s: '
                 'the share of connections opened past what one shared pool would have kept '
                 '(over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'new_pools_share': 0.59375,
      'others_ready_wait_s': 0.59375,
      'peak_in_use': 8,
      'pools': ['http://a:80'],
      'pools_made': 48,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'session_per_request_not_by_a_few_pools': [],
    'session_per_request_by_new_pools_at_the_edges': [{'avoidable': 10,
      'connect_wait_s': 0.5,
      'connections': 20,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 0.75,
      'evicted': False,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'A new connection pool for every request: greenlets made their requests to '
                 'http://a:80 through 16 different urllib3 pools (one per requests.Session '
                 'or adapter made; most opened connections under '
                 '/srv/app/worker.py:30:with_a_session), so nothing was kept alive: 20 '
                 'connections opened for 80 requests, 10 more than one shared pool would '
                 'have kept (the most in flight at once: 8). 0.500 s was spent waiting to '
                 'open connections; 25% of the sampled CPU set connections up and closed '
                 'them, which queued the others about 1.000 greenlet-s; 50% of that is the '
                 'new pools. Fix: create one requests.Session (or geventperf.Session) per '
                 'worker or per process and reuse it for every call, not one per call (a '
                 '`with requests.Session() as s:` around each request); its kept-alive '
                 'connections skip the lookup, the connect and the set-up. [cost 0.750 s: '
                 'the share of connections opened past what one shared pool would have kept '
                 '(over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'new_pools_share': 0.5,
      'others_ready_wait_s': 0.5,
      'peak_in_use': 8,
      'pools': ['http://a:80'],
      'pools_made': 16,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'avoidable': 38,
      'connect_wait_s': 0.5,
      'connections': 48,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 1.1875,
      'evicted': False,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'A new connection pool for every request: greenlets made their requests to '
                 'http://a:80 through 10 different urllib3 pools (one per requests.Session '
                 'or adapter made; most opened connections under '
                 '/srv/app/worker.py:30:with_a_session), so nothing was kept alive: 48 '
                 'connections opened for 192 requests, 38 more than one shared pool would '
                 'have kept (the most in flight at once: 5). 0.500 s was spent waiting to '
                 'open connections; 25% of the sampled CPU set connections up and closed '
                 'them, which queued the others about 1.000 greenlet-s; 79% of that is the '
                 'new pools. Fix: create one requests.Session (or geventperf.Session) per '
                 'worker or per process and reuse it for every call, not one per call (a '
                 '`with requests.Session() as s:` around each request); its kept-alive '
                 'connections skip the lookup, the connect and the set-up. [cost 1.188 s: '
                 'the share of connections opened past what one shared pool would have kept '
                 '(over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'new_pools_share': 0.7916666666666666,
      'others_ready_wait_s': 0.7916666666666666,
      'peak_in_use': 5,
      'pools': ['http://a:80'],
      'pools_made': 10,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'threadpool_leaves_a_connection_finding_its_lookups': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.03125,
      'default_pool': True,
      'depth_max': 5,
      'depth_mean': 1.1666666666666667,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 1.0,
      'dns_run_s': 3.0,
      'explained_by_connections_s': 0.46875,
      'fix': 'fewer new connections: one Session shared by the greenlets, its pool as large '
             'as the requests in flight at once '
             '(requests.adapters.HTTPAdapter(pool_maxsize=...) mounted on it); or '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 6 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '2 greenlet(s)',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                     'tasks': 8},
                    {'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.25,
                     'queued_s': 0.5,
                     'run_s': 1.0,
                     'site': None,
                     'tasks': 4}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 12 of 12 task(s) found "
                 'every worker busy, and tasks queued 1.500 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 5 task(s) ahead, 1.2 on '
                 'average). Queued: getaddrinfo x8 (DNS): queued 1.000 s, ran 3.000 s in '
                 'worker threads (0.375 s each), spawned by 2 greenlet(s), called at '
                 '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection; '
                 'work x4: queued 0.500 s, ran 1.000 s in worker threads (0.250 s each). DNS '
                 'resolution is the cause: lookups ran 3.000 of the 4.000 worker-seconds '
                 "that kept the pool busy (gevent's thread resolver runs every getaddrinfo "
                 "on this pool). 6 of the lookups opened new connections (urllib3's "
                 'create_connection); a reused, kept-alive connection needs none. 0.469 s of '
                 'the queueing was for lookups of connections opened again (62% of them, '
                 'connection-churn): counted there. Fix: fewer new connections: one Session '
                 'shared by the greenlets, its pool as large as the requests in flight at '
                 'once (requests.adapters.HTTPAdapter(pool_maxsize=...) mounted on it); or '
                 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool, or cache the lookups; or a bigger pool: '
                 'gevent.get_hub().threadpool.maxsize = 6 (before the burst). Cost: '
                 'greenlet-seconds tasks spent queued for a free worker thread of this pool: '
                 'from ThreadPool.spawn until a worker started them, summed over the tasks '
                 "(less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.5,
      'run_s': 4.0,
      'saturated_tasks': 12,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection'],
      'suggested_maxsize': 6,
      'tasks': 12,
      'tasks_waited': False}],
    'connection_findings_read_no_shape_in_folded_hosts': [{'bound_concurrency': False,
      'churn_share': 0.84375,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.265625,
      'fix_pool_maxsize': 11,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for http://a:80 "
                 'keeps 10 connections (pool_maxsize), but up to 3 requests were in flight '
                 'to it at once. It discarded 40 connections that came back to the full '
                 'pool, and the next requests opened new ones: 64 opened, 54 more than a '
                 'pool of 3 would have (a connect each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 84% of that '
                 'is the churn. Fix: a pool as large as the requests in flight: '
                 "geventperf.mount(session, pool_maxsize=11), or session.mount('http://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=11)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 1.266 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.84375,
      'peak_in_use': 3,
      'pool_maxsize': 10,
      'pools': ['http://a:80'],
      'reopened': 54,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'avoidable': 418,
      'connect_wait_s': 0.5,
      'connections': 528,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 1.1875,
      'evicted': True,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'Connection pools closed and made again: the program reached 11 hosts, and '
                 "a requests Session's PoolManager keeps pools for 10 of them "
                 '(pool_connections), closing the least recently used with its kept-alive '
                 'connections. Greenlets made their requests to http://h0:80 through 48 '
                 'pools for 192 requests (most opened connections under '
                 '/srv/app/worker.py:30:with_a_session): 48 connections opened, 38 more than '
                 'one kept pool would have (the most in flight at once: 8). 0.500 s was '
                 'spent waiting to open connections; 25% of the sampled CPU set connections '
                 'up and closed them, which queued the others about 1.000 greenlet-s; 79% of '
                 'that is the pools made again. Fix: raise pool_connections to the hosts the '
                 "Session reaches: session.mount('http://', "
                 'requests.adapters.HTTPAdapter(pool_connections=11, pool_maxsize=...)) with '
                 'the pool_maxsize it has now (or geventperf.mount(session, '
                 'pool_connections=...)); and if a Session is also made per call, make one '
                 'per worker or per process. [cost 1.188 s: the share of connections opened '
                 'past what one shared pool would have kept (over all opened), of the '
                 "greenlet-seconds spent waiting to open connections plus the run's ready "
                 'wait times the share of the sampled CPU that set connections up (none '
                 'without CPU samples)]',
      'new_pools_share': 0.7916666666666666,
      'others_ready_wait_s': 0.7916666666666666,
      'peak_in_use': 8,
      'pools': ['http://h0:80',
                'http://h1:80',
                'http://h2:80',
                'http://h3:80',
                'http://h4:80',
                'http://h5:80',
                'http://h6:80',
                'http://h7:80',
                'http://h8:80',
                'http://h9:80',
                'http://h10:80'],
      'pools_made': 528,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'threadpool_explains_no_more_than_it_queued': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 0.53125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 1.0,
      'dns_run_s': 3.0,
      'explained_by_connections_s': 0.46875,
      'fix': 'fewer new connections: one Session shared by the greenlets, its pool as large '
             'as the requests in flight at once '
             '(requests.adapters.HTTPAdapter(pool_maxsize=...) mounted on it); or '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
             'threadpool, or cache the lookups; or a bigger pool: '
             'gevent.get_hub().threadpool.maxsize = 4 (before the burst)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                     'tasks': 8}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 8 of 8 task(s) found "
                 'every worker busy, and tasks queued 1.000 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on '
                 'average). Queued: getaddrinfo x8 (DNS): queued 1.000 s, ran 3.000 s in '
                 'worker threads (0.375 s each), called at '
                 '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection. '
                 'DNS resolution is the cause: lookups ran 3.000 of the 3.000 worker-seconds '
                 "that kept the pool busy (gevent's thread resolver runs every getaddrinfo "
                 "on this pool). 6 of the lookups opened new connections (urllib3's "
                 'create_connection); a reused, kept-alive connection needs none. 0.469 s of '
                 'the queueing was for lookups of connections opened again (62% of them, '
                 'connection-churn): counted there. Fix: fewer new connections: one Session '
                 'shared by the greenlets, its pool as large as the requests in flight at '
                 'once (requests.adapters.HTTPAdapter(pool_maxsize=...) mounted on it); or '
                 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool, or cache the lookups; or a bigger pool: '
                 'gevent.get_hub().threadpool.maxsize = 4 (before the burst). Cost: '
                 'greenlet-seconds tasks spent queued for a free worker thread of this pool: '
                 'from ThreadPool.spawn until a worker started them, summed over the tasks '
                 "(less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0,
      'run_s': 3.0,
      'saturated_tasks': 8,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection'],
      'suggested_maxsize': 4,
      'tasks': 8,
      'tasks_waited': False}],
    'delayed_ack_stall_on_reused_connections_only': [{'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.3125,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'lost_s': 0.3125,
                 'new': 4,
                 'new_ms': 15.625,
                 'pool': 'http://a:80',
                 'request_ms': 132.8125,
                 'reused': 16,
                 'stall_ms': 41.666666666666664,
                 'stalled': 12}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://a:80, 12 of 16 bodies on reused connections '
                 'came 42 ms after their head on average, against 15.6 ms on 4 new '
                 'connections (a request on a reused one took 133 ms on average, head and '
                 'body). 0.312 greenlet-seconds were spent waiting for those bodies, at '
                 "/srv/app/worker.py:40:call. The upstream writes each response's head and "
                 "body in separate TCP segments with Nagle's algorithm on, so it sends the "
                 'body only once the head is acknowledged, and this side delays that ACK (40 '
                 'ms on Linux) on a kept-alive connection; a new connection is acknowledged '
                 'at once, which is why a Session made per call looks faster. Fix it at the '
                 'upstream: TCP_NODELAY on its sockets, or the head and body written in one '
                 "send (gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle "
                 'on: give it a listening socket with TCP_NODELAY set, which the accepted '
                 'ones inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.312 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/http/client.py:473:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1029:HTTPResponse._fp_read',
                '/venv/lib/python3.11/site-packages/requests/models.py:1042:Response.content',
                '/srv/app/worker.py:40:call'],
      'stall_window_s': [0.035, 0.25]}],
    'delayed_ack_stall_at_the_edges': [{'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.0625,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'lost_s': 0.0625,
                 'new': 3,
                 'new_ms': 31.25,
                 'pool': 'http://a:80',
                 'request_ms': 25.0,
                 'reused': 20,
                 'stall_ms': 37.5,
                 'stalled': 10}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://a:80, 10 of 20 bodies on reused connections '
                 'came 38 ms after their head on average, against 31.2 ms on 3 new '
                 'connections (a request on a reused one took 25 ms on average, head and '
                 'body). 0.062 greenlet-seconds were spent waiting for those bodies, at '
                 "/srv/app/worker.py:40:call. The upstream writes each response's head and "
                 "body in separate TCP segments with Nagle's algorithm on, so it sends the "
                 'body only once the head is acknowledged, and this side delays that ACK (40 '
                 'ms on Linux) on a kept-alive connection; a new connection is acknowledged '
                 'at once, which is why a Session made per call looks faster. Fix it at the '
                 'upstream: TCP_NODELAY on its sockets, or the head and body written in one '
                 "send (gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle "
                 'on: give it a listening socket with TCP_NODELAY set, which the accepted '
                 'ones inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.062 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/http/client.py:473:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1029:HTTPResponse._fp_read',
                '/venv/lib/python3.11/site-packages/requests/models.py:1042:Response.content',
                '/srv/app/worker.py:40:call'],
      'stall_window_s': [0.035, 0.25]},
     {'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.34375,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'lost_s': 0.34375,
                 'new': 4,
                 'new_ms': 15.625,
                 'pool': 'http://b:80',
                 'request_ms': 50.0,
                 'reused': 10,
                 'stall_ms': 50.0,
                 'stalled': 10}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://b:80, 10 of 10 bodies on reused connections '
                 'came 50 ms after their head on average, against 15.6 ms on 4 new '
                 'connections (a request on a reused one took 50 ms on average, head and '
                 'body). 0.344 greenlet-seconds were spent waiting for those bodies, at '
                 "/srv/app/worker.py:40:call. The upstream writes each response's head and "
                 "body in separate TCP segments with Nagle's algorithm on, so it sends the "
                 'body only once the head is acknowledged, and this side delays that ACK (40 '
                 'ms on Linux) on a kept-alive connection; a new connection is acknowledged '
                 'at once, which is why a Session made per call looks faster. Fix it at the '
                 'upstream: TCP_NODELAY on its sockets, or the head and body written in one '
                 "send (gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle "
                 'on: give it a listening socket with TCP_NODELAY set, which the accepted '
                 'ones inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.344 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/http/client.py:473:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1029:HTTPResponse._fp_read',
                '/venv/lib/python3.11/site-packages/requests/models.py:1042:Response.content',
                '/srv/app/worker.py:40:call'],
      'stall_window_s': [0.035, 0.25]},
     {'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'lost_s': 0.5,
                 'new': 4,
                 'new_ms': 0.0,
                 'pool': 'http://c:80',
                 'request_ms': 500.0,
                 'reused': 10,
                 'stall_ms': 50.0,
                 'stalled': 10}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://c:80, 10 of 10 bodies on reused connections '
                 'came 50 ms after their head on average, against 0.0 ms on 4 new '
                 'connections (a request on a reused one took 500 ms on average, head and '
                 'body). 0.500 greenlet-seconds were spent waiting for those bodies, at '
                 "/srv/app/worker.py:40:call. The upstream writes each response's head and "
                 "body in separate TCP segments with Nagle's algorithm on, so it sends the "
                 'body only once the head is acknowledged, and this side delays that ACK (40 '
                 'ms on Linux) on a kept-alive connection; a new connection is acknowledged '
                 'at once, which is why a Session made per call looks faster. Fix it at the '
                 'upstream: TCP_NODELAY on its sockets, or the head and body written in one '
                 "send (gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle "
                 'on: give it a listening socket with TCP_NODELAY set, which the accepted '
                 'ones inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.500 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/http/client.py:473:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1029:HTTPResponse._fp_read',
                '/venv/lib/python3.11/site-packages/requests/models.py:1042:Response.content',
                '/srv/app/worker.py:40:call'],
      'stall_window_s': [0.035, 0.25]}],
    'delayed_ack_stall_not_below_its_edges': [{'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.21249904632568356,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'lost_s': 0.14999999999999997,
                 'new': 4,
                 'new_ms': 62.5,
                 'pool': 'http://l:80',
                 'request_ms': 50.0,
                 'reused': 10,
                 'stall_ms': 50.0,
                 'stalled': 10},
                {'lost_s': 0.062499046325683594,
                 'new': 4,
                 'new_ms': 0.0,
                 'pool': 'http://e:80',
                 'request_ms': 6.249904632568359,
                 'reused': 10,
                 'stall_ms': 6.249904632568359,
                 'stalled': 10}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://l:80, 10 of 10 bodies on reused connections '
                 'came 50 ms after their head on average, against 62.5 ms on 4 new '
                 'connections (a request on a reused one took 50 ms on average, head and '
                 'body); on http://e:80, 10 of 10 bodies on reused connections came 6 ms '
                 'after their head on average, against 0.0 ms on 4 new connections (a '
                 'request on a reused one took 6 ms on average, head and body). 0.212 '
                 'greenlet-seconds were spent waiting for those bodies, at '
                 "/srv/app/worker.py:40:call. The upstream writes each response's head and "
                 "body in separate TCP segments with Nagle's algorithm on, so it sends the "
                 'body only once the head is acknowledged, and this side delays that ACK (40 '
                 'ms on Linux) on a kept-alive connection; a new connection is acknowledged '
                 'at once, which is why a Session made per call looks faster. Fix it at the '
                 'upstream: TCP_NODELAY on its sockets, or the head and body written in one '
                 "send (gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle "
                 'on: give it a listening socket with TCP_NODELAY set, which the accepted '
                 'ones inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.212 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/usr/lib/python3.11/http/client.py:473:HTTPResponse.read',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1029:HTTPResponse._fp_read',
                '/venv/lib/python3.11/site-packages/requests/models.py:1042:Response.content',
                '/srv/app/worker.py:40:call'],
      'stall_window_s': [0.035, 0.25]},
     {'cost_meaning': 'greenlet-seconds the response bodies on reused connections came later '
                      "than new connections' bodies usually do (taken as at most 35 ms), "
                      "waiting for this side's delayed ACK",
      'cost_s': 0.5,
      'greenlet': None,
      'hazard': False,
      'hosts': [{'lost_s': 0.5,
                 'new': 4,
                 'new_ms': 0.0,
                 'pool': 'http://a:80',
                 'request_ms': 50.0,
                 'reused': 10,
                 'stall_ms': 50.0,
                 'stalled': 10}],
      'kind': 'delayed-ack-stall',
      'message': 'Delayed-ACK stall: on http://a:80, 10 of 10 bodies on reused connections '
                 'came 50 ms after their head on average, against 0.0 ms on 4 new '
                 'connections (a request on a reused one took 50 ms on average, head and '
                 'body). 0.500 greenlet-seconds were spent waiting for those bodies. The '
                 "upstream writes each response's head and body in separate TCP segments "
                 "with Nagle's algorithm on, so it sends the body only once the head is "
                 'acknowledged, and this side delays that ACK (40 ms on Linux) on a '
                 'kept-alive connection; a new connection is acknowledged at once, which is '
                 'why a Session made per call looks faster. Fix it at the upstream: '
                 'TCP_NODELAY on its sockets, or the head and body written in one send '
                 "(gevent's own pywsgi.WSGIServer writes them apart and leaves Nagle on: "
                 'give it a listening socket with TCP_NODELAY set, which the accepted ones '
                 'inherit). From this side, geventperf.mount(session, quickack=True) '
                 'acknowledges at once (TCP_QUICKACK after each request is sent, Linux). '
                 '[cost 0.500 s: greenlet-seconds the response bodies on reused connections '
                 "came later than new connections' bodies usually do (taken as at most 35 "
                 "ms), waiting for this side's delayed ACK]",
      'section': None,
      'site': None,
      'stack': [],
      'stall_window_s': [0.035, 0.25]}],
    'request_body_stall_by_host': [{'cost_meaning': 'greenlet-seconds the requests with a body on reused connections '
                      'waited for their answer longer than those on new connections, their '
                      "bodies held by Nagle's algorithm",
      'cost_s': 0.75,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'answer_ms': 62.5,
                 'lost_s': 0.75,
                 'new': 4,
                 'new_answer_ms': 15.625,
                 'pool': 'http://a:80',
                 'requests': 16}],
      'kind': 'request-body-stall',
      'message': "Request bodies held by Nagle's algorithm: on http://a:80, 16 requests with "
                 'a body on reused connections waited 62 ms on average for their answer, '
                 'against 15.6 ms on 4 new connections. 0.750 greenlet-seconds were spent '
                 'waiting that much longer, at /srv/app/worker.py:40:call. These connections '
                 "were made without TCP_NODELAY, so urllib3 sends the request's headers and "
                 'then its body, and the kernel holds the body until the server acknowledges '
                 'the headers, which it delays (40 ms on Linux) on a kept-alive connection. '
                 'urllib3 sets TCP_NODELAY by default; socket_options given to an adapter or '
                 'pool manager replace that default, and urllib3 leaves it off towards a '
                 'proxy. Fix: keep it, '
                 'socket_options=urllib3.connection.HTTPConnection.default_socket_options + '
                 '[your options]. [cost 0.750 s: greenlet-seconds the requests with a body '
                 'on reused connections waited for their answer longer than those on new '
                 "connections, their bodies held by Nagle's algorithm]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:516:HTTPConnection.getresponse',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:534:HTTPConnectionPool._make_request',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call']}],
    'request_body_stall_at_the_edges': [{'cost_meaning': 'greenlet-seconds the requests with a body on reused connections '
                      'waited for their answer longer than those on new connections, their '
                      "bodies held by Nagle's algorithm",
      'cost_s': 1.3500000000000003,
      'greenlet': 3,
      'hazard': False,
      'hosts': [{'answer_ms': 62.5,
                 'lost_s': 1.0,
                 'new': 4,
                 'new_answer_ms': 0.0,
                 'pool': 'http://b:80',
                 'requests': 16},
                {'answer_ms': 350.0,
                 'lost_s': 0.3500000000000003,
                 'new': 3,
                 'new_answer_ms': 314.99999999999994,
                 'pool': 'http://a:80',
                 'requests': 10}],
      'kind': 'request-body-stall',
      'message': "Request bodies held by Nagle's algorithm: on http://b:80, 16 requests with "
                 'a body on reused connections waited 62 ms on average for their answer, '
                 'against 0.0 ms on 4 new connections; on http://a:80, 10 requests with a '
                 'body on reused connections waited 350 ms on average for their answer, '
                 'against 315.0 ms on 3 new connections. 1.350 greenlet-seconds were spent '
                 'waiting that much longer, at /srv/app/worker.py:40:call. These connections '
                 "were made without TCP_NODELAY, so urllib3 sends the request's headers and "
                 'then its body, and the kernel holds the body until the server acknowledges '
                 'the headers, which it delays (40 ms on Linux) on a kept-alive connection. '
                 'urllib3 sets TCP_NODELAY by default; socket_options given to an adapter or '
                 'pool manager replace that default, and urllib3 leaves it off towards a '
                 'proxy. Fix: keep it, '
                 'socket_options=urllib3.connection.HTTPConnection.default_socket_options + '
                 '[your options]. [cost 1.350 s: greenlet-seconds the requests with a body '
                 'on reused connections waited for their answer longer than those on new '
                 "connections, their bodies held by Nagle's algorithm]",
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:516:HTTPConnection.getresponse',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:534:HTTPConnectionPool._make_request',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call']}],
    'request_body_stall_not_below_its_edges': [],
    'server_nagle_counted_over_servers': [{'client_delayed_ack_s': 0.04,
      'cost_meaning': "seconds this process's server made its clients wait, estimated: 40 ms "
                      "(a Linux client's shortest delayed ACK) for each response written "
                      'head and body apart on a kept-alive connection without TCP_NODELAY '
                      '(the wait is in the clients, not in this process)',
      'cost_s': 0.4,
      'greenlet': None,
      'hazard': False,
      'held': 10,
      'kind': 'server-nagle',
      'message': "Server responses held by Nagle's algorithm: this process's gevent "
                 'pywsgi.WSGIServer wrote 10 of its 20 responses as a head, then the body, '
                 "on kept-alive connections (after each one's first) without TCP_NODELAY. "
                 'Each such body waits until the client acknowledges the head, which a Linux '
                 "client delays 40 ms: about 0.400 s of the clients' time, estimated (the "
                 'wait is theirs: this process cannot time it; a client that acknowledges at '
                 "once, e.g. with TCP_QUICKACK, does not wait). pywsgi leaves Nagle's "
                 'algorithm on (gevent issue #1233). Fix: give the server a listening socket '
                 'with TCP_NODELAY set, which the sockets it accepts inherit: listener = '
                 'gevent.socket.socket(); listener.setsockopt(socket.IPPROTO_TCP, '
                 'socket.TCP_NODELAY, 1); listener.bind(address); listener.listen(backlog); '
                 "WSGIServer(listener, app). [cost 0.400 s: seconds this process's server "
                 "made its clients wait, estimated: 40 ms (a Linux client's shortest delayed "
                 'ACK) for each response written head and body apart on a kept-alive '
                 'connection without TCP_NODELAY (the wait is in the clients, not in this '
                 'process)]',
      'responses': 20,
      'section': None,
      'stack': []}],
    'server_nagle_not_below_its_edges': [],
    'serial_bottleneck_feeder_on_a_timer': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Through the run meanwhile, '
                 "greenlet 'app.produce' (#3) slept on a timer: 1.500 s of the run (75%) at "
                 '/srv/app/worker.py:20:produce (gevent.sleep, 12 sleeps of 125 ms on '
                 'average). If what the others waited for comes from it (a batch it flushes '
                 'when it wakes), it comes only when the sleep ends: they waited for its '
                 'timer, not for its work. Fix: wake it when there is work instead of '
                 'sleeping a fixed interval -- let it wait on a gevent.event.Event the '
                 'waiters set, or on a queue they put to, and keep a batch together with a '
                 'short linger or a batch size -- or shorten the interval. If it is a ticker '
                 'unrelated to their input (a heartbeat, a reporter), or that pace is the '
                 "input's own (items that arrive on a schedule), the waiting greenlets are "
                 'spare capacity, not a fault. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:produce'],
      'waits': 26},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Through the run meanwhile, '
                 "greenlet 'app.produce' (#3) slept on a timer: 1.500 s of the run (75%) at "
                 '/srv/app/worker.py:20:produce (gevent.sleep, 12 sleeps of 125 ms on '
                 'average). If what the others waited for comes from it (a batch it flushes '
                 'when it wakes), it comes only when the sleep ends: they waited for its '
                 'timer, not for its work. Fix: wake it when there is work instead of '
                 'sleeping a fixed interval -- let it wait on a gevent.event.Event the '
                 'waiters set, or on a queue they put to, and keep a batch together with a '
                 'short linger or a batch size -- or shorten the interval. If it is a ticker '
                 'unrelated to their input (a heartbeat, a reporter), or that pace is the '
                 "input's own (items that arrive on a schedule), the waiting greenlets are "
                 'spare capacity, not a fault. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:produce'],
      'waits': 26},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 150% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:produce'],
      'waits': 26}],
    'serial_bottleneck_beside_idle_server_connections': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 88% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 10}],
    'blocking_call_all_patched': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.5,
      'cause': 'blocking-call',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up while '
                      'the call blocked the thread, and in the backlog it left (the ready '
                      'queue above its usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.0,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'blocking-call',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). 0.500 s of it was off the CPU in a non-cooperative '
                 'call made before the slice ended at /srv/app/worker.py:20:job (where it '
                 'blocked is unknown: profile with the stall watch on, '
                 'Tracer(stall_watch=True); geventperf run has it on). Monkey-patching is on '
                 'here (socket, time and threading patched), so it is a call patching does '
                 'not reach: one taken through gevent.monkey.get_original (the real '
                 'time.sleep, a real lock) or imported before patch_all() ran (`from time '
                 'import sleep` above it), a lock shared with a real OS thread (a C '
                 "extension's own: a metrics exporter, an agent, a driver), a child process "
                 'waited for with os.system or os.popen, file or DNS I/O (a write to a pipe '
                 'whose reader falls behind blocks until it reads), or a C library doing its '
                 'own network I/O. Fix: use the cooperative call (gevent.sleep, '
                 'gevent.socket, gevent.subprocess, gevent.fileobject: a file object one '
                 'greenlet writes at a time -- a writer greenlet fed by a queue -- since two '
                 "writing at once raise 'reentrant call'); for a lock shared with a thread, "
                 'have that thread hold it only briefly (copy under it, do the slow work '
                 'outside) or hand it data through a queue; patch before such imports; or '
                 'run the call in gevent.get_hub().threadpool. [cost 0.500 s: '
                 'greenlet-seconds other greenlets spent ready to run but held up while the '
                 'call blocked the thread, and in the backlog it left (the ready queue above '
                 'its usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'workers_saturated_at_the_edges': [{'busy_share': 0.9,
      'cost_meaning': 'greenlet-seconds the workers spent waiting on their calls, one item '
                      'at a time each, while their input queued: the waiting more workers '
                      'would have overlapped',
      'cost_s': 3.4,
      'feeder': 1,
      'greenlet': 3,
      'hazard': False,
      'idle_share': 0.5,
      'input_wait_s': 0.18,
      'kind': 'workers-saturated',
      'message': "Too few workers for their input: the 2 greenlets named 'app.fetch' were "
                 'busy 90% of the run, each one item at a time (3.400 s in all waiting on '
                 'their calls, most at /srv/app/worker.py:20:produce), and almost never '
                 'waited for the next item: 0.180 s in all at /srv/app/worker.py:80:consume '
                 '(6 waits), 5.0% of their busy time, while the loop sat idle 50% of the run '
                 "and greenlet 'main' (#1) was busy too (most likely what fed them: who put "
                 'what is not recorded). The next item was nearly always there already: '
                 'items came at least as fast as the workers could serve them, and whatever '
                 'came faster queued behind them, waiting longer the longer the backlog '
                 'grew, though every call took its usual time. Fix: more workers -- at least '
                 'the rate items arrive times the time one takes, with headroom '
                 '(gevent.pool.Pool(n)) -- if what their calls reach can take that many at '
                 'once; and a bounded queue (gevent.queue.Queue(maxsize=...)), so that '
                 "overload makes the producer wait instead of growing every item's latency. "
                 'If the workers drain a batch as fast as their upstream allows, by design, '
                 'this is its pace, not a fault. [cost 3.400 s: greenlet-seconds the workers '
                 'spent waiting on their calls, one item at a time each, while their input '
                 'queued: the waiting more workers would have overlapped]',
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'work_wait_s': 3.4,
      'workers': 2}],
    'workers_saturated_not_past_each_guard': [],
    'requests_failed_timeout_within_the_usual_latency': [{'calls': 13,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'Timeout': 8},
      'failed': 8,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 8 of 13 requests raised instead of answering (Timeout '
                 'x8), after 0.250 s each on average: 2.000 greenlet-seconds spent in '
                 'requests that got no answer (http://a:80: 8 of 13, 2.000 s), most made at '
                 '/srv/app/worker.py:40:call. A gevent.Timeout around the call expired '
                 'first: the upstream was slower than the time the program gave it. The '
                 'requests that answered took 0.125 s to their response on average (5 '
                 'timed), against the 0.250 s after which these gave up: the time allowed '
                 "sits within this upstream's usual latency, so much of what it cut off "
                 'would have answered, and trying again only repeats the wait. Fix: raise '
                 'the timeout above the slowest answer you accept (or make the upstream '
                 'faster). [cost 2.000 s: greenlet-seconds spent inside requests that raised '
                 "(a timeout, a refused or reset connection) instead of answering; urllib3's "
                 "retry back-off inside them is retry-backoff's figure too]",
      'pools': ['http://a:80'],
      'read_timeout_s': None,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': True},
     {'calls': 13,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'Timeout': 8},
      'failed': 8,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 8 of 13 requests raised instead of answering (Timeout '
                 'x8), after 0.250 s each on average: 2.000 greenlet-seconds spent in '
                 'requests that got no answer (http://a:80: 8 of 13, 2.000 s), most made at '
                 '/srv/app/worker.py:40:call. A gevent.Timeout around the call expired '
                 'first: the upstream was slower than the time the program gave it. That '
                 "time bought no answer: the fix is on the upstream's side, or in the "
                 'timeout, retries and fallback the calls give it. [cost 2.000 s: '
                 'greenlet-seconds spent inside requests that raised (a timeout, a refused '
                 "or reset connection) instead of answering; urllib3's retry back-off inside "
                 "them is retry-backoff's figure too]",
      'pools': ['http://a:80'],
      'read_timeout_s': None,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': False},
     {'calls': 13,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'Timeout': 8},
      'failed': 8,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 8 of 13 requests raised instead of answering (Timeout '
                 'x8), after 0.250 s each on average: 2.000 greenlet-seconds spent in '
                 'requests that got no answer (http://a:80: 8 of 13, 2.000 s), most made at '
                 '/srv/app/worker.py:40:call. A gevent.Timeout around the call expired '
                 'first: the upstream was slower than the time the program gave it. That '
                 "time bought no answer: the fix is on the upstream's side, or in the "
                 'timeout, retries and fallback the calls give it. [cost 2.000 s: '
                 'greenlet-seconds spent inside requests that raised (a timeout, a refused '
                 "or reset connection) instead of answering; urllib3's retry back-off inside "
                 "them is retry-backoff's figure too]",
      'pools': ['http://a:80'],
      'read_timeout_s': None,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': False}],
    'serial_bottleneck_timer_outnumbered_by_its_waiters': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the get() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Through the run meanwhile, '
                 "greenlet 'app.produce' (#3) slept on a timer: 1.500 s of the run (75%) at "
                 '/srv/app/worker.py:20:produce (gevent.sleep, 12 sleeps of 125 ms on '
                 'average). If what the others waited for comes from it (a batch it flushes '
                 'when it wakes), it comes only when the sleep ends: they waited for its '
                 'timer, not for its work. Fix: wake it when there is work instead of '
                 'sleeping a fixed interval -- let it wait on a gevent.event.Event the '
                 'waiters set, or on a queue they put to, and keep a batch together with a '
                 'short linger or a batch size -- or shorten the interval. If it is a ticker '
                 'unrelated to their input (a heartbeat, a reporter), or that pace is the '
                 "input's own (items that arrive on a schedule), the waiting greenlets are "
                 'spare capacity, not a fault. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:produce'],
      'waits': 19},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the put() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Through the run meanwhile, '
                 "greenlet 'app.produce' (#3) slept on a timer: 1.500 s of the run (75%) at "
                 '/srv/app/worker.py:20:produce (gevent.sleep, 12 sleeps of 125 ms on '
                 'average). If what the others waited for comes from it (a batch it flushes '
                 'when it wakes), it comes only when the sleep ends: they waited for its '
                 'timer, not for its work. Fix: wake it when there is work instead of '
                 'sleeping a fixed interval -- let it wait on a gevent.event.Event the '
                 'waiters set, or on a queue they put to, and keep a batch together with a '
                 'short linger or a batch size -- or shorten the interval. If it is a ticker '
                 'unrelated to their input (a heartbeat, a reporter), or that pace is the '
                 "input's own (items that arrive on a schedule), the waiting greenlets are "
                 'spare capacity, not a fault. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:produce'],
      'waits': 10}],
    'connection_churn_and_lookups_past_many_in_flight': [{'bound_concurrency': True,
      'churn_share': 0.7475,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.12125,
      'fix_pool_maxsize': None,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for http://b:80 "
                 'keeps 8 connections (pool_maxsize), but up to 101 requests were in flight '
                 'to it at once. It discarded 300 connections that came back to the full '
                 'pool, and the next requests opened new ones: 400 opened, 299 more than a '
                 'pool of 101 would have (a connect each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 75% of that '
                 'is the churn. Fix: fewer requests at once first: 101 in flight to one host '
                 'is more than most servers take at once, and a pool that large would hold '
                 'as many connections open on it; spawn the calls through a '
                 'gevent.pool.Pool(n) -- n what the upstream serves at once, tens rather '
                 'than hundreds -- instead of a greenlet each, and give the session a pool '
                 'of the same size: geventperf.mount(session, pool_maxsize=n); urllib3 logs '
                 "'Connection pool is full, discarding connection' at WARNING each time. "
                 '[cost 1.121 s: the share of connection set-up a pool as large as the '
                 'requests in flight would have saved (connections opened past that size '
                 'over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.7475,
      'peak_in_use': 101,
      'pool_maxsize': 8,
      'pools': ['http://b:80'],
      'reopened': 299,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'bound_concurrency': False,
      'churn_share': 0.75,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.125,
      'fix_pool_maxsize': 100,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for http://b:80 "
                 'keeps 8 connections (pool_maxsize), but up to 100 requests were in flight '
                 'to it at once. It discarded 300 connections that came back to the full '
                 'pool, and the next requests opened new ones: 400 opened, 300 more than a '
                 'pool of 100 would have (a connect each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 75% of that '
                 'is the churn. Fix: a pool as large as the requests in flight: '
                 "geventperf.mount(session, pool_maxsize=100), or session.mount('http://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=100)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 1.125 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.75,
      'peak_in_use': 100,
      'pool_maxsize': 8,
      'pools': ['http://b:80'],
      'reopened': 300,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 100,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 1.0,
      'dns_run_s': 3.0,
      'explained_by_connections_s': 0.0,
      'fix': 'fewer new connections, made by fewer calls at once: one Session shared by the '
             'greenlets, and spawn the calls through a gevent.pool.Pool(n) -- n what the '
             'upstream serves at once, tens rather than hundreds -- instead of a greenlet '
             'each, with a session pool of the same n '
             '(requests.adapters.HTTPAdapter(pool_maxsize=n) mounted on it)',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                     'tasks': 8}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 8 of 8 task(s) found "
                 'every worker busy, and tasks queued 1.000 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 100 task(s) ahead, 1.5 on '
                 'average). Queued: getaddrinfo x8 (DNS): queued 1.000 s, ran 3.000 s in '
                 'worker threads (0.375 s each), called at '
                 '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection. '
                 'DNS lookups filled it, up to 101 at once, yet they ran 3.000 '
                 'worker-seconds in all: they queued behind how many were asked at once '
                 '(each worker thread also waiting for the interpreter lock the busy loop '
                 'held), not behind slow lookups. 6 of the lookups opened new connections '
                 "(urllib3's create_connection); a reused, kept-alive connection needs none. "
                 'Fix: fewer new connections, made by fewer calls at once: one Session '
                 'shared by the greenlets, and spawn the calls through a gevent.pool.Pool(n) '
                 '-- n what the upstream serves at once, tens rather than hundreds -- '
                 'instead of a greenlet each, with a session pool of the same n '
                 '(requests.adapters.HTTPAdapter(pool_maxsize=n) mounted on it). Cost: '
                 'greenlet-seconds tasks spent queued for a free worker thread of this pool: '
                 'from ThreadPool.spawn until a worker started them, summed over the tasks '
                 "(less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0,
      'run_s': 3.0,
      'saturated_tasks': 8,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection'],
      'suggested_maxsize': None,
      'tasks': 8,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 100,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': True,
      'dns_queued_s': 1.0,
      'dns_run_s': 3.0,
      'explained_by_connections_s': 0.0,
      'fix': 'spawn the calls through a gevent.pool.Pool(n) -- n what the upstream serves at '
             'once, tens rather than hundreds -- instead of a greenlet each; then cache the '
             'lookups',
      'functions': [{'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': None,
                     'tasks': 8}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 8 of 8 task(s) found "
                 'every worker busy, and tasks queued 1.000 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 100 task(s) ahead, 1.5 on '
                 'average). Queued: getaddrinfo x8 (DNS): queued 1.000 s, ran 3.000 s in '
                 'worker threads (0.375 s each). DNS lookups filled it, up to 101 at once, '
                 'yet they ran 3.000 worker-seconds in all: they queued behind how many were '
                 'asked at once (each worker thread also waiting for the interpreter lock '
                 'the busy loop held), not behind slow lookups. Fix: spawn the calls through '
                 'a gevent.pool.Pool(n) -- n what the upstream serves at once, tens rather '
                 'than hundreds -- instead of a greenlet each; then cache the lookups. Cost: '
                 'greenlet-seconds tasks spent queued for a free worker thread of this pool: '
                 'from ThreadPool.spawn until a worker started them, summed over the tasks '
                 "(less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0,
      'run_s': 3.0,
      'saturated_tasks': 8,
      'section': None,
      'stack': [],
      'suggested_maxsize': None,
      'tasks': 8,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 100,
      'depth_mean': 1.5,
      'dns': False,
      'dns_cause': False,
      'dns_queued_s': 0,
      'dns_run_s': 0,
      'explained_by_connections_s': 0.0,
      'fix': 'fewer calls at once than 101 threads would take: spawn the calls through a '
             'gevent.pool.Pool(n) -- n what the upstream serves at once, tens rather than '
             'hundreds -- instead of a greenlet each; or a cooperative alternative to the '
             'queued blocking calls so they need no thread',
      'functions': [{'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': None,
                     'tasks': 8}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 8 of 8 task(s) found "
                 'every worker busy, and tasks queued 1.000 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 100 task(s) ahead, 1.5 on '
                 'average). Queued: work x8: queued 1.000 s, ran 3.000 s in worker threads '
                 '(0.375 s each). Fix: fewer calls at once than 101 threads would take: '
                 'spawn the calls through a gevent.pool.Pool(n) -- n what the upstream '
                 'serves at once, tens rather than hundreds -- instead of a greenlet each; '
                 'or a cooperative alternative to the queued blocking calls so they need no '
                 'thread. Cost: greenlet-seconds tasks spent queued for a free worker thread '
                 'of this pool: from ThreadPool.spawn until a worker started them, summed '
                 "over the tasks (less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0,
      'run_s': 3.0,
      'saturated_tasks': 8,
      'section': None,
      'stack': [],
      'suggested_maxsize': None,
      'tasks': 8,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0,
      'default_pool': True,
      'depth_max': 99,
      'depth_mean': 1.5,
      'dns': False,
      'dns_cause': False,
      'dns_queued_s': 0,
      'dns_run_s': 0,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 100 (before the burst); '
             'or a cooperative alternative to the queued blocking calls so they need no '
             'thread',
      'functions': [{'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.375,
                     'queued_s': 1.0,
                     'run_s': 3.0,
                     'site': None,
                     'tasks': 8}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 8 of 8 task(s) found "
                 'every worker busy, and tasks queued 1.000 greenlet-seconds in all for a '
                 'free worker thread (longest 0.500 s; up to 99 task(s) ahead, 1.5 on '
                 'average). Queued: work x8: queued 1.000 s, ran 3.000 s in worker threads '
                 '(0.375 s each). Fix: a bigger pool: gevent.get_hub().threadpool.maxsize = '
                 '100 (before the burst); or a cooperative alternative to the queued '
                 'blocking calls so they need no thread. Cost: greenlet-seconds tasks spent '
                 'queued for a free worker thread of this pool: from ThreadPool.spawn until '
                 "a worker started them, summed over the tasks (less the lookups' share a "
                 'connection finding counts).',
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0,
      'run_s': 3.0,
      'saturated_tasks': 8,
      'section': None,
      'stack': [],
      'suggested_maxsize': 100,
      'tasks': 8,
      'tasks_waited': False}],
    'pool_full_says_what_its_jobs_waited_on': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average; their requests to http://a:80 took 150 ms to '
                 "the response head on average (10 timed): the upstream's time to answer "
                 "(the network's included), and what each slot was held for. Fix: a larger "
                 'Pool(size) if what the jobs wait on (a downstream service) can take more '
                 'requests at once; if it cannot, the time each job waits is the lever (an '
                 "upstream's latency is its own to cut: its slow query, its capacity); if "
                 "the limit is deliberate (a downstream's rate limit), this is what it "
                 'costs. To tell which: run once with half the Pool size; answers that take '
                 'about as long mean the upstream had room, and a larger Pool helps; answers '
                 'that take about half as long mean it queues them (its own limit), and a '
                 'larger Pool gains nothing. [cost 1.500 s: greenlet-seconds spent waiting '
                 'for a free slot of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average. Fix: a larger Pool(size) if what the jobs wait '
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average. Fix: a larger Pool(size) if what the jobs wait '
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. Fix: a larger Pool(size) if what the jobs wait "
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'gc_pause_in_flight_names_the_code_that_made_them': [{'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.625,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.625 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due. CPU samples "
                 'put 75% of their sampled CPU (5 samples in all) at '
                 '/srv/app/worker.py:24:job (collections fall due where most is allocated): '
                 'most likely the code that makes the objects it walks (a large document '
                 'parsed whole, a big result built in memory), whose CPU the collections add '
                 'to. The objects it walks were made during the run, not at start-up: the '
                 "heap held 1,024 memory blocks when start-up ended (the program's first "
                 'yield to the loop) and up to 4,096 when full collections began, as data in '
                 'flight (parsed documents, request state) piled up, which gc.freeze() at '
                 'start-up cannot reach. Fix: hold fewer of them at once (fewer big '
                 'documents in flight together, keep only what you need of each and drop the '
                 'rest), or collect less often (gc.set_threshold with larger thresholds). '
                 '[cost 0.750 s: greenlet-seconds other greenlets spent ready to run but '
                 'held up by these slices, which the garbage collector mostly filled, and in '
                 'the backlog they left (the ready queue above its usual length until it '
                 "next emptied), plus the collector's share of the rest of the queueing (its "
                 "time in shorter slices over the loop's busy time)]",
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/usr/lib/python3.11/json/encoder.py:200:iterencode',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 1.0,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.75,
      'count': 2,
      'gc_s': 0.625,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 2,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 2 slice(s) over 0.0625 s '
                 '(1.000 s in all, longest 0.500 s) were 0.625 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.750 greenlet-seconds of their '
                 'waiting (one waited up to 0.500 s). It ran inside 2 greenlets named '
                 "'app.fetch', whichever allocated when a collection fell due: that code is "
                 'not the cause, the number of long-lived objects the collector walks is. '
                 'Fix: call gc.freeze() once start-up has built its long-lived objects '
                 '(caches, parsed configuration, imported modules; in a pre-fork server, '
                 'before forking): later collections skip them. Or collect less often '
                 '(gc.set_threshold with a larger first threshold), or keep big caches out '
                 "of the collector's sight (fewer, larger objects: bytes or arrays rather "
                 'than dicts and lists). [cost 0.750 s: greenlet-seconds other greenlets '
                 'spent ready to run but held up by these slices, which the garbage '
                 'collector mostly filled, and in the backlog they left (the ready queue '
                 "above its usual length until it next emptied), plus the collector's share "
                 "of the rest of the queueing (its time in shorter slices over the loop's "
                 'busy time)]',
      'run_s': 1.0,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'cpu_slices_parsing_json_are_told_to_parse_less': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (it is parsing JSON: ask the upstream for less -- '
                 'only the fields, the page or the summary this code uses -- rather than '
                 'parsing a large document whole, or parse with a faster decoder (orjson, '
                 'ujson)); then split what must stay expensive and yield between pieces of a '
                 'millisecond or two with gevent.idle() (it resumes once the loop has run '
                 'what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before '
                 'it polls for I/O; or move it to a process pool (a C call that releases the '
                 "GIL, such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost "
                 '0.500 s: greenlet-seconds other greenlets spent ready to run but held up '
                 'by these slices, and in the backlog they left (the ready queue above its '
                 'usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode',
                '/venv/lib/python3.11/site-packages/requests/models.py:1116:Response.json',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it '
                      "next emptied), plus the collector's share of the rest of the queueing "
                      "(its time in shorter slices over the loop's busy time)",
      'cost_s': 0.5,
      'count': 1,
      'gc_s': 0.375,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 1 slice(s) over 0.0625 s '
                 '(0.500 s in all, longest 0.500 s) were 0.375 s of collection (generation '
                 '2; a generation 2 collection is a full one: it walks every tracked '
                 'object), while others were ready to run: 0.500 greenlet-seconds of their '
                 "waiting (one waited up to 0.500 s). It ran inside greenlet 'app.fetch' "
                 '(#3), whichever allocated when a collection fell due. CPU samples put 100% '
                 'of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job '
                 '(collections fall due where most is allocated): most likely the code that '
                 'makes the objects it walks -- it parses JSON, and every value of a '
                 'document parsed whole is an object the collector walks while the document '
                 'is held -- whose CPU the collections add to. The objects it walks were '
                 'made during the run, not at start-up: the heap held 1,024 memory blocks '
                 "when start-up ended (the program's first yield to the loop) and up to "
                 '4,096 when full collections began, as data in flight (parsed documents, '
                 'request state) piled up, which gc.freeze() at start-up cannot reach. Fix: '
                 'hold fewer of them at once (fewer big documents in flight together, keep '
                 'only what you need of each and drop the rest), or collect less often '
                 '(gc.set_threshold with larger thresholds). [cost 0.500 s: greenlet-seconds '
                 'other greenlets spent ready to run but held up by these slices, which the '
                 'garbage collector mostly filled, and in the backlog they left (the ready '
                 "queue above its usual length until it next emptied), plus the collector's "
                 'share of the rest of the queueing (its time in shorter slices over the '
                 "loop's busy time)]",
      'run_s': 0.5,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode',
                '/venv/lib/python3.11/site-packages/requests/models.py:1116:Response.json',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625}],
    'lock_contended_says_who_starved_and_what_holders_did': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Besides the lock, '
                 "they ('app.fetch') mostly waited at /srv/app/worker.py:40:call "
                 '(HTTPAdapter.send): 10 waits of 25 ms on average; their requests to '
                 'http://a:80 took 75 ms to the response head on average (10 timed): the '
                 "upstream's time to answer (the network's included), and if that call is "
                 'made under the lock, what each holder held it for. Fix: hold it for less '
                 '-- make slow calls (the network, the disk) outside the locked block and '
                 'lock only the shared state -- or use one lock per resource; for a '
                 'Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 2.000 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (2 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Each wait lasted '
                 '1.000 s on average, 50% of the run: the waiters went without it that long '
                 "while a few greenlets took it again and again (gevent's locks are not "
                 'fair: a greenlet that releases one and takes it again before a waiter has '
                 "run keeps it). Besides the lock, they ('app.fetch') mostly waited at "
                 '/srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 25 ms on '
                 'average; their requests to http://a:80 took 75 ms to the response head on '
                 "average (10 timed): the upstream's time to answer (the network's "
                 'included), and if that call is made under the lock, what each holder held '
                 'it for. Fix: hold it for less -- make slow calls (the network, the disk) '
                 'outside the locked block and lock only the shared state -- or use one lock '
                 'per resource; for a Semaphore(n) that limits concurrency on purpose, a '
                 'larger n if what it guards can take more calls at once. [cost 2.000 s: '
                 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                 'idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 2}],
    'connections_not_kept_alive_by_their_server': [{'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections made again for one request each (over all '
                      'made), of the greenlet-seconds spent waiting to open connections plus '
                      "the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 0.32450331125827814,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-not-kept-alive',
      'made_again': 196,
      'message': 'Connections not kept alive: on https://a:443, 180 of 200 timed responses '
                 'came on a connection made for that request, though its pool opened only 4: '
                 'the same pooled connections were connected again and again (176 times; '
                 'http://b:80: 20 made again), each closed after one response. Either the '
                 'server closes them (it answers Connection: close: keep-alive off in it, or '
                 'in a proxy in front of it) or the requests ask it to (a Connection: close '
                 "header, in the call or the session's headers). Every request then pays a "
                 'name lookup and a connect and a TLS handshake again; most were made under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 22% of that '
                 'is the connections made again. Fix: keep connections alive: drop a '
                 'Connection: close header from the requests, or turn keep-alive on in the '
                 "server (gunicorn --keep-alive, an nginx upstream's keepalive) or the "
                 'proxy. [cost 0.325 s: the share of connections made again for one request '
                 'each (over all made), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'not_kept_share': 0.2163355408388521,
      'others_ready_wait_s': 0.2163355408388521,
      'pools': ['https://a:443', 'http://b:80'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'small_body_reads_asked_for_by_the_caller': [{'bodies': 4,
      'bytes': 2048000,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.125,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 5120.0,
      'message': '4 response bodies (2.0 MiB) were read in 400 reads of 5.0 KiB on average '
                 "(100 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:70:content; each read is a trip through requests, '
                 'urllib3 and http.client. Fix: read bodies in large pieces: '
                 'geventperf.mount(session) (512 KiB reads, Content-Length bodies into one '
                 'buffer), then parse the bytes. [cost 0.125 s: seconds the reading '
                 'greenlets spent inside the reads, network waits left out (a large read '
                 'waits for the network as long)]',
      'read_s': 0.5,
      'reads': 400,
      'section': None,
      'site': '/srv/app/worker.py:70:content',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:70:content']},
     {'bodies': 4,
      'bytes': 2047999,
      'cost_meaning': 'seconds the reading greenlets spent inside the reads, network waits '
                      'left out (a large read waits for the network as long)',
      'cost_s': 0.125,
      'greenlet': None,
      'hazard': False,
      'kind': 'small-body-reads',
      'mean_read_bytes': 5119.9975,
      'message': '4 response bodies (2.0 MiB) were read in 400 reads of 5.0 KiB on average '
                 "(100 per body) through urllib3's HTTPResponse.read, called from "
                 '/srv/app/worker.py:71:chunks; each read is a trip through requests, '
                 'urllib3 and http.client. Fix: the code at /srv/app/worker.py:71:chunks '
                 'asks for 5.0 KiB per call (iter_content(chunk_size=...), raw.read(n), or a '
                 'parser reading response.raw): ask for large pieces '
                 '(iter_content(chunk_size=512 * 1024)) or read the body whole '
                 '(response.content) and parse the bytes; geventperf.mount(session) makes '
                 ".content's reads large, not a caller's own small ones. [cost 0.125 s: "
                 'seconds the reading greenlets spent inside the reads, network waits left '
                 'out (a large read waits for the network as long)]',
      'read_s': 0.5,
      'reads': 400,
      'section': None,
      'site': '/srv/app/worker.py:71:chunks',
      'small_read_bytes': 65536,
      'stack': ['/srv/app/worker.py:71:chunks']}],
    'connections_not_kept_alive_told_by_who_closed_them': [{'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections made again for one request each (over all '
                      'made), of the greenlet-seconds spent waiting to open connections plus '
                      "the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.4666666666666666,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-not-kept-alive',
      'made_again': 176,
      'message': 'Connections not kept alive: on https://a:443, 180 of 200 timed responses '
                 'came on a connection made for that request, though its pool opened only 4: '
                 'the same pooled connections were connected again and again (176 times), '
                 'each closed after one response. The server answered Connection: close (90 '
                 'of the 200 responses): keep-alive is off in it or in a proxy in front of '
                 'it, or the requests asked for it (a Connection: close header in the call '
                 "or the session's headers, which servers echo). Every request then pays a "
                 'name lookup and a connect and a TLS handshake again; most were made under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 98% of that '
                 'is the connections made again. Fix: keep connections alive: drop a '
                 'Connection: close header from the requests, or turn keep-alive on in the '
                 "server (gunicorn --keep-alive, an nginx upstream's keepalive) or the "
                 'proxy. [cost 1.467 s: the share of connections made again for one request '
                 'each (over all made), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'not_kept_share': 0.9777777777777777,
      'others_ready_wait_s': 0.9777777777777777,
      'pools': ['https://a:443'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connections made again for one request each (over all '
                      'made), of the greenlet-seconds spent waiting to open connections plus '
                      "the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.4666666666666666,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-not-kept-alive',
      'made_again': 176,
      'message': 'Connections not kept alive: on https://a:443, 180 of 200 timed responses '
                 'came on a connection made for that request, though its pool opened only 4: '
                 'the same pooled connections were connected again and again (176 times), '
                 'each closed after one response. Only 89 of the 200 responses said '
                 "Connection: close, so most closes were this side's: a stream=True response "
                 'closed before its body was read (by close(), or a with block around it) '
                 'closes its socket with it; or the server dropped them idle. Every request '
                 'then pays a name lookup and a connect and a TLS handshake again; most were '
                 'made under /srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was '
                 'spent waiting to open connections; 25% of the sampled CPU set connections '
                 'up and closed them, which queued the others about 1.000 greenlet-s; 98% of '
                 'that is the connections made again. Fix: read each streamed body to the '
                 'end before the response is closed (or do not stream it): its connection '
                 'then goes back to the pool open. [cost 1.467 s: the share of connections '
                 'made again for one request each (over all made), of the greenlet-seconds '
                 "spent waiting to open connections plus the run's ready wait times the "
                 'share of the sampled CPU that set connections up (none without CPU '
                 'samples)]',
      'not_kept_share': 0.9777777777777777,
      'others_ready_wait_s': 0.9777777777777777,
      'pools': ['https://a:443'],
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'serial_bottleneck_not_the_main_end_wait': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.fetch' waited "
                 '4.500 s in all at hand-offs (69% of all event wait; most in the get() call '
                 'at /srv/app/worker.py:80:consume: a gevent queue, event or greenlet, '
                 'waiting for another greenlet to put, set or finish) while the loop sat '
                 'idle 75% of the run. Busy through the run meanwhile, one call at a time: '
                 "greenlet 'app.produce' (#3), busy 88% of the run, 1.500 s of it waiting at "
                 '/srv/app/worker.py:20:produce. Who woke whom is not recorded: these are '
                 'the greenlets that kept working while the others waited, so most likely '
                 "their pace set everyone's. If what they wait on is input that arrives at "
                 "its own pace (a long-poll on a message broker, a server's requests), the "
                 'waiting greenlets are spare capacity, not a fault, and more of these would '
                 'change nothing. Otherwise, fix: do that work concurrently -- several such '
                 'greenlets, or gevent.pool.Pool(n).imap_unordered over its inputs -- or let '
                 'the waiting greenlets do it themselves. [cost 4.500 s: greenlet-seconds '
                 "spent waiting at hand-offs (a queue, an event, a greenlet's end) for a few "
                 'busy greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 9},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.fetch', 'main' "
                 'waited 4.500 s in all at hand-offs (69% of all event wait; most in the '
                 'get() call at /srv/app/worker.py:80:consume: a gevent queue, event or '
                 'greenlet, waiting for another greenlet to put, set or finish) while the '
                 'loop sat idle 75% of the run. Busy through the run meanwhile, one call at '
                 "a time: greenlet 'app.produce' (#3), busy 88% of the run, 1.500 s of it "
                 'waiting at /srv/app/worker.py:20:produce. Who woke whom is not recorded: '
                 'these are the greenlets that kept working while the others waited, so most '
                 "likely their pace set everyone's. If what they wait on is input that "
                 "arrives at its own pace (a long-poll on a message broker, a server's "
                 'requests), the waiting greenlets are spare capacity, not a fault, and more '
                 'of these would change nothing. Otherwise, fix: do that work concurrently '
                 '-- several such greenlets, or gevent.pool.Pool(n).imap_unordered over its '
                 'inputs -- or let the waiting greenlets do it themselves. [cost 4.500 s: '
                 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                 "greenlet's end) for a few busy greenlets while the loop sat mostly idle]",
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 110}],
    'loop_saturated_by_requests_own_cpu_not_json_but_the_environment': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 50% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 50% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, '
                 'urllib3 and http.client themselves: their per-request work (proxy settings '
                 'read from the environment, URL parsing, header checks) is a cause of its '
                 'own, and here 25% of the sampled CPU read the proxy settings and .netrc '
                 'from the environment at each request (its cost grows with the '
                 "environment's size: a container with many service variables): "
                 'session.trust_env = False skips that where no proxy or .netrc is needed '
                 '(it also ignores REQUESTS_CA_BUNDLE: set session.verify to a bundle the '
                 'service relies on). geventperf.Session(), or geventperf.mount(session, '
                 "fast_path=True), does that work once per session (about half of requests' "
                 "CPU per call in this project's benchmarks). Beyond that: less work per "
                 'request in these greenlets (compute once what is the same from request to '
                 'request and keep it: a verified credential or key, a compiled pattern or '
                 'template, a parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list searched inside '
                 'a loop, a sort or copy repeated), fewer greenlets per process and more '
                 'processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 50% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, '
                 'urllib3 and http.client themselves: their per-request work (proxy settings '
                 'read from the environment, URL parsing, header checks) is a cause of its '
                 'own. geventperf.Session(), or geventperf.mount(session, fast_path=True), '
                 "does that work once per session (about half of requests' CPU per call in "
                 "this project's benchmarks). Beyond that: less work per request in these "
                 'greenlets (compute once what is the same from request to request and keep '
                 'it: a verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: '
                 '+= on bytes or str in a loop, a list searched inside a loop, a sort or '
                 'copy repeated), fewer greenlets per process and more processes, or '
                 'CPU-heavy work moved out of the loop (a process pool; a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less "
                 'what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'server_pool_full_at_its_edges': [{'connections': 5,
      'cost_meaning': "greenlet-seconds the server's connection pool slots were held by "
                      "kept-alive connections waiting for their clients' next requests "
                      '(while the pool was full, new clients waited in the listen backlog, a '
                      'wait only they see)',
      'cost_s': 4.0,
      'greenlet': None,
      'hazard': False,
      'idle_held': 2.0,
      'idle_s': 4.0,
      'kind': 'server-pool-full',
      'message': "The WSGI server's connection pool was full of idle connections: it runs "
                 'each connection in one of 4 pooled greenlets (WSGIServer(..., spawn=4)) '
                 "for the connection's whole life, and kept-alive connections waiting for "
                 "their clients' next requests held 2.0 of the 4 slots on average over the "
                 'run (4.000 greenlet-seconds), and 1 of the 5 connections that came took '
                 'its last free slot. While the pool is full the server stops accepting: new '
                 'clients wait in the listen backlog until a whole connection ends, a wait '
                 'only they see (their latency climbs to seconds while this process looks '
                 'idle). Fix: a pool far larger than the connections clients keep open '
                 '(spawn=10000, or the default spawn: a greenlet per connection), bounding '
                 'the work itself where it must be bounded (a gevent Pool or Semaphore '
                 'around the upstream calls), or fewer idle connections (a shorter '
                 'keep-alive at the proxy or load balancer in front). [cost 4.000 s: '
                 "greenlet-seconds the server's connection pool slots were held by "
                 "kept-alive connections waiting for their clients' next requests (while the "
                 'pool was full, new clients waited in the listen backlog, a wait only they '
                 'see)]',
      'pool_filled': 1,
      'pool_size': 4,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pywsgi.py:723:WSGIHandler.read_requestline',
                '/venv/lib/python3.11/site-packages/gevent/pywsgi.py:774:WSGIHandler.handle_one_request']}],
    'sequential_calls_at_their_edges': [{'calls': 80,
      'calls_per_response': 4.0,
      'cost_meaning': "greenlet-seconds the served requests' handlers waited on upstream "
                      "calls made in turn, less one call's worth per response (the most "
                      'making them together could save)',
      'cost_s': 3.0,
      'greenlet': None,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Each response waited on its upstream calls one after another: 80 calls for '
                 "20 responses (4.0 per response), waited for in the handlers' own "
                 'greenlets, most at /srv/app/worker.py:27:fetch_items (4.000 s in all, 50.0 '
                 'ms per call: 200 ms per response). A greenlet waits on one thing at a '
                 'time, so they were made in turn, and every response took that many round '
                 'trips; the upstream answered each in its usual time. Fix: one call for the '
                 'lot, where the upstream has a batch or bulk endpoint; else make them '
                 "together (gevent.pool.Pool(n).imap_unordered over the items, or a Group's "
                 'map, inside the handler), and cache what repeats. [cost 3.000 s: '
                 "greenlet-seconds the served requests' handlers waited on upstream calls "
                 "made in turn, less one call's worth per response (the most making them "
                 'together could save)]',
      'responses': 20,
      'section': None,
      'site': '/srv/app/worker.py:27:fetch_items',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:fetch_items',
                '/srv/app/worker.py:35:app',
                '/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application'],
      'waited_s': 4.0},
     {'calls': 79,
      'calls_per_response': 3.95,
      'cost_meaning': "greenlet-seconds the served requests' handlers waited on upstream "
                      "calls made in turn, less one call's worth per response (the most "
                      'making them together could save)',
      'cost_s': 2.9873417721518987,
      'greenlet': None,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Each response waited on its upstream calls one after another: 79 calls for '
                 "20 responses (4.0 per response), waited for in the handlers' own "
                 'greenlets, most at /srv/app/worker.py:27:fetch_items (4.000 s in all, 50.6 '
                 'ms per call: 200 ms per response). A greenlet waits on one thing at a '
                 'time, so they were made in turn, and every response took that many round '
                 'trips; the upstream answered each in its usual time. Fix: if they do not '
                 "need each other's answers, make them together inside the handler (a "
                 'gevent.spawn for each, then gevent.joinall): a response then takes its '
                 'slowest call instead of their sum. If each call needs the one before it '
                 "(its address or arguments come from that answer), that is the response's "
                 'floor and the cost is not there to save. [cost 2.987 s: greenlet-seconds '
                 "the served requests' handlers waited on upstream calls made in turn, less "
                 "one call's worth per response (the most making them together could save)]",
      'responses': 20,
      'section': None,
      'site': '/srv/app/worker.py:27:fetch_items',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:fetch_items',
                '/srv/app/worker.py:35:app',
                '/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application'],
      'waited_s': 4.0},
     {'calls': 40,
      'calls_per_response': 2.0,
      'cost_meaning': "greenlet-seconds the served requests' handlers waited on upstream "
                      "calls made in turn, less one call's worth per response (the most "
                      'making them together could save)',
      'cost_s': 2.0,
      'greenlet': None,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Each response waited on its upstream calls one after another: 40 calls for '
                 "20 responses (2.0 per response), waited for in the handlers' own "
                 'greenlets, most at /srv/app/worker.py:27:fetch_items (4.000 s in all, '
                 '100.0 ms per call: 200 ms per response). A greenlet waits on one thing at '
                 'a time, so they were made in turn, and every response took that many round '
                 'trips; the upstream answered each in its usual time. Fix: if they do not '
                 "need each other's answers, make them together inside the handler (a "
                 'gevent.spawn for each, then gevent.joinall): a response then takes its '
                 'slowest call instead of their sum. If each call needs the one before it '
                 "(its address or arguments come from that answer), that is the response's "
                 'floor and the cost is not there to save. [cost 2.000 s: greenlet-seconds '
                 "the served requests' handlers waited on upstream calls made in turn, less "
                 "one call's worth per response (the most making them together could save)]",
      'responses': 20,
      'section': None,
      'site': '/srv/app/worker.py:27:fetch_items',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:fetch_items',
                '/srv/app/worker.py:35:app',
                '/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application'],
      'waited_s': 4.0}],
    'batch_barrier_at_its_edges': [{'batches': 3,
      'children': 24,
      'cost_meaning': 'seconds the spawner waited for its batches beyond what a pool as '
                      'large as their peak, starting one greenlet as each ends, would take '
                      "for the same greenlets' lives (the most it could save)",
      'cost_s': 1.1484375,
      'greenlet': 1,
      'hazard': False,
      'kind': 'batch-barrier',
      'mean_alive': 1.7777777777777777,
      'message': "Batches waited for their slowest: greenlet 'main' (#1) waited 1.477 s (74% "
                 'of the run) for greenlets it spawned in 3 batches, 24 in all and up to 8 '
                 'at once, most at /srv/app/worker.py:36:main, yet while it waited only 1.8 '
                 'of them were still running on average: each batch lasted as long as its '
                 'slowest member (their lives: median 62 ms, longest 438 ms), and the slots '
                 'of those done early stayed empty. Fix: if the items are independent, feed '
                 'them all through one gevent.pool.Pool(8) (imap_unordered, or spawn as '
                 "slots free) so that a slow one holds one slot, not the batch; if a batch's "
                 'results are needed together, bound its slow members (a timeout, a hedged '
                 'second request). [cost 1.148 s: seconds the spawner waited for its batches '
                 'beyond what a pool as large as their peak, starting one greenlet as each '
                 "ends, would take for the same greenlets' lives (the most it could save)]",
      'peak': 8,
      'section': None,
      'site': '/srv/app/worker.py:36:main',
      'spawners': 1,
      'stack': ['/srv/app/worker.py:36:main'],
      'waited_s': 1.4765625}],
    'loop_saturated_writing_pywsgi_pieces': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (5 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 41% of the sampled CPU wrote responses piece by '
                 "piece through gevent's pywsgi (WSGIHandler.write: a chunk and a send per "
                 "item the application's iterable yields): yield fewer, larger pieces (rows "
                 'joined into pieces of some 64 KiB), or return the body whole as a list of '
                 "one item ([b''.join(rows)]): a list of many items is written an item at a "
                 'time too. Beyond that: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (5 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'loop_held_by_a_ticker_is_told_to_do_less_per_tick': [{'cost_meaning': 'greenlet-seconds other greenlets spent ready to run while these '
                      "greenlets' slices under the block threshold ran",
      'cost_s': 4.0,
      'cpu_s': 0.5,
      'delayed_others_s': 4.0,
      'greenlet': 5,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-held',
      'longer_slices': 0,
      'mean_slice_s': 0.025,
      'message': "greenlet 'app.hasher' (#5) held the loop in 20 slices of 25.0 ms on "
                 'average, each under the 0.05 s block threshold but 99x the other '
                 "greenlets' 0.25 ms: other greenlets waited 4.000 greenlet-seconds ready to "
                 'run while they ran, 80% of all such waiting. It was CPU work (0.500 s of '
                 'CPU in 0.500 s of running); the slices that delayed most ended at '
                 '/srv/app/worker.py:22:report. They ended in gevent.sleep: it works on a '
                 "timer, and each tick's work is the cost (yielding within it spreads the "
                 'same work over more slices). Fix: do less per tick -- keep running totals '
                 'instead of recomputing them from everything so far, render only what '
                 'changed -- or tick less often; or move the work out of the loop (a process '
                 'pool for Python code). [cost 4.000 s: greenlet-seconds other greenlets '
                 "spent ready to run while these greenlets' slices under the block threshold "
                 'ran]',
      'others_mean_slice_s': 0.0002537313432835823,
      'run_s': 0.5,
      'section': None,
      'share': 0.8,
      'slices': 20,
      'slices_in_a_row': 1.0,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:22:report'],
      'stack_is': 'slice-end',
      'zero_sleeps': 0}],
    'lock_contended_on_a_rate_limiters_semaphore': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 0.375,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 0.375,
      'message': "A rate limit set the pace: greenlets such as 'app.fetch', 'main' waited "
                 '0.375 s in all to take a gevent semaphore (8 times, most at '
                 '/srv/app/worker.py:50:handler) while the loop sat idle 75% of the run, and '
                 '4 greenlets of their own gave its permits back (Semaphore.release run on a '
                 'timer: gevent.spawn_later(period, sem.release)): a budget of calls per '
                 'period, not holders slow to let go, so holding it for less changes '
                 'nothing. Fix: a larger budget where the upstream allows it (its documented '
                 'rate), or fewer calls (batch them, cache answers); the waits are the limit '
                 'working as written. [cost 0.375 s: greenlet-seconds spent waiting to take '
                 'a lock while the loop sat mostly idle]',
      'rate_limit': True,
      'section': None,
      'site': '/srv/app/worker.py:50:handler',
      'stack': ['/srv/app/worker.py:50:handler'],
      'waits': 8},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 0.375,
      'greenlet': 1,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 0.375,
      'message': "A lock was contended: greenlets such as 'app.fetch', 'main' waited 0.375 s "
                 'in all to take a gevent lock or semaphore (8 times, most at '
                 '/srv/app/worker.py:50:handler) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Fix: hold it for '
                 'less -- make slow calls (the network, the disk) outside the locked block '
                 'and lock only the shared state -- or use one lock per resource; for a '
                 'Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 0.375 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:50:handler',
      'stack': ['/srv/app/worker.py:50:handler'],
      'waits': 8}],
    'awaited_in_turn_at_its_edges': [{'children': 4,
      'cost_meaning': 'seconds the spawners waited while one of their greenlets awaited in '
                      'turn was alive, less the longest life of each run of them (about what '
                      'waiting for them together would take): the most starting them '
                      'together could save',
      'cost_s': 1.3125,
      'greenlet': 3,
      'hazard': False,
      'kind': 'awaited-in-turn',
      'message': "Spawned greenlets were waited for one at a time: greenlet 'app.handle' "
                 '(#3) spawned 4 greenlets and waited for each before starting the next, one '
                 'alive at a time, waiting most at /srv/app/worker.py:40:handle. Their lives '
                 '(median 438 ms, mostly waiting themselves) added up instead of '
                 'overlapping: 1.750 greenlet-seconds of waiting where, started together, '
                 'each run of them would have taken about as long as its longest one. Fix: '
                 'start them all, then wait for them together (gevent.joinall, or call '
                 '.get() on each only after the loop that spawns them), unless each needs '
                 'the one before it. [cost 1.312 s: seconds the spawners waited while one of '
                 'their greenlets awaited in turn was alive, less the longest life of each '
                 'run of them (about what waiting for them together would take): the most '
                 'starting them together could save]',
      'section': None,
      'site': '/srv/app/worker.py:40:handle',
      'spawners': 1,
      'stack': ['/srv/app/worker.py:40:handle'],
      'waited_s': 1.75}],
    'loop_saturated_at_its_queue_share': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 4.27,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 4.270 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'sequential_calls_of_a_job_at_their_edges': [{'calls': 50,
      'cost_meaning': 'greenlet-seconds the calls waited, less what as many at once as the '
                      'busiest pool holds would have left of it',
      'cost_s': 0.75,
      'greenlet': 1,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Upstream calls were made one after another: 50 calls, the HTTP client '
                 'waiting 1.000 s in all (50% of the run; 15.0 ms per call for its answer), '
                 "most at /srv/app/worker.py:27:details by greenlet 'main' (#1), and no pool "
                 'ever had more than 2 connections in use at once, while the loop sat idle '
                 '88% of the run. A greenlet waits on one thing at a time, so the run took '
                 'that many round trips in turn: their latencies added up where they could '
                 'have overlapped. If each call needs the one before it (paging by a cursor: '
                 "the next page's address is in this one's answer), that is the run's floor "
                 'and the cost is not there to save. Otherwise, fix: make them together '
                 "(gevent.pool.Pool(n).imap_unordered over the items, n up to the session's "
                 'pool size, 4 for http://up), or one call for the lot where the upstream '
                 'has a batch or bulk endpoint. [cost 0.750 s: greenlet-seconds the calls '
                 'waited, less what as many at once as the busiest pool holds would have '
                 'left of it]',
      'peak_in_use': 2,
      'pool_maxsize': 4,
      'section': None,
      'site': '/srv/app/worker.py:27:details',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:details',
                '/srv/app/worker.py:40:main'],
      'waited_s': 1.0},
     {'calls': 50,
      'cost_meaning': 'greenlet-seconds the calls waited, less what as many at once as the '
                      'busiest pool holds would have left of it',
      'cost_s': 0.9,
      'greenlet': 1,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Upstream calls were made one after another: 50 calls, the HTTP client '
                 'waiting 1.000 s in all (50% of the run; 15.0 ms per call for its answer), '
                 "most at /srv/app/worker.py:27:details by greenlet 'main' (#1), and no pool "
                 'ever had more than 1 connection in use at once, while the loop sat idle '
                 '88% of the run. A greenlet waits on one thing at a time, so the run took '
                 'that many round trips in turn: their latencies added up where they could '
                 'have overlapped. If each call needs the one before it (paging by a cursor: '
                 "the next page's address is in this one's answer), that is the run's floor "
                 'and the cost is not there to save. Otherwise, fix: make them together '
                 '(gevent.pool.Pool(n).imap_unordered over the items, n about 10, and the '
                 "session's pool_maxsize as large: http://up keeps 1 connection), or one "
                 'call for the lot where the upstream has a batch or bulk endpoint. [cost '
                 '0.900 s: greenlet-seconds the calls waited, less what as many at once as '
                 'the busiest pool holds would have left of it]',
      'peak_in_use': 1,
      'pool_maxsize': 10,
      'section': None,
      'site': '/srv/app/worker.py:27:details',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:details',
                '/srv/app/worker.py:40:main'],
      'waited_s': 1.0}],
    'pool_full_tells_jobs_asleep_or_joining_what_they_started': [{'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so a '
                 "timer of the program's own paced the work, not the pool's size. The jobs "
                 "('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:20:job (sleep): 4 waits of 500 ms on average. Those '
                 "sleeps are gevent.sleep calls of the program's own (2.000 greenlet-seconds "
                 'asleep there): the jobs slept out their slots, and a larger Pool only '
                 'holds more sleepers. If the pause is one the program owes (a crawl delay a '
                 "host asks for, a rate agreed with the upstream), it is the run's floor and "
                 'the cost is not there to save. Otherwise, fix: sleep less there, or wake '
                 "on what the sleep waits for -- a retry's back-off short, jittered and "
                 "growing, with few retries; a rate limiter's rate as high as the upstream "
                 "takes, waiting for the next token instead of polling; a circuit breaker's "
                 "cool-down near the outage's length, with a half-open probe; a poll for a "
                 'result another greenlet sets (a loop sleeping until it appears) replaced '
                 'by waiting on it: a gevent.event.Event or AsyncResult set where the result '
                 "arrives. [cost 2.000 s: greenlet-seconds the pool's jobs slept in the "
                 "program's own gevent.sleep while holding their slots]",
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so a '
                 "timer of the program's own paced the work, not the pool's size. The jobs "
                 "('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:20:job (sleep): 12 waits of 167 ms on average. Those '
                 "sleeps are gevent.sleep calls of the program's own (2.000 greenlet-seconds "
                 'asleep there): the jobs slept out their slots, and a larger Pool only '
                 'holds more sleepers. The upstreams answered 5 of 100 requests with an '
                 'error status (503 x5): most likely what the sleeps back off from, each '
                 'failure holding a slot for a whole sleep. If the pause is one the program '
                 'owes (a crawl delay a host asks for, a rate agreed with the upstream), it '
                 "is the run's floor and the cost is not there to save. Otherwise, fix: "
                 "sleep less there, or wake on what the sleep waits for -- a retry's "
                 "back-off short, jittered and growing, with few retries; a rate limiter's "
                 'rate as high as the upstream takes, waiting for the next token instead of '
                 "polling; a circuit breaker's cool-down near the outage's length, with a "
                 'half-open probe; a poll for a result another greenlet sets (a loop '
                 'sleeping until it appears) replaced by waiting on it: a gevent.event.Event '
                 'or AsyncResult set where the result arrives. [cost 2.000 s: '
                 "greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
                 'while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so a '
                 "timer of the program's own paced the work, not the pool's size. The jobs "
                 "('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:20:job (sleep): 4 waits of 500 ms on average. Those '
                 "sleeps are gevent.sleep calls of the program's own (2.000 greenlet-seconds "
                 'asleep there): the jobs slept out their slots, and a larger Pool only '
                 'holds more sleepers. If the pause is one the program owes (a crawl delay a '
                 "host asks for, a rate agreed with the upstream), it is the run's floor and "
                 'the cost is not there to save. Otherwise, fix: sleep less there, or wake '
                 "on what the sleep waits for -- a retry's back-off short, jittered and "
                 "growing, with few retries; a rate limiter's rate as high as the upstream "
                 "takes, waiting for the next token instead of polling; a circuit breaker's "
                 "cool-down near the outage's length, with a half-open probe; a poll for a "
                 'result another greenlet sets (a loop sleeping until it appears) replaced '
                 'by waiting on it: a gevent.event.Event or AsyncResult set where the result '
                 "arrives. [cost 2.000 s: greenlet-seconds the pool's jobs slept in the "
                 "program's own gevent.sleep while holding their slots]",
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 0.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so a '
                 "timer of the program's own paced the work, not the pool's size. The jobs "
                 "('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 100 ms on '
                 'average. They also slept at /srv/app/worker.py:20:job: 4 sleeps of 125 ms '
                 "on average. Those sleeps are gevent.sleep calls of the program's own "
                 '(0.500 greenlet-seconds asleep there): the jobs slept out their slots, and '
                 'a larger Pool only holds more sleepers. If the pause is one the program '
                 'owes (a crawl delay a host asks for, a rate agreed with the upstream), it '
                 "is the run's floor and the cost is not there to save. Otherwise, fix: "
                 "sleep less there, or wake on what the sleep waits for -- a retry's "
                 "back-off short, jittered and growing, with few retries; a rate limiter's "
                 'rate as high as the upstream takes, waiting for the next token instead of '
                 "polling; a circuit breaker's cool-down near the outage's length, with a "
                 'half-open probe; a poll for a result another greenlet sets (a loop '
                 'sleeping until it appears) replaced by waiting on it: a gevent.event.Event '
                 'or AsyncResult set where the result arrives. [cost 0.500 s: '
                 "greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
                 'while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average. Fix: a larger Pool(size) if what the jobs wait '
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:23:worker',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:23:worker '
                 '(HTTPConnectionPool.urlopen): 4 waits of 500 ms on average. Fix: a larger '
                 'Pool(size) if what the jobs wait on (a downstream service) can take more '
                 'requests at once; if it cannot, the time each job waits is the lever (an '
                 "upstream's latency is its own to cut: its slow query, its capacity); if "
                 "the limit is deliberate (a downstream's rate limit), this is what it "
                 'costs. To tell which: run once with half the Pool size; answers that take '
                 'about as long mean the upstream had room, and a larger Pool helps; answers '
                 'that take about half as long mean it queues them (its own limit), and a '
                 'larger Pool gains nothing. [cost 1.500 s: greenlet-seconds spent waiting '
                 'for a free slot of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs waited at the program's join for the "
                      'greenlets they started, while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:21:job',
      'joined_in_slots': True,
      'joined_s': 2.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "greenlets the jobs waited for paced the work, not the pool's size. The "
                 "jobs ('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:21:job (joinall): 4 waits of 500 ms on average. Those '
                 'are waits for greenlets the jobs started themselves: each job held its '
                 'slot until the slowest of them ended. Fix: if one answer is enough (a '
                 'hedged or raced request), wait for the first (gevent.wait(greenlets, '
                 'count=1)) and kill the others; if every result is needed, bound the slow '
                 'ones (a timeout on their calls); then a larger Pool(size) if the '
                 'downstream can take more requests at once. [cost 2.000 s: greenlet-seconds '
                 "the pool's jobs waited at the program's join for the greenlets they "
                 'started, while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:22:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:22:job (join): 4 waits of 500 '
                 'ms on average. Fix: a larger Pool(size) if what the jobs wait on (a '
                 'downstream service) can take more requests at once; if it cannot, the time '
                 "each job waits is the lever (an upstream's latency is its own to cut: its "
                 "slow query, its capacity); if the limit is deliberate (a downstream's rate "
                 'limit), this is what it costs. To tell which: run once with half the Pool '
                 'size; answers that take about as long mean the upstream had room, and a '
                 'larger Pool helps; answers that take about half as long mean it queues '
                 'them (its own limit), and a larger Pool gains nothing. [cost 1.500 s: '
                 'greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:23:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:23:job: 4 waits of 500 ms on '
                 'average. Fix: a larger Pool(size) if what the jobs wait on (a downstream '
                 'service) can take more requests at once; if it cannot, the time each job '
                 "waits is the lever (an upstream's latency is its own to cut: its slow "
                 "query, its capacity); if the limit is deliberate (a downstream's rate "
                 'limit), this is what it costs. To tell which: run once with half the Pool '
                 'size; answers that take about as long mean the upstream had room, and a '
                 'larger Pool helps; answers that take about half as long mean it queues '
                 'them (its own limit), and a larger Pool gains nothing. [cost 1.500 s: '
                 'greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'requests_failed_retried_inside_against_the_read_timeout': [{'calls': 10,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'ReadTimeoutError': 4},
      'failed': 4,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 4 of 10 requests raised instead of answering '
                 '(ReadTimeoutError x4), after 0.500 s each on average: 2.000 '
                 'greenlet-seconds spent in requests that got no answer (http://a:80: 4 of '
                 '10, 2.000 s), most made at /srv/app/worker.py:40:call. The upstream did '
                 'not answer within the read timeout (0.125 s): it is slower than the '
                 'timeout allows (a timeout too short for it, or an upstream that needs '
                 'fixing) or it is down, and then a circuit breaker stops paying the timeout '
                 'on every call. urllib3 tried again inside the calls: 40 attempts for 10 '
                 'requests, 30 of them after an attempt failed (a timed-out attempt waits '
                 'out its whole timeout first: about 4 read timeouts per failed request); '
                 'attempts that failed before one answered are in no count of failures, only '
                 "in the calls' time. The requests that answered took 0.062 s to their "
                 'response on average (5 timed), against the read timeout of 0.125 s: the '
                 "time allowed sits within this upstream's usual latency, so much of what it "
                 'cut off would have answered, and trying again only repeats the wait. Fix: '
                 'raise the timeout above the slowest answer you accept (or make the '
                 'upstream faster). [cost 2.000 s: greenlet-seconds spent inside requests '
                 'that raised (a timeout, a refused or reset connection) instead of '
                 "answering; urllib3's retry back-off inside them is retry-backoff's figure "
                 'too]',
      'pools': ['http://a:80'],
      'read_timeout_s': 0.125,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': True},
     {'calls': 10,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'ReadTimeoutError': 4},
      'failed': 4,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 4 of 10 requests raised instead of answering '
                 '(ReadTimeoutError x4), after 0.500 s each on average: 2.000 '
                 'greenlet-seconds spent in requests that got no answer (http://a:80: 4 of '
                 '10, 2.000 s), most made at /srv/app/worker.py:40:call. The upstream did '
                 'not answer within the read timeout (0.125 s): it is slower than the '
                 'timeout allows (a timeout too short for it, or an upstream that needs '
                 'fixing) or it is down, and then a circuit breaker stops paying the timeout '
                 'on every call. urllib3 tried again inside the calls: 40 attempts for 10 '
                 'requests, 30 of them after an attempt failed (a timed-out attempt waits '
                 'out its whole timeout first: about 4 read timeouts per failed request); '
                 'attempts that failed before one answered are in no count of failures, only '
                 "in the calls' time. That time bought no answer: the fix is on the "
                 "upstream's side, or in the timeout, retries and fallback the calls give "
                 'it. [cost 2.000 s: greenlet-seconds spent inside requests that raised (a '
                 "timeout, a refused or reset connection) instead of answering; urllib3's "
                 "retry back-off inside them is retry-backoff's figure too]",
      'pools': ['http://a:80'],
      'read_timeout_s': 0.125,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': False},
     {'calls': 10,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'ReadTimeoutError': 4},
      'failed': 4,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 4 of 10 requests raised instead of answering '
                 '(ReadTimeoutError x4), after 0.500 s each on average: 2.000 '
                 'greenlet-seconds spent in requests that got no answer (http://a:80: 4 of '
                 '10, 2.000 s), most made at /srv/app/worker.py:40:call. The upstream did '
                 'not answer within the read timeout (0.125 s): it is slower than the '
                 'timeout allows (a timeout too short for it, or an upstream that needs '
                 'fixing) or it is down, and then a circuit breaker stops paying the timeout '
                 'on every call. The requests that answered took 0.062 s to their response '
                 'on average (5 timed), against the read timeout of 0.125 s: the time '
                 "allowed sits within this upstream's usual latency, so much of what it cut "
                 'off would have answered, and trying again only repeats the wait. Fix: '
                 'raise the timeout above the slowest answer you accept (or make the '
                 'upstream faster). [cost 2.000 s: greenlet-seconds spent inside requests '
                 'that raised (a timeout, a refused or reset connection) instead of '
                 "answering; urllib3's retry back-off inside them is retry-backoff's figure "
                 'too]',
      'pools': ['http://a:80'],
      'read_timeout_s': 0.125,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': True},
     {'calls': 10,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'ReadTimeoutError': 4},
      'failed': 4,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 4 of 10 requests raised instead of answering '
                 '(ReadTimeoutError x4), after 0.500 s each on average: 2.000 '
                 'greenlet-seconds spent in requests that got no answer (http://a:80: 4 of '
                 '10, 2.000 s), most made at /srv/app/worker.py:40:call. The upstream did '
                 'not answer within the read timeout (0.125 s): it is slower than the '
                 'timeout allows (a timeout too short for it, or an upstream that needs '
                 'fixing) or it is down, and then a circuit breaker stops paying the timeout '
                 'on every call. urllib3 tried again inside the calls: 20 attempts for 10 '
                 'requests, 10 of them after an attempt failed (a timed-out attempt waits '
                 'out its whole timeout first: about 4 read timeouts per failed request); '
                 'attempts that failed before one answered are in no count of failures, only '
                 "in the calls' time. The requests that answered took 0.062 s to their "
                 'response on average (5 timed), against the read timeout of 0.125 s: the '
                 "time allowed sits within this upstream's usual latency, so much of what it "
                 'cut off would have answered, and trying again only repeats the wait. Fix: '
                 'raise the timeout above the slowest answer you accept (or make the '
                 'upstream faster). [cost 2.000 s: greenlet-seconds spent inside requests '
                 'that raised (a timeout, a refused or reset connection) instead of '
                 "answering; urllib3's retry back-off inside them is retry-backoff's figure "
                 'too]',
      'pools': ['http://a:80'],
      'read_timeout_s': 0.125,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': True},
     {'calls': 10,
      'cost_meaning': 'greenlet-seconds spent inside requests that raised (a timeout, a '
                      "refused or reset connection) instead of answering; urllib3's retry "
                      "back-off inside them is retry-backoff's figure too",
      'cost_s': 2.0,
      'errors': {'ReadTimeoutError': 4},
      'failed': 4,
      'greenlet': 3,
      'hazard': False,
      'kind': 'requests-failed',
      'message': 'Requests failed: 4 of 10 requests raised instead of answering '
                 '(ReadTimeoutError x4), after 0.500 s each on average: 2.000 '
                 'greenlet-seconds spent in requests that got no answer (http://a:80: 4 of '
                 '10, 2.000 s), most made at /srv/app/worker.py:40:call. The upstream did '
                 'not answer within the read timeout (0.125 s): it is slower than the '
                 'timeout allows (a timeout too short for it, or an upstream that needs '
                 'fixing) or it is down, and then a circuit breaker stops paying the timeout '
                 'on every call. The requests that answered took 0.062 s to their response '
                 'on average (5 timed), against the read timeout of 0.125 s: the time '
                 "allowed sits within this upstream's usual latency, so much of what it cut "
                 'off would have answered, and trying again only repeats the wait. Fix: '
                 'raise the timeout above the slowest answer you accept (or make the '
                 'upstream faster). [cost 2.000 s: greenlet-seconds spent inside requests '
                 'that raised (a timeout, a refused or reset connection) instead of '
                 "answering; urllib3's retry back-off inside them is retry-backoff's figure "
                 'too]',
      'pools': ['http://a:80'],
      'read_timeout_s': 0.125,
      'section': None,
      'site': '/srv/app/worker.py:40:call',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call'],
      'timeout_near_latency': True}],
    'lock_contended_names_the_calls_inside_the_function_that_takes_it': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 3.25,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) '
                 'waited at /srv/app/worker.py:67:lookup from /srv/app/worker.py:80:export: '
                 '4 calls of 500 ms; at /srv/app/worker.py:67:lookup from '
                 '/srv/app/worker.py:90:resolve: 10 waits of 125 ms: what each holder held '
                 'it for. Callers of different kinds share it: those from '
                 '/srv/app/worker.py:80:export held it 4 times as long per call as those '
                 'from /srv/app/worker.py:90:resolve; give each kind (each upstream) a lock '
                 'or semaphore of its own. Fix: hold it for less -- make slow calls (the '
                 'network, the disk) outside the locked block and lock only the shared state '
                 '-- or use one lock per resource; for a Semaphore(n) that limits '
                 'concurrency on purpose, a larger n if what it guards can take more calls '
                 'at once. [cost 2.000 s: greenlet-seconds spent waiting to take a lock '
                 'while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 3.2499847412109375,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) '
                 'waited at /srv/app/worker.py:67:lookup from /srv/app/worker.py:80:export: '
                 '4 calls of 500 ms; at /srv/app/worker.py:67:lookup from '
                 '/srv/app/worker.py:90:resolve: 10 waits of 125 ms: what each holder held '
                 'it for. Fix: hold it for less -- make slow calls (the network, the disk) '
                 'outside the locked block and lock only the shared state -- or use one lock '
                 'per resource; for a Semaphore(n) that limits concurrency on purpose, a '
                 'larger n if what it guards can take more calls at once. [cost 2.000 s: '
                 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                 'idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4}],
    'serial_bottleneck_told_as_a_gate_at_its_edge': [{'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': True,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the wait() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 88% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. The others waited '
                 'in wait() again and again (6 waits by 2 greenlets): an event that a '
                 'greenlet sets. If the one that sets it clears it while it works (a gate '
                 'closed around each refresh of a shared value: a config, a token, a cache), '
                 'every waiter stops for every refresh though it holds a usable value, and '
                 'more refreshers only refresh more often. Fix: do not clear it -- build the '
                 'new value and swap it in, so that the waiters wait only for the first one. '
                 'If instead each set brings new work, do that work concurrently (several '
                 'such greenlets, or gevent.pool.Pool(n).imap_unordered over its inputs). '
                 '[cost 4.500 s: greenlet-seconds spent waiting at hand-offs (a queue, an '
                 "event, a greenlet's end) for a few busy greenlets while the loop sat "
                 'mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 8},
     {'cost_meaning': 'greenlet-seconds spent waiting at hand-offs (a queue, an event, a '
                      "greenlet's end) for a few busy greenlets while the loop sat mostly "
                      'idle',
      'cost_s': 4.5,
      'feeders': [3],
      'gate': False,
      'greenlet': 3,
      'handoff_share': 0.6923076923076923,
      'handoff_wait_s': 4.5,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'serial-bottleneck',
      'message': "Many greenlets waited for a few: greenlets such as 'app.driver', "
                 "'app.fetch' waited 4.500 s in all at hand-offs (69% of all event wait; "
                 'most in the wait() call at /srv/app/worker.py:80:consume: a gevent queue, '
                 'event or greenlet, waiting for another greenlet to put, set or finish) '
                 'while the loop sat idle 75% of the run. Busy through the run meanwhile, '
                 "one call at a time: greenlet 'app.produce' (#3), busy 88% of the run, "
                 '1.500 s of it waiting at /srv/app/worker.py:20:produce. Who woke whom is '
                 'not recorded: these are the greenlets that kept working while the others '
                 "waited, so most likely their pace set everyone's. If what they wait on is "
                 'input that arrives at its own pace (a long-poll on a message broker, a '
                 "server's requests), the waiting greenlets are spare capacity, not a fault, "
                 'and more of these would change nothing. Otherwise, fix: do that work '
                 'concurrently -- several such greenlets, or '
                 'gevent.pool.Pool(n).imap_unordered over its inputs -- or let the waiting '
                 'greenlets do it themselves. [cost 4.500 s: greenlet-seconds spent waiting '
                 "at hand-offs (a queue, an event, a greenlet's end) for a few busy "
                 'greenlets while the loop sat mostly idle]',
      'peers': False,
      'section': None,
      'site': '/srv/app/worker.py:20:produce',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/response.py:1134:HTTPResponse.read',
                '/srv/app/worker.py:20:produce'],
      'waits': 7}],
    'loop_saturated_by_tiny_threadpool_tasks': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: it hands tiny tasks to a threadpool: 1000 '
                 'json.loads tasks from this line did 100 us of work each on average, while '
                 'their callers waited 500 us for each result: each hand-off (a queue, a '
                 "worker thread's wake-up, the loop's wake-up for the result) costs the loop "
                 'far more than the work, so the threadpool is the cost here, not the cure; '
                 'call json.loads inline, or hand over whole batches (a body, not its '
                 'lines). [cost 3.500 s: greenlet-seconds greenlets spent ready to run but '
                 "queued behind others (the run's ready wait, less what a loop-blocked, "
                 'blocking-call, slow-path or cpu-starved finding explains), plus the '
                 "queueing behind the top holder's own slices over the block threshold when "
                 'they burned the CPU in the same code (no loop-blocked finding then tells '
                 'them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind '
                      "others (the run's ready wait, less what a loop-blocked, "
                      'blocking-call, slow-path or cpu-starved finding explains), plus the '
                      "queueing behind the top holder's own slices over the block threshold "
                      'when they burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others "
                 'were ready on average, 0.125 greenlet-s of their waiting); inside sections '
                 "'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) '
                 'at /srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved '
                 'out of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others '
                 "(the run's ready wait, less what a loop-blocked, blocking-call, slow-path "
                 'or cpu-starved finding explains), plus the queueing behind the top '
                 "holder's own slices over the block threshold when they burned the CPU in "
                 'the same code (no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'lock_contended_on_a_log_handlers_lock': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'logging_lock': True,
      'message': "Log records queued for a handler: greenlets such as 'app.fetch' waited "
                 "2.000 s in all to take the logging package's lock (4 times, logging at "
                 '/srv/app/worker.py:18:work) while the loop sat idle 75% of the run. A '
                 'handler takes its lock around each record it emits, so one slow emit (a '
                 'network or pipe write, a log shipper that fell behind) holds every '
                 'greenlet that logs behind it. Fix: make the emit cheap -- hand records to '
                 'a logging.handlers.QueueHandler and emit them from one greenlet or thread '
                 'of their own (a QueueListener) -- or log less on this path. [cost 2.000 s: '
                 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                 'idle]',
      'section': None,
      'site': '/srv/app/worker.py:18:work',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/thread.py:320:LockType.acquire',
                '/usr/lib/python3.11/threading.py:168:_RLock.acquire',
                '/usr/lib/python3.11/logging/__init__.py:927:Handler.acquire',
                '/usr/lib/python3.11/logging/__init__.py:976:Handler.handle',
                '/usr/lib/python3.11/logging/__init__.py:1706:Logger.callHandlers',
                '/srv/app/worker.py:18:work'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'logging_lock': True,
      'message': "Log records queued for a handler: greenlets such as 'app.fetch' waited "
                 "2.000 s in all to take the logging package's lock (4 times, logging at "
                 '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:290:HTTPConnectionPool._get_conn) '
                 'while the loop sat idle 75% of the run. A handler takes its lock around '
                 'each record it emits, so one slow emit (a network or pipe write, a log '
                 'shipper that fell behind) holds every greenlet that logs behind it. Fix: '
                 'make the emit cheap -- hand records to a logging.handlers.QueueHandler and '
                 'emit them from one greenlet or thread of their own (a QueueListener) -- or '
                 'log less on this path. [cost 2.000 s: greenlet-seconds spent waiting to '
                 'take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:290:HTTPConnectionPool._get_conn',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/thread.py:320:LockType.acquire',
                '/usr/lib/python3.11/threading.py:168:_RLock.acquire',
                '/usr/lib/python3.11/logging/__init__.py:927:Handler.acquire',
                '/usr/lib/python3.11/logging/__init__.py:976:Handler.handle',
                '/usr/lib/python3.11/logging/__init__.py:1706:Logger.callHandlers',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:290:HTTPConnectionPool._get_conn'],
      'waits': 4}],
    'queue_lockstep_at_its_edges': [{'consumer': 'app.load',
      'cost_meaning': 'greenlet-seconds the smaller side of a bounded queue waited at it (a '
                      'producer in put, a consumer in get): the most the two stages could '
                      'overlap',
      'cost_s': 0.5,
      'get_site': '/srv/app/worker.py:40:load',
      'get_wait_s': 0.75,
      'greenlet': 3,
      'hazard': False,
      'kind': 'queue-lockstep',
      'message': "Two stages took turns at a bounded queue: 'app.extract' waited 0.500 s to "
                 'put into a full queue (40 times, at /srv/app/worker.py:34:extract) and '
                 "'app.load' waited 0.750 s to get from an empty one (4 times, at "
                 '/srv/app/worker.py:40:load), 25% and 38% of the run each. A put waits only '
                 'when the queue is full and a get only when it is empty: when both wait '
                 'this long, neither stage is the bottleneck; each waits for the other in '
                 'turn, and the run takes the sum of their times instead of the larger. The '
                 'queue is too small to hold what one stage produces while the other works '
                 '(a page of items, a batch). Fix: a larger maxsize -- at least one burst, a '
                 'page or a batch of items -- or no bound where memory allows; then, if one '
                 'stage stays behind, more greenlets for it. [cost 0.500 s: greenlet-seconds '
                 'the smaller side of a bounded queue waited at it (a producer in put, a '
                 'consumer in get): the most the two stages could overlap]',
      'producer': 'app.extract',
      'put_site': '/srv/app/worker.py:34:extract',
      'put_wait_s': 0.5,
      'section': None,
      'stack': ['/srv/app/worker.py:34:extract']}],
    'queue_full_at_its_edges': [{'calls_site': None,
      'consumer': 'app.load',
      'cost_meaning': 'greenlet-seconds a producer waited to put into a full queue behind '
                      'one consumer',
      'cost_s': 1.0,
      'get_wait_s': 0.4999847412109375,
      'greenlet': 3,
      'hazard': False,
      'kind': 'queue-full',
      'message': "A producer waited on a full queue: 'app.extract' waited 1.000 s to put "
                 'into it (40 times, at /srv/app/worker.py:34:extract), 50% of the run, '
                 "while what takes from it was 'app.load', one greenlet that waited for "
                 'items only 25% of the run (at /srv/app/worker.py:40:load). The consumer is '
                 "slower than what feeds it, so its pace was the run's. Fix: more consumers "
                 '-- several greenlets taking from the queue, or a gevent.pool.Pool(n) over '
                 'its items -- if their work can run side by side (calls to an upstream that '
                 'takes more at once); else make each item cheaper (one batch call for '
                 "several items). If the consumer's pace is a limit by design (an upstream's "
                 'rate), this is what it costs. [cost 1.000 s: greenlet-seconds a producer '
                 'waited to put into a full queue behind one consumer]',
      'producer': 'app.extract',
      'put_site': '/srv/app/worker.py:34:extract',
      'put_wait_s': 1.0,
      'section': None,
      'stack': ['/srv/app/worker.py:34:extract']}],
    'connection_churn_of_pools_in_several_sizes': [{'bound_concurrency': False,
      'churn_share': 0.75,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.125,
      'fix_pool_maxsize': 17,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for https://a:443 "
                 'keeps 4 to 16 connections (the pool_maxsize of its 2 pools), but up to 16 '
                 'requests were in flight to it at once. It discarded 60 connections that '
                 'came back to the full pool, and the next requests opened new ones: 64 '
                 'opened, 48 more than a pool of 16 would have (a connect and a TLS '
                 'handshake each); most were opened under '
                 '/srv/app/worker.py:30:with_a_session by greenlets. 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 75% of that '
                 'is the churn. Fix: a pool as large as the requests in flight: '
                 "geventperf.mount(session, pool_maxsize=17), or session.mount('https://', "
                 "requests.adapters.HTTPAdapter(pool_maxsize=17)); urllib3 logs 'Connection "
                 "pool is full, discarding connection' at WARNING each time. [cost 1.125 s: "
                 'the share of connection set-up a pool as large as the requests in flight '
                 'would have saved (connections opened past that size over all opened), of '
                 "the greenlet-seconds spent waiting to open connections plus the run's "
                 'ready wait times the share of the sampled CPU that set connections up '
                 '(none without CPU samples)]',
      'others_ready_wait_s': 0.75,
      'peak_in_use': 16,
      'pool_maxsize': 16,
      'pools': ['https://a:443'],
      'reopened': 48,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'bound_concurrency': False,
      'churn_share': 0.75,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.125,
      'fix_pool_maxsize': 17,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for https://a:443 "
                 'keeps 16 connections (pool_maxsize), but up to 16 requests were in flight '
                 'to it at once. It discarded 60 connections that came back to the full '
                 'pool, and the next requests opened new ones: 64 opened, 48 more than a '
                 'pool of 16 would have (a connect and a TLS handshake each); most were '
                 'opened under /srv/app/worker.py:30:with_a_session by greenlets. 0.500 s '
                 'was spent waiting to open connections; 25% of the sampled CPU set '
                 'connections up and closed them, which queued the others about 1.000 '
                 'greenlet-s; 75% of that is the churn. Fix: a pool as large as the requests '
                 'in flight: geventperf.mount(session, pool_maxsize=17), or '
                 "session.mount('https://', requests.adapters.HTTPAdapter(pool_maxsize=17)); "
                 "urllib3 logs 'Connection pool is full, discarding connection' at WARNING "
                 'each time. [cost 1.125 s: the share of connection set-up a pool as large '
                 'as the requests in flight would have saved (connections opened past that '
                 'size over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.75,
      'peak_in_use': 16,
      'pool_maxsize': 16,
      'pools': ['https://a:443'],
      'reopened': 48,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'bound_concurrency': False,
      'churn_share': 0.75,
      'connect_wait_s': 0.5,
      'cost_meaning': 'the share of connection set-up a pool as large as the requests in '
                      'flight would have saved (connections opened past that size over all '
                      'opened), of the greenlet-seconds spent waiting to open connections '
                      "plus the run's ready wait times the share of the sampled CPU that set "
                      'connections up (none without CPU samples)',
      'cost_s': 1.125,
      'fix_pool_maxsize': 17,
      'greenlet': None,
      'hazard': False,
      'kind': 'connection-churn',
      'message': "Connections thrown away and opened again: urllib3's pool for https://a:443 "
                 'keeps 16 connections (pool_maxsize), but up to 16 requests were in flight '
                 'to it at once. It discarded 60 connections that came back to the full '
                 'pool, and the next requests opened new ones: 64 opened, 48 more than a '
                 'pool of 16 would have (a connect and a TLS handshake each); most were '
                 'opened under /srv/app/worker.py:30:with_a_session by greenlets. 0.500 s '
                 'was spent waiting to open connections; 25% of the sampled CPU set '
                 'connections up and closed them, which queued the others about 1.000 '
                 'greenlet-s; 75% of that is the churn. Fix: a pool as large as the requests '
                 'in flight: geventperf.mount(session, pool_maxsize=17), or '
                 "session.mount('https://', requests.adapters.HTTPAdapter(pool_maxsize=17)); "
                 "urllib3 logs 'Connection pool is full, discarding connection' at WARNING "
                 'each time. [cost 1.125 s: the share of connection set-up a pool as large '
                 'as the requests in flight would have saved (connections opened past that '
                 'size over all opened), of the greenlet-seconds spent waiting to open '
                 "connections plus the run's ready wait times the share of the sampled CPU "
                 'that set connections up (none without CPU samples)]',
      'others_ready_wait_s': 0.75,
      'peak_in_use': 16,
      'pool_maxsize': 16,
      'pools': ['https://a:443'],
      'reopened': 48,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
    'pool_full_asleep_at_its_share': [{'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 0.375,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so a '
                 "timer of the program's own paced the work, not the pool's size. The jobs "
                 "('app.fetch', 'app.parse') held their slots mostly waiting at "
                 '/srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 88 ms on '
                 'average. They also slept at /srv/app/worker.py:20:job: 3 sleeps of 125 ms '
                 "on average. Those sleeps are gevent.sleep calls of the program's own "
                 '(0.375 greenlet-seconds asleep there): the jobs slept out their slots, and '
                 'a larger Pool only holds more sleepers. If the pause is one the program '
                 'owes (a crawl delay a host asks for, a rate agreed with the upstream), it '
                 "is the run's floor and the cost is not there to save. Otherwise, fix: "
                 "sleep less there, or wake on what the sleep waits for -- a retry's "
                 "back-off short, jittered and growing, with few retries; a rate limiter's "
                 'rate as high as the upstream takes, waiting for the next token instead of '
                 "polling; a circuit breaker's cool-down near the outage's length, with a "
                 'half-open probe; a poll for a result another greenlet sets (a loop '
                 'sleeping until it appears) replaced by waiting on it: a gevent.event.Event '
                 'or AsyncResult set where the result arrives. [cost 0.375 s: '
                 "greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
                 'while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 88 ms on average. Fix: a larger Pool(size) if what the jobs wait '
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'queue_full_not_from_mains_end_wait_nor_without_a_consumer': [],
    'loop_saturated_hot_share_not_for_holders_off_the_cpu': [],
    'lock_contended_counts_the_cpu_inside_the_function_that_takes_it': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0625,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) ran '
                 '0.062 s of CPU there (sampled; 100% of it at '
                 '/srv/app/worker.py:68:lookup): what each holder held it for. Fix: hold it '
                 'for less -- make slow calls (the network, the disk) outside the locked '
                 'block and lock only the shared state -- or use one lock per resource; for '
                 'a Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 2.000 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat '
                      'mostly idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 0,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all "
                 'to take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Fix: hold it for '
                 'less -- make slow calls (the network, the disk) outside the locked block '
                 'and lock only the shared state -- or use one lock per resource; for a '
                 'Semaphore(n) that limits concurrency on purpose, a larger n if what it '
                 'guards can take more calls at once. [cost 2.000 s: greenlet-seconds spent '
                 'waiting to take a lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4}],
    'pool_full_quotes_an_upstream_only_for_as_many_answers_as_calls': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average; their requests to http://a:80 took 50 ms to '
                 "the response head on average (20 timed): the upstream's time to answer "
                 "(the network's included), and what each slot was held for. Fix: a larger "
                 'Pool(size) if what the jobs wait on (a downstream service) can take more '
                 'requests at once; if it cannot, the time each job waits is the lever (an '
                 "upstream's latency is its own to cut: its slow query, its capacity); if "
                 "the limit is deliberate (a downstream's rate limit), this is what it "
                 'costs. To tell which: run once with half the Pool size; answers that take '
                 'about as long mean the upstream had room, and a larger Pool helps; answers '
                 'that take about half as long mean it queues them (its own limit), and a '
                 'larger Pool gains nothing. [cost 1.500 s: greenlet-seconds spent waiting '
                 'for a free slot of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. The jobs ('app.fetch', 'app.parse') held their "
                 'slots mostly waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 '
                 'waits of 100 ms on average. Fix: a larger Pool(size) if what the jobs wait '
                 'on (a downstream service) can take more requests at once; if it cannot, '
                 "the time each job waits is the lever (an upstream's latency is its own to "
                 'cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long '
                 'mean it queues them (its own limit), and a larger Pool gains nothing. '
                 '[cost 1.500 s: greenlet-seconds spent waiting for a free slot of a gevent '
                 'Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'cpu_slice_leaves_a_backlog': [{'active_s': 0.5,
      'backlog_s': 0.703125,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 2.703125,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 2.000 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s), and 0.703 more in the backlog they left (the ready '
                 'queue above its usual length until it next emptied). It was CPU work (0.500 '
                 's of CPU); the slice ended at /srv/app/worker.py:20:job. Fix: first make '
                 'that code cheaper (one line burning the CPU this long is often work that '
                 'grows with the square of its input: += on bytes or str in a loop, a list '
                 'searched inside a loop, a sort or copy repeated); then split what must stay '
                 'expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O of '
                 'waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and gevent '
                 'runs up to 50 such wake-ups back to back before it polls for I/O; or move it '
                 "to a process pool (a C call that releases the GIL, such as hashlib's or "
                 "zlib's, to gevent.get_hub().threadpool). [cost 2.703 s: greenlet-seconds "
                 'other greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.0625,
      'backlog_s': 0.88671875,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 1.13671875,
      'count': 1,
      'cpu_s': 0.0625,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.0625,
      'longest_wait_s': 0.0625,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.062 s without yielding, while "
                 'others were ready to run: 0.250 greenlet-seconds of their waiting (one '
                 'waited up to 0.062 s), and 0.887 more in the backlog they left (the ready '
                 'queue above its usual length until it next emptied). It was CPU work (0.062 '
                 's of CPU); the slice ended at /srv/app/worker.py:20:job. Fix: first make '
                 'that code cheaper (one line burning the CPU this long is often work that '
                 'grows with the square of its input: += on bytes or str in a loop, a list '
                 'searched inside a loop, a sort or copy repeated); then split what must stay '
                 'expensive and yield between pieces of a millisecond or two with '
                 'gevent.idle() (it resumes once the loop has run what is pending, the I/O of '
                 'waiting greenlets included: suited to background work) or '
                 'gevent.sleep(0.001) (a timer: the loop polls for I/O before it fires), not '
                 'gevent.sleep(0): that gives way only to greenlets already ready, and gevent '
                 'runs up to 50 such wake-ups back to back before it polls for I/O; or move it '
                 "to a process pool (a C call that releases the GIL, such as hashlib's or "
                 "zlib's, to gevent.get_hub().threadpool). [cost 1.137 s: greenlet-seconds "
                 'other greenlets spent ready to run but held up by these slices, and in the '
                 'backlog they left (the ready queue above its usual length until it next '
                 'emptied)]',
      'run_s': 0.0625,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 2.0,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 2.000 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended at '
                 '/srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the loop '
                 'has run what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before it '
                 'polls for I/O; or move it to a process pool (a C call that releases the GIL, '
                 "such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 2.000 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'batches_and_turns_of_a_spawner_that_paced_itself': [{'batches': 3,
      'children': 24,
      'cost_meaning': 'seconds the spawner waited for its batches beyond what a pool as large '
                      'as their peak, starting one greenlet as each ends, would take for the '
                      "same greenlets' lives (the most it could save)",
      'cost_s': 1.1484375,
      'greenlet': 1,
      'hazard': False,
      'kind': 'batch-barrier',
      'mean_alive': 1.7777777777777777,
      'message': "Batches waited for their slowest: greenlet 'main' (#1) waited 1.477 s (74% "
                 'of the run) for greenlets it spawned in 3 batches, 24 in all and up to 8 at '
                 'once, most at /srv/app/worker.py:36:main, yet while it waited only 1.8 of '
                 'them were still running on average: each batch lasted as long as its slowest '
                 'member (their lives: median 62 ms, longest 438 ms), and the slots of those '
                 'done early stayed empty. Fix: if the items are independent, feed them all '
                 'through one gevent.pool.Pool(8) (imap_unordered, or spawn as slots free) so '
                 "that a slow one holds one slot, not the batch; if a batch's results are "
                 'needed together, bound its slow members (a timeout, a hedged second '
                 'request). [cost 1.148 s: seconds the spawner waited for its batches beyond '
                 'what a pool as large as their peak, starting one greenlet as each ends, '
                 "would take for the same greenlets' lives (the most it could save)]",
      'peak': 8,
      'section': None,
      'site': '/srv/app/worker.py:36:main',
      'spawners': 1,
      'stack': ['/srv/app/worker.py:36:main'],
      'waited_s': 1.4765625},
     {'children': 4,
      'cost_meaning': 'seconds the spawners waited while one of their greenlets awaited in '
                      'turn was alive, less the longest life of each run of them (about what '
                      'waiting for them together would take): the most starting them together '
                      'could save',
      'cost_s': 1.3125,
      'greenlet': 3,
      'hazard': False,
      'kind': 'awaited-in-turn',
      'message': "Spawned greenlets were waited for one at a time: greenlet 'app.handle' (#3) "
                 'spawned 4 greenlets and waited for each before starting the next, one alive '
                 'at a time, waiting most at /srv/app/worker.py:40:handle. Their lives (median '
                 '438 ms, mostly waiting themselves) added up instead of overlapping: 1.750 '
                 'greenlet-seconds of waiting where, started together, each run of them would '
                 'have taken about as long as its longest one. Fix: start them all, then wait '
                 'for them together (gevent.joinall, or call .get() on each only after the '
                 'loop that spawns them), unless each needs the one before it. [cost 1.312 s: '
                 'seconds the spawners waited while one of their greenlets awaited in turn was '
                 'alive, less the longest life of each run of them (about what waiting for '
                 'them together would take): the most starting them together could save]',
      'section': None,
      'site': '/srv/app/worker.py:40:handle',
      'spawners': 1,
      'stack': ['/srv/app/worker.py:40:handle'],
      'waited_s': 1.75}],
    'connection_pool_full_tells_connections_idle_between_uses': [{'cost_meaning': "greenlet-seconds spent waiting for a free connection of requests' "
                      'connection pool while the loop sat mostly idle',
      'cost_s': 0.75,
      'greenlet': 1,
      'handover_s': 0.25,
      'handover_share': 0.125,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'connection-pool-full',
      'message': "requests' connection pool was full: greenlets such as 'app.fetch', 'main' "
                 'waited 0.750 s in all for a free connection (8 times, most at '
                 '/srv/app/worker.py:18:worker) while the loop sat idle 75% of the run: the '
                 'adapter keeps at most pool_maxsize connections per host and, with '
                 'pool_block=True, a request that finds them all in use waits for one; no '
                 'other finding explains their waits, so that size paced the work (the network '
                 'was not the slow part). Fix: mount an adapter with a pool_maxsize as large '
                 'as the number of greenlets that share the session '
                 '(requests.adapters.HTTPAdapter(pool_maxsize=n, pool_block=True), or '
                 'geventperf.mount(session, pool_maxsize=n)) if the downstream can take that '
                 "many connections; if the limit is deliberate (the downstream's own "
                 'connection limit), this is what it costs. And the connections sat idle '
                 'between uses: a connection given back goes to the next waiter, which then '
                 'queued for the loop (0.250 greenlet-seconds of ready wait at the pool, 12% '
                 "of its 1 connection's time) while other greenlets ran; CPU samples put 75% "
                 'of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job: work '
                 "in the loop between the calls slows the pool's turnover, so making it "
                 'cheaper (or moving it out of the loop) lets the same connections serve more. '
                 '[cost 0.750 s: greenlet-seconds spent waiting for a free connection of '
                 "requests' connection pool while the loop sat mostly idle]",
      'section': None,
      'site': '/srv/app/worker.py:18:worker',
      'slot_wait_s': 0.75,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:280:HTTPConnectionPool._get_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:773:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:18:worker'],
      'waits': 8},
     {'cost_meaning': "greenlet-seconds spent waiting for a free connection of requests' "
                      'connection pool while the loop sat mostly idle',
      'cost_s': 0.75,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'connection-pool-full',
      'message': "requests' connection pool was full: greenlets such as 'app.fetch', 'main' "
                 'waited 0.750 s in all for a free connection (8 times, most at '
                 '/srv/app/worker.py:18:worker) while the loop sat idle 75% of the run: the '
                 'adapter keeps at most pool_maxsize connections per host and, with '
                 'pool_block=True, a request that finds them all in use waits for one; no '
                 'other finding explains their waits, so that size paced the work (the network '
                 'was not the slow part). Fix: mount an adapter with a pool_maxsize as large '
                 'as the number of greenlets that share the session '
                 '(requests.adapters.HTTPAdapter(pool_maxsize=n, pool_block=True), or '
                 'geventperf.mount(session, pool_maxsize=n)) if the downstream can take that '
                 "many connections; if the limit is deliberate (the downstream's own "
                 'connection limit), this is what it costs. [cost 0.750 s: greenlet-seconds '
                 "spent waiting for a free connection of requests' connection pool while the "
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:18:worker',
      'slot_wait_s': 0.75,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:280:HTTPConnectionPool._get_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:773:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:18:worker'],
      'waits': 8},
     {'cost_meaning': "greenlet-seconds spent waiting for a free connection of requests' "
                      'connection pool while the loop sat mostly idle',
      'cost_s': 0.75,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'connection-pool-full',
      'message': "requests' connection pool was full: greenlets such as 'app.fetch', 'main' "
                 'waited 0.750 s in all for a free connection (8 times, most at '
                 '/srv/app/worker.py:18:worker) while the loop sat idle 75% of the run: the '
                 'adapter keeps at most pool_maxsize connections per host and, with '
                 'pool_block=True, a request that finds them all in use waits for one; no '
                 'other finding explains their waits, so that size paced the work (the network '
                 'was not the slow part). Fix: mount an adapter with a pool_maxsize as large '
                 'as the number of greenlets that share the session '
                 '(requests.adapters.HTTPAdapter(pool_maxsize=n, pool_block=True), or '
                 'geventperf.mount(session, pool_maxsize=n)) if the downstream can take that '
                 "many connections; if the limit is deliberate (the downstream's own "
                 'connection limit), this is what it costs. [cost 0.750 s: greenlet-seconds '
                 "spent waiting for a free connection of requests' connection pool while the "
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:18:worker',
      'slot_wait_s': 0.75,
      'stack': ['/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:280:HTTPConnectionPool._get_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:773:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:18:worker'],
      'waits': 8}],
    'loop_saturated_counts_its_top_holders_long_slices': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [3],
      'long_slices_s': 0.25,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. 0.250 greenlet-seconds of '
                 "that queueing were behind the top holder's longest slices, 1 over the block "
                 'threshold (0.0625 s; the longest 0.500 s), in the same code. The cure is on '
                 'the CPU side, not the I/O side: less work per request in these greenlets '
                 '(compute once what is the same from request to request and keep it: a '
                 'verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: += '
                 'on bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated), fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 1.75},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [3],
      'long_slices_s': 0.25,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 "others were ready on average, 2.000 greenlet-s of their waiting); 'main' "
                 '(x1: ran 0.250 s while 7.0 others were ready on average, 1.750 greenlet-s of '
                 "their waiting); 'app.parse' (x1: ran 0.125 s while 2.0 others were ready on "
                 "average, 0.250 greenlet-s of their waiting); inside sections 'xml' (0.500 "
                 "greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. 0.250 greenlet-seconds of '
                 "that queueing were behind the top holder's longest slices, 1 over the block "
                 'threshold (0.0625 s; the longest 0.500 s), in the same code. The cure is on '
                 'the CPU side, not the I/O side: less work per request in these greenlets '
                 '(compute once what is the same from request to request and keep it: a '
                 'verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: += '
                 'on bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated), fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.25,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 1.7500009536743164},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.250 '
                 'greenlet-seconds ready to run but queued (besides the 0.250 s the long '
                 'slices, slow paths and waits for a CPU reported apart caused), against 0.500 '
                 "s waiting for I/O, timers or locks. Who held the loop: 'app.fetch' (x2: ran "
                 '1.500 s while 1.3 others were ready on average, 2.000 greenlet-s of their '
                 "waiting); 'main' (x1: ran 0.250 s while 7.0 others were ready on average, "
                 "1.750 greenlet-s of their waiting); 'app.parse' (x1: ran 0.125 s while 2.0 "
                 'others were ready on average, 0.250 greenlet-s of their waiting); inside '
                 "sections 'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.250 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.25,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.250 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slice ended at /srv/app/worker.py:20:job, '
                 'where it yielded. Fix: first make that code cheaper (one line burning the '
                 'CPU this long is often work that grows with the square of its input: += on '
                 'bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated); then split what must stay expensive and yield between pieces of a '
                 'millisecond or two with gevent.idle() (it resumes once the loop has run what '
                 'is pending, the I/O of waiting greenlets included: suited to background '
                 'work) or gevent.sleep(0.001) (a timer: the loop polls for I/O before it '
                 'fires), not gevent.sleep(0): that gives way only to greenlets already ready, '
                 'and gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.250 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.25,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.250 '
                 'greenlet-seconds ready to run but queued (besides the 0.250 s the long '
                 'slices, slow paths and waits for a CPU reported apart caused), against 0.500 '
                 "s waiting for I/O, timers or locks. Who held the loop: 'app.fetch' (x2: ran "
                 '1.500 s while 1.3 others were ready on average, 2.000 greenlet-s of their '
                 "waiting); 'app.parse' (x1: ran 0.125 s while 2.0 others were ready on "
                 "average, 0.250 greenlet-s of their waiting); 'main' (x1: ran 0.250 s while "
                 '0.5 others were ready on average, 0.125 greenlet-s of their waiting); inside '
                 "sections 'xml' (0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 "
                 'greenlet-s); CPU samples put 100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.250 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.25,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.25,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 5,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.parse [3 finished greenlets folded]' (#5) held the loop 0.500 "
                 's without yielding, while others were ready to run: 0.250 greenlet-seconds '
                 'of their waiting (one waited up to 0.500 s). It was CPU work (0.500 s of '
                 'CPU); CPU samples put 100% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:50:parse; the slice ended at /srv/app/worker.py:20:job, '
                 'where it yielded. Fix: first make that code cheaper (one line burning the '
                 'CPU this long is often work that grows with the square of its input: += on '
                 'bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated); then split what must stay expensive and yield between pieces of a '
                 'millisecond or two with gevent.idle() (it resumes once the loop has run what '
                 'is pending, the I/O of waiting greenlets included: suited to background '
                 'work) or gevent.sleep(0.001) (a timer: the loop polls for I/O before it '
                 'fires), not gevent.sleep(0): that gives way only to greenlets already ready, '
                 'and gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.250 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:50:parse'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625}],
    'storm_of_a_spin_wait': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 1.125,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 9.765625e-07,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:22:wait_done with 1.0 us of work between switches on '
                 'average: a loop that does almost nothing but yield with gevent.sleep(0): '
                 'most likely a spin-wait polling a condition another greenlet sets (a flag, a '
                 'counter, a list filling up); each yield is a round trip through the hub, and '
                 'the loop never sleeps in its poll while it spins. The switching took 0.500 s '
                 "of the loop's time, and others queued 0.625 greenlet-seconds behind these "
                 "slices and the hub's rounds they made. Fix: wait on what it polls for: a "
                 'gevent.event.Event (event.wait() here, event.set() where the condition '
                 "becomes true), an AsyncResult, a Queue's get(), or gevent.joinall on the "
                 'greenlets it waits for; the loop then sleeps until woken and costs nothing '
                 'meanwhile. (Do not just drop the yield: the condition could then never '
                 'change.) [cost 1.125 s: seconds of loop time spent switching (switch-outs '
                 "times the hub's mean time per switch), plus the greenlet-seconds others "
                 "spent ready to run behind these slices and the hub's share of their wait "
                 'that these switches made (its switches from here over all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.625,
      'run_s': 0.001953125,
      'section': None,
      'site': '/srv/app/worker.py:22:wait_done',
      'spin': True,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:22:wait_done'],
      'switching_s': 0.5}],
    'retry_backoff_of_the_programs_own_sleeps': [{'backoff_s': 2.0,
      'cost_meaning': "greenlet-seconds spent sleeping in the program's own back-off (its "
                      'gevent.sleep) before retrying failed requests',
      'cost_s': 2.0,
      'errors': 6,
      'greenlet': 5,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.parse' waited 2.000 s in all "
                 "sleeping at /srv/app/worker.py:20:job, the program's own back-off (3 sleeps "
                 'of 667 ms on average), about one sleep per failed answer. The upstreams '
                 'answered 6 of 100 requests with an error status (503 x6): most likely what '
                 "the sleeps back off from. That time went to the upstream's failures, not to "
                 'its answers. Fix: find why the upstream fails (its status codes and logs); '
                 'keep the back-off short, jittered and growing (tens of milliseconds at '
                 'first, doubling), with few attempts, and honour a Retry-After the upstream '
                 'sends; or fail fast and let the caller decide. [cost 2.000 s: '
                 "greenlet-seconds spent sleeping in the program's own back-off (its "
                 'gevent.sleep) before retrying failed requests]',
      'retry_after_s': 0.0,
      'section': None,
      'site': '/srv/app/worker.py:20:job',
      'sleeps': 3,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:job']},
     {'backoff_s': 2.0,
      'cost_meaning': "greenlet-seconds spent sleeping in the program's own back-off (its "
                      'gevent.sleep) before retrying failed requests',
      'cost_s': 2.0,
      'errors': 6,
      'greenlet': 5,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.parse' waited 2.000 s in all "
                 "sleeping at /srv/app/worker.py:20:job, the program's own back-off (12 sleeps "
                 'of 167 ms on average), about one sleep per failed answer. The upstreams '
                 'answered 6 of 100 requests with an error status (503 x6): most likely what '
                 "the sleeps back off from. That time went to the upstream's failures, not to "
                 'its answers. Fix: find why the upstream fails (its status codes and logs); '
                 'keep the back-off short, jittered and growing (tens of milliseconds at '
                 'first, doubling), with few attempts, and honour a Retry-After the upstream '
                 'sends; or fail fast and let the caller decide. [cost 2.000 s: '
                 "greenlet-seconds spent sleeping in the program's own back-off (its "
                 'gevent.sleep) before retrying failed requests]',
      'retry_after_s': 0.0,
      'section': None,
      'site': '/srv/app/worker.py:20:job',
      'sleeps': 12,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:job']},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 'not computing, and no other finding explains their waits, so a timer of the '
                 "program's own paced the work, not the pool's size. The jobs ('app.fetch', "
                 "'app.parse') held their slots mostly waiting at /srv/app/worker.py:20:job "
                 '(sleep): 2 waits of 1000 ms on average. Those sleeps are gevent.sleep calls '
                 "of the program's own (2.000 greenlet-seconds asleep there): the jobs slept "
                 'out their slots, and a larger Pool only holds more sleepers. The upstreams '
                 'answered 6 of 100 requests with an error status (503 x6): most likely what '
                 'the sleeps back off from, each failure holding a slot for a whole sleep. If '
                 'the pause is one the program owes (a crawl delay a host asks for, a rate '
                 "agreed with the upstream), it is the run's floor and the cost is not there "
                 'to save. Otherwise, fix: sleep less there, or wake on what the sleep waits '
                 "for -- a retry's back-off short, jittered and growing, with few retries; a "
                 "rate limiter's rate as high as the upstream takes, waiting for the next "
                 "token instead of polling; a circuit breaker's cool-down near the outage's "
                 'length, with a half-open probe; a poll for a result another greenlet sets (a '
                 'loop sleeping until it appears) replaced by waiting on it: a '
                 'gevent.event.Event or AsyncResult set where the result arrives. [cost 2.000 '
                 "s: greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
                 'while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 'not computing, and no other finding explains their waits, so a timer of the '
                 "program's own paced the work, not the pool's size. The jobs ('app.fetch', "
                 "'app.parse') held their slots mostly waiting at /srv/app/worker.py:20:job "
                 '(sleep): 13 waits of 154 ms on average. Those sleeps are gevent.sleep calls '
                 "of the program's own (2.000 greenlet-seconds asleep there): the jobs slept "
                 'out their slots, and a larger Pool only holds more sleepers. The upstreams '
                 'answered 6 of 100 requests with an error status (503 x6): most likely what '
                 'the sleeps back off from, each failure holding a slot for a whole sleep. If '
                 'the pause is one the program owes (a crawl delay a host asks for, a rate '
                 "agreed with the upstream), it is the run's floor and the cost is not there "
                 'to save. Otherwise, fix: sleep less there, or wake on what the sleep waits '
                 "for -- a retry's back-off short, jittered and growing, with few retries; a "
                 "rate limiter's rate as high as the upstream takes, waiting for the next "
                 "token instead of polling; a circuit breaker's cool-down near the outage's "
                 'length, with a half-open probe; a poll for a result another greenlet sets (a '
                 'loop sleeping until it appears) replaced by waiting on it: a '
                 'gevent.event.Event or AsyncResult set where the result arrives. [cost 2.000 '
                 "s: greenlet-seconds the pool's jobs slept in the program's own gevent.sleep "
                 'while holding their slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': "greenlet-seconds the pool's jobs slept in the program's own "
                      'gevent.sleep while holding their slots',
      'cost_s': 2.0,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:20:job',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 'not computing, and no other finding explains their waits, so a timer of the '
                 "program's own paced the work, not the pool's size. The jobs ('app.fetch', "
                 "'app.parse') held their slots mostly waiting at /srv/app/worker.py:20:job "
                 '(sleep): 6 waits of 333 ms on average. Those sleeps are gevent.sleep calls '
                 "of the program's own (2.000 greenlet-seconds asleep there): the jobs slept "
                 'out their slots, and a larger Pool only holds more sleepers. If the pause is '
                 'one the program owes (a crawl delay a host asks for, a rate agreed with the '
                 "upstream), it is the run's floor and the cost is not there to save. "
                 'Otherwise, fix: sleep less there, or wake on what the sleep waits for -- a '
                 "retry's back-off short, jittered and growing, with few retries; a rate "
                 "limiter's rate as high as the upstream takes, waiting for the next token "
                 "instead of polling; a circuit breaker's cool-down near the outage's length, "
                 'with a half-open probe; a poll for a result another greenlet sets (a loop '
                 'sleeping until it appears) replaced by waiting on it: a gevent.event.Event '
                 'or AsyncResult set where the result arrives. [cost 2.000 s: greenlet-seconds '
                 "the pool's jobs slept in the program's own gevent.sleep while holding their "
                 'slots]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': True,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'queue_full_tells_its_consumers_calls_in_turn': [{'calls_site': '/srv/app/worker.py:27:details',
      'consumer': 'app.load',
      'cost_meaning': 'greenlet-seconds a producer waited to put into a full queue behind one '
                      'consumer',
      'cost_s': 1.0,
      'get_wait_s': 0.4999847412109375,
      'greenlet': 3,
      'hazard': False,
      'kind': 'queue-full',
      'message': "A producer waited on a full queue: 'app.extract' waited 1.000 s to put into "
                 'it (40 times, at /srv/app/worker.py:34:extract), 50% of the run, while what '
                 "takes from it was 'app.load', one greenlet that waited for items only 25% of "
                 'the run (at /srv/app/worker.py:40:load). The consumer is slower than what '
                 "feeds it, so its pace was the run's. Its work was upstream calls made one "
                 'after another (50 at /srv/app/worker.py:27:details, each waiting for its '
                 'answer before the next began): consumers side by side overlap them. Fix: '
                 'more consumers -- several greenlets taking from the queue, or a '
                 'gevent.pool.Pool(n) over its items -- if their work can run side by side '
                 '(calls to an upstream that takes more at once); else make each item cheaper '
                 "(one batch call for several items). If the consumer's pace is a limit by "
                 "design (an upstream's rate), this is what it costs. [cost 1.000 s: "
                 'greenlet-seconds a producer waited to put into a full queue behind one '
                 'consumer]',
      'producer': 'app.extract',
      'put_site': '/srv/app/worker.py:34:extract',
      'put_wait_s': 1.0,
      'section': None,
      'stack': ['/srv/app/worker.py:34:extract']},
     {'calls_site': None,
      'consumer': 'app.load',
      'cost_meaning': 'greenlet-seconds a producer waited to put into a full queue behind one '
                      'consumer',
      'cost_s': 1.0,
      'get_wait_s': 0.4999847412109375,
      'greenlet': 3,
      'hazard': False,
      'kind': 'queue-full',
      'message': "A producer waited on a full queue: 'app.extract' waited 1.000 s to put into "
                 'it (40 times, at /srv/app/worker.py:34:extract), 50% of the run, while what '
                 "takes from it was 'app.load', one greenlet that waited for items only 25% of "
                 'the run (at /srv/app/worker.py:40:load). The consumer is slower than what '
                 "feeds it, so its pace was the run's. Fix: more consumers -- several "
                 'greenlets taking from the queue, or a gevent.pool.Pool(n) over its items -- '
                 'if their work can run side by side (calls to an upstream that takes more at '
                 'once); else make each item cheaper (one batch call for several items). If '
                 "the consumer's pace is a limit by design (an upstream's rate), this is what "
                 'it costs. [cost 1.000 s: greenlet-seconds a producer waited to put into a '
                 'full queue behind one consumer]',
      'producer': 'app.extract',
      'put_site': '/srv/app/worker.py:34:extract',
      'put_wait_s': 1.0,
      'section': None,
      'stack': ['/srv/app/worker.py:34:extract']},
     {'calls': 50,
      'cost_meaning': 'greenlet-seconds the calls waited, less what as many at once as the '
                      'busiest pool holds would have left of it',
      'cost_s': 0.75,
      'greenlet': 3,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Upstream calls were made one after another: 50 calls, the HTTP client '
                 'waiting 1.000 s in all (50% of the run; 15.0 ms per call for its answer), '
                 "most at /srv/app/worker.py:27:details by greenlet 'app.extract' (#3), and no "
                 'pool ever had more than 2 connections in use at once, while the loop sat '
                 'idle 88% of the run. A greenlet waits on one thing at a time, so the run '
                 'took that many round trips in turn: their latencies added up where they '
                 'could have overlapped. If each call needs the one before it (paging by a '
                 "cursor: the next page's address is in this one's answer), that is the run's "
                 'floor and the cost is not there to save. Otherwise, fix: make them together '
                 "(gevent.pool.Pool(n).imap_unordered over the items, n up to the session's "
                 'pool size, 4 for http://up), or one call for the lot where the upstream has '
                 'a batch or bulk endpoint. [cost 0.750 s: greenlet-seconds the calls waited, '
                 'less what as many at once as the busiest pool holds would have left of it]',
      'peak_in_use': 2,
      'pool_maxsize': 4,
      'section': None,
      'site': '/srv/app/worker.py:27:details',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:27:details',
                '/srv/app/worker.py:40:main'],
      'waited_s': 1.0}],
    'lock_contended_by_a_semaphore_letting_few_calls_through': [{'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 1.25,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all to "
                 'take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) '
                 'waited at /srv/app/worker.py:67:lookup from /srv/app/worker.py:90:resolve: '
                 '10 waits of 125 ms: what each holder held it for. The connection pools never '
                 'had more than 2 connections in use at once though they hold 10: most likely '
                 'at most 2 holders at a time, a Semaphore(2) limiting how many calls run '
                 'together. Fix: a larger n for that semaphore if what it guards can take more '
                 "calls at once (the pools hold 10); if the limit is deliberate (an upstream's "
                 'capacity), this is what it costs; a lock guarding shared state is held for '
                 'less by making slow calls outside the locked block. [cost 2.000 s: '
                 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                 'idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 1.25,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all to "
                 'take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) '
                 'waited at /srv/app/worker.py:67:lookup from /srv/app/worker.py:90:resolve: '
                 '10 waits of 125 ms: what each holder held it for. Fix: hold it for less -- '
                 'make slow calls (the network, the disk) outside the locked block and lock '
                 'only the shared state -- or use one lock per resource; for a Semaphore(n) '
                 'that limits concurrency on purpose, a larger n if what it guards can take '
                 'more calls at once. [cost 2.000 s: greenlet-seconds spent waiting to take a '
                 'lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting to take a lock while the loop sat mostly '
                      'idle',
      'cost_s': 2.0,
      'greenlet': 3,
      'hazard': False,
      'held_cpu_s': 0.0,
      'held_wait_s': 1.25,
      'idle_share': 0.75,
      'kind': 'lock-contended',
      'lock_wait_s': 2.0,
      'message': "A lock was contended: greenlets such as 'app.fetch' waited 2.000 s in all to "
                 'take a gevent lock or semaphore (4 times, most at '
                 '/srv/app/worker.py:66:lookup) while the loop sat idle 75% of the run: the '
                 'lock made them take turns, and no other finding explains their waits, so '
                 'whatever its holders do while holding it paced the work. Inside lookup, '
                 'which takes it, the work done under it (if the lock is held across it) '
                 'waited at /srv/app/worker.py:67:lookup from /srv/app/worker.py:90:resolve: '
                 '10 waits of 125 ms: what each holder held it for. Fix: hold it for less -- '
                 'make slow calls (the network, the disk) outside the locked block and lock '
                 'only the shared state -- or use one lock per resource; for a Semaphore(n) '
                 'that limits concurrency on purpose, a larger n if what it guards can take '
                 'more calls at once. [cost 2.000 s: greenlet-seconds spent waiting to take a '
                 'lock while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:66:lookup',
      'stack': ['/srv/app/worker.py:66:lookup'],
      'waits': 4}],
    'pool_full_behind_a_spin_wait': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 0.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.5009765625,
      'job_names': ['app.fetch'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 0.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 "(#1) waited) while the loop sat idle 50% of the run (counting a spin-wait's "
                 'rounds, which waiting on an Event would have left idle): the jobs were '
                 'waiting, not computing, and no other finding explains their waits, so the '
                 "pool's size paced the work. Fix: a larger Pool(size) if what the jobs wait "
                 'on (a downstream service) can take more requests at once; if it cannot, the '
                 "time each job waits is the lever (an upstream's latency is its own to cut: "
                 "its slow query, its capacity); if the limit is deliberate (a downstream's "
                 'rate limit), this is what it costs. To tell which: run once with half the '
                 'Pool size; answers that take about as long mean the upstream had room, and '
                 'a larger Pool helps; answers that take about half as long mean it queues '
                 'them (its own limit), and a larger Pool gains nothing. [cost 0.500 s: '
                 'greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 0.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'sequential_calls_of_a_pools_jobs_at_their_edges': [{'calls': 60,
      'calls_per_response': 3.0,
      'cost_meaning': "greenlet-seconds the pool's jobs waited on upstream calls made in turn, "
                      'less what each would have waited for its slowest call (the longest mean '
                      'call of any line) had it made them together',
      'cost_s': 1.25,
      'greenlet': 29,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Each job waited on its upstream calls one after another: 60 calls for 20 '
                 "jobs of a full gevent Pool ('app.job'; 3.0 per job), most at "
                 '/srv/app/worker.py:60:job (1.875 s in all, 31.2 ms per call). A greenlet '
                 'waits on one thing at a time, so each job held its slot for the sum of its '
                 "calls, and the pool's pace was that sum. Fix: if they do not need each "
                 "other's answers, make them together inside the job (a gevent.spawn for each, "
                 'then gevent.joinall): a job then holds its slot for its slowest call. If '
                 'each call needs the one before it (its address or arguments come from that '
                 "answer), that is the job's floor, and a larger Pool is the lever. [cost "
                 "1.250 s: greenlet-seconds the pool's jobs waited on upstream calls made in "
                 'turn, less what each would have waited for its slowest call (the longest '
                 'mean call of any line) had it made them together]',
      'responses': 20,
      'section': None,
      'site': '/srv/app/worker.py:60:job',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:60:job'],
      'waited_s': 1.875},
     {'calls': 60,
      'calls_per_response': 3.0,
      'cost_meaning': "greenlet-seconds the pool's jobs waited on upstream calls made in turn, "
                      'less what each would have waited for its slowest call (the longest mean '
                      'call of any line) had it made them together',
      'cost_s': 1.25,
      'greenlet': 29,
      'hazard': False,
      'kind': 'sequential-calls',
      'message': 'Each job waited on its upstream calls one after another: 60 calls for 20 '
                 "jobs of a full gevent Pool ('app.job'; 3.0 per job), most at "
                 '/srv/app/worker.py:62:job (5.000 s in all, 83.3 ms per call). A greenlet '
                 'waits on one thing at a time, so each job held its slot for the sum of its '
                 "calls, and the pool's pace was that sum. Fix: if they do not need each "
                 "other's answers, make them together inside the job (a gevent.spawn for each, "
                 'then gevent.joinall): a job then holds its slot for its slowest call. If '
                 'each call needs the one before it (its address or arguments come from that '
                 "answer), that is the job's floor, and a larger Pool is the lever. [cost "
                 "1.250 s: greenlet-seconds the pool's jobs waited on upstream calls made in "
                 'turn, less what each would have waited for its slowest call (the longest '
                 'mean call of any line) had it made them together]',
      'responses': 20,
      'section': None,
      'site': '/srv/app/worker.py:62:job',
      'stack': ['/usr/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:540:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:62:job'],
      'waited_s': 5.0}],
    'session_per_request_of_a_full_pools_jobs': [{'callers': 9,
      'calls_in_flight': 1.5625,
      'connect_wait_s': 0.625,
      'connections': 16,
      'cost_meaning': "greenlet-seconds spent waiting while opening the connections requests' "
                      'module-level functions open for every call (the name lookup, the '
                      'connect)',
      'cost_s': 0.625,
      'greenlet': 3,
      'hazard': False,
      'kind': 'session-per-request',
      'message': "A new connection for every request: greenlets such as 'app.fetch' called "
                 "requests' module-level functions (requests.get, requests.post, ...; most at "
                 '/srv/app/worker.py:15:worker), which build a new Session for each call and '
                 'close it after, so nothing is kept alive: at least 16 connections were '
                 'opened, each resolving the host name and connecting again, 0.625 s of '
                 'waiting in all; 0.250 s of CPU ran in the slices that ended opening them '
                 '(building a Session, its adapters and pools each time). A shared Session '
                 'keeps about as many connections as calls are in flight at once (here 1.6 on '
                 'average, made by 9 greenlets). Fix: create one requests.Session (or '
                 'geventperf.Session) per worker or per process and call its get/post: its '
                 'kept-alive connections skip the lookup, the connect and the set-up. [cost '
                 '0.625 s: greenlet-seconds spent waiting while opening the connections '
                 "requests' module-level functions open for every call (the name lookup, the "
                 'connect)]',
      'section': None,
      'setup_cpu_s': 0.25,
      'site': '/srv/app/worker.py:15:worker',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:161:GroupMappingMixin.apply',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/venv/lib/python3.11/site-packages/requests/sessions.py:589:Session.request',
                '/venv/lib/python3.11/site-packages/requests/api.py:59:request',
                '/venv/lib/python3.11/site-packages/requests/api.py:73:get',
                '/srv/app/worker.py:15:worker']}],
    'threadpool_tells_dns_only_where_it_queued_a_tenth': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.125,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or a '
             'cooperative alternative to the queued blocking calls so they need no thread; and '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the threadpool',
      'functions': [{'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.125,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.125 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: work x8: queued 1.000 s, ran 4.000 s in worker threads (0.500 s '
                 'each); getaddrinfo x2 (DNS): queued 0.125 s, ran 0.062 s in worker threads '
                 '(0.031 s each). DNS lookups queued 0.125 s behind this work: every new '
                 "connection's getaddrinfo waits for a free worker too. Fix: a bigger pool: "
                 'gevent.get_hub().threadpool.maxsize = 4 (before the burst); or a cooperative '
                 'alternative to the queued blocking calls so they need no thread; and '
                 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool. Cost: greenlet-seconds tasks spent queued for a free worker '
                 'thread of this pool: from ThreadPool.spawn until a worker started them, '
                 "summed over the tasks (less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.125,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': False},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.0625,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.0625,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or a '
             'cooperative alternative to the queued blocking calls so they need no thread',
      'functions': [{'dns': False,
                     'function': 'work',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.0625,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.062 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: work x8: queued 1.000 s, ran 4.000 s in worker threads (0.500 s '
                 'each); getaddrinfo x2 (DNS): queued 0.062 s, ran 0.062 s in worker threads '
                 '(0.031 s each). Fix: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
                 '(before the burst); or a cooperative alternative to the queued blocking '
                 'calls so they need no thread. Cost: greenlet-seconds tasks spent queued for '
                 'a free worker thread of this pool: from ThreadPool.spawn until a worker '
                 "started them, summed over the tasks (less the lookups' share a connection "
                 'finding counts).',
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.0625,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': False}],
    'threadpool_tasks_that_waited_in_their_threads': [{'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.125,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'if what they wait on is cooperative under gevent (requests, sockets and '
             'time.sleep, monkey-patched), make those calls in the greenlets themselves (call '
             'the function directly, or gevent.spawn it): they need no thread; if it is a '
             'blocking C call (a database driver, a C library), the pool is its place: a '
             'bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); and '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the threadpool',
      'functions': [{'dns': False,
                     'function': 'fetch_in_thread',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.125,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.125 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: fetch_in_thread x8: queued 1.000 s, ran 4.000 s in worker threads '
                 '(0.500 s each); getaddrinfo x2 (DNS): queued 0.125 s, ran 0.062 s in worker '
                 'threads (0.031 s each). DNS lookups queued 0.125 s behind this work: every '
                 "new connection's getaddrinfo waits for a free worker too. The tasks mostly "
                 'waited in their threads rather than computing: they ran 4.000 '
                 "worker-seconds, and all the process's threads besides the loop's used 0.938 "
                 's of CPU. Fix: if what they wait on is cooperative under gevent (requests, '
                 'sockets and time.sleep, monkey-patched), make those calls in the greenlets '
                 'themselves (call the function directly, or gevent.spawn it): they need no '
                 'thread; if it is a blocking C call (a database driver, a C library), the '
                 'pool is its place: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
                 '(before the burst); and GEVENT_RESOLVER=ares (or dnspython): a resolver that '
                 'does not use the threadpool. Cost: greenlet-seconds tasks spent queued for a '
                 'free worker thread of this pool: from ThreadPool.spawn until a worker '
                 "started them, summed over the tasks (less the lookups' share a connection "
                 'finding counts).',
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.125,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': True},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.125,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'monkey-patch first (gevent.monkey.patch_all() before other imports: the socket '
             'module is not patched here), then if what they wait on is cooperative under '
             'gevent (requests, sockets and time.sleep, monkey-patched), make those calls in '
             'the greenlets themselves (call the function directly, or gevent.spawn it): they '
             'need no thread; if it is a blocking C call (a database driver, a C library), the '
             'pool is its place: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
             '(before the burst); and GEVENT_RESOLVER=ares (or dnspython): a resolver that '
             'does not use the threadpool',
      'functions': [{'dns': False,
                     'function': 'fetch_in_thread',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.125,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.125 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: fetch_in_thread x8: queued 1.000 s, ran 4.000 s in worker threads '
                 '(0.500 s each); getaddrinfo x2 (DNS): queued 0.125 s, ran 0.062 s in worker '
                 'threads (0.031 s each). DNS lookups queued 0.125 s behind this work: every '
                 "new connection's getaddrinfo waits for a free worker too. The tasks mostly "
                 'waited in their threads rather than computing: they ran 4.000 '
                 "worker-seconds, and all the process's threads besides the loop's used 0.938 "
                 's of CPU. Fix: monkey-patch first (gevent.monkey.patch_all() before other '
                 'imports: the socket module is not patched here), then if what they wait on '
                 'is cooperative under gevent (requests, sockets and time.sleep, '
                 'monkey-patched), make those calls in the greenlets themselves (call the '
                 'function directly, or gevent.spawn it): they need no thread; if it is a '
                 'blocking C call (a database driver, a C library), the pool is its place: a '
                 'bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); and '
                 'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool. Cost: greenlet-seconds tasks spent queued for a free worker '
                 'thread of this pool: from ThreadPool.spawn until a worker started them, '
                 "summed over the tasks (less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.125,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': True},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.125,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'if what they wait on is cooperative under gevent (requests, sockets and '
             'time.sleep, monkey-patched), make those calls in the greenlets themselves (call '
             'the function directly, or gevent.spawn it): they need no thread; if it is a '
             'blocking C call (a database driver, a C library), the pool is its place: a '
             'bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); and '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the threadpool',
      'functions': [{'dns': False,
                     'function': 'fetch_in_thread',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.125,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.125 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: fetch_in_thread x8: queued 1.000 s, ran 4.000 s in worker threads '
                 '(0.500 s each); getaddrinfo x2 (DNS): queued 0.125 s, ran 0.062 s in worker '
                 'threads (0.031 s each). DNS lookups queued 0.125 s behind this work: every '
                 "new connection's getaddrinfo waits for a free worker too. The tasks mostly "
                 'waited in their threads rather than computing: they ran 4.000 '
                 "worker-seconds, and all the process's threads besides the loop's used 0.938 "
                 's of CPU. Fix: if what they wait on is cooperative under gevent (requests, '
                 'sockets and time.sleep, monkey-patched), make those calls in the greenlets '
                 'themselves (call the function directly, or gevent.spawn it): they need no '
                 'thread; if it is a blocking C call (a database driver, a C library), the '
                 'pool is its place: a bigger pool: gevent.get_hub().threadpool.maxsize = 4 '
                 '(before the burst); and GEVENT_RESOLVER=ares (or dnspython): a resolver that '
                 'does not use the threadpool. Cost: greenlet-seconds tasks spent queued for a '
                 'free worker thread of this pool: from ThreadPool.spawn until a worker '
                 "started them, summed over the tasks (less the lookups' share a connection "
                 'finding counts).',
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.125,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': True},
     {'cost_meaning': 'greenlet-seconds tasks spent queued for a free worker thread of this '
                      'pool: from ThreadPool.spawn until a worker started them, summed over '
                      "the tasks (less the lookups' share a connection finding counts)",
      'cost_s': 1.125,
      'default_pool': True,
      'depth_max': 3,
      'depth_mean': 1.5,
      'dns': True,
      'dns_cause': False,
      'dns_queued_s': 0.125,
      'dns_run_s': 0.0625,
      'explained_by_connections_s': 0.0,
      'fix': 'a bigger pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or a '
             'cooperative alternative to the queued blocking calls so they need no thread; and '
             'GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the threadpool',
      'functions': [{'dns': False,
                     'function': 'fetch_in_thread',
                     'greenlets': '',
                     'mean_run_s': 0.5,
                     'queued_s': 1.0,
                     'run_s': 4.0,
                     'site': None,
                     'tasks': 8},
                    {'dns': True,
                     'function': 'getaddrinfo',
                     'greenlets': '',
                     'mean_run_s': 0.03125,
                     'queued_s': 0.125,
                     'run_s': 0.0625,
                     'site': None,
                     'tasks': 2}],
      'greenlet': None,
      'hazard': False,
      'kind': 'threadpool-saturated',
      'maxsize': 4,
      'message': "gevent's default threadpool (maxsize 4) was full: 10 of 10 task(s) found "
                 'every worker busy, and tasks queued 1.125 greenlet-seconds in all for a free '
                 'worker thread (longest 0.500 s; up to 3 task(s) ahead, 1.5 on average). '
                 'Queued: fetch_in_thread x8: queued 1.000 s, ran 4.000 s in worker threads '
                 '(0.500 s each); getaddrinfo x2 (DNS): queued 0.125 s, ran 0.062 s in worker '
                 'threads (0.031 s each). DNS lookups queued 0.125 s behind this work: every '
                 "new connection's getaddrinfo waits for a free worker too. Fix: a bigger "
                 'pool: gevent.get_hub().threadpool.maxsize = 4 (before the burst); or a '
                 'cooperative alternative to the queued blocking calls so they need no thread; '
                 'and GEVENT_RESOLVER=ares (or dnspython): a resolver that does not use the '
                 'threadpool. Cost: greenlet-seconds tasks spent queued for a free worker '
                 'thread of this pool: from ThreadPool.spawn until a worker started them, '
                 "summed over the tasks (less the lookups' share a connection finding counts).",
      'pool': "gevent's default threadpool",
      'queued_max_s': 0.5,
      'queued_s': 1.125,
      'run_s': 4.0625,
      'saturated_tasks': 10,
      'section': None,
      'stack': [],
      'suggested_maxsize': 4,
      'tasks': 10,
      'tasks_waited': False}],
    'loop_saturated_writing_pywsgi_pieces_names_the_iterable': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); the "
                 'slices that delayed most ended at /srv/app/worker.py:30:crunch. The cure is '
                 'on the CPU side, not the I/O side: 44% of the sampled CPU wrote responses '
                 "piece by piece through gevent's pywsgi (WSGIHandler.write: a chunk and a "
                 "send per item the application's iterable yields, here "
                 '/srv/app/worker.py:18:csv_rows): yield fewer, larger pieces (rows joined '
                 'into pieces of some 64 KiB), or return the body whole as a list of one item '
                 "([b''.join(rows)]): a list of many items is written an item at a time too. "
                 'Beyond that: less work per request in these greenlets (compute once what is '
                 'the same from request to request and keep it: a verified credential or key, '
                 'a compiled pattern or template, a parsed configuration; and look for work '
                 'that grows with the square of its input: += on bytes or str in a loop, a '
                 'list searched inside a loop, a sort or copy repeated), fewer greenlets per '
                 'process and more processes, or CPU-heavy work moved out of the loop (a '
                 "process pool; a C call that releases the GIL, such as hashlib's or zlib's, "
                 'to gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less what "
                 'a loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked finding '
                 'then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:30:crunch'],
      'stack_is': 'slice-end',
      'utilization': 0.96875}],
    'gc_pause_of_a_pure_python_parser_names_the_c_one': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, which the garbage collector mostly filled, and in the '
                      'backlog they left (the ready queue above its usual length until it next '
                      "emptied), plus the collector's share of the rest of the queueing (its "
                      "time in shorter slices over the loop's busy time)",
      'cost_s': 0.5,
      'count': 1,
      'gc_s': 0.375,
      'generations': [2],
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'gc-pause',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': 'The cyclic garbage collector held the loop: 1 slice(s) over 0.0625 s (0.500 '
                 's in all, longest 0.500 s) were 0.375 s of collection (generation 2; a '
                 'generation 2 collection is a full one: it walks every tracked object), while '
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 "waited up to 0.500 s). It ran inside greenlet 'app.fetch' (#3), whichever "
                 'allocated when a collection fell due. CPU samples put 100% of their sampled '
                 'CPU (5 samples in all) at /srv/app/worker.py:22:in_stock (collections fall '
                 'due where most is allocated): most likely the code that makes the objects it '
                 'walks (a large document parsed whole, a big result built in memory), whose '
                 'CPU the collections add to. The cheaper code comes first: it parses a '
                 "document in pure Python (minidom's DOM, html.parser, BeautifulSoup over it): "
                 'a Python object per node, slow to build and heavy for the collector; lxml '
                 'parses in C, several times faster, into fewer objects '
                 "(lxml.etree.fromstring, lxml.html, or BeautifulSoup(markup, 'lxml')). The "
                 'objects it walks were made during the run, not at start-up: the heap held '
                 "1,024 memory blocks when start-up ended (the program's first yield to the "
                 'loop) and up to 4,096 when full collections began, as data in flight (parsed '
                 'documents, request state) piled up, which gc.freeze() at start-up cannot '
                 'reach. Fix: hold fewer of them at once (fewer big documents in flight '
                 'together, keep only what you need of each and drop the rest), or collect '
                 'less often (gc.set_threshold with larger thresholds). [cost 0.500 s: '
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, which the garbage collector mostly filled, and in the backlog they '
                 'left (the ready queue above its usual length until it next emptied), plus '
                 "the collector's share of the rest of the queueing (its time in shorter "
                 "slices over the loop's busy time)]",
      'run_s': 0.5,
      'section': 'sec',
      'short_gc_queued_s': 0.0,
      'short_gc_s': 0.0,
      'stack': ['/usr/lib/python3.11/xml/dom/expatbuilder.py:220:ExpatBuilder.parseString',
                '/usr/lib/python3.11/xml/dom/minidom.py:2000:parseString',
                '/srv/app/worker.py:22:in_stock',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (5 samples in all) at '
                 '/srv/app/worker.py:22:in_stock; the slice ended at '
                 '/srv/app/worker.py:20:job, where it yielded. Fix: first make that code '
                 "cheaper (it parses a document in pure Python (minidom's DOM, html.parser, "
                 'BeautifulSoup over it): a Python object per node, slow to build and heavy '
                 'for the collector; lxml parses in C, several times faster, into fewer '
                 'objects (lxml.etree.fromstring, lxml.html, or BeautifulSoup(markup, '
                 "'lxml'))); then split what must stay expensive and yield between pieces of a "
                 'millisecond or two with gevent.idle() (it resumes once the loop has run what '
                 'is pending, the I/O of waiting greenlets included: suited to background '
                 'work) or gevent.sleep(0.001) (a timer: the loop polls for I/O before it '
                 'fires), not gevent.sleep(0): that gives way only to greenlets already ready, '
                 'and gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/xml/dom/expatbuilder.py:220:ExpatBuilder.parseString',
                '/usr/lib/python3.11/xml/dom/minidom.py:2000:parseString',
                '/srv/app/worker.py:22:in_stock',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625}],
    'pool_full_tells_gets_asking_for_the_same_urls_again': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 100 ms '
                 'on average; their requests to http://a:80 took 100 ms to the response head '
                 "on average (10 timed): the upstream's time to answer (the network's "
                 'included), and what each slot was held for. Those 20 GET requests asked for '
                 'only 5 different URLs (4 each on average; the most asked, /profiles/7, 9 '
                 'times): if the answers hold between calls, a cache in front of the call '
                 'skips 15 of them -- keyed on what the answer depends on only (a key holding '
                 'a timestamp, a request or trace id, or a fresh object never hits). Fix: '
                 'first that cache: the calls it skips need no slot at all. Then: a larger '
                 'Pool(size) if what the jobs wait on (a downstream service) can take more '
                 'requests at once; if it cannot, the time each job waits is the lever (an '
                 "upstream's latency is its own to cut: its slow query, its capacity); if the "
                 "limit is deliberate (a downstream's rate limit), this is what it costs. To "
                 'tell which: run once with half the Pool size; answers that take about as '
                 'long mean the upstream had room, and a larger Pool helps; answers that take '
                 'about half as long mean it queues them (its own limit), and a larger Pool '
                 'gains nothing. [cost 1.500 s: greenlet-seconds spent waiting for a free slot '
                 'of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 100 ms '
                 'on average; their requests to http://a:80 took 100 ms to the response head '
                 "on average (10 timed): the upstream's time to answer (the network's "
                 'included), and what each slot was held for. Fix: a larger Pool(size) if what '
                 'the jobs wait on (a downstream service) can take more requests at once; if '
                 "it cannot, the time each job waits is the lever (an upstream's latency is "
                 'its own to cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long mean '
                 'it queues them (its own limit), and a larger Pool gains nothing. [cost 1.500 '
                 's: greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 100 ms '
                 'on average; their requests to http://a:80 took 100 ms to the response head '
                 "on average (10 timed): the upstream's time to answer (the network's "
                 'included), and what each slot was held for. Fix: a larger Pool(size) if what '
                 'the jobs wait on (a downstream service) can take more requests at once; if '
                 "it cannot, the time each job waits is the lever (an upstream's latency is "
                 'its own to cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long mean '
                 'it queues them (its own limit), and a larger Pool gains nothing. [cost 1.500 '
                 's: greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 10 waits of 100 ms '
                 'on average; their requests to http://a:80 took 100 ms to the response head '
                 "on average (10 timed): the upstream's time to answer (the network's "
                 'included), and what each slot was held for. Fix: a larger Pool(size) if what '
                 'the jobs wait on (a downstream service) can take more requests at once; if '
                 "it cannot, the time each job waits is the lever (an upstream's latency is "
                 'its own to cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long mean '
                 'it queues them (its own limit), and a larger Pool gains nothing. [cost 1.500 '
                 's: greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'server_pool_full_of_busy_connections': [{'busy': True,
      'connections': 24,
      'cost_meaning': "greenlet-seconds the server's connection greenlets waited (event wait) "
                      "outside their wait for a client's next request, while holding the slots",
      'cost_s': 3.0,
      'greenlet': None,
      'handlers_wait_s': 3.0,
      'hazard': False,
      'idle_share': 0.75,
      'kind': 'server-pool-full',
      'message': "The WSGI server's connection pool was full: it runs each connection in one "
                 "of 4 pooled greenlets (WSGIServer(..., spawn=4)) for the connection's whole "
                 'life, and 3 of the 24 connections that came took its last free slot, while '
                 "the loop sat idle 75% of the run: the pool's size paced the service, not "
                 "this process's CPU. While the pool is full the server stops accepting: new "
                 'clients wait in the listen backlog until a whole connection ends (every '
                 "request it carries), a wait only they see. The connections' greenlets "
                 "('app.fetch') held their slots mostly waiting at /srv/app/worker.py:40:call "
                 '(HTTPAdapter.send): 96 waits of 31 ms on average. Fix: a larger spawn (or '
                 'none: a greenlet per connection) if what the handlers wait on can take more '
                 'requests at once; bound the upstream calls themselves where they must be '
                 'bounded (a gevent Pool or Semaphore around them), not the connections. [cost '
                 "3.000 s: greenlet-seconds the server's connection greenlets waited (event "
                 "wait) outside their wait for a client's next request, while holding the "
                 'slots]',
      'pool_filled': 3,
      'pool_size': 4,
      'section': None,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:793:HTTPConnectionPool.urlopen',
                '/venv/lib/python3.11/site-packages/requests/adapters.py:696:HTTPAdapter.send',
                '/srv/app/worker.py:40:call',
                '/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1057:WSGIHandler.run_application']}],
    'loop_saturated_tells_the_cheaper_way_of_standard_library_hot_code': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (8 samples in all) at '
                 '/srv/app/worker.py:23:app; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: The hot code pretty-prints an object '
                 '(pprint.pformat: Python code walking every element); for a log record, pass '
                 "the object as an argument (log.debug('%s', obj)) or check "
                 'log.isEnabledFor(logging.DEBUG) first, so it is formatted only when the '
                 'record is emitted. Beyond that: less work per request in these greenlets, '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/pprint.py:158:PrettyPrinter._format',
                '/srv/app/worker.py:23:app'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (8 samples in all) at '
                 '/srv/app/worker.py:23:app; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: The hot code parses dates with datetime.strptime '
                 '(Python code, slow per call): datetime.fromisoformat (C) parses ISO 8601 '
                 'several times faster; for another fixed layout, slice the fields and build '
                 'the datetime from them. Beyond that: less work per request in these '
                 'greenlets, fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/_strptime.py:349:_strptime', '/srv/app/worker.py:23:app'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (8 samples in all) at '
                 '/srv/app/worker.py:23:app; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: The hot code deep-copies an object (copy.deepcopy: '
                 'Python code visiting every element): copy only the part that changes, or '
                 'share the object read-only. Beyond that: less work per request in these '
                 'greenlets, fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/copy.py:128:deepcopy', '/srv/app/worker.py:23:app'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 100% of their sampled CPU (8 samples in all) at '
                 '/srv/app/worker.py:23:app; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:23:app'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'retry_backoff_of_a_throttled_upstream_sends_fewer_at_once': [{'backoff_s': 2.0,
      'cost_meaning': "greenlet-seconds spent sleeping in the program's own back-off (its "
                      'gevent.sleep) before retrying failed requests',
      'cost_s': 2.0,
      'errors': 6,
      'greenlet': 5,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.parse' waited 2.000 s in all "
                 "sleeping at /srv/app/worker.py:20:job, the program's own back-off (6 sleeps "
                 'of 333 ms on average), about one sleep per failed answer. The upstreams '
                 'answered 6 of 100 requests with an error status (429 x3, 503 x3): most '
                 'likely what the sleeps back off from. 3 of the 6 were 429 (Too Many '
                 'Requests), with up to 40 requests in flight at once: the upstream limits how '
                 'many it takes, at once or per second, and the back-off only waits out its '
                 'refusals. Fix: send fewer at once: spawn the calls through a '
                 'gevent.pool.Pool(n), n under what the upstream takes (a rate limiter at its '
                 'rate, where it counts per second), and the 429s and their back-offs go away; '
                 'honour a Retry-After it sends. [cost 2.000 s: greenlet-seconds spent '
                 "sleeping in the program's own back-off (its gevent.sleep) before retrying "
                 'failed requests]',
      'retry_after_s': 0.0,
      'section': None,
      'site': '/srv/app/worker.py:20:job',
      'sleeps': 6,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:job']},
     {'backoff_s': 2.0,
      'cost_meaning': "greenlet-seconds spent sleeping in the program's own back-off (its "
                      'gevent.sleep) before retrying failed requests',
      'cost_s': 2.0,
      'errors': 6,
      'greenlet': 5,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.parse' waited 2.000 s in all "
                 "sleeping at /srv/app/worker.py:20:job, the program's own back-off (6 sleeps "
                 'of 333 ms on average), about one sleep per failed answer. The upstreams '
                 'answered 6 of 100 requests with an error status (503 x4, 429 x2): most '
                 "likely what the sleeps back off from. That time went to the upstream's "
                 'failures, not to its answers. Fix: find why the upstream fails (its status '
                 'codes and logs); keep the back-off short, jittered and growing (tens of '
                 'milliseconds at first, doubling), with few attempts, and honour a '
                 'Retry-After the upstream sends; or fail fast and let the caller decide. '
                 "[cost 2.000 s: greenlet-seconds spent sleeping in the program's own back-off "
                 '(its gevent.sleep) before retrying failed requests]',
      'retry_after_s': 0.0,
      'section': None,
      'site': '/srv/app/worker.py:20:job',
      'sleeps': 6,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:job']},
     {'backoff_s': 2.0,
      'cost_meaning': "greenlet-seconds spent sleeping in the program's own back-off (its "
                      'gevent.sleep) before retrying failed requests',
      'cost_s': 2.0,
      'errors': 6,
      'greenlet': 5,
      'hazard': False,
      'kind': 'retry-backoff',
      'message': "Requests were retried: greenlets such as 'app.parse' waited 2.000 s in all "
                 "sleeping at /srv/app/worker.py:20:job, the program's own back-off (6 sleeps "
                 'of 333 ms on average), about one sleep per failed answer. The upstreams '
                 'answered 6 of 100 requests with an error status (429 x6): most likely what '
                 'the sleeps back off from. 6 of the 6 were 429 (Too Many Requests): the '
                 'upstream limits how many it takes, at once or per second, and the back-off '
                 'only waits out its refusals. Fix: send fewer at once: spawn the calls '
                 'through a gevent.pool.Pool(n), n under what the upstream takes (a rate '
                 'limiter at its rate, where it counts per second), and the 429s and their '
                 'back-offs go away; honour a Retry-After it sends. [cost 2.000 s: '
                 "greenlet-seconds spent sleeping in the program's own back-off (its "
                 'gevent.sleep) before retrying failed requests]',
      'retry_after_s': 0.0,
      'section': None,
      'site': '/srv/app/worker.py:20:job',
      'sleeps': 6,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:20:job']}],
    'cpu_spread_over_small_functions_names_the_one_above_them': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put 25% '
                 'of their sampled CPU (10 samples in all) in validate (/srv/app/worker.py) '
                 'and what it called, 100% of that through line 30; the slice ended at '
                 '/srv/app/worker.py:20:job, where it yielded. Fix: first make that code '
                 'cheaper (one line burning the CPU this long is often work that grows with '
                 'the square of its input: += on bytes or str in a loop, a list searched '
                 'inside a loop, a sort or copy repeated); then split what must stay expensive '
                 'and yield between pieces of a millisecond or two with gevent.idle() (it '
                 'resumes once the loop has run what is pending, the I/O of waiting greenlets '
                 'included: suited to background work) or gevent.sleep(0.001) (a timer: the '
                 'loop polls for I/O before it fires), not gevent.sleep(0): that gives way '
                 'only to greenlets already ready, and gevent runs up to 50 such wake-ups back '
                 'to back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.750 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the backlog '
                 'they left (the ready queue above its usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:check_0',
                '/srv/app/worker.py:30:validate',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.75,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.750 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); the slice ended at '
                 '/srv/app/worker.py:20:job. Fix: first make that code cheaper (one line '
                 'burning the CPU this long is often work that grows with the square of its '
                 'input: += on bytes or str in a loop, a list searched inside a loop, a sort '
                 'or copy repeated); then split what must stay expensive and yield between '
                 'pieces of a millisecond or two with gevent.idle() (it resumes once the loop '
                 'has run what is pending, the I/O of waiting greenlets included: suited to '
                 'background work) or gevent.sleep(0.001) (a timer: the loop polls for I/O '
                 'before it fires), not gevent.sleep(0): that gives way only to greenlets '
                 'already ready, and gevent runs up to 50 such wake-ups back to back before it '
                 'polls for I/O; or move it to a process pool (a C call that releases the GIL, '
                 "such as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.750 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:20:job'],
      'stack_is': 'slice-end',
      'threshold_s': 0.0625}],
    'loop_saturated_weighs_its_queueing_against_waits_other_than_limits': [{'active_s': 1.2,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued '
                      "behind others (the run's ready wait, less what a "
                      'loop-blocked, blocking-call, slow-path or cpu-starved '
                      'finding explains), plus the queueing behind the top '
                      "holder's own slices over the block threshold when they "
                      'burned the CPU in the same code (no loop-blocked finding '
                      'then tells them)',
      'cost_s': 2.0,
      'event_wait_s': 1.75,
      'greenlet': 5,
      'hazard': False,
      'holders': {'app.parse': 0.5},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 60% of the run, and greenlets '
                 'waited 2.000 greenlet-seconds ready to run but queued, against '
                 '1.750 s waiting for I/O, timers or locks (besides 0.750 s for a '
                 'free slot of a lock, semaphore or pool: waits for its holders, '
                 "who queued too). Who held the loop: no greenlet's recorded run "
                 "slices overlapped the waiting (the hub's own callbacks, or "
                 'slices the tracer did not see). The cure is on the CPU side, not '
                 'the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a '
                 'verified credential or key, a compiled pattern or template, a '
                 'parsed configuration; and look for work that grows with the '
                 'square of its input: += on bytes or str in a loop, a list '
                 'searched inside a loop, a sort or copy repeated), fewer '
                 'greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases '
                 "the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). Which functions used the CPU: '
                 'profile with CPU samples (Tracer(cpu_samples=True); geventperf '
                 'run takes them unless --no-cpu-samples). [cost 2.000 s: '
                 'greenlet-seconds greenlets spent ready to run but queued behind '
                 "others (the run's ready wait, less what a loop-blocked, "
                 'blocking-call, slow-path or cpu-starved finding explains), plus '
                 "the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no '
                 'loop-blocked finding then tells them)]',
      'ready_wait_s': 2.0,
      'section': None,
      'sections': {},
      'small_reads_site': None,
      'stack': [],
      'stack_is': 'slice-end',
      'utilization': 0.6}],
    'storm_of_a_compiled_wait_once_per_greenlet_it_spawned': [{'cost_meaning': "seconds of loop time spent switching (switch-outs times the hub's mean "
                      'time per switch), plus the greenlet-seconds others spent ready to run '
                      "behind these slices and the hub's share of their wait that these "
                      'switches made (its switches from here over all its switches)',
      'cost_s': 0.5,
      'count': 2000,
      'greenlet': 3,
      'hazard': False,
      'hub_s_per_switch': 0.00025,
      'kind': 'switch-storm',
      'max_mean_run_s': 5e-05,
      'mean_run_s': 1.5625e-05,
      'message': "greenlet 'app.fetch' (#3) switched out 2000 times at "
                 '/srv/app/worker.py:34:collect with 15.6 us of work between switches on '
                 'average: the switching costs more than the work between switches. The '
                 "switching took 0.500 s of the loop's time. Fix: do more work per switch: "
                 'batch the items, or yield less often. [cost 0.500 s: seconds of loop time '
                 "spent switching (switch-outs times the hub's mean time per switch), plus the "
                 "greenlet-seconds others spent ready to run behind these slices and the hub's "
                 'share of their wait that these switches made (its switches from here over '
                 'all its switches)]',
      'min_switches': 1000,
      'others_ready_wait_s': 0.0,
      'run_s': 0.03125,
      'section': None,
      'site': '/srv/app/worker.py:34:collect',
      'spin': False,
      'stack': ['/srv/app/worker.py:34:collect'],
      'switching_s': 0.5}],
    'pool_full_counts_the_run_as_with_a_cpu_to_itself': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.5,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': None,
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 50% of the run (counted on the run as '
                 'it would have gone with a CPU to itself: the thread waited 0.500 s for one): '
                 'the jobs were waiting, not computing, and no other finding explains their '
                 "waits, so the pool's size paced the work. Fix: a larger Pool(size) if what "
                 'the jobs wait on (a downstream service) can take more requests at once; if '
                 "it cannot, the time each job waits is the lever (an upstream's latency is "
                 'its own to cut: its slow query, its capacity); if the limit is deliberate (a '
                 "downstream's rate limit), this is what it costs. To tell which: run once "
                 'with half the Pool size; answers that take about as long mean the upstream '
                 'had room, and a larger Pool helps; answers that take about half as long mean '
                 'it queues them (its own limit), and a larger Pool gains nothing. [cost 1.500 '
                 's: greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'loop_saturated_sending_request_bodies_in_pieces': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 56% of their sampled CPU (13 samples in all) at '
                 '/srv/app/worker.py:32:ship; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 41% of the sampled CPU sent request bodies a piece '
                 'at a time: urllib3 sends each piece an iterable body yields as a chunk of '
                 'its own, a send each (here the pieces came from '
                 '/srv/app/worker.py:23:lines): pass the body whole (bytes), or yield fewer, '
                 'larger pieces (some 64 KiB). Beyond that: less work per request in these '
                 'greenlets (compute once what is the same from request to request and keep '
                 'it: a verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: += '
                 'on bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated), fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). Which functions "
                 'used the CPU: profile with CPU samples (Tracer(cpu_samples=True); geventperf '
                 'run takes them unless --no-cpu-samples). [cost 3.500 s: greenlet-seconds '
                 "greenlets spent ready to run but queued behind others (the run's ready wait, "
                 'less what a loop-blocked, blocking-call, slow-path or cpu-starved finding '
                 "explains), plus the queueing behind the top holder's own slices over the "
                 'block threshold when they burned the CPU in the same code (no loop-blocked '
                 'finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:32:ship'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 59% of their sampled CPU (12 samples in all) at '
                 '/srv/app/worker.py:32:ship; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:32:ship'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 59% of their sampled CPU (13 samples in all) at '
                 '/srv/app/worker.py:32:ship; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: less work per request in these greenlets (compute '
                 'once what is the same from request to request and keep it: a verified '
                 'credential or key, a compiled pattern or template, a parsed configuration; '
                 'and look for work that grows with the square of its input: += on bytes or '
                 'str in a loop, a list searched inside a loop, a sort or copy repeated), '
                 'fewer greenlets per process and more processes, or CPU-heavy work moved out '
                 'of the loop (a process pool; a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:32:ship'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'serial_bottleneck_tells_a_gate_whose_setter_sleeps': [{'cost_meaning': 'greenlet-seconds the waiting greenlets spent in wait() at the event',
      'cost_s': 0.5,
      'gate': True,
      'greenlet': 3,
      'handoff_share': 0.2173913043478261,
      'handoff_wait_s': 0.5,
      'hazard': False,
      'kind': 'serial-bottleneck',
      'message': 'Many greenlets waited at an event another greenlet sets: greenlets such as '
                 "'app.fetch' waited 0.500 s in all in wait() at /srv/app/worker.py:40:app (6 "
                 'waits by 2 greenlets, 22% of all event wait), 83 ms each on average, about '
                 "as long as 'app.refresh' took over its calls at "
                 '/srv/app/worker.py:20:fetch_rules (2 calls of 150 ms). If the one that sets '
                 'it clears it while it works (a gate closed around each refresh of a shared '
                 'value: a config, a token, a cache), every waiter stops for every refresh '
                 'though it holds a usable value. Fix: do not clear it -- build the new value '
                 'and swap it in, so that the waiters wait only for the first one. [cost 0.500 '
                 's: greenlet-seconds the waiting greenlets spent in wait() at the event]',
      'peers': False,
      'section': None,
      'setter': 'app.refresh',
      'setter_site': '/srv/app/worker.py:20:fetch_rules',
      'site': '/srv/app/worker.py:40:app',
      'stack': ['/srv/app/worker.py:40:app'],
      'waits': 6}],
    'loop_saturated_by_requests_own_cpu_in_a_grown_cookie_jar': [{'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 50% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, urllib3 '
                 'and http.client, and 25% of the sampled CPU handled cookies there: requests '
                 "merges the session's cookie jar into every request, scans it for the cookies "
                 'each request carries (merge_cookies, get_cookie_header) and stores every '
                 "answer's Set-Cookie in it, so a jar grown large (a shared Session collecting "
                 'a cookie per user or per path from an upstream that sets them) costs every '
                 'call. Fix: keep only the cookies the calls need -- a cookie policy on the '
                 'jar that refuses the rest (session.cookies.set_policy() with an '
                 'http.cookiejar policy whose set_ok and return_ok say no), cookies= per call '
                 "instead of a shared jar, or a Session per user. geventperf's fast path skips "
                 'cookie work only for an empty jar: it does not cure this. Beyond that: less '
                 'work per request in these greenlets (compute once what is the same from '
                 'request to request and keep it: a verified credential or key, a compiled '
                 'pattern or template, a parsed configuration; and look for work that grows '
                 'with the square of its input: += on bytes or str in a loop, a list searched '
                 'inside a loop, a sort or copy repeated), fewer greenlets per process and '
                 'more processes, or CPU-heavy work moved out of the loop (a process pool; a C '
                 "call that releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 3.500 s: greenlet-seconds greenlets '
                 "spent ready to run but queued behind others (the run's ready wait, less what "
                 'a loop-blocked, blocking-call, slow-path or cpu-starved finding explains), '
                 "plus the queueing behind the top holder's own slices over the block "
                 'threshold when they burned the CPU in the same code (no loop-blocked finding '
                 'then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875},
     {'active_s': 1.9375,
      'cost_meaning': 'greenlet-seconds greenlets spent ready to run but queued behind others '
                      "(the run's ready wait, less what a loop-blocked, blocking-call, "
                      'slow-path or cpu-starved finding explains), plus the queueing behind '
                      "the top holder's own slices over the block threshold when they burned "
                      'the CPU in the same code (no loop-blocked finding then tells them)',
      'cost_s': 3.5,
      'event_wait_s': 0.5,
      'greenlet': 3,
      'hazard': False,
      'holders': {'app.fetch': 2.0, 'app.parse': 0.25, 'main': 0.125},
      'holders_off_cpu_s': 0.0,
      'kind': 'loop-saturated',
      'long_slices_of': [],
      'long_slices_s': 0,
      'message': 'The loop was saturated: busy 97% of the run, and greenlets waited 3.500 '
                 'greenlet-seconds ready to run but queued, against 0.500 s waiting for I/O, '
                 "timers or locks. Who held the loop: 'app.fetch' (x2: ran 1.500 s while 1.3 "
                 'others were ready on average, 2.000 greenlet-s of their waiting); '
                 "'app.parse' (x1: ran 0.125 s while 2.0 others were ready on average, 0.250 "
                 "greenlet-s of their waiting); 'main' (x1: ran 0.250 s while 0.5 others were "
                 "ready on average, 0.125 greenlet-s of their waiting); inside sections 'xml' "
                 "(0.500 greenlet-s), 'json' (0.375 greenlet-s), 'csv' (0.250 greenlet-s); CPU "
                 'samples put 50% of their sampled CPU (9 samples in all) at '
                 '/srv/app/worker.py:40:handler; the slices that delayed most ended at '
                 '/srv/app/worker.py:30:crunch, where they yielded. The cure is on the CPU '
                 'side, not the I/O side: 50% of the sampled CPU ran inside requests, urllib3 '
                 'and http.client themselves: their per-request work (proxy settings read from '
                 'the environment, URL parsing, header checks) is a cause of its own. '
                 'geventperf.Session(), or geventperf.mount(session, fast_path=True), does '
                 "that work once per session (about half of requests' CPU per call in this "
                 "project's benchmarks). Beyond that: less work per request in these greenlets "
                 '(compute once what is the same from request to request and keep it: a '
                 'verified credential or key, a compiled pattern or template, a parsed '
                 'configuration; and look for work that grows with the square of its input: += '
                 'on bytes or str in a loop, a list searched inside a loop, a sort or copy '
                 'repeated), fewer greenlets per process and more processes, or CPU-heavy work '
                 'moved out of the loop (a process pool; a C call that releases the GIL, such '
                 "as hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 3.500 s: "
                 'greenlet-seconds greenlets spent ready to run but queued behind others (the '
                 "run's ready wait, less what a loop-blocked, blocking-call, slow-path or "
                 "cpu-starved finding explains), plus the queueing behind the top holder's own "
                 'slices over the block threshold when they burned the CPU in the same code '
                 '(no loop-blocked finding then tells them)]',
      'ready_wait_s': 3.5,
      'section': None,
      'sections': {'csv': 0.25, 'json': 0.375, 'xml': 0.5},
      'small_reads_site': None,
      'stack': ['/srv/app/worker.py:40:handler'],
      'stack_is': 'cpu-samples',
      'utilization': 0.96875}],
    'greenlet_leak_at_its_edges': [{'alive': 20,
      'calls': 40,
      'consequences': [],
      'cost_meaning': 'greenlet-seconds the greenlets that outlived their spawners ran and '
                      'kept others waiting ready to run, or the cost of the costliest finding '
                      'about them when larger (their calls caused it)',
      'cost_s': 0.9375,
      'greenlet': 100,
      'hazard': False,
      'kind': 'greenlet-leak',
      'message': "Greenlets outlived the work that started them: 20 greenlets 'app.keeper' "
                 "were still running when tracing stopped, 20 of them started by 'app.job' "
                 'greenlets, none of which were still running. They kept waking meanwhile: 120 '
                 'wake-ups, 6 each on average, most at /srv/app/worker.py:38:keeper (80 times) '
                 'and /srv/app/worker.py:39:keeper (40 times); 40 of them answered requests '
                 '(2.500 s waited for them). They ran 0.312 s on the loop and kept others '
                 'waiting 0.625 greenlet-seconds ready to run. A helper greenlet spawned for '
                 'each job (a lease keeper, a heartbeat, a progress poller) and stopped on '
                 'some paths only keeps working for nobody once its job is done: its calls '
                 'compete with the jobs still running for the loop and for the connection '
                 "pool, and it keeps its job's objects alive. Fix: stop it where the job ends, "
                 'on every path -- helper.kill() in a finally: block (or a loop that checks an '
                 'Event the job sets), gevent.killall() for a group. [cost 0.938 s: '
                 'greenlet-seconds the greenlets that outlived their spawners ran and kept '
                 'others waiting ready to run, or the cost of the costliest finding about them '
                 'when larger (their calls caused it)]',
      'orphans': 20,
      'section': None,
      'spawners': ['app.job'],
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:38:keeper'],
      'wakes': 120},
     {'alive': 20,
      'calls': 40,
      'consequences': ['connection-churn'],
      'cost_meaning': 'greenlet-seconds the greenlets that outlived their spawners ran and '
                      'kept others waiting ready to run, or the cost of the costliest finding '
                      'about them when larger (their calls caused it)',
      'cost_s': 4.0,
      'greenlet': 100,
      'hazard': False,
      'kind': 'greenlet-leak',
      'message': "Greenlets outlived the work that started them: 20 greenlets 'app.keeper' "
                 "were still running when tracing stopped, 20 of them started by 'app.job' "
                 'greenlets, none of which were still running. They kept waking meanwhile: 120 '
                 'wake-ups, 6 each on average, most at /srv/app/worker.py:38:keeper (80 times) '
                 'and /srv/app/worker.py:39:keeper (40 times); 40 of them answered requests '
                 '(2.500 s waited for them). They ran 0.312 s on the loop and kept others '
                 'waiting 0.625 greenlet-seconds ready to run; the findings about them '
                 '(connection-churn) follow from this one. A helper greenlet spawned for each '
                 'job (a lease keeper, a heartbeat, a progress poller) and stopped on some '
                 'paths only keeps working for nobody once its job is done: its calls compete '
                 'with the jobs still running for the loop and for the connection pool, and it '
                 "keeps its job's objects alive. Fix: stop it where the job ends, on every "
                 'path -- helper.kill() in a finally: block (or a loop that checks an Event '
                 'the job sets), gevent.killall() for a group. [cost 4.000 s: greenlet-seconds '
                 'the greenlets that outlived their spawners ran and kept others waiting ready '
                 'to run, or the cost of the costliest finding about them when larger (their '
                 'calls caused it)]',
      'orphans': 20,
      'section': None,
      'spawners': ['app.job'],
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:38:keeper'],
      'wakes': 120},
     {'alive': 20,
      'calls': 40,
      'consequences': [],
      'cost_meaning': 'greenlet-seconds the greenlets that outlived their spawners ran and '
                      'kept others waiting ready to run, or the cost of the costliest finding '
                      'about them when larger (their calls caused it)',
      'cost_s': 0.9375,
      'greenlet': 100,
      'hazard': False,
      'kind': 'greenlet-leak',
      'message': "Greenlets outlived the work that started them: 20 greenlets 'app.keeper' "
                 "were still running when tracing stopped, 10 of them started by 'app.job' "
                 'greenlets, none of which were still running. They kept waking meanwhile: 120 '
                 'wake-ups, 6 each on average, most at /srv/app/worker.py:38:keeper (80 times) '
                 'and /srv/app/worker.py:39:keeper (40 times); 40 of them answered requests '
                 '(2.500 s waited for them). They ran 0.312 s on the loop and kept others '
                 'waiting 0.625 greenlet-seconds ready to run. A helper greenlet spawned for '
                 'each job (a lease keeper, a heartbeat, a progress poller) and stopped on '
                 'some paths only keeps working for nobody once its job is done: its calls '
                 'compete with the jobs still running for the loop and for the connection '
                 "pool, and it keeps its job's objects alive. Fix: stop it where the job ends, "
                 'on every path -- helper.kill() in a finally: block (or a loop that checks an '
                 'Event the job sets), gevent.killall() for a group. [cost 0.938 s: '
                 'greenlet-seconds the greenlets that outlived their spawners ran and kept '
                 'others waiting ready to run, or the cost of the costliest finding about them '
                 'when larger (their calls caused it)]',
      'orphans': 10,
      'section': None,
      'spawners': ['app.job'],
      'stack': ['/venv/lib/python3.11/site-packages/gevent/hub.py:166:sleep',
                '/srv/app/worker.py:38:keeper'],
      'wakes': 120}],
    'pool_full_tells_jobs_walking_pages_one_call_at_a_time': [{'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 50 waits of 20 ms '
                 'on average. That is 10 calls per job at that line, one after another (a '
                 'greenlet waits on one call at a time): if they walk pages of a listing (each '
                 'cursor from the answer before), ask for larger pages (a limit= or page_size= '
                 'parameter) or use a batch endpoint, and every slot is held for fewer round '
                 'trips; if the items are independent, fetch them together inside the job. '
                 "Fix: first fewer, larger calls per job: each slot is held for its job's "
                 'round trips. Then: a larger Pool(size) if what the jobs wait on (a '
                 'downstream service) can take more requests at once; if it cannot, the time '
                 "each job waits is the lever (an upstream's latency is its own to cut: its "
                 "slow query, its capacity); if the limit is deliberate (a downstream's rate "
                 'limit), this is what it costs. To tell which: run once with half the Pool '
                 'size; answers that take about as long mean the upstream had room, and a '
                 'larger Pool helps; answers that take about half as long mean it queues them '
                 '(its own limit), and a larger Pool gains nothing. [cost 1.500 s: '
                 'greenlet-seconds spent waiting for a free slot of a gevent Pool while the '
                 'loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4},
     {'cost_meaning': 'greenlet-seconds spent waiting for a free slot of a gevent Pool while '
                      'the loop sat mostly idle',
      'cost_s': 1.5,
      'greenlet': 1,
      'hazard': False,
      'idle_share': 0.75,
      'job_names': ['app.fetch', 'app.parse'],
      'jobs_site': '/srv/app/worker.py:40:call',
      'joined_in_slots': False,
      'joined_s': 0.0,
      'kind': 'pool-full',
      'message': 'A gevent Pool was full: spawning into it waited 1.500 s for a free slot (4 '
                 "times, for the pool used at /srv/app/worker.py:40:submit; greenlet 'main' "
                 '(#1) waited) while the loop sat idle 75% of the run: the jobs were waiting, '
                 "not computing, and no other finding explains their waits, so the pool's size "
                 "paced the work. The jobs ('app.fetch', 'app.parse') held their slots mostly "
                 'waiting at /srv/app/worker.py:40:call (HTTPAdapter.send): 49 waits of 20 ms '
                 'on average. Fix: a larger Pool(size) if what the jobs wait on (a downstream '
                 'service) can take more requests at once; if it cannot, the time each job '
                 "waits is the lever (an upstream's latency is its own to cut: its slow query, "
                 "its capacity); if the limit is deliberate (a downstream's rate limit), this "
                 'is what it costs. To tell which: run once with half the Pool size; answers '
                 'that take about as long mean the upstream had room, and a larger Pool helps; '
                 'answers that take about half as long mean it queues them (its own limit), '
                 'and a larger Pool gains nothing. [cost 1.500 s: greenlet-seconds spent '
                 'waiting for a free slot of a gevent Pool while the loop sat mostly idle]',
      'section': None,
      'site': '/srv/app/worker.py:40:submit',
      'slept_in_slots': False,
      'slot_wait_s': 1.5,
      'stack': ['/venv/lib/python3.11/site-packages/gevent/pool.py:636:Pool.add',
                '/venv/lib/python3.11/site-packages/gevent/pool.py:603:Pool.start',
                '/srv/app/worker.py:40:submit'],
      'waits': 4}],
    'cpu_slices_parsing_the_same_json_again_are_told_to_parse_once': [{'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (it is parsing JSON: ask the upstream for less -- '
                 'only the fields, the page or the summary this code uses -- rather than '
                 'parsing a large document whole, or parse with a faster decoder (orjson, '
                 'ujson)); then split what must stay expensive and yield between pieces of a '
                 'millisecond or two with gevent.idle() (it resumes once the loop has run what '
                 'is pending, the I/O of waiting greenlets included: suited to background '
                 'work) or gevent.sleep(0.001) (a timer: the loop polls for I/O before it '
                 'fires), not gevent.sleep(0): that gives way only to greenlets already ready, '
                 'and gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode',
                '/venv/lib/python3.11/site-packages/requests/models.py:1116:Response.json',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (it is parsing the same JSON again and again: '
                 'Response.json() took 0.500 s of CPU for the 0.5 MB of bodies read (1.00 '
                 'MB/s, where a C decoder parses over 100): a property or helper that calls '
                 'response.json() at every access parses the body anew each time -- parse each '
                 'response once and keep the object); then split what must stay expensive and '
                 'yield between pieces of a millisecond or two with gevent.idle() (it resumes '
                 'once the loop has run what is pending, the I/O of waiting greenlets '
                 'included: suited to background work) or gevent.sleep(0.001) (a timer: the '
                 'loop polls for I/O before it fires), not gevent.sleep(0): that gives way '
                 'only to greenlets already ready, and gevent runs up to 50 such wake-ups back '
                 'to back before it polls for I/O; or move it to a process pool (a C call that '
                 "releases the GIL, such as hashlib's or zlib's, to "
                 'gevent.get_hub().threadpool). [cost 0.500 s: greenlet-seconds other '
                 'greenlets spent ready to run but held up by these slices, and in the backlog '
                 'they left (the ready queue above its usual length until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode',
                '/venv/lib/python3.11/site-packages/requests/models.py:1116:Response.json',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625},
     {'active_s': 0.5,
      'backlog_s': 0.0,
      'blocking_s': 0.0,
      'cause': 'cpu',
      'cost_meaning': 'greenlet-seconds other greenlets spent ready to run but held up by '
                      'these slices, and in the backlog they left (the ready queue above its '
                      'usual length until it next emptied)',
      'cost_s': 0.5,
      'count': 1,
      'cpu_s': 0.5,
      'gc_s': 0.0,
      'greenlet': 3,
      'greenlets': 1,
      'hazard': False,
      'kind': 'loop-blocked',
      'longest_s': 0.5,
      'longest_wait_s': 0.5,
      'message': "greenlet 'app.fetch' (#3) held the loop 0.500 s without yielding, while "
                 'others were ready to run: 0.500 greenlet-seconds of their waiting (one '
                 'waited up to 0.500 s). It was CPU work (0.500 s of CPU); CPU samples put '
                 '100% of their sampled CPU (5 samples in all) at /srv/app/worker.py:24:job; '
                 'the slice ended at /srv/app/worker.py:20:job, where it yielded. Fix: first '
                 'make that code cheaper (it is parsing JSON: ask the upstream for less -- '
                 'only the fields, the page or the summary this code uses -- rather than '
                 'parsing a large document whole, or parse with a faster decoder (orjson, '
                 'ujson)); then split what must stay expensive and yield between pieces of a '
                 'millisecond or two with gevent.idle() (it resumes once the loop has run what '
                 'is pending, the I/O of waiting greenlets included: suited to background '
                 'work) or gevent.sleep(0.001) (a timer: the loop polls for I/O before it '
                 'fires), not gevent.sleep(0): that gives way only to greenlets already ready, '
                 'and gevent runs up to 50 such wake-ups back to back before it polls for I/O; '
                 'or move it to a process pool (a C call that releases the GIL, such as '
                 "hashlib's or zlib's, to gevent.get_hub().threadpool). [cost 0.500 s: "
                 'greenlet-seconds other greenlets spent ready to run but held up by these '
                 'slices, and in the backlog they left (the ready queue above its usual length '
                 'until it next emptied)]',
      'run_s': 0.5,
      'section': 'sec',
      'small_reads_site': None,
      'stack': ['/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode',
                '/venv/lib/python3.11/site-packages/requests/models.py:1116:Response.json',
                '/srv/app/worker.py:24:job',
                '/srv/app/worker.py:9:run'],
      'stack_is': 'cpu-samples',
      'threshold_s': 0.0625}],
    'repeated_request_at_its_edges': [{'calls': 80,
      'cost_meaning': 'greenlet-seconds spent waiting for answers at the line that sent the '
                      'repeated request, for its calls past the first, plus their share of all '
                      "requests times the greenlets' ready wait (each request costs the loop "
                      'its CPU)',
      'cost_s': 2.01875,
      'count': 20,
      'greenlet': None,
      'hazard': False,
      'host': 'http://auth:80',
      'kind': 'repeated-request',
      'message': 'The same request, again and again: POST http://auth:80/token was sent 20 '
                 'times with the same body, 25% of the 80 requests the pools answered, first '
                 'from /srv/app/worker.py:46:refresh, while the other 60 asked for at least 30 '
                 'different things; greenlets waited 2.000 s for answers at that line (20 '
                 'calls). Its answer (a token, a configuration, a lookup) most likely did not '
                 'change between calls. Fix: keep the answer and reuse it while it holds -- a '
                 "cache keyed on what the answer depends on, kept for the answer's lifetime (a "
                 'token until its expiry: store the expiry as an absolute time, now + '
                 'expires_in, and compare it with the same clock). If a cache is there '
                 'already, find why it misses: a key holding a timestamp or a request id, or a '
                 'cache per greenlet (threading.local is per greenlet once gevent has patched '
                 'it, and each request runs in a new one). [cost 2.019 s: greenlet-seconds '
                 'spent waiting for answers at the line that sent the repeated request, for '
                 'its calls past the first, plus their share of all requests times the '
                 "greenlets' ready wait (each request costs the loop its CPU)]",
      'request': 'POST /token #0000abcd',
      'section': None,
      'site': '/srv/app/worker.py:46:refresh',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/py/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/srv/app/worker.py:46:refresh'],
      'varied': 30},
     {'calls': 80,
      'cost_meaning': 'greenlet-seconds spent waiting for answers at the line that sent the '
                      'repeated request, for its calls past the first, plus their share of all '
                      "requests times the greenlets' ready wait (each request costs the loop "
                      'its CPU)',
      'cost_s': 2.01875,
      'count': 20,
      'greenlet': None,
      'hazard': False,
      'host': 'http://auth:80',
      'kind': 'repeated-request',
      'message': 'The same request, again and again: POST http://auth:80/token was sent 20 '
                 'times with the same body, 25% of the 80 requests the pools answered, first '
                 'from /srv/app/worker.py:46:refresh, while the other 60 asked for at least '
                 '511 different things; greenlets waited 2.000 s for answers at that line (20 '
                 'calls). Its answer (a token, a configuration, a lookup) most likely did not '
                 'change between calls. Fix: keep the answer and reuse it while it holds -- a '
                 "cache keyed on what the answer depends on, kept for the answer's lifetime (a "
                 'token until its expiry: store the expiry as an absolute time, now + '
                 'expires_in, and compare it with the same clock). If a cache is there '
                 'already, find why it misses: a key holding a timestamp or a request id, or a '
                 'cache per greenlet (threading.local is per greenlet once gevent has patched '
                 'it, and each request runs in a new one). [cost 2.019 s: greenlet-seconds '
                 'spent waiting for answers at the line that sent the repeated request, for '
                 'its calls past the first, plus their share of all requests times the '
                 "greenlets' ready wait (each request costs the loop its CPU)]",
      'request': 'POST /token #0000abcd',
      'section': None,
      'site': '/srv/app/worker.py:46:refresh',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:687:SocketMixin.recv_into',
                '/py/lib/python3.11/http/client.py:325:HTTPResponse.begin',
                '/srv/app/worker.py:46:refresh'],
      'varied': 511}],
    'session_per_request_by_pools_closed_past_pool_connections': [{'avoidable': 330,
      'connect_wait_s': 0.5,
      'connections': 440,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 1.125,
      'evicted': True,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'Connection pools closed and made again: the program reached 11 hosts, and a '
                 "requests Session's PoolManager keeps pools for 10 of them "
                 '(pool_connections), closing the least recently used with its kept-alive '
                 'connections. Greenlets made their requests to https://h0:443 through 36 '
                 'pools for 40 requests (most opened connections under '
                 '/srv/app/worker.py:30:with_a_session): 40 connections opened, 30 more than '
                 'one kept pool would have (the most in flight at once: 3). 0.500 s was spent '
                 'waiting to open connections; 25% of the sampled CPU set connections up and '
                 'closed them, which queued the others about 1.000 greenlet-s; 75% of that is '
                 'the pools made again. Fix: raise pool_connections to the hosts the Session '
                 "reaches: session.mount('https://', "
                 'requests.adapters.HTTPAdapter(pool_connections=11, pool_maxsize=...)) with '
                 'the pool_maxsize it has now (or geventperf.mount(session, '
                 'pool_connections=...)); and if a Session is also made per call, make one per '
                 'worker or per process. [cost 1.125 s: the share of connections opened past '
                 'what one shared pool would have kept (over all opened), of the '
                 "greenlet-seconds spent waiting to open connections plus the run's ready wait "
                 'times the share of the sampled CPU that set connections up (none without CPU '
                 'samples)]',
      'new_pools_share': 0.75,
      'others_ready_wait_s': 0.75,
      'peak_in_use': 3,
      'pools': ['https://h0:443',
                'https://h1:443',
                'https://h2:443',
                'https://h3:443',
                'https://h4:443',
                'https://h5:443',
                'https://h6:443',
                'https://h7:443',
                'https://h8:443',
                'https://h9:443',
                'https://h10:443'],
      'pools_made': 396,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']},
     {'avoidable': 330,
      'connect_wait_s': 0.5,
      'connections': 440,
      'cost_meaning': 'the share of connections opened past what one shared pool would have '
                      'kept (over all opened), of the greenlet-seconds spent waiting to open '
                      "connections plus the run's ready wait times the share of the sampled "
                      'CPU that set connections up (none without CPU samples)',
      'cost_s': 1.125,
      'evicted': False,
      'greenlet': None,
      'hazard': False,
      'kind': 'session-per-request',
      'message': 'A new connection pool for every request: greenlets made their requests to '
                 'https://h0:443 through 37 different urllib3 pools (one per requests.Session '
                 'or adapter made; most opened connections under '
                 '/srv/app/worker.py:30:with_a_session), so nothing was kept alive: 40 '
                 'connections opened for 40 requests, 30 more than one shared pool would have '
                 'kept (the most in flight at once: 3). 0.500 s was spent waiting to open '
                 'connections; 25% of the sampled CPU set connections up and closed them, '
                 'which queued the others about 1.000 greenlet-s; 75% of that is the new '
                 'pools. Fix: create one requests.Session (or geventperf.Session) per worker '
                 'or per process and reuse it for every call, not one per call (a `with '
                 'requests.Session() as s:` around each request); its kept-alive connections '
                 'skip the lookup, the connect and the set-up. The program reached 11 hosts: a '
                 'PoolManager keeps pools for 10 hosts (pool_connections) and closes the least '
                 'recently used, so one Session spread over more hosts makes new pools too; '
                 'then raise pool_connections '
                 '(requests.adapters.HTTPAdapter(pool_connections=...)). [cost 1.125 s: the '
                 'share of connections opened past what one shared pool would have kept (over '
                 'all opened), of the greenlet-seconds spent waiting to open connections plus '
                 "the run's ready wait times the share of the sampled CPU that set connections "
                 'up (none without CPU samples)]',
      'new_pools_share': 0.75,
      'others_ready_wait_s': 0.75,
      'peak_in_use': 3,
      'pools': ['https://h0:443',
                'https://h1:443',
                'https://h2:443',
                'https://h3:443',
                'https://h4:443',
                'https://h5:443',
                'https://h6:443',
                'https://h7:443',
                'https://h8:443',
                'https://h9:443',
                'https://h10:443'],
      'pools_made': 407,
      'section': None,
      'setup_cpu_share': 0.25,
      'site': '/srv/app/worker.py:30:with_a_session',
      'stack': ['/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:631:SocketMixin._internal_connect',
                '/venv/lib/python3.11/site-packages/urllib3/util/connection.py:60:create_connection',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:239:HTTPConnection._new_conn',
                '/venv/lib/python3.11/site-packages/urllib3/connection.py:398:HTTPConnection.connect',
                '/venv/lib/python3.11/site-packages/urllib3/connectionpool.py:493:HTTPConnectionPool._make_request',
                '/srv/app/worker.py:30:with_a_session']}],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_finding_whole(name):
    assert [f.to_dict() for f in SCENARIOS[name]()] == EXPECTED[name]


# Every kind the findings rank, in their order at equal cost; an unknown kind last.
KIND_ORDER = ["c-section-deadlock-risk", "loop-saturated", "blocked-read-in-c-section",
              "blocking-call", "gil-contended", "gc-pause", "loop-blocked", "loop-held",
              "threadpool-saturated", "pool-full", "connection-pool-full", "lock-contended",
              "serial-bottleneck", "workers-saturated", "queue-lockstep", "queue-full",
              "sequential-calls",
              "awaited-in-turn", "batch-barrier",
              "session-per-request",
              "connection-churn",
              "connection-not-kept-alive", "connection-leak",
              "requests-failed", "delayed-ack-stall", "request-body-stall", "server-nagle",
              "server-pool-full", "retry-backoff",
              "small-body-reads",
              "switch-storm",
              "pure-python-fallback", "charset-detection", "cpu-starved", "from-the-future"]


def test_small_reads_a_cpu_finding_tells_are_not_told_again():
    # one cause, one finding: the reads at the line a CPU finding tells as iterating a
    # body in small pieces go; another line's stay, and so does every other kind
    told = Finding(kind="loop-saturated", message="m", cost_s=2.0,
                   extra={"small_reads_site": f"{APP}:28:blob"})
    same = Finding(kind="small-body-reads", message="a", extra={"site": f"{APP}:28:blob"})
    other = Finding(kind="small-body-reads", message="b", extra={"site": f"{APP}:40:call"})
    plain = Finding(kind="loop-blocked", message="c", extra={"small_reads_site": None})
    assert findings.without_reads_told([told, same, other, plain]) == [told, other, plain]


def test_full_order_of_every_kind_at_equal_cost():
    items = [Finding(kind=kind, message="m", cost_s=1.0) for kind in reversed(KIND_ORDER)]
    assert [f.kind for f in findings.sort_findings(items)] == KIND_ORDER


def test_hazard_flag_outranks_cost_and_defaults_to_the_kind():
    items = [Finding(kind="switch-storm", message="a", cost_s=9.0),
             # a deadlock risk whose extra says it is no hazard ranks by its cost
             Finding(kind="c-section-deadlock-risk", message="b", cost_s=0.5,
                     extra={"hazard": False}),
             # any kind flagged a hazard ranks above every cost
             Finding(kind="loop-blocked", message="c", cost_s=0.25, extra={"hazard": True}),
             # no flag: a deadlock risk is a hazard by its kind
             Finding(kind="c-section-deadlock-risk", message="d", cost_s=0.125),
             Finding(kind="switch-storm", message="e", cost_s=-1.0)]
    assert [f.message for f in findings.sort_findings(items)] == ["c", "d", "a", "b", "e"]


def test_compute_runs_every_finder_and_sorts_their_findings():
    p = profile(events=[blocked_slice(3, 0.5, 0.5, 0.75), c_switch(3, 0.625),
                        lxml_parse(3, 4, False)])
    assert [(f.kind, f.cost_s) for f in findings.compute(p)] == [
        ("c-section-deadlock-risk", 1.25), ("loop-blocked", 0.75),
        ("blocked-read-in-c-section", 0.625)]
    assert findings.FINDERS == (
        findings.deadlock_risks, findings.blocked_reads_in_c_sections,
        findings.loop_saturated, findings.loop_blocked, findings.gil_contended,
        findings.loop_held, findings.switch_storms,
        findings.small_body_reads, findings.threadpool_saturated, findings.pool_full,
        findings.connection_pool_full, findings.lock_contended, findings.serial_bottleneck,
        findings.workers_saturated, findings.queue_lockstep, findings.sequential_calls,
        findings.awaited_in_turn,
        findings.batch_barrier, findings.session_per_request, findings.connection_churn,
        findings.not_kept_alive, findings.connection_leak,
        findings.requests_failed, findings.delayed_ack_stall, findings.request_body_stall,
        findings.server_nagle, findings.server_pool_full, findings.retry_backoff,
        findings.repeated_requests, findings.slow_paths, findings.cpu_starved)
    # (greenlet_leaks runs after them: the others' findings about the leaked greenlets
    # are its consequences)


def test_a_greenlet_named_by_an_id_the_profile_lacks():
    p = profile(events=[c_switch(77, 0.5), c_switch("g-x", 0.25, stack=["<x>"])])
    named = sorted(f.message.split(" was switched")[0]
                   for f in findings.blocked_reads_in_c_sections(p))
    assert named == ["greenlet #77", "greenlet #g-x"]


def test_a_full_pool_gives_way_to_a_finding_that_weighs_as_much():
    """pool-full is a consequence (its jobs took long): compute keeps it only when no
    other finding but the machine's own (cpu-starved) costs as much or is a hazard."""
    pool = Finding(kind="pool-full", message="p", cost_s=0.5)
    heavy = Finding(kind="loop-blocked", message="b", cost_s=0.5)
    light = Finding(kind="small-body-reads", message="s", cost_s=0.5 - 2 ** -20)
    hazard = Finding(kind="switch-storm", message="h", cost_s=0.0, extra={"hazard": True})
    starved = Finding(kind="cpu-starved", message="c", cost_s=4.0)
    drop = findings.without_outweighed_limits
    assert drop([pool, heavy, light]) == [heavy, light]
    # each limit on its own: a lock wait heavier than every cause stays, the pool goes
    lock = Finding(kind="lock-contended", message="l", cost_s=0.5 + 2 ** -20)
    assert drop([pool, lock, heavy]) == [lock, heavy]
    assert drop([pool, hazard]) == [hazard]
    assert drop([light, pool, starved]) == [light, pool, starved]
    assert drop([light, starved]) == [light, starved]
    # a cause in the function that took the lock (its parse read the network under the
    # lock) explains the lock's queue, however much less it costs; one elsewhere does not
    held = Finding(kind="lock-contended", message="l", cost_s=400.0,
                   extra={"site": f"{APP}:92:naive_job"})
    under = Finding(kind="blocked-read-in-c-section", message="r", cost_s=10.0,
                    stack=[f"{HUB}:166:sleep", f"{APP}:95:naive_job", f"{APP}:162:job"])
    elsewhere = Finding(kind="blocked-read-in-c-section", message="r", cost_s=10.0,
                        stack=[f"{HUB}:166:sleep", f"{APP}:95:other_job"])
    assert drop([held, under]) == [under]
    assert drop([held, elsewhere]) == [held, elsewhere]
    # a slow path in that function (small reads under the lock) costs its holder a
    # little CPU: the queue stays the lock's
    reads = Finding(kind="small-body-reads", message="s", cost_s=0.25,
                    stack=[f"{APP}:95:naive_job"])
    assert drop([held, reads]) == [held, reads]
    # the loop's CPU in that function (a parse under the lock) explains the queue when
    # the holders burned at least as much there as they waited (a call under the lock);
    # else both stay, by cost
    parse = Finding(kind="loop-held", message="h", cost_s=4.0,
                    stack=[f"{APP}:96:naive_job", f"{APP}:162:job"])
    held.extra.update(held_wait_s=2.5, held_cpu_s=2.5)
    assert drop([held, parse]) == [parse]
    held.extra["held_cpu_s"] = 2.5 - 2 ** -20
    assert drop([held, parse]) == [held, parse]
    assert drop([held, under]) == [under]  # a wait under the lock: the holders' waits
    nowhere = Finding(kind="lock-contended", message="l", cost_s=400.0,
                      extra={"site": "an unrecorded place"})
    assert drop([nowhere, under]) == [nowhere, under]
    # a serial bottleneck gives way the same way: to what slowed its feeder, in the
    # feeder's function
    serial = Finding(kind="serial-bottleneck", message="f", cost_s=400.0,
                     extra={"site": f"{APP}:95:naive_job"})
    assert drop([serial, under]) == [under]
    assert drop([serial, elsewhere]) == [serial, elsewhere]
    # a full pool whose jobs are known gives way by cost only to a cause in its jobs (or
    # one that names no greenlet): a housekeeper blocking the loop did not slow them
    p = profile()
    jobs = Finding(kind="pool-full", message="p", cost_s=0.5, extra={"job_names": ["app.fetch"]})
    in_jobs = Finding(kind="blocking-call", message="b", cost_s=0.5, greenlet=3)
    keeper = Finding(kind="blocking-call", message="k", cost_s=4.0, greenlet=1)
    nobody = Finding(kind="blocking-call", message="n", cost_s=0.5)
    assert drop([jobs, in_jobs], p) == [in_jobs]
    assert drop([jobs, keeper], p) == [jobs, keeper]
    assert drop([jobs, nobody], p) == [nobody]
    assert drop([jobs, keeper]) == [keeper]  # no profile: by cost, as before
    no_jobs = Finding(kind="pool-full", message="p", cost_s=0.5, extra={"job_names": []})
    assert drop([no_jobs, keeper], p) == [keeper]
    # a full pool whose jobs waited most at the line of another limit costing as much (a
    # connection pool too small under it) is that limit's; one costing less, or another
    # line: both stay
    slots = Finding(kind="pool-full", message="p", cost_s=0.5,
                    extra={"jobs_site": f"{APP}:56:job"})
    conns = Finding(kind="connection-pool-full", message="c", cost_s=0.5,
                    extra={"site": f"{APP}:56:job"})
    assert drop([conns, slots]) == [conns]
    conns.cost_s = 0.5 - 2 ** -20
    assert drop([conns, slots]) == [conns, slots]
    conns.cost_s, conns.extra["site"] = 0.5, f"{APP}:57:job"
    assert drop([conns, slots]) == [conns, slots]
    # compute applies it: the slot waits alone are a finding, beside a heavier slice not
    p = pool_profile(1.5, [(SLOT_STACK, 0.5)])
    assert [f.kind for f in findings.compute(p)] == ["pool-full"]
    p.events = [blocked_slice(3, 0.5, 0.5, 0.5)]
    assert [f.kind for f in findings.compute(p)] == ["loop-blocked"]


def test_the_glance_says_when_greenlets_waited_for_each_other():
    from geventperf.formats._glance import at_a_glance

    def io_or_queueing(p):
        # app.fetch (#3 and #4) waited most: 1.5 + 3 s of event wait, 0.125 s ready
        p.greenlet(3).name = "app.fetch"
        p.greenlet(3).wait_s, p.greenlet(4).wait_s = p.greenlet(3).event_wait_s, 3.125
        p.greenlet(3).ready_wait_s, p.greenlet(4).ready_wait_s = 0.0, 0.125
        return dict(at_a_glance(p))["I/O or queueing?"]

    # hand-offs 4.5 of 6.5 s of event wait (69 %); then just under half
    assert io_or_queueing(handoff_profile()) == (
        "mostly waiting for other greenlets, not for the network (event wait 4.50 s, ready "
        "wait 125.0 ms, 3% queueing); the loop was busy 25% of the run; 69% of all event "
        "wait was at hand-offs (a queue's get, an event's wait, a join).")
    assert io_or_queueing(handoff_profile(feed=4.0 + 2 ** -16)).startswith(
        "mostly I/O: waiting for the network, a timer or a lock (event wait 7.00 s")
    # the group that waited most had no event wait at all (it queued): the run's
    # hand-off share, main's joinall, says nothing of it
    queued = handoff_profile()
    for g in (3, 4):
        queued.greenlet(g).event_wait_s = 0.0
    assert io_or_queueing(queued) == (
        "mostly queueing: ready to run, but others held the loop (event wait 0 s, ready "
        "wait 125.0 ms, 100% queueing); the loop was busy 25% of the run.")


LOGGING = "/usr/lib/python3.11/logging/__init__.py"


def test_churn_and_connections_not_kept_alive_share_one_whole():
    # a closing server behind a pool too small for the burst: opened 100 (80 past a
    # peak of 20), discarded 80, and 1000 responses all on new connections (900 made
    # again): both findings, their shares over all 1000 connections made, never more
    # than the whole cost between them
    p = churn_profile([kept_pool("http://a:80", 100, 1000, 0)])
    p.events[0].update(peak_in_use=20, maxsize=10, discarded=80)
    [churn] = findings.connection_churn(p)
    [closed] = findings.not_kept_alive(p)
    assert churn.extra["churn_share"] == pytest.approx(80 / 1000)
    assert closed.extra["not_kept_share"] == pytest.approx(900 / 1000)
    opening = closed.extra["connect_wait_s"] + 1.0  # (+ 1 s queued behind set-up CPU)
    assert churn.cost_s + closed.cost_s <= opening


def test_what_holders_waited_on_needs_a_greenlet_to_name():
    # a lock's stack whose last greenlet was not recorded names nobody, and no run row
    # without a greenlet stands in for one
    from geventperf.findings.held import jobs_waited
    p = pool_profile(1.5, [([f"{APP}:66:lookup"], 2.0)])
    p.runs.append(StackTime(stack=list(FAILING_CALL), count=10, greenlet=None))
    p.waits.append(StackTime(stack=list(FAILING_CALL), count=10, wait_s=0.25,
                             event_wait_s=0.25, ready_wait_s=0.0))
    assert jobs_waited(p, [None], set()) == ""


def test_a_blocking_call_beside_busy_threads_of_the_process_names_them():
    # a 2 s run; the loop's thread used 0.5 s (app.fetch #3) of the process's CPU: at
    # 1.0 s the other threads used 0.5 s, a quarter of the run: the GIL is named as the
    # likeliest cause; a threadpool task's 2**-20 s of it is gil-contended's, leaving
    # them under a quarter: not named
    def blocking(process, pool_cpu=0.0):
        p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
        for g in p.greenlets:
            g.cpu_s = 0.5 if g.id == 3 else 0.0
        p.hub.update(cpu_s=0.0, process_cpu_s=process)
        p.meta["monkey_patched"] = ["socket", "time", "threading"]
        if pool_cpu:
            p.events.append(pool_event("work", 1, 0.0, pool_cpu, cpu_s=pool_cpu))
        [f] = findings.loop_blocked(p)
        return f.message
    told = ("This process's other threads used 0.500 s of CPU over the 2.000 s run: one "
            "running Python holds the interpreter lock")
    assert told in blocking(1.0)
    assert "py-spy dump --pid PID" in blocking(1.0)
    assert "other threads used" not in blocking(1.0, pool_cpu=2 ** -20)
    assert "other threads used" not in blocking(1.0 - 2 ** -20)


def test_a_blocking_call_seen_writing_log_records_says_so():
    # looks at the thread found it inside logging's StreamHandler.emit, under the
    # program's log.info line: the stream's reader fell behind, not a missing patch
    looks = [[f"{LOGGING}:1113:StreamHandler.emit", f"{LOGGING}:978:Handler.handle",
              f"{APP}:32:keeper"]] * 4
    p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5, stack=[f"{APP}:31:keeper"],
                                      stall_looks=looks)])
    p.meta["monkey_patched"] = ["socket", "time"]
    [f] = findings.loop_blocked(p)
    assert f.kind == "blocking-call" and f"{APP}:32:keeper (4 of 4)" in f.message
    assert "off the CPU writing log records" in f.message
    assert "log to a file the shipper tails" in f.message and "monkey-patch" not in f.message
    # a handler logging over an unpatched socket: said too
    p.meta["monkey_patched"] = ["time"]
    [f] = findings.loop_blocked(p)
    assert "The socket module is not monkey-patched here" in f.message
    assert f.message.count("monkey-patch first for a handler that logs over the network") == 1
    p.meta["monkey_patched"] = ["socket"]  # time unpatched: not what the looks found
    [f] = findings.loop_blocked(p)
    assert "time.sleep" not in f.message and "time module" not in f.message
    p.meta["monkey_patched"] = ["socket", "time"]
    # the same slice seen in a socket read: the general story
    p.events[0]["stall_looks"] = [[f"{STDLIB_SOCKET}:706:readinto", f"{APP}:32:keeper"]] * 4
    [f] = findings.loop_blocked(p)
    assert re.search(r"\blog|logging", f.message) is None  # ("backlog" is no log)
    assert "monkey-patch first" in f.message


def test_a_wait_for_a_threadpool_tasks_result_is_no_hand_off():
    # consume:80 waited 3 of the 4.5 s of hand-offs; the same line handing its work to
    # gevent's threadpool makes them waits for a real thread: 1.5 s of 6.5 s (23 %) is
    # no longer most of the event wait
    p = handoff_profile()
    assert [f.kind for f in findings.serial_bottleneck(p)] == ["serial-bottleneck"]
    assert findings.handoff.handoff_share(p) == 4.5 / 6.5
    p.events = [{"kind": "threadpool", "sites": [[f"{APP}:80:consume", 8]]},
                {"kind": "threadpool", "sites": ["junk", [3]]}]  # an untrusted profile's
    assert findings.serial_bottleneck(p) == []
    assert findings.handoff.handoff_share(p) == 1.5 / 6.5


def poll_rows(count=handoff.POLL_MIN_WAKES, sleep=handoff.POLL_MAX_SLEEP_S,
              run=handoff.POLL_MAX_RUN_S, caller=f"{APP}:12:consumer"):
    """A waits row and its runs row: *count* sleeps of *sleep* s each at gevent.sleep
    called from *caller*, *run* s of running between them."""
    stack = [f"{HUB}:166:sleep", caller]
    return (StackTime(stack=stack, count=count, wait_s=count * sleep,
                      event_wait_s=count * sleep, ready_wait_s=0.0),
            StackTime(stack=stack, count=count, run_s=count * run, greenlet=4))


@pytest.mark.parametrize("change, polled", [
    ({}, True),  # at every limit
    ({"count": handoff.POLL_MIN_WAKES - 1}, False),  # a retry's few back-offs
    ({"sleep": handoff.POLL_MAX_SLEEP_S * 1.01}, False),  # a ticker's pace
    ({"sleep": 0.0}, False),  # sleep(0): giving way, a switch-storm's story
    ({"run": handoff.POLL_MAX_RUN_S * 1.01}, False),  # work between sleeps
    # a library's sleep (urllib3's retry back-off), not the program's own line
    ({"caller": "/venv/lib/python3.11/site-packages/urllib3/util/retry.py:300:sleep"},
     False),
])
def test_a_poll_is_many_short_sleeps_with_no_work_between(change, polled):
    wait, run = poll_rows(**change)
    assert handoff.is_poll(wait, run) is polled
    assert handoff.is_poll(wait, None) is False  # no runs row: no shape to tell


def test_consumers_polling_for_a_feeder_name_it_and_the_event_that_would_wake_them():
    # handoff_profile's consume:80 get() (3 s) becomes 2048 polls of 1/512 s (4 s in all)
    p = handoff_profile()
    wait, run = poll_rows(count=2048, sleep=1 / 512, run=2 ** -14)
    p.waits[0], p.runs[0] = wait, run
    [f] = findings.serial_bottleneck(p)
    assert f.extra["handoff_wait_s"] == 4.0 + 1.0 + 0.5
    assert (f"most polling at {APP}:12:consumer: 2048 sleeps of 2.0 ms on average with "
            "almost no work between them, checking for another greenlet's result") in f.message
    assert "AsyncResult that the feeder sets instead of polling" in f.message
    # the same sleeps with work between them are a ticker's, no hand-off
    p.runs[0] = poll_rows(count=2048, sleep=1 / 512, run=2 ** -10)[1]
    assert findings.serial_bottleneck(p) == []


GEVENT_SSL = "/venv/lib/python3.11/site-packages/gevent/ssl.py"


@pytest.mark.parametrize("moved, told", [(0.0, True), (2 ** -20, False)])
def test_a_saturated_loop_setting_up_tls_says_so_and_not_that_requests_is_the_cause(
        moved, told):
    # 0.5 s of samples in gevent's do_handshake beneath urllib3's urlopen (exactly half:
    # TLS set-up, not requests' per-request work, which would otherwise be half too),
    # 0.5 s in the app; then 0.25 of TLS set-up (exactly the threshold) and just under
    p = saturated()
    for g in (3, 4, 5, 1):
        p.greenlet(g).cpu_s = p.greenlet(g).run_s
    frames = [f"{GEVENT_SSL}:740:SSLSocket.do_handshake", f"{URLLIB3_POOL}:20:urlopen",
              f"{APP}:40:handler"]

    def samples(tls):
        return CpuSamples(frames=frames, first_lines=[1, 1, 1], stacks=[
            SampledStack(frames=[0, 1, 2], greenlet="app.fetch", sections=[], count=4,
                         cpu_s=tls, gid=3),
            SampledStack(frames=[2], greenlet="app.fetch", sections=[], count=4,
                         cpu_s=1.0 - tls, gid=3)])

    p.cpu_samples = samples(0.5)
    [f] = findings.loop_saturated(p)
    assert "50% of the sampled CPU set up TLS connections" in f.message
    assert "geventperf.Session()" not in f.message
    p.cpu_samples = samples(0.25 - moved)
    [f] = findings.loop_saturated(p)
    assert ("25% of the sampled CPU set up TLS connections" in f.message) is told
    assert ("reuse connections" in f.message) is told
    # pools that made one connection per ten requests reused them: the set-up is their
    # warm-up, and "reuse connections" would cure nothing; one more connection: told
    p.events.append({"kind": "urllib3-pool", "pool": "https://up", "calls": 200,
                     "opened": 20})
    [f] = findings.loop_saturated(p)
    assert ("over 20 opened" in f.message and "pools' warm-up" in f.message) is told
    assert "reuse connections" not in f.message
    p.events[-1]["opened"] = 21
    [f] = findings.loop_saturated(p)
    assert ("reuse connections" in f.message) is told and "warm-up" not in f.message


def test_a_saturated_loop_setting_up_tls_for_pools_made_again_names_pool_connections(
        monkeypatch):
    # one Session's pools closed past its pool_connections and made again (an unseen
    # shard client's 32 hosts): the set-up's cure is pool_connections, not "one Session
    # per worker", which it had already
    from geventperf.findings import connections
    p = saturated()
    for g in (3, 4, 5, 1):
        p.greenlet(g).cpu_s = p.greenlet(g).run_s
    frames = [f"{GEVENT_SSL}:740:SSLSocket.do_handshake", f"{URLLIB3_POOL}:20:urlopen",
              f"{APP}:40:handler"]
    p.cpu_samples = CpuSamples(frames=frames, first_lines=[1, 1, 1], stacks=[
        SampledStack(frames=[0, 1, 2], greenlet="app.fetch", sections=[], count=4,
                     cpu_s=0.5, gid=3)])
    for evicted in (True, False):
        made_again = Finding(kind=findings.SESSION_PER_REQUEST, message="m", cost_s=0.0,
                             extra={"evicted": evicted, "others_ready_wait_s": 0.0})
        monkeypatch.setattr(connections, "session_per_request", lambda _p: [made_again])
        [f] = findings.loop_saturated(p)
        assert ("here most came from pools the Session's PoolManager closed and made again"
                in f.message and "raise pool_connections" in f.message) is evicted, f.message
        assert ("reuse connections (one Session per worker" in f.message) is not evicted


def test_peers_waiting_for_one_anothers_puts_are_told_as_a_pool_too_small():
    # the feeder (#3) has the name of the greenlet that waited most (#4, app.fetch):
    # peers taking and giving back a pool's items, not a producer feeding consumers
    p = handoff_profile()
    p.greenlet(3).name = "app.fetch"
    [f] = findings.serial_bottleneck(p)
    assert f.extra["peers"] is True and f.greenlet == 3
    assert f.stack == [f"{APP}:80:consume"]  # the line that waits for the pool's items
    assert ("The greenlets busy meanwhile have the waiting ones' name ('app.fetch', "
            f"waiting at {APP}:20:produce): peers waiting for one another's puts.") in f.message
    assert "a pool as large as the number of greenlets using it at once" in f.message
    assert "Busy through the run" not in f.message and "Pool(n)" not in f.message


def test_slices_ending_at_exits_that_delayed_most_are_judged_by_their_own_running():
    # the holders ran on the CPU all their run (saturated()'s figures), yet the slices
    # that ended at their exits, which delayed others most (9.0 against crunch's 2.0),
    # were mostly off it: their blocking call is the story (an unseen importer's debug
    # log to a pipe after each request: 64 % off the CPU there, 49 % over the holders)
    p = saturated()
    exit_row = p.runs[0]
    for r in p.runs:
        r.cpu_s = r.run_s
    exit_row.cpu_s = 0.25  # 0.75 of its 1.0 s off the CPU
    [f] = findings.loop_saturated(p)
    assert ("Most of the running of the slices that ended as their greenlets exited, which "
            "delayed others most, was off the CPU (0.750 s of 1.000 s)") in f.message, f.message
    assert "made after their last wait and before they exited" in f.message
    assert "The cure is on the CPU side" not in f.message
    # at half off the CPU, not more: the CPU story, as before
    exit_row.cpu_s = 0.5
    [f] = findings.loop_saturated(p)
    assert "off the CPU" not in f.message and "The cure is on the CPU side" in f.message
    # exits that delayed no more than crunch's slices are not judged apart
    exit_row.cpu_s, exit_row.delayed_others_s = 0.25, 2.0
    [f] = findings.loop_saturated(p)
    assert "off the CPU" not in f.message, f.message


def test_a_loop_saturated_by_calls_blocking_under_the_threshold_names_where_they_blocked():
    # the holders' running was off the CPU (loop_saturated_by_holders_off_the_cpu's
    # second case); the stall watch looked at their short slices 4 times: 3 at the
    # app's query line (beneath the standard library's socket), once elsewhere
    p = saturated()
    for g, cpu in ((3, 0.5), (4, 0.25), (5, 0.125), (1, 0.0625 - 2 ** -20)):
        p.greenlet(g).cpu_s = cpu
        p.greenlet(g).longest_run_s = 0.0234375
    p.runs[0].delayed_others_s = 1.0  # the exits delayed less than crunch's slices
    query = [f"{STDLIB_SOCKET}:706:readinto", f"{APP}:33:query"]
    p.events = [{"kind": "stall-looks", "dropped": 0,
                 "looks": [[query, 3], [[f"{APP}:40:other"], 1], ["junk", 2]]}]
    [f] = findings.loop_saturated(p)
    assert (f"looks at the thread while it held the loop found it at {APP}:33:query (3 of "
            f"4); the slices ended at {APP}:30:crunch, where they yielded") in f.message
    assert "the slices that delayed most ended" not in f.message
    assert f.stack == query
    # without looks: where the slices ended, as before
    p.events = []
    [f] = findings.loop_saturated(p)
    assert f"made before the slice ended at {APP}:30:crunch" in f.message
    assert f.stack == [f"{APP}:30:crunch"]
    # with the stall watch on: a threshold under the holders' typical longest slice
    # (23.4 ms), half of it down to one digit, to run again with
    p.meta["stall_watch"] = True
    [f] = findings.loop_saturated(p)
    assert ("(each greenlet's longest: 23.4 ms at the median), geventperf run "
            "--block-threshold 0.01 or Tracer(block_threshold=0.01)") in f.message, f.message
    # the exits delayed more than any place in code (a job whose last act blocks): the
    # call was made after the last wait, and no place where slices ended is named
    p.runs[0].delayed_others_s = 2.0 + 2 ** -20
    [f] = findings.loop_saturated(p)
    assert "the slices that delayed most ended as their greenlets exited" in f.message
    assert "made after their last wait and before they exited" in f.message, f.message
    assert "crunch" not in f.message and f.stack == ["<greenlet exit>"]
    p.runs[0].delayed_others_s = 2.0  # as much as crunch's: crunch named
    [f] = findings.loop_saturated(p)
    assert f"made before the slice ended at {APP}:30:crunch" in f.message
    # no look at a short slice, but at a holder's (app.fetch's) blocking slices over
    # the threshold: most likely the same calls, and said to be those looks; a CPU
    # slice's looks (another line) are not a blocking call's
    p.events = [blocked_slice(3, 0.125, 0.0, 0.0625, stall_looks=[query, query]),
                blocked_slice(4, 0.125, 0.125, 0.0625, stall_looks=[[f"{APP}:40:other"]] * 3)]
    [f] = findings.loop_saturated(p)
    assert ("looks at the thread in their slices over the threshold found it at "
            f"{APP}:33:query (2 of 2)") in f.message, f.message
    assert f.stack == query


URLLIB3_CONNECT = "/venv/lib/python3.11/site-packages/urllib3/util/connection.py"


def test_dns_lookups_of_new_connections_point_to_reused_connections_first():
    # threadpool_full_of_dns with 6 of the 8 lookups made by urllib3 for new
    # connections (a bad site entry ignored): the fix starts with fewer connections
    def dns_profile(sites):
        return profile(events=[
            pool_event("getaddrinfo", 8, 1.0, 3.0, dns=True, greenlets=2,
                       greenlet_ids=[3, 4], sites=sites),
            pool_event("work", 4, 0.5, 1.0, depth_max=5, depth_mean=0.5)])

    [f] = findings.threadpool_saturated(dns_profile(
        [[f"{URLLIB3_CONNECT}:60:create_connection", 6], [f"{APP}:70:connect", 2],
         ["junk"], [f"{URLLIB3_CONNECT}:61:create_connection", "6"]]))
    assert ("6 of the lookups opened new connections (urllib3's create_connection); a "
            "reused, kept-alive connection needs none.") in f.message
    assert "Fix: fewer new connections: one Session shared by the greenlets" in f.message
    assert "or GEVENT_RESOLVER=ares" in f.message
    [f] = findings.threadpool_saturated(dns_profile([[f"{APP}:70:connect", 8]]))
    assert "new connections" not in f.message and "Fix: GEVENT_RESOLVER=ares" in f.message


def test_a_join_waking_once_per_finished_greenlet_is_no_storm():
    # 2000 wake-ups at a joinall with 7.8 us between them: 2000 greenlets done
    stack = [f"{APP}:12:main"]
    for call, stormy in (("joinall", False), ("join", False), ("get", True)):
        p = profile(runs=[StackTime(stack=stack, count=2000, run_s=2000 * 2 ** -17,
                                    greenlet=1)],
                    waits=[StackTime(stack=stack, count=2000, wait_s=1.0, event_wait_s=0.5,
                                     ready_wait_s=0.5, call=call)])
        assert bool(findings.switch_storms(p)) is stormy, call


def test_a_pools_own_waits_and_a_loop_over_its_imap_are_no_storm():
    # 2000 wake-ups 7.8 us apart: for a free slot of a Pool (its frames), and at the
    # program's line (no call: a for loop) of a greenlet that spawned an imap's
    # iterator greenlet; the same loop without that greenlet is a storm, and so is a
    # call at that line (a queue's get) with it
    slot = [f"{POOL}:636:Pool.add", f"{POOL}:603:Pool.start", f"{APP}:12:main"]
    loop = [f"{APP}:12:main"]
    for stack, call, imap, stormy in ((slot, "acquire", None, False),
                                      (loop, None, "gevent._gevent_c_imap", False),
                                      (loop, None, "gevent._imap", False),
                                      (loop, None, None, True),
                                      (loop, "get", "gevent._imap", True)):
        p = profile(runs=[StackTime(stack=stack, count=2000, run_s=2000 * 2 ** -17,
                                    greenlet=1)],
                    waits=[StackTime(stack=stack, count=2000, wait_s=1.0, event_wait_s=0.5,
                                     ready_wait_s=0.5, call=call)])
        if imap:
            p.greenlet(3).name = f"{imap}.IMapUnordered._run"
        assert bool(findings.switch_storms(p)) is stormy, (stack, call, imap)


def test_reading_a_childs_output_is_no_storm():
    # 2000 wake-ups 7.8 us apart in gevent's communicate() reading a child's pipe: one
    # per piece the child wrote, at its pace; the same reads of the program's own pipe
    # (its own line, no communicate greenlet) are a storm
    fileobj = "/venv/lib/python3.11/site-packages/gevent/_fileobjectposix.py"
    child = [f"{fileobj}:165:GreenFileDescriptorIO.__read",
             "/venv/lib/python3.11/site-packages/gevent/subprocess.py:531:"
             "_CommunicatingGreenlets._read_and_close"]
    own = [f"{fileobj}:165:GreenFileDescriptorIO.__read", f"{APP}:12:drain"]
    for stack, stormy in ((child, False), (own, True)):
        p = profile(runs=[StackTime(stack=stack, count=2000, run_s=2000 * 2 ** -17,
                                    greenlet=3)],
                    waits=[StackTime(stack=stack, count=2000, wait_s=1.0, event_wait_s=0.5,
                                     ready_wait_s=0.5)])
        assert bool(findings.switch_storms(p)) is stormy, stack


def test_a_heartbeat_beside_peers_is_no_source_of_their_items():
    # peers as above, and app.tick (#5) asleep 1.2 s of the 2 s run in 2 sleeps: busy
    # through the run, yet 2 wake-ups against 10 hand-off waits (under a quarter, a
    # sleeper's bar) feed nobody: still peers.  Waking 3 times it is the likelier
    # source, told as a timer
    def run(sleeps):
        p = handoff_profile()
        p.greenlet(3).name = "app.fetch"
        tick = [f"{GEVENT_HUB}:166:sleep", f"{APP}:95:tick"]
        p.waits.append(StackTime(stack=tick, count=sleeps, wait_s=1.2, event_wait_s=1.2,
                                 ready_wait_s=0.0))
        p.runs.append(StackTime(stack=tick, count=sleeps, greenlet=5))
        p.greenlet(5).name, p.greenlet(5).event_wait_s = "app.tick", 1.2
        [f] = findings.serial_bottleneck(p)
        return f
    assert run(2).extra["peers"] is True
    told = run(3)
    assert told.extra["peers"] is False and told.greenlet == 5, told.message


def test_a_receiver_handing_out_batches_is_the_source_but_a_sleeper_must_wake_per_item():
    # peers as above (48 waits at consume, 50 hand-off waits in all) and app.recv (#5)
    # busy through the run reading the network in 3 wake-ups (6 %): over a receiver's
    # bar (a twentieth: a batch per wake), so it is the source, not the peers; the same
    # wake-ups asleep on a timer (a ticker) are under a sleeper's (a quarter): peers
    def run(stack):
        p = handoff_profile(consume_waits=48)
        p.greenlet(3).name = "app.fetch"
        p.waits.append(StackTime(stack=stack, count=3, wait_s=1.2, event_wait_s=1.2,
                                 ready_wait_s=0.0))
        p.runs.append(StackTime(stack=stack, count=3, greenlet=5))
        p.greenlet(5).name, p.greenlet(5).event_wait_s = "app.recv", 1.2
        [f] = findings.serial_bottleneck(p)
        return f
    received = run([*READ_STACK[:3], f"{APP}:95:recv"])
    assert received.extra["peers"] is False and received.greenlet == 5, received.message
    assert run([f"{GEVENT_HUB}:166:sleep", f"{APP}:95:tick"]).extra["peers"] is True


def test_main_reading_the_network_all_run_is_a_feeder_not_a_wait_for_the_end():
    # main feeds the workers from the network for the whole run (1 s of the 2 s, few
    # wake-ups): its waits are its work, so it stays their feeder
    assert [f.kind for f in findings.workers_saturated(workers_profile(fed=1.0))] == \
        ["workers-saturated"]
    assert not handoff.end_waits(workers_profile(fed=1.0))


def test_looks_without_a_program_line_are_named_only_when_they_tell_more():
    from geventperf.findings.loop import _seen_weighted
    pkg = "/venv/lib/python3.11/site-packages/"
    log = f"{pkg}gevent/pywsgi.py:1020:WSGIHandler.log_request"
    sock = "/usr/lib/python3.11/socket.py:706:SocketIO.readinto"
    # a server's code after the application returned, most of the looks: named
    seen = _seen_weighted([([log, f"{pkg}gevent/pywsgi.py:1148:x"], 105),
                           ([sock, f"{APP}:54:app"], 2)])
    assert seen.line == "WSGIHandler.log_request (site-packages/gevent/pywsgi.py:1020)"
    assert (seen.looks, seen.total) == (105, 107)
    # program lines are 9 of 13 looks, split over three lines: a deep library call's 4
    # looks (its socket read skipped for the call above it) do not outweigh them
    spread = [([sock, f"{APP}:{n}:f"], 3) for n in (1, 2, 3)]
    assert _seen_weighted([*spread, ([sock, f"{pkg}sdk/x.py:9:deep"], 4)]).line == \
        f"{APP}:1:f"
    assert _seen_weighted([([sock, f"{pkg}sdk/x.py:9:deep"], 4)]).line == \
        "deep (site-packages/sdk/x.py:9)"
    # only generic frames (a socket read, an import): nothing to name
    assert _seen_weighted([([sock, "<frozen importlib._bootstrap>:1:_load"], 4)]) is None


def test_retry_sleeps_of_no_count_are_told_without_a_mean():
    # an edited profile's count of 0: no division by it
    p = profile(waits=[StackTime(stack=list(BACKOFF_STACK), count=0, wait_s=0.5)])
    [f] = findings.retry_backoff(p)
    assert "(0 sleeps, most under" in f.message


def test_a_single_feeder_that_also_waits_at_a_hand_off_is_no_peer():
    # the feeder (#3, app.produce) drains a queue too: 0.25 s at its own get(); the
    # greenlets that waited most (#4 at consume) are another name: feeder and fed
    p = handoff_profile()
    drain = [f"{APP}:90:drain"]
    p.waits.append(StackTime(stack=drain, count=1, wait_s=0.25, event_wait_s=0.25,
                             ready_wait_s=0.0, call="get"))
    p.runs.append(StackTime(stack=drain, count=1, greenlet=3))
    [f] = findings.serial_bottleneck(p)
    assert f.extra["peers"] is False and "'app.produce'" in f.message
    assert "Busy through the run meanwhile" in f.message and "peers" not in f.message


def test_a_finding_placed_by_a_stall_look_says_its_stack_is_one():
    # the off-the-CPU saturated loop with looks: its stack is where the looks found the
    # thread, not where the slices ended (the report labels it by extra.stack_is)
    p = saturated()
    for g, cpu in ((3, 0.5), (4, 0.25), (5, 0.125), (1, 0.0625 - 2 ** -20)):
        p.greenlet(g).cpu_s = cpu
    p.events = [{"kind": "stall-looks", "dropped": 0, "looks": [[[f"{APP}:33:query"], 3]]}]
    [f] = findings.loop_saturated(p)
    assert f.extra["stack_is"] == common.STACK_STALL_LOOK
    p.events = []
    [f] = findings.loop_saturated(p)
    assert f.extra["stack_is"] == common.STACK_SLICE_END


def test_a_loop_held_off_the_cpu_names_where_the_looks_found_it():
    # the hasher's 0.5 s of running had 0.125 s of CPU: off the CPU; looks at its short
    # slices found the app's query line 3 times of 3
    from tests.test_findings import held_profile
    p = held_profile()
    p.greenlet(5).cpu_s = 0.125
    query = [f"{STDLIB_SOCKET}:706:readinto", f"{APP}:33:query"]
    p.events = [{"kind": "stall-looks", "dropped": 0, "looks": [[query, 3]]}]
    [f] = findings.loop_held(p)
    assert f"found it at {APP}:33:query (3 of 3)" in f.message
    assert f.stack == query and f.extra["stack_is"] == common.STACK_STALL_LOOK
    p.events = []
    [f] = findings.loop_held(p)
    assert "made before the slice ended at" in f.message
    assert f.extra["stack_is"] == common.STACK_SLICE_END


def test_odd_values_of_an_untrusted_profile_raise_nothing():
    """Profiles are loaded from JSON: a run of negative length, a failing pool without
    its errors, a patched-modules list holding a list.  Each once raised."""
    p = workers_profile(work=0.0, taken=0.0, run=0.0)
    p.duration_s = -1.0
    p.meta["block_threshold_s"] = 0.0
    assert findings.compute(p) == []
    q = failing_profile([{"kind": "urllib3-pool", "pool": "http://a:80", "calls": 10,
                          "failed": 5, "failed_s": 5.0}])
    assert [f.kind for f in findings.compute(q)] == ["requests-failed"]
    r = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
    r.meta["monkey_patched"] = ["socket", "time", ["threading"]]
    [f] = findings.loop_blocked(r)
    assert "monkey-patch first" in f.message  # threading not known to be patched


def test_a_blocking_call_no_look_found_says_how_to_find_it():
    # no look at the thread while the slice blocked: with the stall watch off, turn it
    # on; with it on (the slice too short for its looks), a lower block threshold
    p = profile(events=[blocked_slice(3, 0.5, 0.0, 0.5)])
    [f] = findings.loop_blocked(p)
    assert "where it blocked is unknown: profile with the stall watch on" in f.message
    p.meta["stall_watch"] = True
    [f] = findings.loop_blocked(p)
    assert "run again with a block threshold under the slices' length, geventperf run " \
           "--block-threshold SECONDS" in f.message
    p.events[0]["stall_looks"] = [[f"{APP}:32:keeper"]]
    [f] = findings.loop_blocked(p)
    assert "unknown" not in f.message and f"{APP}:32:keeper" in f.message


def test_a_hot_function_that_also_reads_its_body_in_small_pieces_tells_both():
    # dump's CPU: json.loads at line 41 (0.75 s), iter_lines at line 38 (0.25 s), whose
    # body reads were 512 bytes each (a small-read site of the caller's own asking):
    # the JSON story, and line 38's, exactly ITERATED_LINE_SHARE of the function's CPU;
    # the finding then owns line 38's small reads.  2**-20 s less at line 38: the JSON
    # story alone
    def hot(at38):
        p = profile(events=[{"kind": "body-reads", "site": f"{APP}:38:dump", "reads": 400,
                             "bytes": 400 * 512, "bodies": 4, "read_s": 0.5, "run_s": 0.25}])
        p.cpu_samples = cpu_samples([
            (["/usr/lib/python3.11/json/decoder.py:353:JSONDecoder.raw_decode",
              "/usr/lib/python3.11/json/__init__.py:346:loads", f"{APP}:41:dump"],
             "app.fetch", 6, 0.75),
            ([f"{REQUESTS_PKG}/models.py:865:Response.iter_lines", f"{APP}:38:dump"],
             "app.fetch", 2, at38)])
        found = cpuhot.hot_code(p, {"app.fetch"})
        does = loop._what_it_does(p, found)
        return found, does, loop._small_reads_site(found, does)
    found, does, site = hot(0.25)
    assert found.line == f"{APP}:41:dump" and found.iterated == (f"{APP}:38:dump", 0.25)
    assert does.startswith(loop.JSON_CHEAPER) and "line 38 (25% of that function's CPU)" in does
    assert loop.ITERATE_CHEAPER in does and site == f"{APP}:38:dump"
    found, does, site = hot(0.25 - 2 ** -20)
    assert found.iterated is None and does is loop.JSON_CHEAPER and site is None
