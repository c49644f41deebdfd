"""pprof output (``-f pprof``, ``.pb.gz``).

Checked two ways: read back by ``go tool pprof`` (pprof's own parser; ``-raw`` prints
every sample with its values, labels and locations), and decoded with protobuf against
the schema geventperf writes, where structure is checked field by field.  The ground
truth (two greenlets burning CPU 1:3) comes from ``tests/test_sampling.py``.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict

import gevent
import pytest

import geventperf
from geventperf.formats import format_for_path
from geventperf.formats._pprof_schema import messages
from geventperf.profile import Profile
from tests.test_sampling import TRUE_RATIO, _burn, run_ground_truth, tolerance

NS = 1e9
GO = shutil.which("go")
needs_go = pytest.mark.skipif(GO is None, reason="go (for go tool pprof) is not installed")


@pytest.fixture(scope="module")
def truth() -> Profile:
    return run_ground_truth()


# Samples the section run gathers before it stops: the share asserted below needs tens
# of them, and a loaded machine's kernel tick lands on the process as seldom as once
# per ~9 ms of its CPU (a fixed 100 ms of work got too few at load 6).
SECTION_SAMPLES = 60
# ...within at most this many 5 ms bursts (3 s of CPU): fewer samples means sampling
# stopped, which the assertions then show.
MAX_SECTION_BURSTS = 600


@pytest.fixture(scope="module")
def with_section() -> Profile:
    def parse_like(tracer: geventperf.Tracer) -> None:
        for burst in range(MAX_SECTION_BURSTS):
            with geventperf.section("decode feed"):
                _burn(0.005)
            gevent.sleep(0)
            if burst % 20 == 19 and \
                    tracer.snapshot(slices=False).cpu_samples.count >= SECTION_SAMPLES:
                return

    with geventperf.Tracer(cpu_samples=0.001) as tracer:
        g = gevent.Greenlet(parse_like, tracer)
        g.name = "decoder"
        g.start()
        g.join()
    return tracer.profile


def decode(data: bytes):
    return messages()["Profile"].FromString(gzip.decompress(data))


def go_raw(path) -> tuple[list[str], list[tuple[list[int], list[int], dict]], dict[int, str]]:
    """Sample types, samples (values, location ids, labels) and location -> function,
    as ``go tool pprof -raw`` prints them."""
    out = subprocess.run([GO, "tool", "pprof", "-raw", str(path)], capture_output=True,
                         text=True, timeout=300, check=True).stdout
    lines = out.splitlines()
    start = lines.index("Samples:")
    types = lines[start + 1].split()
    samples: list[tuple[list[int], list[int], dict]] = []
    i = start + 2
    while lines[i] != "Locations":
        line = lines[i]
        if re.match(r"^\s*-?\d+(\s+-?\d+)*:", line):  # "  v1  v2  v3: loc loc ..."
            values, locs = line.split(":", 1)
            samples.append(([int(v) for v in values.split()],
                            [int(x) for x in locs.split()], {}))
        else:
            for key, value in re.findall(r"(\S+):\[([^\]]*)\]", line):
                samples[-1][2][key] = value
        i += 1
    functions = {}
    for line in lines[lines.index("Locations") + 1:]:
        m = re.match(r"\s*(\d+): 0x0 M=\d+ (\S*) ", line)
        if m:
            functions[int(m.group(1))] = m.group(2)
        elif line.startswith("Mappings"):
            break
    return types, samples, functions


def _cpu_by(types, samples, functions) -> dict[tuple[str, str], int]:
    cpu = types.index("cpu/nanoseconds[dflt]")
    per: dict[tuple[str, str], int] = defaultdict(int)
    for values, locs, labels in samples:
        names = {functions[loc] for loc in locs}
        for fn in ("burn_light", "burn_heavy"):
            if fn in names:
                per[(labels.get("greenlet", ""), fn)] += values[cpu]
    return per


@needs_go
def test_go_tool_pprof_reads_the_ratio_per_greenlet(truth: Profile, tmp_path) -> None:
    path = tmp_path / "run.pb.gz"
    assert truth.write(path) == "pprof"
    types, samples, functions = go_raw(path)
    assert types == ["cpu/nanoseconds[dflt]", "event-wait/nanoseconds",
                     "ready-wait/nanoseconds"]
    per = _cpu_by(types, samples, functions)
    light, heavy = per[("burner-light", "burn_light")], per[("burner-heavy", "burn_heavy")]
    assert per[("burner-light", "burn_heavy")] == 0 and per[("burner-heavy", "burn_light")] == 0
    assert abs(heavy / light / TRUE_RATIO - 1) <= tolerance(truth), (heavy, light)
    # waits are there too, in their own sample types, and add up to the profile's
    ready = sum(v[2] for v, _, _ in samples)
    assert ready == pytest.approx(sum(w.ready_wait_s for w in truth.waits) * NS, rel=1e-6)


@needs_go
def test_go_tool_pprof_sees_the_section_label(with_section: Profile, tmp_path) -> None:
    path = tmp_path / "section.pprof"
    with_section.write(path)
    types, samples, functions = go_raw(path)
    labelled = [labels for values, _, labels in samples if values[0]]
    assert any(lab.get("section") == "decode feed" and lab.get("greenlet") == "decoder"
               for lab in labelled), labelled
    in_section = sum(v[0] for v, _, lab in samples if lab.get("section") == "decode feed")
    # the burn is inside the section: most of the decoder's CPU carries the label
    assert in_section / sum(v[0] for v, _, _ in samples) > 0.8


def test_decoded_structure(truth: Profile) -> None:
    prof = decode(truth.render("pprof"))
    strings = list(prof.string_table)
    assert strings[0] == ""
    assert [strings[t.type] for t in prof.sample_type] == ["cpu", "event-wait", "ready-wait"]
    assert strings[prof.default_sample_type] == "cpu"
    locations = {loc.id for loc in prof.location}
    functions = {f.id: strings[f.name] for f in prof.function}
    assert len(locations) == len(prof.location)
    for sample in prof.sample:
        assert len(sample.value) == len(prof.sample_type)
        assert set(sample.location_id) <= locations
    # one Function per function, whichever stacks name it (CPU samples and waits)
    names = [functions[f] for f in functions]
    assert names.count("_worker") == 1
    cpu_total = sum(s.value[0] for s in prof.sample)
    assert cpu_total == pytest.approx(truth.cpu_samples.cpu_s * NS, rel=1e-6)
    assert prof.period == round(truth.cpu_samples.interval_s * NS)


def test_without_samples_cpu_comes_from_switch_out_stacks_and_says_so(truth: Profile) -> None:
    plain = Profile.loads(json.dumps({**truth.to_dict(), "cpu_samples": None}))
    prof = decode(plain.render("pprof"))
    strings = list(prof.string_table)
    sources = {strings[lab.str] for s in prof.sample for lab in s.label
               if strings[lab.key] == "cpu_source"}
    assert sources == {"switch-out"}


def test_suffixes_name_pprof() -> None:
    assert format_for_path("x.pb.gz") == "pprof"
    assert format_for_path("x.PPROF") == "pprof"


def test_cli_report_writes_pprof(truth: Profile, tmp_path) -> None:
    src = tmp_path / "run.json"
    truth.save(src)
    out = tmp_path / "run.pb.gz"
    proc = subprocess.run([sys.executable, "-m", "geventperf", "report", str(src),
                           "-f", "pprof", "-o", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert len(decode(out.read_bytes()).sample) > 0


def test_missing_protobuf_is_a_clear_error(tmp_path) -> None:
    code = ("import sys; sys.modules['google.protobuf'] = None\n"
            "from geventperf.profile import Profile\n"
            "try:\n"
            "    Profile().render('pprof')\n"
            "except ImportError as exc:\n"
            "    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert "geventperf[pprof]" in proc.stdout, proc.stdout + proc.stderr


def test_empty_profile_renders() -> None:
    prof = decode(Profile().render("pprof"))
    assert len(prof.sample) == 0 and prof.string_table[0] == ""
