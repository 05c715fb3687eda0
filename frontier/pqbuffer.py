"""The front buffer of the chunked storages: single ``push``/``pop`` at Python-list speed.

A chunked storage (:class:`frontier.cbt.ChunkedCBT`, :class:`frontier.quickheap.Quickheap`)
does its work in NumPy calls on whole chunks. That is what makes insert-many(R) and
extract-top(R) cheap per key, and what makes a *single* put or get dear: a NumPy call costs a
microsecond or more whatever the size of its array, and a single operation paid several (the
frontier benchmark measured ``cbt`` at 0.23x and ``quickheap`` at 0.32x ``queue.Queue`` for one
put+get pair). :class:`FrontBuffer` puts two small Python lists in front of the chunked *core*,
so that single operations touch Python lists only and the core sees bulk operations only:

* ``_ins``, a :mod:`heapq` of keys ``(-priority, seq)`` pushed one at a time, fewer than ``K``
  of them. The K-th push *flushes* them into the core in one bulk insertion.
* ``_out``, keys the core handed over in one extract-top(K), sorted *worst first*, so that the
  best is ``_out[-1]`` and a pop is ``list.pop()``.

Invariant (checked by :meth:`FrontBuffer._check`): ``len(_ins) < K``; ``_ins`` is a heap;
``_out`` is strictly decreasing; **every key of** ``_out`` **beats every key of the core**. So
the best key of the whole storage is the better of ``_ins[0]`` and ``_out[-1]``, and the keys
are the same ``(-priority, seq)`` order as the core's complex keys (:mod:`frontier.pqcommon`):
the buffered storage hands out exactly the URLs, in exactly the order, of the bare core.

Keeping the invariant costs one comparison per bulk insertion: keys entering the core (a flush
of ``_ins``, or an insert-many) that beat ``_out``'s worst would break it, so ``_out`` first goes
back into the core -- at its *head* (:meth:`_unextract`: they beat everything there, so no
comparison and no chunk moves are needed). A bulk extract-top(r) first returns both buffers to
the core, then runs the core's own extraction. A workload of bulk operations only never touches
the buffers (two ``if`` tests per call).

``K = 0`` switches the buffer off: single operations go straight to the core's own single-key
paths (Figure 4's insertion in the Quickheap, the tail ``B`` of the CBT). The comparison-counting
twins run with ``K = 0``, so that every comparison they count is one the paper's structure makes.

Complexity: ``push`` O(log K) plus, every K pushes, one bulk insertion of K keys; ``pop``
O(1) plus, every K pops, one extract-top(K) of the core; ``push_many``/``pop_top`` those of the
core plus O(K) when the buffers are not empty. Not thread-safe (a storage: wrap it in a frontier).
"""

from __future__ import annotations

from collections.abc import Iterable
from heapq import heappop, heappush

import numpy as np

from frontier.contract import check_priority
from frontier.pqcommon import KEY_DTYPE, UrlTable, check_int_option

__all__ = ["FrontBuffer", "DEFAULT_BUFFER"]

DEFAULT_BUFFER = 64
"""Default ``K``: keys a buffer holds. Large enough that a flush or refill (a few NumPy calls)
is shared by many single operations, small enough to stay a Python list."""

_EMPTY = np.empty(0, dtype=KEY_DTYPE)


def _as_keys(tuples: list[tuple[float, int]]) -> np.ndarray:
    """``(-priority, seq)`` tuples as complex keys (one NumPy call). O(m)."""
    if not tuples:
        return _EMPTY
    return np.array(tuples, dtype=np.float64).view(KEY_DTYPE).ravel()


def _as_tuples_worst_first(keys: np.ndarray) -> list[tuple[float, int]]:
    """Sorted complex keys (best first) as ``(-priority, seq)`` tuples, worst first. O(m)."""
    rev = keys[::-1]
    return list(zip(rev.real.tolist(), rev.imag.astype(np.int64).tolist()))


class FrontBuffer:
    """Mixin: the two Python-list buffers in front of a chunked core (see module docstring).

    The core class provides, with keys as complex ``-priority + 1j * seq``:

    * ``_urls`` (:class:`UrlTable`), shared by core and buffers;
    * ``_core_len()``; ``_core_keys()`` (every key the core holds);
    * ``_push_keys(keys)``: bulk insertion of keys whose URLs are already in ``_urls``;
    * ``_push_one(key)``: the core's single-key insertion (used when ``K = 0``);
    * ``_take(r)``: remove and return the core's ``r`` best keys, best first
      (``1 <= r <= _core_len()``);
    * ``_unextract(keys)``: put back keys, sorted best first, that beat every key of the core;
    * ``_check_core()``: assert the core's own invariants (not the URL table).

    and calls :meth:`_init_buffer` from its constructor.
    """

    _urls: UrlTable

    def _init_buffer(self, buffer: int) -> None:
        self._K = check_int_option("buffer", buffer, 0)
        self._ins: list[tuple[float, int]] = []  # heapq of (-priority, seq); < K keys
        self._out: list[tuple[float, int]] = []  # worst first; every key beats the core

    # -- moving keys between the buffers and the core ----------------------------------------

    def _spill_out(self) -> None:
        """Give ``_out`` back to the core, at its head. O(K)."""
        out = self._out
        if out:
            self._out = []
            self._unextract(_as_keys(out[::-1]))

    def _flush(self) -> None:
        """Move ``_ins`` into the core in one bulk insertion (``_out`` first goes back if a key
        of ``_ins`` beats its worst, which would break the invariant). O(K log K)."""
        ins = self._ins
        if self._out and ins[0] < self._out[0]:
            self._spill_out()
        self._ins = []
        ins.sort()
        self._push_keys(_as_keys(ins))

    def _refill(self) -> None:
        """``_out`` takes the core's best ``K`` keys (one bulk extraction). Precondition:
        ``_out`` is empty and the core is not."""
        self._out = _as_tuples_worst_first(self._take(min(self._K, self._core_len())))

    # -- single operations ------------------------------------------------------------------

    def push(self, url: str, priority: float) -> None:
        """Add one URL. O(log K) amortized, plus a bulk insertion of K keys every K pushes."""
        if type(priority) is not float or priority != priority:
            priority = check_priority(priority)
        table = self._urls
        s = table.next_seq
        table.next_seq = s + 1
        table.urls[s] = url
        if not self._K:
            self._push_one(complex(-priority, s))
            return
        ins = self._ins
        heappush(ins, (-priority, s))
        if len(ins) >= self._K:
            self._flush()

    def pop(self) -> str:
        """Remove and return the best URL. Precondition: not empty. O(1) amortized, plus an
        extract-top(K) of the core every K pops."""
        if not self._K:
            return self._urls.take_one(self._take(1)[0])
        ins, out = self._ins, self._out
        if not out and self._core_len():
            self._refill()
            out = self._out
        if ins and (not out or ins[0] < out[-1]):
            key = heappop(ins)
        else:
            key = out.pop()
        return self._urls.urls.pop(key[1])

    # -- bulk operations --------------------------------------------------------------------

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many: all priorities are checked before any URL is added, then one bulk
        insertion into the core (after ``_out`` goes back, if a new key beats its worst)."""
        keys = self._urls.keys(pairs)
        if not len(keys):
            return
        if self._out and keys.min() < complex(*self._out[0]):
            self._spill_out()
        self._push_keys(keys)

    def _drain_buffers(self) -> None:
        """Return both buffers to the core, so that it holds every key. O(K log K)."""
        self._spill_out()
        if self._ins:
            self._flush()

    def pop_many(self, r: int) -> list[str]:
        """Extract-top(r): up to ``r`` URLs, best first."""
        return self.pop_top(r)[1]

    def pop_top(self, r: int) -> tuple[np.ndarray, list[str]]:
        """Extract-top(r) with the keys: ``(keys best first, their URLs)``."""
        r = min(r, len(self))
        if r <= 0:
            return _EMPTY, []
        if self._ins or self._out:
            self._drain_buffers()
        keys = self._take(r)
        return keys, self._urls.take(keys)

    def __len__(self) -> int:
        return self._core_len() + len(self._ins) + len(self._out)

    # -- introspection ----------------------------------------------------------------------

    def keys(self) -> np.ndarray:
        """Every key held: the core's, then ``_out`` (best first), then ``_ins`` (a copy; for
        tests)."""
        return np.concatenate((self._core_keys(), _as_keys(self._out[::-1]),
                               _as_keys(self._ins)))

    def _check(self) -> None:
        """Assert the core's invariants, the buffers' (module docstring) and the URL table."""
        self._check_core()
        ins, out = self._ins, self._out
        assert len(ins) < max(self._K, 1), f"{len(ins)} keys in _ins, K = {self._K}"
        assert all(ins[(i - 1) // 2] <= ins[i] for i in range(1, len(ins))), "_ins not a heap"
        assert all(out[i] > out[i + 1] for i in range(len(out) - 1)), "_out not worst first"
        if not self._K:
            assert not out, "_out holds keys with the buffer off"
        core = self._core_keys()
        if out and len(core):
            assert np.complex128(complex(*out[0])) < core.min(), "_out does not beat the core"
        self._urls.check(self.keys())
