"""Many threads at once: nothing lost, nothing duplicated; and the racy frontier caught racing.

Every wait is bounded (joins with a deadline, gets with timeouts, daemon threads), so a deadlock
fails a test instead of hanging the run.
"""

from __future__ import annotations

import inspect
import sys
import time
import uuid
from collections import Counter

import pytest

import frontier
from exercises.noise import noise
from tests.helpers import (
    CORRECT,
    GRADED,
    join_all,
    kind,
    make,
    start_thread,
    wait_until,
    wait_until_asleep,
)

PRODUCERS = CONSUMERS = 8
URLS = 50_000


def _move(f, producers: int, consumers: int, n: int, get_timeout: float | None = None):
    """Push ``n`` distinct URLs through ``f`` with the given threads; return what came out.
    The URLs have the shape of the judge's plans (:mod:`exercises.evidence`), with a fresh
    token each run: a graded file cannot tell one check from the other by its URLs."""
    per = n // producers
    token = uuid.uuid4().hex[:12]
    taken: list[list[str]] = [[] for _ in range(consumers)]

    def produce(p: int) -> None:
        urls = [f"http://site{p}.test/{token}/{i}" for i in range(per)]
        if p % 2:  # half the producers use the bulk operation, in small batches
            for i in range(0, per, 10):
                f.put_many((u, float(i)) for u in urls[i : i + 10])
        else:
            for i, u in enumerate(urls):
                f.put(u, float(i))

    def consume(c: int) -> None:
        out = taken[c]
        while True:
            try:
                url = f.get(timeout=get_timeout)
            except frontier.Empty:
                if f.closed:
                    return
                continue
            if url is None:
                return
            out.append(url)

    consumer_threads = [start_thread(consume, c) for c in range(consumers)]
    producer_threads = [start_thread(produce, p) for p in range(producers)]
    join_all(producer_threads, timeout=60)
    f.close()
    join_all(consumer_threads, timeout=30)
    put = Counter(f"http://site{p}.test/{token}/{i}" for p in range(producers)
                  for i in range(per))
    return put, Counter(u for out in taken for u in out)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", CORRECT)
def test_eight_by_eight_moves_every_url_exactly_once(name):
    f = make(name, capacity=30)
    put, got = _move(f, PRODUCERS, CONSUMERS, URLS)
    assert sum(put.values()) == URLS
    assert got == put, "lost or duplicated URLs"
    s = f.stats
    assert s.puts == s.gets == URLS
    assert s.races_detected == 0
    assert len(f) == 0
    f._check()


@pytest.fixture
def tiny_switch_interval():
    """Make the interpreter switch threads every microsecond, so races show up quickly."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.mark.timeout(120)
def test_unsynchronized_races_are_detected_and_counted(tiny_switch_interval):
    """With a tiny switch interval the racy ring buffer hands URLs out twice and overwrites
    others; the duplicates it counts are exactly those the consumers saw."""
    deadline = time.monotonic() + 60
    attempts = 0
    while time.monotonic() < deadline:
        attempts += 1
        f = frontier.create("unsynchronized", capacity=8)
        put, got = _move(f, 4, 4, 20_000, get_timeout=0.02)
        s = f.stats
        seen_twice = sum(c - 1 for c in got.values() if c > 1)
        assert s.duplicates_handed_out == seen_twice
        assert s.races_detected == s.duplicates_handed_out + s.urls_overwritten
        if s.races_detected and got != put:
            return
    pytest.fail(f"no race detected in {attempts} attempts")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", CORRECT)
def test_many_getters_on_an_empty_frontier_all_shut_down(name):
    """64 threads asleep in get() on an empty frontier: one URL wakes one of them, and close()
    releases the other 63."""
    f = make(name)
    results = []
    threads = [start_thread(lambda: results.append(f.get())) for _ in range(64)]
    wait_until_asleep(threads, timeout=30)
    f.put("http://only.test/")
    wait_until(lambda: results == ["http://only.test/"], timeout=10,
               what="a sleeping getter taking the URL")
    f.close()
    join_all(threads, timeout=20)
    assert len(results) == 64
    assert results.count("http://only.test/") == 1 and results.count(None) == 63


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", [n for n in CORRECT if kind(n).bounded])
def test_contention_is_counted(name):
    """A put that must wait for room is counted: one putter asleep on a full frontier of
    capacity 1 until a get makes room; then ``condition_waits`` says it waited (at least once:
    a polling strategy counts every pause). The counts of what moved stay exact."""
    f = frontier.create(name, capacity=1)
    f.put("a")
    before = f.stats.condition_waits
    putter = start_thread(f.put, "b")
    wait_until_asleep([putter])  # waiting for room, not merely started
    assert f.get() == "a"
    join_all([putter], timeout=10)
    assert f.get(timeout=5) == "b"
    s = f.stats
    assert s.condition_waits - before >= 1, "a put waited for room and no counter says so"
    assert (s.puts, s.gets) == (2, 2)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", CORRECT)
def test_correct_under_a_tiny_switch_interval(name, tiny_switch_interval):
    """The same check with a thread switch possible every microsecond: interleavings that the
    default 5 ms interval almost never produces (a switch inside a CAS loop or a write phase)."""
    f = make(name, capacity=4)
    put, got = _move(f, 4, 4, 8_000)
    assert got == put, "lost or duplicated URLs"
    f._check()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", CORRECT)
def test_lock_counts_are_not_lost_between_threads(name, tiny_switch_interval):
    """``stats.lock_acquisitions`` counted outside the lock (``stats.x += 1`` before ``with
    lock:``) loses counts when two threads interleave the read and the write, which the noise
    of :mod:`exercises.noise` makes happen under the GIL too. Four threads do
    the put+get pairs one thread did alone: they count at least as many acquisitions as that
    thread did per pair (they may count more: waits and retries take locks again)."""
    per, threads = 2000, 4
    token = uuid.uuid4().hex[:12]  # URLs shaped as _move's: no check tells itself apart

    def pairs(f, n: int) -> None:
        for i in range(n):
            f.put(f"http://site{i % 8}.test/{token}/{i}")
            f.get()  # never waits: every thread put one before it takes one

    alone = make(name, capacity=2 * threads)
    pairs(alone, per)
    each = alone.stats.lock_acquisitions / per
    if each == 0:
        assert name not in GRADED, (
            "stats.lock_acquisitions stays 0: the exercise asks for every acquisition of the "
            "frontier's lock to be counted")
        pytest.skip(f"{name} takes no locks: it counts none")
    f = make(name, capacity=2 * threads)
    # a switch offered before 5% of the strategy's bytecodes: under the GIL a read and a write
    # of one counter otherwise never come apart (exercises.noise)
    with noise({inspect.getsourcefile(type(f)) or ""}, 0.05):
        join_all([start_thread(pairs, f, per) for _ in range(threads)], timeout=60)
    s = f.stats
    assert (s.puts, s.gets) == (per * threads, per * threads)
    assert s.lock_acquisitions >= each * per * threads, (
        f"{threads} threads counted {s.lock_acquisitions} lock acquisitions for "
        f"{per * threads} put+get pairs, where one thread counts {each:g} per pair: counts "
        "were lost (a counter updated outside the lock?)")


def _three_sleepers(name: str):
    """A frontier with three getters asleep on it (each takes one URL, or ``None`` at close)."""
    f = make(name, capacity=10)
    got: list[str | None] = []
    takers = [start_thread(lambda: got.append(f.get())) for _ in range(3)]
    wait_until(lambda: f._not_empty.sleepers == 3, what="the three getters registering as asleep")
    wait_until_asleep(takers)  # registered *and* in the wait, so a notify now reaches each
    return f, got, takers


def test_the_monitor_wakes_one_getter_per_url():
    f, got, takers = _three_sleepers("monitor")
    f.put_many([("a", 0.0), ("b", 0.0), ("c", 0.0)])
    join_all(takers, timeout=10)  # each woke and took one: no close needed
    assert sorted(got) == ["a", "b", "c"] and len(f) == 0


def test_tanenbaum_loses_wake_ups_but_no_url():
    """Edge-only signalling: the batch made the frontier non-empty once, so one getter woke and
    two URLs waited beside two sleeping getters until ``close`` woke them."""
    f, got, takers = _three_sleepers("tanenbaum")
    f.put_many([("a", 0.0), ("b", 0.0), ("c", 0.0)])
    wait_until(lambda: len(got) == 1 and sum(t.is_alive() for t in takers) == 2,
               what="the one woken getter taking a URL and returning")
    asleep = [t for t in takers if t.is_alive()]
    wait_until_asleep(asleep)  # the other two are back asleep (or never woke) ...
    assert f._not_empty.sleepers == 2
    assert len(f) == 2  # ... beside two URLs: their wake-ups were lost
    notified: list[tuple] = []
    notify = f._not_empty.notify
    f._not_empty.notify = lambda *a: (notified.append(a), notify(*a))
    f.put("d")  # not an edge (the frontier was not empty): no signal, though two sleep
    assert notified == [] and len(f) == 3
    f.close()
    join_all(takers, timeout=5)
    assert sorted(u for u in got if u is not None) == ["a", "b", "c"]


@pytest.mark.timeout(120)
def test_tanenbaum_moves_every_url_exactly_once_with_timed_waits(tiny_switch_interval):
    """Lost wake-ups cost time, not URLs: with timed waits on both sides (a waiter re-checks
    when its timeout runs out) 4 x 4 threads through a small tanenbaum frontier lose and
    repeat nothing, and its invariants hold."""
    f = frontier.create("tanenbaum", capacity=8)
    per, producers, consumers = 2_000, 4, 4
    taken: list[list[str]] = [[] for _ in range(consumers)]

    def produce(p: int) -> None:
        for i in range(per):
            while True:
                try:
                    f.put(f"http://site{p}.test/{i}", timeout=0.02)
                    break
                except frontier.Full:
                    continue

    def consume(c: int) -> None:
        while True:
            try:
                url = f.get(timeout=0.02)
            except frontier.Empty:
                continue
            if url is None:
                return
            taken[c].append(url)

    consumer_threads = [start_thread(consume, c) for c in range(consumers)]
    join_all([start_thread(produce, p) for p in range(producers)], timeout=60)
    f.close()
    join_all(consumer_threads, timeout=30)
    put = Counter(f"http://site{p}.test/{i}" for p in range(producers) for i in range(per))
    assert Counter(u for out in taken for u in out) == put
    assert f.stats.puts == f.stats.gets == producers * per and len(f) == 0
    f._check()
