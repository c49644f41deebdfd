"""A payments worker: a gevent Pool of 16 jobs shares a pool of 2 connections to a
line-protocol store (a LifoQueue of sockets, taken and given back by a with block);
each job, inside its transaction's with block, also calls a risk service over HTTP
(20 ms), holding its connection through that call.

Truth by construction: the jobs queue for the 2 connections at the pool's get()
(``diag: taken``), each held about 22 ms, 20 of them in the risk call (``diag:
culprit``, inside the with block at ``diag: block``).  Expected first finding
``pool-full`` telling the connection held across the risk call, with the call's line
and "before the block" as the fix.  With ``fixed=1`` the call is made before the block:
no finding tells a connection held across it.
"""

import contextlib
import sys

import gevent
import gevent.pool
import requests
from gevent.pywsgi import WSGIServer
from gevent.queue import LifoQueue
from gevent.server import StreamServer
from gevent.socket import create_connection

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("fixed") == "1"
CONNECTIONS, JOBS, SLOTS = 2, 160, 16


def store(sock, _address):  # answers each query line with one line, at once
    reader = sock.makefile("rb")
    for line in reader:
        sock.sendall(b"ok " + line)


def risk(environ, start_response):
    gevent.sleep(0.02)
    start_response("200 OK", [("Content-Length", "5")])
    return [b"allow"]


class Pool:
    def __init__(self, port):
        self._idle = LifoQueue()
        for _ in range(CONNECTIONS):
            self._idle.put(create_connection(("127.0.0.1", port)))

    @contextlib.contextmanager
    def connection(self):
        conn = self._idle.get()  # diag: taken
        try:
            yield conn
        finally:
            self._idle.put(conn)

    @staticmethod
    def query(conn, text):
        conn.sendall(text.encode() + b"\n")
        return conn.recv(256)


db_server = StreamServer(("127.0.0.1", 0), store)
db_server.start()
risk_server = WSGIServer(("127.0.0.1", 0), risk, log=None)
risk_server.init_socket()
risk_server.socket.setsockopt(6, 1, 1)  # TCP_NODELAY: no Nagle stall of pywsgi's own
risk_server.start()
db = Pool(db_server.server_port)
session = requests.Session()
RISK = f"http://127.0.0.1:{risk_server.server_port}/"


def settle(n):
    if FIXED:
        verdict = session.get(RISK, timeout=10).content
    with db.connection() as conn:  # diag: block
        Pool.query(conn, f"SELECT {n}")
        if not FIXED:
            verdict = session.get(RISK, timeout=10).content  # diag: culprit
        Pool.query(conn, f"UPDATE {n} {verdict.decode()}")


jobs = gevent.pool.Pool(SLOTS)
for n in range(JOBS):
    jobs.spawn(settle, n)  # diag: spawn
jobs.join(raise_error=True)
db_server.stop()
risk_server.stop()
