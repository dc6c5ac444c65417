"""The order the suite's tests start in (tests/conftest.py, pytest_collection_modifyitems): the
slow tests first, and with several processes each process's first run of tests begins with its
share of them."""

import pytest

from tests.conftest import pytest_collection_modifyitems


class Item:
    def __init__(self, name: str, slow: bool):
        self.name, self.slow = name, slow

    def get_closest_marker(self, name):
        return "slow" if name == "slow" and self.slow else None

    def __repr__(self):
        return self.name


def collected(count: int, slow: set[int]) -> list[Item]:
    return [Item(f"{'slow' if i in slow else 'test'}-{i}", i in slow) for i in range(count)]


def worksteal_runs(items: list, processes: int) -> list[list]:
    """The runs pytest-xdist's worksteal sends the processes at the start: each an even share of
    what is left, in order."""
    runs, pending = [], list(items)
    for run in range(processes):
        size = len(pending) // (processes - run)
        runs.append(pending[:size])
        pending = pending[size:]
    return runs


@pytest.mark.parametrize("processes", [1, 2, 3, 4])
def test_each_process_starts_with_its_share_of_the_slow_tests(monkeypatch, processes):
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", str(processes))
    items = collected(23, slow={4, 9, 10, 15, 21})
    before = list(items)
    pytest_collection_modifyitems(items)
    assert sorted(items, key=before.index) == before  # every test, once
    runs = worksteal_runs(items, processes)
    for run in runs:
        count = sum(item.slow for item in run)
        assert count in (5 // processes, -(-5 // processes)), runs
        assert all(item.slow for item in run[:count]), runs  # at its start
    # The other tests keep their order.
    assert [i for i in items if not i.slow] == [i for i in before if not i.slow]


def test_without_processes_the_slow_tests_simply_come_first(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    items = collected(6, slow={2, 5})
    pytest_collection_modifyitems(items)
    assert [i.name for i in items] == ["slow-2", "slow-5", "test-0", "test-1", "test-3", "test-4"]
