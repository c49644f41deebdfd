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
* The request's headers as requests hands them over: a ``CaseInsensitiveDict``, which
  urllib3 copies and walks three times per request (its keys for a ``frozenset``, its
  items for ``putheader``), each step through Python-level iterators.  Their pools
  pass the same names and values, in the same order, as a plain ``dict``
  (:class:`PlainHeaders`).

Used by GeventAdapter's fast path.  Apart from it, ``quickack`` gives connections that
acknowledge each response at once (:class:`QuickAck`).
"""

from __future__ import annotations

import select
import socket
from typing import Any

from requests.structures import CaseInsensitiveDict

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
# (quick, quickack) -> scheme -> pool class
_POOLS: dict[tuple[bool, bool], dict[str, type]] = {}
# Linux's option (None elsewhere: quickack then changes nothing).
_TCP_QUICKACK = getattr(socket, "TCP_QUICKACK", None)


class QuickAck:
    """A connection that asks the kernel to acknowledge the response at once.

    An upstream that writes a response's head and body in separate segments with
    Nagle's algorithm on sends the body only once the head is acknowledged; on a
    kept-alive connection Linux delays that ACK about 40 ms (the findings'
    ``delayed-ack-stall``).  ``TCP_QUICKACK`` does not stay set (the kernel goes back to
    delaying once the connection looks interactive: this side sending a request), so
    it is set again after each request is sent, just before its response is read: one
    ``setsockopt`` per request.
    """

    def getresponse(self, *args: Any, **kwargs: Any) -> Any:
        sock = getattr(self, "sock", None)
        if sock is not None and _TCP_QUICKACK is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, _TCP_QUICKACK, 1)
            except (OSError, AttributeError):
                pass  # a closed socket, or TLS in TLS: the read says what went wrong
        return super().getresponse(*args, **kwargs)  # type: ignore[misc]


class PlainHeaders:
    """A pool whose ``urlopen`` takes requests' ``CaseInsensitiveDict`` of headers as the
    plain ``dict`` of its items.  urllib3 only copies the headers, adds the pool's
    ``proxy_headers`` and walks the names and items (``HTTPConnection.request``); the
    dict holds the same (name, value) pairs as the ``CaseInsensitiveDict`` yields, in its
    order, one per name as any case of it (requests' dict keeps one per lower-cased
    name).  Only without ``proxy_headers``: adding them to a plain dict would not
    replace a request header of the same name in another case, as urllib3 does on
    requests' dict."""

    def urlopen(self, method: str, url: str, body: Any = None, headers: Any = None,
                *args: Any, **kwargs: Any) -> Any:
        if type(headers) is CaseInsensitiveDict and not self.proxy_headers:  # type: ignore[attr-defined]
            headers = dict(headers._store.values())
        return super().urlopen(method, url, body, headers, *args, **kwargs)  # type: ignore[misc]


def _readable_now(sock: Any) -> bool:
    poller = _POLL()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def _pool_classes(quick: bool, quickack: bool) -> dict[str, type]:
    """urllib3's two pool classes, with connections as the module's text says: the quick
    ones (*quick*), acknowledging at once (*quickack*), or both."""
    key = (quick, quickack)
    if key not in _POOLS:
        import urllib3.connection
        import urllib3.connectionpool

        def is_connected(self: Any) -> bool:
            return self.sock is not None and not _readable_now(self.sock)

        pools = {}
        for scheme, pool in (("http", urllib3.connectionpool.HTTPConnectionPool),
                             ("https", urllib3.connectionpool.HTTPSConnectionPool)):
            base = pool.ConnectionCls
            mixins: tuple[type, ...] = (QuickAck,) if quickack else ()
            body: dict[str, Any] = {"__module__": __name__}
            if quick:
                mixins += (RememberedLines,)
                body.update(is_connected=property(is_connected),
                            response_class=QuickHTTPResponse)
            prefix = ("Quick" if quick else "") + ("Ack" if quickack else "")
            conn = type(prefix + base.__name__, (*mixins, base), body)
            pool_mixins = (PlainHeaders,) if quick else ()
            pools[scheme] = type(prefix + pool.__name__, (*pool_mixins, pool),
                                 {"ConnectionCls": conn, "__module__": __name__})
        _POOLS[key] = pools
    return _POOLS[key]


def use_pools(manager: Any, quick: bool, quickack: bool) -> None:
    """Give *manager* (a urllib3 PoolManager or ProxyManager) the pools of
    :func:`_pool_classes` (urllib3's own again with neither), where it uses urllib3's
    own or this module's (not a SOCKS manager's; the quick ones not on urllib3 1.26,
    which checks differently).  Pools it made already keep their class."""
    import urllib3.connection
    import urllib3.poolmanager
    if _POLL is None or not hasattr(urllib3.connection.HTTPConnection, "is_connected"):
        quick = False
    default = urllib3.poolmanager.pool_classes_by_scheme
    current = getattr(manager, "pool_classes_by_scheme", None)
    if current is default or any(current is pools for pools in _POOLS.values()):
        manager.pool_classes_by_scheme = _pool_classes(quick, quickack) \
            if quick or quickack else default
