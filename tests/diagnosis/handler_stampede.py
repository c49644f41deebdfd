"""A service whose handlers each refill a small cache of prices when they find it expired.

Truth by construction: an in-process gevent WSGI server answers ``/quote/<symbol>`` for
4 symbols from a cache kept 0.3 s; a handler that finds its symbol expired fetches it
from ``price=`` (a server that answers after its delay) itself (``diag: culprit``), so
at each expiry every handler in flight for that symbol fetches it at once.  32 client
greenlets, a Session each, ask for the symbols in turn for RUN_S.  The service asks its
upstream for 4 URLs only, and nothing else: no variety beside them, as a load test of
one URL would show, but the calls are its handlers'.  Expected first finding
``duplicate-in-flight`` at that line.  With ``mode=single`` one fetch per symbol runs at
a time and the others wait for its answer: no ``duplicate-in-flight``.
"""

import sys
import time

import gevent
import requests
from gevent import socket
from gevent.event import AsyncResult
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SYMBOLS = ("AAPL", "GOOG", "MSFT", "NVDA")
CLIENTS, TTL_S, PAUSE_S = 32, 0.3, 0.02
# The clients ask for a time, not a number of calls: the expiries (and the duplicates
# at each) are what the run is about, so as many of them on a fast machine as on a
# slow one (30 calls each took 1.0 s on a quiet machine, 3 expiries and 15 duplicates
# per symbol, under the finding's 20; 1.8 s on a loaded one, with loop-saturated
# first).
RUN_S = 8 * TTL_S
upstream = requests.Session()
upstream.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=CLIENTS))
cache = {}  # symbol -> (price, expires)
inflight = {}  # symbol -> AsyncResult of the fetch in flight (mode=single)


def fetch(symbol):
    return upstream.get(f"{ARGS['price']}&sym={symbol}", timeout=30).content  # diag: culprit


def price(symbol):
    value, expires = cache.get(symbol, (None, 0.0))
    if value is not None and time.monotonic() < expires:
        return value
    if ARGS.get("mode") != "single":
        value = fetch(symbol)
    elif symbol in inflight:
        return inflight[symbol].get()
    else:
        inflight[symbol] = result = AsyncResult()
        try:
            value = fetch(symbol)
            result.set(value)
        finally:
            del inflight[symbol]
    cache[symbol] = (value, time.monotonic() + TTL_S)
    return value


def app(environ, start_response):
    body = price(environ["PATH_INFO"].rsplit("/", 1)[-1])
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


def client(number, base):
    session = requests.Session()
    end, call = time.monotonic() + RUN_S, number
    while time.monotonic() < end:
        session.get(f"{base}/quote/{SYMBOLS[call % len(SYMBOLS)]}",
                    timeout=30).raise_for_status()
        call += 1
        gevent.sleep(PAUSE_S)  # a client's own work between calls


# (TCP_NODELAY, inherited by the accepted sockets: pywsgi writes a response's head and
# body apart, and with Nagle on each kept-alive answer waits for a delayed ACK)
listener = socket.socket()
listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(CLIENTS)
server = WSGIServer(listener, app, log=None)
server.start()
base = f"http://127.0.0.1:{server.server_port}"
gevent.joinall([gevent.spawn(client, n, base) for n in range(CLIENTS)], raise_error=True)
server.stop()
