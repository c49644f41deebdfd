"""A greenlet held up writing to a reader slower than it (``write-blocked``).

A socket's ``sendall`` waits in the hub when the kernel's send buffer is full: the
peer reads slower than this side writes.  For a connection's own greenlet that is flow
control doing its job.  For one greenlet that writes to many peers in turn -- a relay
broadcasting each message to its subscribers, a fan-out loop -- it is head-of-line
blocking: while it waits for the slowest reader it writes to nobody, every other peer
waits with it, and whatever feeds the writer backs up behind it.  An unseen pub/sub
relay's publisher handler spent 94 % of a 5.3 s run blocked in ``sendall`` inside its
loop over the subscribers (1 % of messages made a subscriber pause 30-120 ms); the
report blamed the subscribers' reads as "too few workers", and a queue and writer
greenlet per subscriber took 42 % off the run.

Told from the timeline: the slices that ended in a wait in gevent's socket send, made
right from the program's line (not requests' or a WSGI server's writing), nearly all
by one greenlet, again and again (not one large upload), for a large share of the run
while the loop sat mostly idle (a loop busy with CPU makes in-process readers slow
for another reason, which the loop's findings tell).  Which peers it wrote to is not
recorded, so the message says what to do when it writes to several, and that one
peer's pace is its reader's.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from geventperf.findings.common import WRITE_BLOCKED, _finding
from geventperf.findings.critical import ALONE_FIRST_SHARE
from geventperf.findings.limits import event_wait, idle_share, idle_told
from geventperf.frames import is_machinery, socket_write_depth
from geventperf.profile import Finding, Profile, greenlet_label

# One greenlet made at least this share of the timeline's blocked sends at a line: a
# writer of its own, not many connections each streaming to its client (their waits
# are each connection's own flow control).
ONE_WRITER_SHARE = 0.9
# ... blocked at least this many times: a send buffer that fills again and again, not
# one large payload that takes its time.
MIN_BLOCKED_SENDS = 10
# ... for at least this share of the run: the writer's waiting is what the run is made
# of, not an occasional full buffer.
WRITE_BLOCKED_SHARE = 0.25


def write_blocked(profile: Profile) -> list[Finding]:
    """A greenlet that spent a large share of the run blocked sending to a slow reader
    from one line of the program's.  ``cost_s``: the seconds that greenlet waited in
    those sends (one greenlet, so wall seconds too)."""
    duration = profile.duration_s
    idle = idle_share(profile)
    if idle is None or not duration > 0:
        return []
    sends = {i: depth for i, w in enumerate(profile.waits)
             if (depth := socket_write_depth(w.stack)) is not None}
    if not sends:
        return []
    by_row: dict[int, Counter[int]] = defaultdict(Counter)
    for s in profile.slices:
        if s.wait in sends:
            by_row[s.wait][s.greenlet] += 1
    # (greenlet, the program's line) -> [seconds waited, waits, the row it waited most at]
    lines: dict[tuple[int, str], list] = {}
    for i, writers in by_row.items():
        gid, made = writers.most_common(1)[0]
        share = made / sum(writers.values())
        if share < ONE_WRITER_SHARE:
            continue
        row = profile.waits[i]
        line = lines.setdefault((gid, row.stack[sends[i]]), [0.0, 0, i])
        line[0] += event_wait(row) * share
        line[1] += round(row.count * share)
        if event_wait(row) > event_wait(profile.waits[line[2]]):
            line[2] = i
    found = []
    for (gid, site), (waited, count, i) in lines.items():
        if count < MIN_BLOCKED_SENDS or waited < WRITE_BLOCKED_SHARE * duration:
            continue
        row, depth = profile.waits[i], sends[i]
        caller = row.stack[depth + 1] if depth + 1 < len(row.stack) else None
        g = profile.greenlet(gid)
        found.append(_finding(
            WRITE_BLOCKED,
            f"A writer held up by a slow reader: {greenlet_label(g.name if g else None, gid)} "
            f"spent {waited:.3f} s of the {duration:.3f} s run ({waited / duration:.0%}) "
            f"blocked sending at {site}"
            + (f", called from {caller}" if caller and not is_machinery(caller) else "")
            + f", {count} times, while the loop sat {idle_told(profile, idle)}: the "
            "socket's send buffer was full because the peer read slower than this "
            "greenlet wrote. Waiting for that one reader it wrote to nobody else: if it "
            "writes to several peers in turn (a broadcast, a fan-out loop, a relay), "
            "every other peer waited for the slowest one, and whatever feeds this "
            "greenlet backed up behind it. Fix: give each peer its own bounded queue "
            "(gevent.queue.Queue(maxsize=...)) and a greenlet that writes from it, so a "
            "slow reader holds up only its own queue, and decide what a full queue means "
            "(drop that peer's oldest messages, or disconnect it); or send with a timeout "
            "and drop or disconnect a peer that stays full. If it writes to one peer "
            "only, that peer sets the pace: see why it reads slowly.",
            waited, row.stack, greenlet=gid, site=site, waits=count,
            blocked_share=waited / duration, ranks_first=waited >= ALONE_FIRST_SHARE * duration))
    return found
