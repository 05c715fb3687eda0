"""The crawler's visited sets: the atomic claim, and the racy one whose races are counted."""

from __future__ import annotations

import threading

from crawlers.crawl.visited import RacyVisitedSet, VisitedSet, fingerprint

THREADS = 4


class _OpenWindow(set):
    """A fingerprint set whose first membership tests of ``fp`` wait for every thread: all of
    them then find the URL new, as a preemption inside the window would let them."""

    def __init__(self, fp: int, barrier: threading.Barrier) -> None:
        super().__init__()
        self.fp, self.barrier = fp, barrier

    def __contains__(self, item: object) -> bool:
        found = super().__contains__(item)
        if item == self.fp and self.barrier.n_waiting < self.barrier.parties and not found:
            self.barrier.wait(timeout=10)
        return found


def _claim_together(visited: VisitedSet, url: str) -> list[bool]:
    barrier = threading.Barrier(THREADS)
    visited._seen = _OpenWindow(fingerprint(url), barrier)
    won: list[bool] = []
    threads = [threading.Thread(target=lambda: won.append(visited.claim(url)))
               for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
        assert not t.is_alive(), "a claim hung"
    return won


def test_racy_claims_are_counted_exactly_claims_equal_urls_plus_races():
    visited = RacyVisitedSet()
    won = _claim_together(visited, "http://a.test/x")
    assert won.count(True) == THREADS  # the window was open to every thread ...
    assert len(visited) == 1
    assert visited.races == THREADS - 1  # ... and every duplicate claim was caught
    assert won.count(True) == len(visited) + visited.races



def test_a_racy_claim_outside_the_window_is_refused_and_no_race():
    """Racy only inside its window: a URL already seen is refused, by any thread."""
    visited = RacyVisitedSet()
    assert visited.claim("http://a.test/x") is True
    assert visited.claim("http://a.test/x") is False
    other: list[bool] = []
    t = threading.Thread(target=lambda: other.append(visited.claim("http://a.test/x")))
    t.start()
    t.join(timeout=10)
    assert other == [False] and len(visited) == 1 and visited.races == 0


def test_claim_many_answers_as_claims_one_by_one_would():
    visited = VisitedSet()
    assert visited.claim("http://a.test/old") is True
    urls = ["http://a.test/x", "http://a.test/old", "http://a.test/y", "http://a.test/x"]
    assert visited.claim_many(urls) == [True, False, True, False]  # a repeat: only the first
    assert len(visited) == 3 and visited.claim_many([]) == []
    racy = RacyVisitedSet()
    assert racy.claim_many(urls) == [True, True, True, False]  # a fresh set: "old" is new


class _Window(set):
    """A fingerprint set whose test for ``fp`` waits for every thread (at most ``patience``
    seconds): without a lock around the whole batch, all of them then find the URL new."""

    def __init__(self, fp: int, barrier: threading.Barrier, patience: float) -> None:
        super().__init__()
        self.fp, self.barrier, self.patience = fp, barrier, patience

    def __contains__(self, item: object) -> bool:
        found = super().__contains__(item)
        if item == self.fp and not found:
            try:
                self.barrier.wait(timeout=self.patience)
            except threading.BrokenBarrierError:
                pass  # the others are held outside by the lock: the window is closed
        return found


def test_claim_many_is_one_atomic_step_per_batch():
    visited = VisitedSet()
    url = "http://a.test/contended"
    visited._seen = _Window(fingerprint(url), threading.Barrier(THREADS), patience=0.5)
    won: list[bool] = []
    threads = [threading.Thread(target=lambda: won.extend(
        visited.claim_many(["http://a.test/other", url]))) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
        assert not t.is_alive(), "a claim hung"
    assert len(won) == 2 * THREADS
    assert won[1::2].count(True) == 1, "the contended URL was claimed by more than one thread"
    assert won[0::2].count(True) == 1
