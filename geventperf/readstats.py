"""Where the adapter's read counters meet whoever wants them (a running Tracer).

The adapter publishes one record per body it reads; nothing is built or called when
nobody listens, so the counters cost one truth test of a list per body when unused.
This module imports nothing of the profiler: the adapter stays usable on its own.

A record is a plain dict::

    {"host": "example.org:443", "bytes": 33554432, "reads": 70, "largest_read": 524288,
     "reads_waited": 12, "wall_s": 0.031, "chunk_size": 524288,
     "framing": "content-length"}

``bytes`` counts body bytes off the wire (before decoding); ``reads`` counts socket
reads and ``largest_read`` is the largest (None where the adapter could not put its
reader in place); ``reads_waited`` counts reads that found the socket empty and waited
on the gevent hub (None for sockets that wait in the kernel, where we cannot tell);
``wall_s`` is time spent inside reads; ``framing`` is "content-length", "chunked" or
"close".
"""

from __future__ import annotations

from typing import Any, Callable

ReadRecord = dict[str, Any]
ReadSink = Callable[[ReadRecord], None]

# Read by the adapter after every body; a list so the common case is one truth test.
sinks: list[ReadSink] = []


def add_sink(sink: ReadSink) -> None:
    sinks.append(sink)


def remove_sink(sink: ReadSink) -> None:
    try:
        sinks.remove(sink)
    except ValueError:
        pass


def publish(record: ReadRecord) -> None:
    """Hand *record* to every sink; a failing sink never breaks the HTTP call."""
    for sink in list(sinks):
        try:
            sink(record)
        except Exception:  # a profiler bug must not fail the request it observes
            pass
