"""urllib3 pools whose connections skip three costs of every request.

* The dropped-connection check: urllib3 asks every pooled connection ``is_connected``
  before reusing it, with ``select.poll`` and a zero timeout; under
  ``gevent.monkey.patch_all()`` that is gevent's ``poll``, which answers through the
  hub: a greenlet switch on every request.  These connections ask the process's own
  ``poll`` instead (same answer: readable, i.e. data, end of file or an error, means
  dropped).
* The response head's email parser: their responses are
  :class:`~geventperf.responsehead.QuickHTTPResponse`, which builds a plain header block
  directly (the same message, see that module).
* The request's lines: they remember the request line and header lines http.client
  built for the previous requests (:mod:`geventperf.requestlines`).

Used by GeventAdapter's fast path.
"""

from __future__ import annotations

import select
from typing import Any

from geventperf.requestlines import RememberedLines
from geventperf.responsehead import QuickHTTPResponse


def _original_poll() -> Any:
    """select.poll as it was before gevent patched it (None when there is none)."""
    try:
        from gevent import monkey
        return monkey.get_original("select", "poll")
    except (ImportError, AttributeError):
        return None


_POLL = _original_poll()
_QUICK_POOLS: dict[str, type] = {}


def _readable_now(sock: Any) -> bool:
    poller = _POLL()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def _quick_pools() -> dict[str, type]:
    """urllib3's two pool classes, with connections as the module's text says."""
    if not _QUICK_POOLS:
        import urllib3.connection
        import urllib3.connectionpool

        def is_connected(self: Any) -> bool:
            return self.sock is not None and not _readable_now(self.sock)

        for scheme, pool in (("http", urllib3.connectionpool.HTTPConnectionPool),
                             ("https", urllib3.connectionpool.HTTPSConnectionPool)):
            base = pool.ConnectionCls
            conn = type("Quick" + base.__name__, (RememberedLines, base),
                        {"is_connected": property(is_connected),
                         "response_class": QuickHTTPResponse, "__module__": __name__})
            _QUICK_POOLS[scheme] = type("Quick" + pool.__name__, (pool,),
                                        {"ConnectionCls": conn, "__module__": __name__})
    return _QUICK_POOLS


def use_quick_pools(manager: Any) -> None:
    """Give *manager* (a urllib3 PoolManager or ProxyManager) the quick pools, where it
    uses urllib3's own (not a SOCKS manager's, nor on urllib3 1.26, which checks
    differently)."""
    import urllib3.connection
    import urllib3.poolmanager
    if _POLL is None or not hasattr(urllib3.connection.HTTPConnection, "is_connected"):
        return
    if getattr(manager, "pool_classes_by_scheme", None) is \
            urllib3.poolmanager.pool_classes_by_scheme:
        manager.pool_classes_by_scheme = _quick_pools()
