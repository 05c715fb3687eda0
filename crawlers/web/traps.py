"""Traps for crawlers, added to the generated web by ``crawlab serve --traps``.

Every generated site then has, besides its ordinary pages, a ``/trap/`` index linked from its
home page, and under it the ways a hostile or careless web site catches a crawler:

==========================  =======================================================  ==========
path                        what it does                                             limit
==========================  =======================================================  ==========
``/trap/calendar?m=N``      a calendar: each month links to the next, for ever       per site
``/trap/deep/1/2/.../``     each page links one directory deeper                     path depth
``/trap/loop/a/b/``         relative links that repeat segments: ``/a/b/a/b/...``     repeats
``/trap/grow?q=1``          each page links to its own URL with one more parameter   query
``/trap/long?v=x``          each page links to its URL with the value doubled         query size
``/trap/session``           links carry a new session id on every page               session id
``/trap/slow``              answers one byte a second (a page of 2 KiB: 34 minutes)   fetch time
``/trap/bomb``              2 KiB of gzip that inflates to 20 MB                      body size
``/trap/busy``              503 with ``Retry-After: 3600``                            Retry-After
``/trap/retry``             429 ``Retry-After: 1`` the first time, then a page         retries
``/trap/to-private``        redirects into ``/private/``, which robots.txt forbids    robots
``/trap/to-other``          redirects to the next site's ``/private/``                robots
``/trap/odd``               links with a 100 KB href, a fullwidth-digit host,         URL rules
                            ``mailto:`` and ``javascript:``
``/trap/nested``            a link after 100,000 nested elements                      parser
``/robots.txt`` of site 0   its rules in the first lines, then 50 MB of filler        robots size
==========================  =======================================================  ==========

Every site's robots.txt disallows ``/private/``; a private page says so, so a test can see that
none was fetched. Ordinary pages are unchanged, so a crawl that escapes every trap still covers
the whole generated web (:meth:`Addressing.seed_urls` and :meth:`Addressing.url` list them).

Pure functions of the request except :class:`TrapState` (the ``/trap/retry`` first answers),
used on the server's event loop thread only.
"""

from __future__ import annotations

import gzip
import hashlib

from crawlers.args import ascii_int
from crawlers.web import render
from crawlers.web.response import Response

__all__ = ["HUGE_ROBOTS_BYTES", "PRIVATE", "TrapState", "home_link", "robots", "respond"]

PRIVATE = "/private/"
HUGE_ROBOTS_BYTES = 50_000_000
SLOW_BYTES = 2048
BOMB_INFLATED = 20_000_000
NESTED = 100_000
_BOMB = gzip.compress(b"\0" * BOMB_INFLATED, compresslevel=9)


class TrapState:
    """What a trapped site remembers: the ``/trap/retry`` URLs answered once already."""

    def __init__(self) -> None:
        self.retried: set[str] = set()


def home_link(body: bytes) -> bytes:
    """A home page's HTML with a link to the traps' index added to its list of links."""
    return body.replace(b"</ul>\n", b'<li><a href="/trap/">traps</a></li>\n</ul>\n', 1)


def robots(site: int, crawl_delay: float | None = None) -> Response:
    """robots.txt of a trapped site: ``/private/`` disallowed; site 0's is 50 MB long, its
    rules in the first lines and filler after (close-delimited)."""
    text = render.robots_txt([PRIVATE], crawl_delay).encode()
    if site == 0:
        return Response(body=text + b"# filler follows\n", content_type="text/plain",
                        stream=HUGE_ROBOTS_BYTES)
    return Response(body=text, content_type="text/plain; charset=utf-8")


def _page(title: str, links: list[str]) -> Response:
    return Response(body=render.small_page(title, links))


def _int(text: str, default: int = 0) -> int:
    number = ascii_int(text, digits=8)
    return default if number is None else number


def respond(site: int, origins: list[str], path: str, query: str,
            state: TrapState) -> Response | None:
    """The answer of a trap path (``/trap/...`` or ``/private/...``), or None for any other
    path. ``origins``: every site's ``http://host:port``, in site order."""
    if path.startswith(PRIVATE):
        return _page("Private: robots.txt forbids this page", [])
    if not path.startswith("/trap/"):
        return None
    name = path[len("/trap/"):].split("/", 1)[0]
    if name == "":
        return _page("Traps", ["calendar?m=0", "deep/1/", "loop/a/b/", "grow?q=1",
                               "long?v=x", "session", "slow", "bomb", "busy", "retry",
                               "to-private", "to-other", "odd", "nested"])
    if name == "calendar":
        month = _int(query[2:]) if query.startswith("m=") else 0
        return _page(f"Calendar, month {month}",
                     [f"/trap/calendar?m={month + 1}", f"/trap/calendar?m={max(month - 1, 0)}"])
    if name == "deep":
        depth = len(path.strip("/").split("/")) - 2
        return _page(f"Depth {depth}", [f"{depth + 1}/"])
    if name == "loop":
        return _page("Loop", ["a/b/"])
    if name == "grow":
        return _page("Growing query", [f"/trap/grow?{query}&q={query.count('&') + 2}"])
    if name == "long":
        return _page("Long query", [f"/trap/long?{query}{query[2:] or 'x'}"])
    if name == "session":
        sid = hashlib.blake2b(f"{site}{path}{query}".encode(), digest_size=8).hexdigest()
        return _page("Session", [f"/trap/session?sid={sid}", f"/p0.html;jsessionid={sid}"])
    if name == "slow":
        body = render.small_page("Slow", ["/trap/"])
        return Response(body=(body + b" " * SLOW_BYTES)[:SLOW_BYTES], drip=1.0)
    if name == "bomb":
        return Response(body=_BOMB, headers=(("Content-Encoding", "gzip"),))
    if name == "busy":
        return Response(503, render.small_page("Busy"), headers=(("Retry-After", "3600"),))
    if name == "retry":
        key = f"{path}?{query}"
        if key not in state.retried:
            state.retried.add(key)
            return Response(429, render.small_page("Too many"),
                            headers=(("Retry-After", "1"),))
        return _page("Retried", [])
    if name == "to-private":
        return Response(302, location=PRIVATE + "from-redirect.html")
    if name == "to-other":
        other = origins[(site + 1) % len(origins)]
        return Response(302, location=other + PRIVATE + "from-other-site.html")
    if name == "odd":
        port = origins[site].rsplit(":", 1)[1]
        fullwidth = "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in "127.0.0.1")
        return _page("Odd links", ["/trap/odd?" + "x" * 100_000,
                                   f"http://{fullwidth}:{port}/p0.html",
                                   "mailto:trap@crawlab.test", "javascript:void(0)"])
    if name == "nested":
        return Response(body=b"<html><body><a href='/trap/'>up</a>" + b"<div>" * NESTED
                        + b"<a href='/trap/nested-end'>end</a>" + b"</div>" * NESTED)
    return Response(404, render.small_page("Not found"))
