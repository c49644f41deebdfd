"""An environment of a given size, as a Kubernetes pod carries one: several variables
for every service in its namespace (``<NAME>_SERVICE_HOST``, ``<NAME>_PORT``, ...)."""

from __future__ import annotations

import contextlib
import os

# The two sizes the small-request benchmarks compare: a developer's shell, and a pod in
# a namespace of ~100 services (5 variables each).
ENV_SIZES = (35, 500)


@contextlib.contextmanager
def environment_of(size: int):
    """os.environ padded with service-like variables to *size* entries (never shrunk:
    when it already holds more, it is left as it is), restored afterwards.  Yields the
    actual count."""
    added = []
    index = 0
    while len(os.environ) < size:
        name = f"GPBENCH_SVC{index // 5}_{('SERVICE_HOST', 'SERVICE_PORT', 'PORT', 'PORT_80_TCP', 'PORT_80_TCP_ADDR')[index % 5]}"
        os.environ[name] = f"10.96.{index // 250}.{index % 250}"
        added.append(name)
        index += 1
    try:
        yield len(os.environ)
    finally:
        for name in added:
            os.environ.pop(name, None)
