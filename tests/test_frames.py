"""Which of geventperf's own modules count as plumbing between the user's line and
the call it made (``frames.MACHINERY_OWN``): every top-level module is classified, so
a module split off the adapter (``adapterfast.py``) cannot leave its frames named as
the user's code by mistake.  And which waits are a server's idle connections, and which
lines a with statement's block holds."""

import os

import pytest

import geventperf
from geventperf import frames

# Modules no user's call passes through while traced: the demo's own workload and
# server (user code on purpose, see frames.py), and code run only before or after.
NOT_ON_A_CALL_PATH = {"demo.py", "feedserver.py", "feedworkload.py", "frames.py", "dataflow.py",
                      "profile.py", "latency.py", "clicheck.py", "clireport.py"}


def test_every_module_is_either_plumbing_or_off_the_call_path():
    package = os.path.dirname(geventperf.__file__)
    modules = {name for name in os.listdir(package) if name.endswith(".py")}
    assert modules - frames.MACHINERY_OWN - NOT_ON_A_CALL_PATH == set()
    assert frames.MACHINERY_OWN & NOT_ON_A_CALL_PATH == set()


def test_a_frame_of_the_fast_path_is_not_the_users_line():
    fast = "/srv/venv/lib/python3.11/site-packages/geventperf/adapterfast.py:120:_pool_for"
    user = "/srv/app/client.py:30:fetch"
    assert frames.is_machinery(fast) and not frames.is_machinery(user)
    assert frames.user_site([fast, user]).user == user


PYWSGI = "/venv/lib/python3.11/site-packages/gevent/pywsgi.py"
IDLE_SERVER_STACK = [f"{PYWSGI}:723:WSGIHandler.read_requestline",
                     f"{PYWSGI}:774:WSGIHandler.handle_one_request"]


GEVENT = "/venv/lib/python3.11/site-packages/gevent"
STDLIB = "/usr/lib/python3.11"
STREAM_HANDLER = f"{GEVENT}/baseserver.py:34:_handle_and_close_when_done"
RECV_INTO = f"{GEVENT}/_socketcommon.py:687:SocketMixin.recv_into"
READINTO = f"{STDLIB}/socket.py:706:SocketIO.readinto"


@pytest.mark.parametrize("stack, idle", [
    (IDLE_SERVER_STACK, True),
    (IDLE_SERVER_STACK[1:], False),  # handling a request: reading its body is no idle wait
    (["/srv/app/worker.py:12:read_requestline"], False),  # a function of that name elsewhere
    # a StreamServer's handler reading its connection in its own body: readline on its
    # makefile, or recv
    ([RECV_INTO, READINTO, "/srv/store.py:34:handle", STREAM_HANDLER], True),
    ([f"{GEVENT}/_socketcommon.py:660:SocketMixin.recv", "/srv/store.py:34:handle",
      STREAM_HANDLER], True),
    # ... but not through a function of its own (a raw proxy reading its upstream), nor
    # through a library (an HTTP call to its backend), nor waiting on anything else
    ([RECV_INTO, READINTO, "/srv/proxy.py:20:relay", "/srv/proxy.py:34:handle",
      STREAM_HANDLER], False),
    ([RECV_INTO, READINTO, f"{STDLIB}/http/client.py:286:HTTPResponse._read_status",
      "/srv/store.py:34:handle", STREAM_HANDLER], False),
    ([f"{GEVENT}/hub.py:166:sleep", "/srv/store.py:41:handle", STREAM_HANDLER], False),
    (["/srv/store.py:41:handle", STREAM_HANDLER], False),
])
def test_idle_server_wait(stack, idle):
    assert frames.is_idle_server_wait(stack) is idle


def _with_block_sample(lock, items):
    total = 0
    with lock:  # the block's first line is the next one
        for item in items:
            total += item
    return total


def test_with_block_lines_are_read_from_the_source():
    import inspect

    from geventperf.frames import with_block_lines
    lines, first = inspect.getsourcelines(_with_block_sample)
    with_line = first + next(i for i, text in enumerate(lines) if "with lock:" in text)
    block = with_block_lines(f"{__file__}:{with_line}:_with_block_sample")
    assert block == range(with_line + 1, with_line + 3)
    # a line that is no with statement, a file that is not there, a pseudo-file: unknown
    assert with_block_lines(f"{__file__}:{with_line + 1}:_with_block_sample") is None
    assert with_block_lines("/nonexistent/app.py:12:f") is None
    assert with_block_lines("<string>:1:<module>") is None


class _TwoBlocksSample:
    def __init__(self, lock, other):
        self.lock, self.other = lock, other

    def first(self):
        with self.lock:  # sample: first block
            return 1

    def second(self):
        with self.lock:  # sample: second block
            value = 2
            return value

    def elsewhere(self):
        with self.other:  # sample: another lock
            return 3


def test_blocks_taking_the_same_expression_are_found_in_the_file():
    from tests.markers import line_of
    first, second, other = (line_of(__file__, f"# sample: {what}")
                            for what in ("first block", "second block", "another lock"))
    found = frames.blocks_taking_the_same(f"{__file__}:{first}:_TwoBlocksSample.first")
    assert found == {second: range(second + 1, second + 3)}
    assert frames.blocks_taking_the_same(f"{__file__}:{other}:_TwoBlocksSample.elsewhere") == {}
    # no with statement at that line, no source: nothing known
    assert frames.blocks_taking_the_same(f"{__file__}:{first + 1}:_TwoBlocksSample.first") == {}
    assert frames.blocks_taking_the_same("/nonexistent/app.py:12:f") == {}


def test_a_socket_read_right_from_the_programs_code_is_found_at_its_frame():
    stack = [RECV_INTO, READINTO, "/srv/store.py:34:handle", STREAM_HANDLER]
    assert frames.socket_read_depth(stack) == 2
    # the program's own frame innermost (a compiled primitive's wait), a read through a
    # library, only library frames: no socket read of the program's
    assert frames.socket_read_depth(["/srv/app.py:40:job", STREAM_HANDLER]) is None
    assert frames.socket_read_depth(
        [RECV_INTO, READINTO, f"{STDLIB}/http/client.py:286:HTTPResponse._read_status",
         "/srv/app.py:40:job"]) is None
    assert frames.socket_read_depth([RECV_INTO, READINTO]) is None


def test_a_get_whose_function_puts_back_into_the_same_object_gives_back(tmp_path):
    from geventperf.frames import gives_back
    path = tmp_path / "workers.py"
    path.write_text(
        "def handler(pool):\n"
        "    client = pool.get(timeout=60)\n"          # 2: a pool of items
        "    try:\n"
        "        return client.call()\n"
        "    finally:\n"
        "        pool.put(client)\n"
        "def worker(self, lane):\n"
        "    while True:\n"
        "        job = lane.get()\n"                  # 9: work from a queue
        "        self.results.put(job())\n"
        "def other(self):\n"
        "    return 1\n")
    assert gives_back(f"{path}:2:handler") is True
    assert gives_back(f"{path}:9:worker") is False  # (results is another object)
    assert gives_back(f"{path}:12:other") is None  # no get() there
    assert gives_back(f"{tmp_path}/missing.py:2:handler") is None


MEMOIZED = '''\
import functools, cachetools
KEPT = 64
REBOUND = 8
REBOUND = 16
@functools.lru_cache(maxsize=256)
def sized(k):
    return get(k)
@functools.lru_cache
def default_sized(k):
    return get(k)
@functools.cache
def unbounded(k):
    return get(k)
@cachetools.cached(cachetools.LRUCache(64))
def cache_object(k):
    return get(k)
@functools.lru_cache(maxsize=SIZE)
def size_in_a_variable(k):
    return get(k)
@functools.lru_cache(maxsize=KEPT)
def size_in_a_constant(k):
    return get(k)
@cachetools.cached(cachetools.LRUCache(KEPT))
def cache_object_of_a_constant(k):
    return get(k)
@functools.lru_cache(REBOUND)
def size_in_a_rebound_name(k):
    return get(k)
class Client:
    @functools.cached_property
    def one_per_object(self):
        return get(1)
def plain(k):
    return get(k)
'''


@pytest.mark.parametrize("function, told", [
    ("sized", ("functools.lru_cache(maxsize=256)", 5, 256, True)),
    ("default_sized", ("functools.lru_cache", 8, frames.LRU_CACHE_DEFAULT_MAXSIZE, True)),
    ("unbounded", ("functools.cache", 11, None, True)),
    ("cache_object", ("cachetools.cached(cachetools.LRUCache(64))", 14, 64, True)),
    ("size_in_a_variable", ("functools.lru_cache(maxsize=SIZE)", 17, None, False)),
    # a name the module binds once to a number: that number
    ("size_in_a_constant", ("functools.lru_cache(maxsize=KEPT)", 20, 64, True)),
    ("cache_object_of_a_constant", ("cachetools.cached(cachetools.LRUCache(KEPT))", 23,
                                    64, True)),
    ("size_in_a_rebound_name", ("functools.lru_cache(REBOUND)", 26, None, False)),
    ("Client.one_per_object", None),
    ("plain", None),
])
def test_a_memoizing_decorator_is_read_from_the_source(tmp_path, function, told):
    path = tmp_path / "m.py"
    path.write_text(MEMOIZED)
    name = function.rsplit(".", 1)[-1]
    line = MEMOIZED.splitlines().index(f"def {name}(k):" if "." not in function else
                                       f"    def {name}(self):") + 2
    found = frames.cache_decorator(f"{path}:{line}:{function}")
    assert (found[1:] if found else None) == told, found
