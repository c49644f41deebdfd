"""The program's own clients of its own servers: greenlets that call, through requests,
a gevent ``pywsgi`` server running in the same process (a load generator beside the
service it drives, a service calling itself).

Their wait for an answer is no I/O of the program: it is the server's work (its CPU,
its queueing behind the loop, its own calls), which the server's greenlets already
count.  Weighed as I/O, it hid what the program waited on: an unseen job queue's
workers waited 83 greenlet-s on its in-process enrichment server whose handlers slept
67 of them, and a loop 99 % busy re-sorting its queue on every fetch, queueing 43 % of
the waiting, was not told; an unseen gateway's in-process load clients waited 66 s for
its handlers' answers, and its handlers' three upstream calls in turn, 59 s, were taken
for calls made concurrently (under the share of the client's waiting they must hold).

The server's ports come from the ``pywsgi-responses`` event (``ports``), the lines that
called each host from the ``urllib3-pool`` events (``call_sites``, from a host's first
calls): a host on loopback at one of those ports is the program's own server.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from geventperf.findings.common import _events
from geventperf.findings.cpuhot import is_client_frame
from geventperf.findings.limits import event_wait
from geventperf.formats._frames import is_library_frame
from geventperf.frames import frame_line, user_site
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# The pool watch's call site of a call made with none of the program's frames on its
# stack (bodyreads.call_site).
NO_PROGRAM_FRAME = "<unknown>"


# gevent's WSGI server running the application: a wait beneath it is a handler's.
RUN_APPLICATION = re.compile(r"/gevent/pywsgi\.py:\d+:WSGIHandler\.run_application$")


def in_handler(stack: list[str]) -> bool:
    """Whether a wait's stack is a pywsgi handler's (beneath run_application)."""
    return any(RUN_APPLICATION.search(frame.replace("\\", "/")) for frame in stack
               if isinstance(frame, str))


def _calls_http(stack: list[str]) -> bool:
    """Whether a wait's stack is in the HTTP client (requests, urllib3, http.client)."""
    return any(is_client_frame(f) for f in stack if isinstance(f, str))


def load_test_hosts(profile: Profile) -> list[dict[str, Any]]:
    """own_server_hosts, when the program's servers are a service that calls out (its
    handlers waited on HTTP calls of their own): the requests sent to it are a load
    generator's, asking one URL again and again and many alike at once by design, no
    cache missing.  None when its servers only answer: stand-ins for the upstreams the
    program calls (an unseen crawler's five in-process sites, whose robots.txt it
    fetched again for every page, are the program's real work); nor the ones the
    handlers themselves call (in-process stand-ins for the service's upstreams: an
    unseen resolver proxy forwarded to two in-process upstreams whose 3 260 lookups, 330
    different ones behind a cache keyed on each query's random id, were left out as a
    load test's)."""
    if not handlers_call_out(profile):
        return []
    handler_lines = {user_site(w.stack).user for w in profile.waits
                     if w.count and in_handler(w.stack) and _calls_http(w.stack)}
    handler_lines = {line.rsplit(":", 1)[0] for line in handler_lines if line}
    return [e for e in own_server_hosts(profile)
            if not any(site.rsplit(":", 1)[0] in handler_lines
                       for site, _n in count_rows(e.get("call_sites")))]


def load_generator_lines(profile: Profile) -> set[str]:
    """``path:line`` of the program's lines that sent requests to its own in-process
    service (load_test_hosts' callers): a load generator's, whose CPU is no cure of the
    service's (an unseen resolver proxy's load clients burned 47 % of its sampled CPU,
    most of it inside requests, and its blocklist scan, 41 % of the service's own, went
    unnamed under "56 % inside requests")."""
    return {site.rsplit(":", 1)[0] for e in load_test_hosts(profile)
            for site, _n in count_rows(e.get("call_sites"))}


def is_load_generator(labels: list[str], lines: set[str]) -> bool:
    """Whether a sampled stack (``path:line:function`` labels, innermost first) ran for
    a load generator: its innermost frame of the program's is at one of *lines*
    (load_generator_lines), outside a pywsgi handler (a handler's call to an in-process
    stand-in upstream is the service's own)."""
    own = next((label for label in labels if not is_library_frame(label)), None)
    return own is not None and own.rsplit(":", 1)[0] in lines and not in_handler(labels)


def handlers_call_out(profile: Profile) -> bool:
    """Whether the program's pywsgi handlers waited on HTTP calls of their own."""
    return any(in_handler(w.stack) and _calls_http(w.stack) for w in profile.waits if w.count)


def own_server_hosts(profile: Profile) -> list[dict[str, Any]]:
    """The ``urllib3-pool`` events of the hosts that are the program's own pywsgi
    servers (a loopback host at one of their ports)."""
    ports = {port for e in _events(profile, SERVER_EVENT)
             for port in e.get("ports") or [] if isinstance(port, int)}
    if not ports:
        return []
    own = []
    for e in _events(profile, POOL_EVENT):
        try:
            host = urlsplit(e.get("pool") or "")
            port = host.port
        except ValueError:  # a folded row ("<other pools>") or a broken label
            continue
        if host.hostname in LOOPBACK and port in ports:
            own.append(e)
    return own


def own_server_callers(profile: Profile) -> set[str]:
    """The program's lines (``path:line:function``) that called its own pywsgi servers
    through requests; empty when it ran none, or none of its pools reached one."""
    return {site for e in own_server_hosts(profile)
            for site, _n in count_rows(e.get("call_sites"))}


def own_client_rows(profile: Profile) -> list[Any]:
    """The ``waits`` rows of HTTP calls made at those lines (own_server_callers).  A
    call with none of the program's frames on its stack (a greenlet spawned to run
    ``session.get`` itself: the pool watch's site ``<unknown>``) is one of them when no
    other host was called that way (an unseen quote collector's 1 680 spawned gets of
    its in-process suppliers waited 157 s for their answers, which hid its loop 99 %
    busy behind a commit per row: "FINDINGS: none")."""
    callers = own_server_callers(profile)
    if not callers:
        return []
    if NO_PROGRAM_FRAME in callers and NO_PROGRAM_FRAME in _other_hosts_callers(profile):
        callers.discard(NO_PROGRAM_FRAME)
    # (by line: the pool watch names a call site's function by its code's name, a
    # stack's frame by its qualified name -- a method's calls were never matched)
    lines = {frame_line(site) or site for site in callers}
    return [w for w in profile.waits if _calls_http(w.stack)
            and (frame_line(user_site(w.stack).user) or NO_PROGRAM_FRAME) in lines]


def _other_hosts_callers(profile: Profile) -> set[str]:
    """The call sites of the hosts that are not the program's own servers."""
    own = {id(e) for e in own_server_hosts(profile)}
    return {site for e in _events(profile, POOL_EVENT) if id(e) not in own
            for site, _n in count_rows(e.get("call_sites"))}


def own_client_wait(profile: Profile) -> float:
    """The event wait of those rows."""
    return sum(event_wait(w) for w in own_client_rows(profile))
