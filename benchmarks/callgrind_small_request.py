"""One small request's cost in instructions (callgrind), per client.

    python benchmarks/callgrind_small_request.py [--clients fast,default,urllib3,ghc]
        [--requests 2000] [--size 1024] [--checkout DIR]

Timing cannot resolve a 5 % change of a 1 KiB request's cost on a shared machine;
instruction counts repeat within ~1 %.  For each client, one monkey-patched interpreter
under ``valgrind --tool=callgrind`` makes warm-up requests, then the counted ones, to
``benchmarks/bodyserver.py`` in a process of its own (not counted); ``--dump-before=
getppid`` cuts the count at marks the workload makes with ``os.getppid()``.  Clients:
``fast`` (``geventperf.Session().get(url).content``, from *--checkout*, the current tree
by default: a tree of an older commit, ``git archive`` of its package, compares rounds),
``default`` (requests' own ``Session``), ``urllib3`` (``PoolManager.request``) and
``ghc`` (geventhttpclient's ``HTTPClient``).  User space only: the kernel's work in the
socket calls is not counted, which flatters clients that make fewer Python steps per
system call (geventhttpclient).  Not part of ``tox -e bench``: it needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Requests before the counted ones: connections made, caches warm.
WARM_UP = 300

WORKLOAD = r'''
from gevent import monkey
monkey.patch_all()
import os, subprocess, sys
client, checkout, server, n, warm, size = sys.argv[1:7]
n, warm, size = int(n), int(warm), int(size)
proc = subprocess.Popen([sys.executable, server], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True)
port = int(proc.stdout.readline())
url = f"http://127.0.0.1:{port}/{size}"
if client == "fast":
    sys.path.insert(0, checkout)
    import geventperf
    assert geventperf.__file__.startswith(checkout), geventperf.__file__
    session = geventperf.Session()
    get = lambda: session.get(url).content
elif client == "default":
    import requests
    session = requests.Session()
    get = lambda: session.get(url).content
elif client == "urllib3":
    import urllib3
    manager = urllib3.PoolManager()
    get = lambda: manager.request("GET", url).data
elif client == "ghc":
    import geventhttpclient
    http = geventhttpclient.HTTPClient("127.0.0.1", port, concurrency=1,
                                       network_timeout=60)
    def get():
        response = http.get(f"/{size}")
        try:
            return response.read()
        finally:
            response.release()
else:
    raise SystemExit(f"unknown client {client!r}")
for _ in range(warm):
    assert len(get()) == size
os.getppid()  # mark: the counted requests start
for _ in range(n):
    get()
os.getppid()  # mark: they end
assert len(get()) == size
proc.stdin.close()
proc.wait(10)
'''


def instructions(client: str, checkout: str, requests: int, size: int) -> int:
    """The instructions *requests* requests of *client* took, between the marks."""
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                        f"--callgrind-out-file={out}", sys.executable, script, client,
                        checkout, os.path.join(HERE, "bodyserver.py"), str(requests),
                        str(WARM_UP), str(size)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out + ".2") as f:  # the second dump: between the two marks
            summary = re.search(r"^summary: (\d+)", f.read(), re.M)
        if summary is None:
            raise SystemExit(f"{client}: no callgrind summary in {out}.2")
        return int(summary.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="fast,default,urllib3,ghc")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--checkout", default=os.path.dirname(HERE))
    args = parser.parse_args()
    checkout = os.path.abspath(args.checkout)
    counts = {}
    for client in args.clients.split(","):
        counts[client] = instructions(client, checkout, args.requests, args.size) \
            // args.requests
        print(f"{client:8} {counts[client]:>10,} instructions per request", flush=True)
    if "fast" in counts and "ghc" in counts:
        print(f"fast / ghc: {counts['fast'] / counts['ghc']:.2f}x")


if __name__ == "__main__":
    main()
