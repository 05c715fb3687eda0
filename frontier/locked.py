"""The monitor: one lock around any storage, with conditions to wait on.

:class:`LockedFrontier` is the synchronization half of ``monitor``, ``coarse``, ``heap``, ``cbt``
and ``quickheap``: they differ only in the storage they hand it (a ring buffer, a linked list, a
binary heap ...), exactly as :class:`queue.Queue` keeps its locking in one class and lets
subclasses swap ``_put``/``_get``.

It is a monitor in Hoare's and Brinch Hansen's sense, with Mesa semantics: a woken thread
re-checks its predicate in a ``while`` loop, because by the time it holds the lock again another
thread may have taken the URL it was woken for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from frontier.contract import Closed, Empty, FrontierStats, Full, Storage, check_r
from frontier.waiting import WaitCondition, acquire_counted, deadline_of

__all__ = ["LockedFrontier"]


class LockedFrontier:
    """A frontier made thread-safe by one lock held around every storage operation.

    Thread-safety: every method may be called from any thread. Complexity: that of the storage
    operation plus one lock acquisition; a ``put`` wakes at most one ``get``ter and vice versa.
    Bounded (``capacity`` set): ``put`` waits on ``not_full``; ``get`` always may wait on
    ``not_empty``.
    """

    ordering = "fifo"
    correct = True
    bounded = False

    def __init__(self, storage: Storage, capacity: int | None = None) -> None:
        self.capacity = capacity
        self._storage = storage
        # _mutex guards _storage, _size, _closed, _stats and both conditions' sleepers.
        self._mutex = threading.Lock()
        # not_empty: a URL was added or the frontier closed; get() waits on it.
        self._not_empty = WaitCondition(self._mutex, "not_empty")
        # not_full: a URL was taken or the frontier closed; put() on a bounded frontier waits.
        self._not_full = WaitCondition(self._mutex, "not_full")
        self._size = 0  # len(self._storage), kept here to spare a call on the hot path
        self._closed = False
        self._stats = FrontierStats()

    # -- the lock, counted ------------------------------------------------------------------

    def _lock(self) -> None:
        """Acquire the mutex, counting the acquisition and whether it had to wait."""
        acquire_counted(self._mutex, self._stats)

    # -- the signals (called with the lock held) -------------------------------------------

    def _added(self, n: int) -> None:
        """``n`` URLs were just added: wake up to ``n`` sleeping getters, one per URL."""
        if self._not_empty.sleepers:
            self._not_empty.notify(n)

    def _taken(self, n: int) -> None:
        """``n`` URLs were just taken: wake up to ``n`` sleeping putters, one per free slot."""
        if self._not_full.sleepers:
            self._not_full.notify(n)

    # -- the contract -----------------------------------------------------------------------

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Add ``url``. O(storage push). Blocks while full (bounded only); :class:`Full` when
        ``timeout`` runs out; :class:`Closed` after ``close()``."""
        self._lock()
        try:
            if self._closed:
                raise Closed(self.name)  # type: ignore[attr-defined]
            if self.capacity is not None and self._size >= self.capacity:
                deadline = deadline_of(timeout)
                while self._size >= self.capacity and not self._closed:
                    if not self._not_full.sleep(deadline):
                        raise Full
                    self._stats.condition_waits += 1
                if self._closed:
                    raise Closed(self.name)  # type: ignore[attr-defined]
            self._storage.push(url, priority)
            self._size += 1
            self._stats.puts += 1
            self._added(1)
        finally:
            self._mutex.release()

    def get(self, timeout: float | None = None) -> str | None:
        """Take the best URL. O(storage pop). Blocks while empty and open; :class:`Empty` when
        ``timeout`` runs out; ``None`` once closed and drained."""
        self._lock()
        try:
            if not self._size:
                deadline = deadline_of(timeout)
                while not self._size:
                    if self._closed:
                        return None
                    if not self._not_empty.sleep(deadline):
                        raise Empty
                    self._stats.condition_waits += 1
            url = self._storage.pop()
            self._size -= 1
            self._stats.gets += 1
            self._taken(1)
            return url
        finally:
            self._mutex.release()

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many in one critical section (per batch that fits, when bounded)."""
        pairs = list(pairs)
        self._lock()
        try:
            if self._closed:
                raise Closed(self.name)  # type: ignore[attr-defined]
            start = 0
            while start < len(pairs):
                room = len(pairs) - start
                if self.capacity is not None:
                    while self._size >= self.capacity and not self._closed:
                        self._not_full.sleep(None)
                        self._stats.condition_waits += 1
                    if self._closed:
                        raise Closed(self.name)  # type: ignore[attr-defined]
                    room = min(room, self.capacity - self._size)
                self._storage.push_many(pairs[start : start + room])
                self._size += room
                self._stats.puts += room
                start += room
                self._added(room)
        finally:
            self._mutex.release()

    def get_many(self, r: int) -> list[str]:
        """Extract-top(``r``) in one critical section; never blocks. O(storage pop_many)."""
        check_r(r)
        self._lock()
        try:
            urls = self._storage.pop_many(r)
            self._size -= len(urls)
            self._stats.gets += len(urls)
            if urls:
                self._taken(len(urls))
            return urls  # type: ignore[return-value]
        finally:
            self._mutex.release()

    def close(self) -> None:
        """Mark closed and wake every sleeper. Idempotent."""
        with self._mutex:
            self._closed = True
            self._not_empty.notify_all()
            self._not_full.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def stats(self) -> FrontierStats:
        """The live counters (exact: all updated with the lock held)."""
        return self._stats

    def __len__(self) -> int:
        """URLs waiting; read without the lock, so possibly stale by the time you use it."""
        return self._size

    def _check(self) -> None:
        """Assert the storage's invariants and the size bookkeeping (call when quiescent)."""
        with self._mutex:
            self._storage._check()
            assert self._size == len(self._storage), (self._size, len(self._storage))
            if self.capacity is not None:
                assert self._size <= self.capacity
