"""Which links a crawl follows: a sequence of small URL rules, and the gate every URL passes.

:class:`UrlRules` decides the fate of one normalized URL the way Heritrix's decide rules do,
one small rule after the other, the first that rejects wins:

1. *scope*: the URL's site must be one the crawl allows (``off_scope``);
2. *length*: at most ``max_url_length`` characters (``max_url_length``);
3. *path depth*: at most ``max_path_depth`` segments (``max_path_depth``);
4. *repeating segments*: no segment more than ``max_segment_repeats`` times (``/a/b/a/b/a``);
5. *query*: at most ``max_query_params`` parameters and ``max_query_length`` characters;
6. *session ids* are not a reason to reject: they are removed (``jsessionid``, ``PHPSESSID``,
   ``sid`` ... with an id-looking value), so that one page under many session ids is one URL.

Each rejection is counted under the limit's name in the policy's counters. A site's page budget
(``max_pages_per_site``) is a separate, stateful step, :meth:`UrlRules.claim_site`, taken once per
new URL (after the crawl's visited set said it is new: a seed, a link, a redirect's target), so
that the same link seen twice counts once. Once a site's budget is spent, :meth:`UrlRules.admit`
drops its links before the visited set sees them (counted each time): a site that links
millions of new URLs costs the crawl's memory its budget, not its links. The counts live in
memory for one crawl session; a resumed crawl counts again what its journal holds (its pages
and its frontier), so the budget holds across sessions.

:class:`LinkGate` is what a fetcher asks before a redirect hop or a retry
(:class:`crawlers.page.fetch.Gate`): the same rules, the site budget, robots.txt and politeness as
a link gets, so a redirect into a disallowed path or to another site whose robots.txt forbids it
is not fetched; a redirect's target is a new URL, so it also claims its site's budget and, once
the crawl gives the gate its visited set (``claim``), the URL itself: a page many redirects lead
to is fetched once.

Thread-safety: the rules are pure except the per-site counts (a lock); the gate's parts are
thread-safe. Cost: O(len(url)) per URL.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit, urlunsplit

from crawlers.page import faults
from crawlers.page.policy import Policy
from crawlers.page.robots import Politeness, RobotsCache
from crawlers.page.urls import Scope, site_of

__all__ = ["LinkGate", "UrlRules", "strip_session_ids"]

#: Query keys (lowercase) that carry a session id when their value looks like one.
SESSION_KEYS = frozenset({"jsessionid", "phpsessid", "sid", "sessionid", "session_id",
                          "aspsessionid", "cfid", "cftoken", "sess_id", "zenid"})
_ID_VALUE = re.compile(r"[0-9A-Za-z_-]{8,}")
_PATH_SESSION = re.compile(r";(?:jsessionid|phpsessid|sid)=[^/?#;]*", re.IGNORECASE)


def strip_session_ids(url: str) -> str:
    """``url`` without session ids: ``;jsessionid=...`` path parameters, and query parameters
    whose key is in :data:`SESSION_KEYS` and whose value looks like an id (8 or more letters,
    digits, ``-`` or ``_``). O(len(url)); pure.

    >>> strip_session_ids("http://a.test/p;jsessionid=ABC123DEF?x=1&sid=0123456789abcdef")
    'http://a.test/p?x=1'
    >>> strip_session_ids("http://a.test/search?sid=7")  # too short to be a session id
    'http://a.test/search?sid=7'
    """
    parts = urlsplit(url)
    path = _PATH_SESSION.sub("", parts.path) if ";" in parts.path else parts.path
    query = parts.query
    if query:
        kept = []
        for pair in query.split("&"):
            key, _, value = pair.partition("=")
            if key.lower() in SESSION_KEYS and _ID_VALUE.fullmatch(value):
                continue
            kept.append(pair)
        query = "&".join(kept)
    if path == parts.path and query == parts.query:
        return url
    return urlunsplit((parts.scheme, parts.netloc, path or "/", query, ""))


class UrlRules:
    """The URL rules of one crawl (see the module docstring) under ``policy``; ``scope`` is
    any container of URLs (``None``: every site)."""

    def __init__(self, policy: Policy, scope: Scope | None = None) -> None:
        self.policy = policy
        self.counters = policy.counters
        self.scope = scope
        self._lock = threading.Lock()  # protects _per_site and _spent's writes
        self._per_site: dict[str, int] = {}  # site -> URLs claimed on it
        self._spent: set[str] = set()  # sites whose budget is spent (read without the lock)

    def reason(self, url: str) -> str | None:
        """The name of the first rule that rejects ``url`` (normalized), or None. Pure."""
        p = self.policy
        if self.scope is not None and url not in self.scope:
            return "off_scope"
        if len(url) > p.max_url_length:
            return "max_url_length"
        parts = urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        if len(segments) > p.max_path_depth:
            return "max_path_depth"
        if len(segments) > p.max_segment_repeats:
            seen: dict[str, int] = {}
            for s in segments:
                seen[s] = seen.get(s, 0) + 1
                if seen[s] > p.max_segment_repeats:
                    return "max_segment_repeats"
        if parts.query:
            if len(parts.query) > p.max_query_length:
                return "max_query_length"
            if parts.query.count("&") + 1 > p.max_query_params:
                return "max_query_params"
        return None

    def check(self, url: str) -> str | None:
        """``url`` without its session ids if every rule accepts it, else None (counted)."""
        clean = strip_session_ids(url)
        if clean != url:
            self.counters.add("session_id")
        why = self.reason(clean)
        if why is not None:
            self.counters.add(why)
            return None
        return clean

    def admit(self, links: Iterable[str]) -> list[str]:
        """The links every rule accepts, cleaned, duplicates removed, in order, without those
        of a site whose budget is spent (counted ``max_pages_per_site``, each time)."""
        kept: dict[str, None] = {}
        spent = self._spent
        for link in links:
            clean = self.check(link)
            if clean is not None:
                kept.setdefault(clean, None)
        if not spent:
            return list(kept)
        out = [u for u in kept if site_of(u) not in spent]
        if len(out) < len(kept):
            self.counters.add("max_pages_per_site", len(kept) - len(out))
        return out

    def site_counts(self) -> dict[str, int]:
        """A copy of the URLs claimed per site so far (:meth:`claim_site`), for a journal."""
        with self._lock:
            return dict(self._per_site)

    def restore_site_counts(self, counts: dict[str, int]) -> None:
        """Take up :meth:`site_counts` of an earlier session: the budgets it spent stay
        spent."""
        cap = self.policy.max_pages_per_site
        with self._lock:
            self._per_site = dict(counts)
            self._spent = {site for site, n in counts.items() if n >= cap}

    def claim_site(self, url: str) -> bool:
        """Count one more URL on ``url``'s site; False (counted) once the site had
        ``max_pages_per_site``."""
        site = site_of(url)
        with self._lock:
            n = self._per_site.get(site, 0)
            if n >= self.policy.max_pages_per_site:
                over = True
            else:
                self._per_site[site] = n + 1
                over = False
                if n + 1 >= self.policy.max_pages_per_site:
                    self._spent = self._spent | {site}  # a new set: readers never see it grow
        if over:
            self.counters.add("max_pages_per_site")
        return not over


class LinkGate:
    """What a fetcher asks before a redirect hop or a retry (:class:`crawlers.page.fetch.Gate`):
    ``rules``, then robots.txt (``robots``, optional), then a politeness wait (``politeness``,
    optional). Thread-safe."""

    def __init__(self, rules: UrlRules, robots: RobotsCache | None = None,
                 politeness: Politeness | None = None) -> None:
        self.rules = rules
        self.robots = robots
        self.politeness = politeness
        #: The crawl's visited set's claim (True: the URL is new, now the caller's), given by
        #: the crawl that uses this gate; None: redirect targets are not deduplicated.
        self.claim: Callable[[str], bool] | None = None

    def hop(self, url: str, new: bool = False) -> tuple[str | None, str | None]:
        """``(url, None)`` once the URL may be fetched (politeness waited), or
        ``(None, error_kind)``: ``off-scope``, ``url-rule`` or ``robots``; then, for a ``new``
        URL (a redirect's target, not a retry), ``redirect-seen`` when the crawl has claimed
        it already, ``site-budget`` when its site's budget is spent (a target robots.txt
        refuses is claimed by neither: a link to it is refused, and counted, as any)."""
        clean = strip_session_ids(url)
        why = self.rules.reason(clean)
        if why is not None:
            self.rules.counters.add(why)
            return None, faults.OFF_SCOPE if why == "off_scope" else faults.URL_RULE
        if self.robots is not None and not self.robots.allowed(clean):
            return None, faults.ROBOTS  # not claimed: a link to it is refused (and counted) too
        if new and self.claim is not None and not self.claim(clean):
            self.rules.counters.add("redirect_seen")
            return None, faults.REDIRECT_SEEN
        if new and not self.rules.claim_site(clean):
            return None, faults.SITE_BUDGET
        if self.politeness is not None:
            self.politeness.wait(clean)
        return clean, None

    def hold(self, url: str, seconds: float) -> None:
        """Leave ``url``'s site alone for ``seconds`` (its Retry-After)."""
        if self.politeness is not None:
            self.politeness.hold(url, seconds)

    def stop(self) -> None:
        """The crawl is over: end every politeness wait."""
        if self.politeness is not None:
            self.politeness.stop()
