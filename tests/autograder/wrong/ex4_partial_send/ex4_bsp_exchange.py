"""destinations are validated while sending, so a bad destination raises ValueError
only after the valid ones were already written into the mailboxes: the messages of a failed
call are delivered in the superstep (the caller saw ValueError and re-sent or sent nothing).
It also takes True/False as ranks 1/0. Otherwise the reference (two barriers)."""
from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        self._box = [[[] for _ in range(p)] for _ in range(p)]
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        for d, messages in outbox.items():
            if not 0 <= d < self.p:  # BUG: checked while sending; bools accepted
                raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {d!r}")
            self._box[d][rank] = list(messages)
        self._sent.wait()
        row = self._box[rank]
        received = [m for s in range(self.p) for m in row[s]]
        self._box[rank] = [[] for _ in range(self.p)]
        self._read.wait()
        return received
