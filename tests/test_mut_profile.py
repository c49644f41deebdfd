"""Tests that kill mutmut survivors of geventperf/profile.py (tox -e mutation): behaviour a
user relies on, checked exactly."""

from __future__ import annotations
