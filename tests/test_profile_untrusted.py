"""Untrusted profile files: Profile.load / Profile.loads and `geventperf report FILE`.

Whatever the bytes (truncated, huge, deeply nested, of another schema, with wrong
types, NaN/Infinity, non-UTF-8, hostile numbers and strings, a pickle), loading either
gives a Profile that saves, reloads and renders in every format, or fails with
ProfileError naming the problem; the command prints that one line and exits 2.  Time
and memory stay bounded (the nesting and size limits, the number range); no timing
thresholds are asserted.  Nothing is ever executed: load reads JSON only.
"""

from __future__ import annotations

import ast
import collections
import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geventperf.profile as profile_module
from geventperf import FORMATS
from geventperf.profile import MAX_PROFILE_BYTES, MAX_PROFILE_NUMBER, Profile, ProfileError
from tests.profile_factory import small_profile

EXAMPLES = int(os.environ.get("GEVENTPERF_FUZZ_EXAMPLES") or 0) or 200
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CASES: collections.Counter[str] = collections.Counter()

VALID = small_profile().to_dict()
VALID_JSON = json.dumps(VALID)


def load_error(raw: bytes | str) -> str:
    """The ProfileError message loading *raw* gives (fails if it loads)."""
    with pytest.raises(ProfileError) as info:
        Profile.loads(raw)
    return str(info.value)


def with_value(path: tuple, value) -> str:
    data = copy.deepcopy(VALID)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(data)


def usable(profile: Profile) -> None:
    """A loaded profile is fully usable: it saves and reloads unchanged and renders in
    every format."""
    again = Profile.loads(json.dumps(profile.to_dict(), allow_nan=False))
    assert again.to_dict() == profile.to_dict()
    for fmt in FORMATS:
        out = profile.render(fmt)
        if isinstance(out, str):
            out.encode("utf-8")   # the text report goes to a UTF-8 stdout


# -- truncated ---------------------------------------------------------------------------

def test_every_truncation_is_a_profile_error():
    raw = VALID_JSON.encode()
    for cut in range(len(raw)):
        message = load_error(raw[:cut])
        assert "not valid JSON" in message, (cut, message)
        CASES["truncations (every position)"] += 1
    usable(Profile.loads(raw))


# -- huge -----------------------------------------------------------------------------------

def test_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.truncate(MAX_PROFILE_BYTES + 1)   # sparse: no 256 MiB written or read
    with pytest.raises(ProfileError, match=f"{MAX_PROFILE_BYTES + 1} bytes.*limit"):
        Profile.load(path)


def test_unsized_file_is_read_only_up_to_the_limit():
    # Bug: Profile.load read the whole file when os.path.getsize said 0: a FIFO or
    # /dev/zero ("geventperf report /dev/zero") read forever.  Fixed: load reads at
    # most MAX_PROFILE_BYTES + 1 bytes.  A subprocess with a lowered limit and a
    # bounded address space fails fast if the read is unbounded.
    script = textwrap.dedent("""
        import resource, sys
        import geventperf.profile as p
        p.MAX_PROFILE_BYTES = 1 << 20
        resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))
        try:
            p.Profile.load("/dev/zero")
        except p.ProfileError as exc:
            print("ProfileError:", exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "ProfileError: /dev/zero: more than 1048576 bytes" in out.stdout


def test_unreadable_paths(tmp_path):
    with pytest.raises(ProfileError, match="cannot read profile"):
        Profile.load(tmp_path / "missing.json")
    with pytest.raises(ProfileError, match="cannot read profile"):
        Profile.load(tmp_path)   # a directory


# -- deeply nested -------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000 + "1" + "}" * 100_000,
    "[" * 100_000,                                    # and truncated
    VALID_JSON[:-1] + ', "meta": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}",
], ids=["lists", "objects", "unclosed", "inside-meta"])
def test_deep_nesting_is_a_profile_error(raw):
    message = load_error(raw)
    # refused before the parser recurses, truncated or not
    assert "nested too deeply" in message


# -- schema and types ---------------------------------------------------------------------

@pytest.mark.parametrize("raw,words", [
    (with_value(("geventperf_schema",), 2), "unsupported geventperf profile schema 2"),
    (with_value(("geventperf_schema",), "1"), "unsupported geventperf profile schema '1'"),
    (with_value(("geventperf_schema",), None), "no 'geventperf_schema'"),
    (json.dumps({k: v for k, v in VALID.items() if k != "geventperf_schema"}),
     "no 'geventperf_schema'"),
    ("[1, 2]", "top level is list"),
    ('"profile"', "top level is str"),
    ("3", "top level is int"),
    ("null", "top level is NoneType"),
])
def test_other_schemas_and_shapes(raw, words):
    assert words in load_error(raw)


@pytest.mark.parametrize("version", [True, 1.0])
def test_schema_version_must_be_the_integer_1(version):
    # Bug: true == 1.0 == 1 in Python, so both passed as schema 1.  Fixed in
    # Profile.from_dict: the version must be an int.
    assert "unsupported geventperf profile schema" in \
        load_error(with_value(("geventperf_schema",), version))


@pytest.mark.parametrize("path,value,words", [
    (("meta",), [1], "field 'meta' must be an object"),
    (("findings", 0, "section"), 5, "field 'section' must be a string"),
])
def test_optional_fields_of_the_wrong_type_are_refused(path, value, words):
    # Bug: a wrong-typed "meta" became {} and a finding's non-string "section" became
    # null, silently.  Fixed in Profile.from_dict / Finding.from_dict.
    assert words in load_error(with_value(path, value))


# The fields Profile.from_dict requires, and the JSON type each must have.
NUMBER, INT, STR, LIST, BOOL = "number", "int", "str", "list", "bool"
REQUIRED = {
    (): {"duration_s": NUMBER, "switches": INT, "greenlets": LIST, "sections": LIST,
         "waits": LIST, "findings": LIST},
    ("greenlets",): {"id": INT, "name": STR, "run_s": NUMBER, "wait_s": NUMBER,
                     "switches": INT, "longest_run_s": NUMBER},
    ("sections",): {"name": STR, "c": BOOL, "calls": INT, "wall_s": NUMBER,
                    "run_s": NUMBER, "wait_s": NUMBER, "switches": INT},
    ("waits",): {"stack": LIST, "count": INT},
    ("findings",): {"kind": STR, "message": STR},
}


def fits(value, kind: str) -> bool:
    if kind == NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, {"str": str, "list": list, "bool": bool}[kind])


def required_kind(path: tuple) -> str | None:
    """The JSON type the field at *path* must have, if from_dict requires it."""
    parent = tuple(k for k in path[:-1] if not isinstance(k, int))
    if path and isinstance(path[-1], str) and (not path[:-1] or isinstance(path[-2], int)):
        return REQUIRED.get(parent, {}).get(path[-1])
    return None


def all_paths(obj, prefix=()):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield prefix + (key,)
            yield from all_paths(value, prefix + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield prefix + (i,)
            yield from all_paths(value, prefix + (i,))


PATHS = [p for p in all_paths(VALID) if p != ("geventperf_schema",)]

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(),
              st.integers(-MAX_PROFILE_NUMBER, MAX_PROFILE_NUMBER),
              st.floats(-1e18, 1e18, allow_nan=False), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10)


def same_type(value):
    """Another value of *value*'s JSON type: loads more often, and stresses the
    renderers with odd but well-typed data (negative times, huge counts, odd names)."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(-MAX_PROFILE_NUMBER, MAX_PROFILE_NUMBER)
    if isinstance(value, float):
        return st.floats(-1e18, 1e18, allow_nan=False)
    if isinstance(value, str):
        return st.text(max_size=30)
    if isinstance(value, list):
        return st.lists(json_values, max_size=3)
    return json_values


@FUZZ
@given(data=st.data(), count=st.integers(1, 3))
def test_mutated_profiles_fail_cleanly_or_load_fully(data, count):
    """Delete keys and replace values with other JSON: a required field gone or of the
    wrong type is a ProfileError; anything that loads is fully usable."""
    CASES["mutated profiles (delete keys, other JSON types)"] += 1
    doc = copy.deepcopy(VALID)
    # path -> whether the value left there must be refused; a later mutation of a path
    # decides for it (and for whatever lay below it) anew: None set, then 0, is valid
    refused: dict[tuple, bool] = {}
    for _ in range(count):
        path = data.draw(st.sampled_from(PATHS))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            current = parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue   # an earlier mutation removed or replaced this path
        kind = required_kind(path)
        action = data.draw(st.sampled_from(["delete", "other", "same", "same"]))
        for below in [p for p in refused if p[:len(path)] == path]:
            del refused[below]
        if action == "delete":
            del parent[path[-1]]
            refused[path] = kind is not None and isinstance(path[-1], str)
        else:
            value = data.draw(json_values if action == "other" else same_type(current))
            parent[path[-1]] = value
            refused[path] = kind is not None and not fits(value, kind)
    must_fail = any(refused.values())
    raw = json.dumps(doc, allow_nan=False)
    try:
        profile = Profile.loads(raw)
    except ProfileError as exc:
        assert str(exc).startswith("<string>: ")
        CASES["mutated profiles: refused"] += 1
        return
    CASES["mutated profiles: loaded and rendered"] += 1
    assert not must_fail, "a missing or wrong-typed required field was accepted"
    usable(profile)


@FUZZ
@given(raw=st.one_of(st.binary(max_size=200),
                     st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
                     st.binary(max_size=40).map(lambda junk: VALID_JSON.encode()[:500] + junk)))
def test_arbitrary_bytes_fail_cleanly(raw):
    CASES["arbitrary bytes"] += 1
    with pytest.raises(ProfileError):
        Profile.loads(raw)


# -- NaN, Infinity, hostile numbers --------------------------------------------------------

@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("where", ["duration_s", "meta"])
def test_nan_and_infinity_are_refused(constant, where):
    raw = VALID_JSON.replace('"duration_s": ', f'"duration_s": {constant}, "x": ', 1) \
        if where == "duration_s" else VALID_JSON[:-1] + f', "meta": {{"x": [{constant}]}}}}'
    assert f"JSON constant {constant.lstrip('-')}" in load_error(raw) or \
        f"JSON constant {constant}" in load_error(raw)


@pytest.mark.parametrize("literal", ["1e999", "-1e999", "1e308", "-9.3e18"])
@pytest.mark.parametrize("where", ["duration_s", "meta", "finding-extra"])
def test_out_of_range_floats_are_refused(literal, where):
    # Bug: 1e999 parses to inf without parse_constant, so outside the checked fields
    # (meta, events, reads, finding extras) it loaded, and save()/the JSON formats then
    # failed; 1e308 in a checked field loaded and the HTML report crashed on it.
    # Fixed: Profile.loads parses floats through _parse_float (|x| <= 2**63).
    if where == "duration_s":
        raw = VALID_JSON.replace('"duration_s": ', f'"duration_s": {literal}, "x": ', 1)
    elif where == "meta":
        raw = VALID_JSON[:-1] + f', "meta": {{"x": {literal}}}}}'
    else:
        raw = VALID_JSON.replace('"kind": ', f'"z": {literal}, "kind": ', 1)
    assert f"number {literal}" in load_error(raw).replace("+", "")


@pytest.mark.parametrize("digits", [20, 4000, 10_000])
@pytest.mark.parametrize("field", ["duration_s", "switches"])
def test_huge_integer_literals_are_refused(digits, field):
    # Bug: a 4000-digit integer in a float field raised OverflowError out of load, in
    # an int field it loaded.  (Over 4300 digits int() itself refuses it.)  Fixed:
    # _parse_int bounds integers to |n| <= 2**63, checking the digit count first.
    raw = VALID_JSON.replace(f'"{field}": ', f'"{field}": {"9" * digits}, "x": ', 1)
    assert f"integer of {digits} digits" in load_error(raw)


def test_from_dict_maps_overflow_to_profile_error():
    # The same OverflowError through from_dict, given parsed data directly.
    data = copy.deepcopy(VALID)
    data["duration_s"] = 10 ** 400
    with pytest.raises(ProfileError, match="malformed geventperf profile"):
        Profile.from_dict(data)


def test_numbers_at_the_limit_load_and_render():
    data = copy.deepcopy(VALID)
    data["duration_s"] = float(MAX_PROFILE_NUMBER)
    data["switches"] = MAX_PROFILE_NUMBER
    data["greenlets"][0]["run_s"] = -float(MAX_PROFILE_NUMBER)
    usable(Profile.loads(json.dumps(data)))


# -- text encodings, hostile strings --------------------------------------------------------

@pytest.mark.parametrize("raw", [
    VALID_JSON.replace('"name": "', '"name": "\xff', 1).encode("latin-1", "replace"),
    b"\xff\xfe\x00\x00garbage",
    b'{"geventperf_schema": 1, "\xc3\x28": 1}',
    b"\x00" * 64,
], ids=["latin-1", "bom-garbage", "bad-utf8-key", "nul-bytes"])
def test_non_utf8_bytes_are_a_profile_error(raw):
    assert "not valid JSON" in load_error(raw)


def test_utf16_json_is_still_json():
    usable(Profile.loads(VALID_JSON.encode("utf-16")))


def test_lone_surrogates_are_refused():
    # Bug: "\ud800" loaded, and the text report then died on UnicodeEncodeError when
    # printed.  Fixed: Profile.loads refuses lone surrogates (_reject_lone_surrogates).
    raw = VALID_JSON.replace('"name": "', '"name": "\\ud800', 1)
    assert "lone UTF-16 surrogate" in load_error(raw)
    assert "lone UTF-16 surrogate" in load_error(raw.encode())
    assert "lone UTF-16 surrogate" in load_error(raw.encode("utf-16"))
    pair = VALID_JSON.replace('"name": "', '"name": "\\ud83d\\ude00', 1)   # a real emoji
    usable(Profile.loads(pair))


HOSTILE_STRING = "</script><script>alert(1)</script><!--"


def test_script_tags_in_names_load_and_stay_inert_in_html():
    # Hostile strings are valid text: they load unchanged; the HTML report escapes them.
    clean_html = Profile.loads(VALID_JSON).render("html")
    raw = with_value(("greenlets", 0, "name"), HOSTILE_STRING)
    raw = json.loads(raw)
    raw["sections"][0]["name"] = HOSTILE_STRING
    raw["findings"][0]["message"] = HOSTILE_STRING
    profile = Profile.loads(json.dumps(raw))
    assert profile.greenlets[0].name == HOSTILE_STRING
    usable(profile)
    html = profile.render("html")
    assert "<script>alert" not in html.lower()
    assert html.lower().count("</script>") == clean_html.lower().count("</script>")


# -- nothing is executed -----------------------------------------------------------------

class _Boom:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def test_pickle_is_not_json_and_never_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "run.json"
    path.write_bytes(pickle.dumps(_Boom()))
    with pytest.raises(ProfileError, match="not valid JSON"):
        Profile.load(path)
    path.write_bytes(pickle.dumps(VALID, protocol=0))   # protocol 0 is ASCII
    with pytest.raises(ProfileError, match="not valid JSON"):
        Profile.load(path)
    assert not (tmp_path / "PWNED").exists()


def test_load_uses_no_code_loading_modules():
    tree = ast.parse(open(profile_module.__file__, encoding="utf-8").read())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in node.names} | \
        {(node.module or "").split(".")[0] for node in ast.walk(tree)
         if isinstance(node, ast.ImportFrom)}
    assert not imported & {"pickle", "marshal", "shelve", "yaml", "dill", "cloudpickle"}
    calls = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not calls & {"eval", "exec", "compile", "__import__"}


# -- the command ---------------------------------------------------------------------------

CLI_CASES = {
    "truncated": VALID_JSON.encode()[:100],
    "nested": b"[" * 100_000 + b"]" * 100_000,
    "schema-2": with_value(("geventperf_schema",), 2).encode(),
    "wrong-type": with_value(("switches",), "many").encode(),
    "nan": VALID_JSON.replace('"duration_s": ', '"duration_s": NaN, "x": ', 1).encode(),
    "1e999": (VALID_JSON[:-1] + ', "meta": {"x": 1e999}}').encode(),
    "10000-digits": VALID_JSON.replace('"switches": ', '"switches": ' + "9" * 10_000 +
                                       ', "x": ', 1).encode(),
    "surrogate": VALID_JSON.replace('"name": "', '"name": "\\udfff', 1).encode(),
    "latin-1": b'{"geventperf_schema": 1, "x": "\xe9"}',
    "pickle": pickle.dumps(VALID),
}


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_report_command_refuses_untrusted_files_in_one_line(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_bytes(CLI_CASES[name])
    out = subprocess.run([sys.executable, "-m", "geventperf", "report", str(path)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    CASES["report command on hostile files"] += 1
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("geventperf: error: "), lines
    assert str(path) in lines[0]
    assert out.stdout == ""


def test_report_command_renders_hostile_but_valid_strings(tmp_path):
    raw = json.loads(with_value(("greenlets", 0, "name"), HOSTILE_STRING))
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(raw))
    out = subprocess.run([sys.executable, "-m", "geventperf", "report", str(path), "-o",
                          str(tmp_path / "r.html")], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "<script>alert" not in (tmp_path / "r.html").read_text(encoding="utf-8").lower()


def test_zz_cases_fuzzed(capsys):
    ran = {name: n for name, n in CASES.items() if n}
    for name in ("mutated profiles (delete keys, other JSON types)", "arbitrary bytes"):
        if name in ran:
            assert ran[name] >= EXAMPLES, (name, ran[name])
    summary = f"geventperf untrusted profiles: {sum(ran.values())} cases\n" + \
        "\n".join(f"  {n:6d}  {name}" for name, n in sorted(ran.items()))
    with capsys.disabled():   # shown without -s
        print("\n" + summary)
