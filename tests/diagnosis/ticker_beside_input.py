"""Workers fed by a webhook endpoint's handlers, beside a timer that wakes now and then
and rarely feeds them.

Truth by construction (healthy): an in-process gevent WSGI server's handlers put each
webhook they receive on a queue; WORKERS ``worker`` greenlets take them and call an
upstream (a stand-in answering after UPSTREAM_S).  A child process, the webhooks' source
outside this program, posts them at its own pace from SENDERS threads (one each per
SEND_EVERY_S), so the workers wait for input most of the time: spare capacity.  A
``ticker`` greenlet sleeps TICK_S at a time and puts an escalation on the same queue
every ESCALATE_EVERY wake-ups: asleep nearly all the run, it releases few of the
workers' waits.  Expected: no ``serial-bottleneck`` (telling
the ticker as the timer to wake would change nothing).
"""

import subprocess
import sys
import threading
import time
import urllib.request

WORKERS, SENDERS, SENDS = 16, 6, 40
SEND_EVERY_S, UPSTREAM_S, TICK_S, ESCALATE_EVERY = 0.03, 0.01, 0.1, 3


def sender(number, url):
    for n in range(SENDS):
        started = time.monotonic()
        urllib.request.urlopen(url, data=f"event {number}-{n}".encode(), timeout=30).read()
        time.sleep(max(0.0, SEND_EVERY_S - (time.monotonic() - started)))


if len(sys.argv) > 1:  # the child: the webhooks' source, plain threads, no gevent
    threads = [threading.Thread(target=sender, args=(n, sys.argv[1])) for n in range(SENDERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sys.exit(0)

import gevent  # noqa: E402 (the child needs none of it)
import requests  # noqa: E402
from _greenlets import spawn  # noqa: E402
from _stand_in import listener, stand_in  # noqa: E402
from gevent.event import Event  # noqa: E402
from gevent.pywsgi import WSGIServer  # noqa: E402
from gevent.queue import Queue  # noqa: E402

upstream, UPSTREAM = stand_in(UPSTREAM_S)
events = Queue()
finished = Event()  # set when every webhook has been handled
handled = []
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=WORKERS))


def webhook(environ, start_response):
    events.put(environ["wsgi.input"].read())
    start_response("202 Accepted", [("Content-Length", "0")])
    return [b""]


def worker():
    while True:
        event = events.get()
        session.post(UPSTREAM, data=event, timeout=30).raise_for_status()
        handled.append(event)
        if len(handled) >= SENDERS * SENDS:
            finished.set()


def ticker():
    wakes = 0
    while True:
        gevent.sleep(TICK_S)
        wakes += 1
        if wakes % ESCALATE_EVERY == 0:
            events.put(b"escalation")


service = WSGIServer(listener(), webhook, log=None)
service.start()
workers = [spawn("worker", worker) for _ in range(WORKERS)]
clock = spawn("ticker", ticker)
source = subprocess.Popen([sys.executable, __file__, f"http://127.0.0.1:{service.server_port}/"])
finished.wait(timeout=60)
source.wait()
gevent.killall([*workers, clock])
service.stop()
upstream.stop()
