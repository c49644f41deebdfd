"""How long a greenlet waiting for I/O waits while a CPU job yields between pieces.

    python benchmarks/yield_kinds.py [--rounds 3]

A job burns 200 pieces of 1.5 ms of CPU, yielding between them with nothing,
``gevent.sleep(0)``, ``gevent.sleep(0.001)`` or ``gevent.idle()``, while a pinger sends
a byte over a socketpair every 2 ms and times the echo.  gevent runs its queued
callbacks (a ``sleep(0)``'s wake-up is one) and checks only after 50 of them whether
its switch interval has passed before it polls for I/O, so ``sleep(0)`` between pieces
keeps the pinger waiting for dozens of pieces; the findings' advice to yield with
``gevent.idle()`` or ``gevent.sleep(0.001)`` rests on these figures (measured here
with ``--rounds 3``, medians: the longest ping 302 ms with no yield, 158 ms with
``sleep(0)``, 1.6-1.7 ms with either of the others; the job took 345 ms with
``idle()`` and 564 ms with ``sleep(0.001)``, whose timers add up).

Not part of ``tox -e bench``: it shows a behaviour of gevent's loop, not our speed.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import time

import gevent
import gevent.socket

PIECE_S = 0.0015
PIECES = 200
PINGS = 100
PING_EVERY_S = 0.002
MODES = {"none": None, "sleep(0)": lambda: gevent.sleep(0),
         "sleep(0.001)": lambda: gevent.sleep(0.001), "idle()": gevent.idle}


def burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def one_round(give_way) -> tuple[float, float]:
    """(the longest ping, the job's wall time) with *give_way* between pieces."""
    a, b = socket.socketpair()
    for s in (a, b):
        s.setblocking(False)
    ours_a, ours_b = gevent.socket.socket(fileno=a.detach()), gevent.socket.socket(fileno=b.detach())
    pings: list[float] = []

    def echo() -> None:
        while data := ours_b.recv(16):
            ours_b.sendall(data)

    def pinger() -> None:
        for _ in range(PINGS):
            start = time.perf_counter()
            ours_a.sendall(b"x")
            ours_a.recv(16)
            pings.append(time.perf_counter() - start)
            gevent.sleep(PING_EVERY_S)

    def job() -> None:
        for _ in range(PIECES):
            burn(PIECE_S)
            if give_way is not None:
                give_way()

    echoer, ping = gevent.spawn(echo), gevent.spawn(pinger)
    gevent.sleep(0.01)
    start = time.perf_counter()
    gevent.spawn(job).join()
    took = time.perf_counter() - start
    ping.join()
    ours_a.close()
    echoer.join()
    ours_b.close()
    return max(pings), took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    for name, give_way in MODES.items():
        results = [one_round(give_way) for _ in range(rounds)]
        print(f"{name:13s} longest ping {statistics.median(r[0] for r in results) * 1e3:7.1f} ms"
              f"   job {statistics.median(r[1] for r in results) * 1e3:6.0f} ms"
              f"   (medians of {rounds})")


if __name__ == "__main__":
    main()
