"""WRONG (ex3, the set of busy robots shared by every detector): two pieces of state, the URLs
announced and not taken (``_queued``) and the robots working on one (``_working``), ``took``
moving a URL from one to the other in one critical section, as a correct detector may. But
both are declared at class level; ``self._queued += n`` makes an instance attribute, while
``self._working.add`` changes the class's one set, shared by every detector of the process.
One crawl runs correctly; with two at once (each with its own detector), robot 0 of crawl Y
finishing removes robot 0 from crawl X's set too, and X's ``is_over()`` says True while X's
robot 0 still holds a URL. No check of the grader ran two detectors at once."""

from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]


class TerminationDetector:
    """Decides when a crawl by ``robots`` robot threads sharing ``frontier`` is over.
    Every method may be called from any thread at any time."""

    _queued: int = 0           # URLs announced by will_put and not taken yet
    _working: set[int] = set()  # robots between took() and finished()

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
            self._working.add(robot)

    def finished(self, robot: int) -> None:
        with self._lock:
            self._working.discard(robot)

    def idle(self, robot: int) -> None:
        """Nothing to do: a robot that is not in _working is idle."""

    def is_over(self) -> bool:
        with self._lock:
            return self._queued == 0 and not self._working
