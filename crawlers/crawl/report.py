"""What a crawl did and what it is measured against: :class:`CrawlReport` (counts, rates,
errors, how it stopped), :class:`GroundTruth` (the web's size and PageRank, for coverage and
quality) and :func:`overlap`, the repeated-work metric every crawl mode reports.

Used by the threaded crawler (:mod:`crawlers.crawl.crawler`), the web targets
(:mod:`crawlers.crawl.targets`) and the BSP crawler's report. Imports nothing of ``crawlers``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["CrawlReport", "GroundTruth", "ReferenceList", "overlap"]


def overlap(fetched: int, unique: int) -> float:
    """The overlap of N fetches of I distinct pages, ``(N - I) / I``: repeated work per page
    (0 before any page). The grid paper's first metric; every crawl mode reports it so."""
    return (fetched - unique) / unique if unique else 0.0


class GroundTruth:
    """What is known about the web being crawled: its size U and PageRank, for coverage and
    quality. ``page_of(url)`` maps a URL to a page index (``None`` if not a page of the web)."""

    def __init__(self, size: int, pagerank: Any, page_of: Callable[[str], int | None]) -> None:
        self.size = size
        self.pagerank = pagerank
        self.page_of = page_of

    def coverage(self, unique: int) -> float | None:
        """``I / U``: the share of the web's pages fetched (None for an empty web)."""
        return unique / self.size if self.size else None

    def quality(self, fetched: Iterable[str]) -> float:
        """``|A ∩ P| / |P|``: the share of the ``|A|`` highest-PageRank pages (``P``) among
        the crawled set ``A``."""
        import numpy as np

        pages = {p for p in (self.page_of(u) for u in fetched) if p is not None}
        if not pages:
            return 0.0
        top = np.argpartition(-np.asarray(self.pagerank), len(pages) - 1)[: len(pages)]
        return len(pages.intersection(top.tolist())) / len(pages)


class ReferenceList:
    """The pages a crawl should reach, as a user lists them (``--reference FILE``): coverage
    for a web whose size nobody knows is then measured against the list,
    ``|fetched ∩ list| / |list|``. ``urls``: normalized URLs (at least one). O(fetched) per
    coverage; immutable, so safe to share between threads."""

    def __init__(self, urls: Iterable[str], source: str = "") -> None:
        self.urls = frozenset(urls)
        if not self.urls:
            raise ValueError(f"{source or 'the reference list'} holds no URL")
        self.source = source
        self.size = len(self.urls)

    def coverage(self, fetched: Iterable[str]) -> float:
        """The share of the listed pages among ``fetched`` (distinct URLs)."""
        return len(self.urls.intersection(fetched)) / self.size


@dataclass
class CrawlReport:
    """What a crawl did. ``pages_fetched`` N counts every fetch, ``unique_pages`` I the distinct
    URLs fetched, ``duplicates`` = N - I (repeated work), ``overlap`` = (N - I) / I.

    With a journal, N and I cover the whole crawl: ``resumed`` pages were fetched by earlier
    sessions (``pages_per_second`` counts this session's only); ``refetched`` pages were
    fetched again because a crash lost their record or a stop cut their fetch, at most
    ``refetch_bound`` (see :mod:`crawlers.crawl.journal`)."""

    frontier: str
    threads: int
    seconds: float = 0.0
    pages_fetched: int = 0
    unique_pages: int = 0
    duplicates: int = 0
    overlap: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    pages_per_second: float = 0.0
    pages_per_thread: list[int] = field(default_factory=list)
    coverage: float | None = None
    coverage_basis: str | None = None  # "web": I / U; "discovered": I / URLs the crawl reached;
    # "reference": listed pages fetched / pages listed (--reference FILE)
    quality: float | None = None
    web_size: int | None = None
    links_found: int = 0
    politeness_waited: float = 0.0
    urls_discovered: int = 0
    urls_dropped: int = 0
    urls_spilled: int = 0
    urls_lost: int = 0
    visited_races: int = 0
    stopped_by: str = ""
    deadlock: bool = False
    deadlock_after: float | None = None
    producers: int = 0
    handoff_peak: int = 0
    resumed: int = 0
    refetched: int = 0
    refetch_bound: int | None = None
    journal_commits: int = 0
    # fetches cut when --seconds or Ctrl-C ended the crawl (not pages), threads still running
    # after the stop grace, and each limit's counter (crawlers.page.policy) when the web is
    # guarded by one
    fetches_cut: int = 0
    threads_unjoined: int = 0
    # URLs of the frontier never fetched because of robots.txt (not pages, not covered; a
    # resumed crawl asks robots.txt again): disallowed by its rules (or a Crawl-delay past the
    # cap, or a file the parser gave up on), or of a site whose robots.txt stayed unreachable
    # after its retries. Every URL taken was refused this way and none fetched: stopped_by is
    # "nothing-fetchable", never "exhausted".
    robots_refused: int = 0
    robots_unreachable: int = 0
    # URLs put off because their site's robots.txt did not answer yet, still waiting for it to
    # be asked again when the crawl stopped (a time slice, Ctrl-C): neither fetched nor given
    # up; a --state crawl keeps them pending, and its resume takes them up
    robots_put_off: int = 0
    limits: dict[str, int] = field(default_factory=dict)
    frontier_stats: dict[str, int] = field(default_factory=dict)
    timeline: list[tuple[float, str]] = field(default_factory=list, repr=False)

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (without the timeline)."""
        d = asdict(self)
        d.pop("timeline")
        return d
