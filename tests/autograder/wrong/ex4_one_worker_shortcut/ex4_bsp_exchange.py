"""WRONG (ex4, one worker skips the rules): a fast path for ``p == 1`` ("nobody to wait
for, nobody to send to but myself") returns ``outbox.get(0, [])`` before the destinations are
checked, so ``Exchange(1).exchange(0, {1: ["x"]})`` returns ``[]`` (the message to rank 1 is
silently dropped) instead of raising ValueError, and ``{True: ["x"]}`` is taken as ``[]`` too;
it also returns the caller's own list object (not a copy). No schedule needed: one call shows
it. The grader checks bad destinations only with ``p = 2`` and a single worker only with good
ones. Otherwise the reference (two barriers)."""

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
        # box[d][s]: what rank s sent to rank d this superstep. Row d is written only by the
        # senders during the send phase and read only by rank d after the first barrier.
        self._box: list[list[list]] = [[[] for _ in range(p)] for _ in range(p)]
        # sent: everybody has written this superstep's messages (reading may start).
        # read: everybody has read them (the next superstep may write).
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        """Send ``outbox[d]`` to each rank ``d``; return what was sent to ``rank`` in this
        superstep, by sender in rank order. O(p + messages) per call, two barriers."""
        if self.p == 1:  # BUG: skips the check of the destinations
            return outbox.get(0, [])
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        for d, messages in outbox.items():
            self._box[d][rank] = list(messages)
        self._sent.wait()
        row = self._box[rank]
        received = [m for s in range(self.p) for m in row[s]]
        self._box[rank] = [[] for _ in range(self.p)]  # only rank touches its own row now
        self._read.wait()  # without it a fast sender overwrites a row that is still read
        return received
