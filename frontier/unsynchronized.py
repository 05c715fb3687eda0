"""``unsynchronized``: the threading paper's "lock-free" frontier, a ring buffer with no
synchronization at all. A negative example: it is *not* thread-safe, on purpose.

Two threads can read the same head index and crawl the same URL twice, and two threads can write
the same tail slot so that one URL is lost; the shared count can drift. The paper measured what
that costs in repeated work; here every such race is also *caught and counted*:

* each URL is stored with a one-use token (a one-element list); the taker pops the token, and a
  second taker of the same stored URL finds the list empty: ``duplicates_handed_out``;
* a writer whose slot still holds an untaken URL has just destroyed it: ``urls_overwritten``.

The counters themselves are per thread, so the counts of races are exact even though the
structure is not. Some overwrites slip past the check (two writers racing on the same slot may
both see it empty); a lab counts lost URLs exactly by conservation (put = taken + left + lost).
A correct frontier has the same shape: compare with ``monitor``, which holds the very same
:class:`~frontier.storage.RingBuffer`.
"""

from __future__ import annotations

from frontier.contract import (
    DEFAULT_CAPACITY,
    Closed,
    FrontierStats,
    Full,
    check_capacity,
    register,
)
from frontier.storage import RingBuffer
from frontier.waiting import Backoff, PollingFrontier

__all__ = ["UnsynchronizedFrontier"]


@register
class UnsynchronizedFrontier(PollingFrontier):
    """Bounded FIFO ring buffer with no synchronization. O(1); NOT thread-safe (that is the
    lesson): under threads it hands URLs out twice and loses others, and counts both."""

    name = "unsynchronized"
    description = "the paper's 'lock-free': ring buffer, no synchronization; races counted"
    correct = False
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__()
        self.capacity = check_capacity(capacity)
        self._buffer = RingBuffer(self.capacity)  # holds (url, token) tickets

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Store without any lock; polls while the (racy) count says full."""
        mine = self._counters.mine()
        backoff = None
        while self._buffer.count >= self.capacity:
            if self._closed:
                raise Closed(self.name)
            backoff = backoff or Backoff(timeout, "not_full")
            if not backoff.pause():
                raise Full
            mine.condition_waits += 1
        if self._closed:
            raise Closed(self.name)
        old = self._buffer.push((url, [True]))
        if old is not None and old[1]:  # an untaken URL was just overwritten: lost
            mine.urls_overwritten += 1
            mine.races_detected += 1
        mine.puts += 1

    def _take_one(self, mine: FrontierStats) -> str | None:
        """Take one URL if the (racy) count says there is one, else ``None``."""
        while self._buffer.count > 0:
            ticket = self._buffer.pop()
            if ticket is None:  # another thread emptied this slot under our feet: try again
                continue
            url, token = ticket  # type: ignore[misc]
            try:
                token.pop()
            except IndexError:  # somebody took this very URL already
                mine.duplicates_handed_out += 1
                mine.races_detected += 1
            mine.gets += 1
            return url
        return None

    def __len__(self) -> int:
        """The racy count (may be wrong once threads have raced)."""
        return max(self._buffer.count, 0)

    def _check(self) -> None:
        """Assert the ring buffer's invariant: holds only if no threads ever raced."""
        self._buffer._check()
