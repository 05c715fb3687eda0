"""WRONG (ex3, the outstanding count one for the whole class; a cousin of
ex3_class_working_set): the reference's count of URLs announced and not yet finished, kept as a
class attribute (``TerminationDetector._pending += n``) under a lock of each detector's own. One
crawl runs correctly; with two at once each detector counts the other's work too: crawl Y,
done, is not over while crawl X still works (and two crawls' updates race, under two locks)."""

from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


class TerminationDetector:
    """Decides when a crawl by ``robots`` robot threads sharing ``frontier`` is over.
    Every method may be called from any thread at any time."""

    _pending = 0  # URLs announced by will_put and not yet finished

    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._lock = threading.Lock()  # guards the count

    def will_put(self, n: int) -> None:
        with self._lock:
            TerminationDetector._pending += n

    def took(self, robot: int) -> None:
        """Nothing to do: the URL was counted when it was announced."""

    def finished(self, robot: int) -> None:
        with self._lock:
            TerminationDetector._pending -= 1

    def idle(self, robot: int) -> None:
        """Nothing to do."""

    def is_over(self) -> bool:
        with self._lock:
            return TerminationDetector._pending == 0
