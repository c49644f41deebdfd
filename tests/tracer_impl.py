"""The ``impl`` fixture: runs a tracer test on each hot path, the C extension
``geventperf._ctrace`` (``[c]``) and the pure-Python fallback (``[pure]``).

Both are always collected, whatever was built.  ``[c]`` selects the extension itself
(also when ``GEVENTPERF_PURE=1`` is exported, which only changes the default) and
FAILS when the extension is not built: the C path is what users run, so a machine
without a compiler must not turn it into silently untested code.  A run that means to
test the pure path only says so with ``GEVENTPERF_TEST_PURE_ONLY=1``; then the ``[c]``
cases are skipped, and the skip names that variable.
"""

from __future__ import annotations

import os

import pytest

from geventperf import tracer as tracer_mod

# Set to 1 to test only the pure-Python hot path (a platform without a C compiler).
PURE_ONLY_ENV = "GEVENTPERF_TEST_PURE_ONLY"
IMPLS = ["pure", "c"]


def pure_only_requested() -> bool:
    return os.environ.get(PURE_ONLY_ENV) == "1"


def require_c_extension() -> None:
    """Fail (or, when the run asked for the pure path only, skip) without the extension."""
    if tracer_mod.C_EXTENSION is not None:
        return
    if pure_only_requested():
        pytest.skip(f"{PURE_ONLY_ENV}=1: the run tests the pure-Python hot path only")
    pytest.fail("geventperf._ctrace (the C hot path) is not built, so the default "
                "production path would go untested. Build it (a C compiler and the Python "
                "headers; `pip install -v .` shows why the build failed), or "
                f"set {PURE_ONLY_ENV}=1 to test the pure-Python path only.", pytrace=False)


def subprocess_env(impl: str) -> dict[str, str]:
    """Environment that makes a child process use the hot path ``impl``, whatever the
    parent's GEVENTPERF_PURE says."""
    return {"GEVENTPERF_PURE": "1" if impl == "pure" else "0"}


@pytest.fixture(params=IMPLS)
def impl(request, monkeypatch):
    if request.param == "pure":
        monkeypatch.setattr(tracer_mod, "_ctrace", None)
    else:
        require_c_extension()
        monkeypatch.setattr(tracer_mod, "_ctrace", tracer_mod.C_EXTENSION)
    wanted = request.param
    stop = tracer_mod.Tracer.stop

    def checked_stop(self):
        profile = stop(self)
        # once the profile says which hot path ran, it must be the one asked for
        used = getattr(profile, "meta", {}).get("hot_path")
        assert used in (None, wanted), f"asked for the {wanted} hot path, {used} ran"
        return profile

    monkeypatch.setattr(tracer_mod.Tracer, "stop", checked_stop)
    return wanted
