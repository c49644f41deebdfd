"""Where greenlets' CPU went, by the CPU samples (``--cpu-samples``): the function of
the program's own code that burned most of it, and its hottest line.

The tracer sees a run slice at its ends only: the stack a CPU finding would otherwise
show is where the slices *ended*, a wait (``requests`` reading the next response,
pywsgi reading the next request line), never the code that spent the slice.  A worker
that fetches, then compresses, then fetches again ends every slice on the fetch line
while its CPU is in the compression one line below."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Callable, Iterator, NamedTuple, Sequence

from geventperf.findings.common import _base_name
from geventperf.findings.reading import caller_small_read_sites
from geventperf.formats._frames import is_library_frame
from geventperf.frames import parse_frame
from geventperf.profile import Profile
from geventperf.sampling.views import chains, samples_of

# A function is named as where the CPU went when it holds at least this share of the
# greenlets' sampled CPU: below it the CPU is spread over many places, and naming one
# of them would send the reader to a fraction of the cost.
HOT_SHARE = 0.25
# The next function is named beside it from this share on: a cause of its own, smaller
# (an unseen job's key hashing, 21 % of the CPU beside 72 % in small body reads, went
# unnamed and was a third of what fixing both saved).
NEXT_SHARE = 0.15
# ... from at least this many samples (fewer rank nothing: one 10 ms tick is noise).
MIN_SAMPLES = 5
# Another line of the hot function that iterates a response body in small pieces of
# its own asking is told beside it from this share of the function's CPU on (an unseen
# NDJSON reader spent about half at json.loads, half at iter_lines(chunk_size=512)).
ITERATED_LINE_SHARE = 0.25
# The function's hottest line is named alone when it holds this share of the
# function's sampled CPU; otherwise the function is named, with its hottest line.
ONE_LINE_SHARE = 0.75
# Frames of the HTTP client stack.  CPU beneath them is the client's own work, which the
# CPU findings tell apart (loop-saturated's "inside requests"): charged to the line that
# called requests, it outweighed a program's own hot spot (results re-sorted after every
# item: 44 % of the CPU, told as 61 % "at" the session.get line).
CLIENT_LAYERS = ("/requests/", "/urllib3/", "/http/client.py")
# ... except JSON decoded under Response.json(): the body's parse, the program's work.
JSON_DECODE = re.compile(r"([/\\](simple)?json[/\\](decoder|__init__)\.py:\d+:"
                         r"(JSONDecoder\.\w+|loads)|[/\\]requests[/\\]models\.py:\d+:"
                         r"Response\.json)$")


# ... and a body the program iterates itself in small pieces (for chunk in
# response.iter_content(n), at a line whose reads averaged small): the pieces' size is
# its choice (iter_content's default is one byte), and tiny pieces burn the CPU in the
# client's layers under the program's loop (1.9 M one-byte reads took 93 % of an unseen
# workload's CPU, told only as the line below).  Large pieces' CPU (TLS, gzip) stays
# the client's.
BODY_ITERATOR = re.compile(r"[/\\]requests[/\\]models\.py:\d+:"
                           r"Response\.(iter_content|iter_lines)(\.<locals>\.generate)?$"
                           # a codecs reader over response.raw (codecs.getreader: an
                           # unseen NDJSON reader's 124-byte reads, 400 000 of them)
                           r"|(<frozen codecs>|[/\\]codecs\.py):\d+:StreamReader\.\w+$")


class HotCode(NamedTuple):
    line: str          # path:line:function of the hottest line of the hottest function
    function: str      # "function (path)" of that function
    share: float       # the function's share of the greenlets' sampled CPU
    line_share: float  # the line's share of the function's sampled CPU
    samples: int       # samples of the greenlets
    stack: list[str]   # the heaviest sampled stack through that line, innermost first
    # the next function of the program's by sampled CPU, when it held NEXT_SHARE of it:
    # ("function (path)", its hottest line, its share)
    runner_up: tuple[str, str, float] | None = None
    # another line of that function iterating a response body in small pieces of its own
    # asking, when it held ITERATED_LINE_SHARE of the function's CPU: (line, share)
    iterated: tuple[str, float] | None = None
    # counted with the CPU of what the function called (no function held HOT_SHARE on
    # its own: the work spread over many small ones beneath it)
    with_callees: bool = False

    def told(self) -> str:
        """The clause a finding says it with."""
        if self.with_callees:
            return (f"CPU samples put {self.share:.0%} of their sampled CPU ({self.samples} "
                    f"samples in all) in {self.function} and what it called, "
                    f"{self.line_share:.0%} of that through line {parse_frame(self.line).line}")
        if self.line_share >= ONE_LINE_SHARE:  # the line's own share, not its function's
            text = (f"CPU samples put {self.share * self.line_share:.0%} of their sampled "
                    f"CPU ({self.samples} samples in all) at {self.line}")
        else:
            text = (f"CPU samples put {self.share:.0%} of their sampled CPU ({self.samples} "
                    f"samples in all) in {self.function}, {self.line_share:.0%} of that at "
                    f"line {parse_frame(self.line).line}")
        if self.runner_up is not None:
            function, line, share = self.runner_up
            text += f", and next {share:.0%} in {function}, most at line {parse_frame(line).line}"
        return text


def is_client_frame(label: str) -> bool:
    """Whether a frame label is one of the HTTP client stack's (requests, urllib3,
    http.client)."""
    path = label.replace("\\", "/")
    return any(layer in path for layer in CLIENT_LAYERS)


def _in_client(inner: list[str]) -> bool:
    """Whether library frames *inner* (beneath the program's line) run the HTTP client's
    own work: a client layer, and no JSON decoding."""
    return any(is_client_frame(f) for f in inner) \
        and not any(JSON_DECODE.search(f) for f in inner)


def iterated_in_small_pieces(labels: Sequence[str], sites: frozenset[str]) -> bool:
    """Whether a sampled stack (*labels*, innermost first) runs a body iterator called
    from one of *sites*: a body the program iterates in small pieces, its own work."""
    return any(BODY_ITERATOR.search(label) and labels[i + 1] in sites
               for i, label in enumerate(labels[:-1]))


def own_line(labels: list[str]) -> str | None:
    """The innermost frame of the program's own code: for where time went, the standard
    library (json's encoder, re) is machinery too, and the line that called it is the
    lever; None when every frame is a library's."""
    return next((label for label in labels if not is_library_frame(label)), None)


def hot_code(profile: Any, names: set[str]) -> HotCode | None:
    """The program's own code that burned most of the sampled CPU of the greenlets
    named *names* (base names); None without samples, with too few, or when no
    function of the program's holds HOT_SHARE of it."""
    samples = samples_of(profile)
    if samples is None:
        return None
    from geventperf.findings.ownclients import is_load_generator, load_generator_lines
    loading = load_generator_lines(profile)  # (a load generator's CPU: no cure here)
    small = caller_small_read_sites(profile)
    total, count = 0.0, 0
    per_function: dict[tuple[str, str], float] = defaultdict(float)
    per_line: dict[str, float] = defaultdict(float)
    heaviest: dict[str, tuple[float, list[str]]] = {}
    beneath = _Beneath()
    for chain in chains(samples):
        if _base_name(chain.greenlet) not in names \
                or (loading and is_load_generator(chain.labels, loading)):
            continue
        total += chain.cpu_s
        count += chain.count
        line = own_line(chain.labels)
        if line is None:
            continue  # all library frames: not code the reader can change
        if _in_client(chain.labels[:chain.labels.index(line)]) \
                and not iterated_in_small_pieces(chain.labels, small):
            continue  # the HTTP client's own work, told apart
        frame = parse_frame(line)
        per_function[(frame.path, frame.function)] += chain.cpu_s
        per_line[line] += chain.cpu_s
        if chain.cpu_s > heaviest.get(line, (0.0, []))[0]:
            heaviest[line] = (chain.cpu_s, chain.labels)
        beneath.add(chain.labels, chain.cpu_s)
    if count < MIN_SAMPLES or total <= 0 or not per_function:
        return None
    (path, function), spent = max(per_function.items(), key=lambda kv: kv[1])
    if spent < HOT_SHARE * total:
        return beneath.hot(total, count)
    line, line_cpu = _hottest_line(per_line, path, function)
    ranked = sorted(per_function.items(), key=lambda kv: -kv[1])
    runner_up = None
    if len(ranked) > 1 and ranked[1][1] >= NEXT_SHARE * total:
        (next_path, next_function), next_spent = ranked[1]
        runner_up = (f"{next_function} ({next_path})",
                     _hottest_line(per_line, next_path, next_function)[0], next_spent / total)
    iterated = max(((lab, cpu / spent) for lab, cpu in per_line.items()
                    if lab in small and lab != line
                    and parse_frame(lab)[::2] == (path, function)),
                   key=lambda kv: kv[1], default=None)
    if iterated is not None and iterated[1] < ITERATED_LINE_SHARE:
        iterated = None
    return HotCode(line, f"{function} ({path})", spent / total, line_cpu / spent, count,
                   list(heaviest[line][1]), runner_up, iterated)


class _Beneath:
    """The program's functions' sampled CPU counting what they called, for when no
    function held HOT_SHARE on its own (an unseen service's pure-Python schema check:
    51 % of the CPU under validate(), spread over a dozen small functions; the finding
    named only a JSON parse beside it)."""

    def __init__(self) -> None:
        self.per_function: dict[tuple[str, str], float] = defaultdict(float)
        # ... of that, where it was the program's outermost frame: a greenlet's or a
        # handler's entry point, which everything it does is beneath
        self.outermost: dict[tuple[str, str], float] = defaultdict(float)
        self.per_line: dict[str, float] = defaultdict(float)
        self.heaviest: dict[str, tuple[float, list[str]]] = {}
        # the fewest of the program's frames found inside it: of two functions holding
        # the same CPU (one calling only the other), the inner one is named
        self.depth: dict[tuple[str, str], int] = {}

    def add(self, labels: list[str], cpu: float) -> None:
        """A sampled stack (*labels*, innermost first): each function of the program's
        counted once, at its innermost frame on it (a recursion's lowest call)."""
        seen: set[tuple[str, str]] = set()
        key = None
        for label in labels:
            if is_library_frame(label):
                continue
            frame = parse_frame(label)
            key = (frame.path, frame.function)
            if key in seen:
                continue
            self.depth[key] = min(self.depth.get(key, len(seen)), len(seen))
            seen.add(key)
            self.per_function[key] += cpu
            self.per_line[label] += cpu
            if cpu > self.heaviest.get(label, (0.0, []))[0]:
                self.heaviest[label] = (cpu, labels)
        if key is not None:
            self.outermost[key] += cpu

    def hot(self, total: float, count: int) -> HotCode | None:
        """The deepest of the program's functions holding HOT_SHARE of *total* with
        what it called (the least of those shares: its callers hold more), entry points
        apart (outermost for at least half of theirs: naming them says nothing), through
        its heaviest line; None when none does."""
        held = [(spent, self.depth[key], key) for key, spent in self.per_function.items()
                if spent >= HOT_SHARE * total and self.outermost[key] < spent / 2]
        if not held:
            return None
        spent, _depth, (path, function) = min(held)
        line, line_cpu = _hottest_line(self.per_line, path, function)
        return HotCode(line, f"{function} ({path})", spent / total, line_cpu / spent, count,
                       list(self.heaviest[line][1]), with_callees=True)


def _hottest_line(per_line: dict[str, float], path: str, function: str) -> tuple[str, float]:
    """The line of *function* in *path* that took most of the sampled CPU, and that CPU."""
    return max(((lab, s) for lab, s in per_line.items()
                if parse_frame(lab)[::2] == (path, function)), key=lambda kv: kv[1])


def sampled_share(profile: Profile, endings: tuple[str, ...]) -> float:
    """The share of the greenlets' sampled CPU whose stack holds a frame whose label ends
    with one of *endings*; 0 without samples."""
    hit, total = sampled_cpu(profile,
                              lambda label: label.replace("\\", "/").endswith(endings))
    return hit / total if total > 0 else 0.0


def sampled_cpu(profile: Profile, marks: Callable[[str], bool]) -> tuple[float, float]:
    """(the greenlets' sampled CPU whose stack holds a frame whose label *marks*, all
    their sampled CPU); (0, 0) without samples."""
    samples = profile.cpu_samples
    if samples is None:
        return 0.0, 0.0
    marked = [marks(label) for label in samples.frames]
    total = hit = 0.0
    for frames, cpu in greenlet_samples(profile):
        total += cpu
        if any(marked[i] for i in frames):
            hit += cpu
    return hit, total


def greenlet_samples(profile: Profile) -> Iterator[tuple[list[int], float]]:
    """The greenlets' CPU samples (the hub's apart; none without samples): per sampled
    stack, its frame indices (those inside the frame table) and its CPU seconds."""
    samples = profile.cpu_samples
    if samples is None:
        return
    known, hub = len(samples.frames), profile.hub.get("id")
    for st in samples.stacks:
        if st.gid is None or st.gid != hub:
            yield [i for i in st.frames if 0 <= i < known], st.cpu_s
