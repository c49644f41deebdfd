"""Ten handlers each fan out eight fetches at a time (spawn, then joinall) through one
shared Session whose adapter keeps requests' default ten connections per host, against
a kept-alive server that answers after the delay the test gives.

Truth by construction: each round puts 80 requests in flight; 80 connections come back
to a pool that keeps 10, urllib3 closes the other 70, and the next round opens them
again -- a name lookup (in gevent's threadpool) and a connect each, at the ``fetch``
greenlets' ``session.get`` line (``diag: culprit``).  Expected first finding
``connection-churn`` there, naming ``fetch``.  With ``size=80``
(``geventperf.mount(session, pool_maxsize=80)``, the fix the finding gives) every
connection is kept and reused: no ``connection-churn``.

The rounds start together, as a burst of incoming requests fans out: handlers left to
drift apart hand their connections back while others take them, and how much churn
that leaves depends on the machine's load (one loaded run reopened none after its
first round, and the profile rightly told none).
"""

import logging
import sys
import urllib.parse

import gevent
import requests
from _greenlets import spawn

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HANDLERS = 10
FANOUT = 8
# Rounds past the first reopen what the pool threw away; the first round's lookups are
# every connection's first (a burst of 80 on a threadpool of 10, which
# threadpool-saturated tells).  With four rounds the two queued about as long, and
# one CI run ranked the burst first; with eight the churn is most of the lookups, and
# with answers in 0.1 s (less of the loop's queueing in the churn's cost) one loaded
# run still ranked the burst first: sixteen.
ROUNDS = 16
# By name, as services call their peers: the lookup is part of every new connection.
URL = ARGS["kept"].replace("127.0.0.1", "localhost", 1)
# Services silence urllib3's "Connection pool is full" warning: the profile must see it.
logging.getLogger("urllib3").setLevel(logging.ERROR)
session = requests.Session()
if "size" in ARGS:
    geventperf.mount(session, pool_maxsize=int(ARGS["size"]))


def fetch():
    return len(session.get(URL, timeout=30).content)  # diag: culprit


def handler():
    gevent.joinall([spawn("fetch", fetch) for _ in range(FANOUT)], raise_error=True)


assert urllib.parse.urlsplit(URL).hostname == "localhost"
for _ in range(ROUNDS):
    gevent.joinall([spawn("handler", handler) for _ in range(HANDLERS)], raise_error=True)
