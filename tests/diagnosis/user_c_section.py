"""A section the program marks ``c=True`` (never expected to yield) reads the network.

Truth by construction: four ``decoder`` greenlets read a trickled JSON body with
``response.raw.read()`` inside ``geventperf.section("decode feed", c=True)``: the
program says the region never yields, yet every read in it waits on the hub for the
next piece.  Not one of the auto-wrapped parsers: the finding must come from the
section the user named.  Expected first finding ``blocked-read-in-c-section`` for
section ``decode feed``, at the read line (``diag: culprit``), one finding for the four.
The ``slow-waiter`` waits on a slow server: innocent.
"""

import sys

import gevent
import requests
from _greenlets import spawn

import geventperf

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 4


def decode():
    response = requests.get(ARGS["json"], stream=True, timeout=30)
    with geventperf.section("decode feed", c=True):
        data = response.raw.read()  # diag: culprit
    return len(data)


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



jobs = [spawn("decoder", decode) for _ in range(GREENLETS)]
jobs.append(spawn("slow-waiter", waiter))
gevent.joinall(jobs, raise_error=True)
assert all(g.value for g in jobs)
