"""Twelve greenlets fetch with ``requests.get``, the module-level function: a new
Session, and so a new connection, for every call.

Truth by construction: each call builds a Session, resolves ``localhost`` (in gevent's
threadpool), connects, sends one request and closes it all; 36 calls open at least 36
connections, and every one of them waits to resolve and to connect (``diag: culprit``,
the ``requests.get`` line).  Expected first finding ``session-per-request`` there,
naming ``getter``.  With ``mode=session`` each greenlet shares one ``requests.Session``
(the fix the finding gives): kept-alive connections, no ``session-per-request``.
"""

import sys
import urllib.parse

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 12
CALLS = 3
# By name, as services call their peers: the lookup is part of every new connection.
URL = ARGS["slow"].replace("127.0.0.1", "localhost", 1)
SESSION = requests.Session()


def getter():
    received = 0
    for _ in range(CALLS):
        if ARGS.get("mode") == "session":
            received += len(SESSION.get(URL, timeout=30).content)
        else:
            received += len(requests.get(URL, timeout=30).content)  # diag: culprit
    return received


assert urllib.parse.urlsplit(URL).hostname == "localhost"
gevent.joinall([spawn("getter", getter) for _ in range(GREENLETS)], raise_error=True)
