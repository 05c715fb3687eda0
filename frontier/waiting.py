"""How strategies that have nothing to sleep on wait: polite exponential backoff.

A lock-free or optimistic frontier has no condition variable, so a ``get`` on an empty frontier
(or a ``put`` on a full bounded one) must poll. Polling in a tight loop would hold the GIL and
starve the very thread that could make progress, so :class:`Backoff` sleeps between polls:
``time.sleep(0)`` first (just give the GIL away), then 10 µs doubling to 1 ms. The cost is
latency: a URL that arrives while a taker sleeps waits up to 1 ms to be noticed.
"""

from __future__ import annotations

import time

__all__ = ["Backoff", "deadline_of"]

_MIN_DELAY = 1e-5
_MAX_DELAY = 1e-3


def deadline_of(timeout: float | None) -> float | None:
    """The :func:`time.monotonic` instant at which ``timeout`` seconds from now run out."""
    return None if timeout is None else time.monotonic() + timeout


class Backoff:
    """One waiter's backoff state. Not shared between threads (make one per wait)."""

    __slots__ = ("deadline", "delay", "pauses")

    def __init__(self, timeout: float | None) -> None:
        self.deadline = deadline_of(timeout)
        self.delay = 0.0
        self.pauses = 0

    def pause(self) -> bool:
        """Sleep a little longer than last time; ``False`` (without sleeping) once past the
        deadline."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return False
        time.sleep(self.delay)
        self.pauses += 1
        self.delay = min(max(2 * self.delay, _MIN_DELAY), _MAX_DELAY)
        return True
