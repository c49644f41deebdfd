"""The request line and header lines of a pooled connection, each built once.

For every request on a kept-alive connection, http.client builds the request line and
the ``Host`` and ``Accept-Encoding`` lines again (``putrequest``: method and path
checks, host encoding) and checks and encodes every header again (``putheader``: a
pattern match of the name and of the value each): tens of microseconds of a small
request on the fast path, for lines that are byte for byte the ones it built for the
previous request.  :class:`RememberedLines`, mixed in before urllib3's connection class,
remembers per connection the lines each call appended to http.client's output buffer,
keyed by everything that call reads, and appends them again.

Only a call that went through http.client once is remembered, and only after it
succeeded; a call it would refuse (a header outside a request, a second request
before the response was read, an invalid name or value) is never answered from memory:
the state checks run before every remembered answer, and anything else takes
http.client's path, which raises as it always did.  This module imports nothing of the
profiler.
"""

from __future__ import annotations

import http.client
from typing import Any

__all__ = ["RememberedLines"]

# Lines remembered per connection and kind: a keep-alive connection to one API
# repeats a handful of paths and headers; one that sees endless distinct paths or
# header values (a crawler, per-request tokens) clears its memory when it is full
# instead of growing it.
_LINES_PER_CONNECTION = 64


def _remember(memory: dict, key: tuple, lines: Any) -> None:
    if len(memory) >= _LINES_PER_CONNECTION:
        memory.clear()
    memory[key] = lines


class RememberedLines:
    """``putrequest`` and ``putheader`` of an ``http.client.HTTPConnection`` subclass
    (urllib3's), their output remembered per connection (see the module's text)."""

    _request_memory: dict | None = None
    _header_memory: dict | None = None

    def putrequest(self, method: str, url: str, skip_host: bool = False,
                   skip_accept_encoding: bool = False) -> None:
        # Everything http.client's putrequest reads to build its lines.
        key = (method, url, skip_host, skip_accept_encoding, self.host, self.port,
               self._tunnel_host, self._tunnel_port, self._http_vsn_str)
        memory = self._request_memory
        if memory is None:
            memory = self._request_memory = {}
        plain = type(method) is str and type(url) is str  # str subclasses are not remembered
        lines = memory.get(key) if plain else None
        if lines is not None and self._HTTPConnection__state == http.client._CS_IDLE:
            # What http.client's putrequest changes besides its output, in its order.
            response = self._HTTPConnection__response
            if response and response.isclosed():
                self._HTTPConnection__response = None
            self._HTTPConnection__state = http.client._CS_REQ_STARTED
            self._method = method
            self._buffer.extend(lines)
            return
        before = len(self._buffer)
        super().putrequest(method, url, skip_host=skip_host,  # type: ignore[misc]
                           skip_accept_encoding=skip_accept_encoding)
        if plain:
            _remember(memory, key, tuple(self._buffer[before:]))

    def putheader(self, header: str, *values: Any) -> None:
        if (len(values) != 1 or type(header) is not str or type(values[0]) is not str
                or self._HTTPConnection__state != http.client._CS_REQ_STARTED):
            super().putheader(header, *values)  # type: ignore[misc]
            return
        key = (header, values[0])
        memory = self._header_memory
        if memory is None:
            memory = self._header_memory = {}
        line = memory.get(key)
        if line is not None:
            self._buffer.append(line)
            return
        before = len(self._buffer)
        super().putheader(header, *values)  # type: ignore[misc]
        if len(self._buffer) == before + 1:  # urllib3's SKIP_HEADER appends nothing
            _remember(memory, key, self._buffer[-1])
