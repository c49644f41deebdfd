"""The five answers a reader wants before any table, as sentences with units:
who lost the most time, whether it was I/O or queueing, who held the loop, what to
fix first and what that fix is worth.  Computed from the Profile only; a figure the
profile lacks makes its answer say so instead of guessing."""

from __future__ import annotations

from collections import defaultdict

from geventperf.findings.common import CONNECTION_GREENLET, _base_name
from geventperf.findings.cpuhot import hot_code
from geventperf.findings.handoff import HANDOFF_SHARE, handoff_share
from geventperf.findings.held import _calls_each, calls_at, served_in_process
from geventperf.findings.limits import switched_out_at
from geventperf.formats._fields import num, utilization
from geventperf.formats._frames import format_seconds, frame_label
from geventperf.formats._tables import SELF, Group, Site, greenlet_groups, merge_sites
from geventperf.frames import is_idle_server_wait, user_site
from geventperf.profile import EXIT, Profile

# Above this share of the waiting, one kind of wait is "mostly" the story.
MOSTLY = 0.6
# A second wait site is named beside the first from this share of all waiting on.
NEXT_SITE_SHARE = 0.25
# Where the CPU went is told from this share of the run the loop was busy on.
BUSY_TOLD = 0.25


def where_in(site: Site) -> str:
    """``mostly in that line itself (taking a gevent lock or semaphore)`` or ``mostly in
    HTTPResponse.read (site-packages/urllib3/response.py:1134)``."""
    if not site.libraries:
        return "in your own code"
    top = max(site.libraries.items(), key=lambda kv: kv[1])[0]
    if top == SELF:
        return f"mostly in that line itself ({site.self_text()})"
    return f"mostly in {frame_label(top)}"


def fix_of(message: str) -> str:
    """The fix a finding's message proposes ("... Fix: do this. [cost ...]"), else the
    whole message without its cost note."""
    text = message.split(" [cost ", 1)[0].strip()
    index = text.find("Fix: ")
    return text[index + len("Fix: "):] if index >= 0 else text


def idle_by_group(profile: Profile, groups: list[Group]) -> dict[str, list[float]]:
    """Group name -> [wait, event wait] its greenlets spent as server connections
    awaiting their client's next request (frames.is_idle_server_wait): a wait row
    knows its greenlet by the run slice that ended at its stack."""
    ended = switched_out_at(profile)
    owner = {gid: g.name for g in groups for gid in g.ids}
    idle: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for w in profile.waits:
        name = owner.get(ended.get(tuple(w.stack))) if is_idle_server_wait(w.stack) else None
        if name is not None:
            event = num(w, "event_wait_s")
            idle[name][0] += w.wait_s
            idle[name][1] += w.wait_s if event is None else event
    return idle


def calls_each_at(profile: Profile, line: str) -> str:
    """What pool-full tells of a full Pool's jobs (held._calls_each), for the greenlets
    that waited at the program's *line*, whoever started them: a sentence when they
    made many calls each there, one after another; "" otherwise.  An unseen device
    sync's 10 tenant greenlets walked a cursor in pages of 25, 160 calls each at one
    line, and the report said only where they waited; pages of 1 000 took 10x less.
    Not a finding: the profile cannot tell such a walk from workers taking independent
    items one at a time by design, so the reader is given the figure and both levers.
    Nor for greenlets other than a server's connections whose calls there were no more
    than the requests the program's own servers answered: most likely its load
    generator, making calls one after another by design (an unseen price service's 16
    in-process clients were told "75 calls per job ... ask for larger pages")."""
    ended = switched_out_at(profile)
    rows = [w for w in profile.waits if user_site(w.stack).user == line]
    names = {_base_name(g.name) for w in rows
             if (g := profile.greenlet(ended.get(tuple(w.stack)))) is not None
             and g.id != profile.hub.get("id")}
    if not all(CONNECTION_GREENLET in name for name in names) \
            and calls_at(rows, line) <= served_in_process(profile):
        return ""
    return _calls_each(profile, sorted(names), rows, line,
                       gain="each greenlet waits through fewer round trips",
                       subject=f"At {frame_label(line)}, that is")


def at_a_glance(profile: Profile) -> list[list[str]]:
    """[question, answer] pairs."""
    groups = greenlet_groups(profile)
    answers = []
    if groups:
        # a service's handlers awaiting their clients' next requests lost nothing
        idle = idle_by_group(profile, groups)
        worst = max(groups, key=lambda g: g.wait_s - idle.get(g.name, [0.0, 0.0])[0])
        idle_wait, idle_event = idle.get(worst.name, [0.0, 0.0])
        answers.append(["Who lost the most time?",
                        f"{worst.label} ({worst.n} greenlet"
                        f"{'s' if worst.n != 1 else ''}): waited "
                        f"{format_seconds(worst.wait_s - idle_wait)}"
                        + (f" (besides {format_seconds(idle_wait)} awaiting their clients' "
                           "next requests: idle)" if idle_wait else "")
                        + f" and ran {format_seconds(worst.run_s)}, summed over its greenlets "
                        f"(greenlet-seconds, in a {format_seconds(profile.duration_s)} run)."])
        event, ready = worst.event_wait_s, worst.ready_wait_s
        if event is not None:
            event = max(0.0, event - idle_event)
        if event is not None and ready is not None and event + ready > 0:
            share = ready / (event + ready)
            handoffs = handoff_share(profile)
            # a share of no event wait at all says nothing (a CPU-bound run's joinall)
            waited_on_others = handoffs is not None and handoffs >= HANDOFF_SHARE \
                and event > 0
            if share >= MOSTLY:
                kind = "mostly queueing: ready to run, but others held the loop"
            elif share > 1 - MOSTLY:
                kind = "both I/O and queueing"
            elif waited_on_others:
                kind = "mostly waiting for other greenlets, not for the network"
            else:
                kind = "mostly I/O: waiting for the network, a timer or a lock"
            util = utilization(profile)
            answers.append(["I/O or queueing?",
                            f"{kind} (event wait {format_seconds(event)}, ready wait "
                            f"{format_seconds(ready)}, {share:.0%} queueing)"
                            + (f"; the loop was busy {util:.0%} of the run" if util is not None
                               else "")
                            + (f"; {handoffs:.0%} of all event wait was at hand-offs (a "
                               "queue's get, an event's wait, a join)."
                               if waited_on_others else ".")])
        else:
            answers.append(["I/O or queueing?", "not recorded: this profile does not "
                            "split waits into event and ready wait."])
    if profile.waits:
        # a server's connections waiting for their client's next request are idle
        # capacity: left out, or the top site of every service would be that wait
        merged = merge_sites(profile.waits, "wait")
        sites = [site for site in merged if not site.idle]
        idle = sum(site.seconds for site in merged if site.idle)
        total = sum(site.seconds for site in sites)
        besides = (f" (besides {format_seconds(idle)} of server connections waiting for "
                   "their client's next request: idle, not a cost)" if idle > 0 else "")
        if total > 0 and sites[0].user:
            top = sites[0]
            # a second line that held a quarter too is a story of its own (an unseen
            # service's handlers waited 34 % at an Event a refresher kept clear, under
            # the 63 % at their upstream call, and no finding told it)
            second = sites[1] if len(sites) > 1 and sites[1].user \
                and sites[1].seconds >= NEXT_SITE_SHARE * total else None
            answers.append(["Where was the waiting?",
                            f"{format_seconds(top.seconds)} of the {format_seconds(total)} "
                            f"waited ({top.seconds / total:.0%}) at your line "
                            f"{frame_label(top.user)}, {where_in(top)}{besides}"
                            + (f"; next {format_seconds(second.seconds)} "
                               f"({second.seconds / total:.0%}) at {frame_label(second.user)}, "
                               f"{where_in(second)}" if second is not None else "")
                            + "." + calls_each_at(profile, top.user)])
    holders = [g for g in groups if (g.delayed_others_s or 0) > 0]
    if holders:
        top = max(holders, key=lambda g: g.delayed_others_s or 0.0)
        sites = [s for s in merge_sites(profile.runs, "run") if (s.delayed_s or 0) > 0]
        user = sites[0].user if sites else None
        where = ", mostly in slices that ended as its greenlets exited" if user == EXIT \
            else f", mostly in slices ending at {frame_label(user)}" if user else ""
        # what it burned the CPU on (a "FINDINGS: none" run's queueing still has a
        # cause: an unseen minting job's PBKDF2 in each job's last slice, half the run)
        hot = hot_code(profile, {top.name})
        answers.append(["Who held the loop?",
                        f"{top.label}: others waited {format_seconds(top.delayed_others_s)} "
                        f"(greenlet-seconds) ready to run while it ran{where}"
                        + (f"; {hot.told()}." if hot is not None else ".")])
    elif groups:
        answers.append(["Who held the loop?", "not recorded, or nobody: no greenlet "
                        "delayed others that were ready to run."])
    busy = utilization(profile)
    if busy is not None and busy >= BUSY_TOLD:
        # where the loop's busy time went, whoever waited for it (an unseen export's
        # serial CPU phase in its main greenlet, half the run, kept nobody else waiting,
        # and the report said only "mostly I/O")
        names = {_base_name(g.name) for g in profile.greenlets
                 if g.id != profile.hub.get("id")}
        hot = hot_code(profile, names)
        if hot is not None:
            answers.append(["Where did the CPU go?", f"the loop was busy {busy:.0%} of the "
                            f"run; {hot.told()}."])
    if profile.findings:
        from geventperf.formats.text import cost_meaning, ranked_findings
        first = ranked_findings(profile)[0]
        answers.append(["What to fix first?", f"{first.kind} (finding 1 below): "
                        f"{fix_of(first.message)}"])
        saving = cost_meaning(first)
        answers.append(["What would it save?", f"up to the finding's {saving}."])
    else:
        answers.append(["What to fix first?", "no findings: nothing looked wrong."])
    return answers


