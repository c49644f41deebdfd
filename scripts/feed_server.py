"""The geventperf feed server, standalone: point your own worker at it.

    python scripts/feed_server.py --port 8000 --size 524288 --piece 16384 --delay 0.004 \
        --latency 0.02

Prints its URL on the first line of stdout, then serves ``/feed/N.json`` and
``/feed/N.xml`` (and an index at ``/``) until Ctrl-C: each response after
``--latency`` seconds, its body at ``--piece`` bytes per ``--delay`` seconds.  Same as
``python -m geventperf.feedserver``.
"""

from __future__ import annotations

import sys

from geventperf.feedserver import main

if __name__ == "__main__":
    sys.exit(main())
