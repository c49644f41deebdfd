"""A digest sender with its upstreams in the same process (gevent WSGI servers, as a
service calling a sidecar app of its own): each job fetches a user, builds its digest
template anew (compiling generated Python source) and posts the result.

Truth by construction (run monkey-patched): 300 jobs in a ``gevent.pool.Pool(20)``;
the compile per job (``diag: culprit``) takes most of the loop's CPU, and the jobs
queue for it.  The servers' kept-alive connections spend the run awaiting their
client's next request: idle capacity, which must not count as I/O the jobs awaited.
Expected first finding ``loop-saturated``, its CPU at the compile.
"""

import socket
import sys

import gevent
import gevent.pool
import requests
from gevent.pywsgi import WSGIServer

ARGS = dict(arg.split("=", 1) for arg in sys.argv[1:])
JOBS = 300
SECTIONS = 120


def upstream(environ, start_response):
    environ["wsgi.input"].read()
    gevent.sleep(0.01)
    start_response("200 OK", [("Content-Length", "2")])
    return [b"ok"]


def template_source():
    lines = ["def render(user):", "    out = []"]
    lines += [f"    out.append('section {n}: ' + user + ' ' + str({n} * 2))"
              for n in range(SECTIONS)]
    return "\n".join(lines + ["    return ''.join(out)"])


def render(user):
    scope = {}
    exec(compile(template_source(), "digest", "exec"), scope)  # diag: culprit
    return scope["render"](user)


class Server(WSGIServer):
    def handle(self, sock, address):
        # as production servers do (without it: server-nagle's story, not this one)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().handle(sock, address)


# two services (users, digests), each with its kept-alive connections
servers = [Server(("127.0.0.1", 0), upstream, log=None) for _ in range(2)]
for server in servers:
    server.start()
users, digests = (f"http://127.0.0.1:{server.server_port}" for server in servers)
session = requests.Session()
session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=20))


def job(n):
    session.get(f"{users}/users/{n}", timeout=30).close()
    session.post(f"{digests}/digests", data=render(f"user{n}"), timeout=30).close()


gevent.pool.Pool(20).map(job, range(JOBS))
for server in servers:
    server.stop(timeout=0.1)
