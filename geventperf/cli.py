"""The ``geventperf`` command: run a program under the tracer, render saved profiles,
run the embedded demo.

``main(argv)`` returns the exit code.  Input errors (missing script, unknown format,
unreadable profile) are one line on stderr and exit code 2, as argparse does for bad
usage; the traced program's own exit code and exceptions pass through unchanged.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from typing import Sequence

from geventperf import clicheck
from geventperf.clicheck import (
    UsageError,
    check_writable,
    typed_command,
    utc_now,
)

PROG = "geventperf"
# argparse exits with 2 on bad usage; every other input error uses the same code.
EXIT_USAGE = 2
# What Python itself returns when a program dies of an uncaught exception.
EXIT_EXCEPTION = 1
# Shells report death by SIGINT as 128 + 2; Python's own Ctrl-C exit looks the same.
EXIT_INTERRUPTED = 130
# Marks the re-executed `run` (see _reexec_patched): gevent is patched, go straight on.
PATCHED_FLAG = clicheck.PATCHED_FLAG
# patch_all() must run before these are imported, or their "from ssl import SSLContext"
# keeps the blocking class (gevent warns, and HTTPS then blocks the whole loop).  The
# package's own import of requests (the adapter) may already have loaded them.
PATCH_SENSITIVE_MODULES = ("ssl", "urllib3", "requests")
# The fresh interpreter's first lines: patch, then import geventperf and run as asked.
BOOTSTRAP = ("from gevent import monkey; monkey.patch_all()\n"
             "import sys\n"
             "from geventperf.cli import main\n"
             "raise SystemExit(main(sys.argv[1:]))\n")
# Options of `run` that take a value: the value is not the target script.
RUN_VALUE_OPTIONS = ("-o", "--output", "-f", "--format", "--cpu-clock", "--block-threshold")

RUN_EPILOG = """\
geventperf's own options come first; everything after the script name (or after
-m module) is the program's own arguments, passed to it unchanged, even ones that look
like geventperf's:  geventperf run -o run.html worker.py -o its-own-output --verbose
(`--` before the script also ends geventperf's options).

The target runs as `python script.py args...` (or `python -m module args...`) would:
sys.argv, __name__ == "__main__", its exit code and its exceptions are its own.
gevent.monkey.patch_all() runs first unless --no-patch.  The text report goes to
stderr so the program's stdout stays clean.

examples:
  geventperf run worker.py --feeds feeds.txt
  geventperf run -o run.html worker.py            # timeline report to open in a browser
  geventperf run -f pstats -o run.pstats -m mypkg.worker --once
  geventperf run -o run.json worker.py && geventperf report run.json
"""

REPORT_EPILOG = """\
Several files (e.g. one per worker process) are merged into one profile.
The format comes from -f, else from the suffix of -o, else text on stdout.

examples:
  geventperf report run.json                      # text report
  geventperf report run.json -o run.html          # HTML timeline report
  geventperf report w1.json w2.json -f collapsed -o all.folded
"""

DEMO_EPILOG = """\
Everything after `demo` is passed to the demo itself; see `geventperf demo --help`.

example:
  geventperf demo
"""

MAIN_EPILOG = """\
examples:
  geventperf run worker.py --flag          # trace a script, text report on stderr
  geventperf run -o run.html -m mypkg.app  # trace a module, write an HTML timeline
  geventperf report run.json -o run.trace.json   # convert for Perfetto
  geventperf demo                          # see the problem geventperf explains

formats: text, json, pstats, collapsed, speedscope, chrome, html
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser, run_parser = _build_parser()
    try:
        if args and args[0] == "demo":
            return _demo(args[1:])
        if args and args[0] == "run":
            return _run(run_parser, args[1:], may_reexec=argv is None)
        options = parser.parse_args(args)
        if options.command == "report":
            _check_format(options.format)
            from geventperf.clireport import report
            return report(options)
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


# -- argument parsing ---------------------------------------------------------------

def _version() -> str:
    from geventperf import __version__
    return f"{PROG} {__version__}"


def _build_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    formats = _formats()
    parser = argparse.ArgumentParser(
        prog=PROG, epilog=MAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Where did a gevent program's wall time go: running, or waiting on "
                    "the hub?")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run", help="run a script or module under the tracer", epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage=f"{PROG} run [options] (script.py | -m module) [args ...]",
        description="Run a Python script or module under geventperf's tracer.")
    run.add_argument("--no-patch", action="store_true",
                     help="do not call gevent.monkey.patch_all() before the target")
    run.add_argument("--no-sections", action="store_true",
                     help="do not wrap the C parsers (json, ujson, lxml, ...) as sections")
    # On by default here, unlike Tracer(cpu_samples=False): a diagnosis run is where the
    # findings need the line that burned the CPU (the switch trace sees a slice's ends
    # only), and the sampler keeps to 1 % of the CPU (0.3-0.5 % measured, README).
    run.add_argument("--cpu-samples", nargs="?", const="on", default="on",  # the value
                     # only as --cpu-samples=SECONDS: a next token is the script
                     metavar="SECONDS",
                     help="sample the running stack on CPU time, which tells the findings "
                          "and the report which code burned the CPU (on by default): "
                          "every 10 ms of CPU within a 1 %% budget, or every SECONDS of "
                          "CPU given as --cpu-samples=SECONDS")
    run.add_argument("--no-cpu-samples", dest="cpu_samples", action="store_const",
                     const=None, help="do not sample the stack on CPU time")
    # On by default here too: a blocking call uses no CPU, so only a look from another
    # thread while it blocks tells where it is (one wake per 25 ms).
    run.add_argument("--no-stall-watch", action="store_true",
                     help="do not look at the stack from a watchdog thread while a run "
                          "slice holds the loop (which names a blocking call where it "
                          "blocked, not where its slice ended)")
    run.add_argument("--lxml-guard", action="store_true",
                     help="make concurrent lxml.etree.parse(file_like) calls safe "
                          "(Tracer(lxml_guard=True)): without it, two greenlets parsing "
                          "a file-like object with the default parser can deadlock the "
                          "process")
    run.add_argument("--block-threshold", metavar="SECONDS", default=None,
                     help="a run slice longer than this blocked the loop (default 0.05); "
                          "the stall watch looks at a slice past half of it, so a lower "
                          "value finds where shorter blocking calls block")
    run.add_argument("--cpu-clock", metavar="MODE", default="interval",
                     help="how CPU time per greenlet is measured: the thread CPU clock "
                          "read about once a millisecond (interval, the default), at "
                          "every switch (exact, slower), or not at all: interval, "
                          "switch or off")
    run.add_argument("-f", "--format", metavar="FMT",
                     help=f"format of the profile file ({', '.join(formats)}); default: "
                          "from the suffix of -o")
    run.add_argument("-o", "--output", metavar="FILE",
                     help="write the profile to FILE (nothing is written without -o)")
    run.add_argument(PATCHED_FLAG, dest="patched", action="store_true",
                     help=argparse.SUPPRESS)
    run.add_argument("-m", dest="module", metavar="module",
                     help="run a library module as a script, like python -m")
    run.add_argument("script", nargs="?", help="the script to run")
    run.add_argument("args", nargs=argparse.REMAINDER,
                     help="the program's own arguments: everything after the script (or "
                          "-m module), passed to it unchanged")

    report = commands.add_parser(
        "report", help="render saved profiles", epilog=REPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Render one or more saved JSON profiles in any format.")
    report.add_argument("files", nargs="+", metavar="FILE", help="profile JSON file(s)")
    report.add_argument("-f", "--format", metavar="FMT",
                        help=f"output format ({', '.join(formats)})")
    report.add_argument("-o", "--output", metavar="OUT",
                        help="write to OUT instead of stdout")

    commands.add_parser("demo", help="run the embedded demo workload", epilog=DEMO_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        add_help=False)
    return parser, run


def _check_format(fmt: str | None) -> None:
    """A one-line error naming the formats, rather than argparse's usage dump."""
    from geventperf.formats import check_format
    if fmt is not None:
        try:
            check_format(fmt)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def _formats() -> tuple[str, ...]:
    from geventperf.formats import FORMATS
    return FORMATS


def split_run_args(tokens: list[str]) -> tuple[list[str], str | None, str | None, list[str]]:
    """Split `run`'s arguments into (our options, script, module, target's arguments).

    Everything from the script name (or ``-m module``) on belongs to the target, even
    when it looks like one of our options: ``run app.py -o x`` passes ``-o x`` to app.py.
    """
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            rest = tokens[index + 1:]
            return tokens[:index], (rest[0] if rest else None), None, rest[1:]
        if token == "-m":
            if index + 1 >= len(tokens):
                raise UsageError("-m needs a module name: geventperf run -m module [args]")
            return tokens[:index], None, tokens[index + 1], tokens[index + 2:]
        if token.startswith("-m") and not token.startswith("--"):
            return tokens[:index], None, token[2:], tokens[index + 1:]
        if token in RUN_VALUE_OPTIONS:
            index += 2
            continue
        if token.startswith("-") and token != "-":
            index += 1
            continue
        return tokens[:index], token, None, tokens[index + 1:]
    return tokens, None, None, []


# -- run ----------------------------------------------------------------------------

def _run(run_parser: argparse.ArgumentParser, tokens: list[str], may_reexec: bool) -> int:
    own, script, module, target_args = split_run_args(tokens)
    options = run_parser.parse_args(own)  # --help and unknown options exit here
    _check_format(options.format)
    if script is None and module is None:
        raise UsageError("nothing to run: give a script (geventperf run script.py) or a "
                         "module (geventperf run -m module)")
    output, fmt = _run_output(options)
    if output is not None:
        check_writable(output)
    if script is not None and not os.path.isfile(script):
        raise UsageError(f"script not found: {script}")

    if not options.no_patch and not options.patched:
        if may_reexec and _patching_too_late():
            _reexec_patched(tokens)  # does not return
        # Before the target (and the tracer's view of the hub) exists, as gevent asks.
        from gevent import monkey
        monkey.patch_all()
    if module is not None:
        _check_module(module)

    from geventperf import Tracer
    threshold = {} if options.block_threshold is None else \
        {"block_threshold": _block_threshold(options.block_threshold)}
    tracer = Tracer(sections=None if options.no_sections else "auto", **threshold,
                    lxml_guard=options.lxml_guard,
                    cpu_clock=_cpu_clock(options.cpu_clock),
                    cpu_samples=_cpu_samples(options.cpu_samples),
                    stall_watch=not options.no_stall_watch)
    target = [script] if script is not None else ["-m", module]
    exit_code, error = _run_target(tracer, script, module, target_args)
    profile = tracer.profile
    profile.meta.setdefault("argv", target + target_args)
    profile.meta["command"] = typed_command(tokens)
    profile.meta.setdefault("date", utc_now())

    sys.stderr.write(profile.render("text"))
    sys.stderr.flush()
    if output is not None:
        try:
            profile.write(output, fmt)
        except OSError as exc:
            print(f"{PROG}: error: cannot write {output}: {exc.strerror or exc}",
                  file=sys.stderr)
            exit_code = exit_code or EXIT_USAGE
        else:
            print(f"{PROG}: wrote the {fmt} profile to {output}", file=sys.stderr)
    if error is not None:
        _print_target_traceback(error)
    return exit_code


def _patching_too_late() -> bool:
    return os.name == "posix" and any(m in sys.modules for m in PATCH_SENSITIVE_MODULES)


def _block_threshold(value: str) -> float:
    """--block-threshold SECONDS: a positive, finite number."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise UsageError(f"--block-threshold must be a positive number of seconds, "
                         f"got {value!r}")
    return seconds


# --cpu-clock MODE -> Tracer(cpu_clock=...)
CPU_CLOCKS = {"interval": "interval", "switch": "switch", "off": False}


def _cpu_clock(mode: str) -> str | bool:
    if mode not in CPU_CLOCKS:
        raise UsageError(f"--cpu-clock must be one of {', '.join(CPU_CLOCKS)}, "
                         f"got {mode!r}")
    return CPU_CLOCKS[mode]


def _cpu_samples(value: str | None) -> bool | float:
    """--cpu-samples: off (None: --no-cpu-samples), on at the default interval, or
    every SECONDS."""
    if value is None:
        return False
    if value == "on":
        return True
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise UsageError(f"--cpu-samples=SECONDS needs a positive number of CPU seconds, "
                         f"got {value!r}")
    return seconds


def _reexec_patched(tokens: list[str]) -> None:
    """Replace this process with a fresh interpreter that patches gevent before it
    imports anything else, then runs the same `run` command.

    exec keeps the pid, stdio, signals and exit status, so the target cannot tell;
    the interpreter's own options (-W, -X, -O ...) are carried over."""
    import subprocess
    flags_of = getattr(subprocess, "_args_from_interpreter_flags", lambda: [])
    command = [sys.executable, *flags_of(), "-c", BOOTSTRAP, "run", PATCHED_FLAG, *tokens]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, command)


def _run_output(options: argparse.Namespace) -> tuple[str | None, str | None]:
    """(file, format) to write, or (None, None); checked before the target runs so a
    typo does not cost a long run its profile."""
    from geventperf.formats import format_for_path
    if options.output is not None:
        try:
            return options.output, options.format or format_for_path(options.output)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if options.format is not None:
        raise UsageError(f"-f {options.format} needs -o FILE: the profile is only written "
                         "to a file (the text report always goes to stderr)")
    return None, None


def _check_module(module: str) -> None:
    import importlib.util
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing, or a bad name
        found = False
    if not found:
        raise UsageError(f"no module named {module!r}")


def _run_target(tracer, script: str | None, module: str | None,
                target_args: list[str]) -> tuple[int, BaseException | None]:
    """Run the target under *tracer* like ``python script`` / ``python -m module`` would;
    return (exit code, exception to report or None)."""
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    if script is not None:
        sys.argv = [script] + target_args
        sys.path[0] = os.path.dirname(os.path.abspath(script))
    else:
        sys.argv = [module] + target_args  # run_module replaces [0] with the file
        sys.path[0] = os.getcwd()
    exit_code, error = 0, None
    tracer.start()
    try:
        if script is not None:
            runpy.run_path(script, run_name="__main__")
        else:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        exit_code = _exit_code(exc.code)
    except KeyboardInterrupt as exc:
        exit_code, error = EXIT_INTERRUPTED, exc
    except BaseException as exc:  # the target's own failure: report, then pass it on
        exit_code, error = EXIT_EXCEPTION, exc
    finally:
        tracer.stop()
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0] = saved_path0
    return exit_code, error


def _exit_code(code: object) -> int:
    """SystemExit's code as the interpreter turns it into a process exit status."""
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    print(code, file=sys.stderr)  # sys.exit("message") prints it and exits 1
    return 1


def _print_target_traceback(error: BaseException) -> None:
    """The traceback Python would print: our own and runpy's frames left out."""
    skip = {os.path.abspath(__file__), os.path.abspath(runpy.__file__)}
    tb = error.__traceback__
    # Leading frames only: the bootstrap ("<string>", see BOOTSTRAP), this module, runpy.
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not (filename == "<string>" or filename.startswith("<frozen runpy")
                or os.path.abspath(filename) in skip):
            break
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb, file=sys.stderr)


# -- demo ---------------------------------------------------------------------------

def _demo(args: list[str]) -> int:
    try:
        from geventperf import demo
    except ImportError as exc:
        raise UsageError(f"the demo is not available: {exc}") from None
    result = demo.main(args)
    return result if isinstance(result, int) else 0

