"""Model-based tests of the priority storages ``heap``, ``cbt`` and ``quickheap`` against heapq.

Hypothesis draws programs of put, get, insert-many and extract-top(R) -- R = 0, R beyond the
size, duplicate URLs, many equal priorities -- and runs them on every variant of every storage
(RAM, comparison-counting twin, disk with a tiny cache) beside ``heapq`` fed
``(-priority, seq, url)``. The promise tested is exact: the same URLs in the same order, i.e.
largest priority first and FIFO among equal priorities, and ``_check()`` holds after every step.
"""

from __future__ import annotations

import heapq
import math
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import frontier
from frontier.cbt import ChunkedCBT
from frontier.heap import BinaryHeap
from frontier.quickheap import Quickheap
from tests.helpers import join_all, start_thread

PRIORITY_NAMES = ["heap", "cbt", "quickheap"]
FIXTURE_OK = [HealthCheck.function_scoped_fixture]


def variants(tmp):
    """(label, storage factory) for every mode worth testing."""
    return [
        ("heap", lambda: BinaryHeap()),
        ("heap-count", lambda: BinaryHeap(count_comparisons=True)),
        ("heap-disk", lambda: BinaryHeap(disk=tmp, cache_blocks=2, block_size=3)),
        ("cbt-1", lambda: ChunkedCBT(chunk=1)),
        ("cbt-3", lambda: ChunkedCBT(chunk=3, seed=1)),
        ("cbt-4-count", lambda: ChunkedCBT(chunk=4, count_comparisons=True)),
        ("cbt-40-count-sample", lambda: ChunkedCBT(chunk=40, count_comparisons=True,
                                                   pivot="sample")),
        ("cbt-5-disk", lambda: ChunkedCBT(chunk=5, disk=tmp, cache_blocks=2, block_size=2)),
        ("qh", lambda: Quickheap(initial_capacity=2)),
        ("qh-count", lambda: Quickheap(initial_capacity=3, count_comparisons=True, seed=2)),
        ("qh-disk", lambda: Quickheap(initial_capacity=4, disk=tmp, cache_blocks=2, block_size=3)),
        # tiny front buffers (pqbuffer), so that flushes, refills and spills happen constantly
        ("cbt-3-buf1", lambda: ChunkedCBT(chunk=3, buffer=1)),
        ("cbt-4-buf3", lambda: ChunkedCBT(chunk=4, buffer=3, seed=2)),
        ("cbt-2-buf2-disk", lambda: ChunkedCBT(chunk=2, buffer=2, disk=tmp, cache_blocks=1,
                                               block_size=3)),
        ("cbt-3-buf2-count", lambda: ChunkedCBT(chunk=3, buffer=2, count_comparisons=True)),
        ("qh-buf1", lambda: Quickheap(initial_capacity=2, buffer=1)),
        ("qh-buf3", lambda: Quickheap(initial_capacity=3, buffer=3, seed=1)),
        ("qh-buf2-disk", lambda: Quickheap(initial_capacity=2, buffer=2, disk=tmp, cache_blocks=2,
                                           block_size=2)),
        ("qh-disk-lru", lambda: Quickheap(initial_capacity=4, disk=tmp, cache_blocks=2,
                                          block_size=2, cache_policy="lru")),
        ("cbt-nobuf", lambda: ChunkedCBT(chunk=3, buffer=0)),
        ("qh-nobuf", lambda: Quickheap(initial_capacity=2, buffer=0)),
    ]


priorities = st.one_of(
    st.sampled_from([0.0, 1.0, 2.0, -0.0, math.inf, -math.inf]),  # many ties
    st.floats(allow_nan=False, width=32),
    st.integers(-5, 5),
)
urls = st.sampled_from(["a", "b", "c", "d"])  # duplicate URLs are allowed: they are just items
ops = st.one_of(
    st.tuples(st.just("put"), urls, priorities),
    st.tuples(st.just("get")),
    st.tuples(st.just("put_many"), st.lists(st.tuples(urls, priorities), max_size=25)),
    st.tuples(st.just("get_many"), st.integers(0, 30)),
)
programs = st.lists(ops, max_size=40)


class Model:
    """heapq with the promised order: (-priority, arrival, url)."""

    def __init__(self) -> None:
        self.h: list = []
        self.seq = 0

    def put(self, url, p) -> None:
        heapq.heappush(self.h, (-float(p), self.seq, url))
        self.seq += 1

    def get_many(self, r) -> list[str]:
        return [heapq.heappop(self.h)[2] for _ in range(min(r, len(self.h)))]


def run(storage, model: Model, program) -> None:
    for op in program:
        if op[0] == "put":
            storage.push(op[1], op[2])
            model.put(op[1], op[2])
        elif op[0] == "get":
            if len(model.h):
                assert storage.pop() == model.get_many(1)[0]
        elif op[0] == "put_many":
            storage.push_many(op[1])
            for u, p in op[1]:
                model.put(u, p)
        else:
            assert storage.pop_many(op[1]) == model.get_many(op[1])
        assert len(storage) == len(model.h)
        storage._check()
    assert storage.pop_many(10**9) == model.get_many(10**9)
    storage._check()


@pytest.mark.parametrize("label", [v[0] for v in variants("/tmp")])
@settings(max_examples=60, deadline=None, suppress_health_check=FIXTURE_OK)
@given(program=programs)
def test_storage_equals_heapq(label, program, tmp_path):
    make = dict(variants(tmp_path))[label]
    storage = make()
    try:
        run(storage, Model(), program)
    finally:
        getattr(storage, "close", lambda: None)()


@settings(max_examples=25, deadline=None, suppress_health_check=FIXTURE_OK)
@given(program=programs, chunk=st.integers(1, 6), cache=st.integers(1, 4), buf=st.integers(0, 4))
def test_disk_mode_equals_ram_mode(program, chunk, cache, buf, tmp_path):
    """Same program, RAM and disk: identical answers (and both equal heapq, above)."""
    pairs = [(ram, disk) for ram, disk in [
        (ChunkedCBT(chunk=chunk, buffer=buf),
         ChunkedCBT(chunk=chunk, disk=tmp_path, cache_blocks=cache, block_size=2, buffer=buf)),
        (Quickheap(buffer=buf), Quickheap(disk=tmp_path, cache_blocks=cache, block_size=2,
                                          buffer=buf)),
        (BinaryHeap(), BinaryHeap(disk=tmp_path, cache_blocks=cache, block_size=2)),
    ]]
    for ram, disk in pairs:
        for op in program:
            if op[0] == "put":
                ram.push(op[1], op[2]); disk.push(op[1], op[2])  # noqa: E702
            elif op[0] == "get" and len(ram):
                assert ram.pop() == disk.pop()
            elif op[0] == "put_many":
                ram.push_many(op[1]); disk.push_many(op[1])  # noqa: E702
            elif op[0] == "get_many":
                assert ram.pop_many(op[1]) == disk.pop_many(op[1])
        assert ram.pop_many(10**6) == disk.pop_many(10**6)
        disk._check()
        disk.close()


# -- the counting twins ----------------------------------------------------------------------


def _bulk(storage, rounds=30, n0=3000, r=300, seed=0):
    import random

    rng = random.Random(seed)
    storage.push_many([(f"i{i}", rng.random()) for i in range(n0)])
    out = []
    for k in range(rounds):
        out += storage.pop_many(r)
        storage.push_many([(f"r{k}-{i}", rng.random()) for i in range(r)])
    return out + storage.pop_many(10**9)


@pytest.mark.parametrize("cls, opts", [(ChunkedCBT, {"chunk": 100}), (Quickheap, {}),
                                       (ChunkedCBT, {"chunk": 100, "pivot": "sample"}),
                                       (BinaryHeap, {})])
def test_counting_twin_hands_out_the_same_urls(cls, opts):
    fast, counted = cls(**opts), cls(count_comparisons=True, **opts)
    assert _bulk(fast) == _bulk(counted)
    assert fast.comparisons is None and counted.comparisons > 0


def test_heap_counts_what_heapq_compares():
    h = BinaryHeap(count_comparisons=True)
    h.push("a", 1.0)
    assert h.comparisons == 0
    h.push("b", 2.0)  # sifts up past "a": one comparison
    assert h.comparisons == 1
    assert h.pop() == "b"


def test_quickheap_bulk_insert_counts_as_figure_4():
    """push_many counts what Figure 4 compares key by key, and leaves a valid quickheap."""
    import random

    rng = random.Random(3)
    a, b = Quickheap(count_comparisons=True, seed=1), Quickheap(count_comparisons=True, seed=1)
    first = [(f"x{i}", rng.random()) for i in range(500)]
    a.push_many(first), b.push_many(first)
    a.pop_many(7), b.pop_many(7)  # builds a stack of pivots (same seed: same stack)
    before_a, before_b = a.comparisons, b.comparisons
    batch = [(f"y{i}", rng.random()) for i in range(200)]
    a.push_many(batch)
    for u, p in batch:
        b.push(u, p)
    assert a.comparisons - before_a == b.comparisons - before_b > 0
    a._check(), b._check()
    assert a.pop_many(10**6) == b.pop_many(10**6)


def test_sampled_pivots_select_exactly_and_cost_less_with_less_spread():
    """pivot="sample" (Floyd-Rivest): same split as numpy.partition; on 2R = 2000 keys it costs
    well under random quickselect's ~3.4n, with a much smaller spread (the point of Table 1)."""
    import numpy as np

    rng = np.random.default_rng(0)
    costs = {}
    for pivot in ("random", "sample"):
        t = ChunkedCBT(chunk=1000, count_comparisons=True, pivot=pivot, seed=3)
        cs = []
        for _ in range(150):
            u = rng.random(2000) + 1j * np.arange(2000)
            c0 = t.comparisons
            best, rest, kth = t._select(u, 1000)
            cs.append(t.comparisons - c0)
            assert kth == np.sort(u)[999] and best.max() == kth and rest.min() > kth
            assert len(best) == len(rest) == 1000
        costs[pivot] = np.array(cs, dtype=float)
    rand, samp = costs["random"], costs["sample"]
    assert samp.mean() < 0.85 * rand.mean()
    assert samp.std() / samp.mean() < 0.5 * rand.std() / rand.mean()


def test_start_counting_after_a_fast_build_counts_like_a_twin():
    import random

    rng = random.Random(5)
    data = [(f"u{i}", rng.random()) for i in range(3000)]
    fast = Quickheap(buffer=0)
    fast.push_many(data)
    assert fast.comparisons is None
    fast.start_counting()
    fast.pop_many(100)
    assert fast.comparisons > 0
    with pytest.raises(AssertionError):
        ChunkedCBT().start_counting()  # the buffer is on


def test_partition_counts_n_minus_one(monkeypatch):
    q = Quickheap(count_comparisons=True)
    q.push_many([(str(i), float(i)) for i in range(100)])
    sizes: list[int] = []
    partition = q._partition

    def spy(first: int, last: int):
        sizes.append(last - first + 1)
        return partition(first, last)

    monkeypatch.setattr(q, "_partition", spy)
    before = q.comparisons
    assert q.pop() == "99"  # one IQS run on 100 keys: every partition pass of n keys costs n - 1
    assert sizes and sizes[0] == 100 and q.partitions == len(sizes)
    assert q.comparisons - before == sum(n - 1 for n in sizes)


# -- frontier level ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", PRIORITY_NAMES)
@pytest.mark.parametrize("bad", [math.nan, "1.0", None, True, 1 + 2j])
def test_nan_and_non_numbers_are_rejected_and_nothing_is_added(name, bad):
    f = frontier.create(name)
    with pytest.raises(ValueError, match="priority"):
        f.put("x", bad)
    with pytest.raises(ValueError, match="priority"):
        f.put_many([("ok", 1.0), ("x", bad)])
    assert len(f) == 0
    f._check()


@pytest.mark.parametrize("name, option, bad", [
    ("cbt", "chunk", 0), ("cbt", "chunk", 2.5), ("quickheap", "initial_capacity", 1),
    ("quickheap", "cache_blocks", 0), ("heap", "block_size", -1), ("cbt", "disk", 3),
    ("quickheap", "cache_policy", "mru"), ("cbt", "buffer", -1), ("cbt", "pivot", "median"),
])
def test_bad_options_name_the_argument(name, option, bad):
    with pytest.raises(ValueError, match=option):
        frontier.create(name, **{option: bad})


@pytest.mark.parametrize("name", PRIORITY_NAMES)
def test_classes_describe_themselves(name):
    cls = frontier.info(name)
    assert cls.ordering == "priority" and cls.correct and not cls.bounded
    f = frontier.create(name)
    assert f.capacity is None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", PRIORITY_NAMES)
def test_many_threads_lose_nothing(name):
    f = frontier.create(name)
    got, lock = [], threading.Lock()

    def producer(k):
        for i in range(300):
            if i % 3:
                f.put(f"{k}-{i}", float(i % 7))
            else:
                f.put_many([(f"{k}-{i}-{j}", float(j)) for j in range(3)])

    def consumer():
        while (u := f.get()) is not None:
            with lock:
                got.append(u)

    consumers = [start_thread(consumer) for _ in range(3)]
    join_all([start_thread(producer, k) for k in range(3)], timeout=20)
    f.close()
    join_all(consumers, timeout=20)
    assert len(got) == len(set(got)) == 3 * (200 + 100 * 3)
    f._check()
