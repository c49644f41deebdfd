"""A comprehension whose CPU runs in a library call it makes for each element (a feed's
networks parsed with ipaddress.ip_network at every match): loop-saturated tells that
call and to do it once when the collection is loaded, not the growing collection's
story of a comprehension that only compares."""

from __future__ import annotations

import pytest

from geventperf import findings
from geventperf.findings.cheaper import PER_ELEMENT_CHEAPER
from geventperf.sampling.model import CpuSamples, SampledStack
from tests.test_mut_findings import saturated

STDLIB = "/usr/lib/python3.11"
APP = "/srv/feed.py"
COMPREHENSION = f"{APP}:223:ThreatFeed.match.<locals>.<listcomp>"
CALLER = [f"{APP}:223:ThreatFeed.match", f"{APP}:265:Enricher.enrich"]


def sampled(stack: list[str]):
    """saturated()'s run, its holders' sampled CPU three quarters in *stack*."""
    p = saturated()
    frames = [*stack, "/venv/lib/python3.11/site-packages/requests/sessions.py:500:x"]
    p.cpu_samples = CpuSamples(frames=frames, first_lines=[1] * len(frames), stacks=[
        SampledStack(frames=list(range(len(stack))), greenlet="app.fetch", sections=[],
                     count=30, cpu_s=0.75, gid=3),
        SampledStack(frames=[len(stack), len(stack) - 1], greenlet="app.fetch",
                     sections=[], count=10, cpu_s=0.25, gid=3)])
    return p


@pytest.mark.parametrize("inner, told", [
    # a parse per element: that call, and once at load
    ([f"{STDLIB}/ipaddress.py:1512:IPv4Network.__init__", f"{STDLIB}/ipaddress.py:74:ip_network"],
     PER_ELEMENT_CHEAPER.format(call="ipaddress.ip_network")),
    # a library call with a story of its own keeps it
    ([f"{STDLIB}/_strptime.py:567:_strptime_datetime"], "datetime.strptime"),
    # (a near-duplicate check against the items kept: no work to do once at load)
    ([f"{STDLIB}/difflib.py:620:SequenceMatcher.ratio"], "it compares texts with difflib"),
    # the comprehension's own bytecode: the generic comprehension story
    ([], "builds a list by comprehension on every call"),
])
def test_a_comprehension_calling_a_library_per_element_is_told_that_call(inner, told):
    [f] = findings.loop_saturated(sampled([*inner, COMPREHENSION, *CALLER]))
    assert told in f.message, f.message
    per_element = told.startswith("it calls")
    assert not per_element or f"75% of the sampled CPU: {told}" in f.message, f.message
    assert ("for each element of a collection" in f.message) is per_element, f.message


def test_a_pattern_compiled_at_every_call_is_told_to_compile_once():
    """Before (an unseen translation gateway rebuilt its 900-term glossary pattern for
    every document, 88 % of its CPU in re's Python compiler): the generic menu; built
    once per term list, its run took 73 % less."""
    stack = [f"{STDLIB}/re/_parser.py:552:_parse", f"{STDLIB}/re/_compiler.py:745:compile",
             f"{STDLIB}/re/__init__.py:227:compile", f"{APP}:159:Glossary.__init__", *CALLER]
    [f] = findings.loop_saturated(sampled(stack))
    assert "75% of the sampled CPU: it compiles a regular expression at every call" \
        in f.message, f.message
