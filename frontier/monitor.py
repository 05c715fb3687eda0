"""``monitor``: the threading paper's bounded buffer as a monitor.

A fixed ring buffer (capacity 30 by default, the paper's ``FRONTIER_SIZE``) inside a monitor:
one lock and two condition variables, ``not_full`` for producers and ``not_empty`` for
consumers. All the locking is :class:`frontier.locked.LockedFrontier`'s; this module only picks
the storage.
"""

from __future__ import annotations

from frontier.contract import DEFAULT_CAPACITY, check_capacity, register
from frontier.locked import LockedFrontier
from frontier.storage import RingBuffer

__all__ = ["MonitorFrontier"]


@register
class MonitorFrontier(LockedFrontier):
    """Bounded FIFO monitor. ``put``/``get`` O(1) plus one lock acquisition; thread-safe."""

    name = "monitor"
    description = "bounded ring buffer as a monitor: one lock, not_full/not_empty conditions"
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        capacity = check_capacity(capacity)
        super().__init__(RingBuffer(capacity), capacity)
