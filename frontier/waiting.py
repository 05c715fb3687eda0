"""How every strategy waits: deadlines, counted lock acquisition, conditions, polite backoff.

Written once here and used by every strategy:

* :func:`deadline_of` turns a ``timeout`` into a :func:`time.monotonic` deadline, and
  :func:`time_left` reads it back (``None``: wait for ever; ``<= 0``: the time is up);
* :func:`acquire_counted` takes a lock and counts the acquisition and whether it had to wait
  (``lock_acquisitions``, ``lock_waits``) in the counters that lock guards;
* :class:`WaitCondition` is a condition variable that counts its sleepers and waits at most
  until a deadline (``locked``, ``semaphore``, ``fine``);
* :class:`Backoff` and :class:`PollingFrontier` are for the strategies that have nothing to
  sleep on (``lockfree``, ``optimistic``, ``unsynchronized``).

Every wait that actually waits (a contended lock, a sleep on a condition, a backoff pause) is
reported to :mod:`frontier.probe` when a thread timeline is recording; the uncontended paths
never look.

A lock-free or optimistic frontier has no condition variable, so a ``get`` on an empty frontier
(or a ``put`` on a full bounded one) must poll. Polling in a tight loop would hold the GIL and
starve the very thread that could make progress, so :class:`Backoff` sleeps between polls:
``time.sleep(0)`` first (just give the GIL away), then 10 µs doubling to 1 ms. The cost is
latency: a URL that arrives while a taker sleeps waits up to 1 ms to be noticed.
"""

from __future__ import annotations

import threading
import time

from frontier import probe
from frontier.contract import Empty, FrontierStats, PerThreadStats, check_r

__all__ = [
    "Backoff",
    "PollingFrontier",
    "WaitCondition",
    "acquire_counted",
    "deadline_of",
    "time_left",
]

_MIN_DELAY = 1e-5
_MAX_DELAY = 1e-3


def deadline_of(timeout: float | None) -> float | None:
    """The :func:`time.monotonic` instant at which ``timeout`` seconds from now run out."""
    return None if timeout is None else time.monotonic() + timeout


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (``None`` for no deadline); ``<= 0`` once it has passed."""
    return None if deadline is None else deadline - time.monotonic()


def acquire_counted(lock: threading.Lock, stats: FrontierStats) -> None:
    """Acquire ``lock``, counting in ``stats`` the acquisition (``lock_acquisitions``) and,
    if the lock was held by another thread, the wait (``lock_waits``).

    ``stats`` must be guarded by ``lock``: it is updated once the lock is held. O(1) plus the
    wait; a non-blocking try first, so an uncontended acquisition costs one probe.
    """
    if not lock.acquire(False):
        record = probe.recorder
        if record is None:
            lock.acquire()
        else:
            start = probe.now()
            lock.acquire()
            record("lock", start, probe.now())
        stats.lock_waits += 1
    stats.lock_acquisitions += 1


class WaitCondition(threading.Condition):
    """A condition variable that counts its sleepers, so a signal can be skipped when nobody
    sleeps (``threading.Condition.notify`` costs a lock probe even then), and that waits at
    most until a :func:`time.monotonic` deadline.

    ``sleepers`` is read and written with the condition's lock held. ``state`` names what a
    sleeper waits for (``"not_empty"``, ``"not_full"``), as thread timelines show it.
    """

    def __init__(self, lock: threading.Lock, state: str = "not_empty") -> None:
        super().__init__(lock)
        self.sleepers = 0
        self.state = state

    def wait_until(self, deadline: float | None) -> bool:
        """Wait once (the lock must be held) without registering as a sleeper; ``False``,
        without waiting, if ``deadline`` has already passed. For a caller that registers in
        ``sleepers`` itself, around a whole loop (``fine``)."""
        timeout = time_left(deadline)
        if timeout is not None and timeout <= 0:
            return False
        record = probe.recorder
        if record is None:
            self.wait(timeout)
        else:
            start = probe.now()
            self.wait(timeout)
            record(self.state, start, probe.now())
        return True

    def sleep(self, deadline: float | None) -> bool:
        """Wait once as a counted sleeper (the lock must be held); ``False`` if ``deadline``
        has already passed."""
        self.sleepers += 1
        try:
            return self.wait_until(deadline)
        finally:
            self.sleepers -= 1


class Backoff:
    """One waiter's backoff state. Not shared between threads (make one per wait).
    ``state`` names what it polls for (``"not_empty"``, ``"not_full"``), for timelines."""

    __slots__ = ("deadline", "delay", "pauses", "state")

    def __init__(self, timeout: float | None, state: str = "not_empty") -> None:
        self.deadline = deadline_of(timeout)
        self.delay = 0.0
        self.pauses = 0
        self.state = state

    def pause(self) -> bool:
        """Sleep a little longer than last time; ``False`` (without sleeping) once past the
        deadline."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return False
        record = probe.recorder
        if record is None:
            time.sleep(self.delay)
        else:
            start = probe.now()
            time.sleep(self.delay)
            record(self.state, start, probe.now())
        self.pauses += 1
        self.delay = min(max(2 * self.delay, _MIN_DELAY), _MAX_DELAY)
        return True


class PollingFrontier:
    """What the strategies with nothing to sleep on share (``lockfree``, ``optimistic``,
    ``unsynchronized``): waiting by :class:`Backoff`, closing by a flag, per-thread counters.

    A subclass provides ``_take_one(mine) -> str | None`` (one URL without waiting, ``None``
    when it finds none) and ``put``. Thread-safety is the subclass's: this class adds no shared
    state but the ``_closed`` flag, which only ever goes from ``False`` to ``True``.
    """

    ordering = "fifo"

    def __init__(self) -> None:
        self._closed = False
        self._counters = PerThreadStats()

    def _take_one(self, mine) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def get(self, timeout: float | None = None) -> str | None:
        """Take a URL; poll with backoff while empty and open (:class:`~frontier.Empty` on
        timeout); ``None`` once closed and drained."""
        mine = self._counters.mine()
        backoff = None
        while True:
            closed = self._closed  # read before looking: a put may land just before close
            url = self._take_one(mine)
            if url is not None:
                return url
            if closed:
                return None
            backoff = backoff or Backoff(timeout)
            if not backoff.pause():
                raise Empty
            mine.condition_waits += 1

    def get_many(self, r: int) -> list[str]:
        """Up to ``r`` URLs, without waiting."""
        check_r(r)
        mine = self._counters.mine()
        out: list[str] = []
        while len(out) < r and (url := self._take_one(mine)) is not None:
            out.append(url)
        return out

    def put_many(self, pairs) -> None:
        """One ``put`` per pair (each may poll for room)."""
        for url, priority in pairs:
            self.put(url, priority)  # type: ignore[attr-defined]

    def close(self) -> None:
        """Refuse further puts; pollers notice within one backoff pause. Idempotent."""
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def stats(self):
        """Sum of the per-thread counters (a snapshot; each thread's part is exact)."""
        return self._counters.total()
