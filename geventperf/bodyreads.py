"""Counting how requests' default path reads response bodies, while tracing.

requests reads a non-streamed body as ``b"".join(iter_content(10 KiB))``, and a parser
handed ``response.raw`` calls its ``read()`` a few KiB at a time: every call goes down
through urllib3 and http.client to the socket.  While a Tracer runs (with
``sections="auto"``), urllib3's ``HTTPResponse.read`` is wrapped to count the calls,
bytes and time per call site (the first frame outside requests, urllib3 and
http.client), so the ``small-body-reads`` finding can say how many trips a body took.
urllib3 is not imported for this: wrapped at start() if the program imported it, else
when it does (see geventperf.lazywrap).
Bodies read by GeventAdapter are left out: their socket reads are large whatever
piece size urllib3 hands out.  Like the C sections, only this thread's tracer counts,
and the original method is back after ``stop()``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from geventperf import sections
from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded
from geventperf.sections import _tracers, get_ident

URLLIB3_READ = "urllib3.response.HTTPResponse.read"

# Frames of the libraries between the caller and the socket; the call site is the
# first frame outside them.  The standard library's stream wrappers a program puts over
# response.raw count too (an unseen NDJSON reader's codecs.getreader("utf-8")(resp.raw)
# read 124 bytes at a time, and the finding named "<frozen codecs>:501", not its line).
_LIBRARY_PATHS = ("/urllib3/", "/requests/", "/http/client.py", "<frozen codecs>",
                  "/codecs.py", "/_compression.py", "/gzip.py")
# Our own C-section wrappers stand between a C parser and its caller: skipped too.
_OWN_WRAPPERS = sections.__file__
# Frames walked up to find the call site: requests' .content path is ~5 deep.
_MAX_SITE_DEPTH = 12
# A response's reads come from one consumer (.content, iter_content, a parser on
# .raw): kept on it at its first read, (the tracer's table, the row its reads add to;
# None for GeventAdapter's reader), so that each later read costs a few attribute
# reads, not a table lookup and two method calls (iter_content(64) on loopback, medians
# of 9-11 alternating rounds: 1.49 us added per read before, 1.20 us now, against about
# 3 us a read takes through urllib3; a Tracer without the wrapper adds 0.03 us).
_ROW = "_geventperf_read_row"


def _adapter_read(response: Any) -> bool:
    """True when GeventAdapter put its large reader under this response (checked by a
    marker, not by import: importing the adapter would import requests)."""
    sock_file = getattr(getattr(response, "_fp", None), "fp", None)
    return getattr(getattr(sock_file, "raw", None), "geventperf_large_reads", False)


def call_site(frame: Any) -> str:
    """``path:line:function`` of the first frame outside the HTTP libraries (and our
    section wrappers: ``lxml.etree.parse(response.raw)`` is called from the user's
    line, through the wrapper, into C, which calls ``read``)."""
    for _ in range(_MAX_SITE_DEPTH):
        if frame is None:
            break
        path = frame.f_code.co_filename.replace("\\", "/")
        if frame.f_code.co_filename != _OWN_WRAPPERS and \
                not any(lib in path for lib in _LIBRARY_PATHS):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "<unknown>"


def wrap_body_reads() -> list[Patch]:
    """Wrap urllib3's HTTPResponse.read, now or when urllib3 is imported; nothing
    when urllib3 is never imported."""
    return wrap_when_loaded([URLLIB3_READ], _make_read)


def _make_read(dotted: str, original: Any) -> Any:
    if is_ours(original):
        return None  # a tracer in another thread wrapped it already

    def read(self: Any, *args: Any, **kwargs: Any) -> bytes:
        tracer = _tracers.get(get_ident()) if _tracers else None
        if tracer is None:
            return original(self, *args, **kwargs)
        # the call site and the adapter check, once per response: a body read 1 KiB at a
        # time walked the frames a million times, doubling the run it measured
        kept = getattr(self, _ROW, None)
        first = False  # the body's first read: only a response's first read can be
        if kept is None or kept[0] is not tracer._body_reads:  # (or a tracer reset since)
            row = None if _adapter_read(self) else \
                tracer._body_read_row(call_site(sys._getframe(1)))
            kept = (tracer._body_reads, row)
            try:
                setattr(self, _ROW, kept)
            except (AttributeError, TypeError):  # a response class without a __dict__
                pass
            first = getattr(self, "_fp_bytes_read", 1) == 0
        row = kept[1]
        if row is None:  # GeventAdapter's reader: its socket reads are large
            return original(self, *args, **kwargs)
        # the running greenlet's record: its wait grows by what the read was switched out
        rec = tracer._st.cur
        waited = rec.wait if rec is not None else 0.0
        started = time.perf_counter()
        data = original(self, *args, **kwargs)
        seconds = time.perf_counter() - started
        if rec is not None:
            waited = rec.wait - waited
        row[0] += 1
        row[1] += len(data)
        row[2] += first
        row[3] += seconds
        row[4] += max(0.0, seconds - waited) if rec is not None else seconds
        return data

    return mark_wrapper(read, original)
