"""CPU samples in the text and HTML reports: the top-functions table, and one icicle per
greenlet name (checked in the page's data and, when Chromium is installed, in the DOM
the page draws).  Profiles come from the ground-truth run of ``test_sampling``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from geventperf.formats import html_report
from geventperf.formats._cpu_tables import MAX_FUNCTIONS, cpu_function_table, icicles
from geventperf.profile import Profile
from geventperf.sampling.model import CpuSamples
from tests.test_sampling import TRUE_RATIO, _burn, run_ground_truth, tolerance

BROWSER_TIMEOUT_S = 120
# The busy loop's two lines (its `while` and `pass`), where _burn's self CPU runs.
BURN_LOOP_LINES = {_burn.__code__.co_firstlineno + 2, _burn.__code__.co_firstlineno + 3}


@pytest.fixture(scope="module")
def truth() -> Profile:
    return run_ground_truth()


def test_text_report_lists_the_top_functions(truth: Profile) -> None:
    text = truth.render("text")
    section = text[text.index("TOP FUNCTIONS BY CPU"):].splitlines()
    rows = [i for i, line in enumerate(section) if re.match(r"^\s*[\d.]+ (s|ms|us)\s", line)]
    first = section[rows[0]]
    assert "_burn" in first  # the busy loop holds nearly all the CPU, itself
    # the greenlet names, under the function, and the line its self CPU ran at
    assert section[rows[0] + 1].split()[:3] == ["in", "burner-heavy,", "burner-light;"]
    hot = re.search(r"; self CPU \d+% at line (\d+)$", section[rows[0] + 1])
    assert hot and int(hot.group(1)) in BURN_LOOP_LINES
    assert len(rows) <= MAX_FUNCTIONS
    assert all(len(line) <= 100 for line in section)
    # the header is wrapped to the report's width, where its figures' lengths put the
    # breaks: read it as one line
    header = " ".join(" ".join(section[:rows[0]]).split())
    assert "CPU samples: " in header and "the sampler used" in header


def test_table_figures_add_up(truth: Profile) -> None:
    table = cpu_function_table(truth, limit=1000)
    assert table is not None and table.hidden == 0
    shares = [float(row[1].rstrip("%")) for row in table.rows]
    assert sum(shares) == pytest.approx(100.0, abs=0.1 * len(shares))  # rounding only


def test_unavailable_sampling_is_explained_in_the_text_report(truth: Profile) -> None:
    data = truth.to_dict()
    data["cpu_samples"] = CpuSamples(unavailable="CPU sampling needs the main thread").to_dict()
    text = Profile.loads(json.dumps(data)).render("text")
    assert "CPU samples: none (CPU sampling needs the main thread)" in text
    assert "TOP FUNCTIONS BY CPU" not in text


def test_html_data_has_a_table_and_an_icicle_per_greenlet_name(truth: Profile) -> None:
    data = html_report.build_data(truth)
    titles = [t["title"] for t in data["tables"]]
    assert "TOP FUNCTIONS BY CPU (sampled)" in titles
    trees = {ice["name"]: ice["tree"] for ice in data["icicles"]}
    assert {"burner-light", "burner-heavy"} <= set(trees)

    def total(node, name):
        label, seconds, children = node
        return (seconds if name in label else 0.0) + sum(total(c, name) for c in children
                                                         if name not in label)

    heavy = total(trees["burner-heavy"], "burn_heavy")
    light = total(trees["burner-light"], "burn_light")
    assert abs(heavy / light / TRUE_RATIO - 1) <= tolerance(truth)
    # a child never holds more than its parent
    def check(node):
        for child in node[2]:
            assert child[1] <= node[1] + 1e-9
            check(child)
    for tree in trees.values():
        check(tree)


def test_no_samples_no_icicles(truth: Profile) -> None:
    plain = Profile.loads(json.dumps({**truth.to_dict(), "cpu_samples": None}))
    assert icicles(plain) == [] and cpu_function_table(plain) is None
    assert html_report.build_data(plain)["cpu_note"] == ""


@pytest.mark.chromium
def test_icicles_are_drawn_in_chromium(truth: Profile, tmp_path) -> None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("optional test dependency missing: chromium (headless browser; "
                    "Debian/Ubuntu: apt-get install chromium)")
    page = tmp_path / "run.html"
    truth.write(page)
    proc = subprocess.run(
        [found, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={tmp_path / 'chromium-profile'}", "--virtual-time-budget=5000",
         "--dump-dom", page.as_uri()], capture_output=True, timeout=BROWSER_TIMEOUT_S)
    dom = proc.stdout.decode("utf-8", "replace")
    assert 'data-status="error"' not in dom
    drawn = set(re.findall(r'class="icicle" data-greenlet="([^"]+)"', dom))
    assert drawn == {ice["name"] for ice in icicles(truth)}
    assert dom.count('class="ice-label"') >= 2 * len(drawn)


def test_the_profilers_own_functions_are_marked_as_its_cost() -> None:
    # a sample in the tracer's own code (a greenlet's end, handled in the switch that
    # ran in the program's greenlet) and one in a mounted adapter (the program's
    # transport: not the profiler's) beside the program's own: only the tracer's is
    # marked, and its share told under the table
    from tests.test_mut_findings import cpu_samples, profile
    p = profile()
    site = "/venv/lib/python3.11/site-packages/geventperf"
    p.cpu_samples = cpu_samples([
        ([f"{site}/tracer.py:550:Tracer._finish"], "app.fetch", 1, 0.25),
        ([f"{site}/adapter.py:90:LargeReads.send"], "app.fetch", 1, 0.25),
        (["/srv/app/worker.py:40:handler"], "app.fetch", 2, 0.5)])
    table = cpu_function_table(p)
    assert table is not None
    marked = [row[3] for row in table.rows if "[geventperf's own" in row[3]]
    assert len(marked) == 1 and "Tracer._finish" in marked[0], table.rows
    assert "geventperf's own tracing took 25.0% of the sampled CPU" in table.note
