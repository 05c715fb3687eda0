"""WRONG (ex4, the outbox dict copied, its lists not; a cousin of ex4_one_barrier_no_copy):
double buffering with one barrier per superstep; each sender stores ``dict(outbox)``, a new
dict that holds the sender's own list objects, and each receiver reads ``sent_by[s].get(rank)``
after the barrier. A sender returns as soon as the barrier trips and may then clear and refill
its lists (the contract allows it); a receiver descheduled right after the barrier reads them
afterwards and gets the next superstep's messages."""

from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        self._sent_by = [[{} for _ in range(p)] for _ in range(2)]
        self._step = [0] * p
        self._sent = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        sent_by = self._sent_by[self._step[rank] % 2]
        self._step[rank] += 1
        sent_by[rank] = dict(outbox)
        self._sent.wait()
        return [m for s in range(self.p) for m in sent_by[s].get(rank, [])]
