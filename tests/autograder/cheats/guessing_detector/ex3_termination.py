"""ex3 that guesses: the crawl is over once the frontier was seen empty on a few looks in a
row, and no robot has said took() without finished() (it ignores will_put)."""
from __future__ import annotations

import threading

from frontier.contract import Frontier


class TerminationDetector:
    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._lock = threading.Lock()
        self._busy = 0
        self._empty_looks = 0

    def will_put(self, n: int) -> None:
        pass

    def took(self, robot: int) -> None:
        with self._lock:
            self._busy += 1

    def finished(self, robot: int) -> None:
        with self._lock:
            self._busy -= 1

    def idle(self, robot: int) -> None:
        pass

    def is_over(self) -> bool:
        with self._lock:
            if self._busy == 0 and len(self.frontier) == 0:
                self._empty_looks += 1
            else:
                self._empty_looks = 0
            return self._empty_looks >= 3
