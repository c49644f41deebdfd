"""awaited-in-turn and batch-barrier tell a spawner that waited for its greenlets, not
one that waited for input of its own while they ran: a batcher on its queue whose next
item came after each sender ended, a connection reading its next request frame while
the greenlets it spawned for the last ones ran.  Real gevent programs traced in this
process."""

from __future__ import annotations

import gevent
import gevent.event
import gevent.queue

import geventperf
from geventperf import findings
from geventperf.profile import Profile

PRODUCERS = 4
ITEMS_EACH = 12
SEND_S = 0.01  # one batch's round trip
THINK_S = 0.008  # a producer's own work before its next item


def _awaited(p: Profile) -> list:
    return [f for f in p.findings if f.kind == findings.AWAITED_IN_TURN]


def _batcher_run(join_each: bool) -> Profile:
    """A batcher blocks on its queue, takes what is queued and spawns a sender for the
    batch; its producers each wait for their item's result, then work THINK_S before
    the next item, so the next batch begins only after the last sender ended.  With
    *join_each* the batcher sends each batch in three pieces, spawning a sender for each
    and joining it before the next."""
    items: gevent.queue.Queue = gevent.queue.Queue()

    def send(batch: list[gevent.event.AsyncResult]) -> None:
        gevent.sleep(SEND_S)
        for done in batch:
            done.set(True)

    def batcher() -> None:
        while True:
            first = items.get()
            if first is None:
                return
            batch = [first]
            while not items.empty():
                batch.append(items.get_nowait())
            if join_each:  # in three pieces, each sent and joined before the next
                for piece in (batch[0::3], batch[1::3], batch[2::3]):
                    gevent.spawn(send, piece).join()
            else:
                gevent.spawn(send, batch)

    def producer() -> None:
        for _ in range(ITEMS_EACH):
            done = gevent.event.AsyncResult()
            items.put(done)
            done.get()
            gevent.sleep(THINK_S)

    with geventperf.Tracer() as tracer:
        b = gevent.spawn(batcher)
        gevent.joinall([gevent.spawn(producer) for _ in range(PRODUCERS)])
        items.put(None)
        b.join()
    return tracer.profile


def test_a_batcher_waiting_on_its_queue_is_not_told_as_awaiting_its_senders():
    p = _batcher_run(join_each=False)
    # one sender alive at a time, each ended before the batcher took the next batch
    assert len([g for g in p.greenlets if g.name.endswith("send")]) >= ITEMS_EACH
    assert not _awaited(p)


def test_a_batcher_joining_each_sender_is_told():
    # the same, sending each batch in three pieces one after another: it woke for
    # their ends
    [found] = _awaited(_batcher_run(join_each=True))
    assert "batcher" in found.message


def _frame_server(join_batches: bool) -> Profile:
    """A connection reads request frames from its socket and spawns a greenlet per
    frame (a reply 1-3 ms later, one of each burst's 20 ms later); the client sends frames
    in bursts of BURST.  With *join_batches* the connection joins each burst's
    greenlets before reading on."""
    import random

    import gevent.socket

    server_end, client_end = gevent.socket.socketpair()
    rng = random.Random(5)

    def handle(n: int) -> None:
        gevent.sleep(0.02 if n % BURST == 0 else rng.uniform(0.001, 0.003))

    def connection() -> None:
        reader = server_end.makefile("rb")
        batch = []
        while True:
            line = reader.readline()  # the next request frame
            if not line or line == b"end\n":
                break
            batch.append(gevent.spawn(handle, int(line)))
            if join_batches and len(batch) == BURST:
                gevent.joinall(batch)
                batch = []
        gevent.joinall(batch)

    with geventperf.Tracer() as tracer:
        conn = gevent.spawn(connection)
        for burst in range(BURSTS):
            client_end.sendall(b"".join(b"%d\n" % (burst * BURST + i) for i in range(BURST)))
            gevent.sleep(0.015)
        client_end.sendall(b"end\n")
        conn.join()
    server_end.close()
    client_end.close()
    return tracer.profile


BURST, BURSTS = 20, 20


def test_a_connection_spawning_per_frame_while_it_reads_on_is_no_batch_barrier():
    # its waits while its greenlets ran were reads of its socket: input, not them
    p = _frame_server(join_batches=False)
    assert not [f for f in p.findings if f.kind == findings.BATCH_BARRIER]


def test_a_connection_joining_each_burst_is_a_batch_barrier():
    p = _frame_server(join_batches=True)
    assert [f for f in p.findings if f.kind == findings.BATCH_BARRIER]


def _line_reader(interval: float, life: float) -> Profile:
    """A connection reads its peer's lines, sent in bursts of BURST every *interval*,
    and spawns one webhook greenlet (living *life*) per burst, never waiting for it:
    each ends just before the next burst wakes the reader, which reads the burst from
    its buffer without waiting again and spawns the next."""
    import gevent.socket

    server_end, client_end = gevent.socket.socketpair()

    def connection() -> None:
        for number, line in enumerate(server_end.makefile("rb")):  # the peer's next line
            if line == b"end\n":
                break
            if number % BURST == 0:
                gevent.spawn(gevent.sleep, life)  # a webhook, never awaited

    with geventperf.Tracer() as tracer:
        conn = gevent.spawn(connection)
        for _ in range(BURSTS):
            client_end.sendall(b"x\n" * BURST)
            gevent.sleep(interval)
        client_end.sendall(b"end\n")
        conn.join()
    server_end.close()
    client_end.close()
    return tracer.profile


def test_a_connection_reading_its_peer_while_a_greenlet_it_spawned_ends_awaits_none():
    """Before (an unseen hub's publisher handler, its digest webhooks spawned every 250
    events and never awaited): told it waited for each in turn, as it woke soon after
    each one ended -- for its peer's next line."""
    p = _line_reader(0.01, 0.0095)
    assert not _awaited(p)


def _kept_alive_server(interval: float, life: float) -> Profile:
    """A gevent WSGI server on 127.0.0.1 whose handler schedules a callback (a status
    report living *life*, never awaited) and answers; one client sends a request on one
    kept-alive connection every *interval*, so each callback ends just before the next
    request wakes the connection's greenlet, waiting in pywsgi for it."""
    import socket

    import gevent.pywsgi
    import gevent.socket

    def app(environ, start_response):
        gevent.spawn(gevent.sleep, life)  # the report, never awaited
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]

    listener = gevent.socket.socket()
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # (accepted inherit)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    server = gevent.pywsgi.WSGIServer(listener, app, log=None)
    server.start()
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    try:
        with geventperf.Tracer() as tracer:
            client = gevent.socket.create_connection(("127.0.0.1", server.server_port))
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms ACKs
            reader = client.makefile("rb")
            for _ in range(BURSTS):
                client.sendall(request)
                while reader.readline() not in (b"\r\n", b""):  # the head
                    pass
                assert reader.read(2) == b"ok"
                gevent.sleep(interval)
            client.close()
    finally:
        server.stop()
    return tracer.profile


def test_a_server_connection_awaiting_its_clients_next_request_awaits_none():
    """Before (an unseen provider stand-in whose handlers scheduled a delivery report
    per message and answered): its connections were told they waited for each report in
    turn -- they waited for their client's next request."""
    p = _kept_alive_server(0.01, 0.0101)
    assert not _awaited(p), _awaited(p)[0].message
