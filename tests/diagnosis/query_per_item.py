"""An order export: 8 workers, each job reading a customer's orders over the program's
own line-protocol connection to a store, then each order's items with a query of its
own (the N+1 pattern), then the customer and the products, once each.

Truth by construction: every query is a round trip of about 2 ms (the store answers
after a 2 ms sleep); a job makes 3 queries plus one per order (8), so the item query
(``diag: culprit``, called from ``diag: loop``) makes 8 round trips for each one of the
others', one after another.  Expected first finding ``sequential-calls`` at the item
query.  With ``fixed=1`` one query reads all of a job's items: no such finding.
"""

import sys

import gevent
import gevent.pool
from gevent.server import StreamServer
from gevent.socket import create_connection

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
FIXED = ARGS.get("fixed") == "1"
WORKERS, JOBS, ORDERS = 8, 96, 8


def store(sock, _address):  # one reply line per query line, after 2 ms
    reader = sock.makefile("rb")
    for line in reader:
        gevent.sleep(0.002)
        sock.sendall(b"ok " + line)


class Connection:
    def __init__(self, port):
        self.sock = create_connection(("127.0.0.1", port))
        self.reader = self.sock.makefile("rb")

    def query(self, text):
        self.sock.sendall(text.encode() + b"\n")
        return self.reader.readline()


def load_orders(conn, job):
    conn.query(f"SELECT orders {job}")
    return [f"{job}-{n}" for n in range(ORDERS)]


def load_items(conn, order):
    return conn.query(f"SELECT items {order}")  # diag: culprit


def load_items_for(conn, orders):
    return conn.query(f"SELECT items IN {','.join(orders)}")


def export(conn, job):
    orders = load_orders(conn, job)
    if FIXED:
        load_items_for(conn, orders)
    else:
        for order in orders:
            load_items(conn, order)  # diag: loop
    conn.query(f"SELECT customer {job}")
    conn.query(f"SELECT products {job}")


server = StreamServer(("127.0.0.1", 0), store)
server.start()
connections = [Connection(server.server_port) for _ in range(WORKERS)]
jobs = iter(range(JOBS))


def worker(conn):
    for job in jobs:
        export(conn, job)


gevent.joinall([gevent.spawn(worker, conn) for conn in connections], raise_error=True)
server.stop()
