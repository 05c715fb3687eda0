"""What a crawl runs against: the generated web (served or simulated) or real sites.

:func:`open_target` turns the web options shared by ``crawlab crawl`` and the labs into a
:class:`Target`: a fetcher, the seed URLs, the scope, robots.txt and politeness hooks, and the
ground truth (size U and PageRank) when the web is known. It is a context manager because the
default target starts the local HTTP server for the duration of the crawl.

Three kinds:

``served`` (default)
    a generated web served on 127.0.0.1 (one port per site, in a separate process) with
    injected latency, fetched over real HTTP and parsed with lxml (or bs4).
``sim``
    the same generated web through :class:`~crawlers.web.simfetch.SimulatedFetcher`: no sockets,
    no parsing, a latency model; or zero latency to measure the frontier alone.
``urls``
    any sites given by seed URL, real ones included: scope limited to the seed sites,
    robots.txt honoured (its Crawl-delay too), a politeness delay per site, and every limit of
    the web options' :class:`~crawlers.page.policy.Policy`: URL rules on links, the same rules,
    robots.txt and politeness on every redirect hop (:class:`~crawlers.page.rules.LinkGate`).

The served web's fetcher works under the policy too (the whole-fetch budget, sizes, redirects);
its links are the generated web's own and need no rules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from crawlers.crawl.report import GroundTruth, ReferenceList
from crawlers.page.fetch import Fetcher, HttpFetcher
from crawlers.page.policy import Counters, Policy
from crawlers.page.robots import Politeness, RobotsCache
from crawlers.page.rules import LinkGate, UrlRules
from crawlers.page.urls import Scope, normalize
from frontier.files import read_regular

__all__ = ["Target", "WebOptions", "load_reference", "open_target"]


@dataclass
class WebOptions:
    """The web options of a crawl (the command line's ``--pages``, ``--sites``, ...)."""

    kind: str = "served"  # served | sim | urls
    pages: int = 2000
    sites: int = 20
    seed: int = 1
    latency: float = 0.02
    jitter: float | None = None
    seed_urls: Sequence[str] = ()
    parser: str = "lxml"
    politeness: float = 1.0  # seconds between requests to one site (--seed-url); 0: none
    threads: int = 8  # sizes the HTTP connection pool
    policy: Policy = field(default_factory=Policy)  # the limits against a hostile web
    port_base: int | None = None  # the served web's site 0 port (site i on +i); None: any ports


@dataclass
class Target:
    """A ready-to-crawl web. ``in_scope``, ``robots_allowed`` and ``politeness_wait`` are
    ``None`` when the web needs no such rule; ``truth`` is ``None`` for unknown webs.
    ``rules`` (URL rules and per-site budgets, real sites only) and ``counters`` (the policy's,
    for the report; ``None`` for the simulated web, which has no limits to reach).
    ``robots_allowed(url)`` is truthy when robots.txt allows the URL; when it refuses, its
    falsy answer is a :class:`~crawlers.page.robots.Refusal` (why, and whether to put the URL
    off), which the threaded crawler reads and the BSP crawler takes as a plain no."""

    fetcher: Fetcher
    seeds: list[str]
    truth: GroundTruth | None
    description: str
    in_scope: Callable[[str], bool] | None = None
    robots_allowed: Callable[[str], Any] | None = None
    politeness_wait: Callable[[str], Any] | None = None
    rules: UrlRules | None = None
    counters: Counters | None = None


def _check(opts: WebOptions) -> None:
    if opts.kind not in ("served", "sim", "urls"):
        raise ValueError(f"unknown web kind {opts.kind!r}")
    if opts.kind != "urls":
        if opts.pages < 1 or opts.sites < 1 or opts.pages < opts.sites:
            raise ValueError(
                f"need pages >= sites >= 1, got {opts.pages} pages over {opts.sites} sites"
            )
    if opts.latency < 0 or (opts.jitter is not None and opts.jitter < 0):
        raise ValueError("latency and jitter must not be negative")
    if opts.politeness < 0:
        raise ValueError("politeness delay must not be negative")


@contextlib.contextmanager
def open_target(opts: WebOptions) -> Iterator[Target]:
    """Build the target ``opts`` describe, for the duration of the ``with`` block.

    Bad options raise :class:`ValueError` with a one-line message (an invalid seed URL, a
    web with more sites than pages ...).
    """
    _check(opts)
    if opts.kind == "urls":
        yield from _real_sites(opts)
        return
    from crawlers.web import webgen

    web = webgen.generate(n_pages=opts.pages, n_sites=opts.sites, seed=opts.seed)
    jitter = opts.latency / 2 if opts.jitter is None else opts.jitter
    if opts.kind == "sim":
        from crawlers.web.simfetch import SimulatedFetcher

        fetcher = SimulatedFetcher(web, latency=opts.latency, jitter=jitter, seed=opts.seed)
        addressing = fetcher.addressing
        yield Target(
            fetcher=fetcher,
            seeds=addressing.seed_urls(),
            truth=GroundTruth(web.size, web.pagerank(), addressing.page_of),
            description=f"simulated web: {web.size} pages, {web.n_sites} sites, "
            f"latency {opts.latency * 1000:g} ms",
        )
        return
    from crawlers.web.server import WebServer

    with WebServer(web, latency=opts.latency, jitter=jitter, seed=opts.seed,
                   port_base=opts.port_base) as server:
        addressing = server.addressing
        fetcher = HttpFetcher(parser=opts.parser, pool_size=max(8, opts.threads),
                              policy=opts.policy)
        try:
            yield Target(
                fetcher=fetcher,
                counters=opts.policy.counters,
                seeds=server.seed_urls,
                truth=GroundTruth(web.size, web.pagerank(), addressing.page_of),
                description=f"generated web served on 127.0.0.1: {web.size} pages, "
                f"{web.n_sites} sites, latency {opts.latency * 1000:g} ms, parser {opts.parser}",
            )
        finally:
            fetcher.close()


def _real_sites(opts: WebOptions) -> Iterator[Target]:
    seeds = []
    for raw in opts.seed_urls:
        url = normalize(raw)
        if url is None or not url.startswith(("http://", "https://")):
            raise ValueError(f"invalid seed URL: {raw!r}")
        seeds.append(url)
    if not seeds:
        raise ValueError("give at least one --seed-url")
    policy = opts.policy
    fetcher = HttpFetcher(parser=opts.parser, pool_size=max(8, opts.threads), policy=policy)
    robots = RobotsCache(fetcher, policy=policy)
    # 0: no delay of ours (a local site needs none); a site's robots.txt Crawl-delay still holds
    polite = Politeness(opts.politeness, site_delay=robots.crawl_delay)
    scope = Scope(seeds)
    rules = UrlRules(policy, scope)
    fetcher.gate = LinkGate(rules, robots, polite)
    try:
        yield Target(
            fetcher=fetcher,
            seeds=seeds,
            truth=None,
            in_scope=scope.__contains__,
            robots_allowed=robots.check,  # falsy when refused: a Refusal says why
            politeness_wait=polite.wait,
            rules=rules,
            counters=policy.counters,
            description=f"{len(scope.sites)} site(s) from seed URLs, robots.txt honoured "
            f"(Crawl-delay too), politeness {opts.politeness:g} s",
        )
    finally:
        fetcher.close()


MAX_REFERENCE_BYTES = 256 * 2**20
"""The most bytes ``--reference`` reads (about 2.5 million URLs): the list is held in memory,
so a larger file is refused before a byte of it is read."""


def load_reference(path: str) -> ReferenceList:
    """The :class:`~crawlers.crawl.report.ReferenceList` in file ``path``: one URL per line
    (blank lines and lines starting with ``#`` skipped), normalized as the crawler normalizes
    links. A file that cannot be read, is not a regular file (a folder; a FIFO, which would
    block the read for ever; a device such as ``/dev/zero``, which never ends), is larger than
    :data:`MAX_REFERENCE_BYTES` or is not UTF-8, a line that is not an http(s) URL, or a list
    with no URL raises :class:`ValueError` with one line naming the file (and the line)."""
    try:
        text = read_regular(path, MAX_REFERENCE_BYTES, "a reference list's").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, OSError) and not exc.strerror:  # read_regular's refusal: says why
            raise ValueError(f"--reference {path}: {exc}") from None
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise ValueError(f"--reference {path}: cannot read it ({why})") from None
    lines = text.splitlines()
    urls = []
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        url = normalize(text)
        if url is None:
            raise ValueError(f"--reference {path}: line {n} is not an http(s) URL: {text[:80]!r}")
        urls.append(url)
    return ReferenceList(urls, source=f"--reference {path}")
