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
