"""Whether a function's calls need each other's answers, read from its source.

``sequential-calls`` tells calls made one after another to make them together, which
saves time only when none needs the answer of one before it.  A search handler that
corrects the query, expands its terms, asks the index with them and ranks the hits it
got makes four calls that each read the answer before: the chain is the response's
floor (an unseen search service was told to make them together, "48 s", where the
most any concurrency gained was 2 %).  The source tells: a call's arguments read names
that an earlier call's answer flowed into (assigned from it, or from something
computed from it, or a list it was added to).
"""

from __future__ import annotations

import ast
import functools
from typing import NamedTuple

from geventperf.formats._frames import is_library_frame
from geventperf.frames import innermost_function, parse_frame, source_of

# Methods through which a value is added to the container they are called on.
ADDING = frozenset({"append", "extend", "update", "add", "insert", "appendleft",
                    "extendleft", "setdefault", "put", "put_nowait"})


class CallLine(NamedTuple):
    """A line of the function that made calls, and whether it sits in a loop."""
    line: int
    in_loop: bool


def chained(entries: list[str]) -> list[CallLine] | None:
    """The lines of ``path:line:function`` *entries* (frames of one function, where it
    made its calls) in order, when each after the first reads what an earlier one
    returned; None when one does not, or the source cannot tell (not there, does not
    parse, the lines in no one function of that name)."""
    frames = [parse_frame(e) for e in entries]
    if len({(f.path, f.function) for f in frames}) != 1 or len({f.line for f in frames}) < 2:
        return None
    source = source_of(entries[0])
    if not source:
        return None
    name = frames[0].function.rsplit(".", 1)[-1]
    return _chained(source, name, tuple(sorted({f.line for f in frames})))


@functools.lru_cache(maxsize=32)
def _chained(source: str, name: str, lines: tuple[int, ...]) -> list[CallLine] | None:
    function = innermost_function(source, lines[0], lines[-1], name)
    if function is None:
        return None
    flow = _Flow(set(lines))
    for statement in function.body:
        flow.visit(statement)
    if set(flow.needs) != set(lines):
        return None  # a line the statements did not reach (a lambda, a nested def)
    if any(not (flow.needs[line] & set(lines[:i])) for i, line in enumerate(lines) if i):
        return None
    return [CallLine(line, line in flow.looped) for line in lines]


class _Flow:
    """Which call lines each name's value came from, statement by statement in source
    order (a loop's body once: enough to see what its calls read), and for each call
    line, the call lines whose answers its statement read."""

    def __init__(self, lines: set[int]) -> None:
        self.lines = lines
        self.origins: dict[str, set[int]] = {}
        self.needs: dict[int, set[int]] = {}
        self.looped: set[int] = set()
        self._loops = 0

    def visit(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._assign(node.target, self._read(node.iter))
            self._loops += 1
            for child in [*node.body, *node.orelse]:
                self.visit(child)
            self._loops -= 1
        elif isinstance(node, ast.While):
            self._read(node.test)
            self._loops += 1
            for child in [*node.body, *node.orelse]:
                self.visit(child)
            self._loops -= 1
        elif isinstance(node, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            for expr in ([node.test] if isinstance(node, ast.If) else
                         [item.context_expr for item in node.items]
                         if isinstance(node, (ast.With, ast.AsyncWith)) else []):
                self._read(expr)
            for field in ("body", "orelse", "finalbody"):
                for child in getattr(node, field, []):
                    self.visit(child)
            for handler in getattr(node, "handlers", []):
                for child in handler.body:
                    self.visit(child)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = self._read(node.value) if node.value is not None else set()
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self._assign(target, value | (self._names_of(target)
                                              if isinstance(node, ast.AugAssign) else set()))
        elif isinstance(node, ast.Expr):
            value = self._read(node.value)
            # x.append(answer), x.extend(...), x.update(...): the answer flows into x
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and isinstance(call.func.value, ast.Name) and call.func.attr in ADDING:
                self._assign(call.func.value, value, add=True)
        elif isinstance(node, ast.Return) and node.value is not None:
            self._read(node.value)

    def _read(self, expr: ast.expr) -> set[int]:
        """The call lines *expr*'s value comes from (the names it reads, and a call line
        of its own); notes, for a call line within it, what it read."""
        came = self._names_of(expr)
        made = {n.lineno for n in ast.walk(expr) if isinstance(n, ast.Call)} & self.lines
        for line in made:
            self.needs.setdefault(line, set()).update(came - {line})
            if self._loops:
                self.looped.add(line)
        return came | made

    def _names_of(self, expr: ast.AST) -> set[int]:
        found: set[int] = set()
        for n in ast.walk(expr):
            if isinstance(n, ast.Name):
                found |= self.origins.get(n.id, set())
        return found

    def _assign(self, target: ast.AST, origins: set[int], add: bool = False) -> None:
        """Names (unpacked too) take *origins*; a container item set (``d[k] = v``) adds
        them to the container; an attribute (``self.x = v``) is not followed: the object
        holds many things, and every later call through it would read as a need."""
        if isinstance(target, ast.Name):
            self.origins[target.id] = (self.origins.get(target.id, set()) | origins) if add \
                else set(origins)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                self._assign(item, origins, add)
        elif isinstance(target, ast.Starred):
            self._assign(target.value, origins, add)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self._assign(target.value, origins, add=True)


# Statements that leave a loop: a loop testing what a wait returned with one of these
# goes on only when the one before succeeded.
LEAVES = (ast.Break, ast.Return, ast.Raise)


def gated(stack: list[str]) -> bool:
    """Whether a wait made at the program's frames on *stack* (innermost first) repeats
    in a loop that goes on only when each answer allows: the innermost of the program's
    frames whose line sits in a ``for`` or ``while`` loop assigns names there (or tests
    the call itself), and an ``if`` of that loop's body testing one of them, or a name
    computed from them, breaks, returns or raises.  A staged rollout's waves, each
    checked before the next (``if not all(results): return``), are such a gate: they
    cannot be made together.  False when no frame tells (no source here)."""
    for entry in stack:
        if is_library_frame(entry):  # a library's loops are not the program's choice
            continue
        source = source_of(entry)  # "" for a frame with no file or line
        if not source:
            continue
        verdict = _gated(source, parse_frame(entry).line)
        if verdict is not None:
            return verdict
    return False


@functools.lru_cache(maxsize=64)
def _gated(source: str, line: int) -> bool | None:
    """_gated's answer at one frame: None when the line is in no loop of its function
    (the next frame out may hold it), else whether that loop is gated on the line."""
    function = innermost_function(source, line, line)
    if function is None:
        return None
    loops = [node for node in ast.walk(function) if isinstance(node, (ast.For, ast.While))
             and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)]
    if not loops:
        return None
    loop = max(loops, key=lambda node: node.lineno)
    body = [stmt for node in loop.body for stmt in ast.walk(node) if isinstance(stmt, ast.stmt)]
    at = [stmt for stmt in body if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)]
    if not at:
        return False
    statement = max(at, key=lambda stmt: stmt.lineno)
    if isinstance(statement, ast.If) and _leaves(statement):
        return True  # `if not all(pool.map(...)): return`
    tainted = _assigned(statement)
    for stmt in sorted(body, key=lambda s: s.lineno):
        if stmt.lineno <= statement.lineno:
            continue
        if isinstance(stmt, ast.If) and _reads(stmt.test, tainted) and _leaves(stmt):
            return True
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and \
                stmt.value is not None and _reads(stmt.value, tainted):
            tainted |= _assigned(stmt)
    return False


def _assigned(stmt: ast.stmt) -> set[str]:
    """The names a statement assigns (its targets' plain names)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) else []
    return {node.id for target in targets for node in ast.walk(target)
            if isinstance(node, ast.Name)}


def _reads(expr: ast.AST, names: set[str]) -> bool:
    return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(expr))


def _leaves(test: ast.If) -> bool:
    """Whether the if statement's branches leave the loop (LEAVES)."""
    return any(isinstance(node, LEAVES) for stmt in test.body + test.orelse
               for node in ast.walk(stmt))
