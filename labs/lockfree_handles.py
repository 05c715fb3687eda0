"""``lockfree`` without the sharing its algorithm does not need: two diagnostics of frontier-bench.

The Michael–Scott queue (:mod:`frontier.lockfree`) shares its ``head`` and ``tail`` on purpose.
Its Python form shares more on every call: the frontier object whose methods are called, the
table of per-thread counters, the end node. On a free-threaded 3.13 each of them is a reference
count that both cores write. A :class:`Handle` runs the same compare-and-set steps with all of
that read once, when the thread makes the handle. frontier-bench measures it beside ``lockfree``
twice, never judged:

- :data:`HANDLED`, the same steps through the handle: the frontier object and its counter table
  are out of the hot path;
- :data:`NO_TAIL`, a ``get`` that does not read ``tail`` either, as the ``poll`` of Java's
  ``ConcurrentLinkedQueue`` does not: the tail may then fall behind the head, onto a node taken
  out of the list, and a ``put`` that finds it there moves it to the head first.

If either gains on ``lockfree`` at two threads, the frontier pays for sharing it could do
without; if neither does, what is left is the sharing the algorithm is made of.
"""

from __future__ import annotations

from frontier.contract import Closed
from frontier.lockfree import _OFF_LIST, LockFreeFrontier, _Node

__all__ = ["HANDLED", "NO_TAIL", "Handle"]

HANDLED = "lockfree, through a handle of its own"
NO_TAIL = "lockfree, get reads no tail"


class Handle:
    """One thread's way into a :class:`LockFreeFrontier`, made by that thread and used by it
    only. ``put`` O(1) plus a retry per concurrent success; ``get`` O(1) likewise, and when the
    queue is empty it waits as the frontier's own ``get`` does. It always unlinks a node it
    takes out (as ``LockFreeFrontier()`` does by default).

    With ``read_tail=False``, put and get only through such handles: the tail may fall behind
    the head, which the frontier's own ``put``, ``put_many`` and ``close`` do not expect (its
    invariant is that the tail never does), so a frontier measured that way is not used
    again. A handle's ``put`` moves a fallen tail to the head before it links, and when every
    put that linked a node has also moved the tail (quiescence), the tail is on the last node
    and :meth:`LockFreeFrontier._check` holds."""

    def __init__(self, frontier: LockFreeFrontier, read_tail: bool = True) -> None:
        self.frontier = frontier
        self.head, self.tail, self.end = frontier._head, frontier._tail, frontier._end
        self.mine = frontier._counters.mine()
        self.read_tail = read_tail

    def put(self, url: str) -> None:
        """Link a node after the last one, as :meth:`LockFreeFrontier._link` does.
        :class:`Closed` once the end node is linked."""
        node, tail_ref, head_ref, end, retries = _Node(url), self.tail, self.head, self.end, 0
        while True:
            tail = tail_ref.get()
            nxt = tail.next.get()
            if nxt is None:
                if tail is end:
                    raise Closed("lockfree")
                if tail.next.compare_and_set(None, node):  # linearization point of put
                    tail_ref.compare_and_set(tail, node)
                    break
            elif nxt is _OFF_LIST:  # the tail fell behind the head (read_tail=False): catch up
                tail_ref.compare_and_set(tail, head_ref.get())
            else:
                tail_ref.compare_and_set(tail, nxt)  # the tail lags behind: help it along
            retries += 1
        mine = self.mine
        mine.puts += 1
        mine.cas_retries += retries

    def get(self, timeout: float | None = None) -> str | None:
        """Take the oldest URL with one CAS on ``head``, as the frontier's ``get`` does (reading
        ``tail`` only if ``read_tail``); on an empty queue, the frontier's own waiting ``get``."""
        head_ref, tail_ref, end, mine, read_tail = (self.head, self.tail, self.end, self.mine,
                                                    self.read_tail)
        while True:
            head = head_ref.get()
            nxt = head.next.get()
            if nxt is _OFF_LIST:  # head was taken out since this thread read it
                mine.cas_retries += 1
                continue
            if nxt is None or nxt is end:
                return self.frontier.get(timeout)
            if read_tail and head is (tail := tail_ref.get()):
                tail_ref.compare_and_set(tail, nxt)  # help the tail past the node being added
            else:
                url = nxt.url
                if head_ref.compare_and_set(head, nxt):  # linearization point of get
                    nxt.url = None
                    head.next.set(_OFF_LIST)
                    mine.gets += 1
                    return url
            mine.cas_retries += 1
