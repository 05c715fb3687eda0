"""the pending counter of the reference, updated WITHOUT the lock (read-modify-write
`self._pending += n` from several robot threads). A lost update makes the crawl stop early
(a lost increment) or never stop (a lost decrement). CPython 3.11's GIL only switches threads
at calls and backward jumps, so the tests never see it; a free-threaded build (the course has
tests/test_free_threaded.py) or any other interpreter can."""
from __future__ import annotations

import threading

from frontier.contract import Frontier

__all__ = ["TerminationDetector"]




class TerminationDetector:
    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        self._pending = 0

    def will_put(self, n: int) -> None:
        self._pending += n  # BUG: no lock

    def took(self, robot: int) -> None:
        pass

    def finished(self, robot: int) -> None:
        self._pending -= 1  # BUG: no lock

    def idle(self, robot: int) -> None:
        pass

    def is_over(self) -> bool:
        return self._pending == 0
