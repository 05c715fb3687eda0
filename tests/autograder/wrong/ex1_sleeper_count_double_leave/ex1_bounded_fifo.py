"""WRONG (ex1, "notify only when someone sleeps", the sleeper count decremented twice): the
monitor keeps how many getters and putters sleep, and a put (get) notifies only while the count
says someone sleeps, taking the one it wakes off the count. A waiter whose timed wait answers
False takes *itself* off the count ("nobody woke me"). But CPython's ``Condition.wait`` answers
False when the timeout ran out while the notifier held the lock, even if that notify then
picked this waiter: the notifier and the waiter both decrement, and the count stays one too low
for ever. The next lone getter that sleeps is counted as 0, and the put that follows notifies
nobody: the getter sleeps beside the URL (a lost wake-up, until close()).
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

__all__ = ["BoundedFifo"]


class BoundedFifo:
    """A bounded FIFO frontier as a monitor. Thread-safe; ``put``/``get`` O(1)."""

    name = "ex1-bounded-fifo"
    description = "exercise 1: bounded FIFO deque as a monitor (not_full/not_empty)"
    ordering = "fifo"
    correct = True
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = check_capacity(capacity)
        self._urls: deque[str] = deque()
        self.stats = FrontierStats()
        self._lock = threading.Lock()
        self._not_full = threading.Condition(self._lock)
        self._not_empty = threading.Condition(self._lock)
        self._closed = False
        # how many threads sleep on each condition (guarded by _lock): notify only if > 0
        self._getters_asleep = 0
        self._putters_asleep = 0

    def _wait(self, cond: threading.Condition, deadline: float | None, getter: bool) -> bool:
        """One wait on ``cond`` (lock held); ``False`` if ``deadline`` has passed."""
        if deadline is None:
            left = None
        else:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
        if getter:
            self._getters_asleep += 1
        else:
            self._putters_asleep += 1
        notified = cond.wait(left)
        self.stats.condition_waits += 1
        if not notified:  # timed out: nobody woke me, so nobody took me off the count
            if getter:
                self._getters_asleep -= 1
            else:
                self._putters_asleep -= 1
        return True  # look at the frontier again (the loop re-checks; the deadline decides)

    def _wake_getters(self, n: int) -> None:
        k = min(n, self._getters_asleep)
        if k > 0:
            self._getters_asleep -= k
            self._not_empty.notify(k)

    def _wake_putters(self, n: int) -> None:
        k = min(n, self._putters_asleep)
        if k > 0:
            self._putters_asleep -= k
            self._not_full.notify(k)

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self.stats.lock_acquisitions += 1
            while len(self._urls) >= self.capacity and not self._closed:
                if not self._wait(self._not_full, deadline, getter=False):
                    raise Full
            if self._closed:
                raise Closed(self.name)
            self._urls.append(url)
            self.stats.puts += 1
            self._wake_getters(1)

    def get(self, timeout: float | None = None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self.stats.lock_acquisitions += 1
            while not self._urls:
                if self._closed:
                    return None
                if not self._wait(self._not_empty, deadline, getter=True):
                    raise Empty
            url = self._urls.popleft()
            self.stats.gets += 1
            self._wake_putters(1)
            return url

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        for url, priority in pairs:
            self.put(url, priority)

    def get_many(self, r: int) -> list[str]:
        check_r(r)
        with self._lock:
            self.stats.lock_acquisitions += 1
            n = min(r, len(self._urls))
            out = [self._urls.popleft() for _ in range(n)]
            self.stats.gets += n
            if n:
                self._wake_putters(n)
            return out

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._getters_asleep = self._putters_asleep = 0
            self._not_full.notify_all()
            self._not_empty.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        """URLs waiting (read without the lock: a snapshot)."""
        return len(self._urls)

    def _check(self) -> None:
        """Assert the invariant (the tests call it when no thread is working)."""
        assert 0 <= len(self._urls) <= self.capacity, len(self._urls)
        assert self.stats.puts - self.stats.gets == len(self._urls), self.stats
