"""Who crawls a URL: assignments of pages or sites to P crawlers, and partition files.

A parallel crawler gives every URL one *owner* among its P workers. Three assignments:

``page-hash``
    ``owner(url) = MD5(url) mod P``: perfect balance, but almost every link crosses workers.
``site-hash``
    ``owner(url) = MD5(site) mod P`` where the site is ``host:port``
    (:func:`crawlers.page.urls.site_of`): links inside a site stay local, as in the papers.
a partition file
    an explicit ``site part`` table, written by ``crawlab partition`` (for example from a
    hypergraph partitioning); sites the table does not list fall back to site-hash, so a
    crawl that discovers new sites still has an owner for each.

The partition file format is plain text, one assignment per line::

    # crawlab partition: method=hypergraph parts=4
    site0.crawlab.test:80 2
    site1.crawlab.test:80 0

Blank lines and ``#`` comments are ignored; a comment of the form ``parts=K`` fixes the number
of parts (otherwise it is one more than the largest part named). Sites of the generated web are
named by their logical origin (``siteN.crawlab.test:80``) whatever port serves them.

Every assignment is immutable once built, hence thread-safe; ``owner`` is O(len(url)).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from crawlers.page.urls import site_of
from frontier.files import read_regular

__all__ = [
    "Assignment",
    "PageHash",
    "PartitionFileError",
    "SiteHash",
    "SiteTable",
    "md5_bucket",
    "make_assignment",
    "read_partition_file",
    "write_partition_file",
]

_PARTS_HEADER = re.compile(r"\bparts=([0-9]+)\b")  # ASCII digits: \d takes '²' too
_PART = re.compile(r"[0-9]{1,9}")  # a part number; int() of it cannot fail


class PartitionFileError(ValueError):
    """A partition file that is missing, malformed, or that does not fit the crawl."""


def md5_bucket(text: str, parts: int) -> int:
    """``MD5(text) mod parts``, from the digest's first 8 bytes (big-endian). O(len(text))."""
    digest = hashlib.md5(text.encode("utf-8"), usedforsecurity=False).digest()
    return int.from_bytes(digest[:8], "big") % parts


class Assignment(Protocol):
    """Maps a URL to the worker (0 .. parts-1) that owns it."""

    parts: int
    method: str

    def owner(self, url: str) -> int: ...


def _check_parts(parts: int) -> int:
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        raise ValueError(f"the number of parts must be a positive integer, got {parts!r}")
    return parts


class PageHash:
    """Owner by hash of the whole URL."""

    method = "page-hash"

    def __init__(self, parts: int) -> None:
        self.parts = _check_parts(parts)

    def owner(self, url: str) -> int:
        return md5_bucket(url, self.parts)


class SiteHash:
    """Owner by hash of the URL's site (``host:port``)."""

    method = "site-hash"

    def __init__(self, parts: int) -> None:
        self.parts = _check_parts(parts)

    def owner(self, url: str) -> int:
        return md5_bucket(site_of(url), self.parts)


class SiteTable:
    """Owner by an explicit site table; unlisted sites fall back to site-hash.

    Invariant: every value of ``table`` is in ``range(parts)``.
    """

    method = "table"

    def __init__(self, table: Mapping[str, int], parts: int, method: str = "table") -> None:
        self.parts = _check_parts(parts)
        self.table = dict(table)
        self.method = method
        self._fallback = SiteHash(parts)
        bad = [site for site, part in self.table.items() if not 0 <= part < parts]
        if bad:
            raise PartitionFileError(f"site {bad[0]!r} is given a part outside 0..{parts - 1}")

    def owner(self, url: str) -> int:
        site = site_of(url)
        part = self.table.get(site)
        return self._fallback.owner(url) if part is None else part

    def check_sites(self, known: Iterable[str]) -> None:
        """Raise :class:`PartitionFileError` if the table names a site not in ``known``."""
        known = set(known)
        unknown = sorted(set(self.table) - known)
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise PartitionFileError(f"partition names unknown site {unknown[0]!r}{more}")


MAX_PARTITION_BYTES = 64 * 2**20  # a site and a part a line: millions of sites fit


def read_partition_file(path: str | Path) -> SiteTable:
    """Read a partition file (see the module docstring) into a :class:`SiteTable`.

    Raises :class:`PartitionFileError` with a one-line message if the file is missing or
    unreadable, a line is not ``site part``, a part is not a non-negative integer, or a site
    is listed twice. O(lines).
    """
    path = Path(path)
    try:
        text = read_regular(path, MAX_PARTITION_BYTES, "a partition file's").decode("utf-8")
    except FileNotFoundError:
        raise PartitionFileError(f"partition file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PartitionFileError(f"cannot read partition file {path}: {exc}") from None
    table: dict[str, int] = {}
    parts: int | None = None
    method = "table"
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            header = _PARTS_HEADER.search(stripped)
            if header and parts is None:
                if not _PART.fullmatch(header.group(1)):
                    raise PartitionFileError(f"{path}:{number}: parts= takes at most 9 "
                                             f"digits, got {len(header.group(1)):,}")
                parts = int(header.group(1))
            found = re.search(r"\bmethod=(\S+)", stripped)
            if found:
                method = found.group(1)
            continue
        fields = stripped.split()
        if len(fields) != 2 or not _PART.fullmatch(fields[1]):
            shown = repr(stripped) if len(stripped) <= 200 else f"{stripped[:200]!r}..."
            raise PartitionFileError(f"{path}:{number}: expected 'site part' (a part is 0 to "
                                     f"{10**9 - 1:,}), got {shown}")
        site = fields[0].lower()
        if ":" not in site.rsplit("]", 1)[-1]:
            raise PartitionFileError(f"{path}:{number}: a site is host:port, got {fields[0]!r}")
        if site in table:
            raise PartitionFileError(f"{path}:{number}: site {site!r} listed twice")
        table[site] = int(fields[1])
    if not table:
        raise PartitionFileError(f"partition file {path} assigns no site")
    if parts is None:
        parts = max(table.values()) + 1
    if parts < 1:
        raise PartitionFileError(f"{path}: parts must be at least 1")
    return SiteTable(table, parts, method=method)


def write_partition_file(path: str | Path, table: Mapping[str, int], parts: int,
                         method: str = "table", comment: str = "") -> None:
    """Write ``table`` (site -> part) as a partition file, sites sorted. O(S log S)."""
    SiteTable(table, parts)  # validates the parts
    lines = [f"# crawlab partition: method={method} parts={parts}"]
    if comment:
        lines.append(f"# {comment}")
    lines += [f"{site} {part}" for site, part in sorted(table.items())]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_assignment(spec: str, parts: int, known_sites: Iterable[str] | None = None
                    ) -> Assignment:
    """The assignment a ``--partition`` value names: ``page-hash``, ``site-hash`` or a file.

    A file must have exactly ``parts`` parts and, when ``known_sites`` is given, name only
    those sites; otherwise :class:`PartitionFileError`.
    """
    if spec == "page-hash":
        return PageHash(parts)
    if spec == "site-hash":
        return SiteHash(parts)
    table = read_partition_file(spec)
    if table.parts != parts:
        raise PartitionFileError(
            f"partition file {spec} has {table.parts} parts but the crawl has {parts} workers")
    if known_sites is not None:
        table.check_sites(known_sites)
    return table
