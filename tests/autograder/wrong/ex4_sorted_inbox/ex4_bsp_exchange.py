"""WRONG (ex4, reorders a sender's messages): each rank has an inbox list; a sender appends
``(its rank, message)`` pairs to each destination's inbox (under a lock), and the receiver,
after the first barrier, returns ``[m for _, m in sorted(inbox)]`` to get "sender rank order".
``sorted`` without ``key=`` compares the whole pair, so it also sorts each sender's messages
by value: rank 0 sending ``{1: ["b", "a"]}`` delivers ``["a", "b"]`` (the spec: "each sender's
list in its order"). It also raises TypeError for messages that do not compare (a dict, or a
str next to an int). No schedule needed: the plain call order shows it. The grader's messages
``(step, sender, dest, k)`` are distinct and already ascending within each sender's list, so
sorting them changes nothing there. Otherwise the reference (two barriers)."""
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
        self._lock = threading.Lock()
        self._inbox: list[list] = [[] for _ in range(p)]
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

    def exchange(self, rank: int, outbox: dict[int, list]) -> list:
        bad = [d for d in outbox if isinstance(d, bool) or not isinstance(d, int)
               or not 0 <= d < self.p]
        if bad:
            raise ValueError(f"destination rank must be in 0..{self.p - 1}, got {bad[0]!r}")
        with self._lock:
            for d, messages in outbox.items():
                self._inbox[d].extend((rank, m) for m in messages)
        self._sent.wait()
        received = [m for _, m in sorted(self._inbox[rank])]  # BUG: sorts by message too
        self._inbox[rank] = []
        self._read.wait()
        return received
