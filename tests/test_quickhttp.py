"""The fast path's connections: the response head parsed without the email package
(geventperf/responsehead.py) and the request lines remembered per connection
(geventperf/requestlines.py) give exactly what http.client gives.

The parser is compared with http.client on the same bytes (a file object stands for the
socket: what is compared is parsing, not the network), then both are compared end to
end through real sessions against a raw server on 127.0.0.1.
"""

from __future__ import annotations

import http.client
import io

import pytest
import requests
import urllib3
import urllib3.connection
from hypothesis import given, settings
from hypothesis import strategies as st

import geventperf
from geventperf import responsehead
from geventperf.quickpools import _pool_classes
from tests.servers import RawServer, http_response


class _BytesSocket:
    """What http.client.HTTPResponse needs of a socket to read a response head."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def makefile(self, mode: str) -> io.BytesIO:
        return io.BytesIO(self.data)


def _message_fields(message: http.client.HTTPMessage) -> dict:
    """Every attribute of the message, defects by class and text (they have no ==)."""
    fields = dict(vars(message))
    fields["defects"] = [(type(d), str(d)) for d in message.defects]
    return fields


def _begin(response_class: type, data: bytes, method: str = "GET") -> tuple:
    response = response_class(_BytesSocket(data), method=method)
    try:
        response.begin()
    except Exception as exc:  # the comparison includes which error, and its text
        return ("error", type(exc), str(exc))
    return ("ok", response.status, response.reason, response.version,
            _message_fields(response.msg), response.chunked, response.length,
            response.will_close, response.fp.read())


PLAIN_HEADS = [
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc",
    b"HTTP/1.1 200 OK\r\n\r\n",
    b"HTTP/1.0 204 No Content\r\nX-A:\tb \r\nX-A: c\r\n\r\n",
    b"HTTP/1.1 200 OK\nA:b\nB:  \n\nrest",  # bare LF line ends, an empty value
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n",
    b"HTTP/1.1 100 Continue\r\nX: 1\r\n\r\nHTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nX-Latin: caf\xe9 \x85\x0b\x0c\x1c\x7f\r\nSet-Cookie: a=1\r\n"
    b"set-cookie: b=2; Path=/\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nFrom: x\r\n!#$%&'*+-.^_`|~9;<=>?@[]{}:v\r\n\r\n",
]

ODD_HEADS = [
    b"HTTP/1.1 200 OK\r\n A: b\r\n\r\n",  # a continuation line first
    b"HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\td\r\n\r\n",  # folded value
    b"HTTP/1.1 200 OK\r\nA b\r\n\r\nbody",  # no colon: the rest is the payload
    b"HTTP/1.1 200 OK\r\n: b\r\n\r\n",  # an empty name
    b"HTTP/1.1 200 OK\r\nA : b\r\n\r\n",  # a space before the colon
    b"HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n",  # a CR inside a line
    b"HTTP/1.1 200 OK\r\nA: b\r\r\n\r\n",  # a CR before the line end
    b"HTTP/1.1 200 OK\r\nA: b",  # the stream ends inside the head
    b"HTTP/1.1 200 OK\r\nA: b\r\n",  # ... or before the blank line
    b"HTTP/1.1 200 OK\r\nFrom nobody Mon Jan 1\r\n\r\n",  # mbox's "From " line
    b"HTTP/1.1 200 OK\r\nX: \xff\xfe\r\n\x80: y\r\n\r\n",  # a byte over 127 in a name
    b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n",  # more than _MAXHEADERS
    b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000 + b"\r\n\r\n",  # a line over _MAXLINE
    b"HTTP/2 200 OK\r\n\r\n",
    b"garbage\r\n\r\n",
    b"",
]


@pytest.mark.parametrize("data", PLAIN_HEADS + ODD_HEADS)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_head_parses_as_http_client_parses_it(data, method):
    assert _begin(responsehead.QuickHTTPResponse, data, method) == \
        _begin(http.client.HTTPResponse, data, method)


def test_plain_heads_skip_the_email_parser_and_odd_ones_take_it(monkeypatch):
    parsed = []
    original = responsehead._email_parse
    monkeypatch.setattr(responsehead, "_email_parse",
                        lambda lines: parsed.append(lines) or original(lines))
    for data in PLAIN_HEADS:
        assert _begin(responsehead.QuickHTTPResponse, data)[0] == "ok"
    assert parsed == []
    for data in ODD_HEADS[:11]:  # the ones that get as far as parsing
        _begin(responsehead.QuickHTTPResponse, data)
    assert len(parsed) == 11


def test_the_quick_response_runs_http_clients_own_begin_code():
    assert responsehead.QuickHTTPResponse.begin.__code__ is \
        http.client.HTTPResponse.begin.__code__


# A header line's bytes: mostly name-like characters, with every separator the two
# parsers could disagree on (colon, space, tab, CR, LF) and bytes over 127.
_LINE_BYTES = st.lists(st.sampled_from(
    [b"a", b"Z", b"-", b"9", b":", b" ", b"\t", b"\r", b"\n", b"\r\n", b"\x85", b"\xe9",
     b"\x0b", b"\x7f", b"F", b"From "]), max_size=12).map(b"".join)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(_LINE_BYTES, max_size=6), st.sampled_from([b"\r\n", b"\n", b""]),
       st.sampled_from([b"", b"body"]))
def test_any_header_block_parses_as_http_client_parses_it(lines, end, body):
    data = b"HTTP/1.1 200 OK\r\n" + b"".join(line + b"\r\n" for line in lines) + end + body
    assert _begin(responsehead.QuickHTTPResponse, data) == \
        _begin(http.client.HTTPResponse, data)


# -- end to end, through sessions ----------------------------------------------------------

ODD_RESPONSES = [
    http_response(b"plain", headers=[("X-A", "1"), ("Set-Cookie", "a=1; Path=/")]),
    b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nX-Folded: a\r\n b\r\nSet-Cookie: c=3\r\n\r\nfold",
    b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nX-Latin: caf\xe9\r\n\r\nlatn",
    b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nNo colon here\r\n\r\nrest",
]


def _seen_by(session: requests.Session, url: str) -> tuple:
    response = session.get(url)
    original = response.raw._original_response
    return (response.status_code, list(response.headers.items()),
            list(response.raw.headers.items()), sorted(response.cookies.items()),
            response.content, _message_fields(original.msg))


@pytest.mark.parametrize("reply", ODD_RESPONSES)
def test_the_fast_path_returns_what_requests_returns(reply):
    with RawServer(lambda head: [reply], keep_alive=True) as server:
        with requests.Session() as plain, geventperf.Session() as fast:
            for _ in range(2):  # the second request on the kept-alive connection too
                assert _seen_by(fast, server.url) == _seen_by(plain, server.url)
            pool = fast.adapters["http://"].poolmanager.connection_from_url(server.url)
            assert type(pool) is _pool_classes(True, False)["http"]


# -- the request lines -------------------------------------------------------------------

REQUESTS = [
    ("GET", "/a", {}),
    ("GET", "/a", {}),
    ("GET", "/a?q=1", {"X-Token": "t1"}),
    ("GET", "/a?q=1", {"X-Token": "t2", "Accept": "application/json"}),
    ("POST", "/b", {"Content-Type": "application/json"}),
    ("HEAD", "/a", {"Host": "example.test", "Accept-Encoding": "br"}),
    ("GET", "/a", {"X-Bytes": b"raw\xff"}),
    ("GET", "/a", {"User-Agent": None}),  # requests drops a None header
    # names the session has, in another case: one line each, the request's name
    ("GET", "/a", {"accept": "x/y", "ACCEPT-ENCODING": "identity", "user-agent": "me"}),
    ("GET", "/a", {}),
]


def test_remembered_lines_send_the_bytes_requests_sends(monkeypatch):
    heads: list[bytes] = []
    built = []
    putheader = http.client.HTTPConnection.putheader
    monkeypatch.setattr(http.client.HTTPConnection, "putheader",
                        lambda self, *args: built.append(args) or putheader(self, *args))

    def respond(head: bytes) -> list[bytes]:
        heads.append(head)
        return [http_response(b"ok")]

    with RawServer(respond, keep_alive=True) as server:
        for session in (requests.Session(), geventperf.Session()):
            with session:
                for method, path, headers in REQUESTS:
                    data = b'{"k": 1}' if method == "POST" else None
                    session.request(method, server.url + path, headers=headers, data=data)
            if not isinstance(session, geventperf.Session):
                by_requests = len(built)
                del built[:]
    assert len(heads) == 2 * len(REQUESTS)
    assert heads[len(REQUESTS):] == heads[:len(REQUESTS)]
    # the repeated requests' lines came from memory: http.client built fewer
    assert len(built) < by_requests / 2


def _quick_connection(port: int) -> http.client.HTTPConnection:
    return _pool_classes(True, False)["http"].ConnectionCls("127.0.0.1", port)


def test_remembered_request_lines_follow_every_putrequest_argument():
    heads: list[bytes] = []

    def respond(head: bytes) -> list[bytes]:
        heads.append(head)
        return [http_response(b"ok")]

    calls = [("GET", "/x", False, False), ("GET", "/x", True, False),
             ("GET", "/x", False, True), ("GET", "/x", True, True), ("GET", "", False, False),
             ("GET", "/x", False, False)]
    with RawServer(respond, keep_alive=True) as server:
        for conn in (urllib3.connection.HTTPConnection("127.0.0.1", server.port),
                     _quick_connection(server.port)):
            for method, url, skip_host, skip_accept_encoding in calls * 2:
                conn.putrequest(method, url, skip_host=skip_host,
                                skip_accept_encoding=skip_accept_encoding)
                if skip_host:
                    conn.putheader("Host", "h.test")
                conn.endheaders()
                conn._response_options = None  # read through http.client's own path
                http.client.HTTPConnection.getresponse(conn).read()
            conn.close()
    assert len(heads) == 4 * len(calls)
    assert heads[2 * len(calls):] == heads[:2 * len(calls)]


def test_remembered_lines_refuse_what_http_client_refuses():
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True) as server:
        conn = _quick_connection(server.port)
        for _ in range(2):  # the second time from memory
            conn.request("GET", "/x", headers={"X-A": "1"})
            conn.getresponse().read()
        with pytest.raises(http.client.CannotSendHeader):
            conn.putheader("X-A", "1")  # remembered, but no request is started
        conn.putrequest("GET", "/x")
        with pytest.raises(http.client.CannotSendRequest):
            conn.putrequest("GET", "/x")  # remembered, but one is started
        with pytest.raises(ValueError, match="Invalid header value"):
            conn.putheader("X-A", "1\r\nX-B: 2")
        conn.putheader("User-Agent", urllib3.util.SKIP_HEADER)  # skipped, as urllib3 does
        with pytest.raises(ValueError, match="SKIP_HEADER"):
            conn.putheader("X-A", urllib3.util.SKIP_HEADER)
        conn.close()


def test_remembered_lines_stay_bounded_per_connection():
    from geventperf.requestlines import _LINES_PER_CONNECTION
    with RawServer(lambda head: [http_response(b"ok")], keep_alive=True) as server:
        conn = _quick_connection(server.port)
        for i in range(3 * _LINES_PER_CONNECTION):
            conn.request("GET", f"/{i}", headers={"X-Id": str(i)})
            conn.getresponse().read()
        assert 0 < len(conn._request_memory) <= _LINES_PER_CONNECTION
        assert 0 < len(conn._header_memory) <= _LINES_PER_CONNECTION
        conn.close()


def test_plain_headers_only_without_proxy_headers(monkeypatch):
    """The quick pools hand urllib3 requests' headers as a plain dict of the same items,
    in order; a pool with proxy headers (which urllib3 adds case-insensitively) gets
    requests' CaseInsensitiveDict itself."""
    seen = []
    monkeypatch.setattr(urllib3.connectionpool.HTTPConnectionPool, "urlopen",
                        lambda self, method, url, body=None, headers=None, *args, **kwargs:
                        seen.append(headers))
    headers = requests.structures.CaseInsensitiveDict([("Accept", "a"), ("x-b", "b")])
    headers["ACCEPT"] = "c"
    pool_class = _pool_classes(True, False)["http"]
    pool_class("127.0.0.1", 9).urlopen("GET", "/", headers=headers)
    pool_class("127.0.0.1", 9, _proxy_headers={"Accept": "p"}).urlopen("GET", "/", None, headers)
    assert type(seen[0]) is dict and list(seen[0].items()) == [("ACCEPT", "c"), ("x-b", "b")]
    assert seen[1] is headers
