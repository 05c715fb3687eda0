"""``optimistic``: optimistic concurrency control over the shared ring buffer.

Kung and Robinson's three phases (1981), as the threading paper describes them:

1. **Read phase.** Read the version number, then whatever the operation needs (is there room? is
   there a URL?) without taking any lock.
2. **Validation.** Commit only if nobody else committed since our read: one compare-and-set of
   the version from the even value we read to the next, odd, value. If it fails, another
   transaction got in first: *abort* (counted) and start again from the read phase.
3. **Write phase.** Having won the CAS, we alone may write: change the ring buffer, then publish
   the next even version. A reader that sees an odd version knows a write is in flight and
   backs off (also an abort).

Optimism pays when conflicts are rare: a transaction that loses the validation just redoes its
cheap read phase. What it is *not* is non-blocking. Winning the validation takes the version
odd, which is taking a lock in all but name (a spin lock on the version, as in a seqlock's
writer): every other thread that reads the odd version backs off (a one-microsecond sleep) and
retries until the writer publishes the next even version, so a writer descheduled in its write
phase holds everybody up. And nothing bounds the retries: under contention a transaction can
lose the validation again and again (each loss is counted in ``optimistic_aborts``; waiting for
a writer counts there too). Waiting for room or for a URL, which no validation can cure, polls
with :class:`~frontier.waiting.Backoff` (counted in ``condition_waits``). The version lives in a
``cereggii.AtomicInt64``.

Test seam: :meth:`OptimisticFrontier._before_validation` is called by every transaction between
its read phase and its validation; it does nothing. A test overrides it (on the instance) to
hold one thread there while another commits, which forces the conflicting interleaving that the
validation exists to catch.
"""

from __future__ import annotations

import time

from cereggii import AtomicInt64

from frontier.contract import (
    DEFAULT_CAPACITY,
    Closed,
    FrontierStats,
    Full,
    check_capacity,
    check_r,
    register,
)
from frontier.storage import RingBuffer
from frontier.waiting import Backoff, PollingFrontier

__all__ = ["OptimisticFrontier"]

_WRITER_WAIT = 1e-6  # seconds a transaction that found a write in flight sleeps before retrying


@register
class OptimisticFrontier(PollingFrontier):
    """Bounded FIFO ring buffer under optimistic concurrency control. O(1) per attempt, and
    unboundedly many attempts under contention; thread-safe. A thread never sleeps on a lock,
    but it polls while another thread's write phase is in flight (the odd version acts as a
    spin lock), while full (``put``) and while empty (``get``)."""

    name = "optimistic"
    description = "bounded ring buffer, optimistic concurrency control: read, validate, write"
    correct = True
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__()
        self.capacity = check_capacity(capacity)
        self._buffer = RingBuffer(self.capacity)  # written only in a write phase
        # version: even = stable; odd = a write phase is in flight. Every commit adds 2.
        self._version = AtomicInt64(0)

    def _begin_write(self, mine: FrontierStats) -> int | None:
        """Read phase prologue: the current even version, or ``None`` (an abort, after
        yielding the GIL to the writer) when a write is in flight."""
        v = self._version.get()
        if v & 1:
            mine.optimistic_aborts += 1
            # Let the writer finish its write phase. A positive sleep, not sleep(0): a scheduler
            # that owns time (crawlab explore) then runs the writer first, where a bare yield
            # would let this thread spin for ever in the interleavings it explores.
            time.sleep(_WRITER_WAIT)
            return None
        return v

    def _before_validation(self) -> None:
        """Called between a transaction's read phase and its validation; does nothing. A test
        seam (see the module docstring): overriding it lets another transaction commit here."""

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Validate-and-write; polls while full (:class:`Full` on timeout); :class:`Closed`
        after close."""
        mine = self._counters.mine()
        backoff = None
        while True:
            if self._closed:
                raise Closed(self.name)
            v = self._begin_write(mine)
            if v is None:
                continue
            if self._buffer.count >= self.capacity:  # read phase: no room
                backoff = backoff or Backoff(timeout, "not_full")
                if not backoff.pause():
                    raise Full
                mine.condition_waits += 1
                continue
            self._before_validation()
            if not self._version.compare_and_set(v, v + 1):  # validation
                mine.optimistic_aborts += 1
                continue
            if self._closed:  # closed by a transaction that committed before ours
                self._version.set(v + 2)
                raise Closed(self.name)
            self._buffer.push(url)  # write phase: exclusive until the version is even again
            self._version.set(v + 2)
            mine.puts += 1
            return

    def _take_one(self, mine: FrontierStats) -> str | None:
        """One transaction taking one URL, or ``None`` if it finds none."""
        urls = self._take(mine, 1)
        return urls[0] if urls else None

    def _take(self, mine: FrontierStats, r: int) -> list[str]:
        """One transaction taking up to ``r`` URLs; retries until it commits or finds none."""
        while True:
            v = self._begin_write(mine)
            if v is None:
                continue
            if self._buffer.count == 0:
                return []
            self._before_validation()
            if not self._version.compare_and_set(v, v + 1):  # validation
                mine.optimistic_aborts += 1
                continue
            urls = self._buffer.pop_many(r)
            self._version.set(v + 2)
            mine.gets += len(urls)
            return urls  # type: ignore[return-value]

    def get_many(self, r: int) -> list[str]:
        """Extract up to ``r`` URLs in one transaction; never waits for URLs."""
        check_r(r)
        return self._take(self._counters.mine(), r) if r else []

    def close(self) -> None:
        """Close in a transaction of its own, so that it is ordered with every put: a put
        that commits first has stored its URL before any getter can see ``closed``, and one
        that commits after finds the flag in its write phase and stores nothing. (Setting
        the flag outside a transaction let a put that had read "open" store after a getter
        had seen closed and empty: a stranded URL, found by ``crawlab explore``.)
        Idempotent."""
        mine = self._counters.mine()
        while not self._closed:
            v = self._begin_write(mine)
            if v is None:
                continue
            if not self._version.compare_and_set(v, v + 1):  # validation
                mine.optimistic_aborts += 1
                continue
            self._closed = True  # write phase
            self._version.set(v + 2)

    def __len__(self) -> int:
        """URLs in the buffer, read outside any transaction: a snapshot."""
        return self._buffer.count

    def _check(self) -> None:
        """Assert the buffer's invariant and a stable (even) version (when quiescent)."""
        assert self._version.get() % 2 == 0, "a write phase never finished"
        self._buffer._check()
