"""Ten greenlets call an upstream that answers after 0.3 s with a read timeout of 0.05 s,
three times each, and carry on when the call times out.

Truth by construction: every call raises ``ReadTimeout`` after waiting its whole 0.05 s
timeout at the ``session.get`` line (``diag: culprit``): the time goes to answers that
never come, while the report's other tables show plain network waits, as if the
upstream were merely slow.  Expected first finding ``requests-failed`` there, naming
``caller``.  With ``timeout=1`` every call gets its answer: no ``requests-failed``.
"""

import sys

import gevent
import requests
from _greenlets import spawn

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
GREENLETS = 10
CALLS = 3
TIMEOUT = float(ARGS.get("timeout", 0.05))
session = requests.Session()


def caller():
    answered = 0
    for _ in range(CALLS):
        try:
            answered += len(session.get(ARGS["slow"], timeout=TIMEOUT).content)  # diag: culprit
        except requests.exceptions.Timeout:
            pass
    return answered


gevent.joinall([spawn("caller", caller) for _ in range(GREENLETS)], raise_error=True)
