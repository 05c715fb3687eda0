"""WRONG (ex1, the thread handle): the reference plus the optional handle() of the contract
(frontier.thread_handle, used by the frontier-bench lab), which batches puts eight at a time; but
one handle is shared by every thread (the batch list races: URLs lost or put twice), a batch of
fewer than eight is never flushed (lost), and a put after close() does not raise Closed.
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
        # _lock guards _urls, _closed and stats.
        self._lock = threading.Lock()
        # not_full: a URL was taken or the frontier closed; put waits on it.
        self._not_full = threading.Condition(self._lock)
        # not_empty: a URL was added or the frontier closed; get waits on it.
        self._not_empty = threading.Condition(self._lock)
        self._closed = False
        self._handle: _Handle | None = None

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

    def handle(self) -> _Handle:
        """The calling thread's way in (frontier.thread_handle): puts are batched, eight URLs
        to one put_many, so the lock is taken once per eight."""
        if self._handle is None:
            self._handle = _Handle(self)  # BUG: one handle, shared by every thread that asks
        return self._handle

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


class _Handle:
    """A thread's handle: the frontier's four operations, puts batched by eight."""

    def __init__(self, f: BoundedFifo) -> None:
        self.f = f
        self._batch: list[tuple[str, float]] = []

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        self._batch.append((url, priority))  # BUG: never flushed if fewer than 8 follow
        if len(self._batch) >= 8:
            batch, self._batch = self._batch, []  # BUG: two threads swap the same list
            self.f.put_many(batch)

    def get(self, timeout: float | None = None) -> str | None:
        return self.f.get(timeout)

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        self.f.put_many(pairs)

    def get_many(self, r: int) -> list[str]:
        return self.f.get_many(r)
