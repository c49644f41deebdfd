"""Locust, headless, one process (one core), fixed users, against the benchmark body
server: ``HttpUser`` vs ``HttpUser`` + geventperf vs ``FastHttpUser``.

    python benchmarks/locust/run.py [--users 10] [--seconds 8] [--rounds 3] [--path /1024]
                                    [--ceiling]

Each round runs every user class once, in rotating order, so load on a shared machine
drifts over all of them alike; the figures are medians over rounds: requests per
second (Locust's own count) and CPU milliseconds per request (the Locust process's
CPU time from test start to test stop, over its requests).  ``tox -e bench-locust`` runs it.
``--ceiling`` adds ``CeilingHttpUser``: the recipe with a transport that costs nothing
(see locustfile.py), the most any adapter under ``HttpUser`` could reach.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
CLASSES = ("PlainHttpUser", "GeventperfHttpUser", "FastUser")


def one_run(cls: str, host: str, args: argparse.Namespace) -> tuple[float, float]:
    """(requests per second, CPU ms per request) of one headless Locust run."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "stats")
        cpu_file = os.path.join(tmp, "cpu.json")
        subprocess.run(
            [sys.executable, "-m", "locust", "-f", os.path.join(HERE, "locustfile.py"), cls,
             "--headless", "-u", str(args.users), "-r", str(args.users),
             "-t", f"{args.seconds}s", "--host", host, "--csv", prefix, "--only-summary",
             "--loglevel", "WARNING", "--stop-timeout", "2"],
            check=True, stdout=subprocess.DEVNULL,
            env=dict(os.environ, GEVENTPERF_LOCUST_PATH=args.path,
                     GEVENTPERF_LOCUST_CPU_FILE=cpu_file))
        with open(cpu_file) as measured:
            cpu = json.load(measured)["cpu_s"]
        with open(prefix + "_stats.csv") as stats:
            rows = stats.read().splitlines()
    header = rows[0].split(",")
    total = dict(zip(header, rows[-1].split(",")))
    count = int(total["Request Count"])
    failures = int(total["Failure Count"])
    if failures:
        raise RuntimeError(f"{cls}: {failures} failed requests")
    return float(total["Requests/s"]), cpu / count * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--path", default="/1024")
    parser.add_argument("--ceiling", action="store_true",
                        help="also run CeilingHttpUser (a transport that costs nothing)")
    args = parser.parse_args()
    classes = CLASSES + (("CeilingHttpUser",) if args.ceiling else ())
    server = subprocess.Popen([sys.executable, os.path.join(BENCH, "bodyserver.py")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    host = f"http://127.0.0.1:{int(server.stdout.readline())}"
    results: dict[str, list[tuple[float, float]]] = {cls: [] for cls in classes}
    try:
        for index in range(args.rounds):
            order = classes[index % len(classes):] + classes[:index % len(classes)]
            for cls in order:
                results[cls].append(one_run(cls, host, args))
    finally:
        server.stdin.close()
        server.wait(10)
    fast_rps = statistics.median(r for r, _ in results["FastUser"])
    summary = {}
    print(f"Locust, {args.users} users, {args.seconds} s x {args.rounds} rounds, GET "
          f"{args.path} (medians over rounds)")
    for cls in classes:
        rps = statistics.median(r for r, _ in results[cls])
        cpu_ms = statistics.median(c for _, c in results[cls])
        summary[cls] = {"rps": round(rps, 1), "cpu_ms_per_request": round(cpu_ms, 3),
                        "x_fasthttpuser_rps": round(rps / fast_rps, 2)}
        print(f"  {cls:20} {rps:9.1f} req/s  {cpu_ms:7.3f} ms CPU/request  "
              f"{rps / fast_rps:5.2f}x FastHttpUser's req/s")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
