"""WRONG (ex4, one barrier, the sender's list kept without a copy): double buffering (two sets of
mailboxes, used in turn by even and odd supersteps) with one barrier per superstep, as the
reference's docstring suggests, but ``exchange`` stores each sender's list object itself
(``boxes[d][rank] = messages``), "the receiver builds a fresh list of its own after the
barrier". With one barrier a sender returns as soon as the barrier trips, and the contract lets
it clear and refill its lists then, while a receiver descheduled right after the barrier has
not read them yet: it reads the next superstep's messages. Schedule: p = 2; rank 1 waits at the
barrier; rank 0 sends its list L to rank 1 and trips it, returns, and clears and refills L;
rank 1 then reads L. The grader's reuse check made every rank wait at a barrier of its own
("every rank returned") before any sender touched its lists, which hid the window."""

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
        # _boxes[parity][d][s]: what rank s sent to rank d in a superstep of that parity
        self._boxes = [[[[] for _ in range(p)] for _ in range(p)] for _ in range(2)]
        self._step = [0] * p  # each rank's own superstep count (only rank r touches [r])
        self._sent = threading.Barrier(p)

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
