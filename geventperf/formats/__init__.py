"""Output formats: one module per format, one registry used by Profile and the CLI.

Every format module exposes ``render(profile) -> str | bytes`` and reads nothing but
the Profile it is given.  Modules are imported on first use, so ``import geventperf``
does not pay for the HTML template or the pstats builder.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from geventperf.profile import Profile

# The order DESIGN.md lists them in: the report first, then data, then viewers.
FORMATS: tuple[str, ...] = ("text", "json", "pstats", "collapsed", "speedscope", "chrome",
                            "html")

_MODULES = {
    "text": "text",
    "json": "json_profile",
    "pstats": "pstats_dump",
    "collapsed": "collapsed",
    "speedscope": "speedscope",
    "chrome": "chrome",
    "html": "html_report",
    # Needs the optional protobuf package (geventperf[pprof]), so it is not in FORMATS,
    # the formats every install renders; check_format() and the CLI accept it.
    "pprof": "pprof",
}
OPTIONAL_FORMATS: tuple[str, ...] = ("pprof",)

# File name endings, most specific first: "x.speedscope.json" must not be taken for
# plain JSON.  Matched case-insensitively.
SUFFIXES: tuple[tuple[str, str], ...] = (
    (".speedscope.json", "speedscope"),
    (".pb.gz", "pprof"),
    (".pprof", "pprof"),
    (".trace.json", "chrome"),
    (".perfetto.json", "chrome"),
    (".json", "json"),
    (".txt", "text"),
    (".pstats", "pstats"),
    (".prof", "pstats"),
    (".collapsed", "collapsed"),
    (".folded", "collapsed"),
    (".html", "html"),
    (".htm", "html"),
)

__all__ = ["FORMATS", "OPTIONAL_FORMATS", "SUFFIXES", "check_format", "format_for_path", "formats_for_suffix",
           "render", "write"]


def check_format(fmt: str) -> str:
    """Return *fmt* if it names a known format, else raise ValueError naming them."""
    if fmt not in _MODULES:
        raise ValueError(f"unknown format {fmt!r}; known formats: "
                         f"{', '.join(FORMATS + OPTIONAL_FORMATS)}")
    return fmt


def formats_for_suffix(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The formats whose file name ending *path* has, most specific first:
    ``run.speedscope.json`` -> ``("speedscope", "json")``; ``()`` when none fits."""
    name = os.fspath(path).lower()
    found: list[str] = []
    for suffix, fmt in SUFFIXES:
        if name.endswith(suffix) and fmt not in found:
            found.append(fmt)
    return tuple(found)


def format_for_path(path: str | os.PathLike[str]) -> str:
    """The format to write *path* in, guessed from its suffix; ValueError if none fits."""
    found = formats_for_suffix(path)
    if not found:
        options = ", ".join(f"{suffix} ({fmt})" for suffix, fmt in SUFFIXES)
        raise ValueError(f"cannot tell the format from the file name {os.fspath(path)!r}; "
                         f"give a format explicitly or use one of: {options}")
    return found[0]


def render(profile: Profile, fmt: str = "text") -> str | bytes:
    """*profile* rendered in *fmt*: ``str`` for every format but pstats and pprof
    (``bytes``)."""
    module = importlib.import_module(f"{__name__}.{_MODULES[check_format(fmt)]}")
    return module.render(profile)


def write(profile: Profile, path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """Write *profile* to *path* (format from *fmt* or the suffix); return the format.

    The file is written whole or not at all: rendering happens before it is opened."""
    fmt = check_format(fmt) if fmt is not None else format_for_path(path)
    output = render(profile, fmt)
    data = output if isinstance(output, bytes) else output.encode("utf-8")
    with open(path, "wb") as fh:
        fh.write(data)
    return fmt
