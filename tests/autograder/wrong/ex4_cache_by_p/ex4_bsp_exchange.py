"""WRONG (ex4, one mailbox grid and one pair of barriers per size, shared by every Exchange of
that size): the reference, but ``__init__`` builds the grid and the two barriers once per ``p``
and keeps them in a class-level dict (``_shared``, "costly to build for large p"), so every
``Exchange`` of the same size uses the same ones. One exchange runs exactly as the reference
does, and so do two of different sizes; two of the same size at once (two crawls of p workers)
pass each other's barrier and overwrite each other's mailboxes. Schedule: exchanges A and B,
p = 2 each; A's rank 0 sends to its rank 1 and waits at the shared barrier; B's rank 0 sends
(overwriting A's message) and trips that barrier with A's rank 0: A's rank 0 reads before A's
rank 1 has sent, B's before B's has. The grader ran two exchanges at once only with p = 2 and
p = 3."""

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
