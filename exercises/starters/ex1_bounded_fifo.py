"""Exercise 1: your own frontier, a bounded FIFO monitor.

Write a frontier that keeps the contract of :mod:`frontier.contract` (read its module docstring:
the blocking rules are the specification) as a *monitor*: one lock, and two condition variables
named after what their waiters wait for, ``not_full`` and ``not_empty``. Store the URLs in a
:class:`collections.deque`; priorities are accepted and ignored (FIFO).

Grade it with::

    python exercises/grade.py ex1

which runs the frontier conformance suite, the model-based test and the thread stress tests on
``BoundedFifo`` (made from this starter in ``exercises/`` the first time you grade).

Invariant to keep: ``0 <= len(self._urls) <= self.capacity``; ``stats.puts - stats.gets ==
len(self._urls)``; once ``_closed`` is set it is never cleared.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable  # noqa: F401 (the imports are all you need)

from frontier.contract import (  # noqa: F401 (until you use them)
    DEFAULT_CAPACITY,
    Closed,
    Empty,
    FrontierStats,
    Full,
    check_capacity,
    check_r,
)

__all__ = ["BoundedFifo"]

# The imports above are all you need; this line keeps ruff quiet until you use them.
_ = (threading.Lock, time.monotonic)


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
        self.stats = FrontierStats()  # count puts, gets, lock_acquisitions, condition_waits
        # ===== YOUR CODE HERE: the lock, the two conditions, the closed flag ==================
        # ===== END OF YOUR CODE =================================================================

    # ===== YOUR CODE HERE: the methods below ====================================================

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Add ``url``; wait while full (``Full`` when ``timeout`` runs out); ``Closed`` after
        ``close()``, also for a put that was waiting when ``close()`` was called."""
        raise NotImplementedError("exercise 1: put")

    def get(self, timeout: float | None = None) -> str | None:
        """Take the oldest URL; wait while empty and open (``Empty`` when ``timeout`` runs
        out); once closed, drain what is left, then return ``None`` at once."""
        raise NotImplementedError("exercise 1: get")

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Add every ``(url, priority)`` pair (each may wait for room)."""
        raise NotImplementedError("exercise 1: put_many")

    def get_many(self, r: int) -> list[str]:
        """Take up to ``r`` URLs without ever waiting (``ValueError`` for a bad ``r``:
        use ``check_r``)."""
        raise NotImplementedError("exercise 1: get_many")

    def close(self) -> None:
        """Mark closed and wake every waiting thread. Idempotent."""
        raise NotImplementedError("exercise 1: close")

    @property
    def closed(self) -> bool:
        raise NotImplementedError("exercise 1: closed")

    # ===== END OF YOUR CODE =====================================================================

    def __len__(self) -> int:
        """URLs waiting (read without the lock: a snapshot)."""
        return len(self._urls)

    def _check(self) -> None:
        """Assert the invariant (the tests call it when no thread is working)."""
        assert 0 <= len(self._urls) <= self.capacity, len(self._urls)
        assert self.stats.puts - self.stats.gets == len(self._urls), self.stats
