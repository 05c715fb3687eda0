"""Shared helpers of the priority-queue labs (``lab_pq_*``): workloads and counters.

The workload is the paper's (Section 4): a queue of ``n`` keys, then supersteps of
extract-top(R) followed by insert-many(R) of fresh random priorities (uniform in [0, 1), the
shape of OPIC cash does not matter to comparisons between keys).
"""

from __future__ import annotations

import gc
import heapq
import time

import numpy as np

from frontier.slices import make_storage

__all__ = ["KINDS", "LABELS", "order_comparisons", "pairs", "supersteps", "heapq_supersteps"]

KINDS = ["heap", "quickheap", "cbt"]
LABELS = {"heap": "BH", "quickheap": "QH", "cbt": "CBT", "heapq": "heapq"}


def pairs(rng: np.random.Generator, m: int, tag: str) -> list[tuple[str, float]]:
    """``m`` (url, priority) pairs with random priorities."""
    return [(f"{tag}{i}", p) for i, p in enumerate(rng.random(m).tolist())]


class _Counted:
    """A key whose ``<`` counts itself in ``box[0]`` (the comparisons of a real sort)."""

    __slots__ = ("key", "box")

    def __init__(self, key: float, box: list[int]) -> None:
        self.key, self.box = key, box

    def __lt__(self, other: _Counted) -> bool:
        self.box[0] += 1
        return self.key > other.key  # best (highest priority) first


def order_comparisons(keys: list[float], rng: np.random.Generator) -> int:
    """Key comparisons Python's sort (Timsort) makes to put ``keys`` best first from a random
    order: the cost of handing out an extract-top's R keys in order, which a Quickheap or CBT
    pays on top of finding them (they come out of partitions unordered) and a binary heap
    does not (its pops come out ordered, and those comparisons are already counted)."""
    box = [0]
    shuffled = [keys[i] for i in rng.permutation(len(keys))]
    sorted(_Counted(k, box) for k in shuffled)
    return box[0]


def _counters(s) -> tuple[int, int]:
    io = s.io or {"reads": 0, "writes": 0}
    return (s.comparisons or 0), io["reads"] + io["writes"]


def supersteps(kind: str, n: int, r: int, steps: int, seed: int = 1, warmup: int = 1,
               count_order: bool = False, **options) -> dict:
    """Fill a ``kind`` storage with ``n`` keys, run ``warmup`` supersteps unmeasured, then
    ``steps`` measured supersteps of extract-top(r) + insert-many(r). Returns comparisons, block
    I/O and seconds of the measured supersteps, each also per key moved (``2 * r * steps``
    keys: each inserted and each extracted).

    ``count_order``: also count, in ``order_comparisons``, what ordering each extract-top's R
    keys costs (:func:`order_comparisons`; zero for the binary heap, whose pops are ordered);
    ``cmp_per_key`` then includes it and ``order_cmp_per_key`` says how much of it that was.

    The warm-up superstep matters for the Quickheap only: a Quickheap filled in one insert-many
    is a single unsorted chunk, and its first extraction partitions all ``n`` keys (about
    ``3.4 n`` comparisons) -- a one-off cost that a queue built up by a crawl never pays at once.
    """
    rng = np.random.default_rng(seed)
    if kind == "quickheap":
        options.setdefault("initial_capacity", n + r + 2)
    if kind != "heap":
        options.setdefault("seed", seed)
    s = make_storage(kind, **options)
    first = pairs(rng, n, "init-")
    s.push_many(first)
    batches = [pairs(rng, r, f"s{k}-") for k in range(steps + warmup)]
    order = count_order and kind != "heap"
    prio = dict(first) if order else {}
    if order:
        for batch in batches:
            prio.update(batch)
    order_rng = np.random.default_rng(seed + 1)
    order_cmp = 0
    for batch in batches[:warmup]:
        s.pop_many(r)
        s.push_many(batch)
    batches = batches[warmup:]
    c0, io0 = _counters(s)
    io_extract = 0
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        if order:  # not timed: counting is slow anyway
            for batch in batches:
                out = s.pop_many(r)
                order_cmp += order_comparisons([prio[u] for u in out], order_rng)
                s.push_many(batch)
        elif s.io is None:
            for batch in batches:
                s.pop_many(r)
                s.push_many(batch)
        else:  # disk mode: also split the block I/O between extract-top and insert-many
            for batch in batches:
                a = _counters(s)[1]
                s.pop_many(r)
                io_extract += _counters(s)[1] - a
                s.push_many(batch)
        seconds = time.perf_counter() - t0
    finally:
        gc.enable()
    c1, io1 = _counters(s)
    getattr(s, "close", lambda: None)()
    keys = 2 * r * steps
    return {"comparisons": c1 - c0 + order_cmp, "order_comparisons": order_cmp,
            "io": io1 - io0, "seconds": seconds,
            "cmp_per_key": (c1 - c0 + order_cmp) / keys, "order_cmp_per_key": order_cmp / keys,
            "io_per_key": (io1 - io0) / keys,
            "io_extract_share": io_extract / max(1, io1 - io0),
            "ns_per_key": seconds / keys * 1e9}


def heapq_supersteps(n: int, r: int, steps: int, seed: int = 1) -> dict:
    """The same workload on a plain list of ``(-priority, seq, url)`` with :mod:`heapq`."""
    rng = np.random.default_rng(seed)
    h = [(-p, i, u) for i, (u, p) in enumerate(pairs(rng, n, "init-"))]
    heapq.heapify(h)
    seq = n
    batches = []
    for k in range(steps):
        batches.append([(-p, seq + i, u) for i, (u, p) in enumerate(pairs(rng, r, f"s{k}-"))])
        seq += r
    push, pop = heapq.heappush, heapq.heappop
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for batch in batches:
            [pop(h)[2] for _ in range(r)]
            for e in batch:
                push(h, e)
        seconds = time.perf_counter() - t0
    finally:
        gc.enable()
    return {"seconds": seconds, "ns_per_key": seconds / (2 * r * steps) * 1e9}
