"""Imported by the workloads here: an upstream of the workload's own, a gevent WSGI
server in its process that answers each request after a delay (a stand-in for a real
upstream, as self-contained programs start theirs)."""

import socket

import gevent
from gevent.pywsgi import WSGIServer


def stand_in(delay_s: float) -> str:
    """Start the stand-in and return its base URL (``http://127.0.0.1:PORT/``).  Its
    listener has TCP_NODELAY, which the accepted connections inherit: without it each
    response's head and body would wait on a delayed ACK (~40 ms), a cause of its own."""

    def answer(environ, start_response):
        gevent.sleep(delay_s)
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    listener = socket.socket()
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    server = WSGIServer(listener, answer, log=None)
    server.start()
    return f"http://127.0.0.1:{server.server_port}/"
