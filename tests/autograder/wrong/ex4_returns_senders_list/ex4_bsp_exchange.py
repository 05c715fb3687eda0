"""WRONG (ex4, a sender's list escapes to the receiver): to save copies, a sender stores its
own list object in the mailbox (``box[d][rank] = messages``), and a receiver that got messages
from exactly one sender returns that list itself ("no need to copy a single list"). The
receiver now shares a mutable list with another thread after the exchange: when the sender
reuses its outbox list for the next superstep (``out[d].clear(); out[d].extend(...)``) while
the receiver still works through what it received, the receiver's list changes under it
(messages lost, or next superstep's messages seen a superstep early), and a receiver that
consumes its list (``received.pop()``) empties the sender's. Schedule: superstep 0, rank 0
sends ``L`` to rank 1 only; rank 1 returns ``L``; rank 0 returns, clears ``L`` and fills it for
superstep 1 while rank 1 has not processed it yet: rank 1 sees superstep 1's messages. The
grader's outboxes are fresh lists nobody touches again. Otherwise the reference."""
from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    """All-to-all exchange among ``p`` worker threads, with a barrier, one superstep at a time.
    Each rank calls :meth:`exchange` once per superstep; no two threads use the same rank."""

    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        self._box: list[list[list]] = [[[] for _ in range(p)] for _ in range(p)]
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        for d, messages in outbox.items():
            self._box[d][rank] = messages  # BUG (with the return below): no copy
        self._sent.wait()
        senders = [lst for lst in self._box[rank] if lst]
        if len(senders) == 1:
            received = senders[0]  # the sender's own list object
        else:
            received = [m for lst in senders for m in lst]
        self._box[rank] = [[] for _ in range(self.p)]
        self._read.wait()
        return received
