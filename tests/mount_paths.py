"""Run a whole test module with both ways of mounting the adapter.

``from tests.mount_paths import mount_path  # noqa: F401`` in a module makes every test
there run twice: with ``geventperf.mount`` as it is, and with the session fast path
(``mount(..., fast_path=True)``: environment read once, pool keys and CA bundle checks
remembered).  Both must return exactly what requests' default adapter returns.
"""

from __future__ import annotations

import functools

import pytest
import requests

import geventperf
import geventperf.adapter
from geventperf.session import SessionFastPath


@pytest.fixture(scope="module", autouse=True, params=["mount", "mount-fast-path"])
def mount_path(request):
    if request.param == "mount":
        yield request.param
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(geventperf.adapter, "mount",
                      functools.partial(geventperf.adapter.mount, fast_path=True))
        probe = requests.Session()
        geventperf.mount(probe)
        assert isinstance(probe, SessionFastPath) and probe.adapters["http://"].fast_path
        yield request.param
