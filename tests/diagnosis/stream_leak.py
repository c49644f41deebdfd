"""Twelve greenlets check a feed with ``stream=True`` and read only the first bytes of
each body (a probe), then drop the response without closing it.

Truth by construction: a streamed response keeps its connection until its body is read
to the end or it is closed, so none of the 36 connections goes back to the session's
pool: every request opens a new one (a name lookup in gevent's threadpool and a
connect) at the ``session.get`` line (``diag: culprit``), and all 36 are still out when
the run ends, with no greenlet left to read them.  Expected first finding
``connection-leak`` there, naming ``prober``.  With ``mode=closed`` each response is
closed by its ``with`` block (the fix the finding gives): the connections go back to
the pool (closing an unread response closes its socket, so the pool reconnects them)
and there is no ``connection-leak``.
"""

import sys
import urllib.parse

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 12
PROBES = 3
# By name, as services call their peers: the lookup is part of every new connection.
URL = ARGS["kept"].replace("127.0.0.1", "localhost", 1)
session = requests.Session()
probed = []  # the responses, kept as a service might keep them for a log


def prober():
    for _ in range(PROBES):
        if ARGS.get("mode") == "closed":
            with session.get(URL, stream=True, timeout=30) as response:
                probed.append(response.raw.read(2))
        else:
            response = session.get(URL, stream=True, timeout=30)  # diag: culprit
            probed.append(response.raw.read(2))


assert urllib.parse.urlsplit(URL).hostname == "localhost"
gevent.joinall([spawn("prober", prober) for _ in range(GREENLETS)], raise_error=True)
