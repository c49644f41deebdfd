"""Imported by heavy_import.py: spends 0.3 s of CPU at import time, as a large framework
(or a module that builds tables when imported) does."""

import time

IMPORT_CPU_S = 0.3

_end = time.thread_time() + IMPORT_CPU_S
_n = 0
while time.thread_time() < _end:  # diag: startup
    _n += 1
TABLE = _n
