"""What a loop-blocking slice was doing, told from the stall watch's look at its stack
and the program's own line: a log write, a database statement or commit, a wait on a
child process, a sleep unpatched; and where the blocking cure goes."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Iterable, NamedTuple

from geventperf.findings.cheaper import DB_CALL_LINE
from geventperf.findings.common import (
    _events,
    _f,
)
from geventperf.findings.cpuhot import own_line
from geventperf.findings.starved import OWN_COMPETITOR_SHARE, other_threads_cpu
from geventperf.formats._frames import frame_label
from geventperf.frames import (
    frame_source,
    statement_source,
)
from geventperf.profile import EXIT, Profile

# The text of a program's line that commits a database transaction: by call, by
# statement, or on leaving a connection's with block (sqlite3's and most DB-API drivers'
# connections commit there).  An unseen order sync committed each row in `with
# self.conn:`, 90 % of its run: told the generic blocking cures, and the threadpool it
# offered first gained nothing, where one transaction per batch took 90 % off.
# (A with block's connection by its usual names: conn..., db, database, con, cx, a
# sqlite... or ..._db; an unseen gateway spooled each check-in under `with self.db:`.)
COMMIT_LINE = re.compile(r"\.commit\(\)|\bexecute\(\s*[rbuRBU]?['\"]\s*(?i:commit|end)\b|"
                         r"^\s*(async\s+)?with\s+(\w+\.)*(conn\w*|db|database|con|cx|"
                         r"sqlite\w*|\w+_db)\s*(\bas\s+\w+\s*)?:")


# A stall look inside the logging package's own frames found the thread writing a log
# record: the blocking call is the log stream's write.
LOGGING_PATH = "/logging/"


# Frames no look is named by: socket, TLS and HTTP reads, gevent's hub and socket
# layer, the selectors (what any blocking I/O passes through; the call above them is
# the story).
GENERIC_FRAME = re.compile(r"/(socket|ssl|selectors|http/client)\.py:|/gevent/(hub|_socket"
                           r"common|_socket3|_ssl3|select|os|fileobject|_fileobjectcommon)"
                           r"\.py:")


# gevent.pywsgi writing its access log (WSGIServer(log=...)), after the application
# returned: no frame of the program's on the stack
ACCESS_LOG_FRAME = re.compile(r"/gevent/pywsgi\.py:\d+:WSGIHandler\.log_request$")


def ended(site: str, slices: int) -> str:
    """Where *slices* slices ended, said beside where their CPU went."""
    if site.startswith("<"):  # <greenlet exit>: nothing was yielded to
        return "the slice ended as its greenlet exited" if slices == 1 else \
            "the slices ended as their greenlets exited"
    # where the work stopped (a call that waits next): three unseen rounds read the
    # line a slice ended at as a suspect beside the code that ran
    return f"the slice{'' if slices == 1 else 's'} then yielded at {site}, where the work " \
        "stopped, not where it ran"


class Seen(NamedTuple):
    """Where the stall watch (Tracer(stall_watch=True)) found the thread while long
    slices held the loop: the program's own line it found most."""

    line: str
    looks: int  # looks that found it there
    total: int  # looks in all
    stack: list[str]  # one of those looks, innermost first
    during: str = "while it held the loop"  # which slices were looked at

    def told(self, capital: bool = False) -> str:
        # (the line's own text where the source is at hand: "found it at app.py:321"
        # did not say it was a sqlite write, which an unseen thumbnail service's was)
        code = frame_source(self.line)
        return (f"{'L' if capital else 'l'}ooks at the thread {self.during} found "
                f"it at {self.line} ({self.looks} of {self.total})"
                + (f", `{_shortened(code)}`" if code else ""))


# A quoted line of source is cut to this many characters: enough to name its call.
QUOTED_CHARS = 100


def _shortened(code: str) -> str:
    return code if len(code) <= QUOTED_CHARS else code[:QUOTED_CHARS - 3] + "..."


def stall_seen(evs: list[dict[str, Any]]) -> Seen | None:
    """The stall watch's looks during the slices *evs* (``stall_looks`` of each
    event), by the program's own line; None without looks at such a line."""
    looks = (e.get("stall_looks") for e in evs)
    return stall_seen_weighted((look, 1) for each in looks
                          for look in (each if isinstance(each, list) else ()))


def stall_seen_short(profile: Profile) -> Seen | None:
    """The stall watch's looks at slices shorter than the threshold (the
    ``stall-looks`` event: [stack, looks] pairs), as seen."""
    pairs = (pair for ev in _events(profile, "stall-looks")
             for pair in (ev.get("looks") if isinstance(ev.get("looks"), list) else ()))
    return stall_seen_weighted((pair[0], pair[1]) for pair in pairs
                          if isinstance(pair, list) and len(pair) == 2
                          and isinstance(pair[1], int) and pair[1] > 0)


def stall_seen_weighted(looks: Iterable[tuple[Any, int]]) -> Seen | None:
    """The program's own line most (look, times seen) pairs found; or, when most looks
    held no line of the program's own and one library frame of theirs beat every
    program line (a server's code after the application returned: pywsgi writing its
    access log to a pipe), that frame; None without either."""
    lines: Counter[str] = Counter()
    frames: Counter[str] = Counter()
    stacks: dict[str, list[str]] = {}
    total = library = 0
    for look, times in looks:
        if not isinstance(look, list) or not look \
                or not all(isinstance(x, str) for x in look):
            continue  # an untrusted profile's
        total += times
        line = own_line(look)
        if line is None:  # named by its innermost frame that says what it did
            line = _telling_frame(look)
            if line is None:
                continue
            library += times
            frames[line] += times
        else:
            lines[line] += times
        stacks.setdefault(line, look)
    best = lines.most_common(1)[0] if lines else None
    if frames and library * 2 > total:
        frame = frames.most_common(1)[0]
        if best is None or frame[1] > best[1]:
            best = frame
    if best is None:
        return None
    return Seen(best[0], best[1], total, list(stacks[best[0]]))


def _telling_frame(look: list[str]) -> str | None:
    """The innermost frame of a look with no program line that is not generic I/O or
    machinery (a socket read, the hub, an import): the library call that blocked, as
    its label; None if every frame is generic."""
    for frame in look:
        path = frame.replace("\\", "/")
        if not path.startswith("<") and not GENERIC_FRAME.search(path):
            return frame_label(frame)
    return None


# Patched modules (profile.meta["monkey_patched"]) after which a blocking call is one
# patching does not reach, and "monkey-patch first" is no fix to lead with.
PATCHED_FOR_BLOCKING = frozenset({"socket", "time", "threading"})


def _suggested_threshold(longest: float) -> float:
    """A block threshold to look at slices as long as *longest* with: half of it, down
    to one significant digit (24.6 ms: 0.01), so the slices a little shorter than the
    longest are over it too."""
    half = longest / 2
    scale = 10.0 ** math.floor(math.log10(half))
    return math.floor(half / scale) * scale


def _where_hint(profile: Profile, longest: float = 0.0) -> str:
    """How to find where a blocking call blocked when no look at the thread found it: the
    stall watch, on, and looking at slices this short (it looks once a slice has held
    the loop half the block threshold: an unseen worker's 2 ms log writes into a full
    pipe went unseen at the default 50 ms, and were named at 4 ms)."""
    if profile.meta.get("stall_watch") is not True:
        return ("where it blocked is unknown: profile with the stall watch on, "
                "Tracer(stall_watch=True); geventperf run has it on")
    seconds = f"{_suggested_threshold(longest):g}" if longest > 0 else "SECONDS"
    return ("where it blocked is unknown: no look at the thread caught it; run again "
            "with a block threshold under the slices' length"
            + (f" (each greenlet's longest: {longest * 1e3:.1f} ms at the median)"
               if longest > 0 else "")
            + f", geventperf run --block-threshold {seconds} or "
            f"Tracer(block_threshold={seconds if longest > 0 else '...'}), and the stall "
            "watch looks at every slice past half of it")


def _querying(seen: Seen | None) -> bool:
    """Whether the stall watch's looks found the thread at a statement that runs a
    database statement (DB_CALL_LINE)."""
    return seen is not None and bool(DB_CALL_LINE.search(statement_source(seen.line)))


# A program's statement that waits for a child process in C, where no monkey-patching
# reaches: os.system and the like always; subprocess's calls where it is not patched.
CHILD_WAIT_LINE = re.compile(r"\bos\.(system|popen|spawn\w*|wait|waitpid|wait3|wait4)\(")


SUBPROCESS_LINE = re.compile(r"\bsubprocess\.(run|call|check_call|check_output|getoutput|"
                             r"getstatusoutput)\(")


def _child_waited(seen: Seen | None, patched: Any) -> bool:
    """Whether the stall watch's looks found the thread at a statement waiting for a
    child process (CHILD_WAIT_LINE, or SUBPROCESS_LINE with subprocess not patched)."""
    if seen is None:
        return False
    text = statement_source(seen.line)
    return bool(CHILD_WAIT_LINE.search(text)) or (
        isinstance(patched, list) and "subprocess" not in patched
        and bool(SUBPROCESS_LINE.search(text)))


def committing(seen: Seen | None) -> bool:
    """Whether the stall watch's looks found the thread at a line that commits a database
    transaction (COMMIT_LINE)."""
    return seen is not None and bool(COMMIT_LINE.search(frame_source(seen.line)))


def blocking_story(profile: Profile, site: str, seen: Seen | None = None,
                    slices: int = 1, longest: float = 0.0) -> str:
    """What a slice spent off the CPU was, and its fix: the tail of a sentence."""
    patched = profile.meta.get("monkey_patched")
    unpatched = ""
    if isinstance(patched, list) and "socket" not in patched:
        # the commonest cause of all: patch_all() forgotten, or called after the
        # imports, so every socket (requests', a database driver's) blocks the loop
        unpatched = (" The socket module is not monkey-patched here, so every network "
                     "call through it (requests', a database driver's) blocks the whole loop"
                     + (", and time.sleep too" if "time" not in patched else "") + ".")
    elif isinstance(patched, list) and "time" not in patched:
        unpatched = " The time module is not monkey-patched here, so time.sleep is the " \
                    "blocking one."
    made = (f": {seen.told()}; {ended(site, slices)}" if seen
            else f" made after their last wait and before they exited, among the last "
            f"things they did ({_where_hint(profile, longest)})" if site == EXIT
            else f" made before the slice ended at {site} ({_where_hint(profile, longest)})")
    access_log = seen is not None and any(
        ACCESS_LOG_FRAME.search(frame.replace("\\", "/")) for frame in seen.stack)
    if seen and (access_log
                 or any(LOGGING_PATH in frame.replace("\\", "/") for frame in seen.stack)):
        # (an unpatched socket matters to a handler logging over the network; an
        # unpatched time.sleep is not what a look inside logging found)
        network = unpatched if isinstance(patched, list) and "socket" not in patched else ""
        what = ("gevent.pywsgi's access log (the server's log=, one line per response, "
                "written after the application returned)" if access_log else "log records")
        fix = ("give WSGIServer a log= that does not block (a file the shipper tails, or "
               "log=None and the lines you need through a logging handler that queues "
               "them)" if access_log else
               "log less on this path, or log to a file the shipper tails (a file takes "
               "writes without waiting for its reader)")
        return (f"writing {what}{made}. A log stream blocks every write once its "
                "reader falls behind (a pipe to a log shipper or a container runtime, a "
                "terminal): the pipe fills and each write waits for the reader, holding the "
                f"whole loop.{network} Fix: {fix}"
                + (", and monkey-patch first for a handler that logs over the network."
                   if network else "."))
    threads = _busy_threads(profile)
    if committing(seen):
        return (f"committing a database transaction{made}.{threads} Each commit waits for "
                "the disk (an fsync) inside the driver's C code, holding the whole loop, "
                "and a commit per record pays that for every record. Fix: one transaction "
                "per batch of records (a group commit: collect the rows, or commit every "
                "N rows or every interval, before the batch is acknowledged), not one per "
                "record; gevent.get_hub().threadpool frees the loop but not the greenlet "
                "waiting for each commit, and a sqlite connection must stay on one thread "
                "(a pool of one).")
    if _querying(seen):
        return (f"running a database statement{made}.{threads} A DB-API driver runs it in "
                "C, holding the whole loop while it waits: sqlite3 sleeps in its busy "
                "handler until a lock another connection or process holds is free, a "
                "driver not made for gevent waits on its own socket. Fix: run the "
                "statements in gevent.get_hub().threadpool (for sqlite3, a connection per "
                "worker thread, made with check_same_thread=False, or one writer thread "
                "fed by a queue), or use a driver that yields to gevent (a pure-Python "
                "one, monkey-patched; psycopg2 with a gevent wait callback); and keep "
                "whoever holds the lock to short transactions.")
    if _child_waited(seen, patched):
        # (an unseen CI publisher's os.system("curl -T ...") per file ran its 8 uploaders
        # one at a time, and was told this among ten causes; gevent.subprocess took 78 %
        # off the run)
        return (f"waiting for a child process{made}.{threads} os.system (and os.popen, "
                "os.spawn*, os.wait*, and subprocess where it is not monkey-patched) waits "
                "for the child in C, holding the whole loop until it exits, so children "
                "started from several greenlets run one at a time. Fix: start it with "
                "gevent.subprocess (or subprocess once monkey-patched: patch_all() patches "
                "it), whose waits yield, so the children run together; for a transfer the "
                "child makes (curl, a cloud CLI's copy), the program's own requests call "
                "does it without a process.")
    if isinstance(patched, list) \
            and PATCHED_FOR_BLOCKING <= {m for m in patched if isinstance(m, str)}:
        # "monkey-patch first" would send the reader to what is done already
        return (f"in a non-cooperative call{made}.{threads} Monkey-patching is on here (socket, "
                "time and threading patched), so it is a call patching does not reach: one "
                "taken through gevent.monkey.get_original (the real time.sleep, a real "
                "lock) or imported before patch_all() ran (`from time import sleep` above "
                "it), a lock shared with a real OS thread (a C extension's own: a metrics "
                "exporter, an agent, a driver), a child process waited for with os.system "
                "or os.popen, file or DNS I/O (a write to a pipe whose reader falls "
                "behind blocks until it reads), or a C library doing its "
                "own network I/O. Fix: use the cooperative call (gevent.sleep, "
                "gevent.socket, gevent.subprocess, gevent.fileobject: a file object one "
                "greenlet writes at a time -- a writer greenlet fed by a queue -- since "
                "two writing at once raise 'reentrant call'); for a lock shared with a "
                "thread, have that thread hold it only briefly (copy under it, do the slow work outside) "
                "or hand it data through a queue; patch before such imports; or run the "
                "call in gevent.get_hub().threadpool.")
    return ("in a non-cooperative call (time.sleep unpatched, file or DNS I/O, a lock, a "
            "child process waited for with os.system or os.popen, a C library doing its own "
            f"network I/O){made}.{threads}"
            f"{unpatched} Fix: monkey-patch first (gevent.monkey.patch_all() before other "
            "imports), use the cooperative call (gevent.sleep, gevent.socket, "
            "gevent.subprocess), or run it in gevent.get_hub().threadpool.")


def _busy_threads(profile: Profile) -> str:
    """A sentence when this process's threads other than the loop's (and than gevent's
    threadpool's) used at least OWN_COMPETITOR_SHARE of the run in CPU: a thread running
    Python holds the interpreter lock, and the loop's thread waiting for it is off the
    CPU while running, which reads as a blocking call (a thread re-sorting a list every
    50 ms cost a loop 11 % of its run that way, under gil-contended's threshold); ""
    otherwise."""
    # gevent's threadpool records its tasks' CPU: gil-contended tells those
    threads = (other_threads_cpu(profile) or 0.0) \
        - sum(_f(e, "cpu_s") for e in _events(profile, "threadpool"))
    if threads < OWN_COMPETITOR_SHARE * profile.duration_s:
        return ""
    return (f" This process's other threads used {threads:.3f} s of CPU over the "
            f"{profile.duration_s:.3f} s run: one running Python holds the interpreter "
            "lock, and the loop's thread, waiting for it, is off the CPU while running, "
            "as here. If no call there blocks, that is the likeliest cause: find the "
            "thread (py-spy dump --pid PID lists every thread's stack) and have it do "
            "less, or run it in a process of its own.")
