"""A local HTTP server that serves realistic JSON and XML feeds slowly, like a network.

``/feed/N.json`` and ``/feed/N.xml`` (N in ``0 .. feeds-1``) are lists of items with
ids, titles, text and dates, generated deterministically once at start-up and served
from memory.  Like a remote server over a real link, each response waits ``latency``
seconds before its headers (the round trip and the server's think time), then the body
is written in pieces of ``piece`` bytes with ``delay`` seconds between them: a
bandwidth of ``piece / delay`` bytes per second per connection.  Content-Length is
set, so a client that reads in small pieces finds the socket empty again and again,
exactly as it would against a remote server.  With
``gzip=True`` a client that sends ``Accept-Encoding: gzip`` gets the gzip form.

Three ways to run it:

* ``with FeedServer() as server: ... server.url`` -- in this process, on its own OS
  thread with its own gevent hub, so blocking clients and gevent clients in this
  process can both talk to it;
* ``with FeedServerProcess() as server: ...`` -- in a child process, so the client's
  CPU work cannot stall the trickle (a real network does not pause while you parse);
  the demo and the benchmarks use this;
* ``python -m geventperf.feedserver`` / ``scripts/feed_server.py`` -- standalone.
"""

from __future__ import annotations

import argparse
import gzip as gzip_module
import json
import random
import re
import select
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterator
from xml.sax.saxutils import escape as xml_escape

import gevent
import gevent.event
import gevent.monkey
from gevent.pywsgi import WSGIServer

KIB = 1024

# A few hundred KiB is what a news or product feed weighs; big enough that the way it
# is read matters (dozens of small reads), small enough that a demo run takes seconds.
DEFAULT_SIZE = 256 * KIB
# 16 KiB every 4 ms is 4 MiB/s per connection (32 Mbit/s): a fetch from another
# region or a busy upstream.  A 256 KiB body arrives in 16 pieces over ~60 ms, so a
# reader waits on the network for most of a job and its CPU is mostly idle.
DEFAULT_PIECE = 16 * KIB
DEFAULT_DELAY = 0.004
# Time to the headers: a cross-region round trip plus the upstream's think time.
DEFAULT_LATENCY = 0.020
# Distinct documents per format; enough that a parser cannot profit from one hot body.
DEFAULT_FEEDS = 8
DEFAULT_HOST = "127.0.0.1"

# gzip level 6 is what nginx and most CDNs use by default.
GZIP_LEVEL = 6
# Items always differ from one feed to the next but never between runs.
SEED = 20240521
# A stopping server lets in-flight responses finish for this long before closing them.
STOP_GRACE_S = 2.0
# How long a child-process server gets to print its URL before we give up on it.
PROCESS_START_TIMEOUT_S = 30.0

FEED_PATH = re.compile(r"^/feed/(\d+)\.(json|xml)$")
CONTENT_TYPES = {"json": "application/json", "xml": "application/xml; charset=utf-8"}
KINDS = ("json", "xml")

_WORDS = ("gevent greenlet hub socket parser feed item latency throughput buffer "
          "network kernel event loop switch request response body header chunk piece "
          "python lxml ujson worker pool queue deadline profile section finding wait "
          "report market weather sports science culture travel energy health").split()
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)


# -- the documents ------------------------------------------------------------------

def _items(index: int) -> Iterator[dict[str, Any]]:
    """Endless deterministic items for feed *index*."""
    rng = random.Random(SEED * 1000 + index)
    number = 0
    while True:
        number += 1
        published = _EPOCH + timedelta(minutes=rng.randrange(0, 500_000))
        yield {
            "id": index * 1_000_000 + number,
            "title": " ".join(rng.choices(_WORDS, k=rng.randint(4, 9))).capitalize(),
            "text": " ".join(rng.choices(_WORDS, k=rng.randint(40, 120))) + ".",
            "published": published.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "tags": rng.sample(_WORDS, k=3),
            "score": round(rng.random() * 100, 3),
        }


def _xml_item(item: dict[str, Any]) -> str:
    tags = "".join(f"<tag>{xml_escape(t)}</tag>" for t in item["tags"])
    return (f'<item id="{item["id"]}" score="{item["score"]}">'
            f"<title>{xml_escape(item['title'])}</title>"
            f"<published>{item['published']}</published>"
            f"<tags>{tags}</tags>"
            f"<text>{xml_escape(item['text'])}</text></item>\n")


def make_feed(kind: str, index: int, size: int = DEFAULT_SIZE) -> bytes:
    """Feed *index* in *kind* ("json" or "xml"): whole items, at least *size* bytes
    (at most one item more), identical on every call."""
    if kind not in KINDS:
        raise ValueError(f"unknown feed kind {kind!r}; expected one of {KINDS}")
    if size < 1:
        raise ValueError(f"feed size must be positive, got {size}")
    head = (f'{{"feed": {index}, "title": "Feed {index}", "items": [' if kind == "json"
            else f'<?xml version="1.0" encoding="UTF-8"?>\n<feed id="{index}">\n')
    tail = "]}" if kind == "json" else "</feed>\n"
    parts, length = [head], len(head) + len(tail)
    for item in _items(index):
        if kind == "json":
            text = ("," if len(parts) > 1 else "") + json.dumps(item, ensure_ascii=False)
        else:
            text = _xml_item(item)
        parts.append(text)
        length += len(text.encode("utf-8"))
        if length >= size:
            break
    parts.append(tail)
    return "".join(parts).encode("utf-8")


class FeedStore:
    """Every feed body, built once; gzip forms built on first request."""

    def __init__(self, size: int, feeds: int) -> None:
        if feeds < 1:
            raise ValueError(f"need at least one feed, got {feeds}")
        self.size, self.feeds = size, feeds
        self.bodies = {(kind, i): make_feed(kind, i, size) for kind in KINDS
                       for i in range(feeds)}
        self._gzipped: dict[tuple[str, int], bytes] = {}

    def body(self, kind: str, index: int, gzipped: bool = False) -> bytes:
        plain = self.bodies[kind, index]
        if not gzipped:
            return plain
        key = (kind, index)
        if key not in self._gzipped:
            # mtime=0: the same bytes every time, so tests and caches can compare them.
            self._gzipped[key] = gzip_module.compress(plain, GZIP_LEVEL, mtime=0)
        return self._gzipped[key]


# -- the WSGI application -----------------------------------------------------------

def trickle(body: bytes, piece: int, delay: float) -> Iterator[bytes]:
    """*body* in pieces of *piece* bytes, sleeping *delay* seconds between them."""
    view = memoryview(body)
    for start in range(0, len(body), piece):
        if start and delay > 0:
            gevent.sleep(delay)
        yield bytes(view[start:start + piece])


def make_app(store: FeedStore, piece: int, delay: float, gzip: bool,
             latency: float = 0.0) -> Callable[..., Iterator[bytes]]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/":
            index = {"feeds": [f"/feed/{i}.{kind}" for i in range(store.feeds)
                               for kind in KINDS],
                     "size": store.size, "piece": piece, "delay": delay,
                     "latency": latency, "gzip": gzip}
            return _reply(start_response, "200 OK", "application/json",
                          json.dumps(index).encode())
        match = FEED_PATH.match(path)
        if not match or int(match.group(1)) >= store.feeds:
            return _reply(start_response, "404 Not Found", "text/plain",
                          f"no feed at {path}; try /feed/0.json .. "
                          f"/feed/{store.feeds - 1}.xml\n".encode())
        index, kind = int(match.group(1)), match.group(2)
        wants_gzip = gzip and "gzip" in environ.get("HTTP_ACCEPT_ENCODING", "")
        body = store.body(kind, index, gzipped=wants_gzip)
        headers = [("Content-Type", CONTENT_TYPES[kind]),
                   ("Content-Length", str(len(body)))]
        if wants_gzip:
            headers.append(("Content-Encoding", "gzip"))
        if latency > 0:
            gevent.sleep(latency)  # the headers arrive one round trip later
        start_response("200 OK", headers)
        if environ.get("REQUEST_METHOD") == "HEAD":
            return iter(())
        return trickle(body, piece, delay)
    return app


def _reply(start_response: Callable[..., Any], status: str, content_type: str,
           body: bytes) -> Iterator[bytes]:
    start_response(status, [("Content-Type", content_type),
                            ("Content-Length", str(len(body)))])
    return iter((body,))


# -- running it in this process -----------------------------------------------------

def _check(size: int, piece: int, delay: float, latency: float = 0.0) -> None:
    if latency < 0:
        raise ValueError(f"latency must not be negative, got {latency}")
    if size < 1:
        raise ValueError(f"size must be positive, got {size}")
    if piece < 1:
        raise ValueError(f"piece must be positive, got {piece}")
    if delay < 0:
        raise ValueError(f"delay must not be negative, got {delay}")


class FeedServer:
    """The feed server on its own OS thread and gevent hub, in this process.

    ``with FeedServer(size=64 * 1024) as server: requests.get(server.url + "/feed/0.json")``
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = 0, size: int = DEFAULT_SIZE,
                 piece: int = DEFAULT_PIECE, delay: float = DEFAULT_DELAY,
                 feeds: int = DEFAULT_FEEDS, gzip: bool = False,
                 latency: float = DEFAULT_LATENCY) -> None:
        _check(size, piece, delay, latency)
        self.host, self.port, self._requested_port = host, port, port
        self.piece, self.delay, self.gzip, self.latency = piece, delay, gzip, latency
        self.store = FeedStore(size, feeds)
        self._done: Any = None  # a real lock, held while the server thread runs
        self._wakeup: Any = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        if not self.port:
            raise RuntimeError("the feed server is not started")
        return f"http://{self.host}:{self.port}"

    def feed_url(self, index: int, kind: str) -> str:
        return f"{self.url}/feed/{index % self.store.feeds}.{kind}"

    def start(self) -> FeedServer:
        if self._done is not None:
            raise RuntimeError("the feed server is already started")
        # A real OS thread and real locks even when the caller monkey-patched threading:
        # the server must keep serving while the calling thread blocks (plain requests)
        # or parses (gevent workers).
        start_new_thread = gevent.monkey.get_original("_thread", "start_new_thread")
        allocate_lock = gevent.monkey.get_original("_thread", "allocate_lock")
        ready, self._done = allocate_lock(), allocate_lock()
        ready.acquire()
        self._done.acquire()
        start_new_thread(self._serve, (ready,))
        ready.acquire(timeout=PROCESS_START_TIMEOUT_S)
        if self._error is not None or not self.port:
            self._done.acquire(timeout=STOP_GRACE_S)
            self._done = None
            self.port = self._requested_port
            raise RuntimeError(f"feed server did not start: {self._error!r}")
        return self

    def _serve(self, ready: Any) -> None:
        hub = gevent.get_hub()
        try:
            try:
                stopping = gevent.event.Event()
                # The one thread-safe way into this hub: stop() sends this watcher.
                self._wakeup = hub.loop.async_()
                self._wakeup.start(stopping.set)
                server = WSGIServer((self.host, self._requested_port),
                                    make_app(self.store, self.piece, self.delay, self.gzip,
                                             self.latency),
                                    log=None)
                server.start()
                self.port = server.server_port
            except BaseException as exc:  # reported by start(), in the caller's thread
                self._error = exc
                return
            finally:
                ready.release()
            stopping.wait()
            server.stop(timeout=STOP_GRACE_S)
            self._wakeup.close()
        finally:
            hub.destroy(destroy_loop=True)
            self._done.release()

    def stop(self) -> None:
        """Stop accepting, let in-flight responses finish (up to STOP_GRACE_S), close."""
        if self._done is None:
            return
        self._wakeup.send()
        self._done.acquire(timeout=STOP_GRACE_S * 2)
        self._done = None
        self.port = self._requested_port

    def __enter__(self) -> FeedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# -- running it in a child process --------------------------------------------------

class FeedServerProcess:
    """The feed server in a child process (``python -m geventperf.feedserver``).

    The demo and benchmarks use this one: a worker that parses for 20 ms holds its
    process's CPU for 20 ms, and an in-process server would stop trickling meanwhile,
    which no real network does.
    """

    def __init__(self, host: str = DEFAULT_HOST, port: int = 0, size: int = DEFAULT_SIZE,
                 piece: int = DEFAULT_PIECE, delay: float = DEFAULT_DELAY,
                 feeds: int = DEFAULT_FEEDS, gzip: bool = False,
                 latency: float = DEFAULT_LATENCY) -> None:
        _check(size, piece, delay, latency)
        self.args = ["--host", host, "--port", str(port), "--size", str(size),
                     "--piece", str(piece), "--delay", repr(delay), "--feeds", str(feeds),
                     "--latency", repr(latency), "--quiet"]
        if gzip:
            self.args.append("--gzip")
        self.feeds = feeds
        self.url = ""
        self._process: subprocess.Popen[str] | None = None

    def feed_url(self, index: int, kind: str) -> str:
        return f"{self.url}/feed/{index % self.feeds}.{kind}"

    def start(self) -> FeedServerProcess:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "geventperf.feedserver", *self.args],
            stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        # Never wait forever for the URL line: a child that cannot start must not hang us.
        readable, _, _ = select.select([self._process.stdout], [], [], PROCESS_START_TIMEOUT_S)
        line = self._process.stdout.readline() if readable else ""
        if not line.startswith("http://"):
            self.stop()
            raise RuntimeError(f"feed server process did not start (printed {line!r})")
        self.url = line.strip()
        return self

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(STOP_GRACE_S * 2)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._process = None

    def __enter__(self) -> FeedServerProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# -- standalone -----------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="feed_server",
        description="Serve JSON and XML feeds from memory, trickled like a real network.")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to bind (default %(default)s: local only)")
    parser.add_argument("--port", type=int, default=0,
                        help="port to bind (default 0: any free port)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE,
                        help="body size in bytes (default %(default)s)")
    parser.add_argument("--piece", type=int, default=DEFAULT_PIECE,
                        help="bytes written per piece (default %(default)s)")
    parser.add_argument("--delay", type=float, default=DEFAULT_DELAY,
                        help="seconds between pieces (default %(default)s)")
    parser.add_argument("--latency", type=float, default=DEFAULT_LATENCY,
                        help="seconds before each response's headers (default %(default)s)")
    parser.add_argument("--feeds", type=int, default=DEFAULT_FEEDS,
                        help="distinct feeds per format (default %(default)s)")
    parser.add_argument("--gzip", action="store_true",
                        help="gzip bodies for clients that accept it")
    parser.add_argument("--quiet", action="store_true",
                        help="print only the URL (no banner on stderr)")
    args = parser.parse_args(argv)
    try:
        _check(args.size, args.piece, args.delay, args.latency)
        if args.feeds < 1:
            raise ValueError(f"feeds must be positive, got {args.feeds}")
    except ValueError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    store = FeedStore(args.size, args.feeds)
    server = WSGIServer((args.host, args.port),
                        make_app(store, args.piece, args.delay, args.gzip, args.latency),
                        log=None)
    server.start()
    # The URL alone on the first line: FeedServerProcess and scripts read it.
    print(f"http://{args.host}:{server.server_port}", flush=True)
    if not args.quiet:
        print(f"serving {args.feeds} JSON and {args.feeds} XML feeds of ~{args.size} bytes, "
              f"headers after {args.latency * 1000:g} ms, "
              f"{args.piece} bytes every {args.delay * 1000:g} ms"
              f"{' (gzip on request)' if args.gzip else ''}; "
              f"try http://{args.host}:{server.server_port}/feed/0.json; Ctrl-C stops",
              file=sys.stderr, flush=True)
    # SIGTERM (FeedServerProcess.stop) ends the process the default way: the server
    # holds no state worth saving.
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop(timeout=STOP_GRACE_S)
    return 0


if __name__ == "__main__":
    sys.exit(main())
