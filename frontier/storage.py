"""Storage shared by several strategies, written once: a ring buffer and a linked list.

These containers know nothing about threads. A strategy decides how they are protected:
``monitor``, ``semaphore`` and ``optimistic`` guard the same :class:`RingBuffer` with a monitor,
three semaphores or version validation, and ``unsynchronized`` uses it with no protection at
all; ``coarse`` and ``fine`` guard the same :class:`LinkedList` with one lock or two. Because the
storage is identical, a difference in their measurements is the synchronization's doing.

Both implement the :class:`frontier.contract.Storage` hooks (``push``, ``pop``, ``push_many``,
``pop_many``, ``__len__``, ``_check``). Priorities are accepted and ignored: both are FIFO.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["LinkedList", "RingBuffer"]


class RingBuffer:
    """A fixed-capacity FIFO laid out on a Python list used as a circle.

    Invariant (checked by :meth:`_check`): ``0 <= count <= capacity``;
    ``tail == (head + count) % capacity``; the ``count`` slots from ``head`` onwards (wrapping
    around) hold the URLs in arrival order and every other slot is ``None``.

    ``push`` and ``pop`` are O(1), ``pop_many(r)`` O(r). Not thread-safe: ``push`` on a full
    buffer overwrites the oldest slot and ``pop`` on an empty one returns ``None``; callers keep
    the preconditions (except ``unsynchronized``, whose point is to show what happens when
    nobody does).
    """

    __slots__ = ("capacity", "slots", "head", "tail", "count")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.slots: list[object] = [None] * capacity
        self.head = 0  # index of the oldest URL
        self.tail = 0  # index where the next URL goes
        self.count = 0

    def push(self, url: object, priority: float = 0.0) -> object:
        """Write ``url`` at the tail. Precondition: not full. Returns the slot's old content
        (``None`` when the precondition held), so a racy caller can see what it overwrote."""
        i = self.tail
        old = self.slots[i]
        self.slots[i] = url
        i += 1
        self.tail = 0 if i == self.capacity else i
        self.count += 1
        return old

    def pop(self) -> object:
        """Take the URL at the head. Precondition: not empty."""
        i = self.head
        url = self.slots[i]
        self.slots[i] = None
        i += 1
        self.head = 0 if i == self.capacity else i
        self.count -= 1
        return url

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Push every URL of ``pairs``. Precondition: they fit."""
        for url, _ in pairs:
            self.push(url)

    def pop_many(self, r: int) -> list[object]:
        """Pop ``min(r, len(self))`` URLs, oldest first."""
        return [self.pop() for _ in range(min(r, self.count))]

    def __len__(self) -> int:
        return self.count

    def _check(self) -> None:
        """Assert the invariant (for tests; O(capacity))."""
        assert 0 <= self.count <= self.capacity, (self.count, self.capacity)
        assert self.tail == (self.head + self.count) % self.capacity, (self.head, self.tail)
        held = {(self.head + k) % self.capacity for k in range(self.count)}
        for i, item in enumerate(self.slots):
            assert (item is not None) == (i in held), f"slot {i} is {item!r}"


class _Node:
    __slots__ = ("url", "next")

    def __init__(self, url: object) -> None:
        self.url = url
        self.next: _Node | None = None


class LinkedList:
    """An unbounded singly linked FIFO with a dummy node at the head.

    Invariant (checked by :meth:`_check`): ``head`` is a dummy whose ``url`` is ``None``; the
    URLs are those of the nodes after it, oldest first, and the last node is ``tail``, whose
    ``next`` is ``None``; ``appended - removed`` nodes follow ``head``.

    Thanks to the dummy, :meth:`push` touches only ``tail`` and ``appended`` and :meth:`pop`
    touches only ``head`` and ``removed``: one thread may push while another pops, each holding
    a lock of its own (the two-lock queue of Michael & Scott, 1996), provided the popper asks
    :meth:`is_empty` (which reads only the head side) rather than ``len``.

    ``push``/``pop`` O(1); ``pop_many(r)`` O(r); ``len`` O(1). Not thread-safe by itself.
    """

    __slots__ = ("head", "tail", "appended", "removed")

    def __init__(self) -> None:
        self.head = self.tail = _Node(None)
        self.appended = 0  # written by the tail side only
        self.removed = 0  # written by the head side only

    def push(self, url: object, priority: float = 0.0) -> None:
        """Append ``url`` after ``tail`` (tail side only)."""
        node = _Node(url)
        self.tail.next = node
        self.tail = node
        self.appended += 1

    def pop(self) -> object:
        """Unlink the oldest URL (head side only). Precondition: ``not is_empty()``."""
        old = self.head
        first = old.next
        url = first.url  # type: ignore[union-attr]
        first.url = None  # type: ignore[union-attr]  # it is the new dummy
        self.head = first  # type: ignore[assignment]
        old.next = None  # unlinked: a reference to the old dummy no longer holds the rest
        self.removed += 1
        return url

    def is_empty(self) -> bool:
        """Whether no URL follows the dummy (reads the head side only)."""
        return self.head.next is None

    def push_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Append every URL of ``pairs``, in order."""
        for url, _ in pairs:
            self.push(url)

    def pop_many(self, r: int) -> list[object]:
        """Unlink up to ``r`` URLs, oldest first (head side only)."""
        out = []
        while len(out) < r and self.head.next is not None:
            out.append(self.pop())
        return out

    def __len__(self) -> int:
        return self.appended - self.removed

    def _check(self) -> None:
        """Assert the invariant (for tests; O(n))."""
        assert self.head.url is None, "the head must be a dummy"
        node, n = self.head, 0
        while node.next is not None:
            node = node.next
            n += 1
        assert node is self.tail, "tail is not the last node"
        assert n == self.appended - self.removed, (n, self.appended, self.removed)
