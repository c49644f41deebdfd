"""The fuzz budgets (tests/fuzz_budget.py) really stop a runaway example."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from tests import fuzz_budget

# A runaway must be stopped near its budget, not minutes later: the CPU alarm fires
# within one interpreter check after the budget (well under a second of CPU).
SHORT_CPU_BUDGET_S = 0.2
SMALL_MEMORY_BUDGET = 256 * 1024 ** 2


def test_cpu_budget_stops_a_busy_loop():
    with pytest.raises(fuzz_budget.OverBudget, match="the loop used more than its 0.2 s"):
        with fuzz_budget.cpu_budget(SHORT_CPU_BUDGET_S, "the loop"):
            while True:
                pass


def test_cpu_budget_cannot_be_swallowed_by_the_code_under_test():
    def careless():
        while True:
            try:
                sum(range(1000))
            except Exception:  # noqa: BLE001 - what requests/urllib3 do in places
                pass

    with pytest.raises(fuzz_budget.OverBudget):
        with fuzz_budget.cpu_budget(SHORT_CPU_BUDGET_S, "careless"):
            careless()


def test_cpu_budget_leaves_a_quick_example_alone_and_disarms():
    import signal
    with fuzz_budget.cpu_budget(SHORT_CPU_BUDGET_S, "quick"):
        sum(range(1000))
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_address_space_budget_turns_a_huge_allocation_into_a_failure():
    with fuzz_budget.address_space_budget(SMALL_MEMORY_BUDGET) as limit:
        assert limit is not None
        with pytest.raises(fuzz_budget.OverBudget, match="address-space budget"):
            with fuzz_budget.cpu_budget(10, "the hog"):
                blocks = [bytearray(64 * 1024 ** 2) for _ in range(64)]  # 4 GiB
                del blocks
    bytearray(512 * 1024 ** 2)  # and the limit is lifted afterwards


def test_an_example_over_budget_is_a_saved_failure():
    db = InMemoryExampleDatabase()

    @settings(database=db, max_examples=5, deadline=None)
    @given(st.integers(0, 10))
    def runaway(n):
        with fuzz_budget.cpu_budget(SHORT_CPU_BUDGET_S, "runaway"):
            while n >= 0:
                pass

    with pytest.raises(fuzz_budget.OverBudget):
        runaway()
    assert list(db.data.values()), "hypothesis kept no failing example"
