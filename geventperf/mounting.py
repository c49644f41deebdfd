"""geventperf.mount: large body reads on a session's prefixes, each prefix with an
adapter of its own, keeping a custom ``HTTPAdapter`` already mounted there."""

from __future__ import annotations

from typing import Any

import requests
from requests.adapters import BaseAdapter, HTTPAdapter

from geventperf.adapter import GeventAdapter, LargeReads
from geventperf.bodyreader import BodyLimits
from geventperf.quickpools import use_pools

__all__ = ["DEFAULT_PREFIXES", "mount"]

# The prefixes requests.Session mounts its own adapters on.
DEFAULT_PREFIXES = ("http://", "https://")
# HTTPAdapter's own keyword arguments: settings of the pool manager and retries, which
# mount cannot give an adapter it did not build.
_POOL_SETTINGS = ("pool_connections", "pool_maxsize", "max_retries", "pool_block", "pool_kwargs")

# Custom adapter classes with LargeReads mixed in, built once per class.
_ADAPTER_CLASSES: dict[type, type] = {}


def _unpickle_wrapped(base: type, state: dict[str, Any], limits: BodyLimits,
                      fast_path: bool, quickack: bool = False) -> HTTPAdapter:
    # quickack's default: what an adapter pickled before it existed had
    adapter = base.__new__(base)
    adapter.__setstate__(state)
    return _with_large_reads(adapter, limits, fast_path, quickack)


def _reduce_wrapped(self: Any) -> Any:
    base = _base_class(type(self))
    return (_unpickle_wrapped, (base, base.__getstate__(self), self.body_limits,
                                self.fast_path, self.quickack))


def _adapter_class(cls: type) -> type:
    mixed = _ADAPTER_CLASSES.get(cls)
    if mixed is None:
        mixed = type("Gevent" + cls.__name__, (LargeReads, cls),
                     {"__module__": __name__, "__qualname__": "Gevent" + cls.__qualname__,
                      "__reduce__": _reduce_wrapped, "_geventperf_base": cls})
        _ADAPTER_CLASSES[cls] = mixed
    return mixed


def _base_class(cls: type) -> type:
    return getattr(cls, "_geventperf_base", cls)


def _with_large_reads(adapter: HTTPAdapter, limits: BodyLimits, fast_path: bool,
                      quickack: bool) -> Any:
    """A copy of *adapter* (same pool manager, retries and state: its ``__dict__``) whose
    class adds the large body reads to the adapter's own."""
    cls = type(adapter)
    wrapped = object.__new__(cls if issubclass(cls, LargeReads) else _adapter_class(cls))
    wrapped.__dict__.update(adapter.__dict__)
    wrapped.body_limits = limits
    wrapped._start_fast_path(fast_path)
    wrapped.quickack = quickack
    if getattr(wrapped, "poolmanager", None) is not None:
        # The adapter's own pool manager (Locust's, say) gets the quick pools too: the
        # same answers, fewer steps (geventperf/quickpools.py); its proxy managers keep
        # their own pools.
        use_pools(wrapped.poolmanager, fast_path, quickack)
    return wrapped


def _pool_settings(adapter: HTTPAdapter) -> dict[str, Any]:
    """The HTTPAdapter settings of a plain adapter being replaced, so that replacing it
    keeps them."""
    settings = {name: getattr(adapter, attr) for name, attr in (
        ("pool_connections", "_pool_connections"), ("pool_maxsize", "_pool_maxsize"),
        ("pool_block", "_pool_block"), ("max_retries", "max_retries")) if hasattr(adapter, attr)}
    if isinstance(adapter, GeventAdapter) and adapter.pool_kwargs:
        settings["pool_kwargs"] = adapter.pool_kwargs
    if isinstance(adapter, GeventAdapter) and adapter.quickack:
        settings["quickack"] = True
    return settings


def mount(session: requests.Session, prefixes: tuple[str, ...] = DEFAULT_PREFIXES,
          **kwargs: Any) -> HTTPAdapter:
    """Add large body reads (and the limits in *kwargs*) to *session* for each prefix
    (``http://`` and ``https://`` by default).

    Each prefix gets an adapter of its own, as ``requests.Session`` mounts them, so
    ``Session.close()`` closes each once.  What is mounted there decides how:

    * nothing, requests' plain ``HTTPAdapter`` or a ``GeventAdapter``: a new
      :class:`GeventAdapter` built from *kwargs*, keeping the replaced adapter's pool
      sizes, ``pool_block`` and ``max_retries`` unless *kwargs* set them;
    * any other ``HTTPAdapter`` subclass (Locust's ``LocustHttpAdapter``, a retrying
      adapter): a copy of it, sharing its pool manager and state, whose class mixes
      GeventAdapter's body reading into that adapter's class; one adapter mounted on
      several prefixes stays one.  Only the body options (``chunk_size``,
      ``max_body_size``, ``body_timeout``, ``yield_every``, ``fast_path``) and
      ``quickack`` apply: pool settings raise ``TypeError`` (set them on that adapter);
    * an adapter that is not an ``HTTPAdapter``: ``TypeError``, naming it.

    ``quickack=True`` acknowledges each response at once (see :class:`GeventAdapter`):
    the client-side fix for the ``delayed-ack-stall`` finding.  A remount keeps it
    unless ``quickack=False`` is given.

    ``fast_path=True`` also turns on the session fast path
    (:func:`geventperf.session.enable_fast_path`): the environment's proxies read once
    and again only when the environment changes, pool keys and CA bundle checks
    remembered per adapter.

    Returns the adapter now mounted on the first prefix.
    """
    if isinstance(prefixes, str):
        prefixes = (prefixes,)
    body_keys = ("chunk_size", "max_body_size", "body_timeout", "yield_every")
    unknown = sorted(set(kwargs) - set(body_keys) - set(_POOL_SETTINGS)
                     - {"fast_path", "quickack"})
    if unknown:
        raise TypeError(f"geventperf.mount: unknown option(s) {', '.join(unknown)}")
    limits = BodyLimits(**{k: kwargs[k] for k in body_keys if k in kwargs})
    fast_path = bool(kwargs.get("fast_path", False))
    built: dict[int, HTTPAdapter] = {}   # id(existing) -> what replaces it
    plan: list[tuple[str, HTTPAdapter]] = []
    for prefix in prefixes:
        existing = session.adapters.get(prefix)
        if existing is not None and id(existing) in built:
            plan.append((prefix, built[id(existing)]))
            continue
        if existing is None or type(existing) in (HTTPAdapter, GeventAdapter):
            settings = _pool_settings(existing) if existing is not None else {}
            adapter: HTTPAdapter = GeventAdapter(**{**settings, **kwargs})
        elif isinstance(existing, HTTPAdapter):
            given = [k for k in _POOL_SETTINGS if k in kwargs]
            if given:
                raise TypeError(
                    f"geventperf.mount: {prefix!r} already has a {type(existing).__name__} "
                    f"mounted; mount keeps it and adds the large body reads, but cannot "
                    f"change its pool settings ({', '.join(given)}): configure them on "
                    f"that adapter, or mount geventperf.GeventAdapter({', '.join(given)}=...)"
                    f" on {prefix!r} yourself to replace it")
            # a remount keeps quickack unless given, as a GeventAdapter's settings do
            quickack = bool(kwargs.get("quickack", getattr(existing, "quickack", False)))
            adapter = _with_large_reads(existing, limits, fast_path, quickack)
        elif isinstance(existing, BaseAdapter) or existing is not None:
            raise TypeError(
                f"geventperf.mount: {prefix!r} has a {type(existing).__module__}."
                f"{type(existing).__qualname__} mounted, which is not a "
                f"requests.adapters.HTTPAdapter, so geventperf cannot add its body reads "
                f"to it. Leave that prefix out (mount(session, prefixes=...)), or replace "
                f"it yourself with session.mount({prefix!r}, geventperf.GeventAdapter())")
        if existing is not None:
            built[id(existing)] = adapter
        plan.append((prefix, adapter))
    for prefix, adapter in plan:   # nothing is mounted unless every prefix could be
        session.mount(prefix, adapter)
    if fast_path:
        from geventperf.session import enable_fast_path
        enable_fast_path(session)
    return plan[0][1]
