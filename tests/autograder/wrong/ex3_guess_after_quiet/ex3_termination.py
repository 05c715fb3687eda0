"""the reference's pending counter plus a "safety net" that guesses: after 2,000
consecutive is_over() looks with no will_put/took/finished in between, it says the crawl is
over even though pending > 0. held_back() stops after 60 looks, and no page of the test crawl
takes long enough; a real robot fetching one slow page (a few seconds) makes it stop early."""
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
            return self._quiet > 2000  # BUG: a guess ("nothing happened for a while")
