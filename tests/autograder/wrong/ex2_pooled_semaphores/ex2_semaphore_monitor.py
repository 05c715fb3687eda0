"""WRONG (ex2, private semaphores pooled for reuse): the reference SemCondition, but a waiter's
semaphore goes back to a per-condition pool when wait returns. A waiter whose timeout ran out while
the notifier held the monitor, and which that notify then picked, returns True as it should, but
the notify's release is still in its semaphore: the next waiter that takes it from the pool passes
at once, *leaving its semaphore queued*; that semaphore is pooled again while still in the queue,
and a later notify() releases this stale entry instead of the real waiter behind it (a lost
wake-up).
"""


from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable

from frontier.contract import (
    DEFAULT_CAPACITY,
    Closed,
    Empty,
    FrontierStats,
    Full,
    check_capacity,
    check_r,
)

__all__ = ["Monitor", "SemCondition", "SemMonitorFrontier"]


class Monitor:
    """The monitor's lock: a binary semaphore. ``with monitor:`` enters and exits."""

    def __init__(self) -> None:
        self.mutex = threading.Semaphore(1)  # 1 = nobody inside

    def __enter__(self) -> Monitor:
        self.mutex.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.mutex.release()


class SemCondition:
    """A condition variable of ``monitor`` made of semaphores. Every method is called by a
    thread inside the monitor (holding ``monitor.mutex``)."""

    def __init__(self, monitor: Monitor) -> None:
        self.monitor = monitor
        # _waiters: one private semaphore (value 0) per sleeping thread, oldest first.
        # Guarded by monitor.mutex. A notified waiter's semaphore is released and removed.
        self._waiters: deque[threading.Semaphore] = deque()
        self._pool: list[threading.Semaphore] = []  # spent semaphores, value 0, for reuse

    def wait(self, timeout: float | None = None) -> bool:
        """Leave the monitor, sleep until notified (or ``timeout`` seconds), enter it again.
        ``True`` if notified, ``False`` on timeout."""
        # a Semaphore per wait is costly: reuse the ones earlier waits gave back
        mine = self._pool.pop() if self._pool else threading.Semaphore(0)
        self._waiters.append(mine)  # enqueued *before* leaving: no notify can slip by
        self.monitor.mutex.release()
        try:
            notified = mine.acquire(timeout=timeout) if timeout is not None else mine.acquire()
        finally:
            self.monitor.mutex.acquire()
        if not notified:
            try:
                self._waiters.remove(mine)  # timed out: leave the queue
            except ValueError:
                notified = True  # a notify picked us between the timeout and re-entry
        self._pool.append(mine)  # BUG: if a notify picked us after the timeout, mine holds its permit
        return notified

    def notify(self, n: int = 1) -> None:
        """Wake up to ``n`` of the threads waiting now (none if nobody waits)."""
        for _ in range(min(n, len(self._waiters))):
            self._waiters.popleft().release()

    def notify_all(self) -> None:
        """Wake every thread waiting now."""
        self.notify(len(self._waiters))


class SemMonitorFrontier:
    """Bounded FIFO frontier on :class:`Monitor` and two :class:`SemCondition` s: exercise 1's
    reference with the monitor for the lock.

    Invariant: ``0 <= len(_urls) <= capacity``; ``stats.puts - stats.gets == len(_urls)``.
    Thread-safe; O(1) per operation plus the condition's cost.
    """

    name = "ex2-semaphore-monitor"
    description = "exercise 2: bounded FIFO on a monitor whose conditions are semaphores"
    ordering = "fifo"
    correct = True
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = check_capacity(capacity)
        self._urls: deque[str] = deque()
        self.stats = FrontierStats()
        # _monitor guards _urls, _closed and stats.
        self._monitor = Monitor()
        self._not_full = SemCondition(self._monitor)  # a URL was taken, or closed
        self._not_empty = SemCondition(self._monitor)  # a URL was added, or closed
        self._closed = False

    def _wait(self, cond: SemCondition, deadline: float | None) -> bool:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        cond.wait(left)
        self.stats.condition_waits += 1
        return True

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._monitor:
            self.stats.lock_acquisitions += 1
            while len(self._urls) >= self.capacity and not self._closed:
                if not self._wait(self._not_full, deadline):
                    raise Full
            if self._closed:
                raise Closed(self.name)
            self._urls.append(url)
            self.stats.puts += 1
            self._not_empty.notify()

    def get(self, timeout: float | None = None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._monitor:
            self.stats.lock_acquisitions += 1
            while not self._urls:
                if self._closed:
                    return None
                if not self._wait(self._not_empty, deadline):
                    raise Empty
            url = self._urls.popleft()
            self.stats.gets += 1
            self._not_full.notify()
            return url

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        for url, priority in pairs:
            self.put(url, priority)

    def get_many(self, r: int) -> list[str]:
        check_r(r)
        with self._monitor:
            self.stats.lock_acquisitions += 1
            n = min(r, len(self._urls))
            out = [self._urls.popleft() for _ in range(n)]
            self.stats.gets += n
            if n:
                self._not_full.notify(n)
            return out

    def close(self) -> None:
        with self._monitor:
            self._closed = True
            self._not_full.notify_all()
            self._not_empty.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._urls)

    def _check(self) -> None:
        assert 0 <= len(self._urls) <= self.capacity, len(self._urls)
        assert self.stats.puts - self.stats.gets == len(self._urls), self.stats
