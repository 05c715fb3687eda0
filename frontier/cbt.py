"""``cbt``: the chunked Complete Binary Tree of Section 3.1 (Figures 1 and 2 of the paper).

Every node of a complete binary tree holds a *chunk* of exactly ``R`` keys. Nodes are numbered
as in the paper (root 1, children of ``k`` at ``2k`` and ``2k + 1``), and a node refers to its
chunk through an item identifier: ``CBT[k]`` is the item at node ``k`` and ``Leaf[i]`` the node
of item ``i``. For free identifiers the ``Leaf`` array doubles as the free list (the paper's
trick): ``Leaf[i] = -2 - next_free``.

Invariant (checked by :meth:`ChunkedCBT._check`):

* *winner beats loser*: at every node ``k > 1``, every key of the parent's chunk beats (is
  smaller than) every key of ``k``'s chunk, so the root's chunk holds the best ``R`` keys of the
  tree, and the best key of all is in the root chunk;
* every chunk holds exactly ``R`` keys, and ``worst[i]`` is the largest key of item ``i``'s chunk;
* two small RAM arrays sit beside the tree: the *head* ``H`` (sorted, every key beats every key
  of the tree: the root chunks already extracted) and the *tail* ``B`` (< ``R`` keys inserted but
  not yet a full chunk). ``len = len(H) + len(B) + R * nodes``.

Keys are ``complex(-priority, seq)`` (:mod:`frontier.pqcommon`): largest priority first, FIFO
among equal priorities.

The SELECT that splits ``2R`` keys into the best ``R`` and the rest is ``numpy.partition``;
with ``count_comparisons=True`` it is an instrumented twin, a vectorized quickselect (each pass
one NumPy comparison against a random pivot) whose pass over ``n`` keys costs exactly ``n - 1``
comparisons, counted in :attr:`ChunkedCBT.comparisons`. Either way SELECT also returns the
``R``-th key, the best half's worst, so ``worst`` is kept without extra work.

* ``push_many`` fills ``B``; each full chunk is inserted by **insertion-update** (Figure 1): a
  new leaf is made at node ``N + 1``; walking from the root down the path to it, each node keeps
  the best ``R`` of (its chunk + the incoming chunk) and passes the rest down; the last rest
  becomes the new leaf. One SELECT per level: O(R log(n/R)) expected.
* ``pop_many(r)`` moves root chunks to ``H`` by **extraction-update** until ``H`` holds ``r``
  keys, then takes the best ``r`` of ``H[:r]`` and ``B``. Extraction removes the root chunk,
  moves the last leaf's item to the root, and sifts it down one path. Two SELECTs per level.
* single ``push``/``pop`` go through a small Python-list buffer in front of the tree
  (:mod:`frontier.pqbuffer`), so the tree itself sees bulk operations only.

A correction to Figure 2. Read literally, Figure 2 replays the matches bottom-up from the moved
leaf and gives the loser of each match the worse half of the two chunks. When the loser is the
*off-path* child, its chunk gets worse and may stop beating the chunks below it: with chunks
of ``R = 2`` keys, a moved chunk ``{0, 100}`` meeting an off-path winner ``{1, 2}`` that beats
``{3, 4}`` below it leaves ``{0, 1}`` and ``{2, 100}`` -- and ``{2, 100}`` no longer beats
``{3, 4}``. Our extraction-update goes top-down instead (the parallel-heap deletion of Deo and
Prasad): at node ``v`` with children ``c1, c2``, where ``c2`` has the larger worst key, SELECT
splits ``c1 + c2`` into a better half ``Sm`` and a worse half that ``c2`` keeps -- it cannot
break ``c2``'s subtree, since no key of it exceeds ``c2``'s old worst -- then SELECT splits
``v + Sm`` into ``v``'s new chunk and a rest that goes to ``c1``, where the sift continues.

>>> t = ChunkedCBT(chunk=2)
>>> t.push_many([("a", 1.0), ("b", 5.0), ("c", 3.0), ("d", 5.0), ("e", 0.5)])
>>> t.pop_many(4)
['b', 'd', 'c', 'a']
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from frontier.blockstore import BlockKeys
from frontier.contract import register
from frontier.locked import LockedFrontier
from frontier.pqbuffer import DEFAULT_BUFFER, FrontBuffer
from frontier.pqcommon import KEY_DTYPE, UrlTable, check_disk_options, check_int_option

__all__ = ["CBTFrontier", "ChunkedCBT"]

_EMPTY = np.empty(0, dtype=KEY_DTYPE)
_SAMPLE_MIN = 64  # pivot="sample": smaller inputs get a random pivot


class ChunkedCBT(FrontBuffer):
    """The CBT storage (see the module docstring). Not thread-safe: wrap it in a frontier.

    ``chunk``: R, the keys per node; ``seed``: the SELECT's random pivots;
    ``disk``/``cache_blocks``/``block_size``: keep the chunks in blocks of a file, each chunk
    on its own whole blocks (:mod:`frontier.blockstore`); ``count_comparisons``: SELECT by the
    counting quickselect instead of ``numpy.partition`` (slower; same results); ``buffer``: K,
    the keys of the front buffer for single push/pop (:mod:`frontier.pqbuffer`; default 64,
    0 when counting comparisons; 0 switches it off); ``pivot``: how the counting twin picks
    its quickselect pivots (``"random"`` or ``"sample"``, see :meth:`_pivots`).
    """

    def __init__(
        self,
        chunk: int = 256,
        count_comparisons: bool = False,
        disk=None,
        cache_blocks: int = 64,
        block_size: int = 256,
        seed: int = 0,
        buffer: int | None = None,
        pivot: str = "random",
    ) -> None:
        check_int_option("chunk", chunk, 1)
        self._counting = bool(count_comparisons)
        if pivot not in ("random", "sample"):
            raise ValueError(f"pivot must be 'random' or 'sample', got {pivot!r}")
        self._sample_pivot = pivot == "sample"
        check_disk_options(disk, cache_blocks, block_size)
        self.R = chunk
        self.n = 0  # nodes in the tree
        self._cbt: list[int] = [-1]  # CBT[k]: item at node k (index 0 unused)
        self._leaf: list[int] = []  # Leaf[i]: node of item i; free: -2 - next free item
        self._free = -1  # first free item, -1 if none
        self._worst: list[np.complex128] = []  # largest key of item i's chunk
        if disk is None:
            self._blocks = None
            self._chunks: list[np.ndarray] = []
        else:
            self._blocks = BlockKeys(disk, block_size=block_size, cache_blocks=cache_blocks)
            self._stride = -(-chunk // block_size) * block_size  # whole blocks per chunk
        self._H = _EMPTY  # sorted; beats the whole tree
        self._B = _EMPTY  # fewer than R keys waiting to form a chunk
        self._urls = UrlTable()
        self._rng = random.Random(seed)
        self._cmp = 0  # key comparisons (meaningful when counting)
        self.selects = 0
        """SELECT calls so far."""
        self._init_buffer((0 if self._counting else DEFAULT_BUFFER) if buffer is None else buffer)

    # -- items and their chunks -----------------------------------------------------------

    def _load(self, item: int) -> np.ndarray:
        if self._blocks is None:
            return self._chunks[item]
        lo = item * self._stride
        return self._blocks.read(lo, lo + self.R)

    def _store(self, item: int, keys: np.ndarray, worst: np.complex128) -> None:
        """Replace item's chunk by ``keys``: its old blocks are dead, so none is read back."""
        self._worst[item] = worst
        if self._blocks is None:
            self._chunks[item] = keys
        else:
            lo = item * self._stride
            self._blocks.discard(lo, lo + self._stride)
            self._blocks.write(lo, keys)

    def _alloc(self, node: int) -> int:
        """A free item identifier, now at ``node`` (free list through ``Leaf``). O(1)."""
        i = self._free
        if i >= 0:
            self._free = -2 - self._leaf[i]
            self._leaf[i] = node
        else:
            i = len(self._leaf)
            self._leaf.append(node)
            self._worst.append(None)
            if self._blocks is None:
                self._chunks.append(_EMPTY)
            else:
                self._blocks.grow((i + 1) * self._stride)
        return i

    def _release(self, item: int) -> None:
        self._leaf[item] = -2 - self._free
        self._free = item
        if self._blocks is None:
            self._chunks[item] = _EMPTY
        else:  # the chunk is dead: its blocks leave the cache unwritten
            self._blocks.discard(item * self._stride, (item + 1) * self._stride)

    # -- SELECT --------------------------------------------------------------------------------

    @property
    def comparisons(self) -> int | None:
        """Key comparisons so far (exact; ``None`` unless ``count_comparisons``)."""
        return self._cmp if self._counting else None

    def _select(self, u: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.complex128]:
        """Split ``u`` (unique keys, ``0 < k <= len(u)``) into its ``k`` smallest keys and the
        rest; also return the ``k``-th smallest. O(len(u)) expected.

        Fast path: ``numpy.partition`` (introselect). Counting twin: quickselect with every pass
        vectorized, a pass over ``n`` keys making exactly ``n - 1`` comparisons (pivots: see
        :meth:`_counted_select`). Keys are unique, so both split ``u`` into the same two *sets* (the
        order inside a chunk differs, and nothing depends on it): the tests check the twins
        hand out identical URLs."""
        self.selects += 1
        if not self._counting:
            part = np.partition(u, k - 1)
            return part[:k], part[k:], part[k - 1]
        best, rest, v = self._counted_select(u, k - 1)
        return np.concatenate(best), np.concatenate(rest), v

    def _counted_select(self, u: np.ndarray, target: int):
        """Counted quickselect of the key of rank ``target`` (0-based) in ``u``: returns the
        pieces of the ``target + 1`` smallest, the pieces of the rest, and that key.

        Each pass splits around one random pivot (``n - 1`` comparisons) or, with
        ``pivot="sample"`` on inputs of at least ``_SAMPLE_MIN`` keys, around two
        (:meth:`_pivots`): every key is compared with the lower pivot, those above it with the
        upper one too."""
        best: list[np.ndarray] = []
        rest: list[np.ndarray] = []
        while True:
            n = len(u)
            if self._sample_pivot and n >= _SAMPLE_MIN:
                lo, hi = self._pivots(u, target)
                below, above = u[u < lo], u[u > lo]
                mid, top = above[above < hi], above[above > hi]
                self._cmp += (n - 1) + (len(above) - 1)
                ra = len(below)  # rank of lo
                rb = ra + 1 + len(mid)  # rank of hi
                if target <= ra:
                    rest += [mid, np.array([hi]), top]
                    if target == ra:
                        best += [below, np.array([lo])]
                        return best, rest, lo
                    rest.append(np.array([lo]))
                    u = below
                elif target >= rb:
                    best += [below, np.array([lo]), mid, np.array([hi])]
                    if target == rb:
                        rest.append(top)
                        return best, rest, hi
                    target -= rb + 1
                    u = top
                else:
                    best += [below, np.array([lo])]
                    rest += [np.array([hi]), top]
                    target -= ra + 1
                    u = mid
                continue
            v = u[self._rng.randrange(n)]
            left = u[u < v]
            self._cmp += n - 1
            r = len(left)
            if r == target:
                best.append(left)
                best.append(np.array([v]))
                rest.append(u[u > v])
                return best, rest, v
            if r > target:
                rest.append(np.array([v]))
                rest.append(u[u > v])
                u = left
            else:
                best.append(left)
                best.append(np.array([v]))
                target -= r + 1
                u = u[u > v]

    def _pivots(self, u: np.ndarray, target: int) -> tuple[np.complex128, np.complex128]:
        """Two pivots bracketing rank ``target`` (Floyd and Rivest's SELECT): in a random sample
        of ``s = n**(2/3)`` keys, the keys of ranks ``j -+ g`` around ``j = target * s / n``,
        ``g = sqrt(s)``, found by counted selects on the sample. The key sought then lies
        between them with high probability, in a part of about ``2 n / sqrt(s)`` keys, so a
        SELECT costs about ``n + min(k, n - k)`` comparisons with a small spread, against
        about ``3.4 n`` (median) and a large spread for random pivots."""
        n = len(u)
        s = max(4, round(n ** (2 / 3)))
        g = max(1, math.isqrt(s))
        sample = u[self._rng.sample(range(n), s)]
        j = target * s // n
        jlo, jhi = max(0, j - g), min(s - 1, j + g)
        best, _, hi = self._counted_select(sample, jhi)
        lo = self._counted_select(np.concatenate(best), jlo)[2]  # jlo < jhi: s >= 4, g >= 1
        return lo, hi

    def start_counting(self) -> None:
        """Count comparisons from now on (the counting twin), e.g. after a fast bulk build: the
        structure is the same either way, only the time to build it differs. Precondition:
        the buffer is off (``buffer=0``), as in a counting twin."""
        assert not self._K, "start_counting needs buffer=0"
        self._counting = True

    def _worse(self, x: np.complex128, y: np.complex128) -> np.complex128:
        self._cmp += 1
        return x if x > y else y

    # -- the tree: Figure 1 and the corrected Figure 2 ----------------------------------------

    def _insert_chunk(self, s: np.ndarray, worst: np.complex128) -> None:
        """Insertion-update (Figure 1): a new leaf at node n+1; every node on the path from the
        root keeps the best R of (its chunk + s) and passes the rest down."""
        self.n += 1
        node = self.n
        R = self.R
        for h in range(node.bit_length() - 1, 0, -1):  # ancestors of node, root first
            a = self._cbt[node >> h]
            best, s, e = self._select(np.concatenate((self._load(a), s)), R)
            worst = self._worse(self._worst[a], worst)  # s now holds the worse of both
            self._store(a, best, e)
        item = self._alloc(node)
        if node == len(self._cbt):
            self._cbt.append(item)
        else:
            self._cbt[node] = item
        self._store(item, s, worst)

    def _extract_root(self) -> np.ndarray:
        """Extraction-update: remove and return the root chunk (the best R keys of the tree),
        move the last leaf's item to the root and sift it down one path."""
        root = self._cbt[1]
        out = np.array(self._load(root))
        self._release(root)
        last = self._cbt[self.n]
        self.n -= 1
        if self.n == 0:
            return out
        self._cbt[1] = last
        self._leaf[last] = 1
        R, n, cbt, worst = self.R, self.n, self._cbt, self._worst
        v = 1
        while 2 * v <= n:
            c1, c2 = 2 * v, 2 * v + 1
            iv = cbt[v]
            V, wv = self._load(iv), worst[iv]
            if c2 > n:  # one child, a leaf: split v + c1 between them
                i1 = cbt[c1]
                best, rest, e = self._select(np.concatenate((V, self._load(i1))), R)
                w1 = self._worse(wv, worst[i1])
                self._store(iv, best, e)
                self._store(i1, rest, w1)
                break
            self._cmp += 1
            if worst[cbt[c1]] > worst[cbt[c2]]:
                c1, c2 = c2, c1  # c2: the child with the larger worst key
            i1, i2 = cbt[c1], cbt[c2]
            w2 = worst[i2]
            small, large, es = self._select(np.concatenate((self._load(i1), self._load(i2))), R)
            self._store(i2, large, w2)  # no key above c2's old worst: c2's subtree is intact
            best, rest, e = self._select(np.concatenate((V, small)), R)
            w1 = self._worse(wv, es)
            self._store(iv, best, e)
            self._store(i1, rest, w1)
            v = c1
        return out

    # -- the storage hooks ----------------------------------------------------------------

    def _add_chunk(self, x: np.ndarray) -> None:
        """Insert the R keys ``x`` into the tree, first swapping with ``H`` any of them that
        beat ``H``'s worst key (so that ``H`` still beats the tree)."""
        R = self.R
        if len(self._H):
            self._cmp += R  # x.min(), then one comparison with H's worst
            if x.min() < self._H[-1]:
                best, x, _ = self._select(np.concatenate((self._H, x)), len(self._H))
                self._H = np.sort(best)
        self._cmp += R - 1  # x.max()
        self._insert_chunk(x, x.max())

    def _push_one(self, key: complex) -> None:
        """Add one key to ``B``; a full ``B`` becomes a chunk. O(R) for the append, plus an
        insertion-update every R pushes. (The buffer off: ``K = 0``.)"""
        self._B = np.append(self._B, key)
        if len(self._B) >= self.R:
            x, self._B = self._B, _EMPTY
            self._add_chunk(x)

    def _push_keys(self, keys: np.ndarray) -> None:
        """Insert-many of keys: every full chunk of R is inserted by insertion-update
        (Figure 1); fewer than R wait in ``B``."""
        if not len(keys):
            return
        b = np.concatenate((self._B, keys)) if len(self._B) else keys
        R = self.R
        full = len(b) // R * R
        for lo in range(0, full, R):
            self._add_chunk(b[lo : lo + R])
        self._B = b[full:]

    def _unextract(self, keys: np.ndarray) -> None:
        """Put back ``keys`` (sorted, each beating every key held): they join the head ``H``."""
        self._H = np.concatenate((keys, self._H)) if len(self._H) else keys

    def _take(self, r: int) -> np.ndarray:
        """Remove the ``r`` best keys (``r <= len``), sorted."""
        H = self._H
        while len(H) < r and self.n:
            H = np.concatenate((H, np.sort(self._extract_root())))
        B = self._B
        if not len(B):
            out, self._H = H[:r], H[r:]
            return out
        cand = np.concatenate((H[:r], B))  # keys of H beyond r cannot be among the r best
        if len(cand) == r:
            self._H, self._B = H[r:], _EMPTY
            return np.sort(cand)
        best, _, e = self._select(cand, r)
        self._H = H[np.searchsorted(H, e, side="right") :]
        self._B = B[B > e]
        return np.sort(best)

    def _core_len(self) -> int:
        return len(self._H) + len(self._B) + self.n * self.R

    # -- introspection --------------------------------------------------------------------

    @property
    def io(self) -> dict[str, int] | None:
        """Block reads/writes so far (``None`` in RAM mode)."""
        return None if self._blocks is None else self._blocks.io

    def _core_keys(self) -> np.ndarray:
        """Every key of the core: H, the chunks in node order, then B (a copy; for tests)."""
        parts = [self._H] + [self._load(self._cbt[k]) for k in range(1, self.n + 1)] + [self._B]
        return np.concatenate(parts)

    def close(self) -> None:
        """Release the block file (disk mode)."""
        if self._blocks is not None:
            self._blocks.close()

    def _check_core(self) -> None:
        """Assert every invariant of the module docstring, and the free list. O(n)."""
        R, n = self.R, self.n
        items = [self._cbt[k] for k in range(1, n + 1)]
        assert len(set(items)) == n, "an item sits at two nodes"
        for k, i in enumerate(items, start=1):
            assert self._leaf[i] == k, f"Leaf[{i}] = {self._leaf[i]}, expected node {k}"
        free, i = set(), self._free
        while i >= 0:
            assert i not in free and self._leaf[i] < 0, f"free list broken at item {i}"
            free.add(i)
            i = -2 - self._leaf[i]
        assert free | set(items) == set(range(len(self._leaf))), "items lost"
        assert not free & set(items)
        chunks = [np.asarray(self._load(i)) for i in items]
        for k, (i, c) in enumerate(zip(items, chunks), start=1):
            assert len(c) == R, f"node {k} holds {len(c)} keys, not R = {R}"
            assert c.max() == self._worst[i], f"worst of node {k} is stale"
            if k > 1:
                assert chunks[k // 2 - 1].max() < c.min(), f"node {k//2} does not beat node {k}"
        H = self._H
        assert (H[:-1] < H[1:]).all(), "H is not sorted"
        if len(H) and n:
            assert H[-1] < chunks[0].min(), "H does not beat the root chunk"
        assert len(self._B) < R, "B holds a full chunk"
        if self._blocks is not None:
            self._blocks._check()


@register
class CBTFrontier(LockedFrontier):
    """Unbounded priority frontier on a :class:`ChunkedCBT` under one lock.

    Largest priority first, FIFO among equal priorities. ``put_many``/``get_many(R)`` are the
    paper's insert-many and extract-top(R); single ``put``/``get`` go through the front buffer
    (:mod:`frontier.pqbuffer`)."""

    name = "cbt"
    description = "chunked Complete Binary Tree (R keys per node, SELECT updates) under one lock"
    ordering = "priority"

    def __init__(self, **options: Any) -> None:
        """``options`` are those of :class:`ChunkedCBT` (validated there)."""
        super().__init__(ChunkedCBT(**options))

    @property
    def storage(self) -> ChunkedCBT:
        """The storage (for counters: ``comparisons``, ``io``). Not thread-safe by itself."""
        return self._storage
