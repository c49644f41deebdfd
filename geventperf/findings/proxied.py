"""Calls to internal hosts sent through a proxy (``proxied-internal``).

requests sends a call through the proxy that ``HTTP_PROXY``, ``HTTPS_PROXY`` or
``ALL_PROXY`` name in the environment (or a session's ``proxies=``), unless
``NO_PROXY`` names its host.  A container given the company's egress proxy for the odd
call to the outside world, with a ``NO_PROXY`` that misses the address its internal
services are configured by, sends every internal call through that proxy: a hop, a
connection and a queue more per call, and nothing in the other tables says so (the
pool table lists the proxy's address as the host).  An unseen catalog sync made 2 000
calls to its service at 127.0.0.1 that way: "FINDINGS: none", and adding the address
to ``NO_PROXY`` cut its run by a third.

The pool watch records, per pool of urllib3's ``ProxyManager``, the proxy and the hosts
its requests went to (``urllib3-pool`` events' ``proxy``, ``proxied``), and the
environment's ``NO_PROXY``.  A host is internal when it is a loopback, private or
link-local address, ``localhost``, a name without a dot, or a name under a domain
kept for internal use (INTERNAL_SUFFIXES).
"""

from __future__ import annotations

import ipaddress

from geventperf.findings.common import (
    PROXIED_INTERNAL,
    _events,
    _finding,
    block_threshold,
    heads_waited,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.poolwatch import count_rows
from geventperf.profile import Finding, Profile

# Names under these domains are internal: Kubernetes' service names and the suffixes
# kept for private networks (RFC 6762's .local, RFC 8375's .home.arpa, ICANN's
# .internal) or common in them.
INTERNAL_SUFFIXES = (".local", ".internal", ".svc", ".cluster.local", ".lan", ".corp",
                     ".home.arpa", ".localdomain", ".intranet")
# Fewer proxied calls to internal hosts than this are a script's few, not a setting
# that every call pays.
PROXIED_MIN = 20


def is_internal(host: str) -> bool:
    """Whether *host* (a name or an address, IPv6 in brackets or not) is on the local
    or private network."""
    name = host.strip("[]").lower().rstrip(".")
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return name == "localhost" or "." not in name or name.endswith(INTERNAL_SUFFIXES)
    return address.is_private or address.is_loopback or address.is_link_local


def _host_of(origin: str) -> str:
    """``127.0.0.1`` of ``http://127.0.0.1:8080`` (``::1`` of ``http://[::1]:80``)."""
    rest = origin.split("://", 1)[-1]
    return rest[1:rest.index("]")] if rest.startswith("[") and "]" in rest \
        else rest.rsplit(":", 1)[0]


def proxied_internal(profile: Profile) -> list[Finding]:
    """Calls to internal hosts that went through a proxy (see the module's text).
    ``cost_s``: the time those pools' requests waited for their answers' heads, the
    proxy's hop within it (not measured apart: at most this)."""
    pools = [e for e in _events(profile, POOL_EVENT) if isinstance(e.get("proxy"), str)]
    reached: dict[str, int] = {}
    proxies: dict[str, int] = {}
    waited = 0.0
    no_proxy = None
    for e in pools:
        rows = count_rows(e.get("proxied"))
        internal = [(host, n) for host, n in rows if is_internal(_host_of(host))]
        if not internal:
            continue
        calls = sum(n for _host, n in internal)
        for host, n in internal:
            reached[host] = reached.get(host, 0) + n
        proxies[e["proxy"]] = proxies.get(e["proxy"], 0) + calls
        # the pool's waits for its answers' heads, for its internal hosts' share
        waited += heads_waited(e) * calls / sum(n for _host, n in rows)
        no_proxy = e.get("no_proxy") if isinstance(e.get("no_proxy"), str) else no_proxy
    calls = sum(reached.values())
    if calls < PROXIED_MIN or waited < block_threshold(profile):
        return []
    hosts = sorted(reached.items(), key=lambda kv: -kv[1])
    named = ", ".join(f"{host} ({n})" for host, n in hosts[:3]) \
        + (f" and {len(hosts) - 3} more" if len(hosts) > 3 else "")
    proxy = max(proxies, key=proxies.__getitem__)
    message = (
        f"Calls to internal hosts went through a proxy: {calls} requests to {named} were "
        f"sent through the proxy at {proxy}, and waited {waited:.3f} s in all for their "
        "answers. requests sends a call through the proxy that HTTP_PROXY, HTTPS_PROXY "
        "or ALL_PROXY name in the environment (or a session's proxies=) unless NO_PROXY "
        "names its host"
        + (f" (here NO_PROXY is {no_proxy!r}, which does not cover them)" if no_proxy
           else " (here NO_PROXY is not set)")
        + ": a proxy meant for the outside world adds a hop, a connection of its own and "
        "its queue to every internal call. Fix: add these hosts to NO_PROXY (their names, "
        "a domain suffix such as .svc.cluster.local, or for addresses a range such as "
        "10.0.0.0/8), or give a client that calls only internal services "
        "session.trust_env = False (it then ignores REQUESTS_CA_BUNDLE and .netrc too: "
        "set session.verify where that matters) or proxies={'http': None, 'https': None}. "
        "If the proxy is meant to see these calls (an auditing sidecar), this is its "
        "price.")
    return [_finding(PROXIED_INTERNAL, message, waited, [], proxy=proxy,
                     hosts=[[host, n] for host, n in hosts], calls=calls,
                     no_proxy=no_proxy, heads_waited_s=waited)]

