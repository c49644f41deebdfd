"""gevent's WSGI server while tracing: responses its clients wait 40 ms for.

``gevent.pywsgi`` writes a response's head and its first piece of body in two sends
(``WSGIHandler._write_with_headers``) and leaves Nagle's algorithm on (gevent issue
#1233).  On a kept-alive connection the body then waits until the client acknowledges
the head, which a Linux client delays 40 ms: every response after a connection's
first.  The wait is in the clients, so this process's own timings cannot show it.

:class:`ServerWatch` wraps ``WSGIHandler._write_with_headers`` while tracing (now if
``gevent.pywsgi`` is imported, else when it is; see :mod:`geventperf.lazywrap`) and
counts the responses written that way, those on a connection's later requests, and
whether the connection's socket had ``TCP_NODELAY`` (read once per connection), and
notes the size of the pool the server runs its connections in (``spawn=N``) and how
many connections took its last free slot, which ``server-pool-full`` reads.  Only
calls in the thread of an active tracer are recorded; the original is back after
``stop()``.  ``server_nagle`` in :mod:`geventperf.findings.delayedack` turns the counts
into a finding.
"""

from __future__ import annotations

import socket
from typing import Any

from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded
from geventperf.poolwatch import TIMED_BODY_MAX
from geventperf.sections import _tracers, get_ident

EVENT_KIND = "pywsgi-responses"
WRITE_WITH_HEADERS = "gevent.pywsgi.WSGIHandler._write_with_headers"
# The attribute a handler (one per connection) carries: [the watch's token, responses
# written on this connection so far, whether its socket lacks TCP_NODELAY, the port its
# server listens on (None: none)].
_SEEN = "_geventperf_served"


class ServerWatch:
    """Counts of pywsgi's responses while a tracer ran (see the module docstring)."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Drop what was recorded so far (Tracer.reset): connections seen before count
        from their next response as new ones."""
        self._token = object()
        self.served = 0  # responses written, empty bodies too
        self.responses = 0  # written head first, then a piece of body
        self.kept = 0  # of those, on a connection's later requests, the body small
        self.nagle = 0  # of those, on a socket without TCP_NODELAY
        # those per server port (so that this process's own clients of a port, whose
        # pools time each body after its head, can say whether they waited)
        self.nagle_by_port: dict[int, int] = {}
        self.connections = 0  # connections seen writing a response
        self._servers: set[int] = set()  # ids of the servers they came to
        # the ports those servers listen on (the program's own clients of them are
        # found by their pools' hosts)
        self._ports: set[int] = set()
        # connections that took the last free slot of their server's spawn pool
        self.pool_filled = 0
        # the largest spawn pool a server ran its connections in (WSGIServer(spawn=N)),
        # None for a greenlet per connection without a bound
        self.pool_size: int | None = None

    def wrote(self, handler: Any, data: Any) -> None:
        """*handler* writes its response's head, then *data*, the first piece of body."""
        self.served += 1
        seen = getattr(handler, _SEEN, None)
        if not isinstance(seen, list) or seen[0] is not self._token:
            seen = [self._token, 0, without_nodelay(getattr(handler, "socket", None)),
                    _port(getattr(handler, "server", None))]
            setattr(handler, _SEEN, seen)
            self._new_connection(handler)
        if not data:
            return  # the head alone (a 204, an empty body): nothing waits behind it
        seen[1] += 1
        self.responses += 1
        if seen[1] > 1 and len(data) <= TIMED_BODY_MAX:
            self.kept += 1
            self.nagle += seen[2]
            if seen[2] and seen[3] is not None:
                self.nagle_by_port[seen[3]] = self.nagle_by_port.get(seen[3], 0) + 1

    def _new_connection(self, handler: Any) -> None:
        """A connection's first response: its server, and its pool's size and fill (the
        connection holds one of its slots now, so a pool full now was full for it)."""
        self.connections += 1
        server = getattr(handler, "server", None)
        self._servers.add(id(server))
        port = _port(server)
        if port is not None:
            self._ports.add(port)
        pool = getattr(server, "pool", None)
        size = getattr(pool, "size", None)
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            return  # no pool, or an unbounded one
        self.pool_size = size if self.pool_size is None else max(self.pool_size, size)
        try:
            self.pool_filled += bool(pool.full())
        except Exception:  # noqa: BLE001 - a pool of another kind: not known full
            pass

    def events(self) -> list[dict[str, Any]]:
        if not self.served:
            return []
        event = {"kind": EVENT_KIND, "served": self.served, "responses": self.responses,
                 "kept": self.kept, "nagle": self.nagle, "connections": self.connections}
        if self.nagle_by_port:
            event["nagle_ports"] = {str(port): n for port, n in self.nagle_by_port.items()}
        if self.pool_size is not None:
            event.update(pool_size=self.pool_size, pool_filled=self.pool_filled)
        event["servers"] = len(self._servers)
        if self._ports:
            event["ports"] = sorted(self._ports)
        return [event]


def _port(server: Any) -> int | None:
    """The port a server listens on (None when it has none: a Unix socket)."""
    port = getattr(server, "server_port", None)
    return port if isinstance(port, int) and not isinstance(port, bool) else None


def without_nodelay(sock: Any) -> bool:
    """Whether *sock* (gevent's socket) sends with Nagle's algorithm on; False when that
    cannot be read (not a TCP socket, closed)."""
    try:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
    except (OSError, AttributeError, TypeError):
        return False


def wrap_server_writes() -> list[Patch]:
    """Wrap pywsgi's head-and-body write, now or when gevent.pywsgi is imported."""
    return wrap_when_loaded([WRITE_WITH_HEADERS], _make)


def _make(dotted: str, original: Any) -> Any:
    if is_ours(original):
        return None  # a tracer in another thread wrapped it already

    def write_with_headers(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        watch = getattr(tracer, "_server_watch", None)
        if watch is not None:
            try:
                watch.wrote(self, data)
            except Exception as exc:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(exc)
        return original(self, data, *args, **kwargs)

    return mark_wrapper(write_with_headers, original)
