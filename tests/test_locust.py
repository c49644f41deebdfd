"""The Locust recipe works with Locust installed: ``mount`` keeps Locust's adapter (and
its shared pool manager), adds the large reads, and Locust still counts every request.
Runs where locust is installed (``tox -e locust``); skipped elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("locust", reason="locust is not installed (tox -e locust installs it)")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Five requests of 200 kB on loopback; a minute means something hangs.
RECIPE_TIMEOUT_S = 120


def test_locust_recipe_keeps_locusts_adapter_and_adds_large_reads():
    out = subprocess.run([sys.executable, os.path.join(HERE, "locust_recipe.py")], cwd=ROOT,
                         capture_output=True, text=True, timeout=RECIPE_TIMEOUT_S,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["locust_adapter"] and seen["large_reads"] and seen["same_pool_manager"]
    assert seen["fast_session"]
    assert seen["requests"] == seen["expected_requests"] and seen["failures"] == 0
