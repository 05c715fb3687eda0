"""WRONG (ex3): the reference count plus a watchdog: after 50,000 consecutive quiet is_over() looks
(no will_put/took/finished between them) it says over although pending > 0. A robot fetching one
slow page (16 robots polling every 2 ms: 30 s is 240,000 looks) makes the crawl stop early.
"""

from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


class TerminationDetector:
    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._lock = threading.Lock()
        self._pending = 0
        self._quiet = 0

    def will_put(self, n: int) -> None:
        with self._lock:
            self._pending += n
            self._quiet = 0

    def took(self, robot: int) -> None:
        with self._lock:
            self._quiet = 0

    def finished(self, robot: int) -> None:
        with self._lock:
            self._pending -= 1
            self._quiet = 0

    def idle(self, robot: int) -> None:
        pass

    def is_over(self) -> bool:
        with self._lock:
            if self._pending == 0:
                return True
            self._quiet += 1
            return self._quiet > 50_000  # BUG: a guess ("nothing happened for a while")
