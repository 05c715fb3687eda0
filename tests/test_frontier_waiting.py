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


def test_a_semaphore_put_waits_out_a_slot_still_claimed_by_a_get_in_flight():
    """Capacity 1, full; a get has taken the URL but not yet given its slot back (between its
    take and its V). A put with no time to wait must not answer Full: the buffer is empty and
    the slot is the get's to return (``_settle`` waits for it)."""
    from tests.helpers import join_all, start_thread

    f = frontier.create("semaphore", capacity=1)
    f.put("http://a.test/")
    in_take, release, settling = threading.Event(), threading.Event(), threading.Event()
    v, settle = f._empty_slots.V, f._settle

    def held_v(n: int = 1) -> None:  # the get's V(empty_slots), held until released
        in_take.set()
        assert release.wait(30)
        v(n)

    def watched_settle(slots, full):
        settling.set()
        return settle(slots, full)

    f._empty_slots.V = held_v
    f._settle = watched_settle
    got, put = [], []
    getter = start_thread(lambda: got.append(f.get()))
    assert in_take.wait(30)
    f._empty_slots.V = v  # only the getter's V is held

    def try_put() -> None:
        try:
            f.put("http://b.test/", timeout=0)
            put.append("stored")
        except frontier.Full:
            put.append("Full")

    putter = start_thread(try_put)
    assert settling.wait(30)  # the put's P gave up and it is settling
    release.set()
    join_all([getter, putter], timeout=30)
    assert got == ["http://a.test/"] and put == ["stored"]
    assert f.get(timeout=0) == "http://b.test/"
