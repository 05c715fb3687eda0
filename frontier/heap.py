"""``heap``: the binary heap, the baseline the paper compares against (BH).

Invariant (checked by :meth:`BinaryHeap._check`): the entries form a min-heap on their keys,
``key(h[(i - 1) // 2]) <= key(h[i])`` for every ``i > 0``, where an entry's key is
``(-priority, seq)``: the root is the URL with the largest priority, the earliest among equals
(FIFO ties; see :mod:`frontier.pqcommon`).

The heap *is* :mod:`heapq` -- the C implementation in RAM, the same algorithm in
:mod:`heapq`'s own pure-Python ``_siftdown``/``_siftup`` over a block file in disk mode:

* ``count_comparisons=True`` wraps each entry in an object whose ``__lt__`` counts, so the
  comparisons counted are those :mod:`heapq`'s C code really makes (slower; for the labs).
* ``disk=path`` keeps the heap array in blocks of a file behind an LRU cache
  (:class:`frontier.blockstore.BlockKeys`); the URLs stay in RAM.

``push`` O(log n) (about 1.6 comparisons on average for random keys); ``pop`` O(log n) (about
``log2 n`` comparisons: heapq's bottom-up sift, Knuth 5.2.3 ex. 18); ``push_many(m)`` O(m log n);
``pop_many(r)`` O(r log n), best first.

>>> h = BinaryHeap()
>>> h.push_many([("a", 1.0), ("b", 5.0), ("c", 5.0)])
>>> h.pop_many(3)
['b', 'c', 'a']
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

import numpy as np

from frontier.blockstore import BlockKeys
from frontier.contract import check_priority, register
from frontier.locked import LockedFrontier
from frontier.pqcommon import UrlTable, _priorities, check_disk_options

__all__ = ["BinaryHeap", "HeapFrontier"]


class _Counted:
    """A heap entry whose ``<`` counts itself in a shared one-cell list."""

    __slots__ = ("key", "url", "box")

    def __init__(self, key: tuple[float, int], url: str | None, box: list[int]) -> None:
        self.key, self.url, self.box = key, url, box

    def __lt__(self, other: _Counted) -> bool:
        self.box[0] += 1
        return self.key < other.key


class _BlockList:
    """The list interface :mod:`heapq`'s pure-Python sifts need, over a :class:`BlockKeys`.

    Items are key tuples ``(-priority, seq)`` (or :class:`_Counted` when counting)."""

    def __init__(self, keys: BlockKeys, box: list[int] | None) -> None:
        self.keys, self.n, self.box = keys, 0, box

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        c = self.keys.get(i)
        k = (float(c.real), int(c.imag))
        return k if self.box is None else _Counted(k, None, self.box)

    def __setitem__(self, i: int, item) -> None:
        k = item if self.box is None or isinstance(item, tuple) else item.key
        self.keys.set(i, complex(k[0], k[1]))

    def append(self, item) -> None:
        self.n += 1
        self.keys.grow(self.n)
        self[self.n - 1] = item

    def pop(self):
        self.n -= 1
        return self[self.n]


class BinaryHeap:
    """The BH storage (see the module docstring). Not thread-safe: wrap it in a frontier."""

    def __init__(
        self,
        count_comparisons: bool = False,
        disk=None,
        cache_blocks: int = 64,
        block_size: int = 256,
    ) -> None:
        check_disk_options(disk, cache_blocks, block_size)
        self._box: list[int] | None = [0] if count_comparisons else None
        self._seq = 0
        self._disk = disk is not None
        if self._disk:
            self._urls = UrlTable()
            self._blocks = BlockKeys(disk, block_size=block_size, cache_blocks=cache_blocks)
            self._h = _BlockList(self._blocks, self._box)
        else:
            self._h = []  # entries (-priority, seq, url), or _Counted

    @property
    def comparisons(self) -> int | None:
        """Key comparisons made so far (``None`` unless ``count_comparisons``)."""
        return None if self._box is None else self._box[0]

    @property
    def io(self) -> dict[str, int] | None:
        """Block reads/writes so far (``None`` in RAM mode)."""
        return self._blocks.io if self._disk else None

    def push(self, url: str, priority: float) -> None:
        """Add one URL. O(log n)."""
        if self._disk:
            k = self._urls.key(url, priority)
            h = self._h
            h.append((k.real, int(k.imag)))
            heapq._siftdown(h, 0, len(h) - 1)
            return
        p = check_priority(priority)
        s = self._seq
        self._seq = s + 1
        if self._box is None:
            heapq.heappush(self._h, (-p, s, url))
        else:
            heapq.heappush(self._h, _Counted((-p, s), url, self._box))

    def _pop_disk_key(self) -> tuple[float, int]:
        """Remove the top of the block-file heap and return its key ``(-priority, seq)``.
        Precondition: not empty. O(log n) block accesses."""
        h = self._h
        last = h.pop()
        if h.n:
            top = h[0]
            h[0] = last
            heapq._siftup(h, 0)
        else:
            top = last
        return top if isinstance(top, tuple) else top.key

    def pop(self) -> str:
        """Remove and return the best URL. Precondition: not empty. O(log n)."""
        if self._disk:
            return self._urls.urls.pop(self._pop_disk_key()[1])
        e = heapq.heappop(self._h)
        return e[2] if self._box is None else e.url

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many: all priorities are checked before any URL is added. O(m log n)."""
        pairs = pairs if isinstance(pairs, list) else list(pairs)
        if not pairs:
            return
        if self._disk:
            keys = self._urls.keys(pairs)
            h = self._h
            for k in keys.tolist():
                h.append((k.real, int(k.imag)))
                heapq._siftdown(h, 0, h.n - 1)
            return
        negp = (-_priorities(pairs)).tolist()
        s = self._seq
        self._seq = s + len(pairs)
        h = self._h
        if self._box is None:
            entries = zip(negp, range(s, s + len(pairs)), [u for u, _ in pairs])
            if len(pairs) > len(h):
                h.extend(entries)
                heapq.heapify(h)
            else:
                push = heapq.heappush
                for e in entries:
                    push(h, e)
        else:
            box = self._box
            for p, i, (u, _) in zip(negp, range(s, s + len(pairs)), pairs):
                heapq.heappush(h, _Counted((p, i), u, box))

    def pop_many(self, r: int) -> list[str]:
        """Extract-top(r): up to ``r`` URLs, best first. O(r log n)."""
        n = min(r, len(self))
        if self._disk or self._box is not None:
            return [self.pop() for _ in range(n)]
        pop, h = heapq.heappop, self._h
        return [pop(h)[2] for _ in range(n)]

    def pop_top(self, r: int) -> tuple[np.ndarray, list[str]]:
        """Extract-top(r) with the keys: ``(keys best first, their URLs)``. O(r log n)."""
        n = min(r, len(self))
        keys = np.empty(n, dtype=np.complex128)
        urls = []
        if self._disk:
            for i in range(n):
                k = self._pop_disk_key()
                keys[i] = complex(k[0], k[1])
                urls.append(self._urls.urls.pop(k[1]))
            return keys, urls
        pop, h = heapq.heappop, self._h
        for i in range(n):
            e = pop(h)
            if self._box is None:
                keys[i] = complex(e[0], e[1])
                urls.append(e[2])
            else:
                keys[i] = complex(*e.key)
                urls.append(e.url)
        return keys, urls

    def __len__(self) -> int:
        return len(self._h)

    def keys(self) -> np.ndarray:
        """Every key held, as complex ``-priority + 1j*seq``, in array order (for tests)."""
        if self._disk:
            return np.array([complex(*self._h[i]) if self._box is None else complex(*self._h[i].key)
                             for i in range(len(self._h))])
        if self._box is None:
            return np.array([complex(e[0], e[1]) for e in self._h])
        return np.array([complex(*e.key) for e in self._h])

    def close(self) -> None:
        """Release the block file (disk mode)."""
        if self._disk:
            self._blocks.close()

    def _check(self) -> None:
        """Assert the heap invariant and, in disk mode, the URL table. O(n)."""
        keys = self.keys()
        if len(keys) > 1:
            kids = keys[1:]
            parents = keys[(np.arange(1, len(keys)) - 1) // 2]
            assert (parents <= kids).all(), "heap order violated"
        assert len(np.unique(keys.imag)) == len(keys), "duplicate arrival numbers"
        if self._disk:
            self._urls.check(keys)
            self._blocks._check()


@register
class HeapFrontier(LockedFrontier):
    """Unbounded priority frontier on a binary heap (:class:`BinaryHeap`) under one lock.

    Largest priority first, FIFO among equal priorities. ``put``/``get`` O(log n)."""

    name = "heap"
    description = "binary heap (heapq) under one lock: the paper's BH baseline, priority order"
    ordering = "priority"

    def __init__(self, **options: Any) -> None:
        """``options`` are those of :class:`BinaryHeap` (validated there)."""
        super().__init__(BinaryHeap(**options))

    @property
    def storage(self) -> BinaryHeap:
        """The storage (for counters: ``comparisons``, ``io``). Not thread-safe by itself."""
        return self._storage
