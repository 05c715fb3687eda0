"""Link extractors: from an HTML body to the absolute, normalized links it contains.

An extractor is a function ``(body: bytes, url: str, charset: str | None = None) ->
list[str]`` returning the ``href`` of every ``<a>`` and ``<area>``, resolved against the
document URL or its ``<base href>``, passed through :func:`crawlers.page.urls.normalize`
(rejected schemes dropped) and deduplicated in page order. It raises :class:`MalformedPage`
when the body is not an HTML document at all (empty, or binary: NUL bytes); sloppy HTML is not
an error, both parsers repair it the way browsers do.

**Which encoding** (:func:`html_encoding`, as the HTML standard's encoding sniffing has it):
a byte-order mark first, then the transport layer's ``charset`` (the HTTP ``Content-Type``
header's, which the fetcher passes), and only then a ``<meta>`` declaration in the first KiB.
A meta that declares UTF-16 is read as UTF-8 (the standard's rule: the declaration was itself
read as ASCII bytes, so the page is not UTF-16), and so is one declaring UTF-32 or UTF-7, which
are not encodings of the standard. Left to themselves both parsers believed such a meta and
lost every link of the page, even when the header said ``utf-8``.

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

import codecs
import functools
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.etree
import lxml.html

from crawlers.page.urls import normalize

#: ``extract(body, url, charset=None)``: ``charset`` is the transport layer's (HTTP header).
Extractor = Callable[..., list[str]]

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


#: Encodings a page whose bytes passed :func:`check_html` cannot be in (a wide Unicode form
#: has NUL bytes in ASCII text) or that the HTML standard forbids (UTF-7): a ``<meta>`` naming
#: one is read as UTF-8, a header naming one is ignored. Compared by Python's codec name.
_NOT_DECLARABLE = frozenset({"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
                             "utf-32-be", "utf-7"})
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([^\s\"'>;/]*)", re.IGNORECASE)
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _label(text: str) -> str:
    """An encoding label as written (``' "UTF-8" '``), trimmed of quotes and space, lowercase."""
    return text.strip().strip("\"'").strip().lower()


def _codec(label: str) -> str | None:
    """Python's name of the encoding ``label`` (``"utf-16"`` for ``"UTF16"``), or None if
    neither Python nor libxml2 know it (bs4 decodes with Python's codecs, lxml with
    libxml2's); ``x-user-defined`` is ``windows-1252``, as the standard says. O(1)."""
    label = _label(label)
    if label == "x-user-defined":
        return "cp1252"
    if not label or not label.isascii():
        return None
    try:
        name = codecs.lookup(label).name
        _thread_parser(label)  # LookupError if libxml2 does not know the label
    except LookupError:
        return None
    return name


def html_encoding(body: bytes, charset: str | None = None) -> str | None:
    """The encoding to read ``body`` in, given the transport layer's ``charset`` (the HTTP
    header's), as a label both parsers know; None: the parser finds it itself (a byte-order
    mark, no declaration, or one in an encoding it reads as declared). See the module
    docstring: a header's encoding wins over a ``<meta>``, and a meta declaring a wide
    Unicode form or UTF-7 means UTF-8. O(1 KiB)."""
    if body.startswith(_BOMS):
        return None
    if charset is not None:
        name = _codec(charset)
        if name is not None and name not in _NOT_DECLARABLE:
            return _label(charset)
    for match in _META_CHARSET.finditer(body[:_SNIFF_BYTES]):
        name = _codec(match.group(1).decode("ascii", "replace"))
        if name in _NOT_DECLARABLE:
            return "utf-8"
        if name == "cp1252":
            return "windows-1252"
        if name is not None:
            return None  # the parser reads the page in it, as declared
    return None


@functools.lru_cache(maxsize=1 << 16)
def _normalize_cached(href: str, base: str) -> str | None:
    return normalize(href, base)


def clear_cache() -> None:
    """Forget the normalized links of earlier pages (labs call it so each crawl starts cold)."""
    _normalize_cached.cache_clear()
    _qualifying_directory.cache_clear()


def _directory_of(base: str) -> str | None:
    """``base`` up to its last ``/`` when that is a directory every relative reference
    (other than an empty one, a query or a fragment) resolves against alike (RFC 3986 5.2.3);
    None when ``base`` has a query or fragment, or no path."""
    if "?" in base or "#" in base or base.count("/") < 3:
        return None
    return base[: base.rfind("/") + 1]


_IGNORED_AROUND = str.maketrans("", "", "\t\n\r")
_C0_OR_SPACE = "".join(map(chr, range(33)))


def _resolves_to_base_path(href: str) -> bool:
    """Whether ``href`` may keep the base's path, so that it must be resolved against the
    page itself rather than its directory: empty, a query, a fragment, ``;``, an empty
    authority (``//``) or a scheme (``http:`` alone keeps the base's path; any scheme is
    sent the slow way, which is always right). Looks at ``href`` the way :func:`normalize`
    and ``urljoin`` see it (stripped, tabs and newlines removed, leading control
    characters dropped). O(len(href))."""
    seen = href.strip().translate(_IGNORED_AROUND).lstrip(_C0_OR_SPACE)
    if not seen or seen[0] in "?#;" or seen.startswith("//"):
        return True
    return ":" in seen.partition("/")[0].partition("?")[0].partition("#")[0]


#: A reference made of plain path segments (unreserved characters, none empty or starting
#: with a dot) after an optional ``/`` or some leading ``../``, with an optional fragment:
#: ``frontiers.html``, ``../api/crawlers.html#crawlers.page.fetch``, ``/_static/x.css``. Against
#: a normalized base, it resolves by string operations alone (see :class:`_PlainResolver`).
#: No nested repetition, so matching is linear.
_SEGMENT = r"[A-Za-z0-9_~-][A-Za-z0-9._~-]*"
_PLAIN_REFERENCE = re.compile(rf"(/|(?:\.\./)*)({_SEGMENT}(?:/{_SEGMENT})*/?)(?:#.*)?", re.DOTALL)


_PLAIN_SEGMENT = re.compile(_SEGMENT)


@functools.lru_cache(maxsize=1 << 12)
def _qualifying_directory(directory: str) -> bool:
    """Whether ``directory`` (a URL ending in ``/``) is normalized with no empty segment
    in its path, the condition of :class:`_PlainResolver`. Cached: a crawl visits many
    pages per directory."""
    if normalize(directory) != directory:
        return False
    return "//" not in directory[directory.index("/", directory.index("//") + 2):]


class _PlainResolver:
    """Resolves the common references of a page without :func:`normalize`.

    Built for one page from its base URL, which must be normalized, have no query or
    fragment, and no empty segment in its path (``urljoin`` drops empty segments while
    resolving, plain concatenation would not). Then, for a reference matching
    :data:`_PLAIN_REFERENCE`, ``normalize(href, base)`` is exactly the origin, the base's
    directory segments less one per leading ``../`` (never above the root, as RFC 3986
    5.2.4 says) and the reference's path: its characters are all unreserved, it has no dot
    segment, and the base's part is already in normal form (:func:`normalize` is
    idempotent). A fragment-only or empty reference resolves to the base itself. Anything
    else answers None and goes the slow way. Equality with :func:`normalize` is checked by
    a property test. O(len(href)) per call; immutable, hence thread-safe.
    """

    __slots__ = ("base", "origin", "segments", "prefixes")

    def __init__(self, base: str) -> None:
        self.base = base
        path_start = base.index("/", base.index("//") + 2)
        self.origin = base[:path_start]
        directory = base[path_start: base.rfind("/") + 1]  # "/a/b/"
        self.segments = directory[1:-1].split("/") if directory != "/" else []
        self.prefixes: dict[int, str] = {}  # number of ../ -> origin + remaining directory

    @staticmethod
    def for_base(base: str) -> _PlainResolver | None:
        """A resolver for ``base``, or None when ``base`` does not qualify. A base made of
        a qualifying directory (cached) and a plain file name qualifies too: the name
        changes nothing that :func:`normalize` would rewrite."""
        if "?" in base or "#" in base or base.count("/") < 3:
            return None
        cut = base.rfind("/") + 1
        if cut == len(base) or _PLAIN_SEGMENT.fullmatch(base, cut):
            qualifies = _qualifying_directory(base[:cut])
        else:
            qualifies = _qualifying_directory(base[:cut]) and normalize(base) == base
        return _PlainResolver(base) if qualifies else None

    def resolve(self, href: str) -> str | None:
        """``normalize(href, base)`` for a plain reference; None when ``href`` is not one."""
        if not href or href[0] == "#":
            return self.base
        match = _PLAIN_REFERENCE.fullmatch(href)
        if match is None:
            return None
        lead, path = match.groups()
        if lead == "/":
            return self.origin + "/" + path
        ups = len(lead) // 3
        prefix = self.prefixes.get(ups)
        if prefix is None:
            kept = self.segments[: max(len(self.segments) - ups, 0)]
            prefix = self.prefixes[ups] = self.origin + "/" + "".join(s + "/" for s in kept)
        return prefix + path


def resolve_links(hrefs: Iterable[str | None], url: str, base_href: str | None) -> list[str]:
    """Normalize ``hrefs`` against the page URL (or its ``<base href>``), drop rejected
    ones, deduplicate keeping first occurrences. O(total length).

    Pages repeat the same hrefs (navigation bars, indexes): each distinct href is resolved
    once per page. Most hrefs of real pages are plain relative paths or fragments, which a
    :class:`_PlainResolver` resolves with string operations; the others go through
    :func:`normalize`, against the page's directory rather than the page itself where that
    gives the same answer, so a bounded LRU cache serves every page of a directory. The
    cache is thread-safe (``functools.lru_cache``).
    """
    base = url
    if base_href:
        base = normalize(base_href, url) or url
    plain = _PlainResolver.for_base(base)
    directory = _directory_of(base)
    seen: dict[str, None] = {}
    dropped = odd = 0
    for href in dict.fromkeys(hrefs):
        if href is None:
            continue
        link = plain.resolve(href) if plain is not None else None
        if link is None:
            against = directory if directory and not _resolves_to_base_path(href) else base
            link = _normalize_cached(href, against)
        if link is not None:
            seen.setdefault(link, None)
        else:
            dropped += 1
            odd += _odd_host(href)
    links = Links(seen)
    links.dropped, links.odd_hosts = dropped, odd
    return links


class Links(list):
    """The links of a page (a list), and how many distinct hrefs were dropped: ``dropped``
    in all (not http(s), or not a URL), ``odd_hosts`` of them for a host that is not plain
    ASCII yet maps onto an IP address (see :func:`crawlers.page.urls.normalize`);
    ``truncated``: the parser stopped early (markup nested too deep, or bytes invalid in the
    page's encoding), links after that point are missing."""

    dropped = 0
    odd_hosts = 0
    truncated = False
    crowded = False  # parsed by the slower extractor: a tag may hold too many attributes


def _odd_host(href: str) -> bool:
    """Whether ``href`` names a host outside ASCII (the only hrefs with a host that
    :func:`normalize` refuses for its host alone). O(len(href))."""
    try:
        host = urlsplit(href.strip()).hostname
    except ValueError:
        return False
    return bool(host) and not host.isascii()


_per_thread = threading.local()
_MAX_PARSERS = 16  # parsers a thread keeps, one per encoding it was asked for


def _thread_parser(encoding: str | None = None) -> lxml.html.HTMLParser:
    """This thread's own HTML parser (made on first use), so lxml can parse without the GIL;
    one per ``encoding`` (None: the parser finds it in the page), since libxml2 fixes it when
    the parser is made; an explicit one overrides the page's ``<meta>``. ``LookupError`` for
    an encoding libxml2 does not know. At most :data:`_MAX_PARSERS` are kept per thread.

    ``huge_tree``: libxml2 then nests up to 2048 elements deep instead of 256 (a page nesting
    300 ``div`` lost every link after them); the body is already bounded by the fetcher's size
    cap, which is what the default limit guards against."""
    parsers = getattr(_per_thread, "parsers", None)
    if parsers is None:
        parsers = _per_thread.parsers = {}
    parser = parsers.get(encoding)
    if parser is None:
        parser = lxml.html.HTMLParser(collect_ids=False, huge_tree=True, encoding=encoding)
        if len(parsers) >= _MAX_PARSERS:
            parsers.clear()
        parsers[encoding] = parser
    return parser


#: libxml2's fatal error for a ``<meta>`` naming an encoding it does not know: it goes on
#: reading the page in its default encoding, so no link is lost.
_UNSUPPORTED_ENCODING = lxml.etree.ErrorTypes.ERR_UNSUPPORTED_ENCODING


def _cut_short(parser: lxml.html.HTMLParser) -> bool:
    """Whether the parser's last run stopped early, at a resource limit (nesting too deep) or
    at bytes invalid in the page's encoding: the links after that point are not in the tree.
    An unknown encoding's name is not one of these (nothing stops)."""
    return any(e.level == lxml.etree.ErrorLevels.FATAL and e.type != _UNSUPPORTED_ENCODING
               for e in parser.error_log)


#: The most attributes a tag may have for lxml to parse its page: libxml2 checks each new
#: attribute of an element against the ones before it, so a tag's cost grows with the square
#: of their number (measured here: one tag of 190,000 attributes, a 1.8 MB page, held a robot
#: for 182 s, where no time limit reaches; 17,000 took 0.5 s). Real tags have tens. A page with
#: a tag that may hold more goes to :func:`extract_bs4` instead (0.6 s for that page: its lxml
#: tree builder does not make the check), counted as ``parse_crowded``: every link kept.
MAX_ATTRIBUTES = 1000
_TAG_RUN = re.compile(rb"<[A-Za-z][^<]{%d,}" % (2 * MAX_ATTRIBUTES))  # >= 2 bytes an attribute
_QUOTED = re.compile(rb"\"[^\"]*\"|'[^']*'")


def crowded(body: bytes) -> bool:
    """Whether ``body`` may hold a tag of more than :data:`MAX_ATTRIBUTES` attributes (with or
    without values; a ``>`` inside a quoted value does not end the tag). O(len(body)): only
    stretches long enough to hold that many, from a ``<`` to the next, are looked at. A long
    stretch of text is a false alarm at worst, which costs the page the slower extractor."""
    for match in _TAG_RUN.finditer(body):
        tag = _QUOTED.sub(b"", match.group()).split(b">", 1)[0]
        if len(tag.split()) - 1 > MAX_ATTRIBUTES:  # the first word is the name
            return True
    return False


def extract_lxml(body: bytes, url: str, charset: str | None = None) -> list[str]:
    """Links of ``body`` with one ``lxml.html`` parse in C, then the hrefs; ``charset`` is the
    transport layer's (see :func:`html_encoding`). O(len(body)); a :func:`crowded` page goes
    to :func:`extract_bs4` (``crowded`` set on the links)."""
    check_html(body)
    if crowded(body):
        links = extract_bs4(body, url, charset)
        links.crowded = True
        return links
    parser = _thread_parser(html_encoding(body, charset))
    try:
        root = lxml.html.document_fromstring(body, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise MalformedPage(str(exc)) from None
    base_href = None
    for base in root.iter("base"):
        base_href = base.get("href")
        if base_href:
            break
    links = resolve_links((el.get("href") for el in root.iter(*LINK_TAGS)), url, base_href)
    links.truncated = _cut_short(parser)
    return links


def _soup(body: bytes, charset: str | None = None):  # noqa: ANN202 - a heavy import
    from bs4 import BeautifulSoup

    return BeautifulSoup(body, "lxml", from_encoding=html_encoding(body, charset))


def extract_bs4(body: bytes, url: str, charset: str | None = None) -> list[str]:
    """Links of ``body`` with BeautifulSoup on the lxml builder; ``charset`` is the transport
    layer's (see :func:`html_encoding`). O(len(body)), but with a Python callback per element
    (holds the GIL: see the module docstring)."""
    check_html(body)
    soup = _soup(body, charset)
    base = soup.find("base", href=True)
    base_href = base.get("href") if base is not None else None
    links = soup.find_all(LINK_TAGS, href=True)
    return resolve_links((a.get("href") for a in links), url, base_href)


def extract_scrapy(body: bytes, url: str, charset: str | None = None) -> list[str]:
    """Links of ``body`` with Scrapy's ``LinkExtractor`` (for comparison only).

    Requires scrapy (not a dependency of crawlab): raises ImportError without it.
    Scrapy resolves ``<base href>`` and drops fragments itself; we still normalize.
    """
    check_html(body)
    from scrapy.http import HtmlResponse
    from scrapy.linkextractors import LinkExtractor

    response = HtmlResponse(url=url, body=body,
                            encoding=html_encoding(body, charset) or "utf-8")
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
