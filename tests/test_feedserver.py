"""The feed server: right documents, sizes and encodings, trickled in pieces, on
127.0.0.1, and it stops cleanly.  Plain (blocking) requests and raw sockets talk to it
over real loopback connections."""

from __future__ import annotations

import gzip
import json
import select
import socket
import subprocess
import sys
from pathlib import Path

import lxml.etree
import pytest
import requests

from geventperf import feedserver
from geventperf.feedserver import FeedServer, FeedServerProcess, FeedStore, make_feed, trickle

ROOT = Path(__file__).resolve().parent.parent
KIB = 1024
# How long to look for early bytes from a server told to wait an hour: any response
# inside this window would be the bug.
NOTHING_YET_S = 0.5
ITEM_FIELDS = {"id", "title", "text", "published", "tags", "score"}


# -- the documents ----------------------------------------------------------------------

@pytest.mark.parametrize("size", [1, 10 * KIB, 300 * KIB])
def test_json_feed_is_a_list_of_items_of_about_the_requested_size(size):
    body = make_feed("json", 3, size)
    doc = json.loads(body)
    assert doc["feed"] == 3
    assert doc["items"], "a feed has at least one item"
    assert all(set(item) == ITEM_FIELDS for item in doc["items"])
    assert len({item["id"] for item in doc["items"]}) == len(doc["items"])
    # Whole items only: at least the size asked for, at most one item more.
    largest_item = max(len(json.dumps(item)) for item in doc["items"])
    assert size <= len(body) <= size + largest_item + 64


@pytest.mark.parametrize("size", [1, 10 * KIB, 300 * KIB])
def test_xml_feed_is_well_formed_with_the_same_fields(size):
    body = make_feed("xml", 5, size)
    root = lxml.etree.fromstring(body)
    assert root.tag == "feed" and root.get("id") == "5"
    items = root.findall("item")
    assert items
    first = items[0]
    assert first.get("id") and first.get("score")
    assert {child.tag for child in first} == {"title", "published", "tags", "text"}
    assert len(body) >= size


def test_feeds_are_deterministic_and_differ_between_indexes():
    assert make_feed("json", 1, 50 * KIB) == make_feed("json", 1, 50 * KIB)
    assert make_feed("xml", 1, 50 * KIB) == make_feed("xml", 1, 50 * KIB)
    assert make_feed("json", 1, 50 * KIB) != make_feed("json", 2, 50 * KIB)


def test_bad_feed_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="kind"):
        make_feed("yaml", 0, 100)
    with pytest.raises(ValueError, match="size"):
        make_feed("json", 0, 0)
    with pytest.raises(ValueError, match="piece"):
        FeedServer(piece=0)
    with pytest.raises(ValueError, match="delay"):
        FeedServer(delay=-1)
    with pytest.raises(ValueError, match="latency"):
        FeedServer(latency=-0.5)
    with pytest.raises(ValueError, match="feed"):
        FeedStore(100, 0)


def test_trickle_yields_pieces_that_add_up_to_the_body():
    body = bytes(range(256)) * 41  # 10496 bytes: not a multiple of the piece
    pieces = list(trickle(body, 1000, 0))
    assert b"".join(pieces) == body
    assert [len(p) for p in pieces[:-1]] == [1000] * 10
    assert len(pieces[-1]) == 496


# -- the server, in this process --------------------------------------------------------

@pytest.fixture(scope="module")
def server():
    with FeedServer(size=64 * KIB, piece=16 * KIB, delay=0.001, feeds=3) as running:
        yield running


def test_server_listens_on_loopback_only(server):
    assert server.url.startswith("http://127.0.0.1:")
    assert server.port > 0


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_serves_each_feed_whole_with_its_length_and_type(server, kind):
    for index in range(3):
        response = requests.get(f"{server.url}/feed/{index}.{kind}", timeout=10)
        assert response.status_code == 200
        assert response.content == server.store.bodies[kind, index]
        assert int(response.headers["Content-Length"]) == len(response.content)
        assert response.headers["Content-Type"].startswith(feedserver.CONTENT_TYPES[kind])
        assert "Content-Encoding" not in response.headers


def test_unknown_paths_and_indexes_are_404_with_a_hint(server):
    for path in ("/feed/3.json", "/feed/0.yaml", "/nothing", "/feed/x.xml"):
        response = requests.get(server.url + path, timeout=10)
        assert response.status_code == 404, path
        assert b"/feed/0.json" in response.content


def test_index_lists_the_feeds_and_settings(server):
    index = requests.get(server.url + "/", timeout=10).json()
    assert len(index["feeds"]) == 6
    assert "/feed/2.xml" in index["feeds"]
    assert index["piece"] == 16 * KIB and index["gzip"] is False
    assert index["latency"] == server.latency


def test_latency_holds_the_headers_back_until_it_has_passed():
    """The headers come only after the latency: a raw socket that asks for a feed
    finds nothing to read while the server's clock has not reached it (checked by
    the server's own answer, not by a timing threshold on this side)."""
    with FeedServer(size=4 * KIB, piece=4 * KIB, delay=0, latency=3600.0, feeds=1) as slow:
        with socket.create_connection(("127.0.0.1", slow.port), timeout=10) as raw:
            raw.sendall(b"GET /feed/0.json HTTP/1.1\r\nHost: x\r\n\r\n")
            readable, _, _ = select.select([raw], [], [], NOTHING_YET_S)
            assert readable == []  # an hour of latency: nothing has come


def test_head_has_headers_and_no_body(server):
    response = requests.head(f"{server.url}/feed/0.json", timeout=10)
    assert response.status_code == 200
    assert int(response.headers["Content-Length"]) == len(server.store.bodies["json", 0])
    assert response.content == b""


def test_keep_alive_connection_serves_several_feeds(server):
    with requests.Session() as session:
        bodies = [session.get(f"{server.url}/feed/{i}.json", timeout=10).content
                  for i in range(3)]
    assert bodies == [server.store.bodies["json", i] for i in range(3)]


def test_body_arrives_in_several_pieces_over_a_raw_socket():
    # Long gaps between small pieces: the reader sees them arrive one by one.
    with FeedServer(size=32 * KIB, piece=4 * KIB, delay=0.02, feeds=1) as slow:
        expected = slow.store.bodies["xml", 0]
        with socket.create_connection(("127.0.0.1", slow.port), timeout=10) as sock:
            sock.sendall(b"GET /feed/0.xml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            arrivals = []
            while True:
                data = sock.recv(1024 * KIB)
                if not data:
                    break
                arrivals.append(data)
    raw = b"".join(arrivals)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert body == expected
    assert f"Content-Length: {len(expected)}".encode() in head
    assert len(arrivals) >= 3, "the body came in one burst, not trickled"


def test_gzip_is_served_only_to_clients_that_accept_it():
    with FeedServer(size=40 * KIB, piece=8 * KIB, delay=0, feeds=1, gzip=True) as zipped:
        url = f"{zipped.url}/feed/0.json"
        plain = zipped.store.bodies["json", 0]
        compressed = requests.get(url, headers={"Accept-Encoding": "gzip"}, stream=True,
                                  timeout=10)
        assert compressed.headers["Content-Encoding"] == "gzip"
        wire = compressed.raw.read(decode_content=False)
        assert int(compressed.headers["Content-Length"]) == len(wire) < len(plain)
        assert gzip.decompress(wire) == plain
        identity = requests.get(url, headers={"Accept-Encoding": "identity"}, timeout=10)
        assert "Content-Encoding" not in identity.headers
        assert identity.content == plain


def test_stop_closes_the_listening_socket():
    running = FeedServer(size=KIB, feeds=1).start()
    port = running.port
    assert requests.get(f"{running.url}/feed/0.json", timeout=10).status_code == 200
    running.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    running.stop()  # a second stop is harmless
    with running:  # and it can start again, on a fresh port
        assert requests.get(f"{running.url}/feed/0.json", timeout=10).status_code == 200


def test_a_port_in_use_is_reported_by_start():
    with FeedServer(size=KIB, feeds=1) as first:
        with pytest.raises(RuntimeError, match="did not start"):
            FeedServer(size=KIB, feeds=1, port=first.port).start()


def test_start_twice_is_an_error():
    with FeedServer(size=KIB, feeds=1) as running:
        with pytest.raises(RuntimeError, match="already started"):
            running.start()


# -- the server, in a child process and standalone ---------------------------------------

def test_process_server_serves_and_stops():
    with FeedServerProcess(size=8 * KIB, piece=4 * KIB, delay=0, feeds=2) as child:
        assert child.url.startswith("http://127.0.0.1:")
        body = requests.get(child.feed_url(3, "json"), timeout=10).content  # 3 % 2 == 1
        assert body == make_feed("json", 1, 8 * KIB)
        process = child._process
    assert process.poll() is not None, "the child server still runs after stop()"


def test_process_server_that_cannot_bind_is_reported():
    with FeedServer(size=KIB, feeds=1) as taken:
        with pytest.raises(RuntimeError, match="did not start"):
            FeedServerProcess(size=KIB, feeds=1, port=taken.port).start()


def test_standalone_script_prints_its_url_and_serves():
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "feed_server.py"), "--size", "4096",
         "--piece", "1024", "--delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert requests.get(url + "/feed/7.xml", timeout=10).content == make_feed("xml", 7, 4096)
    finally:
        process.terminate()
        process.wait(10)
        process.stdout.close()
        process.stderr.close()


def test_standalone_script_rejects_bad_settings():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "feed_server.py"),
                           "--piece", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "piece must be positive" in done.stderr
