"""write-blocked: one greenlet held up in socket sends by a reader slower than it.

The end-to-end cases (a relay writing to its subscribers in turn, and the fix, a writer
per subscriber) run ``tests/diagnosis/fanout_relay.py`` in ``tests/test_diagnosis.py``.
Here each of the rule's conditions is moved past its edge on a profile built by hand,
and the finding must go.
"""

from __future__ import annotations

import pytest

from geventperf.findings import writes
from geventperf.findings.critical import ALONE_FIRST_SHARE
from geventperf.findings.writes import (
    MIN_BLOCKED_SENDS,
    ONE_WRITER_SHARE,
    WRITE_BLOCKED_SHARE,
    write_blocked,
)
from geventperf.profile import GreenletStats, Profile, Slice, StackTime

GEVENT = "/v/site-packages/gevent/_socketcommon.py"
SENDALL = [f"{GEVENT}:721:SocketMixin.send", f"{GEVENT}:311:__send_chunk",
           f"{GEVENT}:382:_sendall", f"{GEVENT}:693:SocketMixin.sendall",
           "relay.py:39:deliver", "relay.py:76:handle"]
DURATION_S = 2.0
# slices per wait in the timeline: the rule reads who made the waits from them
SLICES = 20


def relay(waited: float = 1.0, count: int = 20, others: int = 0, idle_s: float = 1.8,
          stack: list[str] = SENDALL) -> Profile:
    """A run whose greenlet #3 waited *waited* seconds in *count* blocked sends at
    relay.py:39; the timeline holds SLICES of its slices ending there, and *others* of
    greenlet #4's."""
    slices = [Slice(greenlet=3, start_s=i * 0.05, duration_s=0.001, wait=0)
              for i in range(SLICES)]
    slices += [Slice(greenlet=4, start_s=i * 0.05 + 0.01, duration_s=0.001, wait=0)
               for i in range(others)]
    return Profile(
        duration_s=DURATION_S,
        greenlets=[GreenletStats(id=1, name="main", parent=None),
                   GreenletStats(id=2, name="hub", parent=1),
                   GreenletStats(id=3, name="relay.handle", parent=1),
                   GreenletStats(id=4, name="relay.handle", parent=1)],
        hub={"id": 2, "idle_s": idle_s},
        waits=[StackTime(stack=list(stack), count=count, wait_s=waited,
                         event_wait_s=waited)],
        slices=slices)


def test_a_greenlet_blocked_sending_again_and_again_is_told():
    [found] = write_blocked(relay())
    assert found.greenlet == 3 and found.cost_s == pytest.approx(1.0)
    assert found.extra["site"] == "relay.py:39:deliver"
    assert "called from relay.py:76:handle, 20 times" in found.message, found.message
    assert "its own bounded queue" in found.message, found.message
    assert found.extra["ranks_first"]


def test_it_ranks_first_from_a_quarter_of_the_run(monkeypatch):
    """Told from a smaller share (the constant moved below the quarter), it keeps its
    cost's place: only a quarter of the run's wall clock puts it at the front."""
    monkeypatch.setattr(writes, "WRITE_BLOCKED_SHARE", ALONE_FIRST_SHARE / 2)
    [at] = write_blocked(relay(waited=ALONE_FIRST_SHARE * DURATION_S))
    [under] = write_blocked(relay(waited=ALONE_FIRST_SHARE * DURATION_S * 0.99))
    assert at.extra["ranks_first"] and not under.extra["ranks_first"]


@pytest.mark.parametrize("change", [
    dict(waited=WRITE_BLOCKED_SHARE * DURATION_S * 0.99),  # an occasional full buffer
    dict(count=MIN_BLOCKED_SENDS - 1),  # one large payload taking its time
    dict(idle_s=0.5),  # a busy loop: in-process readers slow for another reason
    # many writers at the line: each connection streaming to its own client
    dict(others=int(SLICES * (1 - ONE_WRITER_SHARE) / ONE_WRITER_SHARE) + 1),
    # requests sending a body: an upload, told by the HTTP findings
    dict(stack=SENDALL[:4] + ["/v/site-packages/urllib3/connection.py:400:send",
                              "app.py:9:upload"]),
    # a wait that is no send (a read of the socket)
    dict(stack=[f"{GEVENT}:687:SocketMixin.recv_into", "relay.py:39:deliver"]),
], ids=["short", "few-sends", "busy-loop", "many-writers", "through-urllib3", "a-read"])
def test_it_is_not_told(change):
    assert write_blocked(relay(**change)) == []


def test_a_writer_at_its_edge_of_the_line_s_sends_is_still_told():
    others = int(SLICES * (1 - ONE_WRITER_SHARE) / ONE_WRITER_SHARE)
    [found] = write_blocked(relay(others=others))
    share = SLICES / (SLICES + others)
    assert found.cost_s == pytest.approx(1.0 * share)
