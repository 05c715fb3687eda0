"""OPIC: On-line Page Importance Computation (Abiteboul, Preda and Cobena, 2003).

Every page holds *cash*. The seeds share an initial cash of 1. When a page is crawled, its cash
is added to its *history* and split evenly among its out-links; a page not yet crawled is worth
the cash it has received so far, which is the priority a priority frontier gets for it. Pages
that many important pages link to collect cash early, so a crawl ordered by cash finds the
high-PageRank pages first (compare ``heap`` against ``monitor`` in the crawl-quality lab).

The frontiers have no decrease-key, so a URL whose cash has at least doubled since it was last
put is put *again* with its new priority (:meth:`Opic.refresh`); the crawler skips the stale
copy when it comes out. Doubling bounds the copies of a URL by log2 of its cash growth.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

__all__ = ["Opic"]


class Opic:
    """OPIC cash and history per URL. ``credit`` is O(out-degree); thread-safe (one lock)."""

    def __init__(self, seeds: Iterable[str]) -> None:
        seeds = list(seeds)
        # _cash_lock guards _cash and _history.
        self._cash_lock = threading.Lock()
        self._cash: dict[str, float] = {u: 1.0 / len(seeds) for u in seeds} if seeds else {}
        self._history: dict[str, float] = {}
        self._queued: dict[str, float] = {}  # the priority each URL was last put with

    def state(self) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
        """Copies of the cash, history and last-queued priorities (a snapshot). O(URLs)."""
        with self._cash_lock:
            return dict(self._cash), dict(self._history), dict(self._queued)

    def restore(self, state: tuple[dict[str, float], dict[str, float], dict[str, float]]
                ) -> None:
        """Take up a :meth:`state` snapshot, replacing what is held. O(URLs)."""
        with self._cash_lock:
            self._cash, self._history, self._queued = (dict(d) for d in state)

    def priority(self, url: str) -> float:
        """The cash ``url`` holds now (0 for a URL never linked to)."""
        return self._cash.get(url, 0.0)

    def credit(self, url: str, links: list[str]) -> list[float]:
        """``url`` was crawled: move its cash to its history and split it among ``links``.

        Returns the links' cash after the transfer, in order (their priorities).
        """
        with self._cash_lock:
            cash = self._cash.pop(url, 0.0)
            self._history[url] = self._history.get(url, 0.0) + cash
            if not links:
                return []
            share = cash / len(links)
            out = []
            for link in links:
                value = self._cash.get(link, 0.0) + share
                self._cash[link] = value
                out.append(value)
            return out

    def refresh(self, url: str, cash: float) -> bool:
        """Whether ``url`` should be put (again) with priority ``cash``: never put before, or
        its cash has at least doubled since. Records the new priority when it says yes."""
        with self._cash_lock:
            last = self._queued.get(url)
            if last is not None and cash < 2.0 * last:
                return False
            self._queued[url] = cash
            return True

    def importance(self, url: str) -> float:
        """History plus current cash: OPIC's estimate of the page's importance."""
        return self._history.get(url, 0.0) + self._cash.get(url, 0.0)
