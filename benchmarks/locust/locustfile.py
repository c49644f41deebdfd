"""Three Locust users fetching the same document as fast as they can: requests'
``HttpUser``, ``HttpUser`` with geventperf (the README recipe), and ``FastHttpUser``
(geventhttpclient).  Run by benchmarks/locust/run.py; the path comes from
``GEVENTPERF_LOCUST_PATH``."""

import json
import os
import time

from locust import FastHttpUser, HttpUser, constant, events, task

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
