"""WRONG (ex4): both barriers have a 10 s timeout ("so a dead worker cannot hang the job"): a worker
that computes longer than 10 s breaks the barrier (BrokenBarrierError in every rank).
"""


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
        self._sent = threading.Barrier(p, timeout=10.0)
        self._read = threading.Barrier(p, timeout=10.0)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        """Send ``outbox[d]`` to each rank ``d``; return what was sent to ``rank`` in this
        superstep, by sender in rank order. O(p + messages) per call, two barriers."""
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
