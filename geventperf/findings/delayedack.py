"""Bodies held by a delayed ACK on reused connections (``delayed-ack-stall``), request
bodies held by Nagle's algorithm on this side (``request-body-stall``), and this
process's own gevent WSGI server holding its clients' bodies so (``server-nagle``).

An upstream that writes a response's head and body in separate TCP segments, with
Nagle's algorithm on (no ``TCP_NODELAY`` on its sockets), sends the body only once the
head is acknowledged.  On a kept-alive connection this side delays that ACK (40 ms on
Linux), so every request after a connection's first waits about 40 ms for its body,
while new connections do not wait (the kernel acknowledges at once at a connection's
start).  gevent's own ``pywsgi.WSGIServer`` writes that way (gevent issue #1233: it leaves
Nagle on), and so do Python's ``http.server``, older aiohttp and many small servers.
In a switch profile it is a plain wait in the body read, "mostly I/O", and a Session
made per call is faster than a shared one: the opposite of the usual advice.

:mod:`geventperf.poolwatch` times each body after its head, apart for new and reused
connections.  The finding needs both: most reused connections' bodies in the stall
window, new connections' bodies not, so an upstream that is merely slow to send its
body (slow on every connection) is not taken for one.

The same wait runs the other way when this side's connections have Nagle's algorithm
on: urllib3 sends a request's headers, then its body, and the kernel holds the body
until the server acknowledges the headers, which the server delays.  urllib3 sets
``TCP_NODELAY`` by default, but ``socket_options`` given to an adapter replace that
default (a common way to turn on keep-alive probes), and towards a proxy urllib3
leaves it off.  The pools record whether their connections set it, and how long the
requests that sent a body waited for their answer, on new and reused connections.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from geventperf.findings.common import (
    DELAYED_ACK_STALL,
    REQUEST_BODY_STALL,
    SERVER_NAGLE,
    _count,
    _events,
    _figures,
    _finding,
    block_threshold,
)
from geventperf.findings.limits import Waiters, event_wait, waiters
from geventperf.frames import parse_frame, socket_read_depth, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import STALL_MAX_S, STALL_MIN_S
from geventperf.profile import Finding, Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT
from geventperf.writewatch import EVENT_KIND as WRITE_EVENT

# Stalls on reused connections before it is a pattern, not a few slow bodies.
MIN_STALLS = 10
# Share of the reused connections' bodies that stalled: at most every other one, or it
# is not what most requests pay.
STALL_SHARE = 0.5
# New connections' bodies seen, and the share of them that may stall, for the contrast
# that tells an ACK from a slow upstream (which is slow on new connections too).
MIN_NEW = 3
NEW_STALL_SHARE = 0.25
# Share of the reused connections' request time (to the head, then the body) the stalls
# took: under a tenth, the ACK is not what makes those requests slow (an upstream that
# queues them, one at a time, say), and the fix would not show.
MIN_TIME_SHARE = 0.1
# A Linux client's shortest delayed ACK (TCP_DELACK_MIN): what each response held back
# by this process's server costs its client, at least.
CLIENT_DELAYED_ACK_S = 0.04
# Hosts written out in a message (all are in the finding's extra).
MAX_HOSTS_SHOWN = 3
# Frames reading a response's body, urllib3's or GeventAdapter's (which reads a
# Content-Length body from the socket itself): where the stalled greenlets waited.
BODY_READ_FRAME = re.compile(r"([/\\]urllib3[/\\]response\.py:\d+:HTTPResponse\."
                             r"(read|_raw_read|_fp_read|read_chunked|stream)|"
                             r"[/\\]geventperf[/\\]bodyreader\.py:\d+:"
                             r"(read_content|_read_exact|_read_pieces|_read_like_requests))$")
# Frame of urllib3 waiting for a response's head: where held request bodies wait.
ANSWER_WAIT_FRAME = re.compile(r"[/\\]urllib3[/\\]connection\.py:\d+:"
                               r"HTTPConnection\.getresponse$")


def _kind(event: dict[str, Any], table: str, kind: str, size: int) -> list[float] | None:
    """The *size* figures of connection *kind* ("new", "reused") in *table* of a pool
    event; None when they are not all there and sound (profiles are untrusted)."""
    kinds = event.get(table)
    return _figures(kinds.get(kind), size) if isinstance(kinds, dict) else None


def trail(event: dict[str, Any], kind: str) -> tuple[int, int, float, float, float] | None:
    """(responses, stalled, seconds, seconds stalled, seconds to the heads) of one
    connection kind; None when they are not there or do not hang together."""
    counts = _kind(event, "trails", kind, 5)
    if counts is None or counts[1] > counts[0]:
        return None
    return int(counts[0]), int(counts[1]), counts[2], counts[3], counts[4]


def _stalled_host(event: dict[str, Any]) -> dict[str, Any] | None:
    """What one host's connections show, when its reused connections stall and its new
    ones do not: the host, the counts, and the time the stalls cost (each stall less
    what a new connection's body took after its head, on average)."""
    reused, new = trail(event, "reused"), trail(event, "new")
    if reused is None or new is None or not isinstance(event.get("pool"), str):
        return None
    n, stalled, seconds, stalled_s, head_s = reused
    new_n, new_stalled, new_s, _new_stalled_s, _new_head_s = new
    if stalled < MIN_STALLS or stalled < STALL_SHARE * n \
            or stalled_s < MIN_TIME_SHARE * (head_s + seconds):
        return None
    if new_n < MIN_NEW or new_stalled > NEW_STALL_SHARE * new_n:
        return None
    # what a stall costs: its wait less a new connection's usual body time after its
    # head, taken as at most STALL_MIN_S (a later one is a stall or a slow body, which
    # the rule above allows a quarter of the new connections)
    lost = stalled_s - stalled * min(new_s / new_n, STALL_MIN_S)
    if not lost > 0:  # NaN-safe: no later than new connections' bodies, no stall
        return None
    return {"pool": event["pool"], "reused": n, "stalled": stalled, "new": new_n,
            "stall_ms": stalled_s / stalled * 1e3, "new_ms": new_s / new_n * 1e3,
            "request_ms": (head_s + seconds) / n * 1e3, "lost_s": lost}


def _hosts(profile: Profile, judge: Callable[[dict[str, Any]], dict[str, Any] | None],
           frame: re.Pattern[str]) -> tuple[list[dict[str, Any]], float, Waiters | None] | None:
    """The pool events *judge* finds something in (what it found, costliest first), the
    time they lost in all, and the waits under *frame* that place the finding; None
    unless that time reaches the block threshold."""
    hosts = sorted(filter(None, (judge(e) for e in _events(profile, POOL_EVENT))),
                   key=lambda h: -h["lost_s"])
    lost = sum(h["lost_s"] for h in hosts)
    if not hosts or not lost >= block_threshold(profile):  # NaN-safe
        return None
    rows = [w for w in profile.waits if any(frame.search(f) for f in w.stack)]
    return hosts, lost, waiters(profile, rows) if rows else None


def _hosts_finding(kind: str, message: str, lost: float, hosts: list[dict[str, Any]],
                   seen: Waiters | None, **extra: Any) -> Finding:
    return _finding(kind, message, lost, list(seen.worst.stack) if seen else [],
                    greenlet=seen.greenlet if seen else None, hosts=hosts, **extra,
                    site=seen.where if seen else None)


def delayed_ack_stall(profile: Profile) -> list[Finding]:
    """Reused connections whose bodies waited for this side's delayed ACK, adding up to a
    block threshold: one finding for all hosts.  ``cost_s``: the greenlet-seconds those
    bodies came later than new connections' bodies did."""
    found = _hosts(profile, _stalled_host, BODY_READ_FRAME)
    if found is None:
        return []
    hosts, lost, seen = found
    shown = "; ".join(
        f"on {h['pool']}, {h['stalled']} of {h['reused']} bodies on reused connections came "
        f"{h['stall_ms']:.0f} ms after their head on average, against "
        f"{h['new_ms']:.1f} ms on {h['new']} new connections (a request on a reused one "
        f"took {h['request_ms']:.0f} ms on average, head and body)"
        for h in hosts[:MAX_HOSTS_SHOWN])
    where = f", at {seen.where}" if seen else ""
    message = (
        f"Delayed-ACK stall: {shown}. {lost:.3f} greenlet-seconds were spent "
        f"waiting for those bodies{where}. The upstream writes each response's head and "
        f"body in separate TCP segments with Nagle's algorithm on, so it sends the body "
        f"only once the head is acknowledged, and this side delays that ACK (40 ms on "
        f"Linux) on a kept-alive connection; a new connection is acknowledged at once, "
        f"which is why a Session made per call looks faster. Fix it at the upstream: "
        f"TCP_NODELAY on its sockets, or the head and body written in one send (gevent's "
        f"own pywsgi.WSGIServer writes them apart and leaves Nagle on: give it a "
        f"listening socket with TCP_NODELAY set, which the accepted ones inherit). From "
        f"this side, geventperf.mount(session, quickack=True) acknowledges at once "
        f"(TCP_QUICKACK after each request is sent, Linux).")
    return [_hosts_finding(DELAYED_ACK_STALL, message, lost, hosts, seen,
                           stall_window_s=[STALL_MIN_S, STALL_MAX_S])]


def _sends(event: dict[str, Any], kind: str) -> tuple[int, float] | None:
    """(requests that sent a body, seconds to their heads) of one connection kind."""
    counts = _kind(event, "sends", kind, 2)
    return None if counts is None else (int(counts[0]), counts[1])


def _held_host(event: dict[str, Any]) -> dict[str, Any] | None:
    """What one host's requests with a body show, when its connections have Nagle's
    algorithm on and those on reused connections waited longer for their answer than
    those on new ones, by at least the shortest delayed ACK (the server acknowledges a
    new connection's first segments at once)."""
    reused, new = _sends(event, "reused"), _sends(event, "new")
    if event.get("nagle") is not True or reused is None or new is None \
            or not isinstance(event.get("pool"), str):
        return None
    (n, head_s), (new_n, new_head_s) = reused, new
    if n < MIN_STALLS or new_n < MIN_NEW:
        return None
    extra = head_s / n - new_head_s / new_n
    if not extra >= STALL_MIN_S or extra < MIN_TIME_SHARE * head_s / n:  # NaN-safe
        return None
    return {"pool": event["pool"], "requests": n, "new": new_n,
            "answer_ms": head_s / n * 1e3, "new_answer_ms": new_head_s / new_n * 1e3,
            "lost_s": extra * n}


def request_body_stall(profile: Profile) -> list[Finding]:
    """Requests with a body, on reused connections made without TCP_NODELAY, whose answers
    came later than on new connections by a delayed ACK, adding up to a block threshold:
    one finding for all hosts.  ``cost_s``: that difference times those requests."""
    found = _hosts(profile, _held_host, ANSWER_WAIT_FRAME)
    if found is None:
        return []
    hosts, lost, seen = found
    shown = "; ".join(
        f"on {h['pool']}, {h['requests']} requests with a body on reused connections "
        f"waited {h['answer_ms']:.0f} ms on average for their answer, against "
        f"{h['new_answer_ms']:.1f} ms on {h['new']} new connections"
        for h in hosts[:MAX_HOSTS_SHOWN])
    where = f", at {seen.where}" if seen else ""
    message = (
        f"Request bodies held by Nagle's algorithm: {shown}. {lost:.3f} greenlet-seconds "
        f"were spent waiting that much longer{where}. These connections were made without "
        f"TCP_NODELAY, so urllib3 sends the request's headers and then its body, and the "
        f"kernel holds the body until the server acknowledges the headers, which it "
        f"delays (40 ms on Linux) on a kept-alive connection. urllib3 sets TCP_NODELAY by "
        f"default; socket_options given to an adapter or pool manager replace that "
        f"default, and urllib3 leaves it off towards a proxy. Fix: keep it, "
        f"socket_options=urllib3.connection.HTTPConnection.default_socket_options + "
        f"[your options].")
    return [_hosts_finding(REQUEST_BODY_STALL, message, lost, hosts, seen)]


def request_pieces_stall(profile: Profile) -> list[Finding]:
    """Requests of a protocol of the program's own written in two pieces on sockets with
    Nagle's algorithm on (:mod:`geventperf.writewatch`), whose replies, read within the
    function that wrote them, waited a delayed ACK's time on average: the raw-socket side
    of request-body-stall, one finding per line that wrote the second pieces.
    ``cost_s``: those reads' event wait, at most CLIENT_DELAYED_ACK_S per piece held."""
    out = []
    for e in _events(profile, WRITE_EVENT):
        for row in e.get("pieces") or []:
            if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)
                    and all(isinstance(n, int) and not isinstance(n, bool) for n in row[1:])):
                continue
            site, pieces, held = row
            if held < MIN_STALLS or held < STALL_SHARE * pieces:
                continue
            reads = _reads_within(profile, site)
            count = sum(w.count for w in reads)
            waited = sum(event_wait(w) for w in reads)
            if count < MIN_STALLS or not STALL_MIN_S <= waited / count <= STALL_MAX_S:
                continue
            cost = min(waited, held * CLIENT_DELAYED_ACK_S)
            if cost < block_threshold(profile):
                continue
            worst = max(reads, key=lambda w: w.count)
            read_at = user_site(worst.stack).user
            message = (
                f"Requests written in pieces, held by Nagle's algorithm: {site} wrote the "
                f"second piece of {held} requests right after the first (two sendall calls "
                "with no reply between) on sockets without TCP_NODELAY, and their replies, "
                f"read at {read_at}, waited {waited / count * 1e3:.0f} ms each on average "
                f"({count} reads, {waited:.3f} s). The kernel holds a small second piece "
                "until the peer acknowledges the first, and a peer waiting for the whole "
                f"request delays that ACK ({CLIENT_DELAYED_ACK_S * 1e3:.0f} ms on Linux): "
                "each request pays it. Fix: write each request in one sendall (join its "
                "pieces: b''.join(parts)), or set TCP_NODELAY on the socket once connected "
                "(sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)).")
            out.append(_finding(REQUEST_BODY_STALL, message, cost, list(worst.stack),
                                site=site, pieces=pieces, held=held, reads=count,
                                read_site=read_at, waited_s=waited,
                                client_delayed_ack_s=CLIENT_DELAYED_ACK_S,
                                cost_meaning=PIECES_COST))
    return out


PIECES_COST = ("greenlet-seconds the replies to requests written in pieces waited, at most "
               "a delayed ACK (40 ms) per request held")


def _reads_within(profile: Profile, site: str) -> list[Any]:
    """The ``waits`` rows reading a socket right from the program's code (its own
    protocol client) with a frame of the function of *site* (``path:line:function``, a
    call site: the function without its class) in their stacks: replies read where the
    requests were written, or beneath."""
    wrote = parse_frame(site)
    out = []
    for w in profile.waits:
        if not w.count or socket_read_depth(w.stack) is None:
            continue
        for frame in w.stack:
            f = parse_frame(frame) if isinstance(frame, str) else None
            if f is not None and f.path == wrote.path and (
                    f.function == wrote.function
                    or f.function.endswith("." + wrote.function)):
                out.append(w)
                break
    return out


def server_nagle(profile: Profile) -> list[Finding]:
    """Responses this process's gevent WSGI server wrote head, then body, on kept-alive
    connections without TCP_NODELAY (:mod:`geventperf.serverwatch`): at least
    MIN_STALLS, their clients' estimated wait reaching a block threshold.  ``cost_s``:
    that estimate, CLIENT_DELAYED_ACK_S per response."""
    held = sum(_count(e, "nagle") for e in _events(profile, SERVER_EVENT))
    responses = sum(_count(e, "responses") for e in _events(profile, SERVER_EVENT))
    timed, stalled = _own_clients_timed(profile)
    # the responses this process's own clients timed count as the stalls they saw; the
    # others (clients elsewhere) as estimated
    waited = max(0, held - timed) + min(stalled, timed)
    cost = waited * CLIENT_DELAYED_ACK_S
    if waited < MIN_STALLS or not cost >= block_threshold(profile):
        return []
    message = (
        f"Server responses held by Nagle's algorithm: this process's gevent "
        f"pywsgi.WSGIServer wrote {held} of its {responses} responses as a head, then the "
        f"body, on kept-alive connections (after each one's first) without TCP_NODELAY. "
        f"Each such "
        f"body waits until the client acknowledges the head, which a Linux client delays "
        f"{CLIENT_DELAYED_ACK_S * 1e3:.0f} ms: about {cost:.3f} s of the clients' time, "
        + (f"counting for the {timed} its own clients timed (requests to its port from "
           f"this process) the {min(stalled, timed)} bodies they saw come late and for the "
           "rest 40 ms each, estimated " if timed else "estimated ")
        + "(the wait is theirs: this process cannot time it; a client that "
        "acknowledges at once, e.g. with TCP_QUICKACK, does not wait). pywsgi leaves "
        "Nagle's algorithm on (gevent issue #1233). Fix: give the server a listening "
        "socket with TCP_NODELAY set, which the sockets it accepts inherit: "
        "listener = gevent.socket.socket(); listener.setsockopt(socket.IPPROTO_TCP, "
        "socket.TCP_NODELAY, 1); listener.bind(address); listener.listen(backlog); "
        "WSGIServer(listener, app).")
    return [_finding(SERVER_NAGLE, message, cost, [], held=held, responses=responses,
                     own_clients_timed=timed, own_clients_stalled=min(stalled, timed),
                     client_delayed_ack_s=CLIENT_DELAYED_ACK_S)]


# A pool's address on this machine: this process's own clients of its own server.
LOOPBACK_POOL = re.compile(r"^https?://(127\.\d+\.\d+\.\d+|localhost|\[::1\]):(\d+)$")


def _own_clients_timed(profile: Profile) -> tuple[int, int]:
    """(responses on reused connections this process's own urllib3 pools timed from
    this process's WSGI servers, those whose body came a delayed ACK after its head),
    matched by port (``nagle_ports``), up to what each port held; (0, 0) without the
    figures (older profiles).  An unseen ingest API's in-process clients saw its 520
    held bodies 0.1 ms after their heads on average, none stalled, while server-nagle
    estimated 20.8 s of their waiting, and TCP_NODELAY gained nothing."""
    held_at: dict[str, int] = {}
    for e in _events(profile, SERVER_EVENT):
        ports = e.get("nagle_ports")
        if isinstance(ports, dict):
            for port, n in ports.items():
                if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                    held_at[str(port)] = held_at.get(str(port), 0) + n
    seen: dict[str, list[int]] = {}
    for e in _events(profile, POOL_EVENT):
        match = LOOPBACK_POOL.match(str(e.get("pool")))
        trails = e.get("trails")
        reused = trails.get("reused") if isinstance(trails, dict) else None
        if match and match.group(2) in held_at and isinstance(reused, list) \
                and len(reused) >= 2:
            acc = seen.setdefault(match.group(2), [0, 0])
            acc[0] += _count({"n": reused[0]}, "n")
            acc[1] += _count({"n": reused[1]}, "n")
    timed = sum(min(n, held_at[port]) for port, (n, _s) in seen.items())
    stalled = sum(min(s, n, held_at[port]) for port, (n, s) in seen.items())
    return timed, stalled
