"""The command line, run as users run it: ``python -m geventperf`` in a subprocess, on
small gevent scripts written to tmp_path."""

from __future__ import annotations

import json
import marshal
import os
import pstats
import re
import subprocess
import sys
import textwrap
import types

import pytest

from geventperf import cli
from geventperf.profile import Profile

# A traced gevent script finishes in well under a second; this only stops a hang.
RUN_TIMEOUT_S = 120
# pstats' synthetic wait functions: split into event and ready wait, or one hub wait
# when the tracer could not split them.
WAIT_FUNCTIONS = {("~", 0, "<event wait>"), ("~", 0, "<ready wait>"), ("~", 0, "<hub wait>")}
# The target writes this file when it runs: its absence proves it never started.
RAN_MARKER = "target-ran"
MARKER_WORKLOAD = f"open({RAN_MARKER!r}, 'w').close()\n"

WORKLOAD = textwrap.dedent("""\
    import json, sys
    import gevent, gevent.monkey

    def worker(n):
        for _ in range(n):
            gevent.sleep(0.001)
            sum(range(2000))

    print(json.dumps({"argv": sys.argv, "name": __name__,
                      "patched": gevent.monkey.is_module_patched("socket")}))
    gevent.joinall([gevent.spawn(worker, 10) for _ in range(3)])
    if "--fail" in sys.argv:
        raise RuntimeError("boom from the target")
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[sys.argv.index("--exit") + 1]))
    """)


def geventperf(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "geventperf", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


@pytest.fixture()
def script(tmp_path):
    path = tmp_path / "work.py"
    path.write_text(WORKLOAD)
    return path


def target_output(result: subprocess.CompletedProcess) -> dict:
    """The target's only stdout line: the report must not have gone to stdout."""
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def error_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("geventperf: error: ")
    return lines[0]


# -- run ----------------------------------------------------------------------------

def test_run_passes_argv_and_exit_code_and_reports_on_stderr(script):
    result = geventperf("run", script, "a", "-o", "x", "--exit", "3")
    assert result.returncode == 3, result.stderr
    out = target_output(result)
    assert out["argv"] == [str(script), "a", "-o", "x", "--exit", "3"]
    assert out["name"] == "__main__" and out["patched"] is True
    assert "GREENLETS" in result.stderr and "FINDINGS" in result.stderr
    # the script's three worker greenlets, one row of the greenlet table by their name
    assert re.search(r"^__main__\.worker +3 ", result.stderr, re.M), result.stderr


def test_run_patches_gevent_before_ssl_users_import_it(tmp_path):
    """geventperf imports requests itself; `run` must still patch before urllib3's
    `from ssl import SSLContext` (else HTTPS blocks the loop and gevent warns)."""
    script = tmp_path / "ssl_user.py"
    script.write_text("import urllib3.util.ssl_ as s\nprint(s.SSLContext.__module__)\n")
    result = geventperf("run", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("gevent"), result.stdout
    assert "MonkeyPatchWarning" not in result.stderr


def test_run_no_patch(script):
    result = geventperf("run", "--no-patch", "--no-sections", script)
    assert result.returncode == 0, result.stderr
    assert target_output(result)["patched"] is False


def test_run_exception_reports_then_shows_the_targets_traceback(script):
    result = geventperf("run", script, "--fail")
    assert result.returncode == 1
    err = result.stderr
    assert err.index("GREENLETS") < err.index("Traceback (most recent call last):")
    assert err.rstrip().endswith("RuntimeError: boom from the target")
    traceback_text = err[err.index("Traceback"):]
    assert str(script) in traceback_text
    assert "runpy" not in traceback_text and "cli.py" not in traceback_text


def test_run_writes_a_loadable_profile_and_report_renders_it(script, tmp_path):
    saved = tmp_path / "run.json"
    result = geventperf("run", "-o", saved, script)
    assert result.returncode == 0, result.stderr
    assert f"wrote the json profile to {saved}" in result.stderr
    profile = Profile.load(saved)
    # The script's three workers each ran once to start and once after each of their
    # ten sleeps; the profile's switch count includes all of those.
    workers = [g for g in profile.greenlets if g.name == "__main__.worker"]
    assert [g.switches >= 11 for g in workers] == [True] * 3, workers
    assert profile.switches >= sum(g.switches for g in workers)
    assert profile.meta["argv"][0] == str(script)

    report = geventperf("report", saved)
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("geventperf: ") and "GREENLETS" in report.stdout

    html = tmp_path / "run.html"
    assert geventperf("report", saved, "-o", html).returncode == 0
    assert html.read_text().startswith("<!DOCTYPE html>")

    prof = tmp_path / "run.prof"
    assert geventperf("report", saved, "-f", "pstats", "-o", prof).returncode == 0
    assert WAIT_FUNCTIONS & set(pstats.Stats(str(prof)).stats)


def test_run_format_from_flag(script, tmp_path):
    out = tmp_path / "profile.out"
    result = geventperf("run", "-f", "chrome", "-o", out, script)
    assert result.returncode == 0, result.stderr
    assert "traceEvents" in json.loads(out.read_text())


def test_run_module(tmp_path):
    (tmp_path / "workmod.py").write_text(WORKLOAD)
    result = geventperf("run", "-m", "workmod", "--exit", "4", cwd=tmp_path)
    assert result.returncode == 4, result.stderr
    out = target_output(result)
    assert out["argv"] == [str(tmp_path / "workmod.py"), "--exit", "4"]
    assert out["name"] == "__main__"


def test_report_merges_several_files(script, tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert geventperf("run", "-o", one, script).returncode == 0
    assert geventperf("run", "-o", two, script).returncode == 0
    result = geventperf("report", one, two, "-f", "json")
    assert result.returncode == 0, result.stderr
    merged = Profile.loads(result.stdout)
    assert merged.switches == Profile.load(one).switches + Profile.load(two).switches


def test_report_binary_format_to_a_pipe(script, tmp_path):
    saved = tmp_path / "run.json"
    assert geventperf("run", "-o", saved, script).returncode == 0
    result = subprocess.run([sys.executable, "-m", "geventperf", "report", str(saved), "-f",
                             "pstats"], capture_output=True, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0
    assert WAIT_FUNCTIONS & set(marshal.loads(result.stdout))


# -- errors -------------------------------------------------------------------------

def test_missing_script_is_a_one_line_error(tmp_path):
    result = geventperf("run", tmp_path / "nope.py")
    assert result.returncode == 2
    assert "script not found" in error_line(result)


def test_unknown_format_is_a_one_line_error(script):
    for args in (["run", "-f", "yaml", "-o", "x.json", script], ["report", "-f", "yaml", "x"]):
        result = geventperf(*args)
        assert result.returncode == 2
        line = error_line(result)
        assert "'yaml'" in line and "speedscope" in line


def test_unknown_output_suffix_fails_before_the_target_runs(script, tmp_path):
    result = geventperf("run", "-o", tmp_path / "run.xyz", script)
    assert result.returncode == 2
    assert ".speedscope.json" in error_line(result)
    assert result.stdout == ""  # the target never ran


@pytest.mark.parametrize("where, says", [
    ("missing-dir/run.html", "does not exist"),
    ("a-dir", "is a directory"),
])
def test_unwritable_output_fails_before_the_target_runs(tmp_path, where, says):
    (tmp_path / "a-dir.html").mkdir()
    marker_script = tmp_path / "mark.py"
    marker_script.write_text(MARKER_WORKLOAD)
    output = tmp_path / (where if where != "a-dir" else "a-dir.html")
    result = geventperf("run", "-o", output, marker_script, cwd=tmp_path)
    assert result.returncode == 2
    line = error_line(result)
    assert str(output) in line and says in line
    assert not (tmp_path / RAN_MARKER).exists()  # the target never started


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any directory")
def test_read_only_directory_fails_before_the_target_runs(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    marker_script = tmp_path / "mark.py"
    marker_script.write_text(MARKER_WORKLOAD)
    try:
        result = geventperf("run", "-o", locked / "run.json", marker_script, cwd=tmp_path)
    finally:
        locked.chmod(0o700)
    assert result.returncode == 2 and "not writable" in error_line(result)
    assert not (tmp_path / RAN_MARKER).exists()


def test_report_of_an_html_report_names_the_json_beside_it(script, tmp_path):
    saved = tmp_path / "run.json"
    assert geventperf("run", "-o", saved, script).returncode == 0
    html = tmp_path / "run.html"
    assert geventperf("report", saved, "-o", html).returncode == 0
    result = geventperf("report", html)
    assert result.returncode == 2
    line = error_line(result)
    assert "is an HTML report" in line and f"geventperf report {saved}" in line
    lonely = tmp_path / "lonely.html"
    lonely.write_text(html.read_text())
    line = error_line(geventperf("report", lonely))
    assert "is an HTML report" in line and "the .json the demo writes" in line


def test_report_checks_its_output_before_loading(script, tmp_path):
    saved = tmp_path / "run.json"
    assert geventperf("run", "-o", saved, script).returncode == 0
    result = geventperf("report", saved, "-o", tmp_path / "nowhere" / "x.html")
    assert result.returncode == 2 and "does not exist" in error_line(result)


def test_run_records_the_command_as_typed(script, tmp_path):
    saved = tmp_path / "run.json"
    result = geventperf("run", "-o", saved, script, "--exit", "0", "a b")
    assert result.returncode == 0, result.stderr
    meta = Profile.load(saved).meta
    assert meta["command"] == f"geventperf run -o {saved} {script} --exit 0 'a b'"
    assert "\ncommand: geventperf run -o " in result.stderr  # the report's header


def test_run_help_says_how_the_programs_arguments_are_passed():
    text = geventperf("run", "--help").stdout
    assert "everything after the script name" in text
    assert "passed to it unchanged" in text


def test_format_without_output_is_an_error(script):
    result = geventperf("run", "-f", "html", script)
    assert result.returncode == 2 and "-o FILE" in error_line(result)


def test_missing_module_is_a_one_line_error(tmp_path):
    result = geventperf("run", "-m", "no_such_module_here", cwd=tmp_path)
    assert result.returncode == 2
    assert "no module named 'no_such_module_here'" in result.stderr.splitlines()[-1]


@pytest.mark.parametrize("content", [b"{not json", b'{"x": 1}', b"\x00\xff" * 10,
                                     b'{"geventperf_schema": 99}'])
def test_corrupt_profile_is_a_one_line_error(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    result = geventperf("report", bad)
    assert result.returncode == 2
    assert str(bad) in error_line(result)


def test_nothing_to_run(tmp_path):
    result = geventperf("run")
    assert result.returncode == 2 and "nothing to run" in error_line(result)


# -- help, version, demo --------------------------------------------------------------

@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["report", "--help"]])
def test_help_has_examples(args):
    result = geventperf(*args)
    assert result.returncode == 0
    assert "example" in result.stdout and "geventperf " in result.stdout


def test_version():
    from geventperf import __version__
    result = geventperf("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"geventperf {__version__}"


def test_console_script_is_installed():
    script = os.path.join(os.path.dirname(sys.executable), "geventperf")
    if not os.path.exists(script):
        pytest.skip(f"no console script at {script} (package not installed with pip -e)")
    result = subprocess.run([script, "--version"], capture_output=True, text=True,
                            timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0 and result.stdout.startswith("geventperf ")


def test_demo_delegates_every_argument(monkeypatch):
    seen = []
    fake = types.ModuleType("geventperf.demo")
    fake.main = lambda argv: seen.append(argv) or 7
    monkeypatch.setitem(sys.modules, "geventperf.demo", fake)
    import geventperf
    monkeypatch.setattr(geventperf, "demo", fake, raising=False)
    assert cli.main(["demo", "--help", "-o", "x"]) == 7
    assert seen == [["--help", "-o", "x"]]


@pytest.mark.parametrize("tokens, expected", [
    (["-o", "a.json", "s.py", "-o", "b"], (["-o", "a.json"], "s.py", None, ["-o", "b"])),
    (["--no-patch", "-m", "pkg.mod", "-f", "x"], (["--no-patch"], None, "pkg.mod", ["-f", "x"])),
    (["-mpkg", "1"], ([], None, "pkg", ["1"])),
    (["--", "-weird.py", "--x"], ([], "-weird.py", None, ["--x"])),
    (["--no-patch"], (["--no-patch"], None, None, [])),
])
def test_split_run_args(tokens, expected):
    assert cli.split_run_args(tokens) == expected


def test_report_to_unknown_suffix_is_a_one_line_error(script, tmp_path):
    saved = tmp_path / "run.json"
    assert geventperf("run", "-o", saved, script).returncode == 0
    result = geventperf("report", saved, "-o", tmp_path / "out.xyz")
    assert result.returncode == 2 and ".trace.json" in error_line(result)
    assert not (tmp_path / "out.xyz").exists()


@pytest.mark.parametrize("flags, guarded", [((), False), (("--lxml-guard",), True)])
def test_run_lxml_guard_is_the_tracers(script, tmp_path, flags, guarded):
    # the deadlock warning names the flag: it must reach the tracer
    saved = tmp_path / "run.json"
    result = geventperf("run", *flags, "-o", saved, script)
    assert result.returncode == 0, result.stderr
    assert Profile.load(saved).meta["lxml_guard"] is guarded
