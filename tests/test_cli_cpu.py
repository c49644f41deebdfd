"""`geventperf run`'s CPU options: --cpu-clock, --cpu-samples and the looks at a
stalled loop, as users type them."""

from __future__ import annotations

from geventperf import Profile
from tests.test_cli import error_line, geventperf

BURNER = """
import gevent
def burn():
    for _ in range(30):
        sum(range(20000))
        gevent.sleep(0)
gevent.joinall([gevent.spawn(burn) for _ in range(2)])
"""


def write_burner(tmp_path):
    path = tmp_path / "burner.py"
    path.write_text(BURNER)
    return path


def test_cpu_clock_and_samples_reach_the_profile(tmp_path):
    out = tmp_path / "run.json"
    result = geventperf("run", "--cpu-clock", "switch", "--cpu-samples=0.004",
                        "-o", out, write_burner(tmp_path))
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.meta["cpu_clock_mode"] == "switch"
    assert profile.cpu_samples and "burn" in result.stderr


def test_cpu_clock_off_and_a_bare_samples_flag(tmp_path):
    out = tmp_path / "run.json"
    # a bare --cpu-samples takes no value: the next token is the script
    result = geventperf("run", "--cpu-clock", "off", "--cpu-samples", "-o", out,
                        write_burner(tmp_path))
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.meta["cpu_clock_mode"] is None
    assert all(g.cpu_s is None for g in profile.greenlets)


def test_bad_cpu_options_are_refused_by_name(tmp_path):
    bad = geventperf("run", "--cpu-samples=abc", write_burner(tmp_path))
    assert bad.returncode == 2
    assert "--cpu-samples=SECONDS needs a positive number" in error_line(bad)
    bad = geventperf("run", "--cpu-clock", "sometimes", write_burner(tmp_path))
    assert bad.returncode == 2
    assert "--cpu-clock must be one of interval, switch, off" in error_line(bad)


def test_samples_and_the_stall_watch_are_on_unless_turned_off(tmp_path):
    out = tmp_path / "run.json"
    result = geventperf("run", "-o", out, write_burner(tmp_path))
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.cpu_samples is not None and profile.meta["stall_watch"] is True
    result = geventperf("run", "--no-cpu-samples", "--no-stall-watch", "-o", out,
                        write_burner(tmp_path))
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.cpu_samples is None and profile.meta["stall_watch"] is False


SHORT_BLOCKS = """
import time
import gevent
def write():
    for _ in range(8):
        time.sleep(0.012)  # a blocking call under the default 50 ms threshold
        gevent.sleep(0)
gevent.joinall([gevent.spawn(write) for _ in range(3)])
"""


def test_a_lower_block_threshold_finds_where_short_blocking_calls_block(tmp_path):
    # 12 ms blocking calls: under the default threshold no slice is long enough for a
    # finding of its own; at 4 ms each is a blocking-call the stall watch looked at
    script = tmp_path / "short_blocks.py"
    script.write_text(SHORT_BLOCKS)
    out = tmp_path / "run.json"
    result = geventperf("run", "--no-patch", "--block-threshold", "0.004", "-o", out, script)
    assert result.returncode == 0, result.stderr
    profile = Profile.load(out)
    assert profile.meta["block_threshold_s"] == 0.004
    [found] = [f for f in profile.findings if f.kind == "blocking-call"]
    assert "short_blocks.py:6" in found.message and "looks at the thread" in found.message
    for bad in ("0", "-1", "abc", "nan"):
        refused = geventperf("run", "--block-threshold", bad, script)
        assert refused.returncode == 2
        assert "--block-threshold must be a positive number of seconds" in error_line(refused)
