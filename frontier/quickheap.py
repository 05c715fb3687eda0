"""``quickheap``: the Paredes--Navarro Quickheap (QH), Section 3.2 and Figures 3--5 of the paper.

A Quickheap is incremental quicksort (IQS, Figure 3) frozen half-way and kept as a priority
queue: an array ``heap`` used as a circle, and a stack ``S`` of pivot positions.

Invariant (checked by :meth:`Quickheap._check`). Positions are absolute integers; position
``p`` lives in cell ``p % capacity``. With ``S[0] > S[1] > ... > S[top] >= idx``:

* the keys held are those at positions ``idx .. S[0]-1`` (``S[0]`` is the fictitious pivot
  +infinity, the tail where insertions enter), so ``len == S[0] - idx < capacity``;
* for ``k >= 1`` the key at ``S[k]`` is the pivot ``P[k]``, and ``P[top] < ... < P[1]``;
* *the pivot invariant*: every key of chunk ``k`` -- the positions strictly between
  ``S[k+1]`` and ``S[k]`` (between ``idx - 1`` and ``S[top]`` for the first chunk) -- lies
  strictly between ``P[k+1]`` and ``P[k]`` (with ``P[top+1] = -inf``, ``P[0] = +inf``).

Keys are ``complex(-priority, seq)`` (:mod:`frontier.pqcommon`), so this *min*-quickheap hands
out the largest priority first, FIFO among equal priorities -- the paper's "multiply by -1".

Operations, with the number of key comparisons each makes (exact, counted in
:attr:`Quickheap.comparisons` when ``count_comparisons=True``; insertions are counted by the
code that runs, partitions by an instrumented twin of ``numpy.partition`` -- see
:meth:`Quickheap._partition` -- which the tests prove hands out the same URLs):

* ``push`` -- Figure 4 as printed: move the fictitious pivot, then compare the key with pivots
  ``P[1], P[2], ...`` moving each one cell right, until a pivot not larger than the key.
  A key that lands in chunk ``k`` costs ``min(k + 1, top)`` comparisons. O(log n) expected.
* ``push_many`` -- the same insertions done in bulk: one binary search (``searchsorted``) finds
  each key's chunk, then each chunk is shifted right *once* by the number of keys entering at or
  before it: one vectorized rotation per chunk instead of one cell move per key and chunk. The
  comparisons counted are those Figure 4 would make key by key (``min(k + 1, top)``); the
  resulting set of chunks is the same. O(m log m + (number of chunks) + cells moved).
* ``pop_many(R)`` -- Figure 5: pop the pivots (and their chunks) that fall inside the first ``R``
  positions, then quickselect the ``R``-th position inside the chunk that straddles it, pushing
  every pivot found beyond it. Each ``partition`` of ``n`` keys around a random pivot makes
  exactly ``n - 1`` comparisons (one per other key; NumPy vectorizes the pass). The ``R`` keys
  are then sorted best-first, as the frontier contract asks: that sort is *not* counted (the
  paper's extract-top reports a set). Amortized O(R log R + log n) expected.
* ``pop`` -- ``pop_many(1)``: IQS's extract-min.
* Single ``push``/``pop`` go through a small Python-list buffer in front of the quickheap
  (:mod:`frontier.pqbuffer`), which reaches it by ``push_many``/``pop_many`` of K keys; the
  comparison-counting twin has no buffer, so its single ``push`` is Figure 4 as printed.

Capacity doubles when the array is full (the live keys are copied to the new array).

>>> q = Quickheap(initial_capacity=8)
>>> q.push_many([("a", 1.0), ("b", 5.0), ("c", 3.0), ("d", 5.0)])
>>> q.pop_many(3)
['b', 'd', 'c']
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from typing import Any

import numpy as np

from frontier.blockstore import open_keys
from frontier.contract import register
from frontier.locked import LockedFrontier
from frontier.pqbuffer import DEFAULT_BUFFER, FrontBuffer
from frontier.pqcommon import KEY_DTYPE, UrlTable, check_disk_options, check_int_option

__all__ = ["Quickheap", "QuickheapFrontier"]

_INF = np.complex128(complex(math.inf, math.inf))  # the fictitious pivot P[0]
_BULK = 8  # push_many of fewer keys inserts them one by one (Figure 4)


class Quickheap(FrontBuffer):
    """The QH storage (see the module docstring). Not thread-safe: wrap it in a frontier.

    ``initial_capacity``: initial array size (grows by doubling); ``seed``: random pivots;
    ``disk``/``cache_blocks``/``block_size``: keep the array in blocks of a file
    (:mod:`frontier.blockstore`), replaced by the paper's policy (``cache_policy="paper"``,
    :meth:`_victim`) or least-recently-used (``"lru"``); ``count_comparisons``: partition by
    the counting twin instead of ``numpy.partition`` (slower; same results, see
    :meth:`_partition`); ``buffer``: K, the keys of the front buffer for single push/pop
    (:mod:`frontier.pqbuffer`; default 64, 0 when counting comparisons; 0 switches it off).
    """

    def __init__(
        self,
        initial_capacity: int = 1024,
        count_comparisons: bool = False,
        disk=None,
        cache_blocks: int = 64,
        block_size: int = 256,
        seed: int = 0,
        buffer: int | None = None,
        cache_policy: str = "paper",
    ) -> None:
        check_int_option("initial_capacity", initial_capacity, 2)
        self._counting = bool(count_comparisons)
        check_disk_options(disk, cache_blocks, block_size)
        if cache_policy not in ("paper", "lru"):
            raise ValueError(f"cache_policy must be 'paper' or 'lru', got {cache_policy!r}")
        self._cap = initial_capacity
        self._a = open_keys(initial_capacity, disk, block_size, cache_blocks,
                            self._victim if cache_policy == "paper" else None)
        self._idx = 0  # position of the first key
        self._S: list[int] = [0]  # pivot positions; S[0] is the fictitious +inf pivot (tail)
        self._P: list[np.complex128] = [_INF]  # pivot keys, P[k] at position S[k]
        self._urls = UrlTable()
        self._rng = random.Random(seed)
        self._cmp = 0  # key comparisons (meaningful when counting)
        self.partitions = 0
        """Partition passes made so far (each over a chunk)."""
        self._init_buffer((0 if self._counting else DEFAULT_BUFFER) if buffer is None else buffer)

    # -- the circular array -----------------------------------------------------------------

    def _read(self, lo: int, hi: int) -> np.ndarray:
        """Keys at positions ``lo..hi-1`` (may be a view: do not write the range meanwhile)."""
        cap = self._cap
        if hi <= lo:
            return np.empty(0, dtype=KEY_DTYPE)
        a = lo % cap
        b = a + (hi - lo)
        if b <= cap:
            return self._a.read(a, b)
        return np.concatenate((self._a.read(a, cap), self._a.read(0, b - cap)))

    def _write(self, lo: int, arr: np.ndarray) -> None:
        cap = self._cap
        a = lo % cap
        if a + len(arr) <= cap:
            self._a.write(a, arr)
        else:
            k = cap - a
            self._a.write(a, arr[:k])
            self._a.write(0, arr[k:])

    def _discard(self, lo: int, hi: int) -> None:
        """Positions ``lo..hi-1`` are dead (behind the head): their blocks need no write-back."""
        if hi <= lo:
            return
        cap = self._cap
        a = lo % cap
        b = a + (hi - lo)
        if b <= cap:
            self._a.discard(a, b)
        else:
            self._a.discard(a, cap)
            self._a.discard(0, b - cap)

    def _victim(self, cached: Iterable[int]) -> int:
        """The paper's page replacement (end of Section 3.2), for a full cache in disk mode:
        RAM keeps (ii) the block of every pivot position in ``S`` and (iii) the longest prefix
        of ``heap[idx..]``; so the block to evict is the cached one farthest from the head
        (circularly) that holds no pivot. O(cached blocks + pivots)."""
        bs, cap = self._a.block_size, self._cap
        nblocks = -(-cap // bs)
        head = (self._idx % cap) // bs
        pinned = {(s % cap) // bs for s in self._S}
        victim, far, victim_any, far_any = -1, -1, -1, -1
        for b in cached:
            d = (b - head) % nblocks
            if d > far_any:
                victim_any, far_any = b, d
            if d > far and b not in pinned:
                victim, far = b, d
        return victim if victim >= 0 else victim_any

    def _ensure(self, m: int) -> None:
        """Make room for ``m`` more keys (plus the fictitious pivot's cell), doubling."""
        need = self._S[0] - self._idx + 1 + m
        if need <= self._cap:
            return
        live = np.array(self._read(self._idx, self._S[0]))  # a copy
        shift = self._idx
        self._cap = max(2 * self._cap, need)
        self._a.grow(self._cap)
        self._a.write(0, live)  # renumber positions so that idx becomes 0
        self._S = [s - shift for s in self._S]
        self._idx = 0

    # -- insertion: Figure 4 ------------------------------------------------------------------

    def _insert(self, x: np.complex128) -> None:
        """Figure 4: insert key ``x``, moving pivots right until ``x``'s chunk is reached."""
        self._ensure(1)
        S, P, a, cap = self._S, self._P, self._a, self._cap
        top = len(S) - 1
        pidx = 0
        while True:
            if pidx:  # move pivot pidx one cell right (the fictitious one has no cell content)
                a.set((S[pidx] + 1) % cap, P[pidx])
            S[pidx] += 1
            if pidx == top:  # reached the first chunk: no comparison needed
                a.set((S[pidx] - 1) % cap, x)
                return
            self._cmp += 1
            if P[pidx + 1] < x:  # x belongs to the chunk just left of pivot pidx
                a.set((S[pidx] - 1) % cap, x)
                return
            # the first key right of pivot pidx+1 fills the hole; the hole moves left
            a.set((S[pidx] - 1) % cap, a.get((S[pidx + 1] + 1) % cap))
            pidx += 1

    def _push_one(self, key: complex) -> None:
        """Add one key (Figure 4). O(number of pivots) = O(log n) expected."""
        self._insert(np.complex128(key))

    def _push_keys(self, keys: np.ndarray) -> None:
        """Insert-many of keys: the bulk form of Figure 4 (module docstring); fewer than
        ``_BULK`` keys go one by one."""
        m = len(keys)
        if m < _BULK:
            for x in keys:
                self._insert(x)
            return
        self._ensure(m)
        S, P = self._S, self._P
        top = len(S) - 1
        if top == 0:  # no pivot: everything goes to the one chunk, at the tail
            self._write(S[0], keys)
            S[0] += m
            return
        pivots = np.array(P[:0:-1], dtype=KEY_DTYPE)  # P[top] < ... < P[1]
        chunk = top - np.searchsorted(pivots, keys)  # chunk k: P[k+1] < x < P[k]
        self._cmp += int(np.minimum(chunk + 1, top).sum())  # what Figure 4 compares
        order = np.argsort(chunk, kind="stable")
        keys = keys[order]
        counts = np.bincount(chunk, minlength=top + 1)
        starts = np.concatenate(([0], np.cumsum(counts))).tolist()
        # shift[k]: keys entering chunks k, k+1, ..., top, i.e. how far pivot k moves right
        shift = np.concatenate((np.cumsum(counts[::-1])[::-1], [0])).tolist()
        old = list(S)
        S[0] = old[0] + shift[0]
        for k in range(top + 1):  # right to left: each chunk moves into room already freed
            if shift[k] == 0:
                break  # nothing enters this chunk or any chunk left of it
            lo = old[k + 1] + 1 if k < top else self._idx  # chunk k is old[k+1]+1 .. old[k]-1
            hi = old[k]
            s_left = shift[k + 1]
            moved = min(s_left, hi - lo)  # its first cells move to its end (a rotation)
            data = np.concatenate((self._read(lo, lo + moved), keys[starts[k] : starts[k + 1]]))
            self._write(max(lo + s_left, hi), data)
            if k < top and s_left:
                S[k + 1] = old[k + 1] + s_left
                self._a.set(S[k + 1] % self._cap, P[k + 1])

    # -- extraction: Figures 3 and 5 ----------------------------------------------------------

    @property
    def comparisons(self) -> int | None:
        """Key comparisons so far (exact; ``None`` unless ``count_comparisons``)."""
        return self._cmp if self._counting else None

    def start_counting(self) -> None:
        """Count comparisons from now on (the counting twin), e.g. after a fast bulk build: the
        structure is the same either way, only the time to build it differs. Precondition:
        the buffer is off (``buffer=0``), as in a counting twin."""
        assert not self._K, "start_counting needs buffer=0"
        self._counting = True

    def _partition(self, first: int, last: int) -> tuple[int, np.complex128]:
        """Partition positions ``first..last`` around a random pivot: smaller keys, the pivot,
        larger keys. Returns the pivot's position and key.

        Fast path: ``numpy.partition`` at a uniformly random rank (the same thing as a random
        pivot key). Counting twin: a pivot key drawn uniformly, one vectorized pass comparing
        each of the other ``n - 1`` keys with it, counted."""
        seg = self._read(first, last + 1)
        n = len(seg)
        self.partitions += 1
        if not self._counting:
            j = self._rng.randrange(n)
            part = np.partition(seg, j)
            self._write(first, part)
            return first + j, part[j]
        v = seg[self._rng.randrange(n)]
        left = seg[seg < v]
        right = seg[seg > v]
        self._cmp += n - 1
        self._write(first, np.concatenate((left, [v], right)))
        return first + len(left), v

    def _extract(self, r: int) -> np.ndarray:
        """Figure 5: remove the ``r`` smallest keys (1 <= r <= len); returned sorted."""
        S, P = self._S, self._P
        idx = self._idx
        final = idx + r - 1
        first = idx
        while S[-1] <= final and len(S) > 1:  # whole chunks and their pivots are taken
            first = S.pop() + 1
            P.pop()
        if first <= final:  # the chunk first..S.top()-1 holds the r-th key: quickselect it
            last = S[-1] - 1
            while final < last:  # (final == last: the whole chunk is taken)
                p, v = self._partition(first, last)
                if p < final:
                    first = p + 1
                else:
                    S.append(p)
                    P.append(v)
                    if p == final:
                        S.pop()  # the pivot at final is reported with its chunk
                        P.pop()
                        break
                    last = p - 1
        out = np.sort(self._read(idx, final + 1))  # best first; a copy
        self._idx = final + 1
        self._discard(idx, final + 1)
        return out

    _take = _extract  # the core's extract-top for FrontBuffer

    def _unextract(self, keys: np.ndarray) -> None:
        """Put back ``keys`` (sorted, each beating every key held) just before the head: they
        join the first chunk, whose keys need only be below ``P[top]``. O(len(keys))."""
        self._ensure(len(keys))
        self._idx -= len(keys)
        self._write(self._idx, keys)

    def _core_len(self) -> int:
        return self._S[0] - self._idx

    # -- introspection --------------------------------------------------------------------

    @property
    def io(self) -> dict[str, int] | None:
        """Block reads/writes so far (``None`` in RAM mode)."""
        return self._a.io

    @property
    def capacity(self) -> int:
        return self._cap

    def _core_keys(self) -> np.ndarray:
        """The keys of the quickheap, in position order (a copy; for tests)."""
        return np.array(self._read(self._idx, self._S[0]))

    def close(self) -> None:
        """Release the block file (disk mode)."""
        self._a.close()

    def _check_core(self) -> None:
        """Assert the pivot invariant and the bookkeeping. O(n)."""
        S, P, idx = self._S, self._P, self._idx
        assert len(S) == len(P) >= 1 and P[0] == _INF
        assert all(S[k] > S[k + 1] for k in range(len(S) - 1)), f"stack not decreasing: {S}"
        assert S[-1] >= idx, (S, idx)
        assert S[0] - idx + 1 <= self._cap, "more keys than cells"
        keys = self._core_keys()
        bounds = [idx - 1] + S[:0:-1] + [S[0]]  # chunk limits, left to right
        values = [None] + P[:0:-1] + [None]
        for j in range(1, len(bounds) - 1):
            assert keys[bounds[j] - idx] == values[j], f"pivot {j} is not at its position"
            if j > 1:
                assert values[j - 1] < values[j], "pivots out of order"
        for j in range(len(bounds) - 1):
            chunk = keys[bounds[j] - idx + 1 : bounds[j + 1] - idx]
            if len(chunk):
                if values[j] is not None:
                    assert (chunk > values[j]).all(), f"chunk {j} has a key below its pivot"
                if values[j + 1] is not None:
                    assert (chunk < values[j + 1]).all(), f"chunk {j} has a key above its pivot"
        self._a._check()


@register
class QuickheapFrontier(LockedFrontier):
    """Unbounded priority frontier on a :class:`Quickheap` under one lock.

    Largest priority first, FIFO among equal priorities. ``put`` O(log n) expected, ``get``
    amortized O(log n); ``get_many(R)`` and ``put_many`` are the paper's bulk operations."""

    name = "quickheap"
    description = "Quickheap (incremental quicksort on a circular array) under one lock"
    ordering = "priority"

    def __init__(self, **options: Any) -> None:
        """``options`` are those of :class:`Quickheap` (validated there)."""
        super().__init__(Quickheap(**options))

    @property
    def storage(self) -> Quickheap:
        """The storage (for counters: ``comparisons``, ``io``). Not thread-safe by itself."""
        return self._storage
