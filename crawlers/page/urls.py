"""URLs of the crawl: normalization, sites and scope (robots.txt and politeness are in
:mod:`crawlers.page.robots`).

Invariant kept by every crawler component: **a URL that enters a frontier, a seen-set or an
edge list went through** :func:`normalize` **once**. Two spellings of the same resource then
compare equal as strings, which is what the frontier's duplicate detection relies on.

A *site* is ``host:port`` (:func:`site_of`): on the served lab web every site is one
127.0.0.1 port, and politeness, robots.txt and scope all work per site.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

#: Schemes a crawler fetches; every other scheme (mailto, javascript, data, file, ftp,
#: tel, ...) is rejected by :func:`normalize`.
FETCHABLE_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

_WHITESPACE = str.maketrans("", "", "\t\n\r")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
)
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
#: A host made of digits, dots and hex markers only: an IP address in some spelling.
_LOOKS_NUMERIC = re.compile(r"[0-9.x]+", re.IGNORECASE)
_QUERY_SAFE = _PATH_SAFE + "?"


def _fix_percent(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4 for an absolute path: ``/a/./b/../c`` -> ``/a/c``."""
    if "." not in path:
        return path
    segments = path.split("/")
    out: list[str] = []
    for segment in segments:
        if segment == ".":
            continue
        if segment == "..":
            if len(out) > 1:
                out.pop()
            continue
        out.append(segment)
    if segments[-1] in (".", ".."):
        out.append("")
    return "/".join(out) or "/"


def _join(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986 5.2). :func:`urllib.parse.urljoin`, but a
    reference of only a fragment or a query keeps the base's path as it is: urljoin drops an
    empty ``;`` parameter there (``#`` against ``http://h/a;`` gave ``http://h/a``, the page's
    own link a different URL from the page; found by the property test of the extractor)."""
    if not ref or ref[0] in "#?":
        kept = base.split("#", 1)[0]
        return kept if ref[:1] != "?" else kept.split("?", 1)[0] + ref
    return urljoin(base, ref)


def normalize(url: str, base: str | None = None) -> str | None:
    """The canonical absolute form of ``url`` (resolved against ``base``), or None.

    Resolves relative references, lowercases scheme and host, drops the default port,
    the fragment, user info and an empty query, removes dot segments, upper-cases
    percent-escapes and decodes escaped unreserved characters, and percent-encodes
    characters that may not appear in a URL. Returns None for non-http(s) schemes
    (``mailto:``, ``javascript:``, ``data:``, ``file:``, ...), a missing host, a bad port,
    a non-ASCII host that IDNA would turn into an IP address (``１２７.０.０.１`` in fullwidth
    digits: a browser goes to 127.0.0.1, a crawler should not be led there unawares), or other
    garbage. Idempotent: ``normalize(normalize(u)) == normalize(u)``.

    O(len(url)); pure, hence thread-safe.

    >>> normalize("HTTP://Example.COM:80/a/./b/../c#frag")
    'http://example.com/a/c'
    >>> normalize("../x.html?q=1", "http://h:8000/d/e/f.html")
    'http://h:8000/d/x.html?q=1'
    >>> normalize("mailto:someone@example.com") is None
    True
    """
    if not isinstance(url, str):
        return None
    url = url.strip().translate(_WHITESPACE)
    try:
        if base is not None:
            url = _join(base, url)
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in FETCHABLE_SCHEMES:
            return None
        host = parts.hostname  # lowercased, brackets of IPv6 removed
        port = parts.port  # ValueError when not a number in range
    except ValueError:
        return None
    if not host:
        return None
    host = host.rstrip(".")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
        if _LOOKS_NUMERIC.fullmatch(host):
            return None  # fullwidth digits that would quietly become an IP address
    if ":" in host:
        host = f"[{host}]"
    elif not host or any(c in host for c in " /\\%@"):
        return None
    netloc = host if port is None or port == DEFAULT_PORTS[scheme] else f"{host}:{port}"
    path = _PERCENT.sub(_fix_percent, parts.path)
    path = _remove_dot_segments(quote(path, safe=_PATH_SAFE)) if path else "/"
    if not path.startswith("/"):
        path = "/" + path
    query = quote(_PERCENT.sub(_fix_percent, parts.query), safe=_QUERY_SAFE)
    return urlunsplit((scheme, netloc, path, query, ""))


def site_of(url: str) -> str:
    """The site of an absolute http(s) URL: ``host:port`` with the port always written.

    ``site_of("http://Site3.crawlab.test/p1.html") == "site3.crawlab.test:80"``.
    Raises ValueError for a URL without an http(s) scheme or a host. O(len(url));
    thread-safe.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in FETCHABLE_SCHEMES or not host:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    port = parts.port or DEFAULT_PORTS[scheme]
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}"


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a normalized URL (where ``/robots.txt`` lives)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


#: ``scheme://authority`` of a URL that :func:`urllib.parse.urlsplit` splits right there:
#: lowercase http(s), then no character it would remove (tab, CR, LF) before the path.
_PLAIN_ORIGIN = re.compile(r"https?://[^/?#\t\r\n]*(?=[/?#]|\Z)")


class Scope:
    """Which URLs a crawl may follow: by default only those on the seed sites.

    ``Scope(seeds)`` keeps the sites of the seeds; ``extra_sites`` adds sites
    (``host:port``); ``anywhere=True`` accepts every fetchable URL. ``url in scope`` is
    O(len(url)); the answer depends only on the URL's scheme and authority, so it is
    remembered per ``scheme://authority`` prefix (:data:`_PLAIN_ORIGIN`, at most
    ``memo_size`` of them): a page's links are mostly on a few sites, and parsing each one
    again cost more than the rest of the crawl loop.

    The memo is two frozensets (prefixes in scope, prefixes out), replaced whole when a new
    prefix is learnt (copy on write, under ``_learn_lock``); a reader only tests membership
    in whichever frozenset it finds, so it takes no lock. A dict memo was slower by far on a
    free-threaded build: there, every robot reading one dict shared by all, with a key string
    it has just built, took the dict's lock (measured with ``perf``: ``sched_yield`` in the
    dict lookup under ``Scope.__contains__``); an immutable frozenset is read without one.
    Thread-safe.
    """

    memo_size = 4096

    def __init__(
        self, seeds: Iterable[str], *, extra_sites: Iterable[str] = (), anywhere: bool = False
    ) -> None:
        sites = set(extra_sites)
        for seed in seeds:
            sites.add(site_of(seed))
        self.sites: frozenset[str] = frozenset(sites)
        self.anywhere = anywhere
        self._inside: frozenset[str] = frozenset()  # scheme://authority prefixes in scope
        self._outside: frozenset[str] = frozenset()  # ... and out of it
        self._learn_lock = threading.Lock()  # guards the replacement of the two memos

    def _site_in(self, url: str) -> bool:
        try:
            return site_of(url) in self.sites
        except ValueError:
            return False

    def __contains__(self, url: str) -> bool:
        if self.anywhere:
            return True
        match = _PLAIN_ORIGIN.match(url) if isinstance(url, str) else None
        if match is None:
            return self._site_in(url)
        origin = match.group()
        if origin in self._inside:
            return True
        if origin in self._outside:
            return False
        known = self._site_in(url)
        with self._learn_lock:
            if len(self._inside) + len(self._outside) < self.memo_size:
                if known:
                    self._inside = self._inside | {origin}
                else:
                    self._outside = self._outside | {origin}
        return known

    def allows(self, url: str) -> bool:
        """Same as ``url in scope``."""
        return url in self

    def __repr__(self) -> str:
        return f"Scope({len(self.sites)} sites, anywhere={self.anywhere})"
