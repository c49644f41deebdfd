"""PoolWatch: what urllib3's connection pools did while a Tracer ran, on real pools.

The counts are made exact by construction: the tests check connections out of a real
``HTTPConnectionPool`` (urllib3 makes its connection objects lazily, so no socket is
needed until a request is sent) and put them back, or send real requests to a
kept-alive server on 127.0.0.1 that counts the connections it accepted.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
from typing import Any

import greenlet
import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.poolmanager import PoolManager

import geventperf
from geventperf import poolwatch
from geventperf.poolwatch import CALL_SITES_SAMPLED, LOAD_BUCKETS, TIME_BUCKETS
from tests.servers import RawServer, http_response

UNWRAPPED_MANAGER_INIT = PoolManager.__init__


def _pools(profile):
    return [e for e in profile.events if e["kind"] == poolwatch.EVENT_KIND]


def _churn(pool, out):
    """Check *out* connections out of *pool* at once, then put them all back."""
    conns = [pool._get_conn() for _ in range(out)]
    for conn in conns:
        pool._put_conn(conn)


@pytest.fixture
def kept():
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True) as srv:
        yield srv


def test_a_full_pool_discards_what_comes_back_beyond_its_size():
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=2)
    with geventperf.Tracer(sections=None) as tracer:
        _churn(pool, 5)  # 2 from the pool's empty slots + 3 made: 5 made, 3 discarded
        _churn(pool, 3)  # the 2 kept + 1 made, 1 discarded
    [event] = _pools(tracer.profile)
    assert event == {"kind": "urllib3-pool", "pool": "http://127.0.0.1:9", "pools": 1, "maxsize": 2,
                     "minsize": 2, "kept": None, "managers": None, "made_at": [],  # no PoolManager
                     "block": False, "checkouts": 8, "peak_in_use": 5, "opened": 6,
                     "discarded": 4, "unreturned": 0, "calls": 0, "failed": 0, "closing": 0,
                     "asked_close": 0, "gets": 0, "distinct_gets": 0, "top_gets": [],
                     "others": 0, "distinct_sent": 0, "same_requests": [], "keyed": 0,
                     "distinct_keys": 0, "answers_changed": [], "oneoff_gets": 0,
                     "distinct_oneoff": 0, "oneoff_sites": [], "oneoff_changed": [0, 0, None],
                     "set_aside": [],
                     "failed_s": 0.0, "read_timeout_s": None, "errors": [], "sites": [],
                     "statuses": [], "retried": [],
                     "trails": {"new": [0, 0, 0.0, 0.0, 0.0],
                                "reused": [0, 0, 0.0, 0.0, 0.0]},
                     "nagle": False, "sends": {"new": [0, 0.0], "reused": [0, 0.0]},
                     "heads_by_load": [[0, 0.0]] * LOAD_BUCKETS,
                     "heads_by_time": [[0, 0.0]] * TIME_BUCKETS,
                     "proxy": None, "proxied": [], "redirects": 0, "redirected_to": [],
                     "redirects_kept_path": 0,
                     "not_modified": 0,
                     "duplicates": 0, "duplicated": [], "duplicate_peak": 0,
                     "duplicate_sites": [], "call_sites": [], "bodies": [0, 0, 0, 0, 0.0],
                     "plain_types": [], "plain_asked": 0, "plain_sites": []}
    assert pool.num_connections == 6  # urllib3's own count agrees


def test_requests_on_kept_alive_connections_open_one_each_in_flight(kept):
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _ in range(5):
            assert session.get(kept.url + "/", timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    assert (event["checkouts"], event["peak_in_use"], event["opened"],
            event["discarded"], event["maxsize"]) == (5, 1, 1, 0, 10)
    assert event["pool"] == f"http://127.0.0.1:{kept.port}"
    assert kept.connections == 1
    # each body timed after its head: the first on the connection made for it
    assert [event["trails"][kind][0] for kind in ("new", "reused")] == [1, 4]
    # each head timed, sent with itself alone in flight
    assert [n for n, _ in event["heads_by_load"]] == [5] + [0] * (LOAD_BUCKETS - 1)


def test_pools_record_the_hosts_their_manager_keeps_and_how_many_managers_made_them(kept):
    """A Session's PoolManager keeps pool_connections hosts' pools: that, not requests'
    default, says whether pools made again were closed past it; two Sessions reaching
    one host make a pool each, by two managers (an unseen rollout's Session per rollout
    was told "keeps pools for 10", where it kept 160)."""
    def sessions(count):
        with geventperf.Tracer(sections=None) as tracer:
            for _ in range(count):
                with requests.Session() as session:
                    session.mount("http://", HTTPAdapter(pool_connections=3))
                    assert session.get(kept.url + "/", timeout=10).content == b"ok"
        [event] = _pools(tracer.profile)
        return event["pools"], event["kept"], event["managers"]
    assert sessions(1) == (1, 3, 1)
    assert sessions(2) == (2, 3, 2)
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        session.get(kept.url + "/", timeout=10)
    [event] = _pools(tracer.profile)
    assert event["kept"] == 10  # requests' default pool_connections
    assert event["made_at"] == []  # its manager was made before tracing began


def test_pools_record_the_programs_line_that_made_their_manager(kept):
    """The line mounting an adapter sets its pool_maxsize: a full pool's finding points
    there (unseen testers were sent to the request's line)."""
    with geventperf.Tracer(sections=None) as tracer:
        with requests.Session() as session:
            line = sys._getframe().f_lineno + 1
            session.mount("http://", HTTPAdapter(pool_maxsize=3))
            session.get(kept.url + "/", timeout=10)
    [event] = _pools(tracer.profile)
    assert event["made_at"] == [[f"{__file__}:{line}:"
                                 "test_pools_record_the_programs_line_that_made_their_manager",
                                 3]], event["made_at"]
    assert PoolManager.__init__ is UNWRAPPED_MANAGER_INIT  # restored at stop


def test_heads_are_counted_by_the_requests_in_flight_when_sent():
    """Eight greenlets send a request each on a new connection: the first was sent with
    itself alone awaiting its head, the eighth with eight; each head's time lands in its
    buckets of load and of time (the connects end and the heads come as urllib3 reports
    them, here by hand: 10 ms apart)."""
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=8)

    def send() -> Any:
        conn = pool._get_conn()  # new: sent once connected, not at its checkout
        tracer._pool_watch.connected(conn, 0.0)
        return conn

    with geventperf.Tracer(sections=None) as tracer:
        senders = [greenlet.greenlet(send) for _ in range(8)]  # kept: ids stay theirs
        conns = [g.switch() for g in senders]
        for i, conn in enumerate(conns):
            tracer._pool_watch.head_arrived(pool, conn, 2, False, 0.0, 0.01 * (i + 1))
        for conn in conns:
            pool._put_conn(conn)
    [event] = _pools(tracer.profile)
    # 1, 2, 3-4, 5-8 in flight
    assert event["heads_by_load"][:5] == [
        [1, pytest.approx(0.01)], [1, pytest.approx(0.02)], [2, pytest.approx(0.07)],
        [4, pytest.approx(0.26)], [0, 0.0]], event["heads_by_load"]
    # and by how long each took: 10 ms (8-16 ms), 20-30 ms (16-32), 40-80 ms (32-64,
    # 64-128)
    assert [n for n, _ in event["heads_by_time"][:8]] == [0, 0, 0, 0, 1, 2, 3, 2], \
        event["heads_by_time"]


def test_requests_through_a_proxy_record_it_and_where_they_went(kept, monkeypatch):
    # the kept-alive server stands in for an HTTP proxy (it answers the absolute-form
    # requests a proxy is sent); the destinations are only named, never connected to
    monkeypatch.setenv("NO_PROXY", "localhost,.svc.cluster.local")
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        session.trust_env = False  # the proxy given here, whatever the environment says
        session.proxies = {"http": kept.url}
        for _ in range(3):
            assert session.get("http://127.0.0.1:9/item", timeout=10).content == b"ok"
        assert session.get("http://10.1.2.3:8080/x", timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    proxy = f"http://127.0.0.1:{kept.port}"
    assert event["pool"] == proxy and event["proxy"] == proxy, event
    assert event["proxied"] == [["http://127.0.0.1:9", 3], ["http://10.1.2.3:8080", 1]]
    assert event["no_proxy"] == "localhost,.svc.cluster.local"
    assert kept.connections == 1  # one kept-alive connection to the proxy


def test_requests_sent_directly_record_no_proxy(kept):
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        session.trust_env = False
        assert session.get(kept.url + "/", timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    assert event["proxy"] is None and event["proxied"] == [] and "no_proxy" not in event


def _split(head):
    """The response's head and body in two sends (Nagle's algorithm on, as accepted)."""
    response = http_response(b"ok")
    return [response[:-2], response[-2:]]


def test_bodies_held_for_the_ack_stall_on_reused_connections_only():
    """The kernel's own delayed ACK (Linux, loopback): a new connection's first body
    comes at once, a reused one's waits for the ACK of its head; with quickack no
    body waits.  [responses, stalled, seconds, seconds stalled, seconds to the heads]
    per kind."""
    with RawServer(_split, keep_alive=True) as srv:
        for quickack in (False, True):
            with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
                geventperf.mount(session, quickack=quickack)
                for _ in range(6):
                    assert session.get(srv.url + "/", timeout=10).content == b"ok"
            [event] = _pools(tracer.profile)
            new, reused = event["trails"]["new"], event["trails"]["reused"]
            assert new[:2] == [1, 0] and reused[0] == 5, event
            if quickack:
                assert reused[1] == 0, event
            else:
                assert reused[1] >= 3 and reused[3] >= reused[1] * poolwatch.STALL_MIN_S, event
            assert 0 < reused[4] < 10 * reused[0], event  # the heads came at once


def test_responses_saying_connection_close_are_counted(kept):
    """The server's closes are told from this side's by the heads that announce them:
    Connection: close, or HTTP/1.0 without keep-alive; a kept-alive answer is none."""
    closing = [http_response(b"ok", headers=[("Connection", "close")]),
               http_response(b"ok").replace(b"HTTP/1.1", b"HTTP/1.0", 1)]
    for answer in closing:
        with RawServer(lambda head, a=answer: [a], keep_alive=False) as srv, \
                requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
            for _ in range(3):
                assert session.get(srv.url + "/", timeout=10).content == b"ok"
        [event] = _pools(tracer.profile)
        assert (event["calls"], event["closing"]) == (3, 3), event
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _ in range(3):
            assert session.get(kept.url + "/", timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    assert (event["calls"], event["closing"]) == (3, 0), event


def test_requests_asking_for_close_themselves_are_counted():
    """A request's own Connection: close (the session's headers, or the call's) is
    counted apart from the heads: the server may close as asked without saying so.
    (A server that closes every connection, saying so: an in-process one closing as
    asked, silently, races the client's next request on the same connection.)"""
    closing = http_response(b"ok", headers=[("Connection", "close")])
    with RawServer(lambda head: [closing]) as kept, requests.Session() as session, \
            geventperf.Tracer(sections=None) as tracer:
        session.headers["Connection"] = "close"
        for _ in range(3):
            assert session.get(kept.url + "/", timeout=10).content == b"ok"
        assert session.get(kept.url + "/", headers={"Connection": "keep-alive"},
                           timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    assert (event["calls"], event["asked_close"]) == (4, 3), event


def test_get_urls_are_counted_by_url_up_to_a_cap(kept, monkeypatch):
    """GET and HEAD requests count per URL (a cache's lever: the same answers fetched
    again); a POST is none; past MAX_URLS different ones the different ones are too many
    to count (None), and those asked once make room: the most asked stay counted."""
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for n in range(12):
            session.get(f"{kept.url}/item/{n % 3}?q=1", timeout=10).raise_for_status()
        session.head(f"{kept.url}/item/0?q=1", timeout=10).raise_for_status()
        session.post(f"{kept.url}/item/9", data=b"x", timeout=10)
    [event] = _pools(tracer.profile)
    assert (event["gets"], event["distinct_gets"]) == (13, 3), event
    assert event["top_gets"] == [["/item/0?q=1", 5], ["/item/1?q=1", 4],
                                 ["/item/2?q=1", 4]], event
    monkeypatch.setattr(poolwatch, "MAX_URLS", 4)
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for n in range(12):  # a token before each of 12 different lookups
            session.get(f"{kept.url}/token", timeout=10).raise_for_status()
            session.get(f"{kept.url}/item/{n}", timeout=10).raise_for_status()
    [event] = _pools(tracer.profile)
    assert (event["gets"], event["distinct_gets"]) == (24, None), event
    assert event["top_gets"][0] == ["/token", 12], event
    [token] = [row for row in event["same_requests"] if row[0] == "GET /token"]
    assert token[1] == 12 and token[2].endswith("test_get_urls_are_counted_by_url_up_to_a_cap")


def test_requests_sent_alike_are_counted_with_the_line_that_sent_them(kept):
    """Other methods count per method, URL and body (a token POSTed again and again);
    a body that is not bytes or str is not keyed; every request's first line is kept."""
    def token(session):
        return session.post(f"{kept.url}/token", data={"grant_type": "x"}, timeout=10)

    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for n in range(4):
            token(session).raise_for_status()
            session.post(f"{kept.url}/ack", data=b"%d" % n, timeout=10).raise_for_status()
            session.get(f"{kept.url}/item/{n}", timeout=10).raise_for_status()
        session.post(f"{kept.url}/ack", data=iter([b"a"]), timeout=10).raise_for_status()
    [event] = _pools(tracer.profile)
    assert (event["others"], event["distinct_sent"]) == (9, 5), event
    [top, *rest] = event["same_requests"]
    assert top[0].startswith("POST /token #") and top[1] == 4, event
    assert top[2].endswith(f"test_poolwatch.py:{token.__code__.co_firstlineno + 1}:token"), top
    assert [n for _key, n, _site in rest] == [1, 1], event
    # the lines that made the host's first calls, whatever their method
    sites = dict(event["call_sites"])
    assert sites[top[2]] == 4 and sum(sites.values()) == 13 and len(sites) == 4, event
    # the keyed requests: 4 GETs, 4 token POSTs alike, 4 acks of different bodies (the
    # iterator's body is not keyed): 9 different of 12
    assert (event["keyed"], event["distinct_keys"]) == (12, 9), event


def test_different_requests_are_counted_past_the_tables_by_their_hash(kept, monkeypatch):
    """A cache cycling through more keys than MAX_URLS sends each again: the keyed
    requests and their different keys still say so; past MAX_KEYS_SEEN, None."""
    monkeypatch.setattr(poolwatch, "MAX_URLS", 4)
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _round in range(3):
            for n in range(10):
                session.post(f"{kept.url}/series", data=b"%d" % n, timeout=10)
    [event] = _pools(tracer.profile)
    assert event["distinct_sent"] is None, event  # too many for the table
    assert (event["keyed"], event["distinct_keys"]) == (30, 10), event
    monkeypatch.setattr(poolwatch, "MAX_KEYS_SEEN", 8)
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for n in range(10):
            session.get(f"{kept.url}/item/{n}", timeout=10)
    [event] = _pools(tracer.profile)
    assert (event["keyed"], event["distinct_keys"]) == (10, None), event


def test_a_hosts_call_sites_are_tallied_from_its_first_calls_only(kept):
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _ in range(CALL_SITES_SAMPLED + 10):
            session.get(f"{kept.url}/item", timeout=10).raise_for_status()
    [event] = _pools(tracer.profile)
    [(site, n)] = event["call_sites"]
    assert n == CALL_SITES_SAMPLED and site.endswith(
        "test_a_hosts_call_sites_are_tallied_from_its_first_calls_only"), event


def test_a_body_over_the_timed_size_is_not_timed():
    """A large body takes its own time after its head: not taken for a stall."""
    body = b"x" * (poolwatch.TIMED_BODY_MAX + 1)
    with RawServer(lambda head: [http_response(body)], keep_alive=True) as srv, \
            requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _ in range(3):
            assert session.get(srv.url + "/", timeout=10).content == body
    [event] = _pools(tracer.profile)
    assert event["calls"] == 3 and event["trails"] == {
        "new": [0, 0, 0.0, 0.0, 0.0], "reused": [0, 0, 0.0, 0.0, 0.0]}, event


@pytest.mark.parametrize(("conn_kw", "nagle"), [
    ({}, False),  # urllib3's default options: TCP_NODELAY
    ({"socket_options": [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]}, True),  # replaced
    ({"socket_options": None}, True),  # no options at all
    ({"socket_options": [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]}, False),
    ({"socket_options": [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)]}, True),
    ({"socket_options": [[socket.IPPROTO_TCP, socket.TCP_NODELAY, 1]]}, False),  # lists
    ({"socket_options": iter(())}, False),  # not read (it would be used up): unknown
])
def test_pools_tell_whether_their_connections_set_tcp_nodelay(kept, conn_kw, nagle):
    pool = HTTPConnectionPool("127.0.0.1", kept.port, maxsize=1, **conn_kw)
    with geventperf.Tracer(sections=None) as tracer:
        pool._put_conn(pool._get_conn())
    [event] = _pools(tracer.profile)
    assert event["nagle"] is nagle, event


def test_requests_that_send_a_body_are_timed_to_their_answer():
    """[requests, seconds to their heads] per connection kind, for those with a body."""
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True,
                   read_bodies=True) as srv, requests.Session() as session, \
            geventperf.Tracer(sections=None) as tracer:
        for n in range(4):
            assert session.post(srv.url + "/", data=b"x" * n, timeout=10).content == b"ok"
        assert session.get(srv.url + "/", timeout=10).content == b"ok"
    [event] = _pools(tracer.profile)
    # the first post sent an empty body: not counted; the get sent none
    assert event["sends"]["new"] == [0, 0.0] and event["sends"]["reused"][0] == 3, event
    assert event["sends"]["reused"][1] > 0 and event["nagle"] is False, event


def test_a_new_connections_wait_for_its_head_starts_after_its_set_up(kept):
    """The time to the head leaves out a new connection's lookup, connect and TLS: the
    connection carries when its set-up ended, for this request only."""
    pool = HTTPConnectionPool("127.0.0.1", kept.port, maxsize=1)
    with geventperf.Tracer(sections=None):
        set_up = []
        for _ in range(2):
            response = pool.urlopen("GET", "/", preload_content=False)
            set_up.append(response._connection._geventperf_trail[4])
            assert response.read() == b"ok"
            response.release_conn()
    assert set_up[0] is not None and set_up[1] is None, set_up


def test_a_preloaded_response_is_not_timed(kept):
    """urllib3 reads a preloaded body and lets its connection go inside urlopen, before
    the head could be told apart from the body: nothing to time."""
    pool = HTTPConnectionPool("127.0.0.1", kept.port, maxsize=1)
    with geventperf.Tracer(sections=None) as tracer:
        for _ in range(3):
            assert pool.urlopen("GET", "/", preload_content=True).data == b"ok"
    [event] = _pools(tracer.profile)
    assert event["calls"] == 3 and event["trails"]["reused"][0] == 0 \
        and event["trails"]["new"][0] == 0, event


def test_a_blocking_pool_is_marked_and_counts_no_discards():
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=2, block=True)
    with geventperf.Tracer(sections=None) as tracer:
        conns = [pool._get_conn() for _ in range(2)]
        for conn in conns:
            pool._put_conn(conn)
    [event] = _pools(tracer.profile)
    assert event["block"] is True and event["discarded"] == 0 and event["peak_in_use"] == 2


def test_originals_are_back_after_stop_and_other_threads_are_not_recorded():
    get, put = HTTPConnectionPool._get_conn, HTTPConnectionPool._put_conn
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=1)
    with geventperf.Tracer(sections=None) as tracer:
        assert HTTPConnectionPool._get_conn is not get
        # a tracer traces its own thread: another thread's pool use is not its own
        other = threading.Thread(target=_churn, args=(pool, 4))
        other.start()
        other.join()
    assert (HTTPConnectionPool._get_conn, HTTPConnectionPool._put_conn) == (get, put)
    assert _pools(tracer.profile) == []
    _churn(pool, 3)  # unwatched, and nothing breaks


def test_a_failing_watch_never_raises_into_the_program(monkeypatch, kept):
    def broken(*args):
        raise RuntimeError("the watch broke")

    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        monkeypatch.setattr(tracer._pool_watch, "checked_out", broken)
        monkeypatch.setattr(tracer._pool_watch, "returned", broken)
        assert session.get(kept.url + "/", timeout=10).content == b"ok"
    assert tracer.profile.trace_errors == 2


def test_pools_past_the_cap_fold_into_one_record():
    pools = [HTTPConnectionPool("127.0.0.1", 1000 + i, maxsize=1)
             for i in range(poolwatch.MAX_POOLS + 3)]
    with geventperf.Tracer(sections=None) as tracer:
        for pool in pools:
            _churn(pool, 2)  # 2 made, 1 discarded each
    events = _pools(tracer.profile)
    assert len(events) == poolwatch.MAX_POOLS + 1
    [other] = [e for e in events if e["pool"] == poolwatch.OTHER_POOLS]
    assert (other["checkouts"], other["opened"], other["discarded"]) == (6, 6, 3)
    assert sum(e["opened"] for e in events) == 2 * len(pools)


def test_reset_forgets_the_pools():
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=1)
    tracer = geventperf.Tracer(sections=None).start()
    try:
        _churn(pool, 3)
        tracer.reset()
        _churn(pool, 1)
    finally:
        tracer.stop()
    [event] = _pools(tracer.profile)
    assert (event["checkouts"], event["opened"], event["discarded"]) == (1, 0, 0)


def test_urllib3_imported_while_tracing_is_watched_from_its_import(tmp_path):
    script = textwrap.dedent("""
        import json, sys
        assert "urllib3" not in sys.modules
        import geventperf
        with geventperf.Tracer(sections=None) as tracer:
            from urllib3.connectionpool import HTTPConnectionPool
            pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=1)
            conns = [pool._get_conn() for _ in range(3)]
            for conn in conns:
                pool._put_conn(conn)
        print(json.dumps([e for e in tracer.profile.events if e["kind"] == "urllib3-pool"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [event] = json.loads(done.stdout)
    assert (event["opened"], event["discarded"], event["peak_in_use"]) == (3, 2, 3)


def test_a_mounted_adapter_pool_reports_its_own_size(kept):
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        session.mount("http://", HTTPAdapter(pool_maxsize=3))
        session.get(kept.url + "/", timeout=10)
    [event] = _pools(tracer.profile)
    assert event["maxsize"] == 3


def test_malformed_pool_events_are_skipped_not_raised():
    from geventperf.findings.connections import connection_churn
    from geventperf.profile import Profile
    events = [{"kind": "urllib3-pool"}, {"kind": "urllib3-pool", "pool": 7},
              {"kind": "urllib3-pool", "pool": "http://a:80", "opened": "many",
               "discarded": None, "peak_in_use": [], "maxsize": {}},
              {"kind": "urllib3-pool", "pool": "http://a:80", "opened": 1e300,
               "discarded": float("nan"), "peak_in_use": -5, "maxsize": True},
              {"kind": "urllib3-pool", "pool": "http://b:80", "opened": float("inf"),
               "discarded": 50, "peak_in_use": 20, "maxsize": 10}]
    assert connection_churn(Profile(duration_s=1.0, events=events)) == []


def test_connections_never_put_back_are_counted_unreturned():
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=2)
    with geventperf.Tracer(sections=None) as tracer:
        kept_out = [pool._get_conn() for _ in range(3)]
        pool._put_conn(kept_out.pop())
    [event] = _pools(tracer.profile)
    assert (event["unreturned"], event["peak_in_use"], event["opened"]) == (2, 3, 3)


def test_failed_requests_are_counted_by_error_with_their_time_and_line(kept):
    silent = RawServer(lambda head: [0.5], keep_alive=False)  # reads, never answers
    with silent, requests.Session() as session, \
            geventperf.Tracer(sections=None) as tracer:
        for _ in range(3):
            with pytest.raises(requests.exceptions.ReadTimeout):
                session.get(silent.url + "/", timeout=0.05)  # the failing line
        with pytest.raises(requests.exceptions.ConnectionError):
            session.get(kept.url.replace(str(kept.port), str(_closed_port())) + "/",
                        timeout=1)
        assert session.get(kept.url + "/", timeout=10).content == b"ok"
    events = {e["pool"]: e for e in _pools(tracer.profile)}
    hung = events[f"http://127.0.0.1:{silent.port}"]
    assert (hung["calls"], hung["failed"], hung["errors"]) == (3, 3, [["ReadTimeoutError", 3]])
    assert hung["read_timeout_s"] == 0.05 and hung["failed_s"] >= 3 * 0.05
    [[site, count]] = hung["sites"]
    assert count == 3 and site.endswith(":test_failed_requests_are_counted_by_error_with_their_time_and_line")
    refused = [e for e in events.values() if e["errors"] and e is not hung]
    assert [e["errors"] for e in refused] == [[["NewConnectionError", 1]]]
    fine = events[f"http://127.0.0.1:{kept.port}"]
    assert (fine["calls"], fine["failed"]) == (1, 0)


def test_retries_inside_one_request_count_as_one_call(kept):
    from urllib3.util.retry import Retry
    port = _closed_port()
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        session.mount("http://", HTTPAdapter(max_retries=Retry(connect=2, backoff_factor=0)))
        with pytest.raises(requests.exceptions.ConnectionError):
            session.get(f"http://127.0.0.1:{port}/", timeout=1)
    [event] = _pools(tracer.profile)
    assert (event["calls"], event["failed"], event["errors"]) == \
        (1, 1, [["NewConnectionError", 1]])


def test_error_answers_are_counted_by_status_and_retries_apart(kept):
    """A 503 raises nothing (no failure), yet a back-off on it looks like a program
    waiting on its own: answers of 400 or more are counted by status.  urllib3's Retry
    on a status tries again inside one call: the pools table tells those apart, with
    the statuses retried (``retried``, from the final answer's Retry history)."""
    from urllib3.util.retry import Retry
    busy = http_response(b"busy", status="503 Service Unavailable")
    answers = iter([busy] * 4 + [http_response(b"ok"),
                                 http_response(b"no", status="404 Not Found")])

    with RawServer(lambda head: [next(answers)], keep_alive=True) as srv, \
            requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        assert [session.get(srv.url + "/", timeout=10).status_code
                for _ in range(3)] == [503, 503, 503]
        # one call retried on its 503s: the first attempt's 503 is urllib3's, not counted
        session.mount("http://", HTTPAdapter(max_retries=Retry(
            total=2, status_forcelist=[503], backoff_factor=0)))
        assert session.get(srv.url + "/", timeout=10).status_code == 200
        assert session.get(srv.url + "/", timeout=10).status_code == 404
    [event] = _pools(tracer.profile)
    assert event["statuses"] == [["503", 3], ["404", 1]], event
    assert event["retried"] == [["503", 1]], event
    assert (event["calls"], event["checkouts"]) == (5, 6), event
    lines = tracer.profile.render("text").splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith(srv.url)]
    assert lines[at].split()[1:3] == ["5", "0"], lines[at]  # requests, failed
    assert lines[at + 1].split() == ["retried", "1", "(urllib3's", "Retry,", "after",
                                     "503x1);", "error", "answers", "503x3", "404x1"], \
        lines[at + 1]


def _closed_port() -> int:
    """A port on 127.0.0.1 with nothing listening (bound, then closed)."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_pools_of_one_host_made_one_after_another_add_up():
    # a Session per call: each pool is dropped before the next is made, so a new one
    # may get a freed one's address; each must count as a pool of its own
    with geventperf.Tracer(sections=None) as tracer:
        for _ in range(5):
            _churn(HTTPConnectionPool("127.0.0.1", 9, maxsize=1), 1)
    [event] = _pools(tracer.profile)
    assert (event["pools"], event["checkouts"], event["opened"]) == (5, 5, 5)


def test_pools_of_one_host_in_several_sizes_keep_the_smallest_and_largest():
    # two Sessions of different sizes on one host: the smaller discards first
    with geventperf.Tracer(sections=None) as tracer:
        _churn(HTTPConnectionPool("127.0.0.1", 9, maxsize=5), 1)
        _churn(HTTPConnectionPool("127.0.0.1", 9, maxsize=2), 1)
    [event] = _pools(tracer.profile)
    assert (event["pools"], event["minsize"], event["maxsize"]) == (2, 2, 5)


def test_a_pool_seen_by_an_earlier_tracer_counts_from_this_one():
    pool = HTTPConnectionPool("127.0.0.1", 9, maxsize=1)
    with geventperf.Tracer(sections=None):
        _churn(pool, 3)
    with geventperf.Tracer(sections=None) as tracer:
        _churn(pool, 2)  # the kept one and one more
    [event] = _pools(tracer.profile)
    assert (event["pools"], event["checkouts"], event["opened"], event["discarded"]) == \
        (1, 2, 1, 1)


def test_the_reports_show_the_pools_by_host(kept):
    with requests.Session() as session, geventperf.Tracer(sections=None) as tracer:
        for _ in range(3):
            session.get(kept.url + "/", timeout=10)
    profile = tracer.profile
    text = profile.render("text")
    [row] = [line for line in text.splitlines()
             if line.startswith(f"http://127.0.0.1:{kept.port}")]
    # requests, failed, pools, size, peak, opened, reopened, discarded, left out
    assert row.split()[1:] == ["3", "0", "1", "10", "1", "1", "0", "0", "0"]
    assert "HTTP CONNECTION POOLS by host" in profile.render("html")


def test_a_failure_under_a_total_only_urllib3_timeout_is_recorded_whole(tmp_path):
    import urllib3
    silent = RawServer(lambda head: [0.5], keep_alive=False)  # reads, never answers
    with silent, urllib3.PoolManager() as manager, \
            geventperf.Tracer(sections=None) as tracer:
        with pytest.raises(urllib3.exceptions.MaxRetryError):
            manager.request("GET", silent.url + "/", timeout=urllib3.Timeout(total=0.05),
                            retries=urllib3.Retry(0, read=0))
    assert tracer.profile.trace_errors == 0
    [event] = _pools(tracer.profile)
    assert (event["failed"], event["errors"], event["read_timeout_s"]) == \
        (1, [["ReadTimeoutError", 1]], None)
    tracer.profile.save(str(tmp_path / "run.json"))  # every figure is finite


def test_a_connection_out_before_tracing_returns_without_touching_the_counts():
    # two pools of one host: one hands out a connection before tracing, the other
    # during it; the first's return must not count the second's back
    early, late = (HTTPConnectionPool("127.0.0.1", 9, maxsize=2) for _ in range(2))
    before = early._get_conn()
    with geventperf.Tracer(sections=None) as tracer:
        during = late._get_conn()
        early._put_conn(before)
    [event] = _pools(tracer.profile)
    assert (event["pools"], event["checkouts"], event["peak_in_use"], event["unreturned"]) \
        == (2, 1, 1, 1)
    late._put_conn(during)
