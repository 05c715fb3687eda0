"""Exercise 3: when is a threaded crawl over?

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

_ = threading.Lock  # you will need threading


class TerminationDetector:
    """Decides when a crawl by ``robots`` robot threads sharing ``frontier`` is over.
    Every method may be called from any thread at any time."""

    def __init__(self, robots: int, frontier: Frontier) -> None:
        self.robots = robots
        self.frontier = frontier
        # ===== YOUR CODE HERE: the detector's state ===========================================
        # ===== END OF YOUR CODE =================================================================

    # ===== YOUR CODE HERE ========================================================================

    def will_put(self, n: int) -> None:
        raise NotImplementedError("exercise 3: will_put")

    def took(self, robot: int) -> None:
        raise NotImplementedError("exercise 3: took")

    def finished(self, robot: int) -> None:
        raise NotImplementedError("exercise 3: finished")

    def idle(self, robot: int) -> None:
        raise NotImplementedError("exercise 3: idle")

    def is_over(self) -> bool:
        raise NotImplementedError("exercise 3: is_over")

    # ===== END OF YOUR CODE =====================================================================
