"""Exercise 2: a monitor built from semaphores.

Semaphores and monitors are equally powerful: each can be built from the other. Here you build a
monitor's *condition variable* out of semaphores only (:class:`threading.Semaphore`; no
:class:`threading.Condition`, no :class:`threading.Event`). :class:`Monitor` (given) is the
monitor's lock, a binary semaphore. :class:`SemCondition` is yours: ``wait`` must give the
monitor up while it sleeps and take it back before it returns, ``notify(n)`` wakes up to ``n``
waiters, ``notify_all`` every waiter. Mesa semantics: a woken waiter re-checks its predicate, so
a rare spurious wake-up is allowed; a *lost* wake-up (a waiter that sleeps on although it was
notified) is not.

:class:`SemMonitorFrontier` is a bounded FIFO frontier on your monitor: its methods are your
exercise 1, with :class:`Monitor` for the lock and :class:`SemCondition` for the conditions
(bring your ``BoundedFifo`` over). The autograder runs the frontier suites on it, plus tests of
the condition itself::

    python exercises/grade.py ex2
"""

from __future__ import annotations

import threading
import time  # noqa: F401 (your ex1's deadlines need it)
from collections import deque
from collections.abc import Iterable

from frontier.contract import (  # noqa: F401 (until you use them)
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
        # ===== YOUR CODE HERE: the state of the condition (semaphores, a count or a queue) ====
        # ===== END OF YOUR CODE =================================================================

    # ===== YOUR CODE HERE ========================================================================

    def wait(self, timeout: float | None = None) -> bool:
        """Leave the monitor, sleep until notified (or ``timeout`` seconds), enter it again.
        ``True`` if notified, ``False`` on timeout."""
        raise NotImplementedError("exercise 2: wait")

    def notify(self, n: int = 1) -> None:
        """Wake up to ``n`` of the threads waiting now (none if nobody waits)."""
        raise NotImplementedError("exercise 2: notify")

    def notify_all(self) -> None:
        """Wake every thread waiting now."""
        raise NotImplementedError("exercise 2: notify_all")

    # ===== END OF YOUR CODE =====================================================================


class SemMonitorFrontier:
    """Bounded FIFO frontier on :class:`Monitor` and two :class:`SemCondition` s.

    Its methods are exercise 1's, with :class:`Monitor` for the lock and :class:`SemCondition`
    for ``threading.Condition``: bring your own ``BoundedFifo`` over (``with self._monitor:``
    where you wrote ``with self._lock:``, ``cond.wait(left)`` as before).

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
        self.stats = FrontierStats()  # count puts, gets, lock_acquisitions, condition_waits
        # _monitor guards _urls, _closed and stats.
        self._monitor = Monitor()
        self._not_full = SemCondition(self._monitor)  # a URL was taken, or closed
        self._not_empty = SemCondition(self._monitor)  # a URL was added, or closed
        self._closed = False

    # ===== YOUR CODE HERE: exercise 1's methods, on the monitor =================================

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Add ``url``; wait while full (``Full`` when ``timeout`` runs out); ``Closed`` after
        ``close()``, also for a put that was waiting when ``close()`` was called."""
        raise NotImplementedError("exercise 2: put (your ex1's, on the monitor)")

    def get(self, timeout: float | None = None) -> str | None:
        """Take the oldest URL; wait while empty and open (``Empty`` when ``timeout`` runs
        out); once closed, drain what is left, then return ``None`` at once."""
        raise NotImplementedError("exercise 2: get (your ex1's, on the monitor)")

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Add every ``(url, priority)`` pair (each may wait for room)."""
        raise NotImplementedError("exercise 2: put_many (your ex1's, on the monitor)")

    def get_many(self, r: int) -> list[str]:
        """Take up to ``r`` URLs without ever waiting (``ValueError`` for a bad ``r``:
        use ``check_r``)."""
        raise NotImplementedError("exercise 2: get_many (your ex1's, on the monitor)")

    def close(self) -> None:
        """Mark closed and wake every waiting thread. Idempotent."""
        raise NotImplementedError("exercise 2: close (your ex1's, on the monitor)")

    @property
    def closed(self) -> bool:
        raise NotImplementedError("exercise 2: closed")

    # ===== END OF YOUR CODE =====================================================================

    def __len__(self) -> int:
        """URLs waiting (read without the lock: a snapshot)."""
        return len(self._urls)

    def _check(self) -> None:
        """Assert the invariant (the tests call it when no thread is working)."""
        assert 0 <= len(self._urls) <= self.capacity, len(self._urls)
        assert self.stats.puts - self.stats.gets == len(self._urls), self.stats
