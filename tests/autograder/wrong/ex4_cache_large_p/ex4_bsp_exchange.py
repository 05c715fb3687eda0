"""WRONG (ex4, mailboxes and barriers shared by every Exchange of the same size, from p = 3 on;
a cousin of ex4_cache_by_p): exchanges of fewer than 3 workers build their own ("cheap"), larger
ones take the grid and the two barriers from a class-level dict keyed by ``p``. Two exchanges
of p = 2 at once, or of 2 and 3, run correctly; two of p = 3 at once pass each other's barriers
and overwrite each other's mailboxes."""

from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    """All-to-all exchange among ``p`` worker threads, with a barrier, one superstep at a time.
    Each rank calls :meth:`exchange` once per superstep; no two threads use the same rank."""

    # mailbox grids and barriers are costly to build for large p and a crawler makes many
    # Exchange objects of the same size: build them once per size and reuse them.
    _shared: dict = {}

    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        if p < 3:  # small ones are cheap to build
            self._box = [[[] for _ in range(p)] for _ in range(p)]
            self._sent, self._read = threading.Barrier(p), threading.Barrier(p)
            return
        if p not in Exchange._shared:
            Exchange._shared[p] = ([[[] for _ in range(p)] for _ in range(p)],
                                   threading.Barrier(p), threading.Barrier(p))
        self._box, self._sent, self._read = Exchange._shared[p]

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        for d, messages in outbox.items():
            self._box[d][rank] = list(messages)
        self._sent.wait()
        row = self._box[rank]
        received = [m for s in range(self.p) for m in row[s]]
        self._box[rank] = [[] for _ in range(self.p)]
        self._read.wait()
        return received
