"""``coarse``: a linked list guarded by one lock.

Coarse-grained locking: a single mutex serializes every operation on the whole structure, so a
producer at the tail and a consumer at the head wait for each other although they touch
different nodes. Compare with ``fine``, which holds the very same
:class:`~frontier.storage.LinkedList` under two locks.
"""

from __future__ import annotations

from frontier.contract import register
from frontier.locked import LockedFrontier
from frontier.storage import LinkedList

__all__ = ["CoarseFrontier"]


@register
class CoarseFrontier(LockedFrontier):
    """Unbounded FIFO linked list under one lock. O(1) per operation; thread-safe."""

    name = "coarse"
    description = "unbounded linked list guarded by one lock (coarse-grained locking)"

    def __init__(self) -> None:
        super().__init__(LinkedList())
