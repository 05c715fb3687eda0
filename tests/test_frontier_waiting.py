"""frontier.waiting: the deadline, the counted acquire and the condition every strategy shares."""

from __future__ import annotations

import threading
import time

import pytest

import frontier
from frontier.contract import FrontierStats
from frontier.waiting import WaitCondition, acquire_counted, deadline_of, time_left


class HeldOnce:
    """A lock that is busy at the first, non-blocking try (as if another thread held it)."""

    def __init__(self) -> None:
        self.calls: list[bool] = []

    def acquire(self, blocking: bool = True) -> bool:
        self.calls.append(blocking)
        return blocking


def test_an_uncontended_acquire_counts_one_acquisition_and_no_wait():
    lock, stats = threading.Lock(), FrontierStats()
    acquire_counted(lock, stats)
    assert lock.locked()
    assert (stats.lock_acquisitions, stats.lock_waits) == (1, 0)


def test_a_busy_lock_counts_a_wait_and_is_then_taken_blocking():
    lock, stats = HeldOnce(), FrontierStats()
    acquire_counted(lock, stats)  # type: ignore[arg-type]
    assert lock.calls == [False, True]
    assert (stats.lock_acquisitions, stats.lock_waits) == (1, 1)


def test_deadline_and_time_left():
    assert deadline_of(None) is None and time_left(None) is None
    assert 0 < time_left(deadline_of(60.0)) <= 60.0
    assert time_left(time.monotonic() - 1.0) < 0


def test_a_passed_deadline_returns_false_without_waiting_or_counting_a_sleeper():
    cond = WaitCondition(threading.Lock())
    with cond:
        assert cond.wait_until(time.monotonic() - 1.0) is False
        assert cond.sleep(time.monotonic() - 1.0) is False
        assert cond.sleepers == 0


# semaphore: each operation is a P on a counting semaphore (counted as an acquisition) and then
# the mutex; the others take one lock per operation.
@pytest.mark.parametrize("name,per_operation",
                         [("monitor", 1), ("coarse", 1), ("heap", 1), ("semaphore", 2),
                          ("fine", 1)])
def test_each_operation_counts_its_lock_acquisitions(name, per_operation):
    f = frontier.create(name, capacity=10) if frontier.info(name).bounded else frontier.create(
        name)
    for i in range(3):
        f.put(f"http://a.test/{i}")
    for _ in range(2):
        f.get(timeout=1.0)
    stats = f.stats
    assert (stats.lock_acquisitions, stats.lock_waits) == (5 * per_operation, 0)
    assert (stats.puts, stats.gets) == (3, 2)
