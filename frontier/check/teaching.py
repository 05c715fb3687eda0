"""Frontiers that are wrong on purpose, for teaching; never registered by importing this module.

:class:`IfMonitor` is level 4 of the book's page "Play the scheduler": the monitor whose
``get`` checks "empty" with an ``if`` instead of a ``while``. ``crawlab`` reaches it by the
spec ``frontier.check.teaching:IfMonitor`` (:data:`IF_MONITOR`, loaded and registered by
:mod:`frontier.userclass` like a student's class), so that a schedule played on the page
replays with ``crawlab explore frontier.check.teaching:IfMonitor --replay FILE``.

Thread-safety: that of :class:`frontier.monitor.MonitorFrontier`, but for the bug: a consumer
woken while another has already taken the URL it was woken for pops an empty buffer.
"""

from __future__ import annotations

from frontier.contract import Empty
from frontier.monitor import MonitorFrontier
from frontier.waiting import deadline_of

__all__ = ["IF_MONITOR", "IfMonitor"]

IF_MONITOR = "frontier.check.teaching:IfMonitor"
"""The spec by which ``crawlab`` (and :func:`frontier.info`) loads :class:`IfMonitor`."""


class IfMonitor(MonitorFrontier):
    """The monitor with the classic bug: ``get`` waits once (``if``), then takes without
    checking again that the frontier is not empty (a URL put while it slept may have been
    taken by a consumer that never slept). O(1) per call, like the monitor."""

    name = "monitor-if"
    description = "the monitor, waiting with 'if' instead of 'while' (teaching: broken)"
    correct = False

    def get(self, timeout: float | None = None) -> str | None:
        self._lock()
        try:
            if not self._size:
                if self._closed:
                    return None
                if not self._not_empty.sleep(deadline_of(timeout)):
                    raise Empty
            url = self._storage.pop()
            self._size -= 1
            self._stats.gets += 1
            self._taken(1)
            return url
        finally:
            self._mutex.release()
