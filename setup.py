"""Only the optional C hot path of the Tracer lives here; metadata is in setup.cfg.

``optional=True``: without a compiler (or on Python < 3.11) the build still succeeds
and geventperf uses the pure-Python hot path, which behaves identically.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("geventperf._ctrace", ["geventperf/_ctrace.c"], optional=True)])
