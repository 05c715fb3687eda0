"""WRONG (ex4, mailboxes shared by every Exchange): the mailboxes are a dict declared at class
level (``_mail: dict = {}``, the attributes written out at the top of the class), keyed by
``(dest, src)``; ``__init__`` makes the two barriers per instance, so one exchange runs exactly
as the reference does, but every ``Exchange`` of the process writes into the same dict. Two
BSP jobs at once (two crawls, or a test suite run in parallel) mix their messages: a message
of one job is delivered in the other, or overwritten and lost. Schedule: exchanges A and B,
p = 2 each; A's rank 0 sends "A" to its rank 1 and waits at A's barrier; B's rank 0 sends "B"
to its rank 1 (same key (1, 0): A's message is overwritten) and waits; A's rank 1 arrives and
receives ["B"], B's rank 1 receives []. The grader never runs two exchanges at the same time,
and every receiver pops what it read, so nothing is left over from one check to the next."""
from __future__ import annotations

import threading

__all__ = ["Exchange"]


class Exchange:
    """All-to-all exchange among ``p`` worker threads, with a barrier, one superstep at a time.
    Each rank calls :meth:`exchange` once per superstep; no two threads use the same rank."""

    p: int
    _mail: dict[tuple[int, int], list] = {}  # BUG: one dict for every Exchange
    _sent: threading.Barrier
    _read: threading.Barrier

    def __init__(self, p: int) -> None:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise ValueError(f"p must be a positive integer, got {p!r}")
        self.p = p
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        for d, messages in outbox.items():
            self._mail[(d, rank)] = list(messages)
        self._sent.wait()
        received = [m for s in range(self.p) for m in self._mail.pop((rank, s), [])]
        self._read.wait()
        return received
