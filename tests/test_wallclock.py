"""When the C hot path may read the TSC (geventperf/trace/wallclock.py)."""

from __future__ import annotations

import os

import pytest

from geventperf.trace import wallclock

X86_64 = hasattr(os, "uname") and os.uname().machine.lower() in ("x86_64", "amd64")


def clocksource(tmp_path, text: str) -> str:
    path = tmp_path / "current_clocksource"
    path.write_text(text)
    return str(path)


@pytest.mark.skipif(not X86_64, reason="the TSC clock is x86-64's")
def test_a_kernel_keeping_time_by_the_tsc_allows_it(tmp_path, monkeypatch):
    monkeypatch.delenv(wallclock.ENV, raising=False)
    assert wallclock.tsc_allowed(clocksource(tmp_path, "tsc\n"))


@pytest.mark.parametrize("source", ["kvm-clock\n", "hpet\n", "acpi_pm\n", "", "tsc-early\n"])
def test_any_other_clocksource_keeps_clock_gettime(tmp_path, monkeypatch, source):
    monkeypatch.delenv(wallclock.ENV, raising=False)
    assert not wallclock.tsc_allowed(clocksource(tmp_path, source))


def test_no_clocksource_file_keeps_clock_gettime(tmp_path, monkeypatch):
    monkeypatch.delenv(wallclock.ENV, raising=False)
    assert not wallclock.tsc_allowed(str(tmp_path / "missing"))


@pytest.mark.parametrize("value", ["kernel", "KERNEL", " kernel\n"])
def test_the_environment_can_insist_on_the_kernel_clock(tmp_path, monkeypatch, value):
    monkeypatch.setenv(wallclock.ENV, value)
    assert not wallclock.tsc_allowed(clocksource(tmp_path, "tsc\n"))


@pytest.mark.skipif(not X86_64, reason="the TSC clock is x86-64's")
def test_other_values_of_the_variable_change_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(wallclock.ENV, "tsc")
    assert wallclock.tsc_allowed(clocksource(tmp_path, "tsc\n"))


def test_other_machines_keep_clock_gettime(tmp_path, monkeypatch):
    monkeypatch.delenv(wallclock.ENV, raising=False)
    real = os.uname()
    arm = os.uname_result((real.sysname, real.nodename, real.release, real.version,
                           "aarch64"))
    monkeypatch.setattr(os, "uname", lambda: arm)
    assert not wallclock.tsc_allowed(clocksource(tmp_path, "tsc\n"))
