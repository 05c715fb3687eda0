"""The front buffer of the chunked storages (frontier.pqbuffer): invariant, exactness, bulk paths.

The model-based tests in ``test_priority_frontiers.py`` run tiny buffers against heapq; these
tests pin down the buffer's own promises: single operations never reach the core until a
flush or refill, bulk-only workloads never touch the buffers, a key that beats ``_out`` forces
the spill that keeps the invariant, and ``_check()`` catches a broken buffer.
"""

from __future__ import annotations

import heapq
import random

import pytest

from frontier.cbt import ChunkedCBT
from frontier.quickheap import Quickheap

MAKERS = {
    "cbt": lambda **kw: ChunkedCBT(chunk=8, **kw),
    "quickheap": lambda **kw: Quickheap(initial_capacity=16, **kw),
}


@pytest.fixture(params=sorted(MAKERS))
def make(request):
    return MAKERS[request.param]


def test_singles_fill_ins_then_flush_in_bulk(make):
    s = make(buffer=4)
    for i in range(3):
        s.push(f"u{i}", float(i))
    assert len(s._ins) == 3 and s._core_len() == 0
    s.push("u3", 3.0)  # the K-th push flushes all four into the core
    assert s._ins == [] and s._core_len() == 4
    s._check()
    assert s.pop() == "u3"  # a refill: out takes the core's best K
    assert s._core_len() == 0 and len(s._out) == 3
    s._check()


def test_a_push_that_beats_out_is_handed_out_first(make):
    s = make(buffer=4)
    s.push_many([(f"c{i}", float(i)) for i in range(20)])
    assert s.pop() == "c19"  # _out now holds c18, c17, c16
    s.push("best", 100.0)  # sits in _ins, compared with _out[-1] at every pop
    assert [s.pop() for _ in range(3)] == ["best", "c18", "c17"]
    s._check()


def test_flush_spills_out_when_a_new_key_beats_its_worst(make):
    s = make(buffer=3)
    s.push_many([(f"c{i}", float(i)) for i in range(30)])
    s.pop()  # _out: c28, c27 (worst c27)
    s.push("x", 27.5)
    s.push("y", -1.0)
    s.push("z", -2.0)  # flush: x beats c27, so _out goes back to the core first
    assert s._out == [] and s._ins == []
    s._check()
    assert s.pop_many(4) == ["c28", "x", "c27", "c26"]


def test_push_many_spills_out_only_when_needed(make):
    s = make(buffer=4)
    s.push_many([(f"c{i}", float(i)) for i in range(30)])
    s.pop()
    s.push_many([("low", -5.0)] * 5)  # worse than everything: _out stays
    assert len(s._out) == 3
    s.push_many([("high", 28.5)])  # beats _out's worst (c26): _out goes back
    assert s._out == []
    s._check()
    assert s.pop_many(2) == ["high", "c28"]


def test_bulk_only_workload_never_touches_the_buffers(make):
    rng = random.Random(0)
    s = make()
    for k in range(20):
        s.push_many([(f"{k}-{i}", rng.random()) for i in range(50)])
        s.pop_many(40)
        assert s._ins == [] and s._out == []
    s._check()


@pytest.mark.parametrize("K", [1, 2, 5, 64])
def test_singles_and_bulk_interleaved_equal_heapq(make, K):
    rng = random.Random(K)
    s, model, seq = make(buffer=K), [], 0
    for step in range(400):
        op = rng.random()
        if op < 0.45:
            p = rng.choice([0.0, 1.0, rng.random()])
            s.push(f"p{step}", p)
            heapq.heappush(model, (-p, seq, f"p{step}"))
            seq += 1
        elif op < 0.8:
            if model:
                assert s.pop() == heapq.heappop(model)[2]
        elif op < 0.9:
            batch = [(f"b{step}-{i}", rng.random()) for i in range(rng.randrange(12))]
            s.push_many(batch)
            for u, p in batch:
                heapq.heappush(model, (-p, seq, u))
                seq += 1
        else:
            r = rng.randrange(10)
            assert s.pop_many(r) == [heapq.heappop(model)[2] for _ in range(min(r, len(model)))]
        assert len(s) == len(model)
        s._check()


def test_check_catches_a_broken_buffer(make):
    s = make(buffer=4)
    s.push_many([(f"c{i}", float(i)) for i in range(20)])
    s.pop()
    s._check()
    s._out[0] = (1000.0, s._out[0][1])  # same URL, now a priority below every key of the core
    with pytest.raises(AssertionError, match="does not beat the core"):
        s._check()


def test_check_asserts_the_cores_own_invariants_too(make, monkeypatch):
    """``_check`` covers the core as well as the buffers: it calls the core's ``_check_core``
    (whose own breakages the core's tests exercise), once."""
    s = make(buffer=4)
    s.push_many([(f"c{i}", float(i)) for i in range(20)])
    calls: list[int] = []
    monkeypatch.setattr(s, "_check_core", lambda: calls.append(1))
    s._check()
    assert calls == [1]


def test_bad_buffer_option(make):
    with pytest.raises(ValueError, match="buffer"):
        make(buffer=-1)


def test_counting_twin_has_no_buffer(make):
    s = make(count_comparisons=True)
    s.push("a", 1.0)
    assert s._ins == [] and s._core_len() == 1
