"""Exercise 3, reference solution: count outstanding work (instructors only).

The counter of crawlers/crawl/crawler.py (``pending``). Flags per robot (idle/busy) plus
``len(frontier) == 0`` are wrong: between ``get`` returning the last URL and ``took`` the
robot still looks idle and the frontier is empty.

Original exercise text:

*r* robots share a frontier. Each takes a URL, fetches it, puts the new links it found back, and
goes for the next. The crawl is over when **every robot is idle and the frontier is empty** --
but a robot is also a producer: the last busy robot may be about to put a hundred new URLs. Stop
too early and those pages are never crawled; never stop and the crawl hangs.

The robots (given, in the test) tell your detector what they do, through these calls:

* ``will_put(n)``: someone is *about to* put ``n`` new URLs in the frontier (the seeds too:
  the crawl starts with ``will_put(len(seeds))``, before any robot runs);
* ``took(robot)``: robot ``robot`` got a URL out of the frontier (right after ``get`` returned);
* ``finished(robot)``: robot ``robot`` is done with its URL, and the new links it found were
  already put in the frontier;
* ``idle(robot)``: robot ``robot`` found the frontier empty (its ``get`` timed out).

``is_over()`` is asked by every robot before each ``get``: it must become ``True`` once
everything is crawled, and must **never** be ``True`` while a URL waits in the frontier or a
robot works on one. The threads may be switched between any two lines of the robots' loop,
including between ``get`` returning and ``took`` being called. Each detector is independent of
any other: several crawls, each with its own detector, may run at once. Grade it with::

    python exercises/grade.py ex3
"""

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

    def will_put(self, n: int) -> None:
        with self._lock:
            self._pending += n

    def took(self, robot: int) -> None:
        """Nothing to do: the URL was counted when it was announced."""

    def finished(self, robot: int) -> None:
        with self._lock:
            self._pending -= 1

    def idle(self, robot: int) -> None:
        """Nothing to do: idleness follows from the count."""

    def is_over(self) -> bool:
        return self._pending == 0  # one read of an int: atomic; a stale False only delays
