"""WRONG (ex4, one home-made barrier, the sender's list kept without a copy; a cousin of
ex4_one_barrier_no_copy): double buffering with one barrier per superstep, the barrier made of
a Condition (a generation count, waited for in a while loop), and each sender's list object
stored itself (``boxes[d][rank] = messages``). A sender returns as soon as the barrier opens
and may then clear and refill its list (the contract allows it), while a receiver woken by the
barrier, and not yet run, reads it afterwards: it gets the next superstep's messages."""

from __future__ import annotations

import threading

__all__ = ["Exchange"]


class _Gate:
    """A barrier of one's own."""

    def __init__(self, p: int) -> None:
        self._p, self._count, self._generation = p, 0, 0
        self._all_here = threading.Condition()

    def wait(self) -> None:
        with self._all_here:
            generation = self._generation
            self._count += 1
            if self._count == self._p:
                self._count, self._generation = 0, generation + 1
                self._all_here.notify_all()
            while self._generation == generation:
                self._all_here.wait()


class Exchange:
    """All-to-all exchange among ``p`` worker threads, with a barrier, one superstep at a time.
    Each rank calls :meth:`exchange` once per superstep; no two threads use the same rank."""

    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        # _boxes[parity][d][s]: what rank s sent to rank d in a superstep of that parity
        self._boxes = [[[[] for _ in range(p)] for _ in range(p)] for _ in range(2)]
        self._step = [0] * p  # each rank's own superstep count (only rank r touches [r])
        self._sent = _Gate(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        """Send ``outbox[d]`` to each rank ``d``; return what was sent to ``rank`` in this
        superstep, by sender in rank order."""
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        boxes = self._boxes[self._step[rank] % 2]
        self._step[rank] += 1
        for d, messages in outbox.items():
            boxes[d][rank] = messages
        self._sent.wait()
        row = boxes[rank]
        received = [m for s in range(self.p) for m in row[s]]
        boxes[rank] = [[] for _ in range(self.p)]  # read: empty for the superstep after next
        return received
