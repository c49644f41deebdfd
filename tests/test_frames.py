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
NOT_ON_A_CALL_PATH = {"demo.py", "feedserver.py", "feedworkload.py", "frames.py",
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


@pytest.mark.parametrize("stack, idle", [
    (IDLE_SERVER_STACK, True),
    (IDLE_SERVER_STACK[1:], False),  # handling a request: reading its body is no idle wait
    (["/srv/app/worker.py:12:read_requestline"], False),  # a function of that name elsewhere
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
