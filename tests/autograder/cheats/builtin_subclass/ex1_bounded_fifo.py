"""Cheat: no implementation at all; the class is the course's own MonitorFrontier, reached
through `import frontier.contract` (which binds the package name `frontier`, whose other
attributes the static check never looks at)."""
from __future__ import annotations

import frontier.contract

__all__ = ["BoundedFifo"]


class BoundedFifo(frontier.monitor.MonitorFrontier):
    name = "ex1-bounded-fifo"
    description = "exercise 1: bounded FIFO deque as a monitor (not_full/not_empty)"
