"""Sections as the tracer accounts them: entered and left (called from
``geventperf.sections``), switch-outs inside C sections, and concurrent lxml file
parses (the deadlock risk).  A mixin of :class:`geventperf.tracer.Tracer`: these run
in the traced program's calls, not per switch."""

from __future__ import annotations

import sys
import time
from typing import Any

from geventperf.trace.records import OpenSection, Record
from geventperf.trace.stacks import display, frame_labels

# (C section, greenlet) pairs whose switch-outs are kept for findings.
MAX_C_SWITCH_RECORDS = 1_000
# Recorded lxml concurrent-parse (deadlock risk) events.
MAX_DEADLOCK_EVENTS = 100


class SectionAccounting:
    """Section enter/exit and C-section switch accounting for the Tracer."""

    _st: Any
    _trace_error: Any
    cpu_clock: bool
    cpu_mode: str | None
    max_stack_depth: int

    def _c_switch_out(self, rec: Record, key: Any) -> None:
        """The greenlet yielded inside a C section: the reason for a finding."""
        inner = next(o for o in reversed(rec.open) if o.c)
        ident = (inner.name, rec.gid)
        entry = self._c_switch.get(ident)
        if entry is None:
            if len(self._c_switch) >= MAX_C_SWITCH_RECORDS:
                self._c_switch_dropped += 1
                return
            # [switch-outs, wait, stack key, file-like parse, event wait, ready wait]
            entry = self._c_switch[ident] = [0, 0.0, key, inner.parser_lock is not None,
                                             0.0, 0.0]
        entry[0] += 1
        rec.c_pending = entry
        if inner.parser_lock is not None:
            self._lxml_suspended[rec.gid] = (inner.name, inner.parser_lock)

    def _c_resume(self, rec: Record, waited: float) -> None:
        entry = rec.c_pending
        entry[1] += waited  # type: ignore[index]
        entry[4] += waited - rec.ready_in  # type: ignore[index]
        entry[5] += rec.ready_in  # type: ignore[index]
        rec.c_pending = None
        self._lxml_suspended.pop(rec.gid, None)

    # -- sections and hooks (called from sections.py and readstats) ---------------
    # The traced program's wrapped calls call these two (the C hot path's
    # Hot.section_enter / section_exit replace them): like the trace function, they
    # never raise into the program, a failure is a trace error.
    def _section_enter(self, name: str, c: bool, owner: object,
                       parser_lock: object = None) -> None:
        try:
            self._enter_section(name, c, owner, parser_lock)
        except Exception as exc:
            self._trace_error(exc)

    def _section_exit(self, owner: object) -> None:
        try:
            self._exit_section(owner)
        except Exception as exc:
            self._trace_error(exc)

    def _enter_section(self, name: str, c: bool, owner: object, parser_lock: object) -> None:
        st = self._st
        rec = st.cur
        if not st.on or rec is None:
            return
        now = time.perf_counter()
        o = OpenSection(owner, name, c, parser_lock)
        o.t0 = now
        o.run0 = rec.run + (now - rec.t_in)
        o.cpu0 = self._cpu_now(rec)
        o.wait0, o.sw0 = rec.wait, rec.switches
        o.ev0, o.rd0 = rec.event_wait, rec.ready_wait
        opened = rec.open
        o.recursive = bool(opened) and any(x.name == name for x in opened)
        opened.append(o)
        if c:
            rec.c_depth += 1

    def _exit_section(self, owner: object) -> None:
        st = self._st
        rec = st.cur
        if not st.on or rec is None or not rec.open:
            return
        opened = rec.open
        if opened[-1].owner is owner:
            o = opened.pop()
        else:  # exits out of order (generator-held section): find ours, innermost first
            for i in range(len(opened) - 1, -1, -1):
                if opened[i].owner is owner:
                    o = opened.pop(i)
                    break
            else:
                return
        if o.c:
            rec.c_depth -= 1
        now = time.perf_counter()
        self._account_section(rec, o, now, rec.run + (now - rec.t_in), self._cpu_now(rec))
        if not o.recursive:
            closed = rec.sec_closed
            if closed is None:
                closed = rec.sec_closed = {}
            t0, t_in = o.t0, rec.t_in  # the part of the call in this slice
            closed[o.name] = closed.get(o.name, 0.0) + now - (t0 if t0 > t_in else t_in)

    def _cpu_now(self, rec: Record) -> float:
        """The running greenlet's CPU time up to now, exact in every clock mode."""
        if self.cpu_mode == "interval":  # credit the slices waiting for a read
            self._st.cpu_sync()
            return rec.cpu
        if self.cpu_mode == "switch":
            return rec.cpu + (time.thread_time() - rec.cpu_in)
        return 0.0

    def _account_section(self, rec: Record, o: OpenSection, now: float, run_now: float,
                         cpu_now: float) -> None:
        """Add one closed call of section *o* of greenlet *rec* to the section table."""
        row = self._section_table.get(o.name)
        if row is None:
            row = self._section_table[o.name] = [o.c, 0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0]
        row[0] = row[0] or o.c
        row[1] += 1
        if o.recursive:  # the outer call of the same name already counts this time
            return
        row[2] += now - o.t0
        row[3] += run_now - o.run0
        if self.cpu_clock:
            row[4] += cpu_now - o.cpu0
        row[5] += rec.wait - o.wait0
        row[6] += rec.switches - o.sw0
        row[7] += rec.event_wait - o.ev0
        row[8] += rec.ready_wait - o.rd0

    def _lxml_file_parse_starting(self, guarded: bool, frame: Any,
                                  parser_lock: object) -> None:
        """A greenlet enters ``lxml.etree.parse(fileobj)``: deadlock risk if another
        greenlet of this thread is suspended inside one holding the same parser lock
        (parses with parsers of their own cannot block each other)."""
        st = self._st
        rec = st.cur
        if not st.on or rec is None:
            return
        others = [gid for gid, (_, lock) in self._lxml_suspended.items()
                  if gid != rec.gid and lock is parser_lock]
        if not others or len(self._deadlock_events) >= MAX_DEADLOCK_EVENTS:
            return
        stack = frame_labels(frame, self.max_stack_depth)
        self._deadlock_events.append({
            "kind": "lxml-concurrent-parse", "greenlet": rec.gid, "other": others[0],
            "section": self._lxml_suspended[others[0]][0], "stack": stack,
            "guarded": guarded, "at_s": time.perf_counter() - self._t0})
        if not guarded:
            # The process is most likely about to hang: say why while we still can.
            other = next((r for r in self._live.values() if r.gid == others[0]), None)
            sys.stderr.write(
                f"geventperf: {display(rec)} enters lxml.etree.parse(<file-like>) at "
                f"{stack[0] if stack else '?'} while "
                f"{display(other) if other else f'greenlet #{others[0]}'} is suspended "
                "inside one; lxml's parser lock is not gevent-aware, so this thread may "
                "deadlock now. Read the body first and parse bytes, or use "
                "Tracer(lxml_guard=True) (geventperf run --lxml-guard).\n")
            sys.stderr.flush()
