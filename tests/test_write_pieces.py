"""Requests of a protocol of the program's own written in pieces on sockets with Nagle's
algorithm on (geventperf/writewatch.py, request-body-stall's raw-socket side): real
gevent sockets on 127.0.0.1, traced in this process.

The store answers a request (a header line, then its body) once it has both; a client
that writes the two with two sendall calls has its body held by the kernel until the
store acknowledges the header, which Linux delays 40 ms."""

from __future__ import annotations

import socket
import types

import gevent
import gevent.server
import gevent.socket

import geventperf
from geventperf import findings
from geventperf.writewatch import WriteWatch
from tests.markers import line_of

CLIENTS = 4
REQUESTS = 25
BODY = b"x" * 64


def _store(sock, _address):
    reader = sock.makefile("rb")
    while True:
        header = reader.readline()
        if not header:
            return
        reader.read(int(header.split()[1]) + 2)  # the body and its CRLF
        sock.sendall(b"+OK\r\n")


def _client(port: int, how: str) -> None:
    sock = gevent.socket.create_connection(("127.0.0.1", port))
    if how == "nodelay":
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    reader = sock.makefile("rb")
    for _ in range(REQUESTS):
        header = b"SET %d\r\n" % len(BODY)
        if how == "joined":
            sock.sendall(header + BODY + b"\r\n")
        else:
            sock.sendall(header)
            sock.sendall(BODY + b"\r\n")  # the second piece
        assert reader.readline() == b"+OK\r\n"
    sock.close()


def _run(how: str):
    server = gevent.server.StreamServer(("127.0.0.1", 0), _store)
    server.start()
    try:
        with geventperf.Tracer() as tracer:
            gevent.joinall([gevent.spawn(_client, server.server_port, how)
                            for _ in range(CLIENTS)], raise_error=True)
    finally:
        server.stop()
    return tracer.profile


def _stalls(profile):
    return [f for f in profile.findings if f.kind == findings.REQUEST_BODY_STALL]


def test_a_request_written_in_two_pieces_with_nagle_on_is_told_at_its_second_write():
    p = _run("pieces")
    [event] = [e for e in p.events if e["kind"] == "socket-writes"]
    site = f"test_write_pieces.py:{line_of(__file__, 'the second piece')}:_client"
    [[written, pieces, held]] = event["pieces"]
    assert written.endswith(site) and pieces == held == CLIENTS * REQUESTS, event
    [found] = _stalls(p)
    assert p.findings[0] is found, [f.kind for f in p.findings]
    assert found.extra["site"].endswith(site) and "one sendall" in found.message
    # the replies waited a delayed ACK each, about
    assert 0.035 <= found.extra["waited_s"] / found.extra["reads"] <= 0.25, found.extra


def test_a_request_written_in_one_piece_is_no_such_stall():
    p = _run("joined")
    assert not [e for e in p.events if e["kind"] == "socket-writes"]
    assert not _stalls(p)


def test_pieces_on_a_socket_with_nodelay_are_counted_and_not_told():
    p = _run("nodelay")
    [event] = [e for e in p.events if e["kind"] == "socket-writes"]
    [[_site, pieces, held]] = event["pieces"]
    assert pieces == CLIENTS * REQUESTS and held == 0, event
    assert not _stalls(p)


class _Sock:
    def __init__(self, fd: int, nodelay: int = 0) -> None:
        self.fd, self.nodelay = fd, nodelay

    def fileno(self) -> int:
        return self.fd

    def getsockopt(self, *_args) -> int:
        return self.nodelay


class _Code:  # hashable, as a code object is
    def __init__(self, path: str, name: str) -> None:
        self.co_filename, self.co_name = path, name


def _frame(path: str = "/srv/app/client.py", line: int = 10, name: str = "send"):
    return types.SimpleNamespace(f_code=_Code(path, name), f_lineno=line, f_back=None)


def test_writes_with_a_switch_between_or_from_http_client_are_no_pieces():
    switches = [0]
    watch = WriteWatch(lambda: switches[0])
    a = _Sock(7)
    watch.sent(a, _frame(), 0)
    switches[0] = 3  # a reply waited for between the two
    watch.sent(a, _frame(), 3 - 1)
    assert watch.events() == []
    watch.sent(a, _frame("/py/lib/python3.11/http/client.py", 1, "send"), 3)  # requests'
    assert watch.events() == []
    watch.sent(a, _frame(), 3)
    assert watch.events() == [{"kind": "socket-writes",
                               "pieces": [["/srv/app/client.py:10:send", 1, 1]]}]
    # the same fd number, another socket: a first write again
    watch.sent(_Sock(7, nodelay=1), _frame(), 3)
    assert watch.events()[0]["pieces"] == [["/srv/app/client.py:10:send", 1, 1]]
    watch.forget()
    assert watch.events() == []
