"""setup.py: when the optional C extension cannot be built, the build still succeeds
and says, loudly, what is lost and how to get it (see README, "The tracer")."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Building one small C file, or failing to; minutes mean the build hangs.
BUILD_TIMEOUT_S = 300


def test_failed_extension_build_warns_what_is_lost(tmp_path):
    env = dict(os.environ, CC="/bin/false")  # a compiler that always fails
    out = subprocess.run([sys.executable, "setup.py", "build_ext",
                          "--build-lib", str(tmp_path / "lib"),
                          "--build-temp", str(tmp_path / "tmp")],
                         cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=BUILD_TIMEOUT_S)
    assert out.returncode == 0, out.stderr[-3000:]  # optional: the install goes on
    text = out.stdout + out.stderr
    assert "WARNING: geventperf's C extension (geventperf._ctrace) could not be built" \
        in text, text[-3000:]
    assert "pure-Python hot path" in text and "C compiler" in text
    assert not list((tmp_path / "lib").rglob("_ctrace*"))  # and indeed nothing was built
