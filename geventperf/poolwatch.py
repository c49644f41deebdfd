"""urllib3's connection pools while tracing: connections thrown away, or never returned.

requests keeps its connections in urllib3 pools, one per host, of ``pool_maxsize``
connections (10 by default).  With more requests in flight to a host than that, the
pool hands out new connections beyond its size (unless ``pool_block=True``), and
when they come back to a full pool it closes them ("Connection pool is full,
discarding connection", a warning many services silence).  The next burst opens them
again: a connect, and for https a TLS handshake, for every request past the pool's
size -- the churn a switch profile shows only as many connects.

:class:`PoolWatch` wraps ``HTTPConnectionPool._get_conn`` and ``_put_conn`` while
tracing (without importing urllib3: now if the program has, else when it does, see
:mod:`geventperf.lazywrap`) and records per pool: its size, the connections checked
out at most at once, the checkouts, the connections it made, those it discarded
because it was full, and those still out when the events were read (a response
streamed with ``stream=True`` and neither read to the end nor closed never returns its
connection, and the pool makes a new one for the next request).  ``connection_churn``
and ``connection_leak`` in :mod:`geventperf.findings.connections` turn them into
findings.  Like the body-read counts, only calls made in the thread of
an active tracer are recorded, and the originals are back after ``stop()``.
"""

from __future__ import annotations

import itertools
import math
import os
import socket
import sys
import time
import urllib.parse
import weakref
from typing import Any

import greenlet

from geventperf.bodyreads import call_site
from geventperf.lazywrap import Patch, is_ours, mark_wrapper, wrap_when_loaded
from geventperf.oneoffurls import stable_key
from geventperf.sections import _tracers, get_ident

EVENT_KIND = "urllib3-pool"
GET_CONN = "urllib3.connectionpool.HTTPConnectionPool._get_conn"
PUT_CONN = "urllib3.connectionpool.HTTPConnectionPool._put_conn"
URLOPEN = "urllib3.connectionpool.HTTPConnectionPool.urlopen"
# Where a PoolManager (a requests adapter's) makes a host's pool: the pool is stamped
# with its manager and how many hosts' pools that manager keeps (pool_connections), so
# pools made again are told as that manager closing them past its capacity, or as
# several managers (a Session made per batch), not guessed from requests' default.
NEW_POOL = "urllib3.poolmanager.PoolManager._new_pool"
# Where a PoolManager is made (a requests adapter's, in HTTPAdapter's __init__): the
# program's line that made it, where its pool_maxsize is set, is what a full pool's
# finding points the fix at (unseen testers were sent to the request's line, not to
# the line mounting the adapter with pool_maxsize=2).
NEW_MANAGER = "urllib3.poolmanager.PoolManager.__init__"
# A new connection's set-up (name lookup, connect, TLS) is not part of its request's
# wait for the head: the time to the head is counted from its end.
CONNECTS = ("urllib3.connection.HTTPConnection.connect",
            "urllib3.connection.HTTPSConnection.connect")

# Pools recorded one by one; further ones fold into one record.  A service talks to a
# handful of hosts; a crawler's thousands would otherwise grow without bound.
MAX_POOLS = 64
OTHER_POOLS = "<other pools>"
# Error kinds and calling lines kept per pool (most first); the rest are counted only.
# Failing requests fail in a few ways from a few lines.
MAX_ERRORS = 8
# Error statuses kept per host (the rest of a host's are not counted): a service answers
# with a handful (429, 500, 502, 503, 504).
MAX_STATUSES = 8
# Statuses from this one on are the upstream's errors (4xx: the request's, 5xx: its own).
FIRST_ERROR_STATUS = 400
MAX_SITES = 4
# Hosts counted per proxy pool (the hosts its requests went to through the proxy), and
# per host the hosts its redirects sent callers to: a client reaches a few.
MAX_PROXIED = 8
# The statuses whose Location requests follows (requests.status_codes' REDIRECT_STATI;
# 304 Not Modified sends nobody elsewhere).
REDIRECT_STATUSES = frozenset((301, 302, 303, 307, 308))
NOT_MODIFIED = 304
# Different GET (or HEAD) URLs counted per host: a program asking the same few again
# and again (a cache that never hits: an unseen worker's lru_cache keyed on a trace id
# fetched 15 profiles 240 times) stays far under it; past it the host's URLs are too
# many to count, and the count says so (None).  Each kept URL is cut to URL_KEPT
# characters, so a host's table stays under ~60 KB.
MAX_URLS = 256
URL_KEPT = 200
# The most asked URLs written per host.
TOP_URLS = 3
# Different requests (a GET's URL, another method's URL and body) remembered per host,
# by their hash, to count how many different ones were sent past what MAX_URLS counts
# one by one: a cache that never hits over more keys than that (an unseen series
# index's lru_cache of 1 024 entries cycled through 2 484 series, each looked up 6
# times, and nothing was told).  ~60 bytes a hash: at most ~1 MB per host.
MAX_KEYS_SEEN = 16_384
# URLs whose duplicates in flight are counted one by one, per host: a stampede is on a
# few (a cache's refill); the rest are counted only.
MAX_DUPLICATED = 8
# Methods whose repeated requests a cache could answer.
CACHEABLE_METHODS = frozenset({"GET", "HEAD"})
# Not a failure of the request: the greenlet or the program was told to stop.
_NOT_FAILURES = (greenlet.GreenletExit, KeyboardInterrupt, SystemExit)
# A body that came this long after its head waited for an ACK, not for the upstream:
# Linux delays an ACK at least 40 ms (TCP_DELACK_MIN; a little less here for timer
# slack) and the slowest common stacks at most 200 ms (Linux's TCP_DELACK_MAX,
# Windows); later than STALL_MAX_S is a slow body, not an ACK.
STALL_MIN_S = 0.035
STALL_MAX_S = 0.25
# Bodies longer than this (by Content-Length) are not timed: a large body's transfer
# takes time of its own, which would pass for a stall.  (Nagle's algorithm holds back
# only a last partial segment, so a small body shows the stall whole.)
TIMED_BODY_MAX = 64 * 1024
# The attribute a connection carries while it serves a request: [the watch's token,
# whether it was made for this request (no socket at checkout), when the response head
# arrived (None before), how long the request waited for that head, when the connection
# was set up (None unless it was, for this request), its body as body_begins saw it
# (None before: [its host's record, plain, a weak reference to the response, when its
# head arrived]), how many requests to its host awaited their heads when it was sent
# (itself counted; 0 before it was), its host's record].
_TRAIL = "_geventperf_trail"
# The attribute a pool made by a PoolManager carries: (its manager's serial number, the
# hosts' pools that manager keeps, the program's line that made the manager or None);
# and the one a manager carries: its serial number (a count, not id(): a Session made
# per call is freed and its id reused).
_MADE_BY = "_geventperf_made_by"
_SERIAL = "_geventperf_serial"
# ... and the program's line that made the manager, when a tracer saw it made
_MADE_AT = "_geventperf_made_at"
_serials = itertools.count(1)
# Managers told apart per host; past this many, "at least" that many.
MAX_MANAGERS = 64
# Content types that compress well (text: CSV, JSON, XML, HTML, JavaScript, YAML):
# matched as the type's prefix or a part of it, "application/ld+json" included.
COMPRESSIBLE_TYPES = ("text/", "json", "xml", "javascript", "csv", "yaml",
                      "x-www-form-urlencoded", "graphql")
# The content codings a request can offer in its Accept-Encoding (requests offers gzip
# and deflate, with br and zstd when their decoders are installed); a request offering
# none of them, or sending no Accept-Encoding at all (http.client then sends
# "identity"), asks for its body as it is.
COMPRESSED_CODINGS = ("gzip", "deflate", "br", "zstd", "compress")
# Buckets of heads_by_load: powers of two of the requests in flight to a host, the last
# one holding 1025 and more (a program past a thousand at once is told by the pools'
# own findings long before this matters).
LOAD_BUCKETS = 11
# Buckets of heads_by_time: powers of two of a millisecond, the last holding 32.8 s and
# more (past a read timeout's usual 30 s).
TIME_BUCKETS = 17
# The lines that made requests asking for plain bodies, kept per host: a few.
MAX_PLAIN_SITES = 4
# The lines that call a host, tallied from its first calls only (a frame walk each, a
# few microseconds: bounded, not paid on every request): enough to tell which of the
# program's lines call which host (its own in-process server's clients, say).
CALL_SITES_SAMPLED = 64


class _Pool:
    """What the pools of one host (``scheme://host:port``) did: one Session's pool, or the
    many a program makes when it builds a Session (or an adapter) per request."""

    __slots__ = ("label", "pools", "kept", "managers", "made_at", "maxsize", "minsize", "block", "checkouts", "in_use",
                 "peak_in_use", "opened", "discarded", "calls", "failed", "failed_s",
                 "read_timeout_s", "errors", "sites", "trails", "nagle", "sends", "closing",
                 "asked_close", "statuses", "retried", "gets", "urls", "others", "sent", "first_sites",
                 "answer_lengths",
                 "urls_over", "sent_over", "in_flight", "duplicates", "duplicated",
                 "duplicate_peak", "duplicate_sites",
                 "proxy", "proxied", "redirects", "redirected_to", "redirects_kept_path", "not_modified",
                 "bodies", "plain_types",
                 "plain_asked", "plain_sites", "heads_by_load", "heads_by_time", "awaiting",
                 "call_sites", "sites_sampled", "keyed", "keys_seen", "keys_over",
                 "oneoff_gets", "oneoff", "oneoff_seen", "oneoff_seen_over",
                 "oneoff_sites", "set_aside")

    def __init__(self, label: str) -> None:
        self.label = label
        self.pools = 0  # pool objects seen
        # the most hosts' pools a PoolManager making them kept (pool_connections; 0: no
        # pool seen made by one), and the managers that made them (serials, capped)
        self.kept = 0
        self.managers: set[int] = set()
        # the program's lines that made those managers: {line: the largest pool_maxsize
        # of the pools made there} (at most MAX_SITES)
        self.made_at: dict[str, int] = {}
        self.maxsize = 0
        self.minsize = 0  # the smallest pool_maxsize of its pools (0: none seen yet)
        self.block = False
        self.checkouts = self.in_use = self.peak_in_use = self.opened = self.discarded = 0
        # requests sent and still waiting for their heads (heads_by_load's count)
        self.awaiting = 0
        # requests as the caller saw them (urlopen, its own retries inside): how many,
        # how many raised, the time spent in those, and how they failed and where
        self.calls = self.failed = 0
        # responses whose head said the server closes the connection after them
        # (Connection: close, or HTTP/1.0 without keep-alive): connection-not-kept-alive
        # tells the server's closes from this side's
        self.closing = 0
        # requests whose own headers asked for that (Connection: close): the server then
        # closes as asked, often without saying so in its head
        self.asked_close = 0
        # GET and HEAD requests, and how many of them asked for each URL (at most
        # MAX_URLS URLs: past that, those asked once make room (_count_request), and
        # urls_over says the different ones were too many to count)
        self.gets = 0
        self.urls: dict[str, int] = {}
        self.urls_over = False
        # requests of other methods, and how many sent each (method, URL, body) alike
        # ("POST url #body-hash": a token fetched again and again), kept as the URLs
        # are; a body that is neither bytes nor str (a file, a generator) is not keyed
        self.others = 0
        self.sent: dict[str, int] = {}
        self.sent_over = False
        # requests keyed (GET URLs and sent keys alike), and the hashes of the different
        # keys among them (at most MAX_KEYS_SEEN: past it keys_over says so)
        self.keyed = 0
        self.keys_seen: set[int] = set()
        self.keys_over = False
        # GETs of one-off URLs (geventperf.oneoffurls: a nonce, a token or a signature in
        # the query, new at every request), by what they asked for once those values are
        # set aside: the different ones by their hashes (as keys_seen), the lines that
        # sent them, the most asked counted one by one (as the URLs, with their answers'
        # lengths), and the names of the parameters set aside
        self.oneoff_gets = 0
        self.oneoff_seen: set[int] = set()
        self.oneoff_seen_over = False
        self.oneoff_sites: dict[str, int] = {}
        self.oneoff: dict[str, int] = {}
        self.set_aside: dict[str, int] = {}
        # the program's line that first sent each counted request (GET URLs and sent
        # keys alike): where a request repeated again and again is made
        self.first_sites: dict[str, str] = {}
        # per counted request, its last answer's Content-Length and how many times an
        # answer's length differed from the one before: a request whose answers change
        # (a long poll, a feed) is no cache's to answer, however often it is sent alike
        self.answer_lengths: dict[str, list[Any]] = {}
        # GET and HEAD requests by URL waiting for their answers now; those sent while
        # one alike was already waiting (one fetch would have served both: a cache
        # refilled by every caller that finds it expired), by URL (most first, at most
        # MAX_DUPLICATED), the most alike that waited at once, and the lines sending them
        self.in_flight: dict[str, int] = {}
        self.duplicates = 0
        self.duplicated: dict[str, int] = {}
        self.duplicate_peak = 0
        self.duplicate_sites: dict[str, int] = {}
        # the lines that made its first CALL_SITES_SAMPLED calls, and how many were seen
        self.call_sites: dict[str, int] = {}
        self.sites_sampled = 0
        self.failed_s = 0.0
        self.read_timeout_s: float | None = None  # the largest given to a failed call
        self.errors: dict[str, int] = {}
        self.sites: dict[str, int] = {}
        # answers with an error status (4xx, 5xx) by status: a 503 raises nothing, and a
        # program that backs off or retries on it looks like one waiting on its own
        self.statuses: dict[str, int] = {}
        # ... and the error answers urllib3's Retry retried inside urlopen, by status
        # (from the final response's Retry history): the caller saw only the last answer,
        # and a back-off on 429s, which sending fewer at once avoids, looked like any
        # other upstream failure (an unseen bulk indexer's 15 retried 429s)
        self.retried: dict[str, int] = {}
        # body after head, per connection kind: [responses, stalled (a body between
        # STALL_MIN_S and STALL_MAX_S after its head), seconds in all (each body counted
        # up to STALL_MAX_S: one slow download must not outweigh the rest), seconds
        # stalled, seconds to their heads (from the request's start, or a new
        # connection's set-up)]
        self.trails: dict[str, list[float]] = {"new": [0, 0, 0.0, 0.0, 0.0],
                                               "reused": [0, 0, 0.0, 0.0, 0.0]}
        # the time to each response's head by how many requests to the host awaited
        # their heads when it was sent (itself counted), in LOAD_BUCKETS powers of two
        # (1, 2, 3-4, 5-8, ...): [responses, seconds].  An upstream that queues what it
        # cannot serve at once answers later the more are in flight; one with room, as
        # fast (whether a larger client pool can help).  Sent: at its checkout on a
        # reused connection, once its set-up is done on a new one.  Not at a new
        # connection's checkout: a full Pool's jobs check out all at once, and gevent
        # resumes their finished connects in another order (the first checked out sent
        # last, its head after 0.2 s against a one-at-a-time upstream)
        self.heads_by_load = [[0, 0.0] for _ in range(LOAD_BUCKETS)]
        # ... and by how long each took, in TIME_BUCKETS powers of two of a millisecond
        # (under 1 ms, 1-2, 2-4, ... 32.8 s and more): [responses, seconds].  A mean
        # hides a tail: answers in 5 ms but one in fifty after 800 ms average 22 ms
        self.heads_by_time = [[0, 0.0] for _ in range(TIME_BUCKETS)]
        # connections made without TCP_NODELAY (Nagle's algorithm on: socket_options
        # given without it replace urllib3's default, and urllib3 leaves it on towards a
        # proxy), and the requests that sent a body, per connection kind: [requests,
        # seconds to their heads]
        self.nagle = False
        self.sends: dict[str, list[float]] = {"new": [0, 0.0], "reused": [0, 0.0]}
        # a pool of urllib3's ProxyManager (requests' proxies, HTTP_PROXY and kin from
        # the environment): the proxy's address, and the hosts its requests went to
        # through it, with how many each (an HTTP proxy's pool is the proxy's host; an
        # HTTPS tunnel's is the destination's)
        self.proxy: str | None = None
        self.proxied: dict[str, int] = {}
        # answers that sent the caller elsewhere (301, 302, 303, 307, 308 with a
        # Location: requests follows them, a request more each), and the hosts they
        # sent it to (a relative Location: this host)
        self.redirects = 0
        self.redirected_to: dict[str, int] = {}
        # ... of which the Location kept the request's path (the same path on another
        # host or scheme, or with a trailing slash added): an address that moved, where
        # links handed out per item (a tracking link) point each to a path of its own
        self.redirects_kept_path = 0
        # answers 304 Not Modified: a conditional request (If-None-Match,
        # If-Modified-Since) for a copy the program holds, still good
        self.not_modified = 0
        # response bodies as they crossed the wire: [responses, bytes read of them (as
        # sent: before any decoding), plain ones (a compressible type without a content
        # coding: COMPRESSIBLE_TYPES), their bytes, seconds from their heads until their
        # connections came back (the body read, with whatever the reader did between
        # reads)]; the plain bodies' types, and how many of them the request asked for
        # as they are (it offered no COMPRESSED_CODINGS), from which lines
        self.bodies = [0, 0, 0, 0, 0.0]
        self.plain_types: dict[str, int] = {}
        self.plain_asked = 0
        self.plain_sites: dict[str, int] = {}


def _label(pool: Any) -> str:
    scheme = getattr(pool, "scheme", None) or "http"
    return f"{scheme}://{getattr(pool, 'host', '?')}:{getattr(pool, 'port', None) or '?'}"


# The attribute a watched pool object carries: [the watch's token, urllib3's count of
# the connections the pool had made when last seen (num_connections), its host's
# label, the connections this watch saw it hand out and not yet get back].  On the pool
# itself, so a pool the program drops takes it along, and a new pool at a freed address
# starts afresh; a pool seen by an earlier watch (or before a reset) has another token.
# It holds no record: nothing of a stopped tracer is kept alive by the program's pools.
_MARK = "_geventperf_watched"


class PoolWatch:
    """What urllib3's pools did while a tracer ran (see the module docstring).

    The wrappers call ``mark`` / ``checked_out`` / ``returned`` / ``answered`` /
    ``failed`` (in the tracer's own thread, so no lock); ``events()`` -> plain
    JSON-serialisable dicts, one per host, ``"kind": "urllib3-pool"``.  No pool is
    referenced from here.
    """

    def __init__(self) -> None:
        self._hosts: dict[str, _Pool] = {}
        self._token = object()
        # Greenlets inside a watched urlopen: urllib3 retries by calling urlopen again,
        # and only the outermost call is the request the caller made.
        self.in_urlopen: set[int] = set()
        # Greenlets whose request was sent and awaits its head: the host's record
        # counting it (settled when urlopen returns or raises, or at the greenlet's next
        # send: a retry).
        self.awaiting: dict[int, _Pool] = {}

    def forget(self) -> None:
        """Drop what was recorded so far (Tracer.reset)."""
        self._hosts.clear()
        self.awaiting.clear()
        self._token = object()

    def mark(self, pool: Any) -> list[Any]:
        """*pool*'s mark, made at its first sight (its count of connections made so
        far is the baseline: only those made from now on are counted)."""
        mark = getattr(pool, _MARK, None)
        if mark is None or mark[0] is not self._token:
            label = _label(pool)
            record = self._hosts.get(label)
            if record is None:
                if len(self._hosts) >= MAX_POOLS:
                    label = OTHER_POOLS
                    record = self._hosts.get(label)
                if record is None:
                    record = self._hosts[label] = _Pool(label)
            record.pools += 1
            made_by = getattr(pool, _MADE_BY, None)
            # the pool's size and blocking are set when it is made: read once
            size = int(getattr(pool.pool, "maxsize", 0) or 0)
            if made_by is not None:
                record.kept = max(record.kept, made_by[1])
                if len(record.managers) < MAX_MANAGERS:
                    record.managers.add(made_by[0])
                at = made_by[2]
                if at is not None and (at in record.made_at or
                                       len(record.made_at) < MAX_SITES):
                    record.made_at[at] = max(record.made_at.get(at, 0), size)
            record.maxsize = max(record.maxsize, size)
            record.minsize = min(record.minsize, size) if record.minsize else size
            record.block = record.block or bool(pool.block)
            record.nagle = record.nagle or _without_nodelay(pool)  # never raises
            mark = [self._token, getattr(pool, "num_connections", 0), label, 0]
            setattr(pool, _MARK, mark)
        return mark

    def _record(self, pool: Any) -> _Pool:
        return self._hosts[self.mark(pool)[2]]

    def checked_out(self, mark: list[Any], made: int) -> None:
        """A request took a connection from the pool of *mark*, which has now made
        *made* connections in all.  A checkout may wait (the dropped-connection check
        polls) while other greenlets make connections: the count only grows, and each
        one is added once, by whichever checkout sees it first."""
        record = self._hosts.get(mark[2])
        if record is None or mark[0] is not self._token:
            return  # the tracer was reset while this checkout waited
        if made > mark[1]:
            record.opened += made - mark[1]
            mark[1] = made
        record.checkouts += 1
        mark[3] += 1
        record.in_use += 1
        record.peak_in_use = max(record.peak_in_use, record.in_use)

    def returned(self, pool: Any, discarded: bool) -> None:
        """A connection (or the empty slot of a failed one) came back to *pool*."""
        mark = self.mark(pool)
        record = self._hosts[mark[2]]
        if mark[3] > 0:  # one checked out before tracing was never counted out
            mark[3] -= 1
            record.in_use -= 1
        record.discarded += discarded

    def lent(self, conn: Any, mark: list[Any]) -> None:
        """*conn* was just checked out (by checked_out, with its pool's *mark*) for a
        request: new if it has no socket yet (its request goes out once connected),
        else its request goes out now."""
        record = self._hosts.get(mark[2])
        new = getattr(conn, "sock", None) is None
        trail = [self._token, new, None, 0.0, None, None, 0, record]
        setattr(conn, _TRAIL, trail)
        if not new:
            self._sends(trail)

    def connected(self, conn: Any, now: float) -> None:
        """*conn* finished its set-up at *now* (a new connection, or one made again)."""
        trail = getattr(conn, _TRAIL, None)
        if isinstance(trail, list) and trail[0] is self._token:
            trail[4] = now
            if not trail[6]:
                self._sends(trail)

    def _sends(self, trail: list[Any]) -> None:
        """The request on *trail*'s connection goes out now: counted among its host's
        requests awaiting their heads, that count kept in the trail (heads_by_load)."""
        record = trail[7]
        if record is None:
            return
        key = id(greenlet.getcurrent())
        self.settle(key)  # an earlier attempt of the same call (urllib3's retry)
        record.awaiting += 1
        trail[6] = record.awaiting
        self.awaiting[key] = record

    def settle(self, key: int) -> None:
        """The request the greenlet of id *key* sent has its head, or failed."""
        record = self.awaiting.pop(key, None)
        if record is not None:
            record.awaiting -= 1

    def head_arrived(self, pool: Any, conn: Any, length: Any, sent_body: bool,
                     started: float, now: float) -> None:
        """The response head of *conn*'s request through *pool*, made at *started* (with a
        body if *sent_body*), arrived at *now*; its body of *length* bytes (None when not
        known: chunked, or until the connection closes) follows."""
        trail = getattr(conn, _TRAIL, None)
        if not isinstance(trail, list) or trail[0] is not self._token:
            return
        waited = now - (trail[4] if trail[4] is not None else started)
        record = self._record(pool)
        for heads in (record.heads_by_time[time_bucket(waited)],
                      record.heads_by_load[load_bucket(trail[6])]
                      if len(trail) > 6 and trail[6] > 0 else None):
            if heads is not None:
                heads[0] += 1
                heads[1] += waited
        if sent_body:
            sends = self._record(pool).sends[_kind(trail)]
            sends[0] += 1
            sends[1] += waited
        if not (isinstance(length, int) and length > TIMED_BODY_MAX):
            trail[2] = now
            trail[3] = waited

    def body_begins(self, pool: Any, conn: Any, response: Any, request_headers: Any,
                    caller: Any, now: float) -> None:
        """*response*'s head arrived at *now* through *pool* (its body still on *conn*;
        None when urllib3 read it already): how its body crosses the wire, counted.
        *request_headers* are the request's, *caller* the frame that called urlopen."""
        headers = getattr(response, "headers", None)
        if headers is None:
            return
        plain = _plain_type(headers.get("content-type"), headers.get("content-encoding"))
        record = self._record(pool)
        if plain is not None:
            _tally(record.plain_types, plain, MAX_PLAIN_SITES)
            if not _offers_compression(request_headers):
                record.plain_asked += 1
                _tally(record.plain_sites, call_site(caller), MAX_PLAIN_SITES)
        trail = getattr(conn, _TRAIL, None) if conn is not None else None
        if isinstance(trail, list) and len(trail) > 5 and trail[0] is self._token:
            trail[5] = [record, plain is not None, weakref.ref(response), now]
        else:  # read inside urlopen (preloaded): its bytes are all in
            _body_read(record, plain is not None, response, 0.0)

    def body_done(self, pool: Any, conn: Any, now: float) -> None:
        """*conn* came back to *pool* at *now*: its body was read (or dropped)."""
        trail = getattr(conn, _TRAIL, None)
        if not isinstance(trail, list) or trail[0] is not self._token:
            return
        body = trail[5] if len(trail) > 5 else None
        if body is not None:
            trail[5] = None
            _body_read(body[0], body[1], body[2](), now - body[3])
        if trail[2] is None:
            return
        after = now - trail[2]
        trail[2] = None
        counts = self._record(pool).trails[_kind(trail)]
        counts[0] += 1
        counts[2] += min(after, STALL_MAX_S)
        counts[4] += trail[3]
        if STALL_MIN_S <= after <= STALL_MAX_S:
            counts[1] += 1
            counts[3] += after

    def answered(self, pool: Any, response: Any = None, asked_close: bool = False,
                 method: Any = None, url: Any = None, body: Any = None,
                 caller: Any = None) -> None:
        """A request through *pool* returned *response* (any status): counted, and
        whether its head said the server closes the connection after it, whether the
        request asked it to (*asked_close*), and by *method*, *url* and *body* which
        request it was (_count_request); *caller*: the frame that called urlopen."""
        record = self._record(pool)
        record.calls += 1
        record.closing += _closes(response)
        record.asked_close += asked_close
        proxy = getattr(pool, "proxy", None)
        if proxy is not None:
            record.proxy = _origin(proxy)
            _tally(record.proxied, _destination(url, record.label), MAX_PROXIED)
        if isinstance(url, str) and isinstance(method, str):
            if method in CACHEABLE_METHODS and "?" in url:
                _count_oneoff(record, url, response, caller)
            url = url if len(url) <= URL_KEPT else url[:URL_KEPT]
            if method in CACHEABLE_METHODS:
                record.gets += 1
                record.urls_over |= _count_request(record, record.urls, url, caller)
                _answer_length(record, url, response)
                _seen(record, url)
            else:
                record.others += 1
                key = _sent_key(method, url, body)
                if key is not None:
                    record.sent_over |= _count_request(record, record.sent, key, caller)
                    _answer_length(record, key, response)
                    _seen(record, key)
        for attempt in getattr(getattr(response, "retries", None), "history", None) or ():
            retried = getattr(attempt, "status", None)
            if isinstance(retried, int) and retried >= FIRST_ERROR_STATUS:
                _tally(record.retried, str(retried), MAX_STATUSES)
        status = getattr(response, "status", None)
        if isinstance(status, int) and status >= FIRST_ERROR_STATUS:
            _tally(record.statuses, str(status), MAX_STATUSES)
        elif status == NOT_MODIFIED:
            record.not_modified += 1
        elif status in REDIRECT_STATUSES:
            headers = getattr(response, "headers", None)
            location = headers.get("location") if headers is not None else None
            if isinstance(location, str):
                record.redirects += 1
                record.redirects_kept_path += _keeps_path(url, location)
                _tally(record.redirected_to, _destination(location, record.label),
                       MAX_PROXIED)

    def departs(self, pool: Any, method: Any, url: Any, caller: Any) -> str | None:
        """A request of *method* for *url* through *pool* is sent (*caller*: the frame
        that called urlopen): counted as a duplicate when one alike waits for its answer
        already.  Returns the key to give ``lands`` when its answer came (None: a
        request not counted so, a method other than GET or HEAD)."""
        record = self._record(pool)
        if record.sites_sampled < CALL_SITES_SAMPLED:
            record.sites_sampled += 1
            _tally(record.call_sites, call_site(caller), MAX_SITES)
        if method not in CACHEABLE_METHODS or not isinstance(url, str):
            return None
        url = url if len(url) <= URL_KEPT else url[:URL_KEPT]
        waiting = record.in_flight.get(url, 0)
        record.in_flight[url] = waiting + 1
        if waiting:
            record.duplicates += 1
            _tally(record.duplicated, url, MAX_DUPLICATED)
            record.duplicate_peak = max(record.duplicate_peak, waiting + 1)
            _tally(record.duplicate_sites, call_site(caller), MAX_SITES)
        return url

    def lands(self, pool: Any, url: str) -> None:
        """The request *departs* returned *url* for has its answer (or failed)."""
        in_flight = self._record(pool).in_flight
        waiting = in_flight.get(url, 0) - 1
        if waiting > 0:
            in_flight[url] = waiting
        else:
            in_flight.pop(url, None)

    def failed(self, pool: Any, error: BaseException, seconds: float, timeout: Any,
               site: str) -> None:
        """A request through *pool* raised *error* after *seconds*; *timeout* is the
        urllib3 ``Timeout`` it was given, *site* the line that made it."""
        record = self._record(pool)
        record.calls += 1
        record.failed += 1
        record.failed_s += seconds
        _tally(record.errors, error_name(error), MAX_ERRORS)
        _tally(record.sites, site, MAX_SITES)
        read = _read_timeout(timeout)
        if read is not None:
            record.read_timeout_s = max(record.read_timeout_s or 0.0, read)

    def events(self) -> list[dict[str, Any]]:
        """May be called from another thread (a snapshot): tables are copied first."""
        return [{"kind": EVENT_KIND, "pool": r.label, "pools": r.pools, "maxsize": r.maxsize,
                 "kept": r.kept or None, "managers": len(r.managers) or None,
                 "made_at": [[at, size] for at, size in list(r.made_at.items())],
                 "minsize": r.minsize,
                 "block": r.block, "checkouts": r.checkouts, "peak_in_use": r.peak_in_use,
                 "opened": r.opened, "discarded": r.discarded, "unreturned": r.in_use,
                 "calls": r.calls, "failed": r.failed, "failed_s": r.failed_s,
                 "closing": r.closing, "asked_close": r.asked_close, "gets": r.gets,
                 "distinct_gets": None if r.urls_over else len(r.urls),
                 "top_gets": _most_first(dict(r.urls))[:TOP_URLS],
                 "others": r.others,
                 "distinct_sent": None if r.sent_over else len(r.sent),
                 "same_requests": _same_requests(r),
                 "keyed": r.keyed,
                 "distinct_keys": None if r.keys_over else len(r.keys_seen),
                 "answers_changed": _answers_changed(r),
                 "oneoff_gets": r.oneoff_gets,
                 "distinct_oneoff": None if r.oneoff_seen_over else len(r.oneoff_seen),
                 "oneoff_sites": _most_first(r.oneoff_sites),
                 "oneoff_changed": _oneoff_changed(r), "set_aside": _most_first(r.set_aside),
                 "read_timeout_s": r.read_timeout_s,
                 "errors": _most_first(r.errors), "sites": _most_first(r.sites),
                 "statuses": _most_first(r.statuses), "retried": _most_first(r.retried),
                 "trails": {kind: list(counts) for kind, counts in r.trails.items()},
                 "heads_by_load": [list(b) for b in r.heads_by_load],
                 "heads_by_time": [list(b) for b in r.heads_by_time],
                 "nagle": r.nagle,
                 "sends": {kind: list(counts) for kind, counts in r.sends.items()},
                 "proxy": r.proxy, "proxied": _most_first(r.proxied),
                 "redirects": r.redirects, "redirected_to": _most_first(r.redirected_to),
                 "redirects_kept_path": r.redirects_kept_path,
                 "not_modified": r.not_modified,
                 "duplicates": r.duplicates, "duplicated": _most_first(r.duplicated),
                 "duplicate_peak": r.duplicate_peak,
                 "duplicate_sites": _most_first(r.duplicate_sites),
                 "call_sites": _most_first(r.call_sites),
                 "bodies": list(r.bodies), "plain_types": _most_first(r.plain_types),
                 "plain_asked": r.plain_asked, "plain_sites": _most_first(r.plain_sites),
                 **({"no_proxy": _no_proxy()} if r.proxy is not None else {})}
                for r in list(self._hosts.values()) if r.checkouts or r.discarded or r.calls]


# Bodies keyed by their hash up to this size: a token request's form or a lookup's JSON
# is small; hashing a large upload on every request would cost the program.
BODY_KEYED_MAX = 64 * 1024


def _same_requests(record: _Pool) -> list[list[Any]]:
    """The requests sent most often alike, GETs (as "GET url") and others, each
    [key, count, the line that first sent it], at most TOP_URLS, most first."""
    keyed = [(f"GET {k}", n, record.first_sites.get(k)) for k, n in
             dict(record.urls).items()]
    keyed += [(k, n, record.first_sites.get(k)) for k, n in dict(record.sent).items()]
    return [list(row) for row in sorted(keyed, key=lambda row: -row[1])[:TOP_URLS]]


def _answers_changed(record: _Pool) -> list[list[Any]]:
    """For each of ``same_requests``' keys whose answers had a Content-Length: [key,
    the times an answer's length differed from the one before]."""
    lengths = dict(record.answer_lengths)
    shown = {row[0] for row in _same_requests(record)}
    changed = [[f"GET {k}", lengths[k][1]] for k in dict(record.urls)
               if f"GET {k}" in shown and k in lengths]
    return changed + [[k, lengths[k][1]] for k in dict(record.sent)
                      if k in shown and k in lengths]


def _keeps_path(url: Any, location: str) -> bool:
    """Whether a redirect's *location* keeps the path of the request for *url* (a path or
    a whole URL): the same path elsewhere, or with a trailing slash added."""
    if not isinstance(url, str):
        return False
    try:
        asked, told = urllib.parse.urlsplit(url).path, urllib.parse.urlsplit(location).path
    except ValueError:
        return False
    return bool(asked) and told in (asked, asked + "/")


def _count_oneoff(record: _Pool, url: str, response: Any, caller: Any) -> None:
    """A GET of *url*, when it is one-off (oneoffurls.stable_key: read whole, before the
    URL is cut to URL_KEPT, which may cut a signature), counted by what it asked for."""
    oneoff = stable_key(url, time.time())
    if oneoff is None:
        return
    key, names = oneoff
    key = key if len(key) <= URL_KEPT else key[:URL_KEPT]
    record.oneoff_gets += 1
    record.oneoff_seen_over |= _remember(record.oneoff_seen, key)
    _tally(record.oneoff_sites, call_site(caller) if caller is not None else "<unknown>",
           MAX_SITES)
    _count_request(record, record.oneoff, key, None)
    _answer_length(record, key, response)
    for name in names:
        _tally(record.set_aside, name, MAX_SITES)


def _oneoff_changed(record: _Pool) -> list[Any]:
    """[the one-off GETs still counted one by one (the most asked: MAX_URLS of them at
    most), the times an answer to one of them changed length from the one before, the
    most asked of them (values set aside), or None]."""
    lengths = dict(record.answer_lengths)
    counted = _most_first(dict(record.oneoff))
    return [sum(n for _key, n in counted),
            sum((lengths.get(key) or [None, 0])[1] for key, _n in counted),
            counted[0][0] if counted else None]


def _answer_length(record: _Pool, key: str, response: Any) -> None:
    """The answer to the request just counted as *key*: its Content-Length noted, and a
    change from the one before counted (``answer_lengths``, pruned with the counts)."""
    headers = getattr(response, "headers", None)
    length = headers.get("content-length") if headers is not None else None
    if length is None:
        return
    entry = record.answer_lengths.get(key)
    if entry is None:
        record.answer_lengths[key] = [length, 0]
    elif entry[0] != length:
        entry[0] = length
        entry[1] += 1


def _sent_key(method: str, url: str, body: Any) -> str | None:
    """How requests of *method* other than GET are counted alike: method, URL and the
    body's hash; None for a body that cannot be keyed (a file, a generator, a large
    one)."""
    if body is None or (isinstance(body, (bytes, str)) and not body):
        return f"{method} {url}"
    if isinstance(body, (bytes, str)) and len(body) <= BODY_KEYED_MAX:
        return f"{method} {url} #{hash(body) & 0xFFFFFFFF:08x}"
    return None


def _seen(record: _Pool, key: str) -> None:
    """*key*'s request counted among the host's keyed ones, its hash remembered while
    there is room (MAX_KEYS_SEEN)."""
    record.keyed += 1
    record.keys_over |= _remember(record.keys_seen, key)


def _remember(seen: set[int], key: str) -> bool:
    """*key*'s hash added to *seen* while there is room (MAX_KEYS_SEEN); True when there
    was none for a key not seen before: the different keys were too many to count."""
    h = hash(key)
    if h in seen:
        return False
    if len(seen) < MAX_KEYS_SEEN:
        seen.add(h)
        return False
    return True


def _count_request(record: _Pool, counts: dict[str, int], key: str, caller: Any) -> bool:
    """*key* counted once more in *counts*, the program's line that sent it first kept.
    Past MAX_URLS different keys, the keys counted once make room (the most asked stay
    counted: a token fetched before each of 300 different lookups); True then: the
    different keys were too many to count.  After that a key's line is kept at its
    second sending (a line per key asked once would cost every varied request)."""
    pruned = False
    if key not in counts:
        if len(counts) >= MAX_URLS:
            _prune(record, counts)
            pruned = True
        if caller is not None and not pruned and len(record.first_sites) < 2 * MAX_URLS:
            record.first_sites[key] = call_site(caller)
    elif caller is not None and key not in record.first_sites \
            and len(record.first_sites) < 2 * MAX_URLS:
        record.first_sites[key] = call_site(caller)
    counts[key] = counts.get(key, 0) + 1
    return pruned


def _prune(record: _Pool, counts: dict[str, int]) -> None:
    """Room in a full *counts*: the keys asked least (once, nearly always) go, with their
    lines; amortised, each costs one more step of the requests that filled the table."""
    least = min(counts.values())
    for key in [k for k, n in counts.items() if n == least]:
        del counts[key]
        record.first_sites.pop(key, None)
        record.answer_lengths.pop(key, None)


def _closes(response: Any) -> bool:
    """Whether a urllib3 response's head says the server closes the connection after
    it: ``Connection: close``, or HTTP/1.0 without ``Connection: keep-alive``."""
    headers = getattr(response, "headers", None)
    if headers is None or not hasattr(headers, "get"):
        return False
    connection = str(headers.get("Connection", "")).lower()
    if "close" in connection:
        return True
    return getattr(response, "version", 11) == 10 and "keep-alive" not in connection


def _asks_close(headers: Any) -> bool:
    """Whether a request's *headers* (requests' case-insensitive dict, or a plain one)
    ask the server to close the connection after the response."""
    store = getattr(headers, "_store", None)
    if isinstance(store, dict):  # (an OrderedDict)
        # requests' CaseInsensitiveDict keeps lower-cased key -> (key, value): read
        # directly, a tenth of its get() (this runs once per request)
        pair = store.get("connection")
        value = pair[1] if pair else None
    elif hasattr(headers, "get"):
        value = headers.get("Connection") or headers.get("connection")
    else:
        return False
    return value is not None and "close" in str(value).lower()


def _body_read(record: _Pool, plain: bool, response: Any, seconds: float) -> None:
    """A body of *record*'s host was read (or dropped) *seconds* after its head."""
    size = response.tell() if response is not None else 0
    size = size if isinstance(size, int) and size > 0 else 0
    bodies = record.bodies
    bodies[0] += 1
    bodies[1] += size
    if plain:
        bodies[2] += 1
        bodies[3] += size
        bodies[4] += seconds


# Content-Type values seen -> the compressible type they name (None: not one), so that
# a response costs a dict lookup, not a parse; a program sees a handful of them.
_TYPES_SEEN: dict[Any, str | None] = {}
TYPES_SEEN_MAX = 256
# Accept-Encoding values seen -> whether they offer compression (the same reason).
_OFFERS_SEEN: dict[Any, bool] = {}


def _plain_type(content_type: Any, coding: Any) -> str | None:
    """The compressible type (``text/csv``) of a body sent as it is, by its head's
    *content_type* and *coding*; None when it is compressed, or not of such a type."""
    if coding and str(coding).strip().lower() != "identity":
        return None
    try:
        return _TYPES_SEEN[content_type]
    except (KeyError, TypeError):  # new, or not hashable (a header object of its own)
        pass
    kind = str(content_type).split(";", 1)[0].strip().lower() if content_type else ""
    plain = kind[:URL_KEPT] if kind and (kind.startswith("text/") or any(
        part in kind for part in COMPRESSIBLE_TYPES)) else None
    if len(_TYPES_SEEN) < TYPES_SEEN_MAX and isinstance(content_type, (str, type(None))):
        _TYPES_SEEN[content_type] = plain
    return plain


def _offers_compression(headers: Any) -> bool:
    """Whether request *headers* offer a content coding the server could compress with."""
    try:
        offered = headers.get("Accept-Encoding") if headers is not None else None
        if offered is None and headers is not None:  # a plain dict, in another case
            offered = next((v for k, v in headers.items()
                            if isinstance(k, str) and k.lower() == "accept-encoding"), None)
    except Exception:  # noqa: BLE001 - a header object of the program's own
        return True  # unknown: not counted as asking for plain bodies
    try:
        return _OFFERS_SEEN[offered]
    except (KeyError, TypeError):
        pass
    offers = any(coding in str(offered or "").lower() for coding in COMPRESSED_CODINGS)
    if len(_OFFERS_SEEN) < TYPES_SEEN_MAX and isinstance(offered, (str, type(None))):
        _OFFERS_SEEN[offered] = offers
    return offers


def time_bucket(seconds: float) -> int:
    """The heads_by_time bucket of a head that took *seconds*: 0 under 1 ms, 1 for 1-2
    ms, 2 for 2-4 ms, ... up to the last."""
    if not seconds > 0:
        return 0
    return min(int(min(seconds, 1e6) * 1e3).bit_length(), TIME_BUCKETS - 1)


def load_bucket(in_flight: int) -> int:
    """The heads_by_load bucket of a request sent while *in_flight* requests to its host
    awaited their heads (itself counted): 0 for 1, 1 for 2, 2 for 3-4, 3 for 5-8, ... up
    to the last."""
    return min(max(in_flight - 1, 0).bit_length(), LOAD_BUCKETS - 1)


def _kind(trail: list[Any]) -> str:
    return "new" if trail[1] else "reused"


def _without_nodelay(pool: Any) -> bool:
    """Whether *pool* makes its connections without TCP_NODELAY: the socket options it
    gives them (its class's defaults unless given) do not set it.  False when that
    cannot be told (options that are not a list or tuple are not read: a generator
    would be used up)."""
    try:
        given = getattr(pool, "conn_kw", None) or {}
        if "socket_options" in given:
            options = given["socket_options"] or ()  # None: no options set at all
        else:
            options = getattr(pool.ConnectionCls, "default_socket_options", None)
        if not isinstance(options, (list, tuple)):
            return False
        return not any(isinstance(o, (list, tuple)) and len(o) == 3
                       and o[0] == socket.IPPROTO_TCP and o[1] == socket.TCP_NODELAY and o[2]
                       for o in options)
    except Exception:  # noqa: BLE001 - a pool of some other kind: unknown
        return False


def count_rows(value: Any) -> list[tuple[str, int]]:
    """The well-formed ``[key, count]`` rows of a pool event's list (``statuses``,
    ``proxied``, ``redirected_to``): a str key and a positive count (profiles are
    untrusted: anything else is skipped)."""
    if not isinstance(value, list):
        return []
    return [(p[0], p[1]) for p in value if isinstance(p, list) and len(p) == 2
            and isinstance(p[0], str) and isinstance(p[1], int)
            and not isinstance(p[1], bool) and p[1] > 0]


def status_pairs(value: Any) -> list[tuple[str, int]]:
    """The well-formed ``[status, count]`` pairs of a pool event's ``statuses``."""
    return [(status, n) for status, n in count_rows(value) if status.isdigit()]


def _origin(url: Any) -> str:
    """``scheme://host:port`` of a urllib3 ``Url`` (a pool's ``proxy``)."""
    scheme = getattr(url, "scheme", None) or "http"
    port = getattr(url, "port", None) or (443 if scheme == "https" else 80)
    return f"{scheme}://{getattr(url, 'host', '?')}:{port}"


def _destination(url: Any, label: str) -> str:
    """The host a proxied request went to: its absolute URL's (a request sent to an
    HTTP proxy names its destination whole), else the pool's own (an HTTPS tunnel's
    pool is the destination's)."""
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:  # a port that is no number: the URL as far as it goes
            return url[:URL_KEPT]
        host = parts.hostname or "?"
        return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"
    return label


def _no_proxy() -> str | None:
    """The environment's NO_PROXY (requests reads no_proxy first), as the requests
    through a proxy saw it; None where neither is set."""
    return os.environ.get("no_proxy") or os.environ.get("NO_PROXY")


def _most_first(counts: dict[str, int]) -> list[list[Any]]:
    return sorted(([k, n] for k, n in list(counts.items())), key=lambda kn: -kn[1])


def _read_timeout(timeout: Any) -> float | None:
    """The read timeout of a urllib3 ``Timeout`` (its private ``_read``: the public
    property raises for a total-only Timeout not started), or of a plain number;
    None when it has none, or it is not finite."""
    read = getattr(timeout, "_read", timeout)
    if isinstance(read, bool) or not isinstance(read, (int, float)) \
            or not math.isfinite(read):
        return None
    return float(read)


def _tally(counts: dict[str, int], key: str, cap: int) -> None:
    if key in counts or len(counts) < cap:
        counts[key] = counts.get(key, 0) + 1


def error_name(error: BaseException) -> str:
    """The class of what went wrong: urllib3's MaxRetryError by the error it gave up on
    (requests' default adapter makes one attempt, so that is the failure itself)."""
    reason = getattr(error, "reason", None)
    if type(error).__name__ == "MaxRetryError" and isinstance(reason, BaseException):
        error = reason
    return type(error).__name__


def wrap_pool_use() -> list[Patch]:
    """Wrap urllib3's pool checkout, return and request, now or when urllib3 is imported;
    nothing when urllib3 is never imported."""
    return wrap_when_loaded([GET_CONN, PUT_CONN, URLOPEN, NEW_POOL, NEW_MANAGER,
                             *CONNECTS], _make)


def _tracer() -> Any:
    """This thread's active tracer, if it watches pools."""
    tracer = _tracers.get(get_ident()) if _tracers else None
    return tracer if getattr(tracer, "_pool_watch", None) is not None else None


def _make(dotted: str, original: Any) -> Any:
    if is_ours(original):
        return None  # a tracer in another thread wrapped it already
    wrapper = _connect(original) if dotted in CONNECTS else \
        {GET_CONN: _get_conn, PUT_CONN: _put_conn, URLOPEN: _urlopen,
         NEW_POOL: _new_pool, NEW_MANAGER: _new_manager}[dotted](original)
    return mark_wrapper(wrapper, original)


def _get_conn(original: Any) -> Any:
    def get_conn(self: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracer()
        if tracer is None:
            return original(self, *args, **kwargs)
        try:
            mark = tracer._pool_watch.mark(self)
        except Exception as exc:  # noqa: BLE001 - never raised into the program
            tracer._trace_error(exc)
            return original(self, *args, **kwargs)
        conn = original(self, *args, **kwargs)
        try:
            tracer._pool_watch.checked_out(mark, self.num_connections)
            tracer._pool_watch.lent(conn, mark)
        except Exception as exc:  # noqa: BLE001
            tracer._trace_error(exc)
        return conn
    return get_conn


def _put_conn(original: Any) -> Any:
    def put_conn(self: Any, conn: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracer()
        if tracer is None:
            return original(self, conn, *args, **kwargs)
        discarded = False
        try:
            # a full queue makes urllib3 close the connection (or raise, when it
            # blocks); its length read without its lock: the put is in this thread
            queue = self.pool
            discarded = conn is not None and queue is not None and not self.block \
                and len(queue.queue) >= queue.maxsize > 0
        except Exception as exc:  # noqa: BLE001
            tracer._trace_error(exc)
        try:
            tracer._pool_watch.body_done(self, conn, time.perf_counter())
        except Exception as exc:  # noqa: BLE001
            tracer._trace_error(exc)
        try:
            return original(self, conn, *args, **kwargs)
        finally:
            try:
                tracer._pool_watch.returned(self, discarded)
            except Exception as exc:  # noqa: BLE001
                tracer._trace_error(exc)
    return put_conn


def _new_pool(original: Any) -> Any:
    def new_pool(self: Any, *args: Any, **kwargs: Any) -> Any:
        pool = original(self, *args, **kwargs)
        tracer = _tracer()
        if tracer is not None:
            try:
                _stamp_made_by(pool, self)
            except Exception as exc:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(exc)
        return pool
    return new_pool


def _stamp_made_by(pool: Any, manager: Any) -> None:
    """Stamp *pool* with *manager* and how many hosts' pools it keeps (_MADE_BY)."""
    serial = getattr(manager, _SERIAL, None)
    if serial is None:
        serial = next(_serials)
        setattr(manager, _SERIAL, serial)
    kept = int(getattr(getattr(manager, "pools", None), "_maxsize", 0) or 0)
    setattr(pool, _MADE_BY, (serial, kept, getattr(manager, _MADE_AT, None)))


def _new_manager(original: Any) -> Any:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        tracer = _tracer()
        if tracer is not None:
            try:
                setattr(self, _MADE_AT, call_site(sys._getframe(1)))
            except Exception as exc:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(exc)
    return init


def _connect(original: Any) -> Any:
    def connect(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        tracer = _tracer()
        if tracer is not None:
            try:
                tracer._pool_watch.connected(self, time.perf_counter())
            except Exception as exc:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(exc)
        return result
    return connect


def _urlopen(original: Any) -> Any:
    def urlopen(self: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _tracer()
        key = id(greenlet.getcurrent())
        if tracer is None or key in tracer._pool_watch.in_urlopen:
            return original(self, *args, **kwargs)
        watch = tracer._pool_watch
        calling = watch.in_urlopen
        calling.add(key)
        method = kwargs["method"] if "method" in kwargs else args[0] if args else None
        url = kwargs["url"] if "url" in kwargs else args[1] if len(args) > 1 else None
        flight = None
        try:
            flight = watch.departs(self, method, url, sys._getframe(1))
        except Exception as err:  # noqa: BLE001 - never raised into the program
            tracer._trace_error(err)
        started = time.perf_counter()
        try:
            response = original(self, *args, **kwargs)
        except _NOT_FAILURES:
            raise
        except BaseException as exc:  # a gevent.Timeout too: the caller's time limit
            try:
                watch.failed(self, exc, time.perf_counter() - started,
                             kwargs.get("timeout"), call_site(sys._getframe(1)))
            except Exception as err:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(err)
            raise
        finally:
            calling.discard(key)
            try:
                watch.settle(key)
            except Exception as err:  # noqa: BLE001 - never raised into the program
                tracer._trace_error(err)
            if flight is not None:
                try:
                    watch.lands(self, flight)
                except Exception as err:  # noqa: BLE001
                    tracer._trace_error(err)
        try:
            headers = kwargs["headers"] if "headers" in kwargs else args[3] \
                if len(args) > 3 else None
            body = kwargs["body"] if "body" in kwargs else args[2] if len(args) > 2 else None
            watch.answered(self, response, _asks_close(headers), method, url, body,
                           sys._getframe(1))
            # requests reads the body after this (preload_content=False): the response
            # still holds its connection until then; a preloaded one has let it go
            conn = getattr(response, "_connection", None)
            if conn is not None:
                empty = body is None or (isinstance(body, (bytes, str)) and not body)
                watch.head_arrived(self, conn, getattr(response, "length_remaining", None),
                                   not empty, started, time.perf_counter())
            watch.body_begins(self, conn, response, headers, sys._getframe(1),
                              time.perf_counter())
        except Exception as err:  # noqa: BLE001
            tracer._trace_error(err)
        return response
    return urlopen
