"""Which frame of a stack is the user's: the one they can change.

A wait recorded by the tracer starts deep in the machinery (gevent's socket, urllib3,
requests, http.client, ssl, socket).  The frame a person can act on is the innermost
one *outside* that machinery; the machinery frame it called is shown beside it, so
rows read "your line -> the library call it made".  Findings and every format use
these helpers, so a report names the same line everywhere.

Stack entries read ``path:line:function``, innermost first.  Only the path is
looked at, as text, so a profile made on another machine is classified the same.
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
from typing import Any, NamedTuple

# Installed packages that are plumbing between the user's call and the hub: a wait
# inside them is caused by whoever called them.  ``greenlet`` and ``gevent`` schedule,
# ``urllib3`` and ``requests`` do HTTP for the caller.
MACHINERY_PACKAGES = frozenset({"gevent", "greenlet", "urllib3", "requests"})
# Standard-library modules that read or write sockets for their caller.
MACHINERY_STDLIB = ("/http/client.py", "/ssl.py", "/socket.py", "/selectors.py")
# geventperf's own wrappers (sections, the adapter, the CLI running a script) sit
# between the user's line and the call it made; the demo's workload is user code.
MACHINERY_OWN = frozenset({"sections.py", "tracer.py", "adapter.py", "adapterfast.py",
                           "session.py", "mounting.py", "quickpools.py", "requestlines.py",
                           "responsehead.py", "bodyreader.py", "bytesbuf.py", "readstats.py",
                           "bodyreads.py", "lazywrap.py", "threadpoolwatch.py", "poolwatch.py",
                           "oneoffurls.py", "serverwatch.py", "writewatch.py", "cli.py",
                           "__init__.py", "__main__.py"})
# geventperf's modules that only observe the program (the tracer, its watchers and
# wrappers that count reads, the sampler): CPU samples in them are the profiler's cost,
# charged to whichever greenlet they ran in.  The adapter and Session are not here:
# mounted, they are the program's transport.
PROFILER_OWN = frozenset({"tracer.py", "sections.py", "readstats.py", "bodyreads.py",
                          "threadpoolwatch.py", "poolwatch.py", "oneoffurls.py",
                          "serverwatch.py", "writewatch.py", "lazywrap.py"})
PROFILER_OWN_DIRS = ("/geventperf/trace/", "/geventperf/sampling/")
_PACKAGE_DIRS = ("/site-packages/", "/dist-packages/")
# A monkey-patched threading.RLock is the standard library's Python RLock around
# gevent's lock: its acquire sits between that lock and the line that took it.
PATCHED_RLOCK_FRAME = r"[/\\]threading\.py:\d+:_RLock\.acquire$"
_PATCHED_RLOCK = re.compile(PATCHED_RLOCK_FRAME)


# gevent's WSGI server reading a connection's next request line: a server waiting for
# its client (a kept-alive connection between requests, or a new one before its first),
# idle capacity rather than a wait that made a request slower.
IDLE_SERVER_FRAME = re.compile(r"[/\\]gevent[/\\]pywsgi\.py:\d+:WSGIHandler\.read_requestline$")


# gevent's StreamServer calling a connection's handler (a raw protocol server: a cache,
# a store, a queue broker, a test's stand-in for one) ...
STREAM_HANDLER_FRAME = re.compile(r"[/\\]gevent[/\\]baseserver\.py:\d+:_handle_and_close_when_done$")
# ... whose own body reads the connection's socket (sock.recv, or readline on its
# makefile): it waits for its client.  Only reads made by the handler's body itself: a
# handler reading an upstream's socket it opened (a raw proxy) mostly does so in a
# function of its own, and that wait is work the handler awaits.
SOCKET_READ_FRAME = re.compile(r"[/\\](?:gevent[/\\]_socket(?:common|3)|socket)\.py:\d+:"
                               r"(?:\w+\.)?(?:recv|recv_into|readinto|_wait|wait_read)$")


def is_idle_server_wait(stack: list[str]) -> bool:
    """Whether a wait's stack is a server connection waiting for its next request:
    gevent's WSGI server reading a request line, or a StreamServer's handler reading
    its connection in its own body."""
    if any(isinstance(entry, str) and IDLE_SERVER_FRAME.search(entry) for entry in stack):
        return True
    handler = socket_read_depth(stack)
    return handler is not None and handler + 1 < len(stack) \
        and isinstance(stack[handler + 1], str) \
        and STREAM_HANDLER_FRAME.search(stack[handler + 1]) is not None


def socket_read_depth(stack: list[str]) -> int | None:
    """The index of the program's innermost frame when the stack reads a socket right
    from it (every frame inside it one of gevent's or the standard library's socket
    reads: ``sock.recv``, ``readline`` on its makefile), else None."""
    return _called_right_from(stack, SOCKET_READ_FRAME)


def _called_right_from(stack: list[str], calls: re.Pattern[str]) -> int | None:
    """The index of the program's innermost frame of *stack* when every frame inside
    it matches *calls*, else None."""
    depth = next((i for i, f in enumerate(stack)
                  if not isinstance(f, str) or not is_machinery(f)), None)
    if not depth or not isinstance(stack[depth], str):
        return None
    return depth if all(calls.search(f) for f in stack[:depth]) else None


# gevent's and the standard library's socket writes (``sendall``, ``send``, ``write`` on
# a makefile or an SSL socket) down to their wait for the buffer to drain; and the
# tracer's own wrapper of gevent's sendall (writewatch.py), between them and the program.
SOCKET_WRITE_FRAME = re.compile(r"[/\\](?:gevent[/\\]_(?:socket(?:common|3)|ssl3)|socket|ssl)\.py:"
                                r"\d+:(?:\w+\.)?(?:sendall|_sendall|send|__send_chunk|write|"
                                r"_wait|wait_write)$|"
                                r"[/\\]geventperf[/\\]writewatch\.py:\d+:_make\.<locals>\.sendall$")


def socket_write_depth(stack: list[str]) -> int | None:
    """The index of the program's innermost frame when the stack waits in a socket write
    made right from it (every frame inside it one of SOCKET_WRITE_FRAME's), else None."""
    return _called_right_from(stack, SOCKET_WRITE_FRAME)


class UserSite(NamedTuple):
    """Where a stack leaves the user's code.

    ``user``: the innermost frame outside the machinery (None when every recorded
    frame is machinery, e.g. the stack was cut at its depth limit); ``library``: the
    machinery frame that ``user`` called (None when the innermost frame is the user's
    own); ``innermost``: where the stack was recorded (the yield point)."""

    user: str | None
    library: str | None
    innermost: str | None


class Frame(NamedTuple):
    path: str
    line: int
    function: str


def parse_frame(entry: str) -> Frame:
    """Split ``path:line:function`` from the right (a path may hold colons: ``C:\\...``);
    a malformed entry becomes ``Frame("", 0, entry)``, so no input can make a reader
    fail."""
    parts = entry.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return Frame(parts[0], int(parts[1]), parts[2] or "?")
    return Frame("", 0, entry or "?")


def frame_line(entry: Any) -> tuple[str, int] | None:
    """(path, line) of a ``path:line:function`` frame, None for anything else: a
    call site (poolwatch's, bodyreads') names its function by its code's name, a
    stack's frame by its qualified name, so lines are compared without it."""
    parsed = parse_frame(entry) if isinstance(entry, str) else None
    return (parsed.path, parsed.line) if parsed and parsed.line else None


def frame_source(entry: str) -> str:
    """The source text of the line of ``path:line:function`` (stripped), read where the
    profile is analysed: "" when the file is not there (a profile analysed on another
    machine) or the entry does not parse."""
    frame = parse_frame(entry)
    if not frame.path or frame.line <= 0 or frame.path.startswith("<"):
        return ""
    try:
        return linecache.getline(frame.path, frame.line).strip()
    except (OSError, UnicodeError, ValueError):
        return ""


def with_block_lines(entry: str) -> range | None:
    """The lines of the body of the ``with`` statement at the line of
    ``path:line:function``, from the source where the profile is analysed (as
    frame_source reads it); None when the file is not there, does not parse, or has no
    ``with`` at that line.  Code at another line of the function may run before or after
    the block: only these lines ran inside it."""
    block = _with_blocks_of(entry).get(parse_frame(entry).line)
    return None if block is None else block.lines


def blocks_taking_the_same(entry: str) -> dict[int, range]:
    """The other ``with`` statements of the file of ``path:line:function`` whose context
    reads as the one at that line (``with self.lock:`` in two methods: most likely one
    lock), as {their line: the lines of their body}; {} when the source is not there or
    has no ``with`` at that line."""
    blocks = _with_blocks_of(entry)
    mine = blocks.get(parse_frame(entry).line)
    if mine is None:
        return {}
    return {line: block.lines for line, block in blocks.items()
            if block.context == mine.context and line != parse_frame(entry).line}


class WithBlock(NamedTuple):
    """A ``with`` statement of a source file."""

    lines: range  # the lines of its body
    context: str  # its context expressions, as source (``self.lock``)


def _with_blocks_of(entry: str) -> dict[int, WithBlock]:
    """The ``with`` statements of the file of ``path:line:function``, by line, from the
    source where the profile is analysed (as frame_source reads it)."""
    source = source_of(entry)
    return _with_blocks(source) if source else {}


def statement_source(entry: str) -> str:
    """The source text of the whole statement at the line of ``path:line:function``
    (the innermost statement spanning that line: a call written over several lines is
    sampled at one of them), read where the profile is analysed; frame_source's line
    when the file does not parse, "" when it is not there."""
    source = source_of(entry)
    if not source:
        return ""
    span = _statement_spans(source).get(parse_frame(entry).line)
    if span is None:
        return frame_source(entry)
    lines = source.splitlines()
    return " ".join(line.strip() for line in lines[span[0] - 1:span[1]])


@functools.lru_cache(maxsize=32)
def _statement_spans(source: str) -> dict[int, tuple[int, int]]:
    """{line: (first, last line) of the innermost statement spanning it} of *source*;
    {} when it does not parse."""
    tree = parsed(source)
    if tree is None:
        return {}
    spans: dict[int, tuple[int, int]] = {}
    # (ast.walk goes outer before inner: an inner statement's span replaces its outer's)
    for node in ast.walk(tree):
        # a compound statement (def, if, for, with, try, try*, match...: the ones with a
        # body or cases) is not one statement: its header line stays a line alone
        if isinstance(node, ast.stmt) and node.end_lineno is not None \
                and not hasattr(node, "body") and not hasattr(node, "cases"):
            for line in range(node.lineno, node.end_lineno + 1):
                spans[line] = (node.lineno, node.end_lineno)
    return spans


def source_of(entry: str) -> str:
    """The whole source of the file of ``path:line:function``, as frame_source reads it
    where the profile is analysed; "" when it is not there or the entry does not parse."""
    frame = parse_frame(entry)
    if not frame.path or frame.line <= 0 or frame.path.startswith("<"):
        return ""
    try:
        return "".join(linecache.getlines(frame.path))
    except (OSError, UnicodeError, ValueError):
        return ""


@functools.lru_cache(maxsize=32)
def _with_blocks(source: str) -> dict[int, WithBlock]:
    """{the line of a ``with`` statement: its WithBlock} of *source*."""
    tree = parsed(source)
    if tree is None:
        return {}
    return {node.lineno: WithBlock(
                range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1),
                "; ".join(ast.unparse(item.context_expr) for item in node.items))
            for node in ast.walk(tree) if isinstance(node, (ast.With, ast.AsyncWith))}


def gives_back(entry: str) -> bool | None:
    """Whether the ``get()`` (or ``get_nowait()``) call at the line of
    ``path:line:function`` takes an item that the same function puts back into the same
    object (``client = pool.get()`` ... ``pool.put(client)``: a pool of items), from the
    source where the profile is analysed; False when it does not (``job =
    queue.get()``: work taken from a queue); None when the source is not there, does not
    parse, or has no such call at that line."""
    source = source_of(entry)
    return _gives_back(source, parse_frame(entry).line) if source else None


_TAKES = frozenset({"get", "get_nowait"})
_GIVES = frozenset({"put", "put_nowait"})


@functools.lru_cache(maxsize=32)
def parsed(source: str) -> ast.Module | None:
    """*source* parsed (shared by its readers, which only read it); None when it does
    not parse."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def searched_collection(entry: str) -> str | None:
    """The collection (as source: ``self.blocked``) that the line of
    ``path:line:function`` searches for a match one element at a time: either the loop's
    body, at that line, tests the element of the innermost ``for`` loop around it for
    equality, membership, a prefix or suffix or a pattern (``==``, ``in``,
    ``.endswith(``, ``.startswith(``, PATTERN_MATCHERS) and the loop walks a name or an
    attribute (a range, a call, is not a stored collection); or the line tests membership
    (``in``, ``not in``) in a name or attribute the source binds to a list or a deque
    only. None when the line is no such test or the source is not there."""
    source = source_of(entry)
    return _searched_collection(source, parse_frame(entry).line) if source else None


@functools.lru_cache(maxsize=32)
def _searched_collection(source: str, line: int) -> str | None:
    tree = parsed(source)
    if tree is None:
        return None
    return _loop_searched(tree, line) or _sequence_tested(tree, line)


def _stored_loop(tree: ast.AST, line: int) -> ast.For | None:
    """The innermost ``for`` loop of *tree* whose body holds *line*, when it walks a
    name or an attribute (a stored collection: a range, a call's result, is not) into
    one name; None otherwise."""
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For)
             and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)]
    loop = max(loops, key=lambda node: node.lineno) if loops else None
    return loop if loop is not None and isinstance(loop.target, ast.Name) \
        and isinstance(loop.iter, (ast.Name, ast.Attribute)) else None


def _loop_searched(tree: ast.AST, line: int) -> str | None:
    """_searched_collection's first way: a for loop testing each element."""
    loop = _stored_loop(tree, line)
    if loop is None:
        return None
    element = loop.target.id

    def uses_element(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == element for n in ast.walk(node))

    for node in ast.walk(loop):
        if getattr(node, "lineno", None) != line:
            continue
        if isinstance(node, ast.Compare) and uses_element(node) and any(
                isinstance(op, (ast.Eq, ast.In)) for op in node.ops):
            return ast.unparse(loop.iter)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("endswith", "startswith") and uses_element(node):
            return ast.unparse(loop.iter)
        # a pattern matched per element: fnmatch.fnmatchcase(name, pattern),
        # re.match(pattern, name), pattern.search(name)
        if isinstance(node, ast.Call) \
                and ast.unparse(node.func).rsplit(".", 1)[-1] in PATTERN_MATCHERS \
                and (any(uses_element(arg) for arg in node.args)
                     or isinstance(node.func, ast.Attribute)
                     and uses_element(node.func.value)):
            return ast.unparse(loop.iter)
    return None


# Functions and methods that match a pattern: a loop calling one per element of a
# stored collection of patterns searches it (an unseen resolver proxy matched each name
# against 1 500 blocklist globs with fnmatch.fnmatchcase, 41 % of its service's CPU).
PATTERN_MATCHERS = ("fnmatch", "fnmatchcase", "match", "search", "fullmatch")


# Calls that make a sequence searched element by element by ``in``: what a name bound to
# one of them and nothing else holds (an unseen tracking poller deduplicated events with
# ``ev not in self.seen`` on a 20 000-long deque, 30 % of its run, and was told requests'
# own CPU only; a set took that off).
SEQUENCE_MAKERS = ("list", "deque", "collections.deque")


def _sequence_tested(tree: ast.AST, line: int) -> str | None:
    """_searched_collection's second way: ``x in seq`` on a list or a deque. The test may
    be the line's own, or the test of an ``if`` or ``while`` whose body the line begins:
    a sample taken during a C comparison is counted where the interpreter next looks at
    its signals, at the next call or backward jump, which is there."""
    tests = [node.test for node in ast.walk(tree)
             if isinstance(node, (ast.If, ast.While))
             and line in (node.lineno, node.body[0].lineno)]
    tests += [node for node in ast.walk(tree)
              if isinstance(node, ast.stmt) and node.lineno == line
              and not hasattr(node, "body")]
    for test in tests:
        for node in ast.walk(test):
            if not isinstance(node, ast.Compare):
                continue
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.In, ast.NotIn)) and \
                        isinstance(right, (ast.Name, ast.Attribute)) and \
                        _bound_to_sequence(tree, ast.unparse(right)):
                    return ast.unparse(right)
    return None


def _bound_to_sequence(tree: ast.AST, name: str) -> bool:
    """Whether every assignment to *name* (source, ``self.seen``) in *tree* binds a list
    or a deque (a literal, a comprehension, list() or deque()), and there is one."""
    values = [node.value for node in ast.walk(tree)
              if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
              and any(ast.unparse(target) == name for target in
                      (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    return bool(values) and all(
        isinstance(value, (ast.List, ast.ListComp)) or
        (isinstance(value, ast.Call) and ast.unparse(value.func) in SEQUENCE_MAKERS)
        for value in values)


def recipients_loop(entry: str) -> str | None:
    """``for sub in self.subs``: the header of the innermost ``for`` loop whose body
    holds the line of ``path:line:function``, when it walks a name or an attribute (a
    stored collection, not a range or a call's result) and its body hands something to
    each element (a call of a method of the loop's element: ``sub.offer(...)``,
    ``conn.sendall(...)``): a loop over recipients; None otherwise, or without the
    source."""
    source = source_of(entry)
    return _recipients_loop(source, parse_frame(entry).line) if source else None


@functools.lru_cache(maxsize=32)
def _recipients_loop(source: str, line: int) -> str | None:
    tree = parsed(source)
    loop = _stored_loop(tree, line) if tree is not None else None
    if loop is None:
        return None
    element = loop.target.id
    delivers = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and isinstance(node.func.value, ast.Name)
                   and node.func.value.id == element
                   for statement in loop.body for node in ast.walk(statement))
    return f"for {element} in {ast.unparse(loop.iter)}" if delivers else None


def with_connection(entry: str) -> bool:
    """Whether the line of ``path:line:function`` enters a ``with`` block on a name or
    attribute the source binds to a ``connect(...)`` call (``self.journal =
    sqlite3.connect(path)``): a DB-API connection's block, which commits at its end, a
    name the commit patterns do not know (an unseen controller's ``with self.journal:``
    committed each audit record with an fsync)."""
    source = source_of(entry)
    return _with_connection(source, parse_frame(entry).line) if source else False


@functools.lru_cache(maxsize=32)
def _with_connection(source: str, line: int) -> bool:
    tree = parsed(source)
    if tree is None:
        return False
    entered = {ast.unparse(item.context_expr) for node in ast.walk(tree)
               if isinstance(node, (ast.With, ast.AsyncWith)) and node.lineno == line
               for item in node.items}
    if not entered:
        return False
    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
               and ast.unparse(node.value.func).rsplit(".", 1)[-1] == "connect"
               and any(ast.unparse(target) in entered for target in node.targets)
               for node in ast.walk(tree))


# A string literal's placeholders (%s, %(name)d, {}, {name}): what is left are the
# fixed parts a request built from it carries.
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]|\{[^{}]*\}")
# Fixed parts shorter than this match too much by chance ("/", "id").
LITERAL_PART_MIN = 3


def function_literals(entry: str) -> tuple[str, ...]:
    """The fixed parts of the string literals (f-strings' constant parts included,
    placeholders cut out) of the innermost function of that name spanning the line of
    ``path:line:function``; () when there is none or no source."""
    source = source_of(entry)
    if not source:
        return ()
    frame = parse_frame(entry)
    return _function_literals(source, frame.line, frame.function.rsplit(".", 1)[-1])


@functools.lru_cache(maxsize=64)
def _function_literals(source: str, line: int, name: str) -> tuple[str, ...]:
    function = innermost_function(source, line, line, name)
    if function is None:
        return ()
    parts = []
    for node in ast.walk(function):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parts.extend(p for p in _PLACEHOLDER.split(node.value)
                         if p and len(p) >= LITERAL_PART_MIN)
    return tuple(dict.fromkeys(parts))


def innermost_function(source: str, first: int, last: int, name: str | None = None
                       ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function of *source* whose definition spans lines *first* to
    *last* (of that *name* when given); None when there is none, or it does not
    parse."""
    tree = parsed(source)
    if tree is None:
        return None
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and (name is None or node.name == name)
                 and node.lineno <= first and last <= (node.end_lineno or node.lineno)]
    return max(functions, key=lambda node: node.lineno) if functions else None


@functools.lru_cache(maxsize=32)
def _gives_back(source: str, line: int) -> bool | None:
    """gives_back's answer for the call at *line* of *source*."""
    function = innermost_function(source, line, line)
    if function is None:
        return None
    calls = [node for node in ast.walk(function) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute)]
    taken = {ast.unparse(c.func.value) for c in calls
             if c.lineno == line and c.func.attr in _TAKES}
    if not taken:
        return None
    return any(c.func.attr in _GIVES and ast.unparse(c.func.value) in taken for c in calls)


class CacheDecorator(NamedTuple):
    """A decorator that keeps a function's results by its arguments (functools',
    cachetools', a home-made ``memoize``), on the function of a frame."""
    function: str  # the decorated function's name
    source: str  # the decorator as written: "functools.lru_cache(maxsize=256)"
    line: int
    maxsize: int | None  # the results it keeps; None: no bound
    size_known: bool  # False: the bound is not written as a number (a variable)


# The decorators' names (the last part of a dotted name) that keep results by their
# arguments: functools' lru_cache and cache, cachetools' cached and its func module's
# *_cache, async-lru's alru_cache and the usual home-made names; not cached_property
# (one result per object) nor Django's never_cache (response headers).
_MEMOIZING = re.compile(r"^(?:(?:lru|ttl|lfu|fifo|rr|mru|alru)_cache|cache|cached|memoized?)$")
# The results functools.lru_cache (and cachetools.func's caches) keep when no maxsize
# is written.
LRU_CACHE_DEFAULT_MAXSIZE = 128
_DEFAULT_BOUNDED = re.compile(r"^(?:lru|ttl|lfu|fifo|rr|mru)_cache$")


def cache_decorator(entry: str) -> CacheDecorator | None:
    """The memoizing decorator on the function of ``path:line:function`` (the innermost
    definition of that name spanning the line), from the source where the profile is
    analysed; None when there is none, or no source."""
    source = source_of(entry)
    if not source:
        return None
    frame = parse_frame(entry)
    name = frame.function.rsplit(".", 1)[-1]
    spanning = [(first, d) for first, last, d in _cache_decorators(source)
                if d.function == name and first <= frame.line <= last]
    return max(spanning, key=lambda fd: fd[0])[1] if spanning else None


@functools.lru_cache(maxsize=32)
def _cache_decorators(source: str) -> list[tuple[int, int, CacheDecorator]]:
    """(first line, last line, its decorator) of each function of *source* decorated
    with a memoizing decorator (_MEMOIZING)."""
    tree = parsed(source)
    if tree is None:
        return []
    found = []
    constants = _module_constants(tree)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            name = ast.unparse(call.func if call else decorator).rsplit(".", 1)[-1]
            if _MEMOIZING.match(name):
                found.append((node.lineno, node.end_lineno or node.lineno, CacheDecorator(
                    node.name, ast.unparse(decorator), decorator.lineno,
                    *_maxsize(call, name, constants))))
                break
    return found


def _module_constants(tree: ast.AST) -> dict[str, ast.Constant]:
    """The names the module's own top level binds once, to a constant (``CACHE_SIZE =
    64``): a cache's size is commonly written so (an unseen claims job's
    lru_cache(maxsize=PARTNER_CACHE_SIZE), 64 results for 450 keys, was told "either
    too small or keyed wrong", where its size alone was the cause)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in getattr(tree, "body", ()):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and isinstance(values[0], ast.Constant)}


def _maxsize(call: ast.Call | None, name: str, constants: dict[str, ast.Constant]
             ) -> tuple[int | None, bool]:
    """(the results a memoizing decorator keeps, None for no bound; whether that is
    known): its ``maxsize=`` (or a cache object's within it, cachetools'
    ``cached(LRUCache(maxsize=N))``), lru_cache's first argument, its default; written
    as a number or a name the module binds once to one (*constants*); not known where it
    is written otherwise, or for a home-made decorator."""

    def constant(node: ast.expr) -> ast.Constant | None:
        return node if isinstance(node, ast.Constant) else \
            constants.get(node.id) if isinstance(node, ast.Name) else None

    if call is not None:
        for node in ast.walk(call):
            for keyword in getattr(node, "keywords", ()):
                if keyword.arg == "maxsize" and (given := constant(keyword.value)):
                    value = given.value
                    return (value, True) if type(value) is int and value >= 0 \
                        else (None, value is None)
            args = node.args if isinstance(node, ast.Call) else ()
            callee = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
            first = constant(args[0]) if args else None
            if first is not None and type(first.value) is int \
                    and (node is call and _DEFAULT_BOUNDED.match(name)
                         or callee.endswith("Cache")):
                return first.value, True
        if call.args or call.keywords:
            return None, False  # given otherwise (a variable): not read
    if _DEFAULT_BOUNDED.match(name):
        return LRU_CACHE_DEFAULT_MAXSIZE, True
    return None, name == "cache"  # functools.cache keeps every result


def frame_path(entry: str) -> str:
    """The path part of ``path:line:function`` (``""`` when it does not parse)."""
    return parse_frame(entry).path


def is_machinery(entry: str) -> bool:
    """True for frames of gevent, greenlet, urllib3, requests, http.client, ssl,
    socket, a patched RLock's acquire and geventperf's own wrappers: plumbing, not the
    user's decision."""
    path = frame_path(entry).replace("\\", "/")
    if not path:
        return False
    for marker in _PACKAGE_DIRS:
        index = path.rfind(marker)
        if index >= 0:
            rest = path[index + len(marker):]
            package = rest.split("/", 1)[0]
            if package.endswith(".py"):
                package = package[:-3]
            if package in MACHINERY_PACKAGES:
                return True
            if package == "geventperf":
                return rest.rsplit("/", 1)[-1] in MACHINERY_OWN
            return False
    if path.endswith(MACHINERY_STDLIB) or _PATCHED_RLOCK.search(entry):
        return True
    for package in MACHINERY_PACKAGES:
        if f"/{package}/" in path:  # a source checkout of gevent, requests ...
            return True
    if "/geventperf/" in path:
        return path.rsplit("/", 1)[-1] in MACHINERY_OWN
    return False


def user_site(stack: list[str]) -> UserSite:
    """The user's frame of *stack* (innermost first) and the library frame it called."""
    if not stack:
        return UserSite(None, None, None)
    for depth, entry in enumerate(stack):
        if not is_machinery(entry):
            library = None
            # The call the user made: geventperf's own wrappers (a section around a
            # parser) are skipped for the frame they called.
            for inner in range(depth - 1, -1, -1):
                library = stack[inner]
                if not is_own_frame(library):
                    break
            return UserSite(entry, library, stack[0])
    return UserSite(None, stack[-1], stack[0])


def is_own_frame(entry: str) -> bool:
    """A frame of geventperf's own wrappers (MACHINERY_OWN)."""
    path = frame_path(entry).replace("\\", "/")
    return "/geventperf/" in path and path.rsplit("/", 1)[-1] in MACHINERY_OWN


def is_profiler_own(path: str) -> bool:
    """Whether *path* (a frame's file) is one of geventperf's observing modules
    (PROFILER_OWN): what runs there is the profiler's cost, not the program's."""
    path = path.replace("\\", "/")
    return "/geventperf/" in path and (path.rsplit("/", 1)[-1] in PROFILER_OWN
                                       or any(d in path for d in PROFILER_OWN_DIRS))
