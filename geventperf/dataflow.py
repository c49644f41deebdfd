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
