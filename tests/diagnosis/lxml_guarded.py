"""The lxml deadlock risk, guarded: ``geventperf.Tracer(lxml_guard=True)`` keeps it alive.

Run as ``python lxml_guarded.py OUT.json xml=URL slow=URL`` (the CLI has no switch for
the guard, so this script starts the tracer itself, after patching).  Truth by
construction: as in ``lxml_deadlock.py``, two ``feed-parser`` greenlets call
``lxml.etree.parse(response.raw)`` with the default parser on trickled bodies; without
the guard the thread deadlocks on lxml's parser lock; the guard gives the second parse
its own parser, so the run completes.  Expected first finding
``c-section-deadlock-risk`` at the ``diag: culprit`` line, ranked above every cost
(blocked reads included) although nothing hung, saying that the guard is what kept the
process alive.  The ``slow-waiter`` waits on a slow server: innocent.
"""

from gevent import monkey

monkey.patch_all()

import sys  # noqa: E402

import gevent  # noqa: E402
import lxml.etree  # noqa: E402
import requests  # noqa: E402
from _greenlets import spawn  # noqa: E402

import geventperf  # noqa: E402

OUT = sys.argv[1]
ARGS = dict(arg.split("=", 1) for arg in sys.argv[2:])


def parse_feed():
    response = requests.get(ARGS["xml"], stream=True, timeout=30)
    tree = lxml.etree.parse(response.raw)  # diag: culprit
    return len(tree.getroot())


def waiter():
    return requests.get(ARGS["slow"], timeout=30).content  # diag: network-wait



with geventperf.Tracer(lxml_guard=True) as tracer:
    jobs = [spawn("feed-parser", parse_feed) for _ in range(2)]
    jobs.append(spawn("slow-waiter", waiter))
    gevent.joinall(jobs, raise_error=True)
tracer.profile.save(OUT)
