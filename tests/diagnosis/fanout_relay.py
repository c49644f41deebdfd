"""A pub/sub relay whose one publisher handler writes each message to every subscriber.

Truth by construction: a ``gevent.server.StreamServer`` relays the publisher's messages;
with ``mode=fanout`` the publisher's connection greenlet ``sendall``s each message to
the subscribers in turn (``diag: culprit``).  Eight in-process subscribers each pause
now and then (1 % of messages, 40 ms: a slow write downstream), their small socket
buffers fill, and the relay waits for that one reader while the others starve: the run
takes about the sum of every subscriber's pauses.  Each subscriber kills its heartbeat
greenlet when done.  Expected: ``write-blocked`` first, at the culprit line, and the
subscribers' reads not told as workers' calls (with their ``kill()`` as their queue).

With ``mode=queues`` (the fix) each subscriber's own connection greenlet writes from a
queue of its own (``diag: own-writer``): a pause holds up only that subscriber.
Expected: no ``write-blocked``.
"""

import socket
import sys

import gevent
from gevent.event import Event
from gevent.queue import Queue
from gevent.server import StreamServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SUBSCRIBERS, MESSAGES, PAYLOAD = 8, 800, b"x" * 1000
PAUSE_EVERY, PAUSE_S, HEARTBEAT_S = 100, 0.04, 0.1
# Small socket buffers, so that one pause fills them within a few dozen messages.
BUFFER_BYTES = 16 * 1024
subscribers = []
all_subscribed = Event()


def deliver_to_all(frame):
    for sock, _ in subscribers:
        sock.sendall(frame)  # diag: culprit


def handle(sock, _address):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER_BYTES)
    reader = sock.makefile("rb")
    if reader.readline().strip() == b"SUB":
        outbox = Queue()
        subscribers.append((sock, outbox))
        if len(subscribers) == SUBSCRIBERS:
            all_subscribed.set()
        for frame in iter(outbox.get, None):
            sock.sendall(frame)  # diag: own-writer
        reader.read()  # hold the connection until the subscriber closes it
        return
    for line in reader:
        if ARGS["mode"] == "fanout":
            deliver_to_all(line)
        else:
            for _, outbox in subscribers:
                outbox.put(line)
    for _, outbox in subscribers:
        outbox.put(None)


def subscriber(port, number):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER_BYTES)
    sock.sendall(b"SUB\n")
    beating = gevent.spawn(heartbeat, sock)
    reader = sock.makefile("rb")
    for seq in range(MESSAGES):
        reader.readline()
        if (seq + 13 * number) % PAUSE_EVERY == 0:
            gevent.sleep(PAUSE_S)  # the subscriber's slow write downstream
    beating.kill()
    sock.close()


def heartbeat(sock):
    while True:
        gevent.sleep(HEARTBEAT_S)
        sock.sendall(b"HB\n")


def publisher(port):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"PUB\n")
    all_subscribed.wait()
    for seq in range(MESSAGES):
        sock.sendall(b"%d %s\n" % (seq, PAYLOAD))
    sock.close()


server = StreamServer(("127.0.0.1", 0), handle)
server.start()
readers = [gevent.spawn(subscriber, server.server_port, n) for n in range(SUBSCRIBERS)]
gevent.spawn(publisher, server.server_port)
gevent.joinall(readers, raise_error=True)
server.stop(timeout=1)
