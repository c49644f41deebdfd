"""Tests that kill mutmut survivors of geventperf/findings/ (tox -e mutation): behaviour a
user relies on, checked exactly."""

from __future__ import annotations
