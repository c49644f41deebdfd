"""Real servers on 127.0.0.1 for the tests.

The test process is not monkey-patched, so a client blocks its OS thread while it
reads: each server runs in a thread of its own.  ``WSGIServerThread`` runs gevent's
WSGI server on that thread's own hub; ``RawServer`` answers every request with exactly
the bytes a case needs (truncated, malformed, trickling), piece by piece.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable, Iterable

import gevent
import gevent.pywsgi

# How long a server thread may take to start or stop before the test fails loudly.
SERVER_START_TIMEOUT_S = 10.0


class WSGIServerThread:
    """``with WSGIServerThread(app) as server: requests.get(server.url + "/path")``"""

    def __init__(self, app: Callable) -> None:
        self.app = app
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="wsgi-server", daemon=True)
        self._server: gevent.pywsgi.WSGIServer | None = None
        self._loop = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        self._server = gevent.pywsgi.WSGIServer(("127.0.0.1", 0), self.app, log=None)
        self._server.start()
        self.port = self._server.server_port
        self._loop = gevent.get_hub().loop
        self._ready.set()
        self._server.serve_forever()

    def __enter__(self) -> WSGIServerThread:
        self._thread.start()
        if not self._ready.wait(SERVER_START_TIMEOUT_S):
            raise RuntimeError("WSGI test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.run_callback_threadsafe(self._server.stop, 1)
        self._thread.join(SERVER_START_TIMEOUT_S)


# One scripted response: a list of pieces, each bytes, or a float (seconds to pause).
Script = Iterable["bytes | float"]


class RawServer:
    """A TCP server that reads each request's head and replies with a script.

    ``respond(request_head) -> script`` decides the reply; after the script the
    connection is closed unless ``keep_alive`` is set.  With ``read_bodies`` a request's
    ``Content-Length`` body is read before the reply (kept-alive requests with bodies).  ``connections`` counts the
    connections accepted, so tests can tell whether a connection was reused.
    """

    def __init__(self, respond: Callable[[bytes], Script], keep_alive: bool = False,
                 read_bodies: bool = False) -> None:
        self.respond = respond
        self.keep_alive = keep_alive
        self.read_bodies = read_bodies
        self.connections = 0
        self.requests = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._stopping = False
        self._thread = threading.Thread(target=self._accept, name="raw-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping = True
        # Closing a listening socket does not wake a thread blocked in accept(): a
        # last connection does.
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            pass
        self._thread.join(SERVER_START_TIMEOUT_S)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            if self._stopping:
                conn.close()
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            buffered = b""
            while True:
                while b"\r\n\r\n" not in buffered:
                    if not (data := _recv(conn)):
                        return
                    buffered += data
                head, buffered = buffered.split(b"\r\n\r\n", 1)
                length = _content_length(head) if self.read_bodies else 0
                while len(buffered) < length:
                    if not (data := _recv(conn)):
                        return
                    buffered += data
                buffered = buffered[length:]
                self.requests += 1
                try:
                    for piece in self.respond(head):
                        if isinstance(piece, (int, float)):
                            time.sleep(piece)
                        else:
                            conn.sendall(piece)
                except OSError:
                    return  # the client went away: that is what some cases test
                # a request's own Connection: close is honoured (as HTTP/1.1 servers
                # do), without saying so in the response's head
                if not self.keep_alive or b"\r\nconnection: close" in head.lower():
                    try:
                        conn.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return


def _recv(conn: socket.socket) -> bytes:
    """The next bytes from *conn*; empty when it is closed or failed."""
    try:
        return conn.recv(65536)
    except OSError:
        return b""


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def http_response(body: bytes = b"", status: str = "200 OK",
                  headers: Iterable[tuple[str, str]] = (), length: int | None = -1) -> bytes:
    """Head and body of a response; *length* -1 sets Content-Length to len(body),
    None leaves it out."""
    lines = [f"HTTP/1.1 {status}"]
    lines += [f"{k}: {v}" for k, v in headers]
    if length is not None:
        lines.append(f"Content-Length: {len(body) if length == -1 else length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def chunked(pieces: Iterable[bytes], trailer: bytes = b"", extension: bytes = b"") -> bytes:
    """A chunked transfer-coding of *pieces*, with its last chunk and *trailer*;
    *extension* (e.g. b";x=y") follows every data chunk's size."""
    out = b"".join(b"%x%s\r\n%s\r\n" % (len(p), extension, p) for p in pieces if p)
    return out + b"0\r\n" + trailer + b"\r\n"


def pieces_of(data: bytes, size: int) -> list[bytes]:
    """*data* cut into pieces of *size* bytes (the last one shorter)."""
    return [data[i:i + size] for i in range(0, len(data), size)]
