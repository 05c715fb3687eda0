"""Slices, the two-choice relaxation, the parallel runners and the block store."""

from __future__ import annotations

import numpy as np
import pytest

from frontier.blockstore import BlockKeys
from frontier.slices import Slices, SliceWork, make_storage, rank_errors, run_supersteps


def _pairs(rng, m, tag):
    return [(f"{tag}{i}", p) for i, p in enumerate(rng.random(m).tolist())]


@pytest.mark.parametrize("policy", ["even", "two-choice"])
@pytest.mark.parametrize("kind", ["heap", "cbt", "quickheap"])
def test_slices_lose_nothing_and_hand_out_best_first(kind, policy):
    rng = np.random.default_rng(0)
    s = Slices(lambda i: make_storage(kind, seed=i) if kind != "heap" else make_storage(kind),
               4, policy=policy)
    pairs = _pairs(rng, 2000, "a")
    priority = dict(pairs)
    s.push_many(pairs)
    seen = []
    for k in range(10):
        best = max(priority[u] for u in priority if u not in seen)
        keys, urls = s.pop_top(100)
        assert len(urls) == 100 and (np.diff(keys.real) >= 0).all()  # sorted, best first
        assert [-k for k in keys.real] == [priority[u] for u in urls]  # each URL's own key
        assert -keys.real[0] == best  # the best URL held is handed out first
        seen += urls
        more = _pairs(rng, 100, f"b{k}-")
        priority.update(more)
        s.push_many(more)
    seen += s.pop_many(10**6)
    assert len(seen) == len(set(seen)) == 3000 and len(s) == 0
    s._check()


def test_even_slices_are_exact_when_T_is_1():
    rng = np.random.default_rng(1)
    s = Slices(lambda i: make_storage("quickheap"), 1)
    pairs = _pairs(rng, 500, "u")
    s.push_many(pairs)
    present = np.array([p for _, p in pairs])
    keys, _ = s.pop_top(50)
    assert (rank_errors(-keys.real, present) == 0).all()


def test_efficiency_is_mean_over_max():
    assert SliceWork.efficiency([[1, 1], [2, 2]]) == 1.0
    assert SliceWork.efficiency([[1, 3]]) == pytest.approx(2 / 3)


def test_bad_slice_options():
    with pytest.raises(ValueError, match="T"):
        Slices(lambda i: None, 0)
    with pytest.raises(ValueError, match="policy"):
        Slices(lambda i: None, 2, policy="random")
    with pytest.raises(ValueError, match="kind"):
        make_storage("btree")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["serial", "thread", "process"])
def test_supersteps_run_in_every_mode(mode):
    r = run_supersteps("cbt", 2, 4000, 200, 5, mode=mode, options={"chunk": 50})
    assert r["seconds"] > 0 and len(r["extract"]) == 5 and len(r["extract"][0]) == 2


def test_block_store_counts_and_keeps_content(tmp_path):
    b = BlockKeys(tmp_path, block_size=4, cache_blocks=2)
    data = np.arange(40) + 1j
    b.grow(40)
    b.write(0, data)  # whole blocks: no reads
    assert b.reads == 0 and b.writes == 8  # all but the two cached blocks went to the file
    assert (b.read(0, 40) == data).all()
    assert (b.reads, b.writes) == (10, 10)  # LRU with 2 blocks: every block comes back once
    b.set(5, 99)
    assert b.get(5) == 99
    b._check()
    b.close()
    assert not list(tmp_path.iterdir())  # the temporary file is gone


def test_block_store_discard_drops_dead_blocks_unwritten(tmp_path):
    b = BlockKeys(tmp_path, block_size=4, cache_blocks=2)
    b.grow(16)
    b.write(0, np.arange(16) + 0j)  # blocks 0, 1 written to the file; 2, 3 cached and dirty
    assert (b.reads, b.writes) == (0, 2)
    b.discard(2, 16)  # block 0 is only partly dead: kept; blocks 1, 2, 3 are dead
    assert set(b.cache) == set() and not b.dirty and b.on_file == {0}
    b.write(5, np.array([7 + 0j]))  # a dead block costs no read
    assert b.reads == 0 and b.get(5) == 7 and b.get(1) == 1
    assert b.reads == 1  # block 0 came back from the file
    b._check()
    b.close()


def test_block_store_victim_policy_chooses_the_block_to_evict(tmp_path):
    b = BlockKeys(tmp_path, block_size=2, cache_blocks=2, victim=max)  # evict the highest block
    b.grow(8)
    b.set(0, 1)
    b.set(6, 2)
    b.set(2, 3)  # cache full with {0, 3}: block 3 (highest) goes, not block 0 (least recent)
    assert set(b.cache) == {0, 1} and b.writes == 1
    b._check()
    b.close()


def test_quickheap_paper_policy_keeps_the_head_and_the_pivots(tmp_path):
    """The paper's replacement (Section 3.2): evict the cached block farthest from the head
    (circularly) that holds no pivot; under it the head's block and the pivots' blocks stay."""
    q = make_storage("quickheap", disk=tmp_path, cache_blocks=16, block_size=8,
                     initial_capacity=1024, seed=3)
    rng = np.random.default_rng(3)
    q.push_many(_pairs(rng, 800, "k"))  # 100 blocks through a 16-block cache
    q.pop_many(300)
    q.push_many(_pairs(rng, 100, "n"))
    cap, bs = q.capacity, 8
    nblocks = cap // bs
    head = (q._idx % cap) // bs
    pivots = {(s % cap) // bs for s in q._S}
    assert len(pivots) < 16
    assert head in q._a.cache and pivots <= set(q._a.cache)
    every = list(range(nblocks))
    v = q._victim(every)
    free = [b for b in every if b not in pivots]
    assert v == max(free, key=lambda b: (b - head) % nblocks)
    assert v == (head - 1) % nblocks or (head - 1) % nblocks in pivots  # just behind the head
    q._check()
    q.close()


@pytest.mark.parametrize("policy", ["even", "two-choice"])
def test_the_work_counted_per_slice_is_each_storages_own_comparisons(policy):
    """The insert and extract comparisons recorded per slice add up, slice by slice, to the
    comparisons its storage counted itself (the two-choice refills included)."""
    rng = np.random.default_rng(2)
    s = Slices(lambda i: make_storage("heap", count_comparisons=True), 3, policy=policy)
    s.push_many(_pairs(rng, 600, "a"))
    for k in range(5):
        s.pop_top(60)
        s.push_many(_pairs(rng, 60, f"b{k}-"))
    for q, storage in enumerate(s.slices):
        counted = (sum(step[q] for step in s.insert.comparisons)
                   + sum(step[q] for step in s.extract.comparisons))
        assert counted == storage.comparisons > 0
