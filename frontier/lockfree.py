"""``lockfree``: the Michael–Scott queue, with compare-and-set on ``cereggii.AtomicRef``.

No thread ever waits for another to release anything. Every change to the shared structure is
one compare-and-set (CAS) on an atomic reference: "if this pointer still is what I read, make it
point to my node". A CAS fails only because another thread's CAS succeeded in between, so some
thread always makes progress: that is what *lock-free* means (M. Michael and M. Scott, 1996).

The list starts with a dummy node. ``head`` points to the dummy, whose successor holds the oldest
URL; ``tail`` points to the last node or, for a moment, to the one before it: an enqueuer first
links its node (CAS on ``tail.next``), then swings ``tail`` (a second CAS). Whoever finds ``tail``
lagging swings it forward on the other thread's behalf ("helping"), so a thread descheduled
between its two CASes never blocks anyone.

ABA: in C, a node can be freed and its address reused while a slow thread still holds it, so a
CAS can succeed on a pointer that merely *looks* unchanged; counted pointers fix that. In Python
a node stays alive while any thread holds a reference to it, so its identity cannot be reused
under a CAS, and there is no ABA problem to solve.

Closing: ``close`` links an end node with the same CAS as a put, and a put whose CAS would
link after the end node raises :class:`~frontier.Closed` instead. So close is ordered with
every put by the list itself: a put linked before the end node is seen by any getter that has
seen ``closed``, and none is linked after it. (A bare flag was not enough: a put that had read
"open" could link its node after a getter had seen "closed" and an empty queue, stranding the
URL; ``crawlab explore lockfree --scenario close`` found it.)

Unlinking: a node taken out of the list gets ``next`` set to ``_OFF_LIST``, as Java's
``ConcurrentLinkedQueue`` points a dequeued node at itself. Without it, a thread that still holds
an old node in a local variable (``head`` read just before it was descheduled) keeps alive every
node linked after it, thousands of them on a busy machine; on a free-threaded 3.13 the cyclic
collector then ran dozens of full, stop-the-world collections a second, found nothing to free,
and took most of the 2-thread run (measured with ``gc.callbacks``: see the book's chapter
"Free-threaded Python"). A thread that reads ``_OFF_LIST`` where it expected a successor knows
its node is stale and reads ``head`` again (a retry, counted). A node taken out is never the
tail again (the tail never lags behind the head), so :meth:`LockFreeFrontier._link` needs no
such check: its CAS from a stale tail simply fails.

Waiting: a lock-free queue has nothing to sleep on, so a blocking ``get`` on an empty queue
polls with :class:`~frontier.waiting.Backoff`. Counters are per thread (no shared counter to
contend on) and exact.
"""

from __future__ import annotations

from collections.abc import Iterable

from cereggii import AtomicRef

from frontier.contract import Closed, FrontierStats, register
from frontier.waiting import PollingFrontier

__all__ = ["LockFreeFrontier"]

# The ``next`` of a node taken out of the list. Ellipsis is immortal (3.12+): marking a node costs
# no write to a reference count that another thread's core also writes.
_OFF_LIST = ...


class _Node:
    __slots__ = ("url", "next")

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.next = AtomicRef(None)  # the successor, changed only by CAS from None



@register
class LockFreeFrontier(PollingFrontier):
    """Unbounded lock-free FIFO. ``put``/``get`` O(1) expected (plus one retry per concurrent
    success); thread-safe; never blocks a thread on another."""

    name = "lockfree"
    description = "Michael-Scott lock-free queue: compare-and-set on cereggii atomic references"
    correct = True
    bounded = False

    def __init__(self, unlink: bool = True) -> None:
        """``unlink=False`` leaves taken-out nodes linked, as this queue did before (see
        "Unlinking" above): for ``crawlab lab frontier-bench``, which measures what it cost."""
        super().__init__()
        self.capacity = None
        self._unlink = unlink
        dummy = _Node(None)
        self._head = AtomicRef(dummy)  # the dummy; its successor holds the oldest URL
        self._tail = AtomicRef(dummy)  # the last node, or its predecessor for a moment
        self._end = _Node(None)  # linked last by close(); nothing is ever linked after it

    def _link(self, first: _Node, last: _Node) -> int:
        """Append the chain ``first .. last`` (already linked privately). Returns CAS retries.
        :class:`Closed` if the end node is already linked."""
        retries = 0
        while True:
            tail = self._tail.get()
            nxt = tail.next.get()
            if nxt is None:
                if tail is self._end:
                    raise Closed(self.name)
                if tail.next.compare_and_set(None, first):  # linearization point of put
                    self._tail.compare_and_set(tail, last)  # may fail: someone helped already
                    return retries
            else:
                self._tail.compare_and_set(tail, nxt)  # tail lags behind: help it along
            retries += 1

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Enqueue with two CASes; never blocks. :class:`Closed` after close."""
        if self._closed:
            raise Closed(self.name)
        node = _Node(url)
        retries = self._link(node, node)
        mine = self._counters.mine()
        mine.puts += 1
        mine.cas_retries += retries

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Insert-many: link the batch privately, then publish it with one CAS."""
        if self._closed:
            raise Closed(self.name)
        first = last = None
        n = 0
        for url, _ in pairs:
            node = _Node(url)
            if first is None:
                first = last = node
            else:
                last.next.set(node)  # type: ignore[union-attr]  # private until published
                last = node
            n += 1
        if first is None:
            return
        retries = self._link(first, last)  # type: ignore[arg-type]
        mine = self._counters.mine()
        mine.puts += n
        mine.cas_retries += retries

    def _take_one(self, mine: FrontierStats) -> str | None:
        """Dequeue one URL with one successful CAS, or return ``None`` if empty."""
        while True:
            head = self._head.get()
            nxt = head.next.get()
            if nxt is _OFF_LIST:  # head was taken out since this thread read it: read again
                mine.cas_retries += 1
                continue
            if nxt is None or nxt is self._end:  # empty (and, at the end node, closed)
                return None
            tail = self._tail.get()
            if head is tail:  # the tail lags behind a node that is being added: help
                self._tail.compare_and_set(tail, nxt)
            else:
                url = nxt.url
                if self._head.compare_and_set(head, nxt):  # linearization point of get
                    nxt.url = None  # nxt is the new dummy; only this thread got here
                    if self._unlink:  # a stale reader of head no longer holds the rest
                        head.next.set(_OFF_LIST)
                    mine.gets += 1
                    return url
            mine.cas_retries += 1

    def close(self) -> None:
        """Link the end node (the linearization point of close), then raise the flag that
        getters read. Idempotent; never blocks."""
        if not self._closed:
            try:
                self._link(self._end, self._end)
            except Closed:  # another close linked it first
                pass
            self._closed = True

    def __len__(self) -> int:
        """Puts minus gets over all threads: a snapshot, O(threads)."""
        s = self._counters.total()
        return s.puts - s.gets

    def _check(self) -> None:
        """Assert the list shape (call when quiescent): the head is a dummy, tail is the last
        node, and the node count matches the counters."""
        head = self._head.get()
        assert head.url is None, "the head must be a dummy"
        node, n = head, 0
        while (nxt := node.next.get()) is not None:
            assert nxt is not _OFF_LIST, "a node in the list is marked as taken out"
            assert node is not self._end, "a node was linked after the end node"
            node = nxt
            n += nxt is not self._end
        assert node is self._tail.get(), "tail is not the last node"
        assert (node is self._end) == self._closed, "the end node is linked iff closed"
        assert n == len(self), (n, len(self))
