"""``geventperf report``: render saved JSON profiles (several are merged) in any
format, to stdout or a file.  Input errors raise :class:`~geventperf.clicheck.UsageError`.
"""

from __future__ import annotations

import argparse
import os
import sys

from geventperf.clicheck import PROG, UsageError, check_writable, refuse_rendered_report


def report(options: argparse.Namespace) -> int:
    from geventperf.formats import format_for_path
    from geventperf.profile import Profile, ProfileError
    for path in options.files:
        refuse_rendered_report(path)
    if options.output is not None:
        try:
            format_for_path(options.output) if options.format is None else None
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        check_writable(options.output)
    try:
        profiles = [Profile.load(path) for path in options.files]
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    profile = profiles[0] if len(profiles) == 1 else _merge(profiles)
    if options.output is not None:
        try:
            fmt = options.format or format_for_path(options.output)
            profile.write(options.output, fmt)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"cannot write {options.output}: {exc.strerror or exc}") from None
        print(f"{PROG}: wrote the {fmt} report to {options.output}", file=sys.stderr)
        return 0
    output = profile.render(options.format or "text")
    try:
        if isinstance(output, bytes):
            if sys.stdout.isatty():
                raise UsageError(f"the {options.format} format is binary; write it to a "
                                 "file with -o FILE")
            sys.stdout.flush()
            sys.stdout.buffer.write(output)
        else:
            sys.stdout.write(output)
        sys.stdout.flush()
    except BrokenPipeError:  # `geventperf report x.json | head`: the reader had enough
        _silence_stdout()
    return 0


def _merge(profiles: list) -> object:
    from geventperf import profile as profile_module
    merge = getattr(profile_module.Profile, "merge", None) or \
        getattr(profile_module, "merge_profiles", None)
    if merge is None:
        raise UsageError("this geventperf cannot merge profiles; report one file at a time")
    return merge(profiles)


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush does
    not print a second error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
