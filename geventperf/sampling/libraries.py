"""Facts about the serialisation libraries the traced program loaded, recorded with
the CPU samples so the slow-path findings (``geventperf.findings.slowpaths``) stay pure
functions of a saved profile.  Only modules already imported are looked at: nothing
is imported on the program's behalf."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any


def facts() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, probe in _PROBES.items():
        try:
            value = probe()
        except Exception:  # a library in an odd state: unknown, never an error
            value = None
        if value is not None:
            out[name] = value
    return out


def _protobuf_backend() -> str | None:
    if "google.protobuf" not in sys.modules:
        return None
    from google.protobuf.internal import api_implementation
    return str(api_implementation.Type())


def _thrift_fastbinary() -> bool | None:
    if "thrift.protocol" not in sys.modules:
        return None
    return importlib.util.find_spec("thrift.protocol.fastbinary") is not None


def _json_c() -> bool | None:
    decoder = sys.modules.get("json.decoder")
    return None if decoder is None else getattr(decoder, "c_scanstring", None) is not None


def _simplejson_speedups() -> bool | None:
    # simplejson._toggle_speedups(False) swaps the Python scanner in but leaves
    # c_scanstring set: look at the scanner in use.
    scanner = sys.modules.get("simplejson.scanner")
    if scanner is None:
        return None
    return getattr(scanner, "make_scanner", None) is not getattr(scanner, "py_make_scanner",
                                                                 None)


def _msgpack_fallback() -> bool | None:
    msgpack = sys.modules.get("msgpack")
    if msgpack is None:
        return None
    return getattr(getattr(msgpack, "Unpacker", None), "__module__", "") == "msgpack.fallback"


_PROBES = {
    "protobuf_backend": _protobuf_backend,
    "thrift_fastbinary": _thrift_fastbinary,
    "json_c": _json_c,
    "simplejson_speedups": _simplejson_speedups,
    "msgpack_fallback": _msgpack_fallback,
}
