"""Link extractors: from an HTML body to the absolute, normalized links it contains.

An extractor is a function ``(body: bytes, url: str) -> list[str]`` returning the
``href`` of every ``<a>`` and ``<area>``, resolved against the document URL or its
``<base href>``, passed through :func:`crawlers.urls.normalize` (rejected schemes
dropped) and deduplicated in page order. It raises :class:`MalformedPage` when the body
is not an HTML document at all (empty, or binary: NUL bytes); sloppy HTML is not an
error, both parsers repair it the way browsers do.

Why two extractors (measured in ``labs/lab_extractors.py``):

* ``lxml`` (default) parses the whole page in C and then reads the few ``href``
  attributes. lxml releases the GIL while it parses, but only with a parser the thread does
  not share: ``lxml.html``'s module-level default parser is one object for every thread, and
  with it two robots never parse at once (measured: 16 threads parsed no faster than one).
  So each thread gets its own parser (:func:`_thread_parser`), and parsing runs on every core.
* ``bs4`` (BeautifulSoup on the lxml tree builder) calls back into Python for every start
  tag, end tag and text node, re-taking the GIL each time: with many threads it convoys.
  It is kept for :func:`page_info`, where its API pays, and as ``--parser bs4`` so a lab
  can show the convoy.

All functions here are thread-safe: the only shared state is the LRU cache of
:func:`resolve_links` (``functools.lru_cache`` is thread-safe) and one parser per thread.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from crawlers.urls import normalize

Extractor = Callable[[bytes, str], list[str]]

#: Elements whose ``href`` is a link to follow (same choice as Scrapy's LinkExtractor).
LINK_TAGS = ("a", "area")
_SNIFF_BYTES = 1024


class MalformedPage(ValueError):
    """The body is not an HTML document (empty, or binary content)."""


def check_html(body: bytes) -> None:
    """Raise :class:`MalformedPage` if ``body`` is empty/blank or has a NUL byte in its
    first KiB (how browsers sniff binary content). O(1 KiB)."""
    if not body.strip():
        raise MalformedPage("empty document")
    if b"\x00" in body[:_SNIFF_BYTES]:
        raise MalformedPage("binary content")


@functools.lru_cache(maxsize=1 << 16)
def _normalize_cached(href: str, base: str) -> str | None:
    return normalize(href, base)


def clear_cache() -> None:
    """Forget the normalized links of earlier pages (labs call it so each crawl starts cold)."""
    _normalize_cached.cache_clear()


def _directory_of(base: str) -> str | None:
    """``base`` up to its last ``/`` when that is a directory every relative reference
    (other than an empty one, a query or a fragment) resolves against alike (RFC 3986 5.2.3);
    None when ``base`` has a query or fragment, or no path."""
    if "?" in base or "#" in base or base.count("/") < 3:
        return None
    return base[: base.rfind("/") + 1]


def resolve_links(hrefs: Iterable[str | None], url: str, base_href: str | None) -> list[str]:
    """Normalize ``hrefs`` against the page URL (or its ``<base href>``), drop rejected
    ones, deduplicate keeping first occurrences. O(total length).

    Pages repeat the same hrefs (navigation bars, indexes): each distinct href is normalized
    once per page, and against the page's directory rather than the page itself where that
    gives the same answer, so a bounded LRU cache serves every page of a directory. The cache
    is thread-safe (``functools.lru_cache``).
    """
    base = url
    if base_href:
        base = normalize(base_href, url) or url
    directory = _directory_of(base)
    seen: dict[str, None] = {}
    for href in dict.fromkeys(hrefs):
        if href is None:
            continue
        stripped = href.strip()
        against = directory if directory and stripped and stripped[0] not in "?#" else base
        link = _normalize_cached(href, against)
        if link is not None:
            seen.setdefault(link, None)
    return list(seen)


_per_thread = threading.local()


def _thread_parser() -> lxml.html.HTMLParser:
    """This thread's own HTML parser (made on first use), so lxml can parse without the GIL."""
    parser = getattr(_per_thread, "parser", None)
    if parser is None:
        parser = _per_thread.parser = lxml.html.HTMLParser(collect_ids=False)
    return parser


def extract_lxml(body: bytes, url: str) -> list[str]:
    """Links of ``body`` with one ``lxml.html`` parse in C, then the hrefs. O(len(body))."""
    check_html(body)
    try:
        root = lxml.html.document_fromstring(body, parser=_thread_parser())
    except (lxml.etree.ParserError, ValueError) as exc:
        raise MalformedPage(str(exc)) from None
    base_href = None
    for base in root.iter("base"):
        base_href = base.get("href")
        if base_href:
            break
    return resolve_links((el.get("href") for el in root.iter(*LINK_TAGS)), url, base_href)


def _soup(body: bytes):  # noqa: ANN202 - bs4 is an optional-looking heavy import
    from bs4 import BeautifulSoup

    return BeautifulSoup(body, "lxml")


def extract_bs4(body: bytes, url: str) -> list[str]:
    """Links of ``body`` with BeautifulSoup on the lxml builder. O(len(body)), but with a
    Python callback per element (holds the GIL: see the module docstring)."""
    check_html(body)
    soup = _soup(body)
    base = soup.find("base", href=True)
    base_href = base.get("href") if base is not None else None
    links = soup.find_all(LINK_TAGS, href=True)
    return resolve_links((a.get("href") for a in links), url, base_href)


def extract_scrapy(body: bytes, url: str) -> list[str]:
    """Links of ``body`` with Scrapy's ``LinkExtractor`` (for comparison only).

    Requires scrapy (not a dependency of crawlab): raises ImportError without it.
    Scrapy resolves ``<base href>`` and drops fragments itself; we still normalize.
    """
    check_html(body)
    from scrapy.http import HtmlResponse
    from scrapy.linkextractors import LinkExtractor

    response = HtmlResponse(url=url, body=body, encoding="utf-8")
    links = LinkExtractor(tags=LINK_TAGS, attrs=("href",), deny_extensions=[]).extract_links(
        response)
    return resolve_links((link.url for link in links), url, None)


#: Extractors by name, as chosen by ``--parser`` (``scrapy`` needs scrapy installed).
EXTRACTORS: dict[str, Extractor] = {
    "lxml": extract_lxml,
    "bs4": extract_bs4,
    "scrapy": extract_scrapy,
}


def get_extractor(name: str) -> Extractor:
    """The extractor called ``name``; ValueError listing the known names otherwise."""
    try:
        return EXTRACTORS[name]
    except KeyError:
        raise ValueError(f"unknown parser {name!r} (known: {', '.join(EXTRACTORS)})") from None


@dataclass
class PageInfo:
    """What a page says about itself, beyond its links."""

    title: str | None = None
    base_href: str | None = None
    robots: frozenset[str] = field(default_factory=frozenset)  # e.g. {"noindex", "nofollow"}
    text_length: int = 0

    @property
    def nofollow(self) -> bool:
        """``<meta name="robots" content="nofollow">`` (or ``none``) is present."""
        return bool(self.robots & {"nofollow", "none"})

    @property
    def noindex(self) -> bool:
        """``<meta name="robots" content="noindex">`` (or ``none``) is present."""
        return bool(self.robots & {"noindex", "none"})


def page_info(body: bytes) -> PageInfo:
    """Title, ``<base href>``, ``<meta name="robots">`` directives and visible-text length,
    with BeautifulSoup (its API pays here). Raises :class:`MalformedPage`. O(len(body))."""
    check_html(body)
    soup = _soup(body)
    title = soup.title.get_text(strip=True) if soup.title is not None else None
    base = soup.find("base", href=True)
    robots: set[str] = set()
    for meta in soup.find_all("meta", attrs={"name": True, "content": True}):
        if meta["name"].strip().lower() == "robots":
            robots.update(t.strip().lower() for t in meta["content"].split(",") if t.strip())
    for tag in soup(["script", "style"]):
        tag.decompose()
    return PageInfo(title=title, base_href=base.get("href") if base is not None else None,
                    robots=frozenset(robots), text_length=len(soup.get_text(" ", strip=True)))
