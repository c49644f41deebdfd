"""Benchmark body server, run as its own process so it never shares the measured
client's CPU time slice or event loop: ``python benchmarks/bodyserver.py``.

``GET /<n>`` answers n bytes with a Content-Length, ``GET /chunked/<n>`` the same bytes
chunked in 16 KiB pieces (a typical application server's write size).  It prints its
port on the first line of stdout.
"""

from __future__ import annotations

import os
import socket
import sys

import gevent
from gevent.server import StreamServer

# The largest body any benchmark asks for.
MAX_BODY = 32 * 1024 * 1024
# Chunk size of /chunked/ bodies: what a WSGI or Node server writes per piece.
CHUNK = 16 * 1024

BODY = memoryview(os.urandom(MAX_BODY))


_CHUNKED: dict[int, bytes] = {}


def _chunked_body(size: int) -> bytes:
    """The chunked encoding of the first *size* bytes, built once per size: the server
    must not be what the chunked rows measure (three sendall calls per 16 KiB chunk from
    Python are slower than any client here)."""
    if size not in _CHUNKED:
        pieces = [b"%x\r\n%s\r\n" % (min(CHUNK, size - start), BODY[start:start + CHUNK])
                  for start in range(0, size, CHUNK)]
        _CHUNKED[size] = b"".join(pieces) + b"0\r\n\r\n"
    return _CHUNKED[size]


def _respond(sock, target: bytes) -> None:
    chunked = target.startswith(b"/chunked/")
    size = min(int(target.rsplit(b"/", 1)[1] or 0), MAX_BODY)
    if not chunked:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
        sock.sendall(BODY[:size])
        return
    sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    sock.sendall(_chunked_body(size))


def handle(sock, _address) -> None:
    # As production servers do: without it the body, sent after the head, waits for
    # the head's delayed ACK (40 ms on Linux) and every small response costs 40 ms.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    reader = sock.makefile("rb")
    while True:
        request_line = reader.readline()
        if not request_line:
            return
        while reader.readline() not in (b"\r\n", b""):
            pass
        _respond(sock, request_line.split()[1])


def main() -> None:
    server = StreamServer(("127.0.0.1", 0), handle)
    server.start()
    print(server.server_port, flush=True)
    # Serve until the parent closes our stdin (or dies); read it in a thread so the
    # server's greenlets keep running.
    gevent.get_hub().threadpool.apply(sys.stdin.read)
    server.stop()


if __name__ == "__main__":
    main()
