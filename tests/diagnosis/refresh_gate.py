"""Workers that wait for a shared config whose refresher closes a gate around each reload.

Truth by construction: ``refresher`` clears the ``ready`` Event, reloads the config
from ``config=`` (a server that answers after its delay), sets the Event and sleeps a
little, again and again.  Twelve ``worker`` greenlets each take the config before every call
(``ready.wait()``, ``diag: culprit``), so each stops for every reload though it holds
a usable config.  Expected first finding ``serial-bottleneck`` told as a gate, with the
fix of swapping the new value in.  With ``mode=swap`` the refresher builds the new
config and swaps it in (the Event gates only the first load): no ``serial-bottleneck``.
With ``pause=0.25`` the refresher sleeps between reloads, no busy feeder: the gate is
told on its own, naming the refresher's call.
"""

import sys

import gevent
import requests
from _greenlets import spawn
from gevent.event import Event

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
WORKERS, RELOADS = 12, 8
CALLS = int(ARGS.get("calls", "12"))
PAUSE = float(ARGS.get("pause", "0.02"))
session = requests.Session()
ready = Event()
config = {}


def refresher():
    for reload in range(RELOADS):
        if ARGS.get("mode") != "swap":
            ready.clear()
        answer = session.get(ARGS["config"], timeout=30)  # diag: feeder
        fresh = {"version": reload, "status": answer.status_code}
        config.clear()
        config.update(fresh)
        ready.set()
        gevent.sleep(PAUSE)


def worker(n):
    # (each worker's own calls: the same URL from all twelve at once would be a second
    # cause, identical requests in flight together)
    for call in range(CALLS):
        ready.wait()  # diag: culprit
        session.get(f"{ARGS['kept']}&version={config['version']}&worker={n}&call={call}",
                    timeout=30)


gevent.joinall([spawn("refresher", refresher)]
               + [spawn("worker", worker, n) for n in range(WORKERS)], raise_error=True)
