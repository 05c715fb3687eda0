"""The visited set: which URLs a crawl has already claimed, as 64-bit fingerprints.

Storing every URL string costs about 100 bytes per URL before the set's own overhead. Like
Mercator, crawlab keeps an 8-byte BLAKE2b fingerprint of each URL instead: two URLs collide with
probability about n²/2⁶⁵, less than 3·10⁻⁸ for a million URLs.

:meth:`VisitedSet.claim` is the crawler's *check-then-add*: "is it new? then it is mine". Done as
two steps (``if fp not in seen: seen.add(fp)``) two threads can both find a URL new and both
crawl it. :class:`VisitedSet` does it as one atomic step, ``dict.setdefault``, which is a single
C call on a built-in dict (atomic under the GIL, and under free-threaded CPython's per-object
locks). :class:`RacyVisitedSet` keeps the two steps on purpose, for the ``unsynchronized``
frontier, and counts every time the race actually lets a URL through twice.
"""

from __future__ import annotations

import threading
from hashlib import blake2b

__all__ = ["RacyVisitedSet", "VisitedSet", "fingerprint"]


def fingerprint(url: str) -> int:
    """The URL's 64-bit BLAKE2b fingerprint. O(len(url)); thread-safe."""
    return int.from_bytes(blake2b(url.encode(), digest_size=8).digest(), "little")


class VisitedSet:
    """A thread-safe set of URL fingerprints with an atomic check-then-add.

    ``claim`` and ``in`` are O(1) expected (``claim_many``: O(1) per URL, one lock round in
    all); memory is about 60 bytes per URL (the fingerprint
    ``int`` and its set slot; ``labs/lab_crawl_memory.py`` measures it). Thread-safe: one lock
    makes the check and the add one step.
    """

    racy = False

    def __init__(self) -> None:
        self._seen: set[int] = set()
        # _claim_lock guards the check-then-add in claim() (reads need no lock).
        self._claim_lock = threading.Lock()
        self.races = 0  # stays 0: the claim cannot race

    def claim(self, url: str) -> bool:
        """Mark ``url`` visited; ``True`` if no thread had claimed it before."""
        fp = fingerprint(url)
        with self._claim_lock:
            if fp in self._seen:
                return False
            self._seen.add(fp)
            return True

    def claim_many(self, urls: list[str]) -> list[bool]:
        """:meth:`claim` each of ``urls`` in order (a URL twice in the list: only the first is
        new), under one acquisition of the lock: a page's links cost one lock round, not
        one per link. The fingerprints are computed before the lock is taken. O(len(urls))."""
        fps = [fingerprint(u) for u in urls]
        seen = self._seen
        fresh = []
        with self._claim_lock:
            for fp in fps:
                new = fp not in seen
                if new:
                    seen.add(fp)
                fresh.append(new)
        return fresh

    def __contains__(self, url: str) -> bool:
        return fingerprint(url) in self._seen

    def __len__(self) -> int:
        return len(self._seen)

    def fingerprints(self) -> set[int]:
        """A copy of the claimed fingerprints (a snapshot for a journal). O(size)."""
        with self._claim_lock:
            return set(self._seen)

    def restore(self, fingerprints: set[int]) -> None:
        """Claim every fingerprint of a :meth:`fingerprints` snapshot. O(size)."""
        with self._claim_lock:
            self._seen.update(fingerprints)


class RacyVisitedSet(VisitedSet):
    """The check-then-add race kept on purpose, and caught: NOT thread-safe.

    Two threads may both find a URL new and both crawl it. Each claim that *thinks* it won also
    registers in a ``dict`` with ``setdefault`` (atomic); finding another thread already there
    is the race caught red-handed, counted in ``races``. The counter has a lock of its own,
    taken only after the race window, so the count is exact on a free-threaded build too while
    the claim stays racy: ``claims that returned True == len(self) + races``.
    """

    racy = True

    def __init__(self) -> None:
        super().__init__()
        self._owner: dict[int, int] = {}
        # _races_lock guards the counter `races` only (a bare += loses counts without the GIL).
        self._races_lock = threading.Lock()

    def claim_many(self, urls: list[str]) -> list[bool]:
        """One racy :meth:`claim` per URL (no lock to batch under)."""
        return [self.claim(u) for u in urls]

    def claim(self, url: str) -> bool:
        """Check, then add, with a window in between (the paper's race)."""
        fp = fingerprint(url)
        if fp in self._seen:
            return False
        self._seen.add(fp)
        me = threading.get_ident()
        if self._owner.setdefault(fp, me) != me:
            with self._races_lock:
                self.races += 1  # another thread also found it new: a duplicate crawl
        return True
