"""Slow paths seen in the CPU samples: CPU spent in a pure-Python implementation where a
C one exists (``pure-python-fallback``), or in requests guessing a body's encoding
(``charset-detection``).

Everything comes from one table, :data:`SLOW_PATHS`: each entry names the frames that
make up the slow path (file endings, optionally function names), the library fact that
must hold for it to apply (recorded with the samples by
``geventperf.sampling.libraries``; unknown facts do not rule an entry out), the module
to name, and the exact fix.  Adding a slow path is adding an entry.

A sample belongs to the first entry (in table order) one of whose frames it holds;
an entry makes a finding when its share of the sampled CPU is large enough to matter.
Cost, in greenlet-seconds like every finding's: the slow path's share of the sampled
CPU times the run's running time (the greenlets' ``run_s``: what running it took, a
busy machine's CPU waits included) plus the same share of the run's ready wait (the
others' queueing behind it: greenlet-seconds the workers, not the hub, stood ready
while the loop ran others).  A saturated loop's ``loop-saturated`` finding leaves that
share of the ready wait out, as it does a loop-blocked one's: one cause, one finding,
and the code that saturated the loop ranks above the saturation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from geventperf.findings.common import EAGER_LOG_CHEAPER, _finding, eager_log
from geventperf.findings.cpuhot import own_line
from geventperf.profile import Finding, Profile
from geventperf.sampling.views import chains, samples_of

PURE_PYTHON_FALLBACK = "pure-python-fallback"
CHARSET_DETECTION = "charset-detection"

COST_MEANING = {
    PURE_PYTHON_FALLBACK: "greenlet-seconds: the pure-Python implementation's share of the "
                          "sampled CPU, times the run's running time plus its ready wait "
                          "(the others' queueing while it held the loop)",
    CHARSET_DETECTION: "greenlet-seconds: encoding detection's share of the sampled CPU, "
                       "times the run's running time plus its ready wait (the others' "
                       "queueing while it held the loop)",
}

# A slow path is reported from this share of the sampled CPU on: below it, fixing it
# would not be noticed next to the rest of the run.
MIN_SHARE = 0.05
# ...and from this many samples on, so a few stray ticks in a large run's rare path
# are not a finding (with 4 ms ticks, about 20 ms of CPU).
MIN_SAMPLES = 5


# json.dump(obj, file): a document written whole to a file, which at a slow path's share
# of the CPU is written again and again, most often a state saved after every change.
# Then the work itself is the cause, the encoder's pace a second lever (an unseen stock
# ledger rewrote its 1 500 rows with indent= after each of 800 events: without indent=
# its handling took 3.3x less, saved per batch 11x less; told the encoder only).
FILE_DUMP_FRAME = re.compile(r"[/\\](simple)?json[/\\]__init__\.py:\d+:dump$")
FILE_DUMP_FIRST = (
    "json.dump writes a whole document to a file at each call: where that saves a state "
    "after every change (a store, a snapshot), write what changed (append a line per "
    "change, a journal replayed at start) or save once per interval or batch, which "
    "removes the work where a faster encoder only shrinks it")
# The share of a slow path's sampled CPU under json.dump from which that story leads.
FILE_DUMP_SHARE = 0.5


@dataclass(frozen=True)
class SlowPath:
    kind: str
    module: str                      # the module the finding names
    files: tuple[str, ...]           # path endings of the slow path's frames
    what: str                        # what runs slowly, for the message
    fix: str                         # the exact fix
    # If given, only frames of these functions (the qualname's last part) count.
    functions: tuple[str, ...] = ()
    # Library facts (sampling/libraries.py) that must hold; an unknown fact does not
    # rule the entry out.
    requires: dict[str, Any] = field(default_factory=dict)

    def matches(self, label: str) -> bool:
        path, _, rest = label.rpartition(":")
        path = path.rpartition(":")[0].replace("\\", "/")
        if not path.endswith(self.files):
            return False
        return not self.functions or rest.rpartition(".")[2] in self.functions

    def applies(self, libraries: dict[str, Any]) -> bool:
        return all(libraries.get(k) is None or libraries.get(k) == v
                   for k, v in self.requires.items())


_JSON_PY = ("py_scanstring", "_scan_once", "scan_once", "JSONObject", "JSONArray",
            "py_encode_basestring", "py_encode_basestring_ascii", "_iterencode",
            "_iterencode_dict", "_iterencode_list")

SLOW_PATHS: tuple[SlowPath, ...] = (
    SlowPath(PURE_PYTHON_FALLBACK, "google.protobuf",
             ("/google/protobuf/internal/python_message.py",
              "/google/protobuf/internal/decoder.py", "/google/protobuf/internal/encoder.py",
              "/google/protobuf/internal/wire_format.py",
              "/google/protobuf/internal/type_checkers.py",
              "/google/protobuf/internal/containers.py"),
             "protobuf backend (api_implementation.Type() == 'python')",
             "use protobuf's C backend: unset PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION (or set "
             "it to 'upb') and install a protobuf wheel for this platform (pip install "
             "--force-reinstall protobuf); check with google.protobuf.internal."
             "api_implementation.Type() == 'upb'",
             requires={"protobuf_backend": "python"}),
    SlowPath(PURE_PYTHON_FALLBACK, "thrift.protocol",
             ("/thrift/protocol/TBinaryProtocol.py", "/thrift/protocol/TCompactProtocol.py"),
             "TBinaryProtocol/TCompactProtocol while thrift.protocol.fastbinary is "
             "importable: the accelerated protocol was not used, because the protocol is "
             "not TBinaryProtocolAccelerated/TCompactProtocolAccelerated, or its "
             "transport is not a TTransport.CReadableTransport",
             "use TBinaryProtocolAcceleratedFactory (or TCompactProtocolAcceleratedFactory) "
             "over a transport that is a TTransport.CReadableTransport (TBufferedTransport, "
             "TFramedTransport, TMemoryBuffer); a custom transport must subclass "
             "CReadableTransport and implement cstringio_buf and cstringio_refill",
             requires={"thrift_fastbinary": True}),
    SlowPath(PURE_PYTHON_FALLBACK, "thrift.protocol",
             ("/thrift/protocol/TBinaryProtocol.py", "/thrift/protocol/TCompactProtocol.py"),
             "TBinaryProtocol/TCompactProtocol without thrift.protocol.fastbinary (thrift "
             "was installed without its C extension)",
             "reinstall thrift where a C compiler is present (pip install --no-binary thrift "
             "--force-reinstall thrift) so thrift.protocol.fastbinary builds, then use the "
             "accelerated protocol factories",
             requires={"thrift_fastbinary": False}),
    SlowPath(PURE_PYTHON_FALLBACK, "msgpack.fallback", ("/msgpack/fallback.py",),
             "msgpack implementation (msgpack.fallback)",
             "install msgpack's C extension (pip install --force-reinstall msgpack, with "
             "MSGPACK_PUREPYTHON unset) and call msgpack.packb/unpackb or msgpack.Unpacker, "
             "not msgpack.fallback"),
    SlowPath(PURE_PYTHON_FALLBACK, "simplejson",
             ("/simplejson/decoder.py", "/simplejson/scanner.py", "/simplejson/encoder.py"),
             "simplejson without its C speedups (simplejson._speedups)",
             "reinstall simplejson where a C compiler is present so simplejson._speedups "
             "builds (and do not call simplejson._toggle_speedups(False)), or use the "
             "standard json module",
             functions=_JSON_PY, requires={"simplejson_speedups": False}),
    SlowPath(PURE_PYTHON_FALLBACK, "json",
             ("/json/decoder.py", "/json/scanner.py", "/json/encoder.py"),
             "json without its C accelerator _json",
             "use a Python build with the _json extension module (it ships with CPython; "
             "a missing _json means a broken or stripped build), or ujson/orjson",
             functions=_JSON_PY, requires={"json_c": False}),
    SlowPath(PURE_PYTHON_FALLBACK, "json", ("/json/encoder.py",),
             "json encoder: json.dumps(indent=...) and json.dump(obj, file) encode in "
             "Python even with _json",
             "call json.dumps(obj) without indent= and write the string (json.dump streams "
             "through the Python encoder), or use ujson/orjson",
             functions=_JSON_PY, requires={"json_c": True}),
    SlowPath(CHARSET_DETECTION, "requests", ("/requests/models.py",),
             "encoding guessed by requests' Response.text (Response.apparent_encoding: "
             "charset detection over the whole body, in Python) because the response "
             "declared no charset",
             "set response.encoding to the charset the body is really in before reading "
             "response.text (have the upstream declare it in Content-Type; 'utf-8' only "
             "for a UTF-8 body: any other comes back with U+FFFD where it does not "
             "decode), or parse response.content (bytes) directly where the parser "
             "decodes it right (json.loads reads UTF-8, -16 and -32 only)",
             functions=("apparent_encoding",)),
)


def slow_paths(profile: Profile) -> list[Finding]:
    samples = samples_of(profile)
    if samples is None:
        return []
    total = samples.cpu_s
    if total <= 0:
        return []
    table = [p for p in SLOW_PATHS if p.applies(samples.libraries)]
    cpu: dict[int, float] = defaultdict(float)
    count: dict[int, int] = defaultdict(int)
    by_greenlet: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    heaviest: dict[int, tuple[float, list[str]]] = {}
    dumped: dict[int, float] = defaultdict(float)  # CPU under json.dump (FILE_DUMP_FRAME)
    # the program's lines the slow path ran under, by CPU (a deep chain, cut at the
    # sampler's depth, may hold none)
    lines: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for chain in chains(samples):
        at = next((i for i, path in enumerate(table)
                   if any(path.matches(label) for label in chain.labels)), None)
        if at is None:
            continue
        cpu[at] += chain.cpu_s
        count[at] += chain.count
        by_greenlet[at][chain.greenlet] += chain.cpu_s
        line = own_line(chain.labels)
        if line is not None:
            lines[at][line] += chain.cpu_s
        if any(FILE_DUMP_FRAME.search(label) for label in chain.labels):
            dumped[at] += chain.cpu_s
        if chain.cpu_s > heaviest.get(at, (-1.0, []))[0]:
            heaviest[at] = (chain.cpu_s, chain.labels)
    # the workers' queueing, as loop-saturated counts it (the hub's own is not)
    ready = sum(g.ready_wait_s or 0.0 for g in profile.greenlets
                if g.id != profile.hub.get("id"))
    running = sum(g.run_s for g in profile.greenlets)
    out = []
    for at, seconds in cpu.items():
        share = seconds / total
        if share < MIN_SHARE or count[at] < MIN_SAMPLES:
            continue
        path = table[at]
        names = sorted(by_greenlet[at].items(), key=lambda kv: -kv[1])
        who = ", ".join(f"'{name}' {s:.3f} s" for name, s in names[:3])
        # (a disabled debug log's message built anyway: the work need not run at all)
        line = max(lines[at], key=lines[at].__getitem__) if lines[at] else None
        first = EAGER_LOG_CHEAPER if eager_log(line) else \
            FILE_DUMP_FIRST if dumped[at] >= FILE_DUMP_SHARE * seconds else None
        at_line = f"At {line}, " if line else ""
        fix = (f"{at_line}{first}. Cure that first; where the work must run, {path.fix}"
               if first else f"Fix: {path.fix}")
        message = (f"{share:.0%} of the sampled CPU ({seconds:.3f} s of {total:.3f} s) ran in "
                   f"{path.module}'s {path.what}; greenlets: {who}. {fix}")
        queueing = share * ready
        own = max(share * running, seconds)  # no less than its sampled CPU
        out.append(_finding(path.kind, message, own + queueing, heaviest[at][1],
                            module=path.module, cpu_s=seconds, cpu_share=share, run_s=own,
                            others_ready_wait_s=queueing, samples=count[at], fix=path.fix,
                            by_greenlet=dict(names), cost_meaning=COST_MEANING[path.kind],
                            **({"saved_whole": True} if first == FILE_DUMP_FIRST else {})))
    return out
