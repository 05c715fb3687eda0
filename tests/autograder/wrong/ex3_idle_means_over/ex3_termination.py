"""over when the count is 0 OR every robot has said idle since it last took (a robot between get and took still counts as idle)"""
from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


class TerminationDetector:
    """Decides when a crawl by ``robots`` robot threads sharing ``frontier`` is over.
    Every method may be called from any thread at any time."""

    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        # _lock guards _pending. _pending counts the URLs announced by will_put and not yet
        # finished: waiting in the frontier, or taken by a robot still working on them.
        # It rises *before* a URL enters the frontier and falls only *after* its links were
        # announced, so it is 0 exactly when the frontier is empty and every robot idle.
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = set()

    def will_put(self, n: int) -> None:
        with self._lock:
            self._pending += n

    def took(self, robot: int) -> None:
        with self._lock:
            self._idle.discard(robot)

    def finished(self, robot: int) -> None:
        with self._lock:
            self._pending -= 1

    def idle(self, robot: int) -> None:
        with self._lock:
            self._idle.add(robot)

    def is_over(self) -> bool:
        return self._pending == 0 or (len(self._idle) == self.robots and len(self.frontier) == 0)  # one read of an int: atomic; a stale False only delays
