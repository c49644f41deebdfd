"""A hot json.dumps inside a loop over a stored collection (an update encoded for each
subscriber): loop-saturated tells the loop's story, encode once and send the bytes to
each, before the growing document's and a faster encoder's.  The line's source is read
where the profile is analysed, so each test writes the program's file it names."""

from __future__ import annotations

import pytest

from geventperf import findings
from geventperf.findings.cheaper import JSON_DUMP_CHEAPER, JSON_PER_PASS_CHEAPER
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.test_mut_findings import saturated

SOURCE = '''\
import json


class Publisher:
    def publish(self, sym, targets, records, out):
        for sub in targets:
            msg = {"update": sym, "view": self.view(sub.symbols)}
            sub.offer(json.dumps(msg).encode())
        for record in records:
            out.write(json.dumps(record))
        for i in range(3):
            out.write(json.dumps({"i": i}))
        json.dump(self.state, out)
        for row in records:
            out.write(json.dumps(self.to_dict(row)).encode())
'''
ENCODER = "/usr/lib/python3.11/json/encoder.py:200:JSONEncoder.encode"
DUMPS = "/usr/lib/python3.11/json/__init__.py:231:dumps"


def encoding_at(path, line: int):
    """saturated()'s run, its holders' sampled CPU three quarters in json.dumps called
    at *line* of *path*."""
    p = saturated()
    frames = [ENCODER, DUMPS, f"{path}:{line}:Publisher.publish",
              "/venv/lib/python3.11/site-packages/requests/sessions.py:500:Session.request"]
    p.cpu_samples = CpuSamples(frames=frames, first_lines=[1] * 4, stacks=[
        SampledStack(frames=[0, 1, 2], greenlet="app.fetch", sections=[], count=30,
                     cpu_s=0.75, gid=3),
        SampledStack(frames=[3, 2], greenlet="app.fetch", sections=[], count=10,
                     cpu_s=0.25, gid=3)])
    return p


@pytest.mark.parametrize("line, told", [
    (8, JSON_PER_PASS_CHEAPER.format(loop="for sub in targets")),
    (10, JSON_DUMP_CHEAPER),  # each pass writes its own element out: an export's records
    (12, JSON_DUMP_CHEAPER),  # a range is no collection of recipients
    (13, JSON_DUMP_CHEAPER),  # no loop around it
    (15, JSON_DUMP_CHEAPER),  # an export: each pass hands nothing to its element
])
def test_an_encode_per_recipient_is_told_to_encode_once(tmp_path, line, told):
    """Before (an unseen quote aggregator encoded each update with a view of the book
    once per subscriber, 81 % of its CPU): told the growing-document story and a
    faster encoder (ujson alone: -42 %); encoded once per update: -50 %."""
    path = tmp_path / "publisher.py"
    path.write_text(SOURCE)
    [f] = findings.loop_saturated(encoding_at(path, line))
    assert f.message.startswith(f"The loop was saturated by the code at {path}:{line}:"
                                f"Publisher.publish, 75% of the sampled CPU: {told}"), \
        f.message
