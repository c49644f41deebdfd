"""A hot line searching a stored collection one element at a time (a blocklist kept in
a list, walked with == or endswith per item): loop-saturated names the collection and
the lookup that replaces the walk.  The line's source is read where the profile is
analysed, so each test writes the program's file it names."""

from __future__ import annotations

import pytest

from geventperf import findings
from geventperf.findings.cheaper import LINEAR_SEARCH_CHEAPER
from geventperf.frames import searched_collection
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.test_mut_findings import saturated

SOURCE = '''\
class Exchange:
    def blocked(self, bid):
        for domain in bid["adomain"]:
            for banned in self.banned_domains:
                if domain == banned or domain.endswith("." + banned):
                    return True
            for prefix in PREFIXES:
                if domain.startswith(prefix):
                    return True
            for i in range(10):
                if i == len(domain):
                    return True
            for banned in self.banned_domains:
                total = len(banned) + len(domain)
            for banned in load_banned():
                if banned in domain:
                    return True
        return False
'''


@pytest.fixture()
def program(tmp_path):
    path = tmp_path / "exchange.py"
    path.write_text(SOURCE)
    return path


@pytest.mark.parametrize("line, collection", [
    (5, "self.banned_domains"),  # == and endswith on the element
    (8, "PREFIXES"),  # startswith on the element
    (11, None),  # a range is no stored collection
    (14, None),  # no test for a match
    (16, None),  # the loop walks a call's result
    (3, None),  # the loop's own line
])
def test_searched_collection(program, line, collection):
    assert searched_collection(f"{program}:{line}:Exchange.blocked") == collection


def with_samples_at(path, line: int):
    """saturated()'s run, its holders' sampled CPU three quarters at *line* of *path*."""
    p = saturated()
    frames = [f"{path}:{line}:Exchange.blocked", f"{path}:30:Exchange.auction",
              "/venv/lib/python3.11/site-packages/requests/sessions.py:500:Session.request"]
    p.cpu_samples = CpuSamples(frames=frames, first_lines=[1] * 3, stacks=[
        SampledStack(frames=[0, 1], greenlet="app.fetch", sections=[], count=30,
                     cpu_s=0.75, gid=3),
        SampledStack(frames=[2, 1], greenlet="app.fetch", sections=[], count=10,
                     cpu_s=0.25, gid=3)])
    return p


def test_a_saturated_loop_leads_with_the_search(program):
    """Before (an unseen ad exchange's 9 000-domain blocklist walked per bid): "59% of the
    sampled CPU ran inside requests" led, the search was a figure further on."""
    [f] = findings.loop_saturated(with_samples_at(program, 5))
    told = LINEAR_SEARCH_CHEAPER.format(collection="self.banned_domains")
    assert f.message.startswith(f"The loop was saturated by the code at {program}:5:"
                                f"Exchange.blocked, 75% of the sampled CPU: {told}."), f.message


def test_a_line_that_tests_nothing_is_not_told_a_search(program):
    [f] = findings.loop_saturated(with_samples_at(program, 14))
    assert "one element at a time" not in f.message, f.message


SEQUENCES = '''\
from collections import deque


class Dedup:
    def __init__(self):
        self.seen = deque(maxlen=20000)
        self.recent = []
        self.ids = set()
        self.mixed = []

    def fresh(self, events):
        out = []
        for ev in events:
            if ev not in self.seen:
                self.seen.append(ev)
                out.append(ev)
        kept = [e for e in events if e in self.recent]
        if ev in self.ids:
            out.clear()
        if ev in self.mixed:
            out.clear()
        return out, kept

    def reset(self):
        self.mixed = set()
'''


@pytest.mark.parametrize("line, collection", [
    (14, "self.seen"),  # the if's own test, on a deque
    (15, "self.seen"),  # sampled where the interpreter next looks: the if's body
    (16, None),  # the body's second line
    (17, "self.recent"),  # a comprehension's test, on a list
    (18, None),  # a set: one step, no search
    (20, None),  # bound to a list once and to a set elsewhere: not known a sequence
])
def test_membership_in_a_sequence(tmp_path, line, collection):
    """Before (an unseen tracking poller's ``ev not in self.seen`` on a 20 000-long deque,
    30 % of its run): told requests' own CPU only."""
    path = tmp_path / "dedup.py"
    path.write_text(SEQUENCES)
    assert searched_collection(f"{path}:{line}:Dedup.fresh") == collection
