"""``semaphore``: the threading paper's bounded buffer with three semaphores.

Dijkstra's solution to the producer-consumer problem: ``empty_slots`` counts free slots (starts
at the capacity), ``full_slots`` counts URLs (starts at 0), and ``mutex``, a binary semaphore,
keeps two threads out of the ring buffer at once::

    put:  P(empty_slots); P(mutex); store; V(full_slots); V(mutex)
    get:  P(full_slots);  P(mutex); take;  V(mutex);      V(empty_slots)

The order matters: taking ``mutex`` *before* ``empty_slots`` in ``put`` deadlocks as soon as the
buffer is full (the producer sleeps holding the mutex the consumers need). Closing adds one
rule: ``close`` sets its flag under the mutex, and ``put`` checks it and signals ``full_slots``
under the mutex too. Otherwise a put that passed ``P(empty_slots)`` just before ``close`` could
store its URL *after* a consumer found ``full_slots`` closed at 0 and went home: the URL would
be stranded (found by ``crawlab explore semaphore --scenario close``).

A third rule makes the non-blocking answers true. ``P(full_slots)`` *claims* a URL, but which
one is decided only at the take, under the mutex; between the two, the URL is still in the
buffer. So a ``get`` whose ``P`` timed out may not answer "empty" from the count alone: the
buffer can hold URLs that other gets have claimed and not yet taken, and if a later ``put``
lets one of those gets take a newer URL, no FIFO order explains the "empty" (``crawlab
linearize semaphore`` found such histories). It answers "empty" only after seeing the buffer
empty under the mutex, and otherwise waits for the claims in flight to be taken (each needs
only the mutex) and tries ``P`` again; ``put``'s "full" is made true the same way. Every
answer then takes effect at one instant under the mutex: the frontier is linearizable.

``mutex`` is a :class:`threading.Lock`, which *is* a binary semaphore implemented in C (any
thread may release it). The counting semaphores are :class:`Semaphore` below rather than
:class:`threading.Semaphore`, which is written in Python on top of a ``Condition`` and signals on
every ``V`` even when nobody sleeps; measured on one thread, ``P`` + ``V`` costs about 2 µs with
it, about four times as much as here, which would bury the lesson under interpreter overhead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

from frontier.contract import (
    DEFAULT_CAPACITY,
    Closed,
    Empty,
    FrontierStats,
    Full,
    check_capacity,
    check_r,
    register,
)
from frontier.storage import RingBuffer
from frontier.waiting import WaitCondition, acquire_counted, deadline_of

__all__ = ["Semaphore", "SemaphoreFrontier"]

_CLAIM_WAIT = 1e-6  # seconds a full/empty answer waits for claims in flight before a new P


class Semaphore:
    """A counting semaphore (Dijkstra's P and V) that can also be closed.

    Invariant: ``value >= 0``; ``value`` is the number of ``P`` that may pass without sleeping.
    ``close()`` wakes every sleeper, and from then on ``P`` fails instead of sleeping (it still
    passes while ``value > 0``). Thread-safe; ``P``/``V`` O(1).
    """

    def __init__(self, value: int, state: str = "not_empty") -> None:
        self.value = value
        # _lock guards value, closed and the counters below.
        self._lock = threading.Lock()
        # positive: value became > 0 or the semaphore closed; P sleeps on it.
        self._positive = WaitCondition(self._lock, state)  # state: what P waits for
        self.closed = False
        self.p_count = 0  # P operations that passed
        self.p_waits = 0  # times a P went to sleep

    def P(self, deadline: float | None = None) -> bool:  # noqa: N802 (Dijkstra's name)
        """Wait until ``value > 0`` then decrement it. ``False`` if the semaphore is closed with
        ``value == 0``, or if the :func:`time.monotonic` ``deadline`` passes first."""
        with self._lock:
            while self.value == 0:
                if self.closed:
                    return False
                if not self._positive.sleep(deadline):
                    return False
                self.p_waits += 1
            self.value -= 1
            self.p_count += 1
            return True

    def V(self, n: int = 1) -> None:  # noqa: N802
        """Increment ``value`` by ``n`` and wake up to ``n`` sleepers."""
        with self._lock:
            self.value += n
            if self._positive.sleepers:
                self._positive.notify(n)

    def close(self) -> None:
        """Wake every sleeper; ``P`` fails from now on when it would sleep."""
        with self._lock:
            self.closed = True
            self._positive.notify_all()


@register
class SemaphoreFrontier:
    """Bounded FIFO ring buffer under three semaphores. O(1) per operation; thread-safe."""

    name = "semaphore"
    description = "bounded ring buffer with three semaphores: empty slots, full slots, mutex"
    ordering = "fifo"
    correct = True
    bounded = True

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = check_capacity(capacity)
        self._buffer = RingBuffer(self.capacity)
        self._empty_slots = Semaphore(self.capacity, "not_full")  # P'd by put, V'd by get
        self._full_slots = Semaphore(0, "not_empty")  # P'd by get, V'd by put
        # mutex: the binary semaphore guarding _buffer and _stats.
        self._mutex = threading.Lock()
        self._stats = FrontierStats()
        # Guarded by the mutex: once True, no put stores (checked where it would store).
        self._closing = False

    def _enter(self) -> None:
        """P(mutex), counting contention."""
        acquire_counted(self._mutex, self._stats)

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """P(empty_slots), store under the mutex, V(full_slots). :class:`Full` on timeout,
        :class:`Closed` after close."""
        if self._empty_slots.closed:
            raise Closed(self.name)
        deadline = deadline_of(timeout)
        if not self._empty_slots.P(deadline) and not self._settle(self._empty_slots, full=True):
            raise Closed(self.name) if self._empty_slots.closed else Full
        self._enter()
        try:
            if self._closing:  # closed since our P: give the slot back, store nothing
                self._empty_slots.V()
                raise Closed(self.name)
            self._buffer.push(url)
            self._stats.puts += 1
            self._full_slots.V()  # before close can run: a consumer that sees 0 sees closed
        finally:
            self._mutex.release()

    def get(self, timeout: float | None = None) -> str | None:
        """P(full_slots), take under the mutex, V(empty_slots). :class:`Empty` on timeout;
        ``None`` once closed and drained."""
        deadline = deadline_of(timeout)
        if not self._full_slots.P(deadline) and not self._settle(self._full_slots, full=False):
            if self._full_slots.closed:
                return None
            raise Empty
        self._enter()
        try:
            url = self._buffer.pop()
            self._stats.gets += 1
        finally:
            self._mutex.release()
        self._empty_slots.V()
        return url  # type: ignore[return-value]

    def _settle(self, slots: Semaphore, full: bool) -> bool:
        """After ``slots.P`` gave up: ``P`` again until it passes (True), or until the buffer
        is seen ``full`` (for a put; empty for a get) under the mutex (False), the instant a
        "full" or "empty" answer takes effect. Until then the slots the count lacks are claimed
        by operations between their ``P`` and their store or take (or their ``V`` after the
        take), which need only the mutex: the wait is theirs, never a producer's or consumer's
        to come. O(operations in flight)."""
        while True:
            with self._mutex:
                n = len(self._buffer)
                if (n == self.capacity) if full else (n == 0):
                    return False
            # Let the claims in flight finish. A positive sleep, not sleep(0): a scheduler that
            # owns time (crawlab explore) then runs them first instead of this loop for ever.
            time.sleep(_CLAIM_WAIT)
            if slots.P(deadline=0.0):
                return True

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """One ``put`` per pair (each may block for room)."""
        for url, priority in pairs:
            self.put(url, priority)

    def get_many(self, r: int) -> list[str]:
        """Take up to ``r`` URLs without blocking: ``P(full_slots)`` with a past deadline."""
        check_r(r)
        out: list[str] = []
        while len(out) < r and self._full_slots.P(deadline=0.0):
            self._enter()
            try:
                out.append(self._buffer.pop())  # type: ignore[arg-type]
                self._stats.gets += 1
            finally:
                self._mutex.release()
            self._empty_slots.V()
        return out

    def close(self) -> None:
        """Under the mutex, refuse further stores and close both counting semaphores:
        sleepers wake, puts fail, gets drain. Idempotent."""
        with self._mutex:
            self._closing = True
            self._empty_slots.close()
            self._full_slots.close()

    @property
    def closed(self) -> bool:
        return self._full_slots.closed

    @property
    def stats(self) -> FrontierStats:
        """Counters; P operations on the counting semaphores count as lock acquisitions and
        their sleeps as condition waits. A snapshot of three exact parts."""
        total = FrontierStats()
        total += self._stats
        for sem in (self._empty_slots, self._full_slots):
            total.lock_acquisitions += sem.p_count
            total.condition_waits += sem.p_waits
        return total

    def __len__(self) -> int:
        """URLs in the buffer (read without the mutex: a snapshot)."""
        return self._buffer.count

    def _check(self) -> None:
        """Assert the buffer's invariant and ``full + empty == capacity`` (when quiescent)."""
        with self._mutex:
            self._buffer._check()
            assert self._full_slots.value == self._buffer.count
            assert self._full_slots.value + self._empty_slots.value == self.capacity
