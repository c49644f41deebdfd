"""Imported by the workloads here: an upstream of the workload's own, a gevent WSGI
server in its process that answers each request after a delay (a stand-in for a real
upstream, as self-contained programs start theirs)."""

import socket

import gevent
import requests
from gevent.pywsgi import WSGIServer


def stand_in(delay_s: float) -> tuple[WSGIServer, str]:
    """Start the stand-in and return it with its base URL (``http://127.0.0.1:PORT/``).
    It reads each request's body, then answers "ok" after *delay_s*.  Its listener has
    TCP_NODELAY, which the accepted connections inherit: pywsgi writes a response's head
    and body apart, and without it each would wait on a delayed ACK (~40 ms), a cause of
    its own (server-nagle's story)."""

    def answer(environ, start_response):
        environ["wsgi.input"].read()
        gevent.sleep(delay_s)
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    server = WSGIServer(listener(), answer, log=None)
    server.start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def listener() -> socket.socket:
    """A listening socket on 127.0.0.1 with TCP_NODELAY (see stand_in)."""
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def serve(app, **options) -> WSGIServer:
    """The program's own service: *app* started on a listener() (see stand_in)."""
    server = WSGIServer(listener(), app, log=None, **options)
    server.start()
    return server


def load_clients(server: WSGIServer, path_of, clients: int, calls: int,
                 pause_s: float = 0.0) -> None:
    """*clients* greenlets, a Session each, GET ``path_of(client, call)`` from *server*
    *calls* times, pausing *pause_s* between calls (a client's own work); raises the
    first failure."""

    def client(number):
        with requests.Session() as mine:
            for call in range(calls):
                mine.get(f"http://127.0.0.1:{server.server_port}{path_of(number, call)}",
                         timeout=30).raise_for_status()
                if pause_s:
                    gevent.sleep(pause_s)

    gevent.joinall([gevent.spawn(client, n) for n in range(clients)], raise_error=True)
