"""ServerWatch: gevent pywsgi's responses written head, then body, while a Tracer ran.

The kernel's side (a Linux client delaying its ACK 40 ms) is shown end to end by
``tests/diagnosis/pywsgi_service.py``; these check the counting and the wrap itself.
"""

from __future__ import annotations

import types

import gevent.pywsgi

import geventperf
from geventperf.serverwatch import ServerWatch


def test_the_original_write_is_back_after_stop():
    original = gevent.pywsgi.WSGIHandler._write_with_headers
    with geventperf.Tracer(sections=None):
        assert gevent.pywsgi.WSGIHandler._write_with_headers is not original
    assert gevent.pywsgi.WSGIHandler._write_with_headers is original


def test_a_connections_later_small_responses_are_counted_held_when_its_socket_lacks_nodelay():
    watch = ServerWatch()
    nagle = types.SimpleNamespace(socket=types.SimpleNamespace(getsockopt=lambda *a: 0))
    nodelay = types.SimpleNamespace(socket=types.SimpleNamespace(getsockopt=lambda *a: 1))
    unreadable = types.SimpleNamespace(socket=None)  # no getsockopt: not told as Nagle's
    for handler in (nagle, nodelay, unreadable):
        for _ in range(3):
            watch.wrote(handler, b"ok")
    watch.wrote(nagle, b"")  # the head alone: nothing waits behind it
    watch.wrote(nagle, b"x" * (64 * 1024 + 1))  # a large body: not counted held
    assert watch.events() == [{"kind": "pywsgi-responses", "served": 11, "responses": 10,
                               "kept": 6, "nagle": 2, "connections": 3, "servers": 1}]
    watch.forget()
    assert watch.events() == []
    watch.wrote(nagle, b"ok")  # after a reset, the connection's next response is a first
    assert watch.events()[0]["kept"] == 0


def test_held_responses_are_counted_per_server_port():
    """Per port, so that this process's own clients of that port can say whether they
    waited (server-nagle counts what they timed)."""
    watch = ServerWatch()
    server = types.SimpleNamespace(server_port=8080)
    nagle = types.SimpleNamespace(socket=types.SimpleNamespace(getsockopt=lambda *a: 0),
                                  server=server)
    unix = types.SimpleNamespace(socket=types.SimpleNamespace(getsockopt=lambda *a: 0),
                                 server=types.SimpleNamespace(server_port=None))
    for handler in (nagle, unix):
        for _ in range(3):
            watch.wrote(handler, b"ok")
    [event] = watch.events()
    assert event["nagle"] == 4 and event["nagle_ports"] == {"8080": 2}
    assert event["ports"] == [8080]  # (its own clients are found by it: ownclients.py)
    watch.forget()
    watch.wrote(nagle, b"ok")
    watch.wrote(nagle, b"ok")
    assert watch.events()[0]["nagle_ports"] == {"8080": 1}


def test_a_failing_watch_never_raises_into_the_server(monkeypatch):
    from gevent import socket
    from gevent.pywsgi import WSGIServer

    def broken(self, handler, data):
        raise RuntimeError("watch bug")
    monkeypatch.setattr(ServerWatch, "wrote", broken)

    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]
    server = WSGIServer(("127.0.0.1", 0), app, log=None)
    server.start()
    try:
        with geventperf.Tracer(sections=None) as tracer:
            conn = socket.create_connection(("127.0.0.1", server.server_port))
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
            conn.close()
    finally:
        server.stop()
    assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"ok"), reply
    assert tracer.profile.trace_errors == 1


def test_the_servers_pool_size_is_noted_from_a_real_server():
    """The largest spawn pool among the servers that answered (the diagnosis workload
    tests/diagnosis/server_pool.py shows the finding end to end); none for the default
    spawn, a greenlet per connection without a bound."""
    from gevent import socket
    from gevent.pywsgi import WSGIServer

    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    def get(port):
        conn = socket.create_connection(("127.0.0.1", port))
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := conn.recv(4096):
            reply += chunk
        conn.close()
        return reply

    pooled = WSGIServer(("127.0.0.1", 0), app, log=None, spawn=7)
    unbounded = WSGIServer(("127.0.0.1", 0), app, log=None)
    pooled.start()
    unbounded.start()
    try:
        with geventperf.Tracer(sections=None) as tracer:
            assert get(unbounded.server_port).endswith(b"ok")
            assert tracer._server_watch.events()[0].get("pool_size") is None
            for _ in range(2):
                assert get(pooled.server_port).endswith(b"ok")
    finally:
        pooled.stop()
        unbounded.stop()
    [event] = [e for e in tracer.profile.events if e["kind"] == "pywsgi-responses"]
    assert event["pool_size"] == 7 and event["connections"] == 3, event
    # two servers; each connection found its pool far from full
    assert event["servers"] == 2 and event["pool_filled"] == 0, event
