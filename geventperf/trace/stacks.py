"""Stacks and names: how the tracer labels what it recorded (lines looked up once per
code object, off the hot path) and names the greenlets it sees."""

from __future__ import annotations

import bisect
import dis
import sys
import threading
from types import FunctionType
from typing import Any

from geventperf.profile import CALL_FOR, CALL_WITH, EXIT, THREAD_SUFFIX, greenlet_label

OTHER = "<other>"
# Stack keys are (id(code), lasti, ...) tuples in Python and ints in C; not these two.
OTHER_KEY: tuple[Any, ...] = (OTHER,)
EXIT_KEY: tuple[Any, ...] = (EXIT,)


def display(rec: Any) -> str:
    """A greenlet's record as every report names the greenlet."""
    return greenlet_label(rec.name or "greenlet", rec.gid)


def yields_to_run_again(frame: Any) -> bool:
    """Whether a greenlet switched out at *frame* asked to run again at once:
    ``gevent.sleep(0)`` (its ``seconds <= 0`` branch; the stack position decides the
    branch, so one look at the first frame seen there holds for every later one)."""
    code = frame.f_code
    if code.co_name != "sleep" or not code.co_filename.replace("\\", "/").endswith(
            "gevent/hub.py"):
        return False
    seconds = frame.f_locals.get("seconds")
    return isinstance(seconds, (int, float)) and seconds <= 0


def loaded_hub_type() -> Any:
    """gevent's Hub class if the program has imported gevent (never imports it)."""
    module = sys.modules.get("gevent.hub")
    return getattr(module, "Hub", None)


# Run functions whose name and origin are kept (see FunctionNames): far more than a
# program has (a pool spawns the same few again and again), few enough to stay small
# when a program makes a new code object per spawn.
MAX_NAMED_FUNCTIONS = 4096


class FunctionNames:
    """A greenlet's name and origin, built once per run function and kept while
    tracing: a pool spawns the same few functions again and again, and naming every
    greenlet afresh was a fifth of what the tracer added per spawned greenlet
    (benchmarks/callgrind_greenlet_cost.py; the cache takes back a quarter of that)."""

    def __init__(self) -> None:
        # (id(code), module, qualname) -> (code, origin, name); the code object is kept
        # so its id cannot be reused by another while the entry lives
        self._known: dict[tuple[int, Any, Any], tuple[Any, str, str]] = {}

    def lookup(self, inner: Any) -> tuple[str | None, str]:
        """(origin or None without a code object, "module.qualname") of *inner*."""
        code = getattr(inner, "__code__", None)
        module = getattr(inner, "__module__", None) or "?"
        qualname = getattr(inner, "__qualname__", None) or getattr(inner, "__name__", "?")
        if code is None:
            return None, f"{module}.{qualname}"
        cacheable = type(module) is str and type(qualname) is str  # hashable, immutable
        key = (id(code), module, qualname)
        known = self._known.get(key) if cacheable else None
        if known is not None and known[0] is code:
            return known[1], known[2]
        origin = f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"
        name = f"{module}.{qualname}"
        if cacheable:
            if len(self._known) >= MAX_NAMED_FUNCTIONS:
                self._known.clear()
            self._known[key] = (code, origin, name)
        return origin, name


def _unwrap(func: Any) -> Any:
    """The function with the code object behind partials and bound methods."""
    if type(func) is FunctionType and not func.__dict__:
        return func  # the common case, without the lookups below
    inner = func
    for _ in range(8):  # unwrap partials and bound methods, a few levels
        inner = getattr(inner, "func", None) or getattr(inner, "__func__", None) or inner
        if hasattr(inner, "__code__"):
            break
    return inner


def _run_method(g: Any) -> Any:
    """The Python ``_run`` or ``run`` method *g*'s class defines, bound; None if none."""
    for klass in type(g).__mro__:
        for attr in ("_run", "run"):
            run = klass.__dict__.get(attr)
            if callable(run) and hasattr(run, "__code__"):
                return getattr(g, attr, run)
    return None


def _thread_function(func: Any) -> Any:
    """What a monkey-patched threading.Thread runs, when *func* is the bound
    ``Thread._bootstrap`` gevent spawns a greenlet for (its target, or the ``run`` its
    class overrides); None for any other function."""
    thread = getattr(func, "__self__", None)
    if not isinstance(thread, threading.Thread):
        return None
    target = getattr(thread, "_target", None)  # (deleted once the thread has run)
    if target is not None:
        return target
    if type(thread).run is not threading.Thread.run:
        return thread.run
    return None


def name_and_origin(rec: Any, g: Any, names: FunctionNames) -> None:
    """gevent Greenlet: its ``name`` if set, else the function it runs (a thread's
    target, marked THREAD_SUFFIX, for a monkey-patched threading.Thread)."""
    attrs = getattr(g, "__dict__", None) or {}
    func = attrs.get("_run")
    if func is None:  # a subclass: gevent's documented way overrides _run(), greenlet's run()
        func = _run_method(g)
    name = attrs.get("name")
    if func is not None:
        suffix = ""
        if type(func) is not FunctionType:  # (a bound method, maybe a thread's)
            in_thread = _thread_function(func)
            if in_thread is not None:
                func, suffix = in_thread, THREAD_SUFFIX
        origin, func_name = names.lookup(_unwrap(func))
        if origin is not None:
            rec.origin = origin
        if not isinstance(name, str):
            name = func_name + suffix
    if isinstance(name, str):
        rec.name = name
    # else: a raw greenlet; named from its outermost frame at its first switch-out


def frame_labels(frame: Any, depth: int) -> list[str]:
    out = []
    while frame is not None and len(out) < depth:
        code = frame.f_code
        out.append(f"{code.co_filename}:{frame.f_lineno}:{code.co_qualname}")
        frame = frame.f_back
    return out


# Instructions that enter a with block (3.11-3.13; 3.10): the context manager's
# __enter__ runs inside them, so a frame suspended there waits in a C __enter__ (a
# Python one would be a frame of its own).
_WITH_ENTRIES = frozenset({"BEFORE_WITH", "SETUP_WITH"})
_CALLS = frozenset({"CALL", "CALL_KW", "CALL_METHOD", "CALL_FUNCTION", "CALL_FUNCTION_KW"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_METHOD", "LOAD_ATTR"})
# ... and of a plain name (calls_in's *plain*: ``spawn_later(...)`` imported bare)
_NAME_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF"})
_CALLEE_LOADS = _ATTRIBUTE_LOADS | _NAME_LOADS
# A for loop's next item: the iterator's __next__ runs inside it.
_FOR_ITER = "FOR_ITER"


def calls_in(code: Any, plain: bool = False) -> dict[int, str | None]:
    """Offset -> :func:`_called_at` for every instruction of *code* that enters a with
    block, calls, or asks a for loop's iterator for its next item (empty for a code
    object ``dis`` cannot read); with *plain*, a call of a plain name is named too."""
    try:
        instructions = list(dis.get_instructions(code))
    except Exception:  # noqa: BLE001 - no answer rather than an error in a report
        return {}
    return {ins.offset: _called_at(instructions, index, plain)
            for index, ins in enumerate(instructions)
            if ins.opname in _WITH_ENTRIES or ins.opname in _CALLS or ins.opname == _FOR_ITER}


def _called_at(instructions: list[dis.Instruction], index: int,
               plain: bool = False) -> str | None:
    """``CALL_WITH`` when instruction *index* enters a with block, ``CALL_FOR`` when it
    asks a for loop's iterator for its next item, the method's name
    when it calls ``obj.method(...)`` (with *plain*, the name when it calls
    ``name(...)``), else None.  The method is the attribute load
    that starts where the call starts and ends inside it (``positions``, 3.11+): in
    ``sem.acquire(timeout=cfg.timeout)`` that is ``acquire``, not ``timeout``."""
    call = instructions[index]
    if call.opname in _WITH_ENTRIES:
        return CALL_WITH
    if call.opname == _FOR_ITER:
        return CALL_FOR
    if call.opname not in _CALLS:
        return None
    where = call.positions
    if where is None or where.lineno is None or where.col_offset is None:
        return None
    callee = None
    loads = _CALLEE_LOADS if plain else _ATTRIBUTE_LOADS
    for ins in reversed(instructions[:index]):
        at = ins.positions
        if at is None or at.lineno != where.lineno:
            if at is not None and at.lineno is not None and at.lineno < where.lineno:
                break  # the call started on this line: nothing before it is its callee
            continue
        if ins.opname in loads and at.col_offset == where.col_offset \
                and (at.end_lineno, at.end_col_offset) < (where.end_lineno, where.end_col_offset):
            if callee is None or (at.end_lineno, at.end_col_offset) > callee[0]:
                callee = ((at.end_lineno, at.end_col_offset), ins.argval)
    return callee[1] if callee is not None else None


class Labeler:
    """Turns stack keys into ``path:line:function`` lists.  Line numbers are looked up
    from instruction offsets here, once per code object, not in the hot path."""

    def __init__(self, codes: dict[Any, tuple[list[Any], list[int]]],
                 calls: dict[Any, dict[int, str | None]] | None = None) -> None:
        self._codes = codes
        self._lines: dict[Any, tuple[list[int], list[int | None], str]] = {}
        # code -> calls_in(code), kept by the tracer across builds
        self._calls = calls if calls is not None else {}

    def call(self, key: tuple[Any, ...] | None) -> str | None:
        """What the innermost frame of the stack *key* was doing when its greenlet
        switched out, where its bytecode tells: ``CALL_WITH`` (entering a with block, so in
        a C ``__enter__`` such as a gevent semaphore's) or the name of the method it
        called (``acquire``, ``get``, ``wait``); None otherwise."""
        stored = self._codes.get(key) if key else None
        if not stored or not stored[0]:
            return None
        code, lasti = stored[0][0], stored[1][0]
        calls = self._calls.get(code)
        if calls is None:
            calls = self._calls[code] = calls_in(code)
        return calls.get(lasti)

    def stack(self, key: tuple[Any, ...] | None) -> list[str]:
        if key is None or key == ():
            return []
        if isinstance(key, tuple) and isinstance(key[0], str):  # <other>, <greenlet exit>
            return [key[0]]
        stored = self._codes.get(key)
        if stored is None:
            return [OTHER]
        codes, offsets = stored
        return [self.label(code, lasti) for code, lasti in zip(codes, offsets, strict=True)]

    def label(self, code: Any, lasti: int) -> str:
        table = self._lines.get(code)
        if table is None:
            starts, lines = [], []
            for start, _end, line in code.co_lines():
                starts.append(start)
                lines.append(line)
            table = self._lines[code] = (starts, lines,
                                         f"{code.co_filename}:{{}}:{code.co_qualname}")
        starts, lines, fmt = table
        i = bisect.bisect_right(starts, lasti) - 1
        # an instruction of no line (a loop's JUMP_BACKWARD, where Python runs signal
        # handlers: a CPU sample of a hot loop lands there) counts as the last line
        # before it, the loop body's, not the def line (an unseen ingester's list
        # scan in a loop was reported "self CPU 100 % at" its function's def line)
        while i >= 0 and lines[i] is None:
            i -= 1
        return fmt.format(lines[i] if i >= 0 else code.co_firstlineno)
