"""Tracer workloads that need a monkey-patched process (or may hang one).

Run as ``python tests/tracer_scenarios.py SCENARIO OUT.json``: patches gevent, starts a
slow local HTTP server on 127.0.0.1, runs the scenario under a Tracer and saves the
profile to OUT.json.  The test process stays unpatched and gives every run a hard
timeout, so the deadlock scenario can never hang the suite.
"""

from gevent import monkey

monkey.patch_all()

import sys  # noqa: E402

import gevent  # noqa: E402
import lxml.etree  # noqa: E402
import requests  # noqa: E402
from gevent.pywsgi import WSGIServer  # noqa: E402

from geventperf import Tracer  # noqa: E402

# The body trickles out in this many items with this pause before each: every read
# lxml makes finds the socket empty and waits on the hub (~0.2 s in all).
ITEMS = 20
ITEM_PAUSE_S = 0.01


def slow_xml(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/xml")])

    def body():
        yield b"<feed>"
        for i in range(ITEMS):
            gevent.sleep(ITEM_PAUSE_S)
            yield b"<item>%d</item>" % i
        yield b"</feed>"

    return body()


# One parser object shared by every greenlet: its lock is the one that deadlocks.
SHARED_PARSER = lxml.etree.XMLParser()


def fetch_and_parse(url, parser=None):
    response = requests.get(url, stream=True, timeout=30)
    tree = lxml.etree.parse(response.raw, parser)  # the pattern under test
    return len(tree.getroot())


def main(scenario: str, out: str) -> None:
    server = WSGIServer(("127.0.0.1", 0), slow_xml, log=None)
    server.start()
    url = f"http://127.0.0.1:{server.server_port}/feed.xml"
    parser = None
    if scenario == "one-parse":
        tracer = Tracer()
        greenlets = 1
    elif scenario == "two-parses":
        tracer = Tracer()
        greenlets = 2
    elif scenario == "two-parses-guarded":
        tracer = Tracer(lxml_guard=True)
        greenlets = 2
    elif scenario == "two-parses-shared-parser-guarded":
        tracer = Tracer(lxml_guard=True)
        greenlets = 2
        parser = SHARED_PARSER
    elif scenario == "two-parses-own-parsers":
        tracer = Tracer()
        greenlets = 2
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    with tracer:
        if scenario == "two-parses-own-parsers":  # each parse its own parser, and lock
            jobs = [gevent.spawn(fetch_and_parse, url, lxml.etree.XMLParser())
                    for _ in range(greenlets)]
        else:
            jobs = [gevent.spawn(fetch_and_parse, url, parser) for _ in range(greenlets)]
        gevent.joinall(jobs, raise_error=True)
    assert [job.value for job in jobs] == [ITEMS] * greenlets
    tracer.profile.save(out)
    server.stop()
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
