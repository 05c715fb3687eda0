"""``fine``: the same linked list as ``coarse``, with one lock per end.

Fine-grained locking for a FIFO queue is the *two-lock queue* of Michael and Scott (1996): the
list starts with a dummy node, so ``push`` touches only the tail and ``pop`` only the head, and
each end gets its own lock. A producer and a consumer then never wait for each other; producers
still queue up on the tail lock and consumers on the head lock.

Why not hand-over-hand lock coupling? Coupling locks node after node, which pays off when
threads work at different places *inside* a list (a sorted set). A queue is only ever touched at
its two ends, so coupling would take more locks for the same exclusion. Two locks are the
finest useful grain here.

Waking a sleeping consumer crosses sides: a producer that sees a sleeper takes the head lock just
long enough to signal ``not_empty``. A consumer registers as a sleeper *before* re-checking for a
URL, so a producer that appends after that check always sees the sleeper (no lost wake-up).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from frontier.contract import Closed, Empty, FrontierStats, check_r, register
from frontier.storage import LinkedList
from frontier.waiting import WaitCondition, acquire_counted, deadline_of

__all__ = ["FineFrontier"]


@register
class FineFrontier:
    """Unbounded FIFO two-lock queue. O(1) per operation; thread-safe."""

    name = "fine"
    description = "the coarse linked list with a head lock and a tail lock (two-lock queue)"
    ordering = "fifo"
    correct = True
    bounded = False

    def __init__(self) -> None:
        self.capacity = None
        self._list = LinkedList()
        # _tail_lock guards the tail side: _list.tail, _list.appended, _tail_stats, _closed.
        self._tail_lock = threading.Lock()
        # _head_lock guards the head side: _list.head, _list.removed, _head_stats.
        self._head_lock = threading.Lock()
        # not_empty (on the head lock): a URL was appended or the frontier closed.
        self._not_empty = WaitCondition(self._head_lock, "not_empty")
        self._closed = False
        self._tail_stats = FrontierStats()
        self._head_stats = FrontierStats()

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Append under the tail lock; never blocks for room. :class:`Closed` after close."""
        self.put_many(((url, priority),))

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Append every pair under one tail-lock acquisition."""
        acquire_counted(self._tail_lock, self._tail_stats)
        try:
            if self._closed:
                raise Closed(self.name)
            before = self._list.appended
            self._list.push_many(pairs)
            added = self._list.appended - before
            self._tail_stats.puts += added
        finally:
            self._tail_lock.release()
        if self._not_empty.sleepers:  # racy read; see the module docstring for why it suffices
            acquire_counted(self._head_lock, self._head_stats)  # head stats: guarded by this lock
            try:
                self._not_empty.notify(added)
            finally:
                self._head_lock.release()

    def get(self, timeout: float | None = None) -> str | None:
        """Pop under the head lock; blocks while empty and open (:class:`Empty` on timeout);
        ``None`` once closed and drained."""
        acquire_counted(self._head_lock, self._head_stats)
        try:
            if self._list.is_empty():
                deadline = deadline_of(timeout)
                self._not_empty.sleepers += 1  # register first, then re-check: no lost wake-up
                try:
                    while self._list.is_empty():
                        if self._closed:
                            return None
                        if not self._not_empty.wait_until(deadline):
                            raise Empty
                        self._head_stats.condition_waits += 1
                finally:
                    self._not_empty.sleepers -= 1
            self._head_stats.gets += 1
            return self._list.pop()  # type: ignore[return-value]
        finally:
            self._head_lock.release()

    def get_many(self, r: int) -> list[str]:
        """Pop up to ``r`` URLs under one head-lock acquisition; never blocks."""
        check_r(r)
        acquire_counted(self._head_lock, self._head_stats)
        try:
            urls = self._list.pop_many(r)
            self._head_stats.gets += len(urls)
            return urls  # type: ignore[return-value]
        finally:
            self._head_lock.release()

    def close(self) -> None:
        """Refuse further puts, then wake every sleeping consumer. Idempotent."""
        with self._tail_lock:
            self._closed = True
        with self._head_lock:
            self._not_empty.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def stats(self) -> FrontierStats:
        """Head-side plus tail-side counters (each exact; the sum is a snapshot)."""
        total = FrontierStats()
        total += self._tail_stats
        total += self._head_stats
        return total

    def __len__(self) -> int:
        """``appended - removed``, each read without its lock: a snapshot."""
        return len(self._list)

    def _check(self) -> None:
        """Assert the list's invariant (takes both locks, tail first as everywhere)."""
        with self._tail_lock, self._head_lock:
            self._list._check()
