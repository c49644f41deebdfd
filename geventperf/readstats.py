"""Where the adapter's read counters meet whoever wants them (a running Tracer).

The adapter publishes one record per body it reads; nothing is built or called when
nobody listens, so the counters cost one truth test of a list per body when unused.
This module imports nothing of the profiler: the adapter stays usable on its own.

A record is a plain dict::

    {"host": "example.org:443", "bytes": 33554432, "reads": 70, "reads_waited": 12,
     "wall_s": 0.031, "chunk_size": 524288, "framing": "content-length"}

``reads_waited`` counts reads that found the socket empty and had to wait for data
(None when the socket type does not let us tell); ``framing`` is "content-length",
"chunked" or "close".
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
