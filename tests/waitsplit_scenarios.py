"""Workloads whose event/ready split is known by construction, for test_waitsplit.py.

Run as ``python -m tests.waitsplit_scenarios NAME OUT.json [--no-cpu-clock]`` in a fresh
interpreter, so the event loop (``GEVENT_LOOP``) and the hot path (``GEVENTPERF_PURE``)
are chosen per run.  Not monkey-patched: the echo server is another process, so
replies arrive on time whatever the loop (or this interpreter's GIL) is doing.
"""

from __future__ import annotations

import atexit
import socket
import subprocess
import sys
import threading
import time

import gevent
import gevent.socket

from geventperf import Tracer, section

WAITERS = 6
ROUNDS = 15
TIMER_S = 0.004
HOG_CPU_S = 0.02
HOG_ROUNDS = 8
SPAWNED = 5
SPAWN_BURN_S = 0.05


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def serve_echo() -> None:
    """The echo server: every byte back at once, one thread per connection.  Its own
    process, so it never holds the traced interpreter's GIL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)

    def serve(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(64):
                conn.sendall(data)

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def echo_server() -> tuple[str, int]:
    """Start :func:`serve_echo` in a child process (ended with this one's stdin)."""
    child = subprocess.Popen([sys.executable, "-m", "tests.waitsplit_scenarios", "--echo"],
                             stdout=subprocess.PIPE, text=True)
    atexit.register(child.kill)
    return "127.0.0.1", int(child.stdout.readline())


def timer_waiter(period: float) -> None:
    for _ in range(ROUNDS):
        gevent.sleep(period)


def socket_waiter(sock: gevent.socket.socket) -> None:
    with sock:
        for _ in range(ROUNDS):
            sock.sendall(b"x")
            sock.recv(1)


def hog() -> None:
    for _ in range(HOG_ROUNDS):
        with section("crunch"):
            burn(HOG_CPU_S)
        gevent.sleep(0)


def named(name: str, func, *args) -> gevent.Greenlet:
    g = gevent.Greenlet(func, *args)
    g.name = name
    g.start()
    return g


def waiters(socks: list[gevent.socket.socket]) -> list[gevent.Greenlet]:
    # periods apart, so that the timers seldom come due together and queue for each
    # other: alone, these waiters should wait for their events only
    return [named("timer-waiter", timer_waiter, TIMER_S * (1 + 0.37 * i))
            for i in range(len(socks))] + \
        [named("socket-waiter", socket_waiter, sock) for sock in socks]


def scenario_hogs(socks: list[gevent.socket.socket]) -> None:
    """Waiters on short timers and fast replies behind two CPU hogs: queueing."""
    gevent.joinall(waiters(socks) + [named("hog", hog) for _ in range(2)])


def scenario_idle(socks: list[gevent.socket.socket]) -> None:
    """The same waiters alone: they wait on events, the hub mostly idles."""
    gevent.joinall(waiters(socks))


def scenario_sleep0(socks: list[gevent.socket.socket]) -> None:
    """Yielding with sleep(0) asks to run again at once: all of that wait is ready."""
    def yielder() -> None:
        for _ in range(500):
            gevent.sleep(0)
    gevent.joinall([named("yielder", yielder) for _ in range(3)])


def scenario_spawn(socks: list[gevent.socket.socket]) -> None:
    """Greenlets spawned, then the spawner burns CPU before yielding: their start delay
    is ready wait, caused by the spawner."""
    jobs = [named("spawned", gevent.sleep, 0) for _ in range(SPAWNED)]
    burn(SPAWN_BURN_S)
    gevent.joinall(jobs)


def scenario_late_spawn(socks: list[gevent.socket.socket]) -> None:
    """The spawner burns CPU first and spawns just before it yields (a service's
    start-up): its slice is long, but the spawned greenlets waited only for the rest of
    it, the spawning."""
    burn(2 * SPAWN_BURN_S)
    gevent.joinall([named("spawned", gevent.sleep, 0) for _ in range(SPAWNED)])


def main() -> None:
    if sys.argv[1] == "--echo":
        return serve_echo()
    name, out = sys.argv[1], sys.argv[2]
    address = echo_server()
    # connected before tracing: the first name lookup starts gevent's threadpool, which
    # holds the loop for tens of milliseconds (a finding of its own, not these tests')
    socks = [gevent.socket.create_connection(address) for _ in range(WAITERS // 2)]
    with Tracer(cpu_clock="--no-cpu-clock" not in sys.argv) as tracer:
        globals()[f"scenario_{name}"](socks)
    tracer.profile.save(out)


if __name__ == "__main__":
    main()
