"""pytest plugin: every ``requests.Session`` gets geventperf's adapters when it is made.

Loaded into requests' own test suite by ``scripts/requests_suite/run.py`` with
``-p geventperf_everywhere``.  ``GEVENTPERF_SUITE_MODE`` picks what is mounted:
``mount`` (``geventperf.mount(session)``) or ``fast`` (``mount(session,
fast_path=True)``: the session fast path too).
"""

from __future__ import annotations

import os

import requests

import geventperf

MODES = ("mount", "fast")


def pytest_configure(config):
    mode = os.environ.get("GEVENTPERF_SUITE_MODE", "mount")
    if mode not in MODES:
        raise ValueError(f"GEVENTPERF_SUITE_MODE must be one of {MODES}, got {mode!r}")
    original = requests.Session.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        geventperf.mount(self, fast_path=mode == "fast")

    requests.Session.__init__ = init
    config.addinivalue_line("markers", f"geventperf_mode: {mode}")
