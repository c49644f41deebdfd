"""The HTML report: one self-contained file whose data no name can break out of, and
whose timeline really draws in a browser (headless Chromium, checked by pixels)."""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import zlib

import pytest

from geventperf.formats import render
from geventperf.profile import Profile
from tests.profile_factory import (
    big_profile,
    hostile_profile,
    legacy_profile,
    small_profile,
    split_profile,
)

DATA_RE = re.compile(r'<script type="application/json" id="geventperf-data">(.*?)</script>',
                     re.S)
# Colours the page draws with (report.html): running, and waiting in a profile that
# does not split waits into event and ready wait.
RUN_RGB = (0x2F, 0x6F, 0xD6)
WAIT_RGB = (0xB4, 0xBC, 0xC8)
# The timeline's label column is 250 CSS px wide, plus the page margin: pixels right of
# this are lane content, not the legend swatches.
PLOT_LEFT_PX = 280
# Screenshot anti-aliasing moves edge pixels a little; solid fills stay within this.
COLOUR_TOLERANCE = 8
# A browser that has not finished in this long is hung, not slow.
BROWSER_TIMEOUT_S = 120


def embedded_data(page: str) -> dict:
    match = DATA_RE.search(page)
    assert match, "no embedded data block"
    return json.loads(match.group(1))


# -- the file itself ------------------------------------------------------------------

def test_html_is_self_contained():
    page = render(small_profile(), "html")
    assert page.startswith("<!DOCTYPE html>")
    lowered = page.lower()
    for needle in ("http://", "https://", "<link", " src=", "@import", "url("):
        assert needle not in lowered, needle


def test_html_data_survives_hostile_names():
    profile = hostile_profile()
    page = render(profile, "html")
    clean = render(small_profile(), "html")
    # only the page's own two </script> tags; the names' ones were escaped
    assert page.lower().count("</script") == clean.lower().count("</script") == 2
    assert page.count("<!--") == clean.count("<!--")
    data = embedded_data(page)
    evil = profile.greenlets[0].name
    assert any(member["name"] == evil for group in data["timeline"]["groups"]
               for member in group["members"])
    assert data["command"] == evil
    assert "<title>geventperf: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_html_timeline_data_and_truncation_note():
    profile = small_profile()
    profile.slices_dropped = 77
    data = embedded_data(render(profile, "html"))
    timeline = data["timeline"]
    assert timeline["hub"]["name"] == "hub"
    assert [g["name"] for g in timeline["groups"]] == ["worker-a", "worker-b"]  # by cost
    assert sum(len(g["members"][0]["s"]) for g in timeline["groups"]) \
        + len(timeline["hub"]["s"]) == len(profile.slices)
    assert timeline["sections"] == [{"name": "parse feed", "c": True}]
    assert "77 run slices were dropped" in timeline["dropped_note"]
    assert [f["kind"] for f in data["findings"]] == ["blocked-read-in-c-section",
                                                     "switch-storm"]
    assert embedded_data(render(small_profile(), "html"))["timeline"]["dropped_note"] == ""


def test_html_of_an_empty_profile_has_no_lanes():
    data = embedded_data(render(Profile(), "html"))
    assert data["timeline"]["groups"] == [] and data["timeline"]["hub"] is None
    assert data["findings"] == []


def test_html_groups_greenlets_by_name_costliest_first():
    profile = big_profile(switches=3000, greenlets=90)
    for g in profile.greenlets:
        g.name = ("fetch", "parse", "idle")[g.id % 3]
    data = embedded_data(render(profile, "html"))
    groups = data["timeline"]["groups"]
    assert [g["n"] for g in groups] == [30, 30, 30]
    assert sorted(g["name"] for g in groups) == ["fetch", "idle", "parse"]
    assert [g["cost"] for g in groups] == sorted((g["cost"] for g in groups), reverse=True)
    assert all("summed over its greenlets" in g["totals"] for g in groups)
    members = groups[0]["members"]
    assert len(members) == 30 and 1 <= groups[0]["scale"] <= 30


def test_html_header_names_the_run_and_every_figure_has_its_unit():
    data = embedded_data(render(split_profile(), "html"))
    assert data["title"] == "geventperf: worker.py --fast"
    assert data["command"] == "geventperf run worker.py --fast"
    about = dict(data["about"])
    assert about["host"] == "buildhost" and about["Python"] == "3.11.7"
    assert about["gevent"] == "26.9.0" and about["duration"].startswith("500.0 ms")
    summary = {label: value for label, value, _hint in data["summary"]}
    assert summary["loop utilization"] == "60.0%" and summary["hub idle"] == "200.0 ms"
    assert summary["ready wait per wake-up"] == "p50 1.0 ms / p99 9.0 ms"
    assert data["hub_line"].startswith("hub: ran 260.0 ms = idle in the poll 200.0 ms")
    finding = data["findings"][0]
    assert finding["cost_meaning"].startswith("cost 150.0 ms = time this cause added")
    glance = dict(data["glance"])
    assert glance["Who lost the most time?"].startswith("worker-a #2")
    assert glance["I/O or queueing?"].startswith("mostly queueing")
    assert glance["Who held the loop?"].startswith("worker-b #3")
    assert glance["What to fix first?"].startswith("blocked-read-in-c-section")
    assert "150.0 ms" in glance["What would it save?"]
    assert glance["Where was the waiting?"].startswith(
        "300.0 ms of the 350.0 ms waited (86%) at your line fetch (/srv/app/worker.py:12)")


def test_html_hub_idle_is_drawn_as_measured():
    data = embedded_data(render(split_profile(), "html"))
    hub = data["timeline"]["hub"]
    # 60 hub slices of 1 ms, measured idle 200 ms: every slice is idle, capped at its length
    assert sum(hub["i"]) == pytest.approx(sum(hub["d"]))
    legacy = embedded_data(render(legacy_profile(), "html"))["timeline"]["hub"]
    assert sum(legacy["i"]) == 0 and "not measured" in legacy["note"]


# -- in a real browser ------------------------------------------------------------------

@pytest.fixture(scope="session")
def chromium() -> str:
    """Headless Chromium, an optional test dependency the suite never installs itself
    (README, "Development": `apt-get install chromium`; .ci/run does it when root)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("optional test dependency missing: chromium (headless browser; "
                    "Debian/Ubuntu: apt-get install chromium)")
    return found


def browser(chromium: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile_dir = tmp_path / "chromium-profile"
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile_dir}", "--force-device-scale-factor=1",
         "--virtual-time-budget=5000", *args],
        capture_output=True, timeout=BROWSER_TIMEOUT_S)


def decode_png(data: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, channels, pixels) of an 8-bit RGB/RGBA PNG, without Pillow."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    out = bytearray(height * stride)
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            up_left = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[x] = (line[x] + predictor) & 0xFF
        out[y * stride:(y + 1) * stride] = line
        previous = line
    return width, height, channels, bytes(out)


def pixels_of(png: tuple[int, int, int, bytes], rgb: tuple[int, int, int],
              min_x: int = 0) -> list[tuple[int, int]]:
    width, height, channels, pixels = png
    found = []
    for y in range(height):
        row = y * width * channels
        for x in range(min_x, width):
            i = row + x * channels
            if all(abs(pixels[i + c] - rgb[c]) <= COLOUR_TOLERANCE for c in range(3)):
                found.append((x, y))
    return found


def bands(rows: set[int]) -> int:
    """How many separate horizontal bands (runs of consecutive rows) *rows* form."""
    ordered = sorted(rows)
    return sum(1 for i, y in enumerate(ordered) if i == 0 or y != ordered[i - 1] + 1)


@pytest.mark.chromium
def test_timeline_draws_lanes_in_chromium(chromium, tmp_path):
    page = tmp_path / "report.html"
    small_profile().write(page)
    shot = tmp_path / "shot.png"
    result = browser(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,1400",
                     page.as_uri())
    assert shot.exists(), result.stderr[-2000:]
    png = decode_png(shot.read_bytes())
    running = pixels_of(png, RUN_RGB, min_x=PLOT_LEFT_PX)
    waiting = pixels_of(png, WAIT_RGB, min_x=PLOT_LEFT_PX)
    # 48 run slices of 4 ms on a ~1000 px axis of 500 ms: thousands of blue pixels,
    # in two lanes (worker-a and worker-b), with grey wait bars between them.
    assert len(running) > 1000, len(running)
    assert bands({y for _x, y in running}) == 2
    assert len(waiting) > 1000, len(waiting)


@pytest.mark.chromium
@pytest.mark.parametrize("make", [small_profile, hostile_profile, big_profile, Profile],
                         ids=["small", "hostile", "100k-slices", "empty"])
def test_page_script_runs_without_errors(chromium, tmp_path, make):
    page = tmp_path / "report.html"
    make().write(page)
    result = browser(chromium, tmp_path, "--dump-dom", page.as_uri())
    dom = result.stdout.decode("utf-8", "replace")
    assert 'data-status="ok"' in dom, dom[-3000:] + result.stderr.decode()[-2000:]
    rects = int(re.search(r'data-rects="(\d+)"', dom).group(1))
    assert (rects == 0) == (make is Profile)
    assert "alert(1)" not in dom or make is hostile_profile
    if make is hostile_profile:  # the hostile name is text in the DOM, not markup
        assert "<script>alert(1)</script>" not in dom.split("geventperf-data")[0]


@pytest.mark.chromium
def test_hover_and_wheel_zoom_work_in_chromium(chromium, tmp_path):
    """The page's self-test (report.html#geventperf-selftest) hovers over worker-a's
    first slice, zooms in with the wheel, scrolls and presses "Whole run"; the results
    land in data-selftest."""
    page = tmp_path / "report.html"
    small_profile().write(page)
    result = browser(chromium, tmp_path, "--dump-dom", page.as_uri() + "#geventperf-selftest")
    dom = result.stdout.decode("utf-8", "replace")
    match = re.search(r'data-selftest="([^"]*)"', dom)
    assert match, dom[-3000:]
    selftest = json.loads(html.unescape(match.group(1)))
    assert selftest["hover"].splitlines() == ["worker-a  #2", "ran 4.000 ms at 0",
                                              "in section parse feed (C)"]
    assert selftest["span_after"] < selftest["span_before"] == 500_000
    assert selftest["range"].endswith(" of 500.0 ms")  # the label follows the view
    assert not selftest["range"].startswith("showing 0 to 500.0 ms")
    assert selftest["rects_after_zoom"] > 0
    # "Whole run" resets both axes: the time span and the vertical scroll
    assert selftest["after_reset"] == {"t0": 0, "t1": 500_000, "scroll": 0}


def test_html_keeps_every_finding_and_opens_the_worst_of_each_kind():
    from tests.test_formats import many_findings_profile
    data = embedded_data(render(many_findings_profile(), "html"))
    assert len(data["findings"]) == 35 and data["findings_open"] == 4
    assert [f["message"] for f in data["findings"][:4]] == ["deadlock 29", "deadlock 28",
                                                           "blocked 4", "blocked 3"]
    assert data["findings_folded"] == "31 more: 28 c-section-deadlock-risk, 3 loop-blocked"
