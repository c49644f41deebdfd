"""The program's own clients of its own servers (findings/ownclients.py), and what the
findings leave out or count for them; with the repeated request across hosts and the
lock held across it, and a storm's share of the others' queueing, found beside them in
the same unseen round.  Built profiles: the traced workloads are tests/test_diagnosis.py's
(n_plus_one.py with clients=here)."""

from __future__ import annotations

from geventperf import findings
from geventperf.findings.ownclients import (
    own_client_wait,
    own_server_callers,
    own_server_hosts,
)
from geventperf.findings.repeated import after_repeats_told, repeated_requests
from geventperf.profile import Finding, GreenletStats, StackTime
from tests.test_findings import APP, GEVENT
from tests.test_mut_findings import profile, repeated_profile

CLIENT_LINE = f"{APP}:70:load_client"
HEAD = [f"{GEVENT}:687:SocketMixin.recv_into",
        "/py/lib/python3.11/http/client.py:325:HTTPResponse.begin"]


def served(port: int = 8080, *pools: dict) -> list[dict]:
    """A pywsgi server on *port* and *pools*' events."""
    return [{"kind": "pywsgi-responses", "served": 100, "responses": 100, "kept": 0,
             "nagle": 0, "connections": 4, "servers": 1, "ports": [port]}, *pools]


def pool(host: str, sites: list, calls: int = 100, **extra) -> dict:
    return {"kind": "urllib3-pool", "pool": host, "calls": calls,
            "call_sites": [[site, n] for site, n in sites], **extra}


def test_the_lines_calling_the_programs_own_server_are_its_own_clients():
    p = profile(events=served(8080,
                              pool("http://127.0.0.1:8080", [(CLIENT_LINE, 64)]),
                              pool("http://localhost:8080", [(f"{APP}:71:other", 3)]),
                              pool("http://127.0.0.1:9090", [(f"{APP}:90:upstream", 64)]),
                              pool("http://10.0.0.1:8080", [(f"{APP}:91:remote", 64)]),
                              pool("<other pools>", [(f"{APP}:92:folded", 1)])))
    assert own_server_callers(p) == {CLIENT_LINE, f"{APP}:71:other"}
    assert [e["pool"] for e in own_server_hosts(p)] == ["http://127.0.0.1:8080",
                                                        "http://localhost:8080"]


def test_without_a_server_of_its_own_no_line_is_its_own_client():
    # a pool event of loopback, and no server in the process (another process's)
    p = profile(events=[pool("http://127.0.0.1:8080", [(CLIENT_LINE, 64)])])
    assert own_server_callers(p) == set() and own_client_wait(p) == 0.0


def test_own_clients_wait_is_their_http_waits_at_those_lines():
    waits = [StackTime(stack=[*HEAD, CLIENT_LINE], count=10, wait_s=3.0, event_wait_s=2.5),
             # the same line waiting on something else than an HTTP answer: not counted
             StackTime(stack=[f"{GEVENT}:166:sleep", CLIENT_LINE], count=10, wait_s=1.0,
                       event_wait_s=1.0),
             StackTime(stack=[*HEAD, f"{APP}:90:upstream"], count=10, wait_s=4.0,
                       event_wait_s=4.0)]
    p = profile(waits=waits, events=served(
        8080, pool("http://127.0.0.1:8080", [(CLIENT_LINE, 64)]),
        pool("http://127.0.0.1:9090", [(f"{APP}:90:upstream", 64)])))
    assert own_client_wait(p) == 2.5


def test_a_methods_calls_are_matched_by_line_whatever_the_name():
    """The pool watch names a call site's function by its code's name (``account``), a
    stack's frame by its qualified name (``LedgerClient.account``): compared whole, a
    method's calls of the program's own server were never its own clients' (an unseen
    reconciliation job's 6 900 ledger lookups, 74 s of waiting, hid its loop 85 % busy
    behind "cpu-starved")."""
    waits = [StackTime(stack=[*HEAD, f"{APP}:193:LedgerClient.account"], count=10,
                       wait_s=3.0, event_wait_s=2.5),
             StackTime(stack=[*HEAD, f"{APP}:194:LedgerClient.account"], count=10,
                       wait_s=1.0, event_wait_s=1.0)]  # (another line: not counted)
    p = profile(waits=waits, events=served(
        8080, pool("http://127.0.0.1:8080", [(f"{APP}:193:account", 64)])))
    assert own_client_wait(p) == 2.5


SPAWNED_GET = [*HEAD, "/venv/lib/python3.11/site-packages/requests/sessions.py:671:Session.get"]


def test_calls_with_no_frame_of_the_programs_are_its_own_clients_when_only_its_servers_got_them():
    """A greenlet spawned to run session.get itself has none of the program's frames:
    its pool watch site is "<unknown>" (an unseen quote collector's 1 680 gets of its
    in-process suppliers, 157 s of waiting, hid its loop 99 % busy); unless another
    host got calls made that way too, which are the program's real I/O."""
    waits = [StackTime(stack=SPAWNED_GET, count=10, wait_s=3.0, event_wait_s=2.5)]
    own = pool("http://127.0.0.1:8080", [("<unknown>", 64)])
    p = profile(waits=waits, events=served(8080, own))
    assert own_client_wait(p) == 2.5
    also = pool("http://10.0.0.1:80", [("<unknown>", 64)])
    p = profile(waits=waits, events=served(8080, own, also))
    assert own_client_wait(p) == 0.0


HANDLER_CALL = StackTime(stack=[*HEAD, f"{APP}:30:handler",
                                "/venv/lib/python3.11/site-packages/gevent/pywsgi.py:1000:"
                                "WSGIHandler.run_application"],
                         count=5, wait_s=0.5, event_wait_s=0.5)


def test_a_load_test_asking_the_programs_own_service_alike_is_no_missing_cache():
    # the same POST 20 times of 80 (repeated_profile's, told), but to the program's own
    # server, whose handlers call out: a service under its load generator, asking alike
    # by design
    p = repeated_profile()
    assert repeated_requests(p)
    p.events[0]["pool"] = "http://127.0.0.1:8080"
    p.events = served(8080, *p.events)
    p.waits.append(HANDLER_CALL)
    assert repeated_requests(p) == []


def test_repeats_to_in_process_stand_ins_for_upstreams_are_told():
    # the same, the program's servers only answering (no handler calls out): stand-ins for
    # the upstreams it calls (an unseen crawler's in-process sites), its real work
    p = repeated_profile()
    p.events[0]["pool"] = "http://127.0.0.1:8080"
    p.events = served(8080, *p.events)
    assert repeated_requests(p)


def test_one_request_from_one_line_to_several_hosts_is_told_as_one():
    # robots.txt fetched 12 times from each of 5 sites, by one line, beside 12 pages of
    # each: 10 % of the calls per host, 50 % together
    line = f"{APP}:78:_load"
    hosts = [{"kind": "urllib3-pool", "pool": f"http://127.0.0.1:{9000 + n}", "calls": 24,
              "distinct_gets": 13, "distinct_sent": 0,
              "same_requests": [["GET /robots.txt", 12, line], ["GET /p/1", 1, f"{APP}:90:page"]]}
             for n in range(5)]
    p = profile(events=hosts, waits=[StackTime(stack=[*HEAD, line], count=60, wait_s=3.0,
                                               event_wait_s=3.0)])
    [found] = repeated_requests(p)
    assert found.extra["count"] == 60 and found.extra["hosts"] == 5
    assert "GET /robots.txt (to each of 5 hosts, " in found.message
    # one host alone: 12 of 24 calls, its share of the 120 under REPEATED_SHARE
    p.events = hosts[:1] + [dict(h, same_requests=[["GET /p/1", 1, f"{APP}:90:page"]])
                            for h in hosts[1:]]
    assert repeated_requests(p) == []


def test_one_path_asked_once_of_each_of_many_hosts_is_no_repeat():
    # GET /admin/version once to each of 64 nodes (an unseen rollout checking each
    # node's own state) beside 64 pushes: each host's first ask is needed, no cache
    # skips it; twice to each of 20 hosts: 20 asks past the first, told
    def asked(hosts, each):
        line = f"{APP}:202:push_node"
        events = [{"kind": "urllib3-pool", "pool": f"http://127.0.0.1:{9000 + n}",
                   "calls": each + 1, "distinct_gets": 2, "distinct_sent": 1,
                   "same_requests": [["GET /admin/version", each, line],
                                     [f"PUT /admin/config #{n:08x}", 1, f"{APP}:190:push"]]}
                  for n in range(hosts)]
        return repeated_requests(profile(events=events, waits=[StackTime(
            stack=[*HEAD, line], count=hosts * each, wait_s=1.6, event_wait_s=1.6)]))
    assert asked(64, 1) == []
    [found] = asked(20, 2)
    assert found.extra["count"] == 40 and "(to each of 20 hosts, " in found.message


def test_a_lock_held_mostly_across_a_repeated_request_ranks_after_it():
    repeat = Finding(kind=findings.REPEATED_REQUEST, message="same", cost_s=1.0,
                     extra={"site": f"{APP}:78:_load"})
    lock = Finding(kind=findings.LOCK_CONTENDED, message="A lock. [cost 5.000 s: waits]",
                   cost_s=5.0, extra={"held_mostly_at": [f"{APP}:116:Crawler.fetch",
                                                         f"{APP}:78:Robots._load"]})
    other = Finding(kind=findings.LOCK_CONTENDED, message="Another. [cost 4.000 s: waits]",
                    cost_s=4.0, extra={"held_mostly_at": [f"{APP}:79:Robots._load"]})
    ranked = findings.sort_findings(after_repeats_told([lock, other, repeat]))
    assert ranked == [other, repeat, lock]
    assert lock.message.startswith("A lock. Most of what its holders waited on under it was "
                                   f"the same request made again and again at {APP}:78:_load")
    assert lock.message.endswith(" [cost 5.000 s: waits]")
    assert other.message == "Another. [cost 4.000 s: waits]"


def storm_of_work(mean_run_s: float, stack: list[str]):
    """A storm of 2000 switch-outs, others queued 1 s behind its slices, the hub's mean
    time per switch 0.25 ms (tests/test_mut_findings.py's storm)."""
    hub = GreenletStats(id=2, name="hub", parent=None, run_s=1.5, switches=4000)
    p = profile(runs=[StackTime(stack=stack, count=2000, run_s=2000 * mean_run_s, greenlet=3,
                                delayed_others_s=1.0)],
                waits=[StackTime(stack=stack, count=2000, wait_s=0.1, event_wait_s=0.1)])
    p.greenlets[1] = hub
    p.hub["idle_s"] = 0.5
    return findings.switch_storms(p)


def test_a_storms_share_of_the_queueing_is_its_switchings_share_of_the_time():
    # 0.25 ms of work between switches of 0.25 ms: half of the others' queueing is the
    # switching's, the rest the work that fewer round trips would still do
    reads = [f"{GEVENT}:687:SocketMixin.recv_into", f"{APP}:12:command"]
    [found] = storm_of_work(0.25e-3 / 10, reads)  # under the storm's 50 us: 25 us
    share = 0.25e-3 / (0.25e-3 + 25e-6)
    assert abs(found.extra["others_ready_wait_s"] - share) < 1e-9
    # a spin-wait's slices do nothing: all of the queueing is its
    spin = [f"{GEVENT.replace('_socketcommon', 'hub')}:166:sleep", f"{APP}:3:spin"]
    [spun] = storm_of_work(1e-6, spin)
    assert spun.extra["others_ready_wait_s"] == 1.0


def test_own_clients_waits_are_not_the_io_a_saturated_loop_is_weighed_against():
    # saturated_edge's worker: 2 s queued against 2.5 s of event wait, of which 1 s its
    # load clients' waits for the program's own server's answers: 2 against 1.5, told
    from tests.test_mut_findings import saturated_edge
    p = saturated_edge(ready=2.0, event=2.5)
    p.waits = [StackTime(stack=[*HEAD, CLIENT_LINE], count=10, wait_s=1.0, event_wait_s=1.0)]
    assert findings.loop_saturated(p) == []
    p.events = served(8080, pool("http://127.0.0.1:8080", [(CLIENT_LINE, 64)]))
    assert findings.loop_saturated(p)
