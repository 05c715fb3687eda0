"""Secondary memory for the priority storages: key arrays in RAM or in blocks of a file.

Both classes below offer the same small interface over a flat array of keys (complex128, 16
bytes each, see :mod:`frontier.pqcommon`): ``read(lo, hi)``, ``write(lo, arr)``, ``get(i)``,
``set(i, v)``, ``grow(n)``. The Quickheap's array, the CBT's chunks and the disk binary heap are
written once against that interface; choosing the class chooses where the keys live.

:class:`BlockKeys` models the paper's secondary memory (Section 3 and Figure 9): the array is
cut into fixed-size blocks of ``block_size`` keys, stored in a file; at most ``cache_blocks``
blocks are held in RAM, replaced least-recently-used. Every block brought in from the file is
a *read*; every dirty block sent back is a *write*. Three rules keep the count honest and simple:

* a block that was never written to the file costs no read when first touched (it is new);
* writing a whole block does not read it first (its old content is dead);
* a block the structure declares dead (:meth:`BlockKeys.discard`: a Quickheap's cells behind
  its head, a CBT chunk extracted or about to be overwritten whole) is dropped from the cache
  without being written back, and costs no read when next touched.

Which block leaves a full cache is the *replacement policy*: least-recently-used by default
(what the paper prescribes for the CBT, Section 3.1), or any ``victim(cached_blocks) -> block``
function the structure supplies (the Quickheap's own policy, Section 3.2: keep its pivots'
blocks and the longest prefix of the array from its head; :meth:`Quickheap._victim`).

Invariant of :class:`BlockKeys` (checked by :meth:`BlockKeys._check`): the cache holds at most
``cache_blocks`` blocks, in LRU order (oldest first); ``dirty`` is a subset of the cached blocks;
a block's true content is its cached copy if cached, else its file copy if it is ``on_file``,
else dead (read as zeros).
"""

from __future__ import annotations

import os
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from frontier.pqcommon import KEY_DTYPE

__all__ = ["BlockKeys", "RamKeys", "open_keys"]

_ITEM = np.dtype(KEY_DTYPE).itemsize  # 16 bytes


class RamKeys:
    """A growable array of keys in RAM (a NumPy array). All operations are slicing."""

    __slots__ = ("a",)

    def __init__(self, n: int) -> None:
        self.a = np.zeros(max(n, 1), dtype=KEY_DTYPE)

    def __len__(self) -> int:
        return len(self.a)

    def read(self, lo: int, hi: int) -> np.ndarray:
        """``a[lo:hi]`` (a view: copy it before writing the same range). O(1)."""
        return self.a[lo:hi]

    def write(self, lo: int, arr: np.ndarray) -> None:
        self.a[lo : lo + len(arr)] = arr

    def get(self, i: int) -> complex:
        return self.a[i]

    def set(self, i: int, v: complex) -> None:
        self.a[i] = v

    def discard(self, lo: int, hi: int) -> None:
        """Nothing to do in RAM (see :meth:`BlockKeys.discard`)."""

    def grow(self, n: int) -> None:
        """Make room for ``n`` keys, keeping the content. O(n) when it reallocates."""
        if n > len(self.a):
            b = np.zeros(max(n, 2 * len(self.a)), dtype=KEY_DTYPE)
            b[: len(self.a)] = self.a
            self.a = b

    @property
    def io(self) -> None:
        return None

    def close(self) -> None:
        pass

    def _check(self) -> None:
        pass


class BlockKeys:
    """An unbounded array of keys kept in ``block_size``-key blocks of a file, with an LRU cache
    of ``cache_blocks`` blocks in RAM; ``reads``/``writes`` count block transfers.

    ``path`` is a file to create (truncated), or a folder in which a fresh temporary file is made
    (and deleted by :meth:`close`). ``read``/``write`` of a range cost O(range + blocks touched);
    ``get``/``set`` O(1) plus a block transfer on a miss. ``victim``: the replacement policy
    (default LRU; see the module docstring).
    """

    def __init__(self, path: str | os.PathLike, block_size: int = 256, cache_blocks: int = 64,
                 victim: Callable[[Iterable[int]], int] | None = None):
        path = Path(path)
        if path.is_dir():
            fd, name = tempfile.mkstemp(dir=path, prefix="crawlab-", suffix=".blocks")
            os.close(fd)
            self.path, self._temporary = Path(name), True
        else:
            self.path, self._temporary = path, False
        self._file = open(self.path, "w+b")  # noqa: SIM115  (closed by close())
        self.block_size = block_size
        self.cache_blocks = cache_blocks
        self.cache: OrderedDict[int, np.ndarray] = OrderedDict()  # block -> keys, LRU first
        self.dirty: set[int] = set()  # cached blocks changed since read from the file
        self.on_file: set[int] = set()  # blocks written to the file at least once
        self.reads = 0
        self.writes = 0
        self.victim = victim  # None: least recently used
        self._n = 0  # nominal length (grow)

    # -- the cache ------------------------------------------------------------------------

    def _block(self, b: int, whole_write: bool = False) -> np.ndarray:
        """Block ``b``, brought into the cache (LRU update; evicts the oldest if full)."""
        blk = self.cache.get(b)
        if blk is not None:
            self.cache.move_to_end(b)
            return blk
        if len(self.cache) >= self.cache_blocks:
            if self.victim is None:
                old, data = self.cache.popitem(last=False)
            else:
                old = self.victim(self.cache.keys())
                data = self.cache.pop(old)
            if old in self.dirty:
                self.dirty.discard(old)
                self._file.seek(old * self.block_size * _ITEM)
                self._file.write(data.tobytes())
                self.on_file.add(old)
                self.writes += 1
        if b in self.on_file and not whole_write:
            self._file.seek(b * self.block_size * _ITEM)
            blk = np.frombuffer(self._file.read(self.block_size * _ITEM), dtype=KEY_DTYPE).copy()
            self.reads += 1
        else:
            blk = np.zeros(self.block_size, dtype=KEY_DTYPE)
        self.cache[b] = blk
        return blk

    def discard(self, lo: int, hi: int) -> None:
        """Declare keys ``lo..hi-1`` dead: every block wholly inside the range leaves the cache
        without a write, and its next touch costs no read. O(blocks in the range)."""
        bs = self.block_size
        for b in range(-(-lo // bs), hi // bs):
            if self.cache.pop(b, None) is not None:
                self.dirty.discard(b)
            self.on_file.discard(b)

    def flush(self) -> None:
        """Write every dirty block back (counted), keeping them cached."""
        for b in sorted(self.dirty):
            self._file.seek(b * self.block_size * _ITEM)
            self._file.write(self.cache[b].tobytes())
            self.on_file.add(b)
            self.writes += 1
        self.dirty.clear()

    # -- the array interface -------------------------------------------------------------------

    def __len__(self) -> int:
        return self._n

    def grow(self, n: int) -> None:
        self._n = max(self._n, n)

    def read(self, lo: int, hi: int) -> np.ndarray:
        """A copy of keys ``lo..hi-1``."""
        if hi <= lo:
            return np.empty(0, dtype=KEY_DTYPE)
        bs = self.block_size
        out = np.empty(hi - lo, dtype=KEY_DTYPE)
        pos = lo
        while pos < hi:
            b, off = divmod(pos, bs)
            take = min(bs - off, hi - pos)
            out[pos - lo : pos - lo + take] = self._block(b)[off : off + take]
            pos += take
        return out

    def write(self, lo: int, arr: np.ndarray) -> None:
        bs = self.block_size
        pos, hi = lo, lo + len(arr)
        while pos < hi:
            b, off = divmod(pos, bs)
            take = min(bs - off, hi - pos)
            blk = self._block(b, whole_write=(take == bs))
            blk[off : off + take] = arr[pos - lo : pos - lo + take]
            self.dirty.add(b)
            pos += take

    def get(self, i: int) -> complex:
        b, off = divmod(i, self.block_size)
        return self._block(b)[off]

    def set(self, i: int, v: complex) -> None:
        b, off = divmod(i, self.block_size)
        self._block(b)[off] = v
        self.dirty.add(b)

    @property
    def io(self) -> dict[str, int]:
        """Block transfers so far: ``{"reads": ..., "writes": ...}``."""
        return {"reads": self.reads, "writes": self.writes}

    def close(self) -> None:
        """Close the file (and delete it if it was a temporary one). Idempotent."""
        if not self._file.closed:
            self._file.close()
            if self._temporary:
                self.path.unlink(missing_ok=True)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def _check(self) -> None:
        assert len(self.cache) <= self.cache_blocks, (len(self.cache), self.cache_blocks)
        assert self.dirty <= set(self.cache), "a dirty block is not cached"


def open_keys(n: int, disk, block_size: int, cache_blocks: int,
              victim: Callable[[Iterable[int]], int] | None = None) -> RamKeys | BlockKeys:
    """A key array of ``n`` keys: in RAM when ``disk`` is ``None``, else in blocks of a file
    (replaced by ``victim``, default LRU)."""
    if disk is None:
        return RamKeys(n)
    keys = BlockKeys(disk, block_size=block_size, cache_blocks=cache_blocks, victim=victim)
    keys.grow(n)
    return keys
