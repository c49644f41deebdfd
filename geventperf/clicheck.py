"""Checks the ``geventperf`` command makes before it starts anything: an output file
it could not write, an HTML report passed where a profile belongs; and how it names
the command that was run.  Input errors raise :class:`UsageError` (one line, exit 2).
"""

from __future__ import annotations

import os

PROG = "geventperf"
# Marks the re-executed `run` (see cli._reexec_patched): not typed by the user.
PATCHED_FLAG = "--gevent-patched-first"


class UsageError(Exception):
    """Bad input from the user: reported on one line, exit code 2."""


def typed_command(tokens: list[str]) -> str:
    """``geventperf run -o run.html worker.py --flag``, as the user typed it (quoted
    for a POSIX shell where needed; our internal re-exec flag left out)."""
    import shlex
    return " ".join([PROG, "run"] + [shlex.quote(t) for t in tokens if t != PATCHED_FLAG])


def utc_now() -> str:
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_writable(path: str) -> None:
    """Refuse, before the program runs, an output the profile could not be written to:
    a missing or unwritable directory, a directory in the file's place, a read-only
    file.  A long run must not end by losing its profile to a typo."""
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise UsageError(f"cannot write the profile to {path}: it is a directory")
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write the profile to {path}: the directory {folder} "
                         "does not exist")
    if os.path.exists(target):
        if not os.access(target, os.W_OK):
            raise UsageError(f"cannot write the profile to {path}: the file is not writable")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write the profile to {path}: the directory {folder} is "
                         "not writable")


# Rendered reports start with one of these (after white space); a profile is JSON.
_HTML_STARTS = (b"<!doctype html", b"<html")
# How much of a file is read to tell an HTML report from a profile.
_SNIFF_BYTES = 512


def refuse_rendered_report(path: str) -> None:
    """An HTML report is for a browser; `report` needs the JSON profile.  Say so, and
    name the JSON beside it when there is one (the demo and `run -o x.json` write it)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES).lstrip().lower()
    except OSError:
        return  # Profile.load reports the error, naming the file
    if not head.startswith(_HTML_STARTS):
        return
    beside = os.path.splitext(path)[0] + ".json"
    hint = (f"pass the JSON profile beside it: geventperf report {beside}"
            if os.path.isfile(beside) else
            "pass the JSON profile it was made from (geventperf run -o run.json ..., or "
            "the .json the demo writes beside each .html)")
    raise UsageError(f"{path} is an HTML report (open it in a browser), not a profile; {hint}")
