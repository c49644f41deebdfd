"""Stack entries and the small display helpers every format shares.

A stack entry in a Profile reads ``path:line:function`` (innermost frame first).  The
path may itself hold colons (``C:\\...`` on Windows, ``<frozen importlib._bootstrap>``),
so an entry is split from the right; anything that does not parse is kept whole as the
function name so no input can make a renderer fail.
"""

from __future__ import annotations

import os
import re
import sysconfig

from geventperf.frames import is_own_frame, parse_frame

# The synthetic frame that stands for "waiting on the gevent hub".  pstats knows the
# ("~", 0, "<name>") shape as a built-in and shows it as {hub wait}.
HUB_WAIT_NAME = "<hub wait>"
# The two parts of a wait when the tracer split it: the awaited event had not happened
# (I/O, timer, lock), and it had but others held the loop (queued, ready to run).
EVENT_WAIT_NAME = "<event wait>"
READY_WAIT_NAME = "<ready wait>"


def wait_parts(item) -> list[tuple[str, float]]:
    """(pseudo-frame, seconds) of a StackTime's wait: ``<event wait>`` and ``<ready
    wait>`` when split (any remainder stays ``<hub wait>``), else one ``<hub wait>``."""
    event, ready = getattr(item, "event_wait_s", None), getattr(item, "ready_wait_s", None)
    total = max(float(item.wait_s or 0.0), 0.0)
    if not isinstance(event, (int, float)) or not isinstance(ready, (int, float)):
        return [(HUB_WAIT_NAME, total)]
    event, ready = max(float(event), 0.0), max(float(ready), 0.0)
    parts = [(EVENT_WAIT_NAME, event), (READY_WAIT_NAME, ready)]
    rest = total - event - ready
    if rest > 1e-9 * max(total, 1.0):
        parts.append((HUB_WAIT_NAME, rest))
    return parts

# Paths longer than this (in characters) are cut to their last components in reports.
MAX_PATH_CHARS = 48
# How many trailing path components survive when a long, unrecognised path is cut.
KEPT_PATH_PARTS = 3


def _library_roots() -> list[tuple[str, str]]:
    """(prefix, replacement) pairs, longest prefix first, for paths we can name briefly."""
    roots: list[tuple[str, str]] = []
    for key in ("purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.append((path.rstrip(os.sep) + os.sep, "site-packages/"))
    stdlib = sysconfig.get_paths().get("stdlib")
    if stdlib:
        roots.append((stdlib.rstrip(os.sep) + os.sep, "<stdlib>/"))
    return sorted(set(roots), key=lambda pair: -len(pair[0]))


_ROOTS = _library_roots()
# Markers that identify installed packages even in profiles made on another machine.
_PACKAGE_MARKERS = ("site-packages" + os.sep, "dist-packages" + os.sep,
                    "site-packages/", "dist-packages/")


def short_path(path: str) -> str:
    """A path a person can read in a 100-column report: installed packages become
    ``site-packages/pkg/mod.py``, the standard library ``<stdlib>/mod.py``, files under
    the current directory relative ones, and other long paths keep their last parts."""
    if not path or path.startswith("<"):
        return path
    for marker in _PACKAGE_MARKERS:
        index = path.rfind(marker)
        if index >= 0:
            return "site-packages/" + path[index + len(marker):].replace(os.sep, "/")
    for prefix, replacement in _ROOTS:
        if path.startswith(prefix):
            return replacement + path[len(prefix):]
    try:
        cwd = os.getcwd() + os.sep
    except OSError:  # the working directory was removed under us
        cwd = ""
    if cwd and path.startswith(cwd):
        path = path[len(cwd):]
    if len(path) > MAX_PATH_CHARS:
        parts = path.replace("\\", "/").split("/")
        if len(parts) > KEPT_PATH_PARTS:
            path = ".../" + "/".join(parts[-KEPT_PATH_PARTS:])
    return path


# geventperf's own frames (the CLI running a script) are not the user's code either.
_OWN_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


# The standard library's directory as CPython lays it out on POSIX (lib/python3.11/)
# and Windows (Lib/): a profile made on another machine names its own stdlib there.
_STDLIB_DIR = re.compile(r"[/\\](lib[/\\]python\d+\.\d+|Lib)[/\\]")


def is_library_frame(entry: str) -> bool:
    """True for frames of installed packages, the standard library, geventperf itself
    and frozen or generated code, here or on the machine that made the profile: not
    where a user would look for their own call."""
    path = parse_frame(entry).path
    return not path or path.startswith(("<", _OWN_PACKAGE)) or is_own_frame(entry) \
        or short_path(path).startswith(("site-packages/", "<stdlib>/")) \
        or _STDLIB_DIR.search(path) is not None


def call_site(stack: list[str]) -> str:
    """Where a wait happened, the user's own line first:
    ``fetch (worker.py:12)  -> ... ->  recv (site-packages/gevent/_socket3.py:50)``.
    The innermost frame of a wait is nearly always gevent's; the user's line is what
    they can change, so it leads (and survives when a narrow column cuts the rest)."""
    if not stack:
        return "<unknown stack>"
    innermost = frame_label(stack[0])
    if not is_library_frame(stack[0]):
        return innermost
    for depth, entry in enumerate(stack[1:], start=1):
        if not is_library_frame(entry):
            return frame_label(entry) + ("  ->  " if depth == 1 else "  -> ... ->  ") + innermost
    return innermost


def frame_label(entry: str) -> str:
    """``function (short/path.py:123)``: the function first, because that is what a
    reader scans for."""
    frame = parse_frame(entry)
    if not frame.path:
        return frame.function
    return f"{frame.function} ({short_path(frame.path)}:{frame.line})"


def format_seconds(seconds: float | None) -> str:
    """Seconds with a unit that keeps three significant digits: 1.23 s, 45.6 ms, 789 us.

    ASCII ``us`` rather than a micro sign: the report goes to terminals and CI logs
    whose encoding we do not control."""
    if seconds is None:
        return "-"
    magnitude = abs(seconds)
    if magnitude >= 100:
        return f"{seconds:.0f} s"
    if magnitude >= 1:
        return f"{seconds:.2f} s"
    if magnitude >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    if magnitude == 0:
        return "0 s"
    return f"{seconds * 1e6:.0f} us"


def format_bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(count) < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"  # unreachable; keeps type checkers content


# Control characters (newlines, tabs, escapes) in names would break lines and tables.
_FLATTEN = {code: " " for code in list(range(32)) + [127]}


def clip(text: str, width: int) -> str:
    """*text* cut to *width* characters, ending in ``...`` when cut; newlines and tabs
    from hostile names are flattened so they cannot break a table."""
    text = text.translate(_FLATTEN)
    if len(text) <= width:
        return text
    return text[:max(width - 3, 0)] + "..." if width > 3 else text[:width]


def hub_ids(profile) -> set[int]:
    """The hub's greenlet id; a merged profile has one hub per source ("ids")."""
    ids = {profile.hub.get("id")}
    extra = profile.hub.get("ids")
    if isinstance(extra, list):
        ids.update(extra)
    return {i for i in ids if isinstance(i, int)}


def clip_left(text: str, width: int) -> str:
    """*text* cut from the left: for dotted greenlet names the tail (the function) is
    what tells two apart, ``gevent.baseserver._handle...`` would not."""
    text = text.translate(_FLATTEN)
    if len(text) <= width:
        return text
    return "..." + text[len(text) - max(width - 3, 0):] if width > 3 else text[-width:]


def display_name(name: str) -> str:
    """A greenlet name for reports: ``pkg.mod.run.<locals>.job`` -> ``pkg.mod.run.job``
    (the ``<locals>`` parts of a qualified name cost width and say nothing)."""
    return name.replace(".<locals>", "")


def greenlet_names(profile) -> dict[int, str]:
    """Greenlet id -> display name, the hub included."""
    names = {g.id: display_name(g.name) if g.name else f"greenlet-{g.id}"
             for g in profile.greenlets}
    for hub_id in hub_ids(profile):
        names.setdefault(hub_id, "hub")
    return names

