"""Exercise 4, reference solution: two barriers per superstep (instructors only).

The second barrier can be replaced by double buffering (two sets of mailboxes, used in turn
by even and odd supersteps), which leaves one barrier per superstep.

Original exercise text:

In BSP, ``p`` workers compute on their own data, then *exchange*: each sends a list of messages
to each other worker (URLs found for another worker's sites, in a parallel crawler), then they
all wait at a *barrier*; what a worker receives is read only after everyone has sent. Then the
next superstep starts.

Write :meth:`Exchange.exchange`, called once per superstep by each of the ``p`` worker threads,
``rank`` = 0 .. p-1::

    received = ex.exchange(rank, {dest: [message, ...], ...})

It returns the messages sent to ``rank`` *in this superstep*, grouped by sender in rank order
(everything from rank 0 first, each sender's list in its order). Messages may be any objects:
the exchange passes them on as they are, never comparing, sorting or dropping them. A worker
may leave a destination out (nothing to send) or send to itself; a destination that is not an
``int`` in ``0 .. p-1`` (a ``bool`` included, and even with an empty list) is a ``ValueError``,
raised before anything is sent. Once ``exchange`` returns, the caller may change the lists it
passed in (even while another rank has not read this superstep's messages yet), and the list it
got back is its own. Each ``Exchange`` is independent of any other, whatever its ``p``; several
may run at once. Use :class:`threading.Barrier`. Careful: a fast worker may return from one
exchange and start the next superstep's while a slow one is still reading this one's messages.
Grade it with::

    python exercises/grade.py ex4
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
        self._sent = threading.Barrier(p)
        self._read = threading.Barrier(p)

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
