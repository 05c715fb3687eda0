"""``sliced``: one FIFO slice per thread, each under its own lock, with work stealing.

The priority-queue paper's T-sliced queues, and MultiQueues, make a shared queue scale by not
sharing it: ``k`` sub-queues, each with its own lock, and each thread working on "its" slice.
Two threads then contend only when one of them runs dry and *steals* from another's slice. This
is the FIFO counterpart: a thread is given a home slice the first time it touches the frontier
(round-robin over ``k`` slices); ``put`` appends to the home slice; ``get`` takes the oldest URL
of the home slice, or, if that is empty, of the first non-empty slice after it.

Specification (relaxed FIFO): each slice is FIFO, so the URLs one thread puts come out in the
order it put them; URLs put by different threads come out in no promised order. A crawler does
not need more: its robots put the links they found and take whatever is next. (With one
thread, or all puts from one thread, this *is* FIFO, which the conformance suite checks.)

Invariant: every URL accepted is in exactly one slice until one ``get`` takes it; once
``closed`` is set no slice grows. ``close`` takes every slice lock (in slice order, so two
closers cannot deadlock) before it sets the flags (each slice's and the frontier's), and ``put``
checks its slice's flag under its slice's lock: so a ``put`` either stored its URL before
``close`` (and any getter that has seen ``closed`` finds it) or raises :class:`~frontier.Closed`
-- the race that ``crawlab explore`` found in three other frontiers cannot happen here.

Handles: a thread can reach the frontier through a handle of its own
(:meth:`SlicedFrontier.handle`, or :func:`frontier.thread_handle`), taken once. On a free-
threaded Python every call on an object writes that object's reference count, and two threads
calling one shared frontier write the same count on every operation, though their slices are
disjoint; a thread that calls its own handle touches only objects no other thread uses until it
must steal. (MultiQueue implementations hand out per-thread handles for the same reason.)
``put`` and ``get`` on the frontier do the same work, finding the calling thread's home slice
through a thread-local table. ``crawlab lab frontier-bench`` measures ``sliced`` both ways.

Every answer takes effect at one instant (linearizable to the relaxed specification): an
empty answer too, see :meth:`SlicedFrontier._take_one`.

Unbounded. ``put`` O(1); ``get`` O(1) from the home slice, O(k) when stealing. Thread-safe. A
``get`` on an empty frontier polls with :class:`~frontier.waiting.Backoff` (there is no one
condition to sleep on without a lock over all slices). Without the GIL the threads on different
home slices run in parallel: this is the frontier meant to scale (``crawlab lab frontier-bench``).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import deque
from collections.abc import Iterable

from frontier.contract import Closed, FrontierStats, register
from frontier.waiting import PollingFrontier

__all__ = ["SlicedFrontier"]


class _Slice:
    """One sub-queue and the lock that guards it (``urls``, ``added`` and ``closed`` change only
    under ``lock``; a scan reads ``urls`` and ``added`` without it, as snapshots). ``added``
    counts the URLs ever appended: an empty scan uses it to tell that nothing came in behind it.
    ``closed`` is the frontier's flag as this slice's putters read it (set by ``close`` under
    this lock), so a put reads nothing shared by every thread.

    No ``__slots__``, on purpose: on a free-threaded 3.13 reading a slot increments the count of
    the class's member descriptor, one object every thread shares, where an instance attribute
    is found in the slice's own dictionary."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.urls: deque[str] = deque()
        self.added = 0
        self.closed = False


# _pop and _put take the slice's lock with acquire() and release() in try/finally, not a
# with-block: on a free-threaded 3.13 (no specializing interpreter) a with-block looks up and
# binds __enter__ and __exit__ on every call. Measured side by side (the lab's own cells, 15
# interleaved rounds, 3.13.15t, 2 cores, 2026-11-28): 1.15x the pairs per second at one thread
# and 1.13x at two, the 2-over-1 ratio unchanged. Same meaning, same order.

def _pop(s: _Slice, mine: FrontierStats) -> str | None:
    """The oldest URL of slice ``s`` under its lock, or ``None`` if another thread emptied it
    since the caller looked (an unlocked snapshot: an empty slice is never locked)."""
    lock = s.lock
    lock.acquire()
    try:
        mine.lock_acquisitions += 1
        if s.urls:
            mine.gets += 1
            return s.urls.popleft()
    finally:
        lock.release()
    return None


def _put(s: _Slice, mine: FrontierStats, url: str) -> None:
    """Append ``url`` to slice ``s`` under its lock (:class:`Closed` once the slice's flag is
    set), counted in ``mine``."""
    lock = s.lock
    lock.acquire()
    try:
        if s.closed:
            raise Closed(SlicedFrontier.name)
        s.urls.append(url)
        s.added += 1
    finally:
        lock.release()
    mine.puts += 1
    mine.lock_acquisitions += 1


def _put_many(s: _Slice, mine: FrontierStats, pairs: Iterable[tuple[str, float]]) -> None:
    """Append a batch to slice ``s`` under one lock acquisition."""
    urls = [u for u, _ in pairs]
    with s.lock:
        if s.closed:
            raise Closed(SlicedFrontier.name)
        s.urls.extend(urls)
        s.added += len(urls)
    mine.puts += len(urls)
    mine.lock_acquisitions += 1


class _Home:
    """One thread's way in (:func:`frontier.thread_handle`): its home slice and its counters.

    Made for one thread and used by that thread only, so calling it writes no count that
    another thread writes too. ``put`` and a ``get`` that finds its home slice non-empty touch
    only this object, the home slice and the thread's counters; a ``get`` on an empty home
    slice falls back to the frontier's scan (stealing) and polling. O(1) put; get O(1) from the
    home slice, O(k) when stealing.

    The handle refers to its frontier; the frontier keeps only a weak reference to it, so that
    no cycle of references runs through the frontier (a frontier is freed as soon as nothing
    refers to it, never by the cyclic collector)."""

    def __init__(self, frontier: SlicedFrontier, slice_: _Slice, counters: FrontierStats) -> None:
        self.frontier = frontier
        self.slice = slice_
        self.counters = counters

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Append to the home slice; never waits. :class:`Closed` after close."""
        _put(self.slice, self.counters, url)

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Append a batch to the home slice under one lock acquisition."""
        _put_many(self.slice, self.counters, pairs)

    def get(self, timeout: float | None = None) -> str | None:
        """Take from the home slice at once if it has a URL (the common case, one lock);
        otherwise steal or poll as :meth:`PollingFrontier.get` does."""
        s = self.slice
        if s.urls and (url := _pop(s, self.counters)) is not None:
            return url
        return PollingFrontier.get(self.frontier, timeout)

    def get_many(self, r: int) -> list[str]:
        """Up to ``r`` URLs, without waiting (home slice first)."""
        return self.frontier.get_many(r)


_HANDLED = ("put", "get", "put_many", "get_many")  # what a _Home does in the frontier's stead


@register
class SlicedFrontier(PollingFrontier):
    """Unbounded relaxed-FIFO frontier of ``slices`` locked sub-queues, one home slice per
    thread, stealing when the home slice is empty. Thread-safe; see the module docstring.
    :meth:`handle` gives a thread its own way in."""

    name = "sliced"
    description = "one FIFO slice per thread, each under its own lock; a dry thread steals"
    correct = True
    bounded = False
    # what crawlab linearize checks instead of ``ordering``: each putter's URLs in its order
    specification = "per-putter-fifo"

    def __init__(self, slices: int | None = None) -> None:
        super().__init__()
        self.capacity = None
        k = slices if slices is not None else 2 * (os.cpu_count() or 1)
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"slices must be a positive integer, got {slices!r}")
        self._slices = [_Slice() for _ in range(k)]
        # .home: the calling thread's (home index, home slice, its counters), looked up once
        # per operation; .handle: a weak reference to its _Home, if it asked for one
        self._local = threading.local()
        self._next_home = 0  # guarded by _homes_lock
        self._homes_lock = threading.Lock()  # taken once per thread, to be given a home

    def _mine(self) -> tuple[int, _Slice, FrontierStats]:
        """The calling thread's home slice (index and slice) and counters (given on first
        use, round-robin over the slices)."""
        try:
            return self._local.home
        except AttributeError:
            with self._homes_lock:
                i = self._next_home
                self._next_home = (i + 1) % len(self._slices)
            home = self._local.home = (i, self._slices[i], self._counters.mine())
            return home

    def handle(self) -> _Home | SlicedFrontier:
        """The calling thread's handle (:class:`_Home`, on its home slice): the same one for
        as long as the thread keeps it. Only that thread may use it. O(1).

        A subclass that overrides ``put``, ``get``, ``put_many`` or ``get_many`` gets the
        frontier itself: a handle would skip its own methods."""
        if any(getattr(type(self), m) is not getattr(SlicedFrontier, m) for m in _HANDLED):
            return self
        ref = getattr(self._local, "handle", None)
        home = ref() if ref is not None else None
        if home is None:
            _, s, mine = self._mine()
            home = _Home(self, s, mine)
            self._local.handle = weakref.ref(home)
        return home

    def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
        """Append to the calling thread's slice; never waits. :class:`Closed` after close."""
        _, s, mine = self._mine()
        _put(s, mine, url)

    def put_many(self, pairs: Iterable[tuple[str, float]]) -> None:
        """Append a batch to the calling thread's slice under one lock acquisition."""
        _, s, mine = self._mine()
        _put_many(s, mine, pairs)

    def get(self, timeout: float | None = None) -> str | None:
        """Take from the home slice at once if it has a URL (the common case, one lock);
        otherwise steal or poll as :meth:`PollingFrontier.get` does."""
        _, s, mine = self._mine()
        if s.urls and (url := _pop(s, mine)) is not None:
            return url
        return super().get(timeout)

    def _take_one(self, mine: FrontierStats) -> str | None:
        """The oldest URL of the home slice, else of the first non-empty slice after it;
        ``None`` only if there was an instant when every slice was empty.

        The scan is not atomic: a slice found empty may receive a URL while a later one is
        emptied, and "empty" would then be an answer no moment of the get explains
        (``crawlab linearize sliced`` found it). So an empty scan checks that no slice's
        ``added`` moved since it was looked at, and scans again if one did: each slice was then
        empty from its look to the check, and all looks come before all checks."""
        k = len(self._slices)
        home = self._mine()[0]
        order = [self._slices[(home + step) % k] for step in range(k)]
        while True:
            looked = []
            for s in order:
                looked.append(s.added)  # before the look: an append after it shows
                if s.urls and (url := _pop(s, mine)) is not None:
                    return url
            if all(s.added == n for s, n in zip(order, looked)):
                return None

    def close(self) -> None:
        """Set the flags while holding every slice lock (see the invariant). Idempotent."""
        for s in self._slices:
            s.lock.acquire()
        try:
            for s in self._slices:
                s.closed = True
            self._closed = True
        finally:
            for s in reversed(self._slices):
                s.lock.release()

    def __len__(self) -> int:
        """URLs in all slices (read without the locks: a snapshot). O(k)."""
        return sum(len(s.urls) for s in self._slices)

    def _check(self) -> None:
        """Assert, when quiescent, that every URL put and not yet taken is held by a slice:
        puts - gets == URLs held."""
        assert all(s.closed == self._closed for s in self._slices), "a slice's flag disagrees"
        held = [u for s in self._slices for u in s.urls]
        total = self._counters.total()
        assert total.puts - total.gets == len(held), (total.puts, total.gets, len(held))
