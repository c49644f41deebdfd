"""A cheap start: ``Tracer.start()`` imports nothing the program has not imported, wraps
what is loaded, and wraps later imports when they happen (geventperf.lazywrap).

What start() costs in time is measured, not tested (no timing thresholds here): see
the README's tracer section for the command and figures.  Module imports are what make
a start slow (urllib3, ssl, lxml: ~100 ms), so the tests pin that none happens.

Most checks run in a fresh interpreter: this test process has lxml, urllib3 and
friends imported already.  The in-process ones use a module written to a temporary
directory, imported for the first time while tracing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
import warnings

import pytest

from geventperf import Tracer, lazywrap
from geventperf import sections as sections_mod

# Modules the tracer wraps (or once imported to wrap) that a bare gevent program does
# not import; none may appear in sys.modules because of the tracer.
WRAPPED_LIBRARIES = ("lxml", "lxml.etree", "ujson", "orjson", "urllib3", "urllib3.response",
                     "ssl", "xml.etree.ElementTree", "gevent.threadpool", "requests")


def run_python(code: str) -> dict:
    """Run *code* in a fresh interpreter; it prints one JSON line last."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_start_and_stop_import_nothing_the_program_did_not():
    out = run_python("""
        import json, sys
        import gevent, geventperf
        meta_path = list(sys.meta_path)
        before = set(sys.modules)
        tracer = geventperf.Tracer()
        tracer.start()
        at_start = sorted(set(sys.modules) - before)
        hooked = any(type(f).__module__ == "geventperf.lazywrap" for f in sys.meta_path)
        gevent.sleep(0)
        tracer.stop()
        after_stop = sorted(set(sys.modules) - before)
        print(json.dumps({"at_start": at_start, "after_stop": after_stop, "hooked": hooked,
                          "meta_path_restored": sys.meta_path == meta_path}))
    """)
    assert out["at_start"] == []
    assert not set(WRAPPED_LIBRARIES) & set(out["after_stop"]), out["after_stop"]
    assert out["hooked"] and out["meta_path_restored"]


def test_libraries_imported_while_tracing_are_wrapped_and_restored():
    out = run_python("""
        import io, json, sys
        import gevent, geventperf
        meta_path = list(sys.meta_path)
        with geventperf.Tracer() as tracer:
            import lxml.etree
            from lxml.etree import fromstring          # after start: gets the wrapper
            import urllib3.response
            import xml.etree.ElementTree as ET
            wrapped = {
                "parse": hasattr(lxml.etree.parse, "__geventperf_wrapped__"),
                "fromstring": hasattr(fromstring, "__geventperf_wrapped__"),
                "read": hasattr(urllib3.response.HTTPResponse.read, "__geventperf_wrapped__"),
                "ET.XML": hasattr(ET.XML, "__geventperf_wrapped__"),
            }
            # the modules keep their real loaders, as without the tracer
            loaders = [type(m.__loader__).__name__ + "/" + type(m.__spec__.loader).__name__
                       for m in (lxml.etree, urllib3.response, ET)]
            fromstring(b"<a/>")
            lxml.etree.parse(io.BytesIO(b"<b/>"))
            ET.XML("<c/>")
        restored = {
            "parse": not hasattr(lxml.etree.parse, "__geventperf_wrapped__"),
            "read": not hasattr(urllib3.response.HTTPResponse.read, "__geventperf_wrapped__"),
            "ET.XML": not hasattr(ET.XML, "__geventperf_wrapped__"),
        }
        calls = {s.name: s.calls for s in tracer.profile.sections}
        print(json.dumps({"wrapped": wrapped, "restored": restored, "loaders": loaders,
                          "calls": calls, "meta_path_restored": sys.meta_path == meta_path}))
    """)
    assert all(out["wrapped"].values()), out["wrapped"]
    assert all(out["restored"].values()), out["restored"]
    assert out["loaders"] == ["ExtensionFileLoader/ExtensionFileLoader",
                              "SourceFileLoader/SourceFileLoader",
                              "SourceFileLoader/SourceFileLoader"]
    assert out["calls"]["lxml.etree.fromstring"] == 1
    assert out["calls"]["lxml.etree.parse"] == 1
    assert out["calls"]["xml.etree.ElementTree.XML"] == 1
    assert out["meta_path_restored"]


def test_imports_after_stop_are_left_alone():
    out = run_python("""
        import json, sys
        import gevent, geventperf
        geventperf.Tracer().start().stop()
        import lxml.etree
        hooked = any(type(f).__module__ == "geventperf.lazywrap" for f in sys.meta_path)
        print(json.dumps({"wrapped": hasattr(lxml.etree.parse, "__geventperf_wrapped__"),
                          "hooked": hooked}))
    """)
    assert out == {"wrapped": False, "hooked": False}


@pytest.fixture
def fresh_module(tmp_path, monkeypatch):
    """The name of a module never imported before, with ``loads`` and ``Parser.feed``."""
    name = f"gp_fresh_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent("""
        def loads(text):
            return len(text)

        class Parser:
            def feed(self, data):
                return data
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_strict_name_of_a_module_imported_later_is_wrapped_at_its_import(fresh_module):
    names = [f"{fresh_module}.loads", f"{fresh_module}.Parser.feed"]
    with Tracer(sections=names) as tracer:
        assert fresh_module not in sys.modules  # start() did not import it
        module = __import__(fresh_module)
        from_import = module.loads
        assert from_import.__geventperf_wrapped__ is not None
        assert module.loads("abc") == 3
        assert module.Parser().feed(b"x") == b"x"
    assert not hasattr(module.loads, "__geventperf_wrapped__")
    assert not hasattr(module.Parser.feed, "__geventperf_wrapped__")
    assert from_import("ab") == 2  # a reference taken while tracing still works
    calls = {s.name: s.calls for s in tracer.profile.sections}
    assert calls == {names[0]: 1, names[1]: 1}


def test_strict_names_that_cannot_exist_are_refused_at_start(fresh_module):
    with pytest.raises(ValueError, match="no importable module"):
        Tracer(sections=["gp_no_such_module_anywhere.loads"]).start()
    with pytest.raises(ValueError, match="no_such_function"):  # json is loaded
        Tracer(sections=["json.no_such_function"]).start()
    assert sections_mod.active_tracer() is None
    assert not any(f is lazywrap._finder for f in sys.meta_path)


def test_strict_typo_in_a_module_imported_later_warns_at_its_import(fresh_module):
    with Tracer(sections=[f"{fresh_module}.no_such_function"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = __import__(fresh_module)  # the import itself works
    assert module.loads("x") == 1
    assert [str(w.message) for w in caught if "no_such_function" in str(w.message)]


def test_an_error_of_ours_does_not_break_the_import(fresh_module):
    def make(dotted, original):
        if dotted.endswith(".loads"):
            raise RuntimeError("the wrapper factory failed")

        def wrapper(*args):
            return original(*args)
        return wrapper

    errors = lazywrap.hook_errors
    patches = lazywrap.wrap_when_loaded([f"{fresh_module}.loads",
                                         f"{fresh_module}.Parser.feed"], make)
    try:
        module = __import__(fresh_module)
        assert module.loads("ab") == 2 and module.loads.__name__ == "loads"
        assert module.Parser.feed.__name__ == "wrapper"  # the other name still wrapped
    finally:
        for patch in reversed(patches):
            patch.restore()
    assert lazywrap.hook_errors == errors + 1
    assert not any(f is lazywrap._finder for f in sys.meta_path)


def test_a_failing_import_fails_as_without_the_tracer(tmp_path, monkeypatch):
    name = f"gp_broken_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text("raise ImportError('the module is broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with Tracer(sections=[f"{name}.loads"]):
        with pytest.raises(ImportError, match="the module is broken"):
            __import__(name)
    assert name not in sys.modules


def test_two_watches_share_one_hook(fresh_module):
    def make(dotted, original):
        def wrapper(*args):
            return original(*args)
        return wrapper

    first = lazywrap.wrap_when_loaded([f"{fresh_module}.loads"], make)
    second = lazywrap.wrap_when_loaded([f"{fresh_module}.Parser.feed"], make)
    assert sum(f is lazywrap._finder for f in sys.meta_path) == 1
    module = __import__(fresh_module)
    assert module.loads.__name__ == "wrapper" and module.Parser.feed.__name__ == "wrapper"
    first[-1].restore()
    assert module.loads.__name__ == "loads" and module.Parser.feed.__name__ == "wrapper"
    second[-1].restore()
    assert module.Parser.feed.__name__ == "feed"
    assert not any(f is lazywrap._finder for f in sys.meta_path)
