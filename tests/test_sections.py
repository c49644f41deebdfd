"""section(): timings, nesting, decorator use, the no-tracer no-op, and the automatic C
parser sections (wrapped while tracing, restored after, also after an exception)."""

from __future__ import annotations

import io
import json
import time
import xml.etree.ElementTree as ET

import gevent
import lxml.etree
import pytest
import ujson

from geventperf import Tracer, section
from geventperf import sections as sections_mod
from tests import tracer_impl
from tests.clocks import cpu_fits_in_wall

# Runs each test taking `impl` on every hot path: the C extension and pure Python.
impl = tracer_impl.impl


def spin(n: int = 200_000) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def test_section_without_tracer_is_a_no_op():
    @section("decorated")
    def add(a, b=1):
        """Adds."""
        return a + b

    with section("plain") as s:
        value = add(1, b=2)
    assert value == 3 and s.name == "plain" and not s.c
    assert add.__name__ == "add" and add.__doc__ == "Adds."
    assert sections_mod.active_tracer() is None


def test_section_name_must_be_a_string():
    with pytest.raises(TypeError, match="non-empty string"):
        section("")
    with pytest.raises(TypeError, match="non-empty string"):
        section(None)  # type: ignore[arg-type]


def test_section_times_wait_run_and_switches(impl):
    cpu_inside = []

    def job():
        with section("fetch"):
            gevent.sleep(0.03)
            gevent.sleep(0.03)
        with section("parse"):
            cpu = time.thread_time()
            spin()
            cpu_inside.append(time.thread_time() - cpu)

    with Tracer() as tracer:
        gevent.joinall([gevent.spawn(job) for _ in range(2)])
    p = tracer.profile
    fetch, parse = p.section_named("fetch"), p.section_named("parse")
    assert fetch.calls == 2 and parse.calls == 2
    assert fetch.switches == 4 and parse.switches == 0
    assert fetch.wait_s >= 0.1 and fetch.wall_s >= fetch.wait_s
    assert fetch.run_s < fetch.wait_s
    assert parse.wait_s == 0.0 and parse.cpu_s is not None
    # the CPU measured inside both sections lies inside the tracer's readings (exact);
    # no upper bound by a few ms: see tests/clocks.py
    assert sum(cpu_inside) <= parse.cpu_s and cpu_fits_in_wall(parse.cpu_s, parse.run_s)
    assert parse.wall_s == pytest.approx(parse.run_s, abs=1e-6)  # it never switched out
    assert not fetch.c and not parse.c


def test_nested_sections_and_timeline_labels(impl):
    def job():
        with section("outer"):
            gevent.sleep(0.01)
            with section("inner"):
                gevent.sleep(0.01)
            spin(1000)

    with Tracer() as tracer:
        gevent.spawn(job).join()
    p = tracer.profile
    outer, inner = p.section_named("outer"), p.section_named("inner")
    assert outer.switches == 2 and inner.switches == 1
    assert outer.wall_s >= inner.wall_s and outer.wait_s >= inner.wait_s
    labels = [s.section for s in p.slices]
    assert "inner" in labels and "outer" in labels  # innermost open section is current


def test_decorator_and_recursion_count_time_once(impl):
    @section("walk")
    def walk(depth):
        gevent.sleep(0.01)
        return 1 if depth == 0 else 1 + walk(depth - 1)

    with Tracer() as tracer:
        before = time.perf_counter()
        assert gevent.spawn(walk, 2).get() == 3
        outside = time.perf_counter() - before
    s = tracer.profile.section_named("walk")
    assert s.calls == 3
    assert s.switches == 3  # not 3 + 2 + 1
    # three 10 ms sleeps, counted once (not 30 + 20 + 10 ms); the greenlet's whole life,
    # timed around it, is the upper bound, whatever the load
    assert 0.025 < s.wall_s <= outside
    assert s.wall_s == pytest.approx(s.run_s + s.wait_s, rel=1e-9, abs=1e-9)


def test_out_of_order_exits_and_a_reset_inside_a_section(impl):
    """A generator holds a section open across another one and closes it out of order;
    an exit with no enter is ignored; a section open across reset() counts nowhere."""
    def gen():
        with section("held"):
            yield 1
            yield 2

    with Tracer() as tracer:
        held = gen()
        next(held)
        with section("inner", c=True):
            next(held)
            held.close()  # "held" exits first, from under "inner"
            assert [o.name for o in tracer._st.cur.open] == ["inner"]
            assert tracer._st.cur.c_depth == 1
        assert tracer._st.cur.open == [] and tracer._st.cur.c_depth == 0
        section("never entered").__exit__(None, None, None)
        p = tracer.snapshot()
        assert p.section_named("held").calls == 1 and p.section_named("inner").calls == 1
        across = section("across the reset")
        across.__enter__()
        tracer.reset()
        across.__exit__(None, None, None)  # entered in the forgotten run
        with section("after"):
            gevent.sleep(0)
    p = tracer.profile
    assert p.section_named("across the reset") is None
    assert p.section_named("never entered") is None
    assert p.section_named("after").calls == 1 and p.trace_errors == 0


def test_one_section_object_shared_by_greenlets(impl):
    shared = section("shared")

    def job(pause):
        with shared:
            gevent.sleep(pause)

    with Tracer() as tracer:
        gevent.joinall([gevent.spawn(job, 0.02), gevent.spawn(job, 0.01)])
    s = tracer.profile.section_named("shared")
    assert s.calls == 2 and s.switches == 2 and s.wait_s >= 0.025


def test_c_section_that_yields_is_recorded(impl):
    def job():
        with section("pretend parser", c=True):
            gevent.sleep(0.02)

    with Tracer() as tracer:
        gevent.spawn(job).join()
    p = tracer.profile
    assert p.section_named("pretend parser").c
    events = [e for e in p.events if e["kind"] == "c-section-switch"]
    assert len(events) == 1 and events[0]["count"] == 1 and events[0]["wait_s"] >= 0.015
    finding = next(f for f in p.findings if f.kind == "blocked-read-in-c-section")
    assert finding.section == "pretend parser" and finding.cost_s >= 0.015


def test_auto_sections_wrap_while_tracing_and_restore(impl):
    originals = (json.loads, ujson.loads, lxml.etree.fromstring, lxml.etree.parse, ET.XML)
    with Tracer() as tracer:
        assert json.loads is not originals[0]
        assert json.loads.__wrapped__ is originals[0]
        json.loads("[1, 2]")
        ujson.loads("[1]")
        assert lxml.etree.fromstring(b"<a><b/></a>").tag == "a"
        assert lxml.etree.parse(io.BytesIO(b"<a/>")).getroot().tag == "a"
        assert ET.XML("<x/>").tag == "x"
    assert (json.loads, ujson.loads, lxml.etree.fromstring, lxml.etree.parse, ET.XML) \
        == originals
    p = tracer.profile
    for name in ("json.loads", "ujson.loads", "lxml.etree.fromstring", "lxml.etree.parse",
                 "xml.etree.ElementTree.XML"):
        s = p.section_named(name)
        assert s is not None and s.c and s.calls >= 1, name


def test_auto_sections_restored_after_an_exception(impl):
    originals = (json.loads, lxml.etree.parse, lxml.etree.iterparse)
    with pytest.raises(ZeroDivisionError):
        with Tracer():
            assert lxml.etree.parse is not originals[1]
            raise ZeroDivisionError("the traced program failed")
    assert (json.loads, lxml.etree.parse, lxml.etree.iterparse) == originals
    assert sections_mod.active_tracer() is None


def test_early_bound_reference_is_not_seen(impl):
    """The documented limitation: only attribute look-ups at call time are wrapped."""
    loads = json.loads
    with Tracer() as tracer:
        loads("[]")
    assert tracer.profile.section_named("json.loads") is None


def test_sections_none_and_explicit_list(impl):
    original = json.loads
    with Tracer(sections=None) as tracer:
        assert json.loads is original
        json.loads("[]")
    assert tracer.profile.sections == []
    with Tracer(sections=["json.dumps"]) as tracer:
        assert json.loads is original and json.dumps.__wrapped__ is not None
        json.dumps([1])
    assert [s.name for s in tracer.profile.sections] == ["json.dumps"]


def test_unknown_dotted_name_is_refused_and_nothing_is_left_wrapped(impl):
    original = json.dumps
    with pytest.raises(ValueError, match="no_such_function"):
        Tracer(sections=["json.dumps", "json.no_such_function"]).start()
    assert json.dumps is original
    assert sections_mod.active_tracer() is None


def test_iterparse_steps_are_c_sections(impl):
    data = b"<root>" + b"<item/>" * 5 + b"</root>"
    with Tracer() as tracer:
        events = [(ev, el.tag) for ev, el in lxml.etree.iterparse(io.BytesIO(data))]
    assert events[-1] == ("end", "root") and len(events) == 6
    s = tracer.profile.section_named("lxml.etree.iterparse")
    assert s.calls >= 6


def test_lxml_guard_parses_file_objects_normally(impl):
    with Tracer(sections=None, lxml_guard=True) as tracer:
        assert lxml.etree.parse is not lxml.etree.parse.__wrapped__
        tree = lxml.etree.parse(io.BytesIO(b"<a><b/></a>"))
        explicit = lxml.etree.parse(io.BytesIO(b"<c/>"), lxml.etree.XMLParser())
    assert tree.getroot()[0].tag == "b" and explicit.getroot().tag == "c"
    assert tracer.profile.section_named("lxml.etree.parse").calls == 2
