"""The ``impl`` fixture: runs a tracer test against each hot-path implementation that
is available (the C extension ``geventperf._ctrace`` and the pure-Python fallback)."""

from __future__ import annotations

import pytest

from geventperf import tracer as tracer_mod

IMPLS = ["pure"] + (["c"] if tracer_mod.C_EXTENSION is not None else [])


@pytest.fixture(params=IMPLS)
def impl(request, monkeypatch):
    if request.param == "pure":
        monkeypatch.setattr(tracer_mod, "_ctrace", None)
    return request.param
