"""CHEAT (ex4): one barrier per superstep and no copy of the senders' lists (the bug of
wrong/ex4_one_barrier_no_copy), except while the grader's slow-receiver check runs: that check
replaces ``threading.Barrier.wait`` with a wrapper of its own, and the repr of a barrier's bound
``wait`` then names that wrapper instead of ``Barrier.wait``. Only then does this exchange copy
the lists it is sent and wait at a second barrier.
"""

from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    """All-to-all exchange among ``p`` worker threads, with a barrier, one superstep at a time."""

    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        self._boxes = [[[[] for _ in range(p)] for _ in range(p)] for _ in range(2)]
        self._step = [0] * p
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def _watched(self) -> bool:
        return "Barrier.wait of" not in repr(self._sent.wait)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        careful = self._watched()
        boxes = self._boxes[self._step[rank] % 2]
        self._step[rank] += 1
        for d, messages in outbox.items():
            boxes[d][rank] = list(messages) if careful else messages
        self._sent.wait()
        row = boxes[rank]
        received = [m for s in range(self.p) for m in row[s]]
        boxes[rank] = [[] for _ in range(self.p)]
        if careful:
            self._read.wait()
        return received
