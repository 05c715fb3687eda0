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
    s.push_many(_pairs(rng, 2000, "a"))
    seen = []
    for k in range(10):
        keys, urls = s.pop_top(100)
        assert len(urls) == 100 and (np.diff(keys.real) >= 0).all()
        seen += urls
        s.push_many(_pairs(rng, 100, f"b{k}-"))
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
