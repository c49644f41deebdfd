"""Three Locust users fetching the same document as fast as they can: requests'
``HttpUser``, ``HttpUser`` with geventperf (the README recipe), and ``FastHttpUser``
(geventhttpclient).  Run by benchmarks/locust/run.py; the path comes from
``GEVENTPERF_LOCUST_PATH``.

A fourth, ``CeilingHttpUser`` (``run.py --ceiling``), is the recipe's session with a
transport that costs nothing: an adapter that answers every request with a body of the
same size from memory, without a socket.  Its requests per second are the most any
adapter under ``HttpUser`` could reach: what is left is Locust's ``HttpSession`` and
requests' ``Session`` layer, which no adapter touches."""

import io
import json
import os
import time

import requests
from locust import FastHttpUser, HttpUser, constant, events, task
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

import geventperf

PATH = os.environ.get("GEVENTPERF_LOCUST_PATH", "/1024")
# Where the process CPU seconds spent between test start and stop are written (the
# run's own CPU, without Locust's start-up and imports).
CPU_FILE = os.environ.get("GEVENTPERF_LOCUST_CPU_FILE")
_started = {}


@events.test_start.add_listener
def _on_start(**_kwargs):
    _started["cpu"] = time.process_time()


@events.test_stop.add_listener
def _on_stop(**_kwargs):
    if CPU_FILE and "cpu" in _started:
        with open(CPU_FILE, "w") as out:
            json.dump({"cpu_s": time.process_time() - _started["cpu"]}, out)


class PlainHttpUser(HttpUser):
    wait_time = constant(0)

    @task
    def fetch(self):
        assert len(self.client.get(PATH).content) > 0


class GeventperfHttpUser(HttpUser):
    wait_time = constant(0)

    def on_start(self):
        geventperf.mount(self.client, fast_path=True)

    @task
    def fetch(self):
        assert len(self.client.get(PATH).content) > 0


class FastUser(FastHttpUser):
    wait_time = constant(0)

    @task
    def fetch(self):
        assert len(self.client.get(PATH).content) > 0


class _FromMemory(BaseAdapter):
    """A transport that costs nothing: a 200 with a body of the size the benchmark
    server sends for PATH (``/<bytes>``), built in memory."""

    def __init__(self):
        super().__init__()
        self._body = b"x" * int(PATH.strip("/").split("?")[0] or 0)

    def send(self, request, **_kwargs):
        response = requests.Response()
        response.status_code = 200
        response.reason = "OK"
        response.headers = CaseInsensitiveDict({"Content-Length": str(len(self._body))})
        response._content = self._body
        response.raw = io.BytesIO(self._body)
        response.url = request.url
        response.request = request
        response.connection = self
        return response

    def close(self):
        pass


class CeilingHttpUser(HttpUser):
    wait_time = constant(0)

    def on_start(self):
        geventperf.mount(self.client, fast_path=True)
        self.client.mount("http://", _FromMemory())

    @task
    def fetch(self):
        assert len(self.client.get(PATH).content) > 0
