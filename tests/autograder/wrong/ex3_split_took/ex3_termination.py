"""two counters, URLs announced-not-taken (queued) and robots busy; took() moves one
from queued to busy in TWO critical sections (check-then-act split): between them both counters
read 0 and is_over() says True while a robot holds a URL whose links are not yet put."""
from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


class TerminationDetector:
    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._lock = threading.Lock()
        self._queued = 0
        self._busy = 0

    def will_put(self, n: int) -> None:
        with self._lock:
            self._queued += n

    def took(self, robot: int) -> None:
        with self._lock:
            self._queued -= 1
        with self._lock:  # BUG: a second critical section
            self._busy += 1

    def finished(self, robot: int) -> None:
        with self._lock:
            self._busy -= 1

    def idle(self, robot: int) -> None:
        pass

    def is_over(self) -> bool:
        with self._lock:
            return self._queued == 0 and self._busy == 0
