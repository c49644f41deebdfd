"""Handlers log a line per fetch to stderr, and stderr is a pipe to a log shipper that
reads 4 KiB every 100 ms (a container runtime or a sidecar falling behind).

Truth by construction: once the 64 KiB pipe is full, every log write blocks the
process until the shipper reads: the whole loop stalls in ``logging``'s
``StreamHandler.emit``, called from the handlers' ``log.info`` line.  Expected first
finding ``blocking-call`` at that line, saying the log's reader fell behind (not that
something is unpatched).  With ``log=file`` the handlers log to a file: no
``blocking-call``.
"""

import logging
import os
import subprocess
import sys
import tempfile

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
SHIPPER = ("import sys, time\n"
           "while sys.stdin.buffer.read1(4096):\n"
           "    time.sleep(0.1)\n")

if ARGS.get("log") == "file":
    stream = open(os.path.join(tempfile.mkdtemp(), "app.log"), "w")
else:
    # a blocking pipe, as a container runtime hands stderr over (gevent's own pipes
    # would be non-blocking, and writes to them fail instead of waiting)
    read_end, write_end = os.pipe()
    shipper = subprocess.Popen([sys.executable, "-c", SHIPPER], stdin=read_end)
    os.close(read_end)
    stream = open(write_end, "w", buffering=1)
logging.basicConfig(stream=stream, level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("handler")
PADDING = "x" * 400


def handler(i):
    session = requests.Session()
    for n in range(40):
        size = len(session.get(ARGS["slow"], timeout=30).content)  # diag: network-wait
        log.info("handler %d fetched %d bytes on round %d %s", i, size, n, PADDING)  # diag: culprit


gevent.joinall([spawn("handler", handler, i) for i in range(20)], raise_error=True)
stream.close()
