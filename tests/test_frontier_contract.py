"""The conformance suite: every registered frontier keeps the contract of frontier.contract.

Parametrized over ``frontier.names()``: registering a frontier is enough to have it tested.
"""

from __future__ import annotations

import math
import threading
import time

import pytest

import frontier
from tests.helpers import (
    BOUNDED,
    GRADED,
    PRIORITY,
    UNBOUNDED,
    join_all,
    kind,
    make,
    start_thread,
    wait_until_asleep,
)

FIXED_NAMES = {"unsynchronized", "lockfree", "optimistic", "semaphore", "monitor", "coarse", "fine"}


def test_registry_has_the_fixed_names():
    assert FIXED_NAMES <= set(frontier.names())


def test_describe_gives_one_line_each():
    described = frontier.describe()
    assert [name for name, _ in described] == frontier.names()  # each once, in order
    for name, description in described:
        assert description == frontier.info(name).description
        assert description.strip() and "\n" not in description


def test_unknown_name_lists_valid_names():
    with pytest.raises(frontier.UnknownFrontier) as err:
        frontier.create("no-such-frontier")
    for name in frontier.names():
        assert name in str(err.value)


def test_class_attributes(name):
    cls = frontier.info(name)
    assert cls.name == name
    assert cls.ordering in ("fifo", "priority")
    assert isinstance(cls.correct, bool) and isinstance(cls.bounded, bool)
    assert isinstance(frontier.create(name), frontier.Frontier)
    if name in GRADED:  # a graded class must say what its exercise asks for
        must = GRADED[name]
        says = (cls.ordering, cls.bounded, cls.correct, frontier.is_live(cls))
        assert says == (must.ordering, must.bounded, True, True), (
            f"the exercise asks for a correct, live, {must.ordering}, "
            f"{'bounded' if must.bounded else 'unbounded'} frontier; {cls.__name__} says "
            f"ordering={cls.ordering!r}, bounded={cls.bounded}, correct={cls.correct}, "
            f"live={frontier.is_live(cls)}")


def test_one_in_one_out(name):
    f = make(name)
    f.put("http://a.test/", 1.0)
    assert len(f) == 1
    assert f.get() == "http://a.test/"
    assert len(f) == 0
    f._check()


def test_order(name):
    f = make(name, capacity=10)
    urls = [f"http://a.test/{i}" for i in range(8)]
    priorities = [3.0, 1.0, 7.0, 5.0, 0.0, 6.0, 2.0, 4.0]
    for url, p in zip(urls, priorities):
        f.put(url, p)
    out = [f.get() for _ in urls]
    if kind(name).ordering == "fifo":
        assert out == urls
    else:
        assert out == [u for _, u in sorted(zip(priorities, urls), reverse=True)]
    f._check()


def test_bulk_operations(name):
    f = make(name, capacity=20)
    pairs = [(f"http://b.test/{i}", float(i % 5)) for i in range(12)]
    f.put_many(pairs)
    assert len(f) == 12
    assert f.get_many(0) == []
    first = f.get_many(5)
    rest = f.get_many(100)  # more than there is: takes what there is
    assert len(first) == 5 and len(rest) == 7
    assert sorted(first + rest) == sorted(u for u, _ in pairs)
    if kind(name).ordering == "fifo":
        assert first + rest == [u for u, _ in pairs]
    assert f.get_many(3) == []
    f.put_many([])
    assert len(f) == 0
    f._check()


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None])
def test_get_many_rejects_bad_r(name, bad):
    with pytest.raises(ValueError, match="r must be"):
        make(name).get_many(bad)


def test_stats_count_puts_and_gets(name):
    f = make(name)
    for i in range(5):
        f.put(f"u{i}")
    f.get()
    f.get_many(2)
    s = f.stats
    assert (s.puts, s.gets) == (5, 3)
    assert set(s.as_dict()) >= {"lock_acquisitions", "lock_waits", "cas_retries",
                                "optimistic_aborts", "races_detected"}


def test_get_timeout_on_empty_raises_empty(name):
    f = make(name)
    t0 = time.monotonic()
    with pytest.raises(frontier.Empty):
        f.get(timeout=0.05)
    assert 0.04 <= time.monotonic() - t0 < 2.0


def test_close_wakes_a_blocked_get(name):
    f = make(name)
    result = []
    t = start_thread(lambda: result.append(f.get()))
    wait_until_asleep([t])  # blocked in its wait, not merely started
    f.close()
    join_all([t], timeout=5)
    assert result == [None]


def test_close_then_get_drains_then_returns_none(name):
    f = make(name)
    f.put("x")
    f.put("y")
    f.close()
    assert f.closed
    assert sorted([f.get(), f.get()]) == ["x", "y"]
    t0 = time.monotonic()
    assert f.get() is None  # at once, not after a wait
    assert time.monotonic() - t0 < 1.0
    f.close()  # idempotent


def test_put_after_close_is_an_error(name):
    f = make(name)
    f.close()
    with pytest.raises(frontier.Closed, match="closed"):
        f.put("x")
    with pytest.raises(frontier.Closed):
        f.put_many([("x", 0.0)])


@pytest.mark.parametrize("name", BOUNDED)
def test_bounded_default_capacity_is_the_papers(name):
    assert frontier.create(name).capacity == frontier.DEFAULT_CAPACITY == 30


@pytest.mark.parametrize("name", BOUNDED)
def test_put_on_full_times_out(name):
    f = frontier.create(name, capacity=2)
    f.put("a")
    f.put("b")
    t0 = time.monotonic()
    with pytest.raises(frontier.Full):
        f.put("c", timeout=0.05)
    assert 0.04 <= time.monotonic() - t0 < 2.0
    assert len(f) == 2


@pytest.mark.parametrize("name", BOUNDED)
def test_blocked_put_proceeds_when_room_is_made(name):
    f = frontier.create(name, capacity=1)
    f.put("a")
    t = start_thread(f.put, "b")
    wait_until_asleep([t])
    assert f.get() == "a"
    join_all([t], timeout=5)
    assert f.get(timeout=1) == "b"


@pytest.mark.parametrize("name", [n for n in BOUNDED if kind(n).correct])
def test_close_wakes_a_blocked_put_with_closed(name):
    f = frontier.create(name, capacity=1)
    f.put("a")
    errors = []

    def producer():
        try:
            f.put("b")
        except frontier.Closed as exc:
            errors.append(exc)

    t = start_thread(producer)
    wait_until_asleep([t])
    f.close()
    join_all([t], timeout=5)
    assert len(errors) == 1


@pytest.mark.parametrize("name", BOUNDED)
@pytest.mark.parametrize("bad", [0, -3, 2.5, "30", True])
def test_bad_capacity_is_a_value_error_naming_it(name, bad):
    with pytest.raises(ValueError, match="capacity"):
        frontier.create(name, capacity=bad)


@pytest.mark.parametrize("name", UNBOUNDED)
def test_unbounded_frontiers_refuse_a_capacity(name):
    with pytest.raises(ValueError, match="capacity"):
        frontier.create(name, capacity=10)


@pytest.mark.parametrize("name", PRIORITY)
@pytest.mark.parametrize("bad", [math.nan, "high", None, [1]])
def test_priority_frontiers_reject_bad_priorities(name, bad):
    f = frontier.create(name)
    with pytest.raises(ValueError, match="priority"):
        f.put("x", bad)
    with pytest.raises(ValueError, match="priority"):
        f.put_many([("y", 1.0), ("x", bad)])


@pytest.mark.parametrize("odd", [math.nan, math.inf, -math.inf, "high", None],
                         ids=["nan", "inf", "-inf", "str", "none"])
def test_fifo_frontiers_accept_and_ignore_any_priority(name, odd):
    """The contract: "FIFO frontiers accept and ignore the priority". A FIFO put that checks
    the priority after the URL is in raises with the URL inside, uncounted."""
    if kind(name).ordering != "fifo":
        pytest.skip(f"{name} is a priority frontier: it refuses such priorities (above)")
    f = make(name, capacity=10)
    f.put("http://a.test/1", odd)
    f.put_many([("http://a.test/2", 1.0), ("http://a.test/3", odd)])
    got = [f.get(timeout=5) for _ in range(3)]
    assert sorted(got) == ["http://a.test/1", "http://a.test/2", "http://a.test/3"]
    assert (f.stats.puts, f.stats.gets, len(f)) == (3, 3, 0)


def test_a_thread_handle_is_the_frontier_for_its_thread(name):
    """``handle()`` (optional) is a thread's own way in, with the frontier's meaning: what a
    handle put is in the frontier when put returns (another thread takes it), counted, and a
    handle's put after close raises Closed. Each handle is used by its own thread only."""
    f = make(name, capacity=10)
    put, closed = threading.Barrier(3, timeout=10), threading.Event()
    after_close: list[object] = []

    def through_a_handle(t: int) -> None:
        h = frontier.thread_handle(f)
        for i in range(3):
            h.put(f"http://t{t}.test/{i}")
        put.wait()
        assert closed.wait(10)
        try:
            h.put("http://late.test/")
            after_close.append("accepted")
        except Exception as exc:  # judged below
            after_close.append(exc)

    putters = [start_thread(through_a_handle, t) for t in range(2)]
    put.wait()
    got = sorted(f.get(timeout=5) for _ in range(6))  # taken by this thread, not the putters
    assert got == sorted(f"http://t{t}.test/{i}" for t in range(2) for i in range(3))
    assert (f.stats.puts, f.stats.gets, len(f)) == (6, 6, 0)
    f.close()
    closed.set()
    join_all(putters, timeout=10)
    assert len(after_close) == 2 and all(isinstance(e, frontier.Closed) for e in after_close), (
        f"a handle's put after close: {after_close}")


def test_check_priority():
    from frontier.contract import check_priority

    assert check_priority(3) == 3.0
    assert check_priority(-math.inf) == -math.inf
    for bad in (math.nan, "1", None, True):
        with pytest.raises(ValueError):
            check_priority(bad)
