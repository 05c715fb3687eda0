"""WRONG (ex4, every superstep's mailboxes kept for ever): one barrier per superstep and no
second one, made safe by giving each superstep a mailbox grid of its own (keyed by the
superstep number each rank counts): a fast rank writes the next superstep's grid, never the one
a slow rank still reads. But no grid is ever dropped: a crawl of many supersteps keeps every
message it ever exchanged (and every received list's contents) alive, and its memory grows
without bound until the process dies.
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
        self._lock = threading.Lock()
        self._grids: dict[int, list[list[list]]] = {}  # superstep -> box[d][s]; BUG: never pruned
        self._step = [0] * p  # each rank's own superstep count (only rank r touches [r])
        self._sent = threading.Barrier(p)

    def _grid(self, step: int) -> list[list[list]]:
        with self._lock:
            grid = self._grids.get(step)
            if grid is None:
                grid = self._grids[step] = [[[] for _ in range(self.p)] for _ in range(self.p)]
            return grid

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        step = self._step[rank]
        self._step[rank] += 1
        grid = self._grid(step)
        for d, messages in outbox.items():
            grid[d][rank] = list(messages)
        self._sent.wait()
        return [m for s in range(self.p) for m in grid[rank][s]]
