"""Readers that iterate response bodies in iter_content()'s default piece: one byte.

Truth by construction: four ``reader`` greenlets each fetch three 32 KiB bodies from a
kept-alive server with ``stream=True`` and count their lines over
``response.iter_content()`` (``diag: culprit``), whose ``chunk_size`` is one byte
unless given: 32 Ki trips through requests, urllib3 and http.client per body, CPU
that holds the loop from a buffer already full.  Expected: a loop finding whose CPU
samples name that line, with the chunk_size fix.  With ``chunk=65536`` the same bodies
take one piece each: no finding names the line.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
READERS, BODIES = 4, 3
CHUNK = int(ARGS.get("chunk", "1"))
session = requests.Session()


def reader():
    lines = 0
    for _ in range(BODIES):
        with session.get(ARGS["kept"], stream=True, timeout=30) as response:
            for piece in response.iter_content(CHUNK):  # diag: culprit
                lines += piece.count(b"\n")
    return lines


gevent.joinall([spawn("reader", reader) for _ in range(READERS)], raise_error=True)
