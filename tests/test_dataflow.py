"""dataflow.chained: whether a function's calls each read what an earlier one answered,
from its source (sequential-calls leaves such a chain alone: it is the floor)."""

from __future__ import annotations

import pytest

from geventperf.dataflow import CallLine, chained

SOURCE = '''\
def search(self, q, user):
    corrected = self.lang.correct(q)
    terms = tokenize(corrected)
    expanded = list(terms)
    for t in terms:
        expanded.extend(s for s in self.lang.synonyms(t) if s not in expanded)
    hits = self.index.candidates(expanded)
    return self.rank.scores(user, corrected, [h["id"] for h in hits])
def page(self, pid):
    product = self.catalog.get(pid)
    stock = self.stock.get(pid)
    return render(product, stock)
def order(self, oid):
    order = api.get(oid)
    if order["user"]:
        user = api.get(order["user"])
    return user
def notify(self, event):
    self.hooks.post(event)
    self.audit = self.log.post(event)
    self.metrics.post(event)
'''


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "svc.py"
    p.write_text(SOURCE)
    return p


@pytest.mark.parametrize("function, lines, told", [
    # an unseen search service: spell, synonyms (per term), index, rank, each fed the
    # answer before
    ("SearchService.search", (2, 6, 7, 8),
     [CallLine(2, False), CallLine(6, True), CallLine(7, False), CallLine(8, False)]),
    ("Page.page", (10, 11), None),  # independent: they can go together
    ("Orders.order", (14, 16), [CallLine(14, False), CallLine(16, False)]),  # in an if
    ("Orders.order", (14,), None),  # one line: nothing to chain
    ("Page.page", (10, 15), None),  # a line outside the function
    # calls through the same object, none reading another's answer: an answer kept in
    # an attribute, or a call made as a statement, does not make every later call
    # through that object need it
    ("Hooks.notify", (19, 20, 21), None),
])
def test_calls_each_fed_the_answer_before_are_a_chain(path, function, lines, told):
    assert chained([f"{path}:{line}:{function}" for line in lines]) == told


def test_no_source_or_several_functions_tell_nothing(path, tmp_path):
    assert chained([f"{tmp_path}/gone.py:2:search", f"{tmp_path}/gone.py:6:search"]) is None
    assert chained([f"{path}:2:SearchService.search", f"{path}:10:Page.page"]) is None


GATES = '''\
def rollout(pool, waves, push):
    for wave in waves:
        results = pool.map(push, wave)
        converged = sum(results)
        if converged < len(wave):
            return False
    return True


def train(steps, ship):
    for step in steps:
        record = ship(step)
        if record["failed"]:
            break


def checked(pool, waves, push):
    for wave in waves:
        if not all(pool.map(push, wave)):
            raise RuntimeError("halted")


def logged(pool, waves, push, log):
    for wave in waves:
        results = pool.map(push, wave)
        log.append(results)
        if len(log) > 100:
            break


def ship(pool, step):
    return pool.map(step, [1, 2])
'''


@pytest.mark.parametrize("stack, told", [
    (["{p}:3:rollout"], True),  # the answer, computed on, decides whether to go on
    (["{p}:12:train"], True),
    (["{p}:19:checked"], True),  # the call inside the test itself
    (["{p}:25:logged"], False),  # the loop stops on something else
    (["{p}:32:ship", "{p}:12:train"], True),  # no loop at the wait: the caller's
    (["/venv/lib/python3.11/site-packages/gevent/pool.py:202:map", "{p}:3:rollout"], True),
    (["{p}:32:ship"], False),
])
def test_a_loop_going_on_only_when_each_answer_allows_is_gated(tmp_path, stack, told):
    from geventperf.dataflow import gated
    path = tmp_path / "rollout.py"
    path.write_text(GATES)
    assert gated([entry.format(p=path) for entry in stack]) is told
