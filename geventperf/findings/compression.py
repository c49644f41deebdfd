"""Response bodies that crossed the wire uncompressed (``uncompressed-bodies``).

Text (CSV, JSON, XML) shrinks several times under gzip, and requests offers gzip and
decodes it by default.  A client that asks for bodies as they are (``Accept-Encoding:
identity``, often set so that a reader of ``response.raw`` does not see gzip bytes), or
an upstream that does not compress, sends every byte of them over the link.  When the
link is slow (another region, a busy network), the program then waits for bodies to
arrive, not for answers to begin; the other tables show those waits as reads at the
line that consumes the body, and pool-full as the slots they held (an unseen metrics
roll-up streamed CSV exports with ``identity`` over a ~1 MiB/s link: 12 s of waiting
in its body reads against 0.4 s for the answers' heads, told as a full Pool; gzip made
the run 4x faster).

From the waits (where the greenlets waited: reading bodies, or waiting for heads) and
the pool watch (``urllib3-pool`` events' ``bodies``, ``plain_types``, ``plain_asked``
and ``plain_sites``): fires when body reads took most of the HTTP waiting, compressible
bodies sent as they are were a large part of the bytes, and they were large enough for
their transfer to take time of its own.
"""

from __future__ import annotations

from typing import NamedTuple

from geventperf.findings.common import (
    UNCOMPRESSED_BODIES,
    _count,
    _events,
    _figures,
    _finding,
    block_threshold,
)
from geventperf.frames import user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import Finding, Profile, StackTime

# Body reads must have taken at least this share of the time spent waiting on HTTP
# answers (their heads and their bodies): a program waiting mostly for answers to
# begin waits on its upstream's latency, which compression does not shorten.
BODY_WAIT_SHARE = 0.5
# Plain bodies smaller than this on average arrive in a few round trips whatever
# their coding: waiting on them is the upstream generating them, not their size.
PLAIN_BODY_MIN = 64 * 1024
# The cost must be at least this share of the run (as small-body-reads: a healthy
# program's few plain bodies are not its story).
RUN_SHARE = 0.05
# Frames of a wait for a response's head (http.client's status line and headers, the
# fast path's head reader) and of a wait inside a body read (urllib3's response,
# http.client's other response methods, GeventAdapter's reader).
_HEAD_FUNCTIONS = ("HTTPResponse.begin", "HTTPResponse._read_status", "parse_headers",
                   "_read_headers")
_HEAD_FILES = ("/geventperf/responsehead.py",)
_BODY_FILES = ("/urllib3/response.py", "/geventperf/bodyreader.py")
# A read a C parser made (through a C section's wrapper) is blocked-read-in-c-section's
# story: the parser reading the network is the cause there (the demo's naive run: its
# parsers waited in body reads while holding lxml's lock), not the bytes.
_C_SECTION_FILES = ("/geventperf/sections.py",)


def _waiting_for(stack: list[str]) -> str | None:
    """"head" or "body" for a wait at *stack* (innermost frame first), else None (a
    wait of neither, or a read made from inside a C section)."""
    if any(f in entry for entry in stack for f in _C_SECTION_FILES):
        return None
    for entry in stack:
        path, _, function = entry.replace("\\", "/").rpartition(":")
        if any(f in path for f in _HEAD_FILES):
            return "head"
        if any(f in path for f in _BODY_FILES):
            return "body"
        if "/http/client.py" in path and function in _HEAD_FUNCTIONS:
            return "head"
        if "/http/client.py" in path and function.startswith("HTTPResponse."):
            return "body"
    return None


class HttpWaits(NamedTuple):
    """Greenlet-seconds of event wait (the awaited bytes had not come; queueing for the
    loop left out) for responses' heads and inside their body reads, and the stacks
    that waited longest at each (None when none did)."""

    head_s: float
    body_s: float
    top_body: StackTime | None
    top_head: StackTime | None


def http_waits(profile: Profile) -> HttpWaits:
    """The run's waits for responses' heads and bodies (HttpWaits)."""
    waited = {"head": 0.0, "body": 0.0}
    longest: dict[str, tuple[float, StackTime | None]] = {"head": (0.0, None),
                                                          "body": (0.0, None)}
    for w in profile.waits:
        what = _waiting_for(w.stack)
        if what is not None:
            seconds = w.event_wait_s if w.event_wait_s is not None else w.wait_s
            waited[what] += seconds
            if seconds > longest[what][0]:
                longest[what] = (seconds, w)
    return HttpWaits(waited["head"], waited["body"], longest["body"][1],
                     longest["head"][1])


def uncompressed_bodies(profile: Profile) -> list[Finding]:
    """Compressible bodies sent as they are, whose bytes the program waited for (see the
    module's text): one finding over the hosts that sent them.  ``cost_s``: the
    greenlet-seconds of waiting inside body reads, for the plain bodies' share of all
    the bytes read."""
    hosts = []
    total_bytes = 0.0
    for e in _events(profile, POOL_EVENT):
        bodies = _figures(e.get("bodies"), 5)
        if bodies is None or not isinstance(e.get("pool"), str):
            continue
        total_bytes += bodies[1]
        if bodies[2] > 0 and bodies[3] >= PLAIN_BODY_MIN * bodies[2]:
            hosts.append((e, bodies))
    plain_bytes = sum(b[3] for _e, b in hosts)
    if not hosts or total_bytes <= 0:
        return []
    head_wait, body_wait, top, _head = http_waits(profile)
    if top is None or body_wait < BODY_WAIT_SHARE * (head_wait + body_wait):
        return []
    cost = body_wait * plain_bytes / total_bytes
    if cost < block_threshold(profile) or cost < RUN_SHARE * profile.duration_s:
        return []
    hosts.sort(key=lambda h: -h[1][3])
    worst, bodies = hosts[0]
    responses, size, seconds = max(1, int(bodies[2])), bodies[3], bodies[4]
    types = ", ".join(t for t, _n in count_rows(worst.get("plain_types"))[:3]) or "text"
    asked = _count(worst, "plain_asked")
    sites = count_rows(worst.get("plain_sites"))
    others = "".join(f"; {e['pool']}: {int(b[2])}, {_mb(b[3])} MB" for e, b in hosts[1:])
    rate = f", arriving at {_mb(size / seconds)} MB/s each" if seconds > 0 else ""
    reader = user_site(top.stack)
    reading = f" (most at {reader.user}" + (
        f", in {_function(reader.library)})" if reader.library else ")") if reader.user else ""
    message = (
        f"Response bodies crossed the wire uncompressed: {responses} of the "
        f"{_count(worst, 'calls')} responses from {worst['pool']} were {types} without a "
        f"content coding, {_mb(size)} MB in all ({_mb(size / responses)} MB each{rate})"
        f"{others}, and the program waited {body_wait:.3f} s inside body reads{reading} "
        f"against {head_wait:.3f} s for the answers to begin: the bytes, not the "
        "upstream's latency, took the time. ")
    if asked >= responses / 2:
        where = ", ".join(f"{line} ({n})" for line, n in sites[:2])
        message += (
            f"The requests asked for them that way: {asked} offered no compression "
            f"(Accept-Encoding: identity, or no Accept-Encoding)"
            + (f", sent at {where}" if where else "")
            + ". Fix: let the upstream compress them: drop the Accept-Encoding: identity "
            "header (requests offers gzip and deflate by default, and decodes them for "
            ".content, .text, .json(), iter_content() and iter_lines()); code that reads "
            "response.raw itself sets response.raw.decode_content = True first.")
    else:
        message += (
            "The requests offered gzip, but the upstream sent them as they are. Fix: turn "
            "on compression at the upstream for these types (its web server's or "
            "framework's gzip), or ask it for fewer bytes (a filter, only the fields "
            "needed).")
    message += " Text like this typically shrinks 3-10x under gzip."
    return [_finding(UNCOMPRESSED_BODIES, message, cost, top.stack,
                     pools=[e["pool"] for e, _b in hosts], plain_bytes=plain_bytes,
                     bytes=total_bytes, body_wait_s=body_wait, head_wait_s=head_wait,
                     plain_asked=asked, sites=sites, site=reader.user)]


def _function(entry: str) -> str:
    """The function part of ``path:line:function``."""
    return entry.rsplit(":", 1)[-1]


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1e6:.2f}" if nbytes < 1e7 else f"{nbytes / 1e6:.0f}"
