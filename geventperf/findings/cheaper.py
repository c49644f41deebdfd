"""What hot code does, told from its sampled frames and its own lines, and the cheaper way
to do it: the advice a CPU finding (loop-blocked, loop-held, loop-saturated) gives
beside where the CPU went."""

from __future__ import annotations

import math
import re
from typing import Any

from geventperf.findings.common import (
    EAGER_LOG_CHEAPER,
    _events,
    _f,
    eager_log,
)
from geventperf.findings.cpuhot import (
    JSON_DECODE,
    iterated_in_small_pieces,
    sampled_cpu,
)
from geventperf.findings.reading import caller_small_read_sites
from geventperf.formats._frames import is_library_frame
from geventperf.frames import (
    parse_frame,
    recipients_loop,
    searched_collection,
    statement_source,
)
from geventperf.poolwatch import EVENT_KIND as POOL_EVENT
from geventperf.profile import Profile
from geventperf.serverwatch import EVENT_KIND as SERVER_EVENT

# The text of a program's line that runs a statement through a DB-API driver, whose C
# code blocks the loop's thread (sqlite3 sleeping in its busy handler for a lock another
# connection holds, a driver reading its own socket): an unseen thumbnail service's
# sqlite write waited out a rollup's lock, and was told the generic cures with the
# threadpool last, where the threadpool took 32 % off its run.
DB_CALL_LINE = re.compile(r"\.(execute|executemany|executescript|fetch(one|many|all))\(")


# Frames of a JSON decoder's Python side (json's and simplejson's decoders, requests'
# Response.json): a hot stack through them spent its CPU parsing a document, and the
# cheaper code is less of it to parse.
JSON_CHEAPER = ("it is parsing JSON: ask the upstream for less -- only the fields, the "
                "page or the summary this code uses -- rather than parsing a large "
                "document whole, or parse with a faster decoder (orjson, ujson)")


# Frames of a JSON encoder (json's and simplejson's, dumps and dump): when the greenlets'
# sampled CPU serialized more JSON than it parsed, the hot code's story is the dump, even
# where its heaviest single stack parsed (an encoder's recursion splits its samples over
# many stacks).  An unseen exporter's response hook built json.dumps(r.json(), indent=2,
# sort_keys=True) for a debug log at INFO level: 39 % of the CPU encoding, told "parsing
# JSON: a faster decoder" (ujson saved 6 %); the dump built only for DEBUG saved 50 %.
JSON_ENCODE = re.compile(r"[/\\](simple)?json[/\\](encoder\.py:|__init__\.py:\d+:dumps?$)")


JSON_ENCODE_CHEAPER = (
    "it serializes JSON (json.dumps) more than it parses it: with indent=, sort_keys= "
    "or a default= the standard library encodes in Python, several times slower than "
    "json.dumps(obj) alone or ujson/orjson; and a dump made for a log record is built "
    "even when the record is dropped (a debug dump at INFO level): build it only when it "
    "is logged (if log.isEnabledFor(logging.DEBUG): ...)")
# ... and when its heaviest stack encodes: the growth's story first, as a document
# saved whole after every change is the commonest cause (an unseen catalog indexer
# rewrote its whole state file with json.dumps after each of 600 records, 60 % of the
# CPU, and was given the generic menu; a journal of one line per record cut its run
# 5x), the encoder's for small dumps of their own.
JSON_DUMP_CHEAPER = (
    "it encodes JSON (json.dumps): if it dumps a whole document that grows over the run "
    "(a store or state saved after every change, a snapshot), each call's work grows with "
    "the document and the run's with its square: write what changed (append a line per "
    "record, a journal replayed at start) or save once per interval or batch, not per "
    "change; if each call dumps a small object of its own, a faster encoder (ujson, "
    "orjson) or dumps without indent= and sort_keys= is the cure")


# Frames of starting a child process (the standard library's subprocess or gevent's):
# the CPU went into forking, which copies the parent's memory map (page tables) in the
# parent's own thread, longer the larger the process: 600 sha256sum runs from a 400 MB
# process held a loop 72 % busy.
SPAWN_FRAME = re.compile(r"[/\\](gevent[/\\])?(subprocess|os)\.py:\d+:"
                         r"(Popen\._execute_child|fork_and_watch|fork)$")


# Frames of requests guessing a body's charset (Response.apparent_encoding, and the
# detectors it calls): the charset-detection finding's cause, seen in a CPU finding.
CHARSET_FRAME = re.compile(r"(:Response\.apparent_encoding|[/\\](charset_normalizer|"
                           r"chardet)[/\\].*)$")


CHARSET_CHEAPER = ("it guesses the body's charset: response.text on a response that "
                   "declared none runs detection over the whole body (the "
                   "charset-detection finding says how to skip it)")


# Frames of a document parser written in Python: the standard library's DOM (minidom,
# pulldom), html.parser, BeautifulSoup's builders on it.
PY_PARSER_FRAME = re.compile(r"[/\\](xml[/\\]dom[/\\]|html[/\\]parser\.py:|bs4[/\\])")


PY_PARSER_CHEAPER = ("it parses a document in pure Python (minidom's DOM, html.parser, "
                     "BeautifulSoup over it): a Python object per node, slow to build and "
                     "heavy for the collector; lxml parses in C, several times faster, into "
                     "fewer objects (lxml.etree.fromstring, lxml.html, or "
                     "BeautifulSoup(markup, 'lxml'))")


# The hot line's own text (frames.frame_source), where it says what the line does:
# a log call whose message is formatted before the call (EAGER_LOG_LINE, in common.py) ...
# ... a regular expression's method (the matching runs in C inside that line): one that
# can match the same text more than one way backtracks, its time growing with the
# square of the input or worse (an unseen intake service's re.sub(r"\s+$", ...) on
# long runs of whitespace: 39 % of the run; str.rstrip() took it away).
REGEX_LINE = re.compile(r"(?:\bre|\w)\.(sub|subn|match|search|fullmatch|findall|finditer)\(")


REGEX_CHEAPER = (
    "it runs a regular expression (its matching, in C, is this line's CPU): a pattern "
    "that can match the same text in more than one way (\\s+$ on a long run of "
    "spaces, (a+)+, .*x.*y) backtracks, taking time that grows with the square of the "
    "input or worse; use str methods where they do (rstrip, startswith, split, in), "
    "anchor the pattern or make its repeats exclusive, and bound the input's length")
# ... or a key derivation, slow on purpose (PBKDF2's iterations, scrypt's memory): a
# password check per login (an unseen gateway's, 35 % of its run, cured by the
# threadpool), an API key stretched again on every request (an unseen ingest API's,
# cured by keeping the verified key), or a signing key derived again for every request
# from a fixed secret (an unseen refunds client's: deriving it once cut the run 91 %,
# the threadpool 32 %).  The same inputs give the same key: keeping it comes first.
KDF_LINE = re.compile(r"\b(pbkdf2_hmac|scrypt|hashpw|checkpw|PasswordHasher|argon2)\b")


KDF_CHEAPER = (
    "it derives a key (PBKDF2, scrypt, bcrypt: slow on purpose, milliseconds of CPU "
    "each), and the same inputs give the same key: where it runs again and again for the "
    "same secret (a signing key derived per request from a fixed secret, an API key "
    "checked on every request), keep the result (the derived key, once per secret; the "
    "verified key's digest, for a while) rather than lowering the iterations, which "
    "removes the work; where each call is new (a login's password), hashlib's releases "
    "the interpreter lock while it works, so hand it to gevent.get_hub().threadpool "
    "(threadpool.apply(hashlib.pbkdf2_hmac, (...))) and the loop serves others "
    "meanwhile, as many at once as the machine has cores")
# ... or an unpickling (C, inside the line): a cache holding pickled values decodes the
# whole value on every hit (an unseen timeline cache's pickle.loads per hit of a
# 900-item document, 54 % of the CPU, got the generic cure; keeping the objects took
# 66 % off the run).
UNPICKLE_LINE = re.compile(r"\b(c?pickle|marshal)\.loads?\(")


UNPICKLE_CHEAPER = (
    "it unpickles on every call (pickle.loads builds every object of the value again): a "
    "cache that holds pickled values decodes the whole value on each hit; in one process, "
    "keep the objects themselves (treated as read-only, or copied only where changed), or "
    "cache the smaller piece a hit needs; across processes, decode once per process and "
    "keep the result")
# ... or a database query (a C driver's execute, sqlite3's, inside the line, or the
# fetch of its rows: sqlite3 runs a SELECT as its rows are fetched): the loop waits for
# the whole query (an unseen chat service's history SELECT without an index, 13 ms a
# call, 78 % of the CPU, got the generic cure; an index halved its run; an unseen
# scorer's scan, sampled at its fetchall(), got it too): DB_CALL_LINE tells it.
QUERY_CHEAPER = (
    "it runs a database query in the loop's thread (the driver's C code: the loop waits "
    "for the whole query): read its plan (EXPLAIN QUERY PLAN) and index the columns it "
    "filters and sorts on, fetch only the rows it needs, keep what repeats, or run it in "
    "gevent.get_hub().threadpool with a connection per thread")
# ... but a statement that writes (INSERT, UPDATE, DELETE, REPLACE, UPSERT) writes a row
# per call, which no index or plan speeds; batching the rows does (an unseen rollout
# journal's INSERT and commit per record, 43 % of its CPU, was told to read its plan).
WRITE_STATEMENT = re.compile(r"\.execute(many)?\(\s*[rbuRBU]?(\"\"\"|'''|[\"'])\s*"
                             r"(INSERT|UPDATE|DELETE|REPLACE|UPSERT)\b", re.IGNORECASE)
WRITE_CHEAPER = (
    "it writes to the database in the loop's thread, a statement per record (the driver's "
    "C code: the loop waits for each): write the records in batches (executemany, one "
    "transaction per batch, committed before the batch is acknowledged), or hand the "
    "writes to gevent.get_hub().threadpool (a connection per thread, or one writer thread "
    "fed by a queue)")


# A hot line testing each element of a stored collection for a match inside a loop
# over it (frames.searched_collection): a linear search per call, whose work grows with
# the collection (an unseen ad exchange scanned a 9 000-domain blocklist per bid, 37 %
# of its CPU, and was told requests' own CPU first; a set lookup took 40 % off its run).
LINEAR_SEARCH_CHEAPER = (
    "it searches {collection} one element at a time for a match at every call, so each "
    "call's work grows with the collection: keep it as a set, or a dict keyed by what is "
    "matched, and look the item up (one step whatever the size; a set beside the list or "
    "deque where their order or window matters; for a suffix match such "
    "as a domain under a blocked one, look each of the name's parent suffixes up in a "
    "set; for a prefix, a sorted list and bisect; for patterns, one regular expression "
    "compiled once from them all: fnmatch.translate each glob and join them with |)")


# The pattern matchers' Python frames a search through patterns runs in beneath its line
# (a comparison's CPU is the line's own; a matcher's, fnmatch's or re's, is beneath it).
MATCHER_FRAME = re.compile(r"[/\\](fnmatch|re[/\\]__init__)\.py:")


def _line_does(hot: Any) -> str | None:
    """What the hot line's own source says it does (EAGER_LOG_CHEAPER; REGEX_CHEAPER,
    KDF_CHEAPER, UNPICKLE_CHEAPER, QUERY_CHEAPER or LINEAR_SEARCH_CHEAPER when the
    heaviest stack's CPU ran in the line itself, in C beneath it or in its own
    bytecode); None when it says none of these or is not readable here."""
    # the whole statement: a call written over several lines is sampled at any of them
    # (an unseen scorer's sqlite query, sampled at its WHERE clause's line, was told the
    # generic cures, never its index)
    text = statement_source(hot.line)
    if eager_log(hot.line):
        return EAGER_LOG_CHEAPER
    searched = searched_collection(hot.line)
    if hot.stack[:1] != [hot.line]:  # the CPU ran in Python beneath the line ...
        # ... a pattern matcher's (fnmatch, re) matching each element, for a search
        beneath = hot.stack[:hot.stack.index(hot.line)] if hot.line in hot.stack else [""]
        return LINEAR_SEARCH_CHEAPER.format(collection=searched) \
            if searched and MATCHER_FRAME.search(beneath[-1]) \
            and all(is_library_frame(f) for f in beneath) else None
    return REGEX_CHEAPER if REGEX_LINE.search(text) else \
        KDF_CHEAPER if KDF_LINE.search(text) else \
        UNPICKLE_CHEAPER if UNPICKLE_LINE.search(text) else \
        WRITE_CHEAPER if WRITE_STATEMENT.search(text) else \
        QUERY_CHEAPER if DB_CALL_LINE.search(text) else \
        LINEAR_SEARCH_CHEAPER.format(collection=searched) if searched else None


# Library code a hot stack runs through that has a cheaper way, frame -> what it does
# and that way (four unseen programs' saturated loops got only the generic cure: a
# disabled debug log's eager pprint.pformat, strptime per row, a deepcopy per job, a
# request body read a byte at a time; their fixes cut the runs 2.8x, 1.9x, 7x, 4.8x).
CHEAPER_WAYS = (
    (re.compile(r"[/\\]pprint\.py:"),
     "it pretty-prints an object (pprint.pformat: Python code walking every element); "
     "for a log record, pass the object as an argument (log.debug('%s', obj)) or check "
     "log.isEnabledFor(logging.DEBUG) first, so it is formatted only when the record is "
     "emitted"),
    (re.compile(r"[/\\]_strptime\.py:"),
     "it parses dates with datetime.strptime (Python code, slow per call): "
     "datetime.fromisoformat (C) parses ISO 8601 several times faster; for another fixed "
     "layout, slice the fields and build the datetime from them"),
    # gzip's own default level is 9, the slowest (an unseen gateway gzipped every JSON
    # response at 9: level 6 cut its run 31 %, zlib in the threadpool 9 %); the same
    # bytes compressed again and again first (an unseen log shipper compressed its whole
    # growing batch after every record to check its size, at level 6: the "default level"
    # advice gained 43 %, compressing each record once 62 %)
    (re.compile(r"[/\\]gzip\.py:\d+:(compress|GzipFile\.write)$"),
     "it compresses with gzip: compress each byte once (a size check that compresses a "
     "whole growing batch after every record compresses the same bytes again and again: "
     "feed a zlib.compressobj as records come, or bound the batch by its raw size; where "
     "many get a body, compress it once) and leave small bodies uncompressed; gzip's "
     "default level (9) is its slowest, and level 6 or lower "
     "(gzip.compress(data, compresslevel=6), or 1 for bodies sent once) costs a fraction "
     "of the CPU for output a few percent larger"),
    # a class made per call: namedtuple() compiles one each time, and every class is a
    # graph of objects the collector walks (an unseen DB driver's row decoder made a
    # namedtuple class per row: 97 % of the CPU, told as a comprehension and a GC pause;
    # made once, the run took 65 % less).  Before the comprehensions: it runs inside one.
    (re.compile(r"[/\\]collections[/\\]__init__\.py:\d+:namedtuple$|"
                r"[/\\]dataclasses\.py:\d+:make_dataclass$"),
     "it makes a class on every call (collections.namedtuple or make_dataclass compiles "
     "a new one each time, and each class is a graph of objects the garbage collector "
     "walks): make the class once, at import or cached per set of field names, and only "
     "build instances per call"),
    # re's parser and compiler are Python code: a pattern compiled per call, built from
    # data (a glossary's terms joined with |), misses re's own cache of 512 (an unseen
    # translation gateway rebuilt its 900-term glossary pattern per document, 88 % of
    # its CPU, and was told the generic menu; built once per term list, -73 %)
    (re.compile(r"[/\\]re[/\\]_(compiler|parser)\.py:|[/\\]sre_(compile|parse)\.py:"),
     "it compiles a regular expression at every call (re's parser and compiler are "
     "Python code; re keeps only its last 512 patterns, and one built from data, such as "
     "terms joined with |, is new each time): compile it once and keep the compiled "
     "pattern, rebuilding it only when what it is built from changes"),
    # difflib's matcher is Python code, quadratic in the texts' lengths: a near-duplicate
    # check of each item against the ones kept (an unseen timeline service compared every
    # post with its author's kept ones, 66 % of its CPU, and was told the generic menu;
    # a set of words and their overlap took 50 % off its run)
    (re.compile(r"[/\\]difflib\.py:"),
     "it compares texts with difflib (SequenceMatcher: Python code, its work growing with "
     "the product of the texts' lengths, for every pair compared): compare a cheap "
     "signature first (a set of words or shingles and their overlap, a hash of the "
     "normalized text for exact copies) and run the matcher, if at all, on the few "
     "candidates left; quick_ratio() and real_quick_ratio() are cheaper bounds to filter "
     "with"),
    # a dict or set built by comprehension on the hot stack: most often a lookup rebuilt
    # from the same table on every call (an unseen indexer's enricher built a dict of
    # 2 500 categories per product: 95 % of the CPU; built once, the run took 3.8x
    # less).  Python 3.12 inlines comprehensions (PEP 709): no frame of their own there.
    (re.compile(r":\d+:[\w.<>]*<(dictcomp|setcomp)>$"),
     "builds a dict or set by comprehension on every call: when what it reads is the "
     "same from call to call (a table, a configuration, an index of something loaded "
     "once), build it once and keep it -- at load, or cached per version of its input -- "
     "and only look it up per call"),
    # ... a list by comprehension: most often a collection filtered and copied whole on
    # every call (an unseen rate limiter rebuilt its sliding window's timestamps,
    # [t for t in events if t > cutoff], on each request: 52 % of the CPU, told the
    # generic menu; a deque popped from the left gained 2.7x)
    (re.compile(r":\d+:[\w.<>]*<listcomp>$"),
     "builds a list by comprehension on every call: when it filters a collection that "
     "grows (a sliding window's timestamps, a history, a queue of pending items), each "
     "call copies all of it and the run's work grows with its square -- keep the "
     "collection trimmed in place instead (a collections.deque, expired entries popped "
     "from the left) or keep a running count; when what it reads is the same from call "
     "to call, build it once and keep it"),
    # the statistics module computes exactly, with fractions: a mean or deviation over a
    # window recomputed per reading costs Python-level arithmetic per element (an unseen
    # gateway's z-score per device reading, pstdev over its window: 85 % of the CPU,
    # told the generic menu)
    (re.compile(r"[/\\]statistics\.py:"),
     "it computes statistics with the statistics module (exact arithmetic with "
     "fractions, Python code per element): over a window recomputed for each new value, "
     "keep running sums instead (count, sum and sum of squares, or Welford's update, "
     "adjusted as values enter and leave), or use math.fsum / statistics.fmean on "
     "floats, or numpy for large arrays"),
    (re.compile(r"[/\\]copy\.py:\d+:deepcopy$"),
     "it deep-copies an object (copy.deepcopy: Python code visiting every element): "
     "copy only the part that changes, or share the object read-only"),
    (re.compile(r"[/\\]gevent[/\\]pywsgi\.py:\d+:Input\.(read|readline|_do_read|"
                r"_do_readline)$"),
     "it reads the request's body in small pieces through pywsgi's Input (each a trip "
     "through gevent's reader): read it whole (environ['wsgi.input'].read()) or in large "
     "pieces (read(64 * 1024))"),
    # a constructor of a connection or client on the hot stack: one built per call pays
    # its set-up each time (an unseen service opened a database connection per request,
    # its login's PBKDF2 46 % of the CPU, and was told to hand hashlib to the
    # threadpool, which gained nothing; a pool of connections cut the run 2.3x)
    (re.compile(r":\d+:\w*(Connection|Client|Session|Channel|Engine)\w*\.__init__$"),
     "it builds a connection or client for each call (its constructor is on the hot "
     "stack), and each new one pays its set-up again: the connect, a TLS handshake, a "
     "login and its key derivation; build them once and reuse them (a pool of "
     "connections as large as the greenlets that use them at once, or one client for "
     "the process)"),
)


ITERATE_CHEAPER = ("it iterates a response body in small pieces: each piece is a trip "
                   "through requests, urllib3 and http.client, and iter_content()'s "
                   "chunk_size is one byte unless given (iter_lines' 512); ask for large "
                   "pieces (iter_content(chunk_size=512 * 1024), iter_lines(chunk_size="
                   "512 * 1024)); a stream reader over response.raw (codecs.getreader) "
                   "reads a few hundred bytes at a time: give it a buffer "
                   "(io.BufferedReader(response.raw, 512 * 1024)), or read the body whole "
                   "and split it")


SPAWN_CHEAPER = ("it starts a child process per call: each fork copies this process's "
                 "memory map in the loop's thread, the longer the larger the process; "
                 "do the work in-process (hashlib rather than sha256sum), or keep one "
                 "long-lived helper process and talk to it over a pipe")


def task_work(event: dict[str, Any]) -> float:
    """The work a threadpool event's finished tasks did: their CPU in their worker
    threads where recorded (a crowded machine stretches their run, not their CPU: a
    run of tiny tasks under CI load read as 100 us each), else their run."""
    cpu = _f(event, "cpu_s")
    return cpu if math.isfinite(cpu) and cpu > 0 else _f(event, "run_s")


# A threadpool task of at most this much work on average (its worker's run time) ...
TINY_TASK_S = 100e-6
# ... handed over at least this many times from the hot line: the hand-off is the work
# (an unseen parser sent each of 300 000 NDJSON lines' json.loads to the threadpool:
# 4 us of work, 256 us waited for each result; inline, the run took 8x less).
TINY_TASKS_MIN = 1000


TINY_TASKS_CHEAPER = (
    "it hands tiny tasks to a threadpool: {tasks} {function} tasks from this line did "
    "{work:.0f} us of work each on average, while their callers waited {waited:.0f} us "
    "for each result: each hand-off (a queue, a worker thread's wake-up, the loop's "
    "wake-up for the result) costs the loop far more than the work, so the threadpool "
    "is the cost here, not the cure; call {function} inline, or hand over whole batches "
    "(a body, not its lines)")
# ... when the tiny tasks are name lookups (gevent's threaded resolver), made by
# connecting: a connection opened per call, with whatever handshake the protocol adds
# (an unseen audit shipper connected and logged in to its broker per event: the
# lookups inline gained 17 %, one session per greenlet 66 %).
CONNECTS_PER_CALL = (
    "it opens a new connection per call: {tasks} name lookups ({function}, sent to the "
    "threadpool by gevent's resolver) from this line did {work:.0f} us of work each on "
    "average, while their callers waited {waited:.0f} us for each result, and each was "
    "followed by a connect and whatever the protocol does on a new connection (a "
    "handshake, a login); keep connections open and reuse them (one per greenlet, or a "
    "pool), and the lookups, connects and handshakes go; only where a connection per "
    "call must stay, connect to an address, not a name (or GEVENT_RESOLVER=block: "
    "lookups inline)")


def tiny_tasks_done(event: dict[str, Any]) -> float:
    """The tasks a threadpool event's function finished when they were many and tiny
    (TINY_TASKS_MIN of them, at most TINY_TASK_S of work each on average, by
    task_work), else 0.  Per task that finished: those still queued at a snapshot ran
    nothing yet."""
    done = _f(event, "finished", _f(event, "tasks"))
    return done if done >= TINY_TASKS_MIN and task_work(event) <= TINY_TASK_S * done \
        else 0.0


def tiny_tasks(profile: Profile, hot: Any) -> str | None:
    """TINY_TASKS_CHEAPER for the threadpool's tasks sent from the hot code's line, when
    they were many and tiny; None otherwise."""
    if hot is None:
        return None
    for e in _events(profile, "threadpool"):
        done, sites = tiny_tasks_done(e), e.get("sites")
        if not done or not isinstance(sites, list) \
                or not any(isinstance(site, list) and site and site[0] == hot.line
                           for site in sites):
            continue
        template = CONNECTS_PER_CALL if e.get("dns") else TINY_TASKS_CHEAPER
        return template.format(
            tasks=f"{done:.0f}", function=str(e.get("function") or "the"),
            work=task_work(e) / done * 1e6, waited=_f(e, "result_s") / done * 1e6)
    return None


def _serializes_json(profile: Profile, hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack parsed JSON while the greenlets'
    sampled CPU encoded more JSON than it decoded (JSON_ENCODE).  A heaviest stack that
    encodes is left to the generic cure: a dump of a document that keeps growing (an
    unseen dashboard's) is the growth's story, not the encoder's."""
    if not parses_json(hot):
        return False
    encoded, _total = sampled_cpu(profile, lambda label: JSON_ENCODE.search(label) is not None)
    decoded, _total = sampled_cpu(profile, lambda label: JSON_DECODE.search(label) is not None)
    return encoded > decoded


def parses_json(hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack (cpuhot.HotCode) ran a JSON
    decoder (its own work, not a hook of the program's it calls: _json_hook)."""
    return hot is not None and any(JSON_DECODE.search(f) for f in hot.stack) \
        and not _json_hook(hot)


def _json_hook(hot: Any) -> bool:
    """Whether the hot code's heaviest sampled stack is the program's own code called
    by a JSON decoder: a hook (object_hook, object_pairs_hook, parse_float)."""
    stack = hot.stack if hot is not None else []
    return len(stack) > 1 and not is_library_frame(stack[0]) \
        and JSON_DECODE.search(stack[1]) is not None


# Frames of a parser reading a file (json.load and simplejson's, YAML's load and
# safe_load, tomllib's load, configparser's read): a hot stack through them parsed a
# file on the loop, most often the same one on every call.  An unseen catalog service
# re-read its feature-flag file three times per request "to pick up flips without
# restart": 48 % of the CPU, told "ask the upstream for less, or ujson" (+8 %); parsed
# once and re-read when its mtime changed, +211 %.
FILE_PARSE_FRAME = re.compile(r"[/\\]((simple)?json[/\\]__init__\.py:\d+:load|yaml[/\\]__init__\.py:"
                              r"\d+:(safe_|full_|unsafe_)?load|tomllib[/\\]_parser\.py:\d+:load|"
                              r"configparser\.py:\d+:RawConfigParser\.read)$")


FILE_PARSE_CHEAPER = (
    "it parses a file (json.load, yaml's load, tomllib.load, configparser's read): "
    "when it is the same file from call to call (a configuration, feature flags, a "
    "lookup table), parse it once and keep the result, re-reading it only when it "
    "changed (its os.stat().st_mtime_ns checked at most once a second, or on a TTL) -- "
    "or have whoever writes it signal the change")


# The cure when the hot code is a hook the decoder calls per object: an unseen order
# sync tried fromisoformat on every string in an object_hook (59 % of the CPU) and was
# told to use a faster decoder, which takes no hook (ujson: a TypeError).
JSON_HOOK_CHEAPER = (
    "it is a hook json.loads calls for every object it decodes (object_hook, "
    "object_pairs_hook, parse_float): its Python runs once per object; convert only "
    "the fields known to need it, by key, after the parse (faster decoders such as "
    "ujson and orjson take no hooks)")


# Response.json() parsing the bodies read through urllib3 at under this many bytes per
# second of its CPU parsed the same bodies again and again: C decoders parse over 100
# MB/s, Python's own about 10.  An unseen report's property decoded each invoice's JSON
# at every access: 3.6 s of CPU for 2.3 MB of bodies (0.64 MB/s), told "ask for less or
# a faster decoder" (ujson saved 30 %); parsed once per document, 63 %.
REPARSE_BYTES_PER_S = 1e6


# requests' Response.json frame: beneath it, the JSON parsed is a response's body.
RESPONSE_JSON = re.compile(r"[/\\]requests[/\\]models\.py:\d+:Response\.json$")


# ... and when the line that encodes is inside a loop over a stored collection (its
# recipients), the loop's story first: an unseen quote aggregator encoded each update,
# with a view of the book, once per subscriber (81 % of its CPU), and was told the
# growing-document story and a faster encoder (ujson alone: -42 %); one small message
# encoded once per update took 50 % off.
JSON_PER_PASS_CHEAPER = (
    "it encodes JSON (json.dumps) at every pass of the loop around it (`{loop}`): where "
    "the passes encode much the same data (an update for each subscriber, recipient or "
    "peer), encode it once before the loop and send those bytes to each, any part of "
    "its own to a recipient apart and small; and send what changed rather than a whole "
    "view. A faster encoder (ujson, orjson) then cuts what is left")


def _json_dump_cheaper(hot: Any) -> str:
    """JSON_PER_PASS_CHEAPER when the program's line that calls json.dumps is in a loop
    over recipients (frames.recipients_loop: each pass hands something to its element;
    a json.dump to a file is the growing document's story, and an export's
    out.write(json.dumps(record)) encodes each record once), else JSON_DUMP_CHEAPER."""
    line = next((f for f in hot.stack if not is_library_frame(f)), None)
    loop = recipients_loop(line) if line is not None else None
    if loop is None or "dumps(" not in statement_source(line):
        return JSON_DUMP_CHEAPER
    return JSON_PER_PASS_CHEAPER.format(loop=loop)


# JSON documents parsed (sections="auto"'s json, ujson and orjson loads) at least this
# many times the documents the program could have received to parse -- its requests'
# answers, and the requests its own servers answered but for its load generator's GETs,
# which carry no body -- were parsed again: a text kept in a cache and parsed on every
# use (an unseen package mirror parsed its 100 cached project documents 1 280 times,
# 47 % of its CPU, and was told to ask for less or use ujson, which saved 1 %; keeping
# the parsed object took 31 % off its run).
REPARSED_FACTOR = 4
JSON_LOADS_SECTIONS = frozenset({"json.loads", "ujson.loads", "orjson.loads"})


def _reparsed(profile: Profile) -> tuple[int, int] | None:
    """(documents parsed, documents received) when the JSON parse sections' calls were
    REPARSED_FACTOR times what the program received, else None."""
    parses = sum(s.calls for s in profile.sections if s.name in JSON_LOADS_SECTIONS)
    if not parses:
        return None
    # (imported here: ownclients builds on limits, which builds on this module)
    from geventperf.findings.ownclients import load_test_hosts
    load_tests = load_test_hosts(profile)
    answers = sum(int(_f(e, "calls")) for e in _events(profile, POOL_EVENT)
                  if all(e is not load for load in load_tests))
    served = sum(int(_f(e, "served")) for e in _events(profile, SERVER_EVENT))
    bodiless = sum(int(_f(e, "gets")) for e in load_tests)
    received = answers + max(0, served - bodiless)
    return (parses, received) if parses >= REPARSED_FACTOR * max(1, received) else None


def _json_cheaper(profile: Profile) -> str:
    """JSON_CHEAPER, led by the re-parse story when the program parsed JSON documents
    REPARSED_FACTOR times what it received (_reparsed), or Response.json() parsed the
    bodies read through urllib3 (``body-reads`` events) at under REPARSE_BYTES_PER_S."""
    reparsed = _reparsed(profile)
    if reparsed is not None:
        parses, received = reparsed
        return (f"it is parsing the same JSON again and again: {parses} documents parsed "
                f"(json's loads) where the program received {received} (its requests' "
                "answers, and the requests with a body its servers took in): a text "
                "kept (a cache of bodies, a file read once) and parsed at every use "
                "parses the same document anew each time -- keep the parsed object "
                "(cache what loads returns, or parse once when the text is stored), "
                "and a faster decoder (ujson, orjson) only then")
    nbytes = sum(_f(e, "bytes") for e in _events(profile, "body-reads"))
    if nbytes <= 0:
        return JSON_CHEAPER
    parsing, _total = sampled_cpu(profile, lambda label: RESPONSE_JSON.search(label)
                                   is not None)
    if parsing <= 0 or nbytes / parsing >= REPARSE_BYTES_PER_S:
        return JSON_CHEAPER
    return (f"it is parsing the same JSON again and again: Response.json() took "
            f"{parsing:.3f} s of CPU for the {nbytes / 1e6:.1f} MB of bodies read "
            f"({nbytes / parsing / 1e6:.2f} MB/s, where a C decoder parses over 100): a "
            "property or helper that calls response.json() at every access parses the "
            "body anew each time -- parse each response once and keep the object")


# A comprehension whose CPU ran in library code it calls for each element: a parse or a
# conversion redone for every element at every call (an unseen threat-intel matcher
# parsed its 500 feed networks with ipaddress.ip_network for each event, 93 % of the
# CPU, and was told the growing collection's story first; parsed once when the feed was
# loaded, its run took 71 % less).
PER_ELEMENT_CHEAPER = (
    "it calls {call} for each element of a collection at every call (in a "
    "comprehension): where the collection is the same from call to call (loaded once, "
    "refreshed now and then), do that work once when it is loaded -- keep the parsed or "
    "converted values -- and per call only compare or look up")
COMPREHENSION_FRAME = re.compile(r":\d+:[\w.<>]*<(listcomp|dictcomp|setcomp|genexpr)>$")


def _per_element(stack: list[str]) -> str | None:
    """PER_ELEMENT_CHEAPER for the library function the innermost comprehension of
    *stack* called, when the stack ran in library code beneath it; None otherwise."""
    at = next((i for i, f in enumerate(stack) if COMPREHENSION_FRAME.search(f)), None)
    if not at or not is_library_frame(stack[at - 1]):
        return None
    called = parse_frame(stack[at - 1])
    module = re.split(r"[/\\]", called.path)[-1].removesuffix(".py")
    return PER_ELEMENT_CHEAPER.format(call=f"{module}.{called.function}")


def what_it_does(profile: Profile, hot: Any) -> str | None:
    """What the hot code's heaviest sampled stack shows it doing that has a cheaper
    way (CHARSET_CHEAPER, FILE_PARSE_CHEAPER, JSON_CHEAPER, JSON_DUMP_CHEAPER,
    PY_PARSER_CHEAPER, CHEAPER_WAYS's, ITERATE_CHEAPER, SPAWN_CHEAPER), else None."""
    if hot is None:
        return None
    way = next(((f, cheaper) for frame, cheaper in CHEAPER_WAYS
                for f in hot.stack if frame.search(f)), None)
    known = way[1] if way is not None else None
    # a comprehension's own story only where no library call beneath it has one
    if way is None or COMPREHENSION_FRAME.search(way[0]):
        known = _per_element(hot.stack) or known
    does = _line_does(hot) or (
        CHARSET_CHEAPER if any(CHARSET_FRAME.search(f) for f in hot.stack) else
        JSON_HOOK_CHEAPER if _json_hook(hot) else
        FILE_PARSE_CHEAPER if any(FILE_PARSE_FRAME.search(f) for f in hot.stack) else
        JSON_ENCODE_CHEAPER if _serializes_json(profile, hot) else
        _json_cheaper(profile) if parses_json(hot) else
        _json_dump_cheaper(hot) if any(JSON_ENCODE.search(f) for f in hot.stack) else
        PY_PARSER_CHEAPER if any(PY_PARSER_FRAME.search(f) for f in hot.stack) else
        known if known is not None else
        ITERATE_CHEAPER if iterated_in_small_pieces(hot.stack,
                                                    caller_small_read_sites(profile))
        else SPAWN_CHEAPER if any(SPAWN_FRAME.search(f) for f in hot.stack) else None)
    if hot.iterated is None or does is ITERATE_CHEAPER:
        return does
    # the function's other heavy line reads the body it works on in small pieces (an
    # unseen NDJSON reader: json.loads at one line, iter_lines(chunk_size=512) at the
    # one before it, about half the CPU each)
    line, share = hot.iterated
    pieces = (f"line {parse_frame(line).line} ({share:.0%} of that function's CPU): "
              f"{ITERATE_CHEAPER}")
    return f"{does}; and {pieces}" if does else pieces


def small_reads_site(hot: Any, does: str | None) -> str | None:
    """The line a CPU finding tells as iterating a body in small pieces (its
    ``small_reads_site``: the small-body-reads finding of that line is then dropped)."""
    if hot is None:
        return None
    if does is ITERATE_CHEAPER:
        return hot.line
    return hot.iterated[0] if hot.iterated is not None and does else None
