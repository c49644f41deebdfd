"""pprof's ``profile.proto`` (package ``perftools.profiles``), the messages and field
numbers geventperf writes, as protobuf message classes.

The schema is built here as a ``FileDescriptorProto`` in a private descriptor pool
instead of shipping ``protoc`` output: generated ``_pb2`` modules pin the protobuf
runtime to their generator's version (``ValidateProtobufRuntimeVersion``), and they
register ``perftools.profiles`` in the process-wide default pool, where a profiler
already loaded by the program (ddtrace, pyroscope) registers the same names.  Field
numbers follow https://github.com/google/pprof/blob/main/proto/profile.proto; the
test suite reads our output with ``go tool pprof``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

PACKAGE = "perftools.profiles"

# (message, [(field, number, repeated, type, message type name or None)])
_I64, _U64, _STR, _BOOL, _MSG = "int64", "uint64", "string", "bool", "message"
SCHEMA: dict[str, list[tuple[str, int, bool, str, str | None]]] = {
    "Profile": [
        ("sample_type", 1, True, _MSG, "ValueType"), ("sample", 2, True, _MSG, "Sample"),
        ("mapping", 3, True, _MSG, "Mapping"), ("location", 4, True, _MSG, "Location"),
        ("function", 5, True, _MSG, "Function"), ("string_table", 6, True, _STR, None),
        ("drop_frames", 7, False, _I64, None), ("keep_frames", 8, False, _I64, None),
        ("time_nanos", 9, False, _I64, None), ("duration_nanos", 10, False, _I64, None),
        ("period_type", 11, False, _MSG, "ValueType"), ("period", 12, False, _I64, None),
        ("comment", 13, True, _I64, None), ("default_sample_type", 14, False, _I64, None),
    ],
    "ValueType": [("type", 1, False, _I64, None), ("unit", 2, False, _I64, None)],
    "Sample": [("location_id", 1, True, _U64, None), ("value", 2, True, _I64, None),
               ("label", 3, True, _MSG, "Label")],
    "Label": [("key", 1, False, _I64, None), ("str", 2, False, _I64, None),
              ("num", 3, False, _I64, None), ("num_unit", 4, False, _I64, None)],
    "Mapping": [("id", 1, False, _U64, None), ("memory_start", 2, False, _U64, None),
                ("memory_limit", 3, False, _U64, None), ("file_offset", 4, False, _U64, None),
                ("filename", 5, False, _I64, None), ("build_id", 6, False, _I64, None),
                ("has_functions", 7, False, _BOOL, None),
                ("has_filenames", 8, False, _BOOL, None),
                ("has_line_numbers", 9, False, _BOOL, None),
                ("has_inline_frames", 10, False, _BOOL, None)],
    "Location": [("id", 1, False, _U64, None), ("mapping_id", 2, False, _U64, None),
                 ("address", 3, False, _U64, None), ("line", 4, True, _MSG, "Line"),
                 ("is_folded", 5, False, _BOOL, None)],
    "Line": [("function_id", 1, False, _U64, None), ("line", 2, False, _I64, None)],
    "Function": [("id", 1, False, _U64, None), ("name", 2, False, _I64, None),
                 ("system_name", 3, False, _I64, None), ("filename", 4, False, _I64, None),
                 ("start_line", 5, False, _I64, None)],
}

MISSING_PROTOBUF = ("the pprof format needs the protobuf package: "
                    "pip install 'geventperf[pprof]' (or pip install protobuf)")


@lru_cache(maxsize=1)
def messages() -> dict[str, Any]:
    """Message classes by name; ImportError naming the extra when protobuf is absent."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError as exc:
        raise ImportError(MISSING_PROTOBUF) from exc
    field = descriptor_pb2.FieldDescriptorProto
    types = {_I64: field.TYPE_INT64, _U64: field.TYPE_UINT64, _STR: field.TYPE_STRING,
             _BOOL: field.TYPE_BOOL, _MSG: field.TYPE_MESSAGE}
    proto = descriptor_pb2.FileDescriptorProto(name="geventperf/pprof_profile.proto",
                                               package=PACKAGE, syntax="proto3")
    for name, fields in SCHEMA.items():
        message = proto.message_type.add(name=name)
        for fname, number, repeated, ftype, type_name in fields:
            f = message.field.add(name=fname, number=number, type=types[ftype],
                                  label=field.LABEL_REPEATED if repeated
                                  else field.LABEL_OPTIONAL)
            if type_name:
                f.type_name = f".{PACKAGE}.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(proto.SerializeToString())
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(
        f"{PACKAGE}.{name}")) for name in SCHEMA}
