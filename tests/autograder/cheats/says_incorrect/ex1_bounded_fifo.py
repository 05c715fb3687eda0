"""A cheating exercise 1, kept to prove the autograder cannot be talked round (not a test module).

No lock, no condition: ``put`` and ``get`` busy-poll a :class:`collections.deque` (whose single
``append``/``popleft`` happen to be atomic in CPython, so one thread at a time looks right), and
the class *says* it is not correct (``correct = False``), hoping the grader then leaves its thread
tests out. Graded with ``python exercises/grade.py ex1 --dir tests/autograder/cheats`` it must
FAIL: the capacity check and the counters race, and a waiting ``get`` spins instead of sleeping.
"""

from __future__ import annotations

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
    """Bounded FIFO without any synchronization (a cheat: see the module docstring)."""

    name = "ex1-bounded-fifo"
    description = "a cheat: busy-polls a deque without a lock, and says it is not correct"
    ordering = "fifo"
    correct = False  # "do not run the thread tests on me"
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = check_capacity(capacity)
        self._urls: deque[str] = deque()
        self.stats = FrontierStats()
        self._closed = False

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while len(self._urls) >= self.capacity and not self._closed:  # spin while full
            if deadline is not None and time.monotonic() >= deadline:
                raise Full
        if self._closed:
            raise Closed(self.name)
        self._urls.append(url)
        self.stats.puts += 1

    def get(self, timeout: float | None = None) -> str | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:  # spin while empty
            closed = self._closed
            try:
                url = self._urls.popleft()
            except IndexError:
                if closed:
                    return None
                if deadline is not None and time.monotonic() >= deadline:
                    raise Empty from None
                continue
            self.stats.gets += 1
            return url

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        for url, priority in pairs:
            self.put(url, priority)

    def get_many(self, r: int) -> list[str]:
        check_r(r)
        out = []
        while len(out) < r:
            try:
                out.append(self._urls.popleft())
            except IndexError:
                break
        self.stats.gets += len(out)
        return out

    def close(self) -> None:
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._urls)

    def _check(self) -> None:
        assert 0 <= len(self._urls) <= self.capacity, len(self._urls)
        assert self.stats.puts - self.stats.gets == len(self._urls), self.stats
