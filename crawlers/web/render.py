"""What the lab web's pages look like: HTML of generated pages, robots.txt, fault bodies.

Used by the server (bytes on the wire) and, for robots.txt, by the simulated fetcher, so
that both webs say the same thing. Pure functions: thread-safe.

A generated page links to exactly its out-links in the graph, in graph order, written in
the ways real pages write them (relative, root-relative, ``./`` with a fragment, absolute)
so that extraction and normalization are exercised; it also carries ``mailto:`` and
``javascript:`` links that a crawler must reject, and filler text up to the page's size.
"""

from __future__ import annotations

from collections.abc import Sequence

from crawlers.web.webgen import Addressing

_WORDS = (
    "frontier queue crawler thread lock monitor semaphore politeness robots site page "
    "link latency throughput little law heap bucket priority fetch parse normalize seed "
).split()
_FILLER = " ".join(_WORDS[(i * 7 + i // 3) % len(_WORDS)] for i in range(200_000)).encode()

FOOTER = (b'<footer><a href="mailto:webmaster@crawlab.test">mail</a> '
          b'<a href="javascript:void(0)">menu</a></footer>')
MALFORMED_BODY = b"\x00\x01\x02\x03<ht\x00ml><body><a href=\"/p1.html\">bro\x00ken" * 8
NOT_HTML_BODY = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n"


def robots_path_problem(path: str) -> str | None:
    """Why ``path`` cannot be a robots.txt ``Disallow`` rule, or None if it can. RFC 9309
    (section 2.2.2): a rule is a path pattern, ``/`` followed by characters that are not
    controls, spaces or ``#`` (which starts a comment); anything else could end the line
    (a newline would add rules of its own, even for other user agents) or never match."""
    if not isinstance(path, str):
        return f"must be a string, not {type(path).__name__}"
    if not path.startswith("/"):
        return "a robots.txt path must start with '/' (RFC 9309)"
    for char in path:
        if char in " #" or not char.isprintable():
            what = "'#' (starts a comment)" if char == "#" else f"{char!r}"
            return f"a robots.txt path cannot contain {what}: control, space and '#' " \
                   "characters are refused (RFC 9309)"
    return None


def robots_txt(disallow: Sequence[str] = (), crawl_delay: float | None = None) -> str:
    """The robots.txt of a lab site: ``User-agent: *`` with the given disallowed prefixes.

    A prefix that is not a robots.txt path (:func:`robots_path_problem`: no leading ``/``, or
    a control character, space or ``#``) is a ValueError: a newline in it would otherwise
    write lines of its own into the file. So is a ``crawl_delay`` that is negative or not
    finite."""
    if isinstance(disallow, str):
        raise ValueError("disallow must be a sequence of paths, not one string")
    for prefix in disallow:
        problem = robots_path_problem(prefix)
        if problem is not None:
            raise ValueError(f"robots.txt Disallow {prefix!r}: {problem}")
    if crawl_delay is not None and not 0 <= crawl_delay < float("inf"):
        raise ValueError(f"robots.txt Crawl-delay must be finite and >= 0, got {crawl_delay}")
    lines = ["User-agent: *"]
    lines += [f"Disallow: {prefix}" for prefix in disallow] or ["Disallow:"]
    if crawl_delay is not None:
        lines.append(f"Crawl-delay: {crawl_delay:g}")
    return "\n".join(lines) + "\n"


def filler(n: int) -> bytes:
    """``n`` bytes of plain words (no markup), up to about 1.5 MB, repeated beyond."""
    if n <= len(_FILLER):
        return _FILLER[:n]
    return (_FILLER * (n // len(_FILLER) + 1))[:n]


def page_html(addressing: Addressing, page: int) -> bytes:
    """The HTML of ``page`` as served under ``addressing``. O(out-degree + page size)."""
    web = addressing.web
    site = int(web.page_site[page])
    origin = addressing.origins[site]
    local = page - web.home(site)
    parts = [
        b"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">",
        f"<title>Site {site}, page {local}</title></head>\n<body id=\"top\">"
        f"<h1>Site {site}, page {local}</h1>\n<ul>\n".encode(),
    ]
    for i, target in enumerate(web.out_links(page).tolist()):
        path = web.path(target)
        if int(web.page_site[target]) != site:
            href = addressing.url(target)
        else:
            style = (page + i) % 4
            href = (path.lstrip("/") if style == 0 else path if style == 1
                    else f".{path}#s{i}" if style == 2 else origin + path)
        parts.append(f'<li><a href="{href}">page {target}</a></li>\n'.encode())
    parts.append(b"</ul>\n" + FOOTER + b"\n<p>")
    used = sum(len(p) for p in parts) + len(b"</p></body></html>\n")
    parts.append(filler(max(0, int(web.page_bytes[page]) - used)))
    parts.append(b"</p></body></html>\n")
    return b"".join(parts)


def small_page(title: str, links: Sequence[str] = ()) -> bytes:
    """A tiny HTML page (used for on-demand fault targets and index pages)."""
    items = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head>"
            f"<body><h1>{title}</h1><ul>{items}</ul></body></html>\n").encode()
