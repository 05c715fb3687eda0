"""WRONG (ex3, the set of busy robots a module global; a cousin of ex3_class_working_set): the
URLs announced and not taken (``_queued``) are counted per detector, but the robots working on
a URL are kept in one set of the module, ``_WORKING``, shared by every detector of the
process. One crawl runs correctly; with two at once, robot 0 of crawl Y finishing removes
robot 0 from the set crawl X reads, and X's ``is_over()`` says True while X's robot 0 still
holds a URL."""

from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


_WORKING: set[int] = set()  # robots between took() and finished()


class TerminationDetector:
    """Decides when a crawl by ``robots`` robot threads sharing ``frontier`` is over.
    Every method may be called from any thread at any time."""

    _queued: int = 0           # URLs announced by will_put and not taken yet

    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._lock = threading.Lock()  # guards _queued and _working

    def will_put(self, n: int) -> None:
        with self._lock:
            self._queued += n

    def took(self, robot: int) -> None:
        with self._lock:
            self._queued -= 1
            _WORKING.add(robot)

    def finished(self, robot: int) -> None:
        with self._lock:
            _WORKING.discard(robot)

    def idle(self, robot: int) -> None:
        """Nothing to do: a robot that is not in _working is idle."""

    def is_over(self) -> bool:
        with self._lock:
            return self._queued == 0 and not _WORKING
