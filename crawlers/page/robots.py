"""robots.txt and politeness: what a crawler may fetch from a site, and when.

Both work per *site* (``host:port``, :func:`crawlers.page.urls.site_of`). :class:`RobotsCache`
reads robots.txt through any :class:`~crawlers.page.fetch.Fetcher`; :class:`Politeness` spaces
the requests to one site on a :class:`~crawlers.page.clock.Clock`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.robotparser import RobotFileParser

from crawlers.page.clock import Clock, RealClock
from crawlers.page.fetch import Fetcher
from crawlers.page.urls import origin_of, site_of

__all__ = ["Politeness", "RobotsCache"]


class _RobotsEntry:
    __slots__ = ("ready", "parser")

    def __init__(self) -> None:
        self.ready = threading.Event()  # set once ``parser`` is final
        self.parser: RobotFileParser | None = None


class RobotsCache:
    """robots.txt rules per site, fetched once through a fetcher and cached.

    Works with any object that has ``fetch_text(url) -> (status, text)`` (both the real
    and the simulated fetcher), so the simulated web obeys the same rules as the served
    one. Interpretation follows RFC 9309: 2xx -> parse; 4xx -> everything allowed;
    5xx or no answer -> everything disallowed (the site is treated as unreachable).

    Thread-safe: a lock guards the table; the first thread that needs a site's rules
    fetches them, the others wait on that entry's event (no duplicate fetches, no lock
    held during I/O). ``allowed`` is O(rules of the site) after the first call.
    """

    def __init__(self, fetcher: Fetcher, user_agent: str = "crawlab") -> None:
        self.fetcher = fetcher
        self.user_agent = user_agent
        self._lock = threading.Lock()  # protects _entries (the dict, not the parsers)
        self._entries: dict[str, _RobotsEntry] = {}

    def _parser(self, url: str) -> RobotFileParser:
        site = site_of(url)
        with self._lock:
            entry = self._entries.get(site)
            owner = entry is None
            if owner:
                entry = self._entries[site] = _RobotsEntry()
        assert entry is not None
        if owner:
            try:
                entry.parser = self._load(origin_of(url) + "/robots.txt")
            finally:
                if entry.parser is None:  # _load raised: be conservative
                    entry.parser = RobotFileParser()
                    entry.parser.disallow_all = True
                entry.ready.set()
        else:
            entry.ready.wait()
        assert entry.parser is not None
        return entry.parser

    def _load(self, robots_url: str) -> RobotFileParser:
        parser = RobotFileParser(robots_url)
        status, text = self.fetcher.fetch_text(robots_url)
        if status is None or status >= 500:
            parser.disallow_all = True
        elif status >= 400:
            parser.allow_all = True
        else:
            parser.parse(text.splitlines())
        return parser

    def allowed(self, url: str) -> bool:
        """True if robots.txt of the URL's site lets our user agent fetch ``url``."""
        return self._parser(url).can_fetch(self.user_agent, url)

    def crawl_delay(self, url: str) -> float | None:
        """The ``Crawl-delay`` of the URL's site for our user agent, if any (whole seconds
        only: that is all ``urllib.robotparser`` understands)."""
        delay = self._parser(url).crawl_delay(self.user_agent)
        return None if delay is None else float(delay)

    def __len__(self) -> int:
        """Number of sites whose rules are cached or being fetched (approximate)."""
        return len(self._entries)


class Politeness:
    """A minimum delay between the starts of two requests to the same site.

    ``reserve(url)`` books the site's next free slot and returns how long the caller must
    wait before fetching; ``wait(url)`` books and sleeps. Slots are booked in call order,
    so N threads hitting one site are spaced ``delay`` apart instead of all waking at once.

    ``site_delay(url)``, if given, is asked once per site for the site's own delay (e.g.
    :meth:`RobotsCache.crawl_delay`); the site then gets the larger of it and ``delay``, so a
    ``Crawl-delay`` in robots.txt is honoured even with ``delay == 0``.

    Thread-safe: a lock protects the table of next free slots and is never held while
    sleeping or asking ``site_delay``. O(1) per call. ``delay == 0`` and no site delay: no wait.
    """

    def __init__(self, delay: float, clock: Clock | None = None,
                 site_delay: Callable[[str], float | None] | None = None) -> None:
        if delay < 0:
            raise ValueError("politeness delay must be >= 0")
        self.delay = delay
        self.clock: Clock = clock if clock is not None else RealClock()
        self.site_delay = site_delay
        self._lock = threading.Lock()  # protects _next_free and _delays
        self._next_free: dict[str, float] = {}
        self._delays: dict[str, float] = {}

    def set_delay(self, site: str, delay: float) -> None:
        """Use ``delay`` for ``site`` (e.g. its robots.txt ``Crawl-delay``)."""
        with self._lock:
            self._delays[site] = delay

    def ready_in(self, url: str) -> float:
        """Seconds until ``url``'s site is free, without booking (may be stale at once)."""
        site = site_of(url)
        with self._lock:
            return max(0.0, self._next_free.get(site, 0.0) - self.clock.now())

    def reserve(self, url: str) -> float:
        """Book the next free slot of ``url``'s site; return the seconds to wait for it."""
        site = site_of(url)
        if self.site_delay is not None and site not in self._delays:
            own = self.site_delay(url)  # outside the lock: it may fetch robots.txt
            with self._lock:
                self._delays.setdefault(site, max(self.delay, own or 0.0))
        with self._lock:
            now = self.clock.now()
            start = max(now, self._next_free.get(site, now))
            self._next_free[site] = start + self._delays.get(site, self.delay)
        return start - now

    def wait(self, url: str) -> float:
        """Book a slot and sleep until it starts; return the seconds waited."""
        seconds = self.reserve(url)
        self.clock.sleep(seconds)
        return seconds
