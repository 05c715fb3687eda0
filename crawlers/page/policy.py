"""The crawl's limits against a hostile web: one table, one object, one set of counters.

A web server can answer one byte a second, send a body that never ends, redirect for ever, grow
a URL on every page, or ask a crawler to come back in an hour. Each such trap is met by one
*limit*; every limit has a default a careful crawler would choose, a command-line flag, and a
counter of the times it acted. They live here, in one place, as Scrapy keeps its download
settings in one table with a stats counter each:

* :data:`LIMITS` is the table (name, default, unit, what acts and what is counted); the command
  line (:mod:`crawlers.cli.webflags`) makes one flag per row and the book prints it;
* :class:`Policy` is a frozen dataclass of the limits' values with the table's defaults, plus a
  :class:`Counters` it carries, so that the fetcher (:mod:`crawlers.page.fetch`), the URL rules
  (:mod:`crawlers.page.rules`) and robots.txt (:mod:`crawlers.page.robots`) are each handed the
  one object and count into the same place.

A limit's counter has the limit's name and counts the times it acted: bodies cut for
``max_bytes``, links dropped for ``max_url_length``, robots.txt files cut for
``robots_max_bytes``, sites read as unreachable for ``robots_unreachable_seconds``, sites given
up after ``robots_retries``, fetches cut at the end of the crawl for ``stop_grace``, and so on
(:data:`LIMITS` says what acts). A few more counters are events of rules rather than numbers
(:data:`EVENTS`: ``off_scope``, ``bad_scheme``, ``odd_host``, ``session_id``,
``redirect_refused``, ...).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["EVENTS", "LIMITS", "MAY_BE_ZERO", "Counters", "Limit", "Policy"]


@dataclass(frozen=True)
class Limit:
    """One row of :data:`LIMITS`: the field of :class:`Policy` it sets, its unit, what the
    crawler does when it is reached and what the counter of the same name counts."""

    name: str
    unit: str
    acts: str

    @property
    def flag(self) -> str:
        """The command-line flag: ``--max-url-length`` for ``max_url_length``."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Policy:
    """The limits of one crawl (see the module docstring and :data:`LIMITS`).

    Immutable, so safe to share between threads and to pickle to BSP workers; the
    :class:`Counters` it carries are the only mutable part (thread-safe themselves). A worker
    process gets a copy of the counters as they were when the policy was pickled.
    """

    fetch_seconds: float = 30.0
    max_bytes: int = 2_000_000
    max_redirects: int = 5
    max_url_length: int = 2083
    max_path_depth: int = 16
    max_segment_repeats: int = 2
    max_query_params: int = 16
    max_query_length: int = 512
    max_pages_per_site: int = 5000
    robots_max_bytes: int = 512_000
    robots_fetch_seconds: float = 10.0
    robots_unreachable_seconds: float = 10.0
    robots_retries: int = 2
    max_crawl_delay: float = 60.0
    retry_after_cap: float = 30.0
    max_retries: int = 2
    stop_grace: float = 2.0
    counters: Counters = field(default_factory=lambda: Counters(), compare=False, repr=False)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name == "counters":
                continue
            value = getattr(self, f.name)
            kind = int if isinstance(f.default, int) else float
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{Limit(f.name, '', '').flag}: not a number: {value!r}")
            if kind is int and value != int(value):
                raise ValueError(f"{Limit(f.name, '', '').flag}: must be an integer, "
                                 f"got {value!r}")
            low = 0 if f.name in MAY_BE_ZERO else 1e-9
            if not value >= low:  # also refuses NaN
                bound = ">= 0" if low == 0 else "> 0"
                raise ValueError(f"{Limit(f.name, '', '').flag}: must be {bound}, "
                                 f"got {value!r}")

    def values(self) -> dict[str, Any]:
        """The limits' values by name (for the crawl's report)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "counters"}


#: Limits that may be 0 (no redirect, no retry, ...); the others must be positive.
MAY_BE_ZERO = frozenset({"max_redirects", "max_retries", "max_segment_repeats",
                          "max_query_params", "max_query_length", "robots_unreachable_seconds",
                          "robots_retries",
                          "retry_after_cap", "stop_grace"})

#: Every limit of :class:`Policy`, in the order of the book's table and ``--help``.
LIMITS: tuple[Limit, ...] = (
    Limit("fetch_seconds", "s", "a fetch (connection, headers, body, redirects) still running "
          "this long after it started is cut, however fast its bytes trickle in; the "
          "politeness waits before each hop and retry (a site's Crawl-delay, its Retry-After) "
          "are the crawl's, not the server's, and are not counted"),
    Limit("max_bytes", "bytes", "a body larger than this (declared, streamed, or once "
          "inflated from gzip/deflate) is cut and not parsed"),
    Limit("max_redirects", "hops", "a redirect chain longer than this is given up; a chain "
          "that comes back to a URL it passed is given up at once (counted as redirect_loop)"),
    Limit("max_url_length", "characters", "a longer link is dropped (Scrapy's URLLENGTH_LIMIT)"),
    Limit("max_path_depth", "segments", "a link whose path has more segments is dropped "
          "(Heritrix's max-path-depth: ever-deeper paths)"),
    Limit("max_segment_repeats", "times", "a link whose path repeats one segment more than "
          "this is dropped (Heritrix's path-repetition trap: /a/b/a/b/a/b)"),
    Limit("max_query_params", "parameters", "a link with more query parameters is dropped "
          "(ever-growing query strings)"),
    Limit("max_query_length", "characters", "a link with a longer query string is dropped"),
    Limit("max_pages_per_site", "URLs", "a site's URLs beyond this many (seeds, links and "
          "redirect targets, across resumed sessions) are dropped (Nutch's generate.max.count, "
          "BUbiNG's bound per site): calendars end here"),
    Limit("robots_max_bytes", "bytes", "robots.txt is read up to this size and the rest ignored "
          "(RFC 9309 asks for at least 500 KiB)"),
    Limit("robots_fetch_seconds", "s", "a robots.txt fetch still running this long is cut: the "
          "site is unreachable, so disallowed"),
    Limit("robots_unreachable_seconds", "s", "a site whose robots.txt answered 5xx or nothing "
          "is disallowed for this long, then asked again (RFC 9309 2.3.1.4); the threaded "
          "crawler puts the site's URLs off meanwhile"),
    Limit("robots_retries", "retries", "a site whose robots.txt stays unreachable is asked "
          "again at most this many times, then left alone for the rest of the crawl (the "
          "threaded crawler counts its URLs in robots_unreachable, not as pages)"),
    Limit("max_crawl_delay", "s", "a site whose robots.txt asks for a longer Crawl-delay is "
          "not crawled (its URLs count as disallowed): a delay is honoured or the site left "
          "alone, never shortened"),
    Limit("retry_after_cap", "s", "429/503 with Retry-After: the site is left alone for the "
          "time asked, at most this long; the URL is retried only if the wait fit in the cap"),
    Limit("max_retries", "retries", "a URL answered 429/503 is tried again at most this many "
          "times"),
    Limit("stop_grace", "s", "after --seconds or Ctrl-C, fetches still running are cut and the "
          "report is written within this long"),
)

#: Counted events that are rules rather than numbers (no flag).
EVENTS: dict[str, str] = {
    "off_scope": "links to a site outside the crawl's scope, dropped (never fetched)",
    "bad_scheme": "links that are not http(s) (mailto:, javascript:, ...), dropped",
    "odd_host": "links whose host is not plain ASCII but maps onto an IP address "
                "(fullwidth digits), dropped",
    "session_id": "links whose session id (jsessionid, PHPSESSID, sid, ...) was removed",
    "redirect_refused": "redirect hops refused by scope, URL rules, the crawl's visited set, "
                        "the site budget or robots.txt",
    "redirect_seen": "redirect hops to a URL the crawl had claimed already (fetched, or to be "
                     "fetched, on its own)",
    "redirect_loop": "redirect chains that came back to a URL they had passed",
    "retry_after": "429/503 answers whose Retry-After held the site back",
    "retries": "fetches tried again after a 429/503 answer",
    "resent_stale": "requests sent again because the kept-alive connection they went out on "
                    "was closed by the server before any answer (an idle close that raced them)",
    "robots_unparsable": "robots.txt files the parser gave up on: the site is disallowed",
    "parse_failed": "pages that could not be parsed (counted and skipped)",
    "parse_truncated": "pages nested deeper than the parser goes (2048 elements with lxml): "
                       "the links before that point kept, the ones after lost",
    "parse_crowded": "pages that may hold a tag of over 1,000 attributes (lxml's cost grows "
                     "with their square), parsed by BeautifulSoup instead: every link kept",
}


class Counters:
    """Named event counts shared by the parts of one crawl.

    ``add(name)`` is O(1) under a lock (increments from many threads are never lost);
    ``as_dict()`` is a consistent snapshot. Picklable: the copy gets its own lock.
    """

    def __init__(self, counts: dict[str, int] | None = None) -> None:
        self._lock = threading.Lock()  # protects _counts
        self._counts: Counter[str] = Counter(counts or {})

    def add(self, name: str, n: int = 1) -> None:
        """Count ``n`` more events ``name``."""
        with self._lock:
            self._counts[name] += n

    def get(self, name: str) -> int:
        """The count of ``name`` (0 if never counted)."""
        with self._lock:
            return self._counts[name]

    def as_dict(self) -> dict[str, int]:
        """Every limit and event with its count (0 included), then any other name counted."""
        with self._lock:
            counts = dict(self._counts)
        out = {limit.name: counts.pop(limit.name, 0) for limit in LIMITS}
        out.update({name: counts.pop(name, 0) for name in EVENTS})
        out.update(sorted(counts.items()))
        return out

    def take(self) -> dict[str, int]:
        """The non-zero counts, then reset them (a BSP worker's counts per superstep)."""
        with self._lock:
            counts = {k: v for k, v in self._counts.items() if v}
            self._counts.clear()
        return counts

    def merge(self, counts: dict[str, int]) -> None:
        """Add ``counts`` (another part's :meth:`take`)."""
        with self._lock:
            self._counts.update(counts)

    def __getstate__(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state)

    def __repr__(self) -> str:
        return f"Counters({dict(self._counts)})"
