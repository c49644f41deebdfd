"""The pure-Python hot path: the ``greenlet.settrace`` callback, run at every switch.

``_ctrace.c`` (``Hot``) is the same in C and what the Tracer uses when it is built;
this one is the reference and the fallback, and behaves identically.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

from geventperf.trace.stacks import EXIT_KEY


def make_trace(tracer: Any, prev: Any) -> Callable[[str, Any], None]:
    """Build the settrace callback with everything it touches bound as locals."""
    perf = time.perf_counter
    tt = time.thread_time
    exact_cpu = tracer.cpu_mode == "switch"  # else the interval clock, or no CPU
    stacks = tracer.stacks
    depth = tracer.max_stack_depth
    threshold = tracer.block_threshold
    st = tracer._st
    live = tracer._live
    table = tracer._stacks
    slices_append = tracer._slices.append
    new_record = tracer._new_record
    new_row = tracer._new_row
    finish = tracer._finish
    on_blocked = tracer._blocked_slice
    on_c_switch = tracer._c_switch_out
    on_c_resume = tracer._c_resume
    on_error = tracer._trace_error
    name_from_frames = tracer._name_from_frames
    exit_key = EXIT_KEY
    getframe = sys._getframe
    ws = st.ws
    spread = st.cpu if tracer.cpu_mode == "interval" else None

    def trace(event: str, args: Any) -> None:
        if st.on:
            try:
                now = perf()
                cpu = tt() if exact_cpu else 0.0
                if ws.poll_open:  # nothing switches during a poll: it has ended
                    ws.poll_end(now)
                origin, target = args
                rec = st.cur
                if rec is None or rec.key != id(origin):  # a switch we did not see
                    # (only after an error inside this function): its slice
                    # start is unknown, so it starts now.
                    rec = live.get(id(origin)) or new_record(origin, None, None)
                    rec.t_in, rec.cpu_in, rec.t_out = now, cpu, None
                ran = now - rec.t_in
                rec.run += ran
                ran_cpu = None
                if exact_cpu:
                    ran_cpu = cpu - rec.cpu_in
                    rec.cpu += ran_cpu
                rec.switches += 1
                if ran > rec.longest:
                    rec.longest = ran
                opened = rec.open
                section_name = opened[-1].name if opened else None
                key = None
                row = None
                if stacks and not rec.is_hub:
                    frame = origin.gr_frame
                    if frame is None:
                        key = exit_key
                        top = None
                    else:
                        if rec.name is None:
                            name_from_frames(rec, frame)
                        # ids and instruction offsets: hashing a code object or
                        # computing f_lineno costs far more (lines come at build).
                        top = frame
                        parts = []
                        n = 0
                        while frame is not None and n < depth:
                            parts.append(id(frame.f_code))
                            parts.append(frame.f_lasti)
                            frame = frame.f_back
                            n += 1
                        key = tuple(parts)
                    row = table.get(key)
                    if row is None:
                        row = new_row(key, top)
                    row.n_out += 1
                    row.gid = rec.gid
                    row.run += ran
                    if exact_cpu:
                        row.cpu += ran_cpu
                    rec.wait_row = row
                slices_append((rec.gid, rec.t_in, ran, section_name, rec.ready_in,
                               key if row is not None else None))
                ws.log_slice(rec, row, section_name, opened[-1].t0 if opened else now,
                             rec.t_in, now)
                dead = not rec.is_hub and origin.dead  # the hub: as _ctrace.c
                if spread is not None:  # the interval clock (trace/cpuclock.py): read
                    # at once for a loop-blocking slice and before a death
                    ran_cpu = spread.end_slice(rec, row, now, ws.idle, ran,
                                               dead or ran > threshold)
                if ran > threshold and not rec.is_hub:
                    on_blocked(rec, ran, ran_cpu, key)
                if rec.c_depth:
                    on_c_switch(rec, key)
                if dead:
                    finish(rec)
                else:
                    rec.t_out = now
                t = live.get(id(target))
                if t is None:
                    # the frame *target* resumes (None for a new greenlet)
                    t = new_record(target, origin, getframe(0).f_back)
                if t.t_out is not None:
                    waited = now - t.t_out
                    t.wait += waited
                    ready = 0.0 if t.is_hub else ws.woke(t, now, rec)
                    row = t.wait_row
                    if row is not None:
                        row.n_wait += 1
                        row.wait += waited
                        row.ev += waited - ready
                        row.rd += ready
                        t.wait_row = None
                    t.ready_in = ready
                    if t.c_pending is not None:
                        on_c_resume(t, waited)
                    t.t_out = None
                else:
                    t.ready_in = 0.0
                t.t_in = now
                t.cpu_in = cpu
                st.cur = t
                st.switches += 1
            except Exception as exc:  # never raise into the traced program
                on_error(exc)
        if prev is not None:
            prev(event, args)

    return trace
