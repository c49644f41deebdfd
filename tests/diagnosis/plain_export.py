"""CSV exports streamed uncompressed over a slow link, more than the pool runs at once.

Truth by construction: six jobs in a Pool of two stream a CSV export each
through ``csv.reader`` over ``response.raw``; the upstream sends each body in 16 KiB
pieces with a pause before each (a link of ~1.6 MB/s).  With ``accept=identity`` the
requests ask for the bodies as they are (so that the reader does not see gzip bytes),
and every byte crosses the slow link: waiting for the bytes is the run, and the Pool
of two, deliberate (the exporter's limit), is only where the jobs queue.  Expected:
``uncompressed-bodies`` first, at the reading line, naming the request's line.
"""

import csv
import io
import sys

import gevent
import requests
from gevent.pool import Pool

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
HEADERS = {"Accept-Encoding": "identity"} if ARGS.get("accept") == "identity" else {}
JOBS = int(ARGS.get("jobs", 6))
session = requests.Session()


def export():
    with session.get(ARGS["url"], headers=HEADERS, stream=True, timeout=30) as r:  # diag: request
        r.raw.auto_close = False
        r.raw.decode_content = True
        rows = csv.reader(io.TextIOWrapper(r.raw, encoding="utf-8", newline=""))
        return sum(1 for _row in rows)  # diag: culprit


pool = Pool(int(ARGS.get("pool", 2)))
jobs = [pool.spawn(export) for _ in range(JOBS)]
gevent.joinall(jobs, raise_error=True)
assert len({job.value for job in jobs}) == 1, [job.value for job in jobs]
