"""Requests written in pieces on sockets with Nagle's algorithm on, for a protocol of
the program's own (``socket-writes`` events): the raw-socket side of
``request-body-stall``.

A client that writes a request as a header, then a body (two ``sendall`` calls before
it reads the reply) on a TCP socket without ``TCP_NODELAY`` has its second piece held
by the kernel until the peer acknowledges the first, and the peer, waiting for the
rest of the request, delays that ACK (40 ms on Linux): every request then takes 40 ms
more.  In a switch profile it is a plain wait for the reply, "mostly I/O" (an unseen
job queue's broker client waited 42 ms for every ACK reply, 68 % of its run, and was
told its round trips were a switch storm).  requests does not go this way: urllib3
sets ``TCP_NODELAY`` (its own exception, a proxy's or ``socket_options`` without it,
is ``request-body-stall``'s from the pools).

While a tracer runs, gevent's ``SocketMixin.sendall`` is wrapped (in the traced thread
only): a ``sendall`` that follows another on the same socket with no greenlet switch
between them (the tracer's count: no reply was waited for) is a request in pieces; the
socket's ``TCP_NODELAY`` is read once per socket that does it, and the program's line
that wrote the second piece is tallied, with and without Nagle's algorithm.  Calls from
http.client (requests' headers, then body) and from gevent's pywsgi (a response's head,
then body: ``server-nagle``'s) are not counted here.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from geventperf.bodyreads import call_site
from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded
from geventperf.sections import _tracers, get_ident
from geventperf.serverwatch import without_nodelay

EVENT_KIND = "socket-writes"
SENDALL = "gevent._socketcommon.SocketMixin.sendall"
# The lines counted, at most (a program writes its requests from a few places).
MAX_SITES = 8
# Writes told elsewhere: http.client's (requests', from the pools) and pywsgi's
# responses (serverwatch.py).
_TOLD_ELSEWHERE = ("/http/client.py", "/gevent/pywsgi.py")


class WriteWatch:
    """Counts of requests written in pieces while a tracer ran (see the module text);
    *switches* reads the tracer's count of switches so far."""

    def __init__(self, switches: Callable[[], int]) -> None:
        self.switches = switches
        self.forget()

    def forget(self) -> None:
        """Drop what was recorded so far (Tracer.reset)."""
        # socket fd -> [id of the socket object, the switch count at the end of its last
        # sendall, Nagle on (None: not read yet)]: a closed fd's number reused by another
        # socket is told apart by the object
        self._last: dict[int, list[Any]] = {}
        # the program's line that wrote a second piece -> [pieces, of those with Nagle on]
        self.sites: dict[str, list[int]] = {}
        self._sites_of: dict[tuple[Any, int], str] = {}  # (code, line) -> its site

    def sent(self, sock: Any, caller: Any, began: int) -> None:
        """*sock* finished a ``sendall`` called from frame *caller*, begun at switch
        count *began*."""
        fd = sock.fileno()
        last = self._last.get(fd)
        if last is None or last[0] != id(sock):
            self._last[fd] = [id(sock), self.switches(), None]
            return
        before, last[1] = last[1], self.switches()
        if before != began or caller.f_code.co_filename.replace("\\", "/").endswith(
                _TOLD_ELSEWHERE):
            return
        if last[2] is None:
            last[2] = without_nodelay(sock)
        # (the site's text made once per line: a protocol client writes in pieces on
        # every request)
        key = (caller.f_code, caller.f_lineno)
        site = self._sites_of.get(key)
        if site is None:
            site = self._sites_of[key] = call_site(caller)
        counts = self.sites.get(site)
        if counts is None:
            if len(self.sites) >= MAX_SITES:
                return
            counts = self.sites[site] = [0, 0]
        counts[0] += 1
        counts[1] += last[2]

    def events(self) -> list[dict[str, Any]]:
        if not self.sites:
            return []
        rows = sorted(([site, n, nagle] for site, (n, nagle) in self.sites.items()),
                      key=lambda row: -row[1])
        return [{"kind": EVENT_KIND, "pieces": rows}]


def wrap_socket_writes() -> list[Patch]:
    """Wrap gevent's sendall, now or when gevent's socket module is imported."""
    return wrap_when_loaded([SENDALL], _make)


def _make(dotted: str, original: Any) -> Any:
    if is_ours(original):
        return None  # a tracer in another thread wrapped it already

    def sendall(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracers.get(get_ident()) if _tracers else None
        watch = getattr(tracer, "_write_watch", None)
        if watch is None:
            return original(self, data, *args, **kwargs)
        began = watch.switches()
        result = original(self, data, *args, **kwargs)
        try:
            watch.sent(self, sys._getframe(1), began)
        except Exception as exc:  # noqa: BLE001 - never raised into the program
            tracer._trace_error(exc)
        return result

    return mark_wrapper(sendall, original)
