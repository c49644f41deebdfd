"""Response.elapsed through GeventAdapter means what it means in requests: the time
from sending the request to parsing the headers, not the body read.  (Stronger than
``elapsed > 0`` in test_adapter.py, which only the adapter's owner edits.)"""

from __future__ import annotations

import time

import pytest
import requests

import geventperf
from tests.servers import RawServer

# The server sends the head, waits this long, then the body.  elapsed must end before
# the pause: the margin below is half of it, so a client that is descheduled for up to
# half a second between reading the head and returning still passes.
BODY_PAUSE_S = 1.0
BODY = b"x" * 1000
HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY)
REQUEST_TIMEOUT_S = 10


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mounted", [False, True], ids=["requests-default", "GeventAdapter"])
def test_elapsed_is_time_to_the_headers(mounted, stream):
    session = requests.Session()
    if mounted:
        geventperf.mount(session)
    with RawServer(lambda head: [HEAD, BODY_PAUSE_S, BODY]) as server, session:
        before = time.perf_counter()
        r = session.get(server.url, timeout=REQUEST_TIMEOUT_S, stream=stream)
        assert r.content == BODY
        outside = time.perf_counter() - before
    elapsed = r.elapsed.total_seconds()
    assert outside >= BODY_PAUSE_S  # the body really came after the pause
    # requests times elapsed with the same clock, inside our measurement
    assert 0 < elapsed <= outside
    assert elapsed < outside - BODY_PAUSE_S / 2  # the body's wait is not in it
