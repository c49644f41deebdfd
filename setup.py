"""Only the optional C parts live here; metadata is in setup.cfg.

``optional=True``: without a compiler (or on Python < 3.11) the build still succeeds
and geventperf uses the pure-Python hot path, which behaves identically but costs
more per greenlet switch, and a CPU sampler that guesses which samples stand for
collapsed ticks.  When that happens the build says so, loudly, instead of leaving the
user on the slow path without a word.
"""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CTRACE = "geventperf._ctrace"
SIGTICKS = "geventperf._sigticks"

WARNING = f"""
{'=' * 78}
WARNING: geventperf's C extension ({CTRACE}) could not be built:
    {{error}}
geventperf is installed and works, but its Tracer uses the pure-Python hot path:
about 2-3 us more per greenlet switch than the C one (see README, "Benchmarks").
To get the fast path, install a C compiler and the Python headers (Debian/Ubuntu:
`apt-get install gcc python3-dev`) and reinstall geventperf.
{'=' * 78}
"""

SIGTICKS_WARNING = f"""
{'=' * 78}
WARNING: geventperf's C extension ({SIGTICKS}) could not be built:
    {{error}}
geventperf works, but its CPU sampler cannot count the ticks the kernel delivers:
on a busy machine some CPU may be charged to the wrong greenlet (README, "CPU
samples").  Install a C compiler and the Python headers and reinstall geventperf.
{'=' * 78}
"""


class WarningBuildExt(build_ext):
    """build_ext that prints what is lost when the optional extension fails."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # the compiler's errors come in several classes
            self._warn(ext, exc)
            if not ext.optional:
                raise

    def run(self):
        try:
            super().run()
        except Exception as exc:  # e.g. no compiler at all, found before any extension
            for ext in self.extensions:
                self._warn(ext, exc)
            if not all(ext.optional for ext in self.extensions):
                raise

    def _warn(self, ext, exc):
        text = {CTRACE: WARNING, SIGTICKS: SIGTICKS_WARNING}.get(ext.name)
        if text:
            sys.stderr.write(text.format(error=f"{type(exc).__name__}: {exc}"))
            sys.stderr.flush()


setup(ext_modules=[Extension(CTRACE, ["geventperf/_ctrace.c"], optional=True),
                   Extension(SIGTICKS, ["geventperf/_sigticks.c"], optional=True)],
      cmdclass={"build_ext": WarningBuildExt})
