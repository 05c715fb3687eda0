"""``tanenbaum``: the monitor of the textbook bounded buffer, which signals only on the edges.

Tanenbaum's producer-consumer monitor (*Modern Operating Systems*, the figure the threading paper
cites for its monitor) signals ``empty`` only when an insert makes the buffer stop being empty
(``if count = 1 then signal(empty)``) and ``full`` only when a remove makes it stop being full
(``if count = N - 1 then signal(full)``). With one producer and one consumer, the book's setting,
that is enough: at most one thread can be asleep on each condition. With many threads it is not.
When ten consumers sleep on an empty buffer and a producer adds ten URLs, only the first insert
signals; nine consumers sleep on while nine URLs wait. Nothing is lost or duplicated (safety is
intact), but threads sleep while there is work for them: **lost wake-ups**, a liveness failure.
A counting semaphore cannot lose a wake-up (each ``V`` is remembered), which is why a semaphore
frontier never behaves like this.

Everything but the two signals is :class:`~frontier.monitor.MonitorFrontier`'s: the same ring
buffer, lock, conditions and Mesa-style ``while`` loops. Callers that wait with a timeout re-check
when it runs out and so only lose time; callers that wait without one can sleep until
:meth:`close`. ``live = False`` keeps it out of the test suites that assume every wake-up arrives.
"""

from __future__ import annotations

from frontier.contract import register
from frontier.monitor import MonitorFrontier

__all__ = ["TanenbaumFrontier"]


@register
class TanenbaumFrontier(MonitorFrontier):
    """Bounded FIFO monitor with edge-only signals. ``put``/``get`` O(1) plus one lock
    acquisition; thread-safe (never loses or repeats a URL) but not live: see the module."""

    name = "tanenbaum"
    description = "monitor that signals only on the empty/full edges (Tanenbaum's figure)"
    live = False

    def _added(self, n: int) -> None:
        """Wake one getter, and only if the frontier was empty before these ``n`` URLs."""
        if self._size == n and self._not_empty.sleepers:
            self._not_empty.notify()

    def _taken(self, n: int) -> None:
        """Wake one putter, and only if the frontier was full before these ``n`` were taken."""
        if self._size + n == self.capacity and self._not_full.sleepers:
            self._not_full.notify()
