"""What every finding shares: the kinds, what each one's cost means, and the helpers
that build and name them (pure functions of the profile)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from geventperf.frames import statement_source
from geventperf.profile import Finding, Profile, greenlet_label

BLOCKED_READ = "blocked-read-in-c-section"
DEADLOCK_RISK = "c-section-deadlock-risk"
LOOP_BLOCKED = "loop-blocked"
LOOP_HELD = "loop-held"
BLOCKING_CALL = "blocking-call"
GIL_CONTENDED = "gil-contended"
LOOP_SATURATED = "loop-saturated"
SWITCH_STORM = "switch-storm"
SMALL_BODY_READS = "small-body-reads"
THREADPOOL_SATURATED = "threadpool-saturated"
THREADPOOL_TINY_TASKS = "threadpool-tiny-tasks"
CPU_STARVED = "cpu-starved"
GC_PAUSE = "gc-pause"
POOL_FULL = "pool-full"
CONNECTION_POOL_FULL = "connection-pool-full"
LOCK_CONTENDED = "lock-contended"
SERIAL_BOTTLENECK = "serial-bottleneck"
SESSION_PER_REQUEST = "session-per-request"
CONNECTION_CHURN = "connection-churn"
CONNECTION_LEAK = "connection-leak"
GREENLET_LEAK = "greenlet-leak"
REPEATED_REQUEST = "repeated-request"
PROXIED_INTERNAL = "proxied-internal"
REDIRECT_FOLLOWED = "redirect-followed"
UNCOMPRESSED_BODIES = "uncompressed-bodies"
DUPLICATE_IN_FLIGHT = "duplicate-in-flight"
NEW_CONNECTIONS_QUEUED = "new-connections-queued"
NOT_KEPT_ALIVE = "connection-not-kept-alive"
REQUESTS_FAILED = "requests-failed"
RETRY_BACKOFF = "retry-backoff"
DELAYED_ACK_STALL = "delayed-ack-stall"
REQUEST_BODY_STALL = "request-body-stall"
SERVER_NAGLE = "server-nagle"
SERVER_POOL_FULL = "server-pool-full"
SEQUENTIAL_CALLS = "sequential-calls"
BATCH_BARRIER = "batch-barrier"
AWAITED_IN_TURN = "awaited-in-turn"
FANOUT_TAIL = "fanout-tail"
WORKERS_SATURATED = "workers-saturated"
QUEUE_LOCKSTEP = "queue-lockstep"
QUEUE_FULL = "queue-full"
CRITICAL_PATH = "critical-path"
SLEEP_POLL = "sleep-poll"
WRITE_BLOCKED = "write-blocked"

# More calls at once to one upstream than most serve at once (a deployment of tens of
# server workers; a listen backlog of 128 by default): past it, a pool or threadpool as
# large as the calls in flight would hold that many connections or threads open, fill
# the upstream's workers and backlog, and turn queueing here into timeouts there
# (1500 requests spawned one greenlet each, with a pool of 1500: 5600 of 6000 failed
# to connect).  The fix is then fewer calls at once: a gevent Pool.
MANY_IN_FLIGHT = 100
BOUND_CONCURRENCY = (
    "spawn the calls through a gevent.pool.Pool(n) -- n what the upstream serves at "
    "once, tens rather than hundreds -- instead of a greenlet each")

# What a CPU or loop finding's stack is (extra["stack_is"]): the heaviest CPU-sampled
# stack through the code that burned the CPU, a look the stall watch took while the
# slice held the loop, or, with neither, where the slices ended: a wait, which a
# report says so the reader does not take it for where the time went.
STACK_CPU_SAMPLES = "cpu-samples"
STACK_STALL_LOOK = "stall-look"
STACK_SLICE_END = "slice-end"
HAZARDS = frozenset({DEADLOCK_RISK})

COST_MEANING = {
    DEADLOCK_RISK: "a hazard, ranked above every cost; the figure is how long the parses "
                   "involved were suspended inside lxml (greenlet-seconds)",
    BLOCKED_READ: "greenlet-seconds spent suspended inside the C section waiting for its "
                  "input (event wait; queueing behind other greenlets not counted)",
    LOOP_BLOCKED: "greenlet-seconds other greenlets spent ready to run but held up by "
                  "these slices, and in the backlog they left (the ready queue above its "
                  "usual length until it next emptied)",
    LOOP_HELD: "greenlet-seconds other greenlets spent ready to run while these greenlets' "
               "slices under the block threshold ran",
    BLOCKING_CALL: "greenlet-seconds other greenlets spent ready to run but held up while "
                   "the call blocked the thread, and in the backlog it left (the ready "
                   "queue above its usual length until it next emptied)",
    GIL_CONTENDED: "greenlet-seconds other greenlets spent ready to run but held up while "
                   "the loop's thread waited for the interpreter lock",
    GC_PAUSE: "greenlet-seconds other greenlets spent ready to run but held up by these "
              "slices, which the garbage collector mostly filled, and in the backlog they "
              "left (the ready queue above its usual length until it next emptied), plus "
              "the collector's share of the rest of the queueing (its time in shorter "
              "slices over the loop's busy time)",
    POOL_FULL: "greenlet-seconds spent waiting for a free slot of a gevent Pool while the "
               "loop had room (mostly idle, or queueing little)",
    CONNECTION_POOL_FULL: "greenlet-seconds spent waiting for a free connection of "
                          "requests' connection pool while the loop had room (mostly idle, "
                          "or queueing little)",
    LOCK_CONTENDED: "greenlet-seconds spent waiting to take a lock while the loop had room "
                    "(mostly idle, or queueing little)",
    SERIAL_BOTTLENECK: "greenlet-seconds spent waiting at hand-offs (a queue, an event, a "
                       "greenlet's end) for a few busy greenlets while the loop sat mostly "
                       "idle",
    WORKERS_SATURATED: "greenlet-seconds the workers spent waiting on their calls, one "
                       "item at a time each, while their input queued: the waiting more "
                       "workers would have overlapped",
    QUEUE_LOCKSTEP: "greenlet-seconds the smaller side of a bounded queue waited at it "
                    "(a producer in put, a consumer in get): the most the two stages could "
                    "overlap",
    QUEUE_FULL: "greenlet-seconds a producer waited to put into a full queue behind one "
                "consumer",
    SESSION_PER_REQUEST: "greenlet-seconds spent waiting while opening the connections "
                         "requests' module-level functions open for every call (the name "
                         "lookup, the connect), plus the run's ready wait times the share "
                         "of the sampled CPU that set connections up, for the connections "
                         "a shared Session would not have opened",
    CONNECTION_CHURN: "the share of connection set-up a pool as large as the requests in "
                      "flight would have saved (connections opened past that size over "
                      "all opened), of the greenlet-seconds spent waiting to open "
                      "connections plus the run's ready wait times the share of the "
                      "sampled CPU that set connections up (none without CPU samples)",
    NOT_KEPT_ALIVE: "the share of connections made again for one request each (over all "
                    "made), of the greenlet-seconds spent waiting to open connections "
                    "plus the run's ready wait times the share of the sampled CPU that "
                    "set connections up (none without CPU samples)",
    GREENLET_LEAK: "greenlet-seconds the greenlets that outlived their spawners ran and kept "
                   "others waiting ready to run, or the cost of the costliest finding about "
                   "them when larger (their calls caused it)",
    REDIRECT_FOLLOWED: "greenlet-seconds the requests answered with a redirect waited for "
                       "those answers' heads (the redirects' share of their hosts' waits "
                       "for heads)",
    NEW_CONNECTIONS_QUEUED: "greenlet-seconds the first requests on new connections waited "
                            "for their answers' heads beyond the mean on reused "
                            "connections (the connect and TLS set-up not counted)",
    DUPLICATE_IN_FLIGHT: "greenlet-seconds spent waiting for answers at the line that sent "
                         "requests while one alike waited for its answer, for their share "
                         "of its calls, plus their share of all requests times the "
                         "greenlets' ready wait outside long slices (each request costs "
                         "the loop its CPU; the waits they added to the program's other "
                         "calls at the upstream are not counted)",
    UNCOMPRESSED_BODIES: "greenlet-seconds spent waiting inside response body reads, for "
                         "the share of the bytes that were compressible bodies sent "
                         "uncompressed (compressed, most of those bytes would not have "
                         "crossed the wire)",
    PROXIED_INTERNAL: "greenlet-seconds the requests to internal hosts sent through a "
                      "proxy waited for their answers' heads: the proxy's hop is part of "
                      "it, not measured apart (at most this)",
    REPEATED_REQUEST: "greenlet-seconds spent waiting for answers at the line that sent "
                      "the repeated request, for its calls past the first, plus their share "
                      "of all requests times the greenlets' ready wait outside long slices "
                      "(each request costs the loop its CPU)",
    CONNECTION_LEAK: "the share of connections opened that were never returned to their "
                     "pool (over all opened), of the greenlet-seconds spent waiting to "
                     "open connections plus the run's ready wait times the share of the "
                     "sampled CPU that set connections up (none without CPU samples)",
    REQUESTS_FAILED: "greenlet-seconds spent inside requests that raised (a timeout, a "
                     "refused or reset connection) instead of answering; urllib3's retry "
                     "back-off inside them is retry-backoff's figure too",
    DELAYED_ACK_STALL: "greenlet-seconds the response bodies on reused connections came "
                       "later than new connections' bodies usually do (taken as at most "
                       "35 ms), waiting for this side's delayed ACK",
    REQUEST_BODY_STALL: "greenlet-seconds the requests with a body on reused connections "
                        "waited for their answer longer than those on new connections, "
                        "their bodies held by Nagle's algorithm",
    SERVER_NAGLE: "seconds this process's server made its clients wait, estimated: 40 ms "
                  "(a Linux client's shortest delayed ACK) for each response written head "
                  "and body apart on a kept-alive connection without TCP_NODELAY (the wait "
                  "is in the clients, not in this process)",
    BATCH_BARRIER: "seconds the spawner waited for its batches beyond what a pool as "
                   "large as their peak, starting one greenlet as each ends, would take "
                   "for the same greenlets' lives (the most it could save)",
    AWAITED_IN_TURN: "seconds the spawners waited while one of their greenlets awaited "
                     "in turn was alive, less the longest life of each run of them "
                     "(about what waiting for them together would take): the most "
                     "starting them together could save",
    CRITICAL_PATH: "seconds of the run's wall clock in which one greenlet was the only "
                   "one in flight, waiting there and on the CPU between those waits (its "
                   "CPU alone: the named code's share); one greenlet alone, so "
                   "greenlet-seconds and wall seconds are the same",
    SEQUENTIAL_CALLS: "greenlet-seconds the served requests' handlers waited on upstream "
                      "calls made in turn, less one call's worth per response (the most "
                      "making them together could save)",
    SERVER_POOL_FULL: "greenlet-seconds the server's connection pool slots were held by "
                      "kept-alive connections waiting for their clients' next requests "
                      "(while the pool was full, new clients waited in the listen backlog, "
                      "a wait only they see)",
    RETRY_BACKOFF: "greenlet-seconds spent sleeping in urllib3's retry back-off before "
                   "retrying failed requests",
    THREADPOOL_TINY_TASKS: "greenlet-seconds the callers waited for the tiny tasks' results "
                           "beyond the tasks' own work (the hand-offs)",
    CPU_STARVED: "greenlet-seconds greenlets stood ready while the traced thread itself "
                 "waited for a CPU (at least that wait)",
    LOOP_SATURATED: "greenlet-seconds greenlets spent ready to run but queued behind others "
                    "(the run's ready wait, less what a loop-blocked, blocking-call, "
                    "slow-path or cpu-starved finding explains), plus the queueing behind "
                    "the top holder's own slices over the block threshold when they burned "
                    "the CPU in the same code (no loop-blocked finding then tells them)",
    SWITCH_STORM: "seconds of loop time spent switching (switch-outs times the hub's mean "
                  "time per switch), plus the greenlet-seconds others spent ready to run "
                  "behind these slices and the hub's share of their wait that these "
                  "switches made (its switches from here over all its switches)",
    WRITE_BLOCKED: "seconds one greenlet waited in socket sends at the line, its send "
                   "buffer full: time it wrote to none of its peers (one greenlet, so "
                   "greenlet-seconds and wall seconds are the same)",
    SMALL_BODY_READS: "seconds the reading greenlets spent inside the reads, network waits "
                      "left out (a large read waits for the network as long)",
}

# Paths of frames that read from the network; the outermost run of them before the
# user's code is "the read call site" a person recognises.
_READERS = ("/socket.py", "/ssl.py", "/http/client.py", "/urllib3/", "/requests/",
            "/geventperf/adapter.py", "/gevent/_socket", "/gevent/_ssl")


def _finding(kind: str, message: str, cost: float, stack: list[str], **extra: Any) -> Finding:
    greenlet, section = extra.pop("greenlet", None), extra.pop("section", None)
    extra.setdefault("cost_meaning", COST_MEANING.get(kind, ""))
    extra.setdefault("hazard", kind in HAZARDS)
    return Finding(kind=kind, message=f"{message} [cost {cost:.3f} s: "
                   f"{extra['cost_meaning']}]", greenlet=greenlet, section=section,
                   stack=list(stack), cost_s=cost, extra=extra)


# A log call whose message is formatted before the call (an f-string, % or .format()):
# its arguments are computed even when the level is off (an unseen order worker's
# disabled debug log built a json.dumps(indent=2) of every batch: 30 % of the run; an
# unseen fraud screen's, written over two lines, was told only json's slow encoder).
EAGER_LOG_LINE = re.compile(
    r"\.(debug|info|warning|warn|error|critical|exception|log)\((?:\s*[\w.]+\s*,)?\s*"
    r"(?:f['\"]|[rb]?['\"][^'\"]*['\"]\s*(?:%|\.format\())")
EAGER_LOG_CHEAPER = (
    "it builds a log message before the logging call (an f-string, % or .format() in "
    "its argument, or a json.dumps or pformat among its arguments): everything inside "
    "is computed on every call, even when that level "
    "is off; pass the values as arguments (log.debug('batch %s: %s', key, obj): logging "
    "formats only the records it emits), and put expensive ones (a json.dumps, a "
    "pformat) behind if log.isEnabledFor(logging.DEBUG)")


# ... or that passes a serialized value among its arguments, which the call evaluates
# whatever the level (an unseen telemetry gateway's log.debug("... %s", zone,
# json.dumps(view)) at INFO level: 82 % of its run, told as a JSON encoder to speed up).
EAGER_LOG_ARGUMENT = re.compile(
    r"\.(debug|info|warning|warn|error|critical|exception|log)\((?:[^()]|\([^()]*\))*?"
    r"\b(?:(?:simple|u|or)?json\.dumps|pformat|pprint\.pformat)\(")


def eager_log(line: str | None) -> bool:
    """Whether the statement at the program's *line* (``path:line:function``) is a log
    call that formats its message before the call (EAGER_LOG_LINE) or serializes one
    of its arguments (EAGER_LOG_ARGUMENT), where its source is at hand."""
    if not line:
        return False
    statement = statement_source(line)
    return bool(EAGER_LOG_LINE.search(statement) or EAGER_LOG_ARGUMENT.search(statement))


def tell_before_cost(f: Finding, sentence: str) -> None:
    """*sentence* added to *f*'s message, before the cost's note that ends it."""
    text, sep, note = f.message.partition(" [cost ")
    f.message = f"{text} {sentence}{sep}{note}"


def _events(profile: Profile, kind: str) -> list[dict[str, Any]]:
    return [e for e in profile.events if isinstance(e, dict) and e.get("kind") == kind]


def _f(obj: dict[str, Any], key: str, default: float = 0.0) -> float:
    value = _number(obj.get(key))
    return default if value is None else value


def _number(value: Any) -> float | None:
    """*value* as a float, None unless it is a number (not a bool) a float can hold (JSON
    integers have no size limit: float() of a 400-digit one raises)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _figures(value: Any, size: int) -> list[float] | None:
    """*value* as *size* finite, non-negative floats; None when it is not exactly that."""
    if not isinstance(value, list) or len(value) != size:
        return None
    out = [_number(v) for v in value]
    return out if all(v is not None and math.isfinite(v) and v >= 0 for v in out) \
        else None  # type: ignore[return-value]


# The tracer's default block threshold, for profiles that do not record theirs.
DEFAULT_BLOCK_THRESHOLD_S = 0.05
# The calls of the program's that wait for greenlets to end (a ``waits`` row's call).
END_CALLS = frozenset({"join", "joinall", "kill"})
# The greenlet gevent's servers run a connection in.
CONNECTION_GREENLET = "baseserver._handle_and_close_when_done"
# Frames of requests or urllib3: a request in flight (an upstream call: what a lock is
# wrongly held across, and what a pool's jobs most often wait on), or their own work.
REQUEST_FRAME = re.compile(r"[/\\](requests|urllib3)[/\\]")


def slice_timeline(profile: Profile) -> dict[int, list[Any]]:
    """Each greenlet's run slices, in order."""
    timeline: dict[int, list[Any]] = defaultdict(list)
    for s in profile.slices:
        timeline[s.greenlet].append(s)
    for slices in timeline.values():
        slices.sort(key=lambda s: s.start_s)
    return timeline


def block_threshold(profile: Profile) -> float:
    """The run's block threshold, as the tracer had it (its default for older profiles)."""
    return _f(profile.meta, "block_threshold_s", DEFAULT_BLOCK_THRESHOLD_S)


def _count(obj: dict[str, Any], key: str) -> int:
    """A count field: a finite positive number, else 0 (profiles are untrusted)."""
    value = _f(obj, key)
    return int(value) if math.isfinite(value) and value > 0 else 0


def _sentence(text: str) -> str:
    """*text* with its first letter capitalised (str.capitalize lowercases the rest)."""
    return text[:1].upper() + text[1:]


def _base_name(name: str) -> str:
    """A folded entry's name without its " [N finished greenlets folded]" suffix."""
    return name.split(" [", 1)[0]


# The suffix of a folded entry's name: how many finished greenlets it stands for.
_FOLDED_COUNT = re.compile(r" \[(\d+) finished greenlets folded\]$")


def folded_split(name: str) -> tuple[str, int]:
    """(*name* without a folded entry's suffix, the greenlets the entry stands for: its
    count, else one)."""
    folded = _FOLDED_COUNT.search(name or "")
    return (name[:folded.start()], int(folded.group(1))) if folded else (name, 1)


def _stands_for(name: str) -> int:
    """How many greenlets an entry named *name* stands for: a folded entry's count, else
    one."""
    return folded_split(name)[1]


def _greenlets_named(profile: Profile, names: set[str]) -> int:
    """How many greenlets of the run had one of *names* (base names), counting each
    folded entry as the greenlets it stands for."""
    return sum(_stands_for(g.name) for g in profile.greenlets if _base_name(g.name) in names)


def _names(profile: Profile, gids: list[Any]) -> str:
    """How a finding names the greenlets it touched: "greenlet 'x' (#3)" for one,
    "10 greenlets named 'x'" (or "... named 'x' (4), 'y' (2)") for several."""
    ids = [g for g in dict.fromkeys(gids) if g is not None]
    if len(ids) == 1:
        g = profile.greenlet(ids[0]) if isinstance(ids[0], int) else None
        return greenlet_label(g.name if g else None, ids[0])
    counts: dict[str, int] = defaultdict(int)
    for gid in ids:
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        counts[_base_name(g.name) if g else "?"] += 1
    if "?" in counts:  # ended greenlets whose records were folded by name
        unknown = counts.pop("?")
        counts[_folded_name(profile, unknown)] += unknown
    if len(counts) == 1:
        return f"{len(ids)} greenlets named '{next(iter(counts))}'"
    parts = ", ".join(f"'{n}' ({c})" for n, c in sorted(counts.items(), key=lambda kv: -kv[1]))
    return f"{len(ids)} greenlets named {parts}"


def _folded_name(profile: Profile, n: int) -> str:
    """The name of *n* greenlets no record names (they ended, and their records were
    folded by name): the folded entry's that stands for exactly *n* when one does (40
    sessions folded as '[40 finished greenlets folded]'), else "?" said so."""
    named = [g.name for g in profile.greenlets if _stands_for(g.name) == n
             and _FOLDED_COUNT.search(g.name)]
    return _base_name(named[0]) if len(named) == 1 else "? (records folded by name)"


def _by_name(profile: Profile, evs: list[dict[str, Any]], figs: dict[int, float]
             ) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for e in evs:
        gid = e.get("greenlet")
        g = profile.greenlet(gid) if isinstance(gid, int) else None
        out[_base_name(g.name) if g else "?"] += figs[id(e)]
    return dict(out)


def _read_site(stack: list[str]) -> str | None:
    """The outermost network-reading frame before the caller's own code: the call a
    person recognises (``urllib3 ... read``, ``http/client.py ... readinto``)."""
    site = None
    for entry in stack:  # innermost first
        path = entry.replace("\\", "/")
        if any(r in path for r in _READERS):
            site = entry
        elif site is not None and not any(m in path for m in ("/gevent/", "/greenlet/",
                                                               "/geventperf/")):
            break
    return site


def heads_waited(pool: dict[str, Any]) -> float:
    """Seconds a ``urllib3-pool`` event's requests waited for their answers' heads (its
    ``trails``: from the request's start, or a new connection's set-up)."""
    trails = pool.get("trails")
    if not isinstance(trails, dict):
        return 0.0
    return sum(float(t[4]) for t in trails.values()
               if isinstance(t, list) and len(t) > 4 and isinstance(t[4], (int, float))
               and not isinstance(t[4], bool) and math.isfinite(t[4]) and t[4] > 0)


def cpu_wait(profile: Profile) -> float:
    """The seconds the traced thread waited for a CPU while the loop was busy (0 where
    the profile does not say)."""
    wait, idle = profile.hub.get("cpu_wait_s"), profile.hub.get("idle_s")
    if not isinstance(wait, (int, float)) or isinstance(wait, bool) or wait <= 0 \
            or not isinstance(idle, (int, float)):
        return 0.0
    return min(float(wait), max(0.0, profile.duration_s - idle))


def _workers(profile: Profile) -> list[Any]:
    """Greenlets with the wait split, the hub left out (its waits are the loop's)."""
    return [g for g in profile.greenlets if g.id != profile.hub.get("id")
            and g.ready_wait_s is not None and g.event_wait_s is not None]
