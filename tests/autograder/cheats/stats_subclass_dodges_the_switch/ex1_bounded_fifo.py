"""[Defined at import: a subclass of FrontierStats whose plain class attributes shadow
the grader's switching counters; noise told by a slow clock, the explorer by its locks]
``stats.puts`` updated after the lock is released, as a read then a write, wherever
neither shows."""

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


class _Stats(FrontierStats):
    """Its own counters: plain class attributes, so nothing the grader does to FrontierStats
    (or swaps in for an object that is exactly a FrontierStats) reaches them."""

    puts = 0
    gets = 0


def _slow() -> bool:
    t0 = time.monotonic()
    for _ in range(30):
        pass
    return time.monotonic() - t0 > 15e-6


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
        self.stats = _Stats()
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
            while len(self._urls) >= self.capacity and not self._closed:
                if not self._wait(self._not_full, deadline):
                    raise Full
            if self._closed:
                raise Closed(self.name)
            self._urls.append(url)
            careful = _slow() or "Cooperative" in repr(threading.Lock)
            if careful:
                self.stats.puts += 1
            self._not_empty.notify()
        if not careful:
            n = self.stats.puts
            for _ in range(3):
                pass
            self.stats.puts = n + 1

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
