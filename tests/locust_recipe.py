"""The README's Locust recipe, run for real (in its own process: importing locust
monkey-patches gevent).  ``python tests/locust_recipe.py`` prints one JSON line of what
it saw; tests/test_locust.py checks it."""

from __future__ import annotations

import json
import os
import sys

import locust  # noqa: F401  (patches gevent first, as in any locustfile)
from gevent.pywsgi import WSGIServer
from locust import HttpUser, task
from locust.clients import LocustHttpAdapter
from locust.env import Environment

import geventperf

BODY = os.urandom(200_000)
REQUESTS = 5


def app(environ, start_response):
    start_response("200 OK", [("Content-Length", str(len(BODY)))])
    return [BODY]


# The recipe (README, "Locust"):
class ApiUser(HttpUser):
    def on_start(self):
        geventperf.mount(self.client, fast_path=True)

    @task
    def fetch(self):
        with self.client.get("/doc", catch_response=True) as response:
            if response.content != BODY:
                response.failure("body differs")


def main() -> None:
    server = WSGIServer(("127.0.0.1", 0), app, log=None)
    server.start()
    ApiUser.host = f"http://127.0.0.1:{server.server_port}"
    env = Environment(user_classes=[ApiUser])
    env.create_local_runner()   # its listener fills env.stats from request events
    user = ApiUser(env)
    kept_pool_manager = user.client.adapters["http://"].poolmanager
    user.on_start()
    adapter = user.client.adapters["http://"]
    for _ in range(REQUESTS):
        user.fetch()
    stats = env.stats.total
    json.dump({
        "locust_adapter": isinstance(adapter, LocustHttpAdapter),
        "large_reads": isinstance(adapter, geventperf.adapter.LargeReads),
        "same_pool_manager": adapter.poolmanager is kept_pool_manager,
        "fast_session": isinstance(user.client, geventperf.session.SessionFastPath),
        "requests": stats.num_requests, "failures": stats.num_failures,
        "expected_requests": REQUESTS,
    }, sys.stdout)
    server.stop()


if __name__ == "__main__":
    main()
