"""Synthetic Profiles built from profile.py's dataclasses, so format tests do not
depend on the state of the tracer.  Deterministic: the same arguments give the same
profile."""

from __future__ import annotations

import random

from geventperf.profile import Finding, GreenletStats, Profile, SectionStats, Slice, StackTime

HUB_ID = 1
SITE_PATH = "/venv/lib/python3.11/site-packages/requests/models.py"
APP_PATH = "/srv/app/worker.py"


def small_profile() -> Profile:
    """Two workers and the hub, one C section, a blocked read finding, two reads."""
    waits = [
        StackTime(stack=[f"{SITE_PATH}:816:generate", f"{SITE_PATH}:899:content",
                         f"{APP_PATH}:12:fetch", f"{APP_PATH}:30:job"],
                  count=40, wait_s=0.30),
        StackTime(stack=[f"{APP_PATH}:20:sleepy", f"{APP_PATH}:30:job"], count=2, wait_s=0.05),
    ]
    runs = [
        StackTime(stack=[f"{APP_PATH}:15:parse", f"{APP_PATH}:30:job"], count=10, run_s=0.12,
                  cpu_s=0.11),
        StackTime(stack=[f"{SITE_PATH}:816:generate", f"{SITE_PATH}:899:content",
                         f"{APP_PATH}:12:fetch", f"{APP_PATH}:30:job"], count=40, run_s=0.02,
                  cpu_s=0.02),
    ]
    slices = []
    t = 0.0
    for i in range(60):
        gid = 2 + i % 2
        section = "parse feed" if i % 5 == 0 else None
        slices.append(Slice(gid, t, 0.004, section))
        slices.append(Slice(HUB_ID, t + 0.004, 0.001, None))
        t += 0.006
    return Profile(
        duration_s=0.5, switches=123,
        hub={"id": HUB_ID, "run_s": 0.26, "cpu_s": 0.05, "idle_s": 0.2, "utilization": None,
             "polls": None, "cpu_wait_s": None, "process_cpu_s": 0.375,
             "children_cpu_s": 0.125},
        greenlets=[
            GreenletStats(id=2, name="worker-a", parent=None, run_s=0.12, cpu_s=0.11,
                          wait_s=0.30, switches=60, longest_run_s=0.004,
                          origin=f"{APP_PATH}:30:job"),
            GreenletStats(id=3, name="worker-b", parent=None, run_s=0.12, cpu_s=0.10,
                          wait_s=0.05, switches=61, longest_run_s=0.004),
        ],
        sections=[SectionStats(name="parse feed", c=True, calls=12, wall_s=0.2, run_s=0.05,
                               wait_s=0.15, switches=30, cpu_s=0.05),
                  SectionStats(name="fetch", c=False, calls=4, wall_s=0.3, run_s=0.02,
                               wait_s=0.28, switches=40, cpu_s=None)],
        waits=waits, runs=runs,
        findings=[
            Finding(kind="switch-storm", message="worker-b switched 61 times in 0.5 s",
                    greenlet=3, cost_s=0.01),
            Finding(kind="blocked-read-in-c-section",
                    message="worker-a yielded 40 times to the hub inside C section "
                            "'parse feed' (a C parser reading from a socket): read the "
                            "body first, then parse the bytes.",
                    greenlet=2, section="parse feed", stack=waits[0].stack, cost_s=0.15,
                    extra={"yields": 40}),
        ],
        reads=[{"host": "127.0.0.1:8000", "bytes": 3_000_000, "reads": 300,
                "reads_waited": 280, "wall_s": 0.2, "chunk_size": 10240,
                "framing": "content-length"},
               {"host": "127.0.0.1:8000", "bytes": 1_000_000, "reads": 2, "reads_waited": 1,
                "wall_s": 0.01, "chunk_size": 524288, "framing": "chunked"}],
        slices=slices, meta={"argv": ["worker.py", "--fast"]},
    )


def split_profile() -> Profile:
    """small_profile() with the fields of the event/ready split (issue 11): per
    greenlet, section and stack event and ready wait and delayed others, hub idle,
    utilization and polls, the ready-latency histogram, slices' ready waits, run
    metadata and findings that say what their cost means.  Set as attributes, so this
    works whether or not profile.py declares them yet."""
    profile = small_profile()
    figures = {2: (0.10, 0.20, 0.04), 3: (0.04, 0.01, 0.20)}  # event, ready, delayed
    for g in profile.greenlets:
        g.event_wait_s, g.ready_wait_s, g.delayed_others_s = figures[g.id]
    for s, (event, ready, delayed) in zip(profile.sections, ((0.05, 0.10, 0.03),
                                                             (0.20, 0.08, 0.0))):
        s.event_wait_s, s.ready_wait_s, s.delayed_others_s = event, ready, delayed
    profile.waits[0].event_wait_s, profile.waits[0].ready_wait_s = 0.10, 0.20
    profile.waits[1].event_wait_s, profile.waits[1].ready_wait_s = 0.04, 0.01
    for r, delayed in zip(profile.runs, (0.21, 0.03)):
        r.delayed_others_s = delayed
    profile.hub.update(idle_s=0.2, utilization=0.6, polls=57)
    for sl in profile.slices:
        sl.ready_s = None if sl.greenlet == HUB_ID else 0.001
    bounds = [1e-6 * 10 ** (i / 2) for i in range(15)]
    stats = {"n": 120, "counts": [0] * 6 + [20, 60, 30, 10] + [0] * 5, "p50_s": 0.001,
             "p90_s": 0.003, "p99_s": 0.009, "max_s": 0.01}
    profile.ready_latency = {"bounds_s": bounds, "overall": stats,
                             "by_name": {"worker-a": dict(stats), "worker-b": dict(stats)}}
    profile.meta.update(command="geventperf run worker.py --fast", host="buildhost",
                        python="3.11.7", gevent="26.9.0", loop="libev-cext",
                        hot_path="c", date="2026-11-23T01:30:00Z")
    for f in profile.findings:
        f.extra["cost_meaning"] = ("time this cause added to the run: event wait and CPU "
                                   "of the greenlets it touched, summed over them")
    return profile


def legacy_profile() -> Profile:
    """small_profile() as a file written before the split: none of the new fields."""
    profile = small_profile()
    profile.hub = {"id": HUB_ID, "run_s": 0.26, "cpu_s": 0.05, "idle_s": None,
                   "utilization": None, "polls": None, "cpu_wait_s": None,
                   "process_cpu_s": None, "children_cpu_s": None}
    return profile


def hostile_profile() -> Profile:
    """Names built to break out of HTML, JSON-in-script, CSV-like and line formats."""
    evil = "</script><script>alert(1)</script><!-- ;x 1\n\"'&"
    profile = small_profile()
    profile.greenlets[0].name = evil
    profile.sections[0].name = evil
    for s in profile.slices:
        if s.section:
            s.section = evil
    profile.findings[0].message = evil
    profile.waits[0].stack = [f"/srv/{evil}.py:1:{evil}"] + profile.waits[0].stack
    profile.runs[0].stack = [f"/srv/{evil}.py:2:{evil}"]
    profile.meta["argv"] = [evil]
    return profile


def big_profile(switches: int = 100_000, greenlets: int = 300, sites: int = 400,
                seed: int = 4) -> Profile:
    """A profile of the size the issue asks renderers to handle: ~*switches* slices,
    hundreds of greenlets and call sites."""
    rng = random.Random(seed)
    gids = list(range(2, greenlets + 2))
    names = [f"worker-{i}" for i in range(greenlets)]
    site_stacks = [[f"/srv/app/mod{i % 37}.py:{i}:func{i}", f"/srv/app/caller{i % 11}.py:"
                    f"{i % 50}:call{i % 11}", "/srv/app/main.py:1:main"] for i in range(sites)]
    section_names = ["parse feed", "fetch", "render", "json decode"]
    slices = []
    t = 0.0
    for _ in range(switches):
        duration = rng.expovariate(1 / 50e-6)
        gid = rng.choice(gids)
        section = rng.choice(section_names) if rng.random() < 0.2 else None
        slices.append(Slice(gid, t, duration, section))
        t += duration + rng.expovariate(1 / 5e-6)
    stats = {gid: GreenletStats(id=gid, name=names[gid - 2], parent=None) for gid in gids}
    for s in slices:
        g = stats[s.greenlet]
        g.run_s += s.duration_s
        g.cpu_s += s.duration_s * 0.9
        g.switches += 1
        g.longest_run_s = max(g.longest_run_s, s.duration_s)
    for g in stats.values():
        g.wait_s = max(t - g.run_s, 0.0)
    waits = [StackTime(stack=stack, count=rng.randint(1, 500), wait_s=rng.random())
             for stack in site_stacks]
    runs = [StackTime(stack=stack, count=rng.randint(1, 500), run_s=rng.random() / 10,
                      cpu_s=rng.random() / 10) for stack in site_stacks]
    findings = [Finding(kind="loop-blocked", message=f"{names[i]} blocked the loop",
                        greenlet=gids[i], stack=site_stacks[i], cost_s=rng.random())
                for i in range(10)]
    return Profile(duration_s=t, switches=switches,
                   hub={"id": HUB_ID, "run_s": 0.1, "cpu_s": 0.1, "idle_s": 0.5},
                   greenlets=list(stats.values()),
                   sections=[SectionStats(name=n, c=i == 0, calls=100) for i, n in
                             enumerate(section_names)],
                   waits=waits, runs=runs, findings=findings, slices=slices)


def traced_profile() -> Profile:
    """A real Profile: a small gevent workload (sleeps, CPU work, a section) traced by
    geventperf.Tracer.  Raises whatever the tracer raises (callers fail with it)."""
    import gevent

    import geventperf

    def worker(n: int) -> int:
        total = 0
        for _ in range(n):
            with geventperf.section("fetch"):  # slices that end here carry the section
                gevent.sleep(0.001)
            with geventperf.section("crunch"):
                total += sum(range(3000))
        return total

    with geventperf.Tracer() as tracer:
        gevent.joinall([gevent.spawn(worker, 15) for _ in range(4)], raise_error=True)
    return tracer.profile
