"""Rendering time per output format for a large synthetic profile.

The issue asks every format to render a profile of 100 000 switches (~100k timeline
slices, 300 greenlets, 400 call sites) in under a few seconds.  The baseline row is
``json`` (``Profile.to_dict`` + ``json.dumps``): the least work any format can do, so
each ratio says how much a format costs beyond serialising the data.  ``--quick`` (the
smoke pass) uses a 20 000-switch profile and one round.
"""

from __future__ import annotations

import pytest

from geventperf.formats import FORMATS, render
from tests.profile_factory import big_profile

FULL_SWITCHES = 100_000
QUICK_SWITCHES = 20_000
GREENLETS = 300
SITES = 400
# Each round renders ~100k slices (about a second for the slowest format): a few rounds
# give a stable median without making `tox -e bench` crawl.
ROUNDS = 5


@pytest.fixture(scope="module")
def profile(quick):
    return big_profile(switches=QUICK_SWITCHES if quick else FULL_SWITCHES,
                       greenlets=GREENLETS, sites=SITES)


@pytest.mark.parametrize("fmt", FORMATS)
def test_render(benchmark, profile, quick, fmt):
    benchmark.group = "render a 100k-switch profile" if not quick else "render (quick)"
    benchmark.extra_info["slices"] = len(profile.slices)
    if fmt == "json":
        benchmark.extra_info["baseline"] = True
    output = benchmark.pedantic(render, args=(profile, fmt), rounds=1 if quick else ROUNDS,
                                iterations=1)
    benchmark.extra_info["output_mib"] = round(len(output) / 2**20, 2)
    assert output
