"""Named sections of code, and the automatic C-parser sections of ``Tracer``.

``section(name, c=False)`` marks a region whose wall, running, CPU and waiting time
the active tracer reports separately.  ``c=True`` says the region is expected never to
yield to the hub (a C parser working on bytes); a switch-out inside one is what the
``blocked-read-in-c-section`` finding is about.

With no tracer active in the thread a section costs one truth test of a dict, so it
can stay in production code.

``Tracer(sections="auto")`` wraps well-known C parsing entry points (``json``,
``ujson``, ``orjson``, ``lxml.etree``, ``xml.etree.ElementTree``) as C sections while
tracing, without importing them: those already imported at ``start()`` are wrapped
then, the others as soon as the program imports them (before its import statement
returns, so ``from lxml.etree import parse`` done while tracing gets the wrapper).
Limitation: the wrapping replaces *module attributes*, so only callers that look the
function up at call time (``lxml.etree.parse(...)``, ``json.loads(...)``) or import it
while tracing are seen; a reference taken before ``start()`` (``from lxml.etree import
parse``) or a C caller keeps the original.  Everything wrapped is restored on
``stop()``, also after an exception; a reference taken while tracing keeps a wrapper,
which without a tracer only calls the original.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

from gevent.monkey import get_original

from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded

# The OS thread's ident even in a monkey-patched process, where threading.get_ident
# returns one ident per greenlet.
get_ident: Callable[[], int] = get_original("_thread", "get_ident")

# Active tracers by thread ident; written by Tracer.start()/stop() only.  A dict, so
# the no-tracer case of every section is a single truth test.
_tracers: dict[int, Any] = {}

# What sections="auto" wraps; modules that are not installed are skipped.
AUTO_SECTIONS = (
    "json.load",
    "json.loads",
    "ujson.load",
    "ujson.loads",
    "orjson.loads",
    "lxml.etree.parse",
    "lxml.etree.fromstring",
    "lxml.etree.XML",
    "lxml.etree.iterparse",
    "xml.etree.ElementTree.parse",
    "xml.etree.ElementTree.fromstring",
    "xml.etree.ElementTree.XML",
)

LXML_PARSE = "lxml.etree.parse"


def active_tracer() -> Any:
    """The tracer running in this thread, or None."""
    return _tracers.get(get_ident()) if _tracers else None


class section:  # noqa: N801 - lower case: it reads as a function, like contextlib's
    """``with section("parse feed"):`` or ``@section("parse feed")``.

    Nesting is allowed; the innermost open section is the "current" one for timeline
    slices and findings.  One ``section`` object may be shared by many greenlets: the
    open state lives with the greenlet, not here.
    """

    __slots__ = ("name", "c")

    def __init__(self, name: str, c: bool = False) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"section name must be a non-empty string, got {name!r}")
        self.name = name
        self.c = bool(c)

    def __repr__(self) -> str:
        return f"section({self.name!r}, c={self.c})"

    def __enter__(self) -> section:
        if _tracers:
            tracer = _tracers.get(get_ident())
            if tracer is not None:
                tracer._section_enter(self.name, self.c, self)
        return self

    def __exit__(self, *exc: object) -> None:
        if _tracers:
            tracer = _tracers.get(get_ident())
            if tracer is not None:
                tracer._section_exit(self)

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        return functools.wraps(func)(_in_section(func, self.name, self.c))


def _in_section(func: Callable[..., Any], name: str, c: bool) -> Callable[..., Any]:
    """*func*, each call of it a call of section *name* while a tracer runs here.

    A token of its own per call (not the section object) marks what to close, so
    recursive and concurrent calls each close their own entry."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        if tracer is None:
            return func(*args, **kwargs)
        token = object()
        tracer._section_enter(name, c, token)
        try:
            return func(*args, **kwargs)
        finally:
            tracer._section_exit(token)

    return wrapper


# -- automatic C sections ----------------------------------------------------------

def wrap_c_sections(names: list[str] | tuple[str, ...], lxml_guard: bool,
                    strict: bool) -> list[Patch]:
    """Wrap each dotted name as a C section; returns the patches to undo.

    Imports nothing: a name whose module is loaded is wrapped now, the others when
    their module is imported (see :mod:`geventperf.lazywrap`).  With *strict* (an
    explicit list) a name raises ValueError when its module is loaded but lacks it or
    when no module of it can be found; a name whose module is findable but not yet
    imported is wrapped at its import (a warning then if it lacks the name).  "auto"
    skips what is not installed.  On any error the patches made so far are undone.
    """
    def make(dotted: str, func: Any) -> Any:
        if is_ours(func):
            return None  # a tracer in another thread wrapped it already
        return _make_wrapper(dotted, func, lxml_guard)

    patches = wrap_when_loaded(names, make, strict, what=" as a C section")
    if lxml_guard and LXML_PARSE not in names:
        try:
            patches += wrap_when_loaded([LXML_PARSE], make, strict=False)
        except BaseException:
            for patch in reversed(patches):
                patch.restore()
            raise
    return patches


def _make_wrapper(dotted: str, func: Callable[..., Any], lxml_guard: bool) -> Callable[..., Any]:
    if dotted == LXML_PARSE:
        return _lxml_parse_wrapper(func, lxml_guard)
    if dotted == "lxml.etree.iterparse":
        return _iterparse_wrapper(dotted, func)
    return mark_wrapper(_in_section(func, dotted, True), func)



def is_file_like(source: Any) -> bool:
    """lxml reads these through Python ``read()`` calls, i.e. possibly yielding."""
    return not isinstance(source, (str, bytes, bytearray, os.PathLike)) \
        and hasattr(source, "read")


# The lock a file-like lxml parse holds when the caller gives no parser: that of the
# thread's default parser, shared by every such parse.  A parse with a parser of its
# own holds that parser's lock (the parser object stands for it).
DEFAULT_PARSER_LOCK = "lxml default parser"


def _lxml_parse_wrapper(func: Callable[..., Any], guard: bool) -> Callable[..., Any]:
    """``lxml.etree.parse`` as a C section, with deadlock detection and guard.

    lxml keeps one lock per parser object (a real OS lock that gevent does not patch).
    A greenlet whose ``read()`` yields inside ``parse(fileobj)`` holds the lock of the
    default per-thread parser; a second greenlet entering ``parse`` on the same parser
    blocks the whole thread forever.  The guard gives every file-like parse that did
    not choose a parser its own copy of the default parser (same configuration, own
    lock, ~1 us), so parses run concurrently.  A parse that passed its own parser is
    serialised cooperatively on a gevent semaphore instead (we cannot copy a parser
    the caller may rely on, e.g. for its error log).
    """
    semaphore: list[Any] = []  # created lazily: gevent's hub may not exist yet

    def wrapper(source: Any, parser: Any = None, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        if tracer is None:
            return func(source, parser, *args, **kwargs)
        file_like = is_file_like(source)
        lock = None
        if file_like:
            # Judged as without the guard: the guard is what makes it safe.
            lock = DEFAULT_PARSER_LOCK if parser is None else parser
            tracer._lxml_file_parse_starting(guard, sys._getframe(1), lock)
        token = object()
        tracer._section_enter(LXML_PARSE, True, token, lock)
        try:
            if not (guard and file_like):
                return func(source, parser, *args, **kwargs)
            if parser is None:
                import lxml.etree
                return func(source, lxml.etree.get_default_parser().copy(), *args, **kwargs)
            if not semaphore:
                from gevent.lock import Semaphore
                semaphore.append(Semaphore(1))
            with semaphore[0]:
                return func(source, parser, *args, **kwargs)
        finally:
            tracer._section_exit(token)

    return mark_wrapper(wrapper, func)


def _iterparse_wrapper(dotted: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """iterparse parses while it is iterated, so each step is a C section call."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        inner = func(*args, **kwargs)
        return inner if tracer is None else _SectionIterator(dotted, inner)

    return mark_wrapper(wrapper, func)


class _SectionIterator:
    """Iterates *inner* with each ``next()`` inside a C section; other attributes
    (``root``, ``error_log``) pass through."""

    def __init__(self, name: str, inner: Any) -> None:
        self._name, self._inner = name, inner

    def __iter__(self) -> _SectionIterator:
        return self

    def __next__(self) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        if tracer is None:
            return next(self._inner)
        token = object()
        tracer._section_enter(self._name, True, token)
        try:
            return next(self._inner)
        finally:
            tracer._section_exit(token)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)
