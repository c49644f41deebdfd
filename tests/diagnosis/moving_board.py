"""A scoreboard service polled by its clients faster than its boards change: healthy.

Truth by construction: an aggregator greenlet refreshes four leagues' boards every
CYCLE_S from an in-process league feed (one URL per league) and an odds feed, and an
in-process gevent WSGI server serves each board at ``/board/<league>``.  CLIENTS client
greenlets poll random boards every PAUSE_S, about POLLS_PER_CYCLE times per refresh:
the same four URLs again and again, but each board's answer changes (in length too) at
every refresh.  A cache in front of the polls would serve stale scores: expected, no
``repeated-request`` (before: "its answer most likely did not change between calls").
"""

import json
import random

import gevent
import gevent.event
import requests
from _stand_in import serve

LEAGUES = ("epl", "liga", "serie", "bund")
CYCLES, CYCLE_S, CLIENTS, PAUSE_S = 12, 0.1, 8, 0.02
FEED_DELAY_S = 0.02


def scores():
    return json.dumps({"matches": [[random.randint(0, 120), random.randint(0, 9) * 11]
                                   for _ in range(random.randint(4, 12))]}).encode()


def feed(environ, start_response):
    gevent.sleep(FEED_DELAY_S)
    body = scores()
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


leagues, odds = serve(feed), serve(feed)
boards = {league: b"{}" for league in LEAGUES}
session = requests.Session()


def refresh():
    for _ in range(CYCLES):
        jobs = {league: gevent.spawn(session.get, f"http://127.0.0.1:{leagues.server_port}"
                                     f"/leagues/{league}/live", timeout=30)
                for league in LEAGUES}
        prices = session.get(f"http://127.0.0.1:{odds.server_port}/inplay", timeout=30)
        gevent.joinall(list(jobs.values()), raise_error=True)
        for league, job in jobs.items():
            boards[league] = job.value.content + prices.content[:random.randint(1, 40)]
        gevent.sleep(CYCLE_S)


def board(environ, start_response):
    body = boards[environ["PATH_INFO"].rsplit("/", 1)[-1]]
    start_response("200 OK", [("Content-Length", str(len(body)))])
    return [body]


front = serve(board)
stop = gevent.event.Event()


def client():
    with requests.Session() as mine:
        while not stop.is_set():
            mine.get(f"http://127.0.0.1:{front.server_port}/board/{random.choice(LEAGUES)}",
                     timeout=30).raise_for_status()
            gevent.sleep(PAUSE_S)


clients = [gevent.spawn(client) for _ in range(CLIENTS)]
refresh()
stop.set()
gevent.joinall(clients, raise_error=True)
for server in (front, leagues, odds):
    server.stop()
