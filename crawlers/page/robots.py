"""robots.txt and politeness: what a crawler may fetch from a site, and when.

Both work per *site* (``host:port``, :func:`crawlers.page.urls.site_of`). :class:`RobotsCache`
reads robots.txt through any :class:`~crawlers.page.fetch.Fetcher`; :class:`Politeness` spaces
the requests to one site on a :class:`~crawlers.page.clock.Clock`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from protego import Protego

from crawlers.page.clock import Clock, RealClock
from crawlers.page.fetch import Fetcher
from crawlers.page.policy import Policy
from crawlers.page.urls import origin_of, site_of

__all__ = ["Politeness", "Refusal", "RobotsCache"]


class _Rules:
    """One site's robots.txt: everything allowed (``rules is None and allow``), nothing
    allowed, or the rules as :mod:`protego` parses them (RFC 9309: the most specific, that is
    longest, matching rule wins, ``*`` and ``$`` are wildcards, the groups naming one user
    agent are merged, a group applies only to the agent it names, lines it cannot read are
    ignored). Immutable once made, hence thread-safe; ``can_fetch`` is O(rules)."""

    __slots__ = ("rules", "allow")

    def __init__(self, allow: bool, rules: Protego | None = None) -> None:
        self.rules, self.allow = rules, allow

    def can_fetch(self, url: str, agent: str) -> bool:
        return self.allow if self.rules is None else self.rules.can_fetch(url, agent)

    def crawl_delay(self, agent: str) -> float | None:
        return None if self.rules is None else self.rules.crawl_delay(agent)


_DISALLOW_ALL = _Rules(allow=False)
_UNREACHABLE = _Rules(allow=False)  # the same rules; the site's robots.txt did not answer
_CUT = _Rules(allow=False)  # the same rules; the crawl's stop cut the robots.txt fetch


@dataclass(frozen=True)
class Refusal:
    """Why :meth:`RobotsCache.check` refused a URL. Falsy, so that ``if not check(url)`` reads
    as ``if not allowed(url)`` does.

    ``counter``: ``"robots_refused"`` (the rules disallow the URL, the site asks for a
    Crawl-delay past ``policy.max_crawl_delay``, or its robots.txt could not be parsed),
    ``"robots_unreachable"`` (its robots.txt answered 5xx or nothing) or ``"robots_cut"``
    (the crawl's stop cut its robots.txt fetch: no answer, so a fetch cut, not a refusal).
    ``retry_in``: for an unreachable site still within ``policy.robots_retries``, the seconds
    until its robots.txt may be asked again (the URL is to be put off, not given up);
    ``None``: final."""

    counter: str
    retry_in: float | None = None

    def __bool__(self) -> bool:
        return False


class _RobotsEntry:
    __slots__ = ("ready", "parser", "expires", "failures")

    def __init__(self, failures: int = 0) -> None:
        self.ready = threading.Event()  # set once ``parser`` and ``expires`` are final
        self.parser: _Rules | None = None
        # when to ask again (an unreachable robots.txt within its retries only; None: never)
        self.expires: float | None = None
        self.failures = failures  # unreachable answers in a row, this one included


class RobotsCache:
    """robots.txt rules per site, fetched once through a fetcher and cached.

    Works with any object that has ``fetch_text(url) -> (status, text)`` (both the real
    and the simulated fetcher), so the simulated web obeys the same rules as the served
    one. What each answer means (RFC 9309, section 2.3.1):

    * 2xx: the rules are parsed (the fetcher reads at most ``policy.robots_max_bytes`` of them,
      at least the 500 KiB the RFC asks for, so a huge file whose rules come first works;
      a byte-order mark is skipped); a file the parser gives up on (it has not happened with
      :mod:`protego`, which ignores the lines it cannot read, but the web is the web) leaves
      the site disallowed, counted as ``robots_unparsable``, and never ends the crawl;
    * 4xx but 429: there are no rules, everything is allowed;
    * 429 (Too Many Requests: the server is there but will not answer now, as Google reads
      it), 5xx, no answer, or no answer within ``policy.robots_fetch_seconds`` (a robots.txt that
      drips one byte a second): the site is *unreachable* and everything is disallowed, for
      ``policy.robots_unreachable_seconds``; after that the next URL of the site asks again,
      at most ``policy.robots_retries`` times: then the site stays unreachable for the rest of
      the crawl. Each unreachable answer is counted as ``robots_unreachable_seconds``, each
      site given up as ``robots_retries``.

    :meth:`allowed` says yes or no; :meth:`check` says why not (a :class:`Refusal`), and for a
    site that may still answer, when to ask again: a crawler puts that site's URLs off until
    then instead of dropping them (RFC 9309 2.3.1.4: assume complete disallow, try later).

    Thread-safe: a lock guards the table; the first thread that needs a site's rules
    fetches them, the others wait on that entry's event (no duplicate fetches, no lock
    held during I/O). ``allowed`` is O(rules of the site) after the first call.
    """

    def __init__(self, fetcher: Fetcher, user_agent: str = "crawlab",
                 policy: Policy | None = None, clock: Clock | None = None) -> None:
        self.fetcher = fetcher
        self.user_agent = user_agent
        self.policy = policy or getattr(fetcher, "policy", None) or Policy()
        self.clock: Clock = clock if clock is not None else RealClock()
        self._lock = threading.Lock()  # protects _entries (the dict, not the parsers)
        self._entries: dict[str, _RobotsEntry] = {}

    def _entry(self, url: str) -> _RobotsEntry:
        """The URL's site's entry, its rules ready (fetched now if need be)."""
        site = site_of(url)
        with self._lock:
            entry = self._entries.get(site)
            failures = 0
            if (entry is not None and entry.ready.is_set() and entry.expires is not None
                    and self.clock.now() >= entry.expires):
                failures = entry.failures
                entry = None  # unreachable for long enough: ask again
            owner = entry is None
            if owner:
                entry = self._entries[site] = _RobotsEntry(failures)
        assert entry is not None
        if owner:
            try:
                entry.parser = self._load(origin_of(url) + "/robots.txt", entry)
            finally:
                if entry.parser is None:  # _load raised: be conservative
                    entry.parser = _DISALLOW_ALL
                entry.ready.set()
        else:
            entry.ready.wait()
        assert entry.parser is not None
        return entry

    def _parser(self, url: str) -> _Rules:
        parser = self._entry(url).parser
        assert parser is not None
        return parser

    def _load(self, robots_url: str, entry: _RobotsEntry) -> _Rules:
        status, text = self.fetcher.fetch_text(robots_url)
        if status is None and getattr(self.fetcher, "stopped", False):
            entry.expires = self.clock.now()  # cut by the crawl's stop: no answer, not counted
            return _CUT  # as unreachable; whoever asks next (a resumed crawl) asks again
        if status is None or status >= 500 or status == 429:
            self.policy.counters.add("robots_unreachable_seconds")
            entry.failures += 1
            if entry.failures > self.policy.robots_retries:
                self.policy.counters.add("robots_retries")  # given up: never asked again
            else:
                entry.expires = self.clock.now() + self.policy.robots_unreachable_seconds
            return _UNREACHABLE
        if status >= 400:
            return _Rules(allow=True)
        try:
            return _Rules(allow=False, rules=Protego.parse(text.removeprefix("\ufeff")))
        except Exception:  # noqa: BLE001 - whatever a file makes the parser raise
            self.policy.counters.add("robots_unparsable")
            return _DISALLOW_ALL

    def allowed(self, url: str) -> bool:
        """True if robots.txt of the URL's site lets our user agent fetch ``url``: its rules
        allow it, and its ``Crawl-delay`` is at most ``policy.max_crawl_delay`` (a longer one
        refuses every URL of the site, counted as ``max_crawl_delay``)."""
        return self.check(url) is True

    def check(self, url: str) -> bool | Refusal:
        """``True`` if :meth:`allowed`, else the :class:`Refusal` that says why, and, for a site
        whose robots.txt did not answer but may be asked again, in how many seconds."""
        entry = self._entry(url)
        parser = entry.parser
        assert parser is not None
        if parser is _CUT:
            return Refusal("robots_cut")
        if parser is _UNREACHABLE:
            expires = entry.expires
            return Refusal("robots_unreachable", None if expires is None
                           else max(0.0, expires - self.clock.now()))
        if not parser.can_fetch(url, self.user_agent):
            return Refusal("robots_refused")
        asked = parser.crawl_delay(self.user_agent)
        if asked is not None and not float(asked) <= self.policy.max_crawl_delay:
            self.policy.counters.add("max_crawl_delay")
            return Refusal("robots_refused")
        return True

    def crawl_delay(self, url: str) -> float | None:
        """The ``Crawl-delay`` of the URL's site for our user agent, if any (seconds, a
        fraction allowed), at most ``policy.max_crawl_delay`` (:meth:`allowed` refuses the
        sites that ask for more)."""
        delay = self._parser(url).crawl_delay(self.user_agent)
        return None if delay is None else min(float(delay), self.policy.max_crawl_delay)

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

    ``hold(url, seconds)`` keeps the site free of requests for ``seconds`` from now (a
    ``Retry-After``). ``stop()`` ends every wait at once and every later one (the crawl is
    over); with a :class:`~crawlers.page.clock.RealClock` the waits are on an event for that,
    other clocks sleep their own way.

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
        self._stopped = threading.Event()  # set by stop(): no more waiting

    def stop(self) -> None:
        """End every wait now and make later ones return at once."""
        self._stopped.set()

    def hold(self, url: str, seconds: float) -> None:
        """No request to ``url``'s site for ``seconds`` from now (a Retry-After)."""
        site = site_of(url)
        with self._lock:
            until = self.clock.now() + seconds
            self._next_free[site] = max(self._next_free.get(site, 0.0), until)

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
        if seconds <= 0 or self._stopped.is_set():
            return 0.0
        if type(self.clock) is RealClock:
            self._stopped.wait(seconds)
        else:
            self.clock.sleep(seconds)
        return seconds
