"""WRONG (ex4, an empty list to a bad destination is accepted): the outbox is first
filtered to the destinations that have something to send ("an empty list sends nothing"), and
only those are checked, so ``exchange(0, {5: []})`` or ``{-1: []}`` or ``{"1": []}`` goes
through instead of raising ValueError (the spec: "a destination outside 0 .. p-1 is a
ValueError"), and the caller's bug (a wrong rank computed for a host with no links yet) is
never reported. No schedule needed: one call with ``p = 2`` shows it. The grader's bad
destinations always carry a message. Otherwise the reference (two barriers)."""

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
        outbox = {d: m for d, m in outbox.items() if m}  # BUG: before the check
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
