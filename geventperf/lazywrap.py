"""Wrapping functions of modules without importing them: now if loaded, else at import.

The tracer wraps functions of libraries a program may use (``json``, ``lxml.etree``,
urllib3's ``HTTPResponse.read``, gevent's ``ThreadPool.spawn``).  Importing them in
order to wrap them cost ~100 ms at ``Tracer.start()`` (ssl, lxml, urllib3...), long
enough for gevent's monitor thread to report the loop blocked, and it loaded modules the
program never asked for.  Instead:

* a name whose module is already in ``sys.modules`` is wrapped at once;
* for the others a finder at the front of ``sys.meta_path`` watches the module names.
  When one is imported it asks the other finders for the spec, as the import system
  would, and hands the import system a loader that runs the real one and then wraps the
  fresh module, before the import statement returns: ``from lxml.etree import parse``
  done while tracing gets the wrapped function.

Nothing here imports a module.  An error of ours inside an import (finding the spec,
wrapping) is swallowed and the import proceeds exactly as without us: the tracer
never raises into the program.  The finder is on ``sys.meta_path`` only while some
wrapping is active; ``Patch.restore()`` of the handle returned by
:func:`wrap_when_loaded` removes it and undoes every wrap made at an import, and a
module's ``__loader__`` and ``__spec__.loader`` are the real loader again before the
module's own code runs.
"""

from __future__ import annotations

import functools
import sys
import warnings
from types import ModuleType
from typing import Any, Callable, Iterable

from gevent.monkey import get_original

# A real lock even in a monkey-patched process: imports happen in worker threads too.
# Re-entrant: a getattr on a module may run its __getattr__, which may import.
_RLock: Callable[[], Any] = get_original("_thread", "RLock")
_get_ident: Callable[[], int] = get_original("_thread", "get_ident")


class Patch:
    """One replaced attribute and how to put the original back."""

    __slots__ = ("owner", "attr", "original", "replacement")

    def __init__(self, owner: Any, attr: str, replacement: Any) -> None:
        self.owner, self.attr = owner, attr
        self.original = getattr(owner, attr)
        self.replacement = replacement
        setattr(owner, attr, replacement)

    def restore(self) -> None:
        # Someone may have replaced our wrapper after us; theirs wins, ours is dropped.
        if getattr(self.owner, self.attr, None) is self.replacement:
            setattr(self.owner, self.attr, self.original)


# -- resolving dotted names from what is loaded ---------------------------------------

def _module_prefixes(dotted: str) -> list[str]:
    """Module names that may hold *dotted*, longest first (the last part is always an
    attribute).  Raises ValueError for a name that is not dotted."""
    parts = dotted.split(".")
    if len(parts) < 2 or not all(parts):
        raise ValueError(f"{dotted!r} is not a dotted name like 'module.function'")
    return [".".join(parts[:cut]) for cut in range(len(parts) - 1, 0, -1)]


def resolve_loaded(dotted: str, use_getattr: bool = False) -> tuple[Any, str] | None:
    """``"lxml.etree.parse"`` -> (the ``lxml.etree`` module, ``"parse"``), from modules
    already imported; None when the module that holds the name is not imported yet.

    The longest loaded module prefix wins, so class attributes work too
    (``"pkg.mod.Class.method"``).  The first step from a module reads its ``__dict__``
    (a module ``__getattr__`` may import) unless *use_getattr*.  Raises AttributeError
    when the longest possible module is loaded and lacks the name (a typo).
    """
    prefixes = _module_prefixes(dotted)
    parts = dotted.split(".")
    for module_name in prefixes:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        rest = parts[module_name.count(".") + 1:]
        try:
            holder: Any = module
            for attr in rest[:-1]:
                holder = _attribute(holder, attr, module, use_getattr)
            _attribute(holder, rest[-1], module, use_getattr)  # must exist
        except (AttributeError, KeyError, TypeError):
            if module_name == prefixes[0]:
                raise AttributeError(f"module {module_name!r} has no attribute "
                                     f"{'.'.join(rest)!r}") from None
            return None  # a longer prefix may be a module not imported yet
        return holder, rest[-1]
    return None


def _attribute(holder: Any, attr: str, module: ModuleType, use_getattr: bool) -> Any:
    if holder is module and not use_getattr:
        return vars(module)[attr]
    return getattr(holder, attr)


def findable(dotted: str) -> bool:
    """Could a module holding *dotted* be imported later?  Asks the finders of
    ``sys.meta_path`` about the first prefix not yet imported whose parent is (a
    top-level name, or a submodule of a loaded package), which imports nothing."""
    for module_name in reversed(_module_prefixes(dotted)):  # shortest first
        if module_name in sys.modules:
            continue
        parent_name, _, _ = module_name.rpartition(".")
        path = None
        if parent_name:
            parent = sys.modules.get(parent_name)
            path = getattr(parent, "__path__", None)
            if path is None:
                return False  # the parent is loaded and is not a package
        for finder in list(sys.meta_path):
            if finder is _finder:
                continue
            find = getattr(finder, "find_spec", None)
            try:
                if find is not None and find(module_name, path) is not None:
                    return True
            except Exception:  # noqa: BLE001 - a broken finder: treat as "not found"
                continue
        return False
    return False


# -- the import hook ----------------------------------------------------------------

class _Watch:
    """Active wrapping of some names: those wrapped so far and those still awaited."""

    def __init__(self, make: Callable[[str, Any], Any], strict: bool,
                 pending: list[str]) -> None:
        self.make, self.strict = make, strict
        self.pending = pending
        self.modules = {m for dotted in pending for m in _module_prefixes(dotted)}
        self.patches: list[Patch] = []
        self.active = True
        self.errors = 0

    def imported(self, module_name: str) -> None:
        """Called, under the lock, after *module_name* was executed."""
        for dotted in [d for d in self.pending if module_name in _module_prefixes(d)]:
            try:
                found = resolve_loaded(dotted, use_getattr=self.strict)
            except (AttributeError, ValueError) as exc:
                self.pending.remove(dotted)
                if self.strict:
                    _warn(f"geventperf: {dotted!r} not wrapped: {exc}")
                continue
            if found is None:
                continue  # its module is still to come (a package was imported first)
            self.pending.remove(dotted)
            try:
                owner, attr = found
                replacement = self.make(dotted, getattr(owner, attr))
                if replacement is not None:
                    self.patches.append(Patch(owner, attr, replacement))
            except Exception:  # noqa: BLE001 - this name stays unwrapped, the others not
                _count_error()
                self.errors += 1
        self.modules = {m for dotted in self.pending for m in _module_prefixes(dotted)}


class _WatchHandle(Patch):
    """What :func:`wrap_when_loaded` returns for the names to be wrapped at import:
    ``restore()`` stops watching and undoes what was wrapped at imports."""

    __slots__ = ("watch",)

    def __init__(self, watch: _Watch) -> None:  # noqa: D107 - no attribute replaced
        self.watch = watch

    @property
    def patches(self) -> list[Patch]:
        return self.watch.patches

    def restore(self) -> None:
        with _lock:
            watch = self.watch
            if not watch.active:
                return
            watch.active = False
            _watches.remove(watch)
            _update_wanted(hook=True)
            for patch in reversed(watch.patches):
                patch.restore()
            watch.patches = []


def _warn(message: str) -> None:
    try:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    except Exception:  # noqa: BLE001 - with -W error this raises: never into an import
        pass


_lock = _RLock()
_watches: list[_Watch] = []
# Module names some active watch waits for; read without the lock by find_spec (a dict
# look-up is atomic), rebuilt under it.
_wanted: frozenset[str] = frozenset()
# (thread ident, module name) being looked up by us: a finder that calls back into
# sys.meta_path for the same name must not find us again.
_busy: set[tuple[int, str]] = set()
# Errors swallowed inside imports (our find_spec or wrapping), for the tests.
hook_errors = 0


def _count_error() -> None:
    global hook_errors
    hook_errors += 1


def _update_wanted(hook: bool) -> None:
    """Recompute the awaited names (under the lock).  With *hook*, also put our finder
    on sys.meta_path or take it off: only from start and restore, never from inside an
    import, where the import system may be iterating sys.meta_path."""
    global _wanted
    _wanted = frozenset(m for w in _watches for m in w.modules)
    if not hook:
        return
    if _watches:
        if not any(f is _finder for f in sys.meta_path):
            sys.meta_path.insert(0, _finder)
    else:
        for i, finder in enumerate(sys.meta_path):
            if finder is _finder:
                del sys.meta_path[i]
                break


def _module_executed(module_name: str) -> None:
    with _lock:
        for watch in list(_watches):
            if module_name not in watch.modules:
                continue
            try:
                watch.imported(module_name)
            except Exception:  # noqa: BLE001 - never break the program's import
                _count_error()
                watch.errors += 1
        _update_wanted(hook=False)


class _Loader:
    """The real loader, then our wrapping.  Puts the real loader back on the module
    and its spec before the module's code runs."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        loader = self._loader
        name = module.__name__
        try:
            spec = module.__spec__
            name = spec.name
            if spec.loader is self:
                spec.loader = loader
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = loader
        except Exception:  # noqa: BLE001
            _count_error()
        loader.exec_module(module)
        _module_executed(name)


class _Finder:
    """On ``sys.meta_path`` while something awaits an import; finds nothing itself."""

    def __repr__(self) -> str:
        return "<geventperf import hook>"

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _wanted:
            return None
        key = (_get_ident(), fullname)
        if key in _busy:
            return None
        _busy.add(key)
        try:
            for finder in list(sys.meta_path):
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    return None  # a legacy finder: let the import system ask it itself
                spec = find(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            if loader is None or not hasattr(loader, "exec_module") \
                    or not hasattr(loader, "create_module"):
                return spec
            spec.loader = _Loader(loader)
            return spec
        except Exception:  # noqa: BLE001 - the import system asks the finders again
            _count_error()
            return None
        finally:
            _busy.discard(key)

    def invalidate_caches(self) -> None:
        pass


_finder = _Finder()


# The attribute each of geventperf's wrappers carries: the function it wraps.  A name a
# tracer in another thread has wrapped already is left alone (its wrapper serves both).
WRAPPED_ATTR = "__geventperf_wrapped__"


def is_ours(func: Any) -> bool:
    """Whether *func* is one of geventperf's wrappers."""
    return getattr(func, WRAPPED_ATTR, None) is not None


def mark_wrapper(wrapper: Any, original: Any) -> Any:
    """*wrapper*, made to look like *original* (``functools.update_wrapper``, where the
    callable allows it: some C callables lack ``__dict__`` or ``__name__``) and marked
    as geventperf's (:func:`is_ours`)."""
    try:
        functools.update_wrapper(wrapper, original)
    except (AttributeError, TypeError):
        pass
    setattr(wrapper, WRAPPED_ATTR, original)
    return wrapper


def wrap_when_loaded(names: Iterable[str], make: Callable[[str, Any], Any],
                     strict: bool = False, what: str = "") -> list[Patch]:
    """Wrap each dotted name with ``make(dotted, original)`` (None: leave it), now if
    its module is loaded, else when it is imported.  Returns the patches to undo,
    restored in reverse order; the last one, when anything awaits an import, stops the
    watching and undoes what it wrapped.

    Not *strict*: names that do not resolve are skipped.  *strict*: a name whose module
    is loaded but lacks it, or whose module cannot be found at all, raises ValueError
    (after undoing what was done); a name whose module is findable but not imported is
    wrapped at its import, and a warning is issued then if the module lacks it.
    *what* ends the error message's "cannot wrap 'name'" (e.g. " as a C section").
    """
    patches: list[Patch] = []
    pending: list[str] = []
    try:
        for dotted in names:
            try:
                found = resolve_loaded(dotted, use_getattr=strict)
                if found is None and strict and not findable(dotted):
                    raise ValueError(f"no importable module in {dotted!r}")
            except (AttributeError, ValueError) as exc:
                if strict:
                    raise ValueError(f"cannot wrap {dotted!r}{what}: {exc}") from None
                continue
            if found is None:
                if dotted not in pending:
                    pending.append(dotted)
                continue
            owner, attr = found
            replacement = make(dotted, getattr(owner, attr))
            if replacement is not None:
                patches.append(Patch(owner, attr, replacement))
        if pending:
            watch = _Watch(make, strict, pending)
            with _lock:
                _watches.append(watch)
                _update_wanted(hook=True)
            patches.append(_WatchHandle(watch))
    except BaseException:
        for patch in reversed(patches):
            patch.restore()
        raise
    return patches
