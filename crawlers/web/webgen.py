"""A generated multi-site web: the ground truth of every crawl lab.

:func:`generate` builds, deterministically from a seed, a directed graph of pages spread
over sites, with the heavy tails real webs show:

* pages per site follow a Pareto law (a few huge sites, many small ones);
* out-degrees follow a Pareto law (most pages have a handful of links, a few have hundreds);
* link targets are drawn in proportion to a Pareto "popularity", so in-degrees and
  PageRank are heavy-tailed too;
* a fraction ``intra_fraction`` of the links stays inside the source's site (default
  0.85; measured datasets show 75-96 %);
* page sizes are log-normal.

Invariants of a :class:`Web` (checked by :meth:`Web.check`):

* pages are numbered ``0 .. size-1`` and grouped by site: site ``s`` owns the pages
  ``site_start[s] .. site_start[s+1]-1``; page ``site_start[s]`` is the site's home page;
* the out-links of page ``p`` are ``targets[offsets[p]:offsets[p+1]]`` (CSR layout), with
  no self-loop and no duplicate;
* every page is reachable from the home page of site 0 (a generated web has a random
  spanning tree of "navigation" links), so a crawl from the seeds can reach all ``size``
  pages: ``size`` is the ``U`` of coverage.

A page has two addresses (:class:`Addressing`): a *logical* URL used by the simulated
fetcher, ``http://site3.crawlab.test/p17.html`` (``.test`` is a reserved TLD), and, when
served, ``http://127.0.0.1:PORT/p17.html``; the server rewrites links accordingly.

Generation is vectorized with numpy: 10^6 pages and ~10^7 links take a few seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from crawlers.page.urls import normalize, origin_of, site_of

LOGICAL_DOMAIN = "crawlab.test"
# ASCII digits, few enough for an int64 (\d takes any script's digits and any number of them)
_LOGICAL_URL = re.compile(r"^http://site([0-9]{1,9})\.crawlab\.test/p([0-9]{1,9})\.html$")
_PAGE_PATH = re.compile(r"^/p([0-9]{1,18})\.html$")


def logical_origin(site: int) -> str:
    """The origin of site ``site`` on the simulated web: ``http://site3.crawlab.test``."""
    return f"http://site{site}.{LOGICAL_DOMAIN}"


def page_path(local: int) -> str:
    """The path of the ``local``-th page of a generated site: ``/p17.html``."""
    return f"/p{local}.html"


@dataclass(eq=False)
class Web:
    """A web graph in CSR form, grouped by site (see the module invariants).

    Read-only after construction, hence safe to share between threads and to pickle into a
    server process. ``names`` holds the URLs of a web loaded from a foreign edge list;
    it is None for generated webs, whose URLs are computed.
    """

    site_start: np.ndarray  # int64, n_sites + 1
    offsets: np.ndarray  # int64, size + 1
    targets: np.ndarray  # int32, n_edges
    page_bytes: np.ndarray  # int32, size
    seed: int | None = None
    names: list[str] | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    # -- sizes -------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of pages, the ``U`` of coverage (all are reachable from the seeds)."""
        return len(self.offsets) - 1

    @property
    def n_sites(self) -> int:
        """Number of sites."""
        return len(self.site_start) - 1

    @property
    def n_edges(self) -> int:
        """Number of links."""
        return len(self.targets)

    @property
    def page_site(self) -> np.ndarray:
        """Site of every page (int32 array, computed once)."""
        if "page_site" not in self._cache:
            sizes = np.diff(self.site_start)
            self._cache["page_site"] = np.repeat(np.arange(self.n_sites, dtype=np.int32), sizes)
        return self._cache["page_site"]

    def site_sizes(self) -> np.ndarray:
        """Pages per site."""
        return np.diff(self.site_start)

    def out_degrees(self) -> np.ndarray:
        """Out-degree of every page."""
        return np.diff(self.offsets)

    def out_links(self, page: int) -> np.ndarray:
        """Page ids linked from ``page``, in page order. O(1) (a view)."""
        return self.targets[self.offsets[page] : self.offsets[page + 1]]

    def home(self, site: int) -> int:
        """Page id of the home page of ``site``."""
        return int(self.site_start[site])

    def intra_fraction(self) -> float:
        """Measured fraction of links whose target is on the source's site. O(E)."""
        if self.n_edges == 0:
            return 0.0
        src = np.repeat(self.page_site, self.out_degrees())
        return float(np.mean(src == self.page_site[self.targets]))

    # -- addresses ---------------------------------------------------------------------
    def path(self, page: int) -> str:
        """Path (and query) of ``page`` on its site: ``/p17.html`` for generated webs."""
        if self.names is None:
            return page_path(page - int(self.site_start[self.page_site[page]]))
        parts = urlsplit(self.names[page])
        return parts.path + ("?" + parts.query if parts.query else "")

    def page_at(self, site: int, path: str) -> int | None:
        """Page id of ``path`` on ``site`` (None if there is no such page). O(len(path))."""
        if not 0 <= site < self.n_sites:
            return None
        if self.names is None:
            m = _PAGE_PATH.match(path)
            if m is None:
                return None
            page = int(self.site_start[site]) + int(m.group(1))
            return page if page < self.site_start[site + 1] else None
        if "path_index" not in self._cache:
            self._cache["path_index"] = {
                (int(self.page_site[p]), self.path(p)): p for p in range(self.size)
            }
        return self._cache["path_index"].get((site, path))

    def logical(self) -> Addressing:
        """The addressing of the simulated web (``http://siteN.crawlab.test``)."""
        if self.names is None:
            origins = [logical_origin(s) for s in range(self.n_sites)]
        else:
            origins = [origin_of(self.names[self.home(s)]) for s in range(self.n_sites)]
        return Addressing(self, origins)

    def served(self, ports: Sequence[int], host: str = "127.0.0.1") -> Addressing:
        """The addressing of the served web: site ``s`` is ``http://host:ports[s]``."""
        if len(ports) != self.n_sites:
            raise ValueError(f"need {self.n_sites} ports, got {len(ports)}")
        return Addressing(self, [f"http://{host}:{port}" for port in ports])

    # -- ground truth ------------------------------------------------------------------
    def pagerank(self, damping: float = 0.85, tol: float = 1e-12, max_iter: int = 500
                 ) -> np.ndarray:
        """PageRank of every page by power iteration (read-only array summing to 1).

        Dangling pages spread their rank uniformly. O(E) per iteration; the result is
        cached per ``damping``. Thread-safe: concurrent first calls may both compute the
        (identical) result.
        """
        key = ("pagerank", damping, tol)
        if key in self._cache:
            return self._cache[key]
        n = self.size
        degree = self.out_degrees()
        dangling = degree == 0
        inv = np.zeros(n)
        inv[~dangling] = 1.0 / degree[~dangling]
        rank = np.full(n, 1.0 / n)
        for _ in range(max_iter):
            share = np.repeat(rank * inv, degree)
            new = np.bincount(self.targets, weights=share, minlength=n)
            new = damping * (new + rank[dangling].sum() / n) + (1.0 - damping) / n
            delta = np.abs(new - rank).sum()
            rank = new
            if delta < tol:
                break
        rank /= rank.sum()
        rank.flags.writeable = False
        self._cache[key] = rank
        return rank

    def check(self) -> None:
        """Assert every invariant of the module docstring. O(V + E)."""
        n = self.size
        assert self.site_start[0] == 0 and self.site_start[-1] == n
        assert np.all(np.diff(self.site_start) >= 1), "every site has a page"
        assert self.offsets[0] == 0 and self.offsets[-1] == self.n_edges
        assert np.all(np.diff(self.offsets) >= 0)
        assert len(self.page_bytes) == n
        if self.n_edges:
            assert 0 <= self.targets.min() and self.targets.max() < n
        src = np.repeat(np.arange(n, dtype=np.int64), self.out_degrees())
        assert not np.any(src == self.targets), "no self-loop"
        keys = src * n + self.targets
        assert len(np.unique(keys)) == len(keys), "no duplicate link"

    # -- edge lists --------------------------------------------------------------------
    def export_edges(self, path: str | Path) -> None:
        """Write the plain edge list: one ``source_url target_url`` line per link.

        URLs are the logical ones, sources in page order. O(E).
        """
        addressing = self.logical()
        urls = [addressing.url(p) for p in range(self.size)]
        degree = self.out_degrees()
        with open(path, "w", encoding="utf-8") as out:
            chunk: list[str] = []
            edge = 0
            for page in range(self.size):
                source = urls[page]
                for target in self.targets[edge : edge + degree[page]].tolist():
                    chunk.append(f"{source} {urls[target]}\n")
                edge += int(degree[page])
                if len(chunk) >= 65536:
                    out.write("".join(chunk))
                    chunk.clear()
            out.write("".join(chunk))

    @classmethod
    def load_edges(cls, path: str | Path, lines: Iterable[str] | None = None) -> Web:
        """Read a plain edge list (as written by :meth:`export_edges` or by a crawl).

        Blank lines and lines starting with ``#`` are skipped. URLs are normalized. A
        list of logical URLs gives back the same page ids as the generated web; any other
        URLs are grouped by site in order of first appearance. Page sizes are not part of
        the format: they are set to 0. Self-loops and duplicates are dropped. O(E log E).
        ``lines``, when given, are the file's lines, already read (``path`` names it in
        messages).
        """
        if lines is None:
            with open(path, encoding="utf-8") as f:
                return cls.load_edges(path, f)
        ids: dict[str, int] = {}
        src: list[int] = []
        dst: list[int] = []
        for number, line in enumerate(lines, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 2:
                raise ValueError(f"{path}:{number}: expected 'source target'")
            a, b = (normalize(f) for f in fields)
            if a is None or b is None:
                raise ValueError(f"{path}:{number}: not an http(s) URL")
            src.append(ids.setdefault(a, len(ids)))
            dst.append(ids.setdefault(b, len(ids)))
        if not src:
            raise ValueError(f"{path}: no edges (expected 'source_url target_url' lines)")
        urls = list(ids)
        matches = [_LOGICAL_URL.match(u) for u in urls]
        if urls and all(matches):
            site = np.array([int(m.group(1)) for m in matches], dtype=np.int64)
            local = np.array([int(m.group(2)) for m in matches], dtype=np.int64)
            n_sites = int(site.max()) + 1
            sizes = np.ones(n_sites, dtype=np.int64)
            np.maximum.at(sizes, site, local + 1)
            names = None
        else:
            site_ids: dict[str, int] = {}
            site = np.array([site_ids.setdefault(site_of(u), len(site_ids)) for u in urls])
            order = np.argsort(site, kind="stable")
            local = np.empty(len(urls), dtype=np.int64)
            sizes = np.bincount(site, minlength=len(site_ids))
            starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            local[order] = np.arange(len(urls)) - np.repeat(starts, sizes)
            n_sites = len(site_ids)
            names = [""] * len(urls)
        site_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        new_id = site_start[site] + local
        if names is not None:
            for old, url in enumerate(urls):
                names[int(new_id[old])] = url
        n = int(site_start[-1])
        return from_edges(site_start, new_id[np.array(src, dtype=np.int64)],
                           new_id[np.array(dst, dtype=np.int64)],
                           np.zeros(n, dtype=np.int32), seed=None, names=names)


class Addressing:
    """Maps page ids to URLs and back for one set of site origins.

    ``web.logical()`` gives ``http://siteN.crawlab.test`` origins, ``web.served(ports)``
    gives ``http://127.0.0.1:PORT``; :meth:`translate` converts between two addressings.
    Immutable after construction, hence thread-safe.
    """

    def __init__(self, web: Web, origins: Sequence[str]) -> None:
        self.web = web
        self.origins: list[str] = list(origins)
        self._site_by_origin = {o: s for s, o in enumerate(self.origins)}

    def url(self, page: int) -> str:
        """The URL of ``page``. O(1)."""
        return self.origins[int(self.web.page_site[page])] + self.web.path(page)

    def seed_urls(self) -> list[str]:
        """The URL of the home page of every site, in site order."""
        return [self.url(self.web.home(s)) for s in range(self.web.n_sites)]

    def links(self, page: int) -> list[str]:
        """URLs of the out-links of ``page``, in page order. O(out-degree)."""
        return [self.url(t) for t in self.web.out_links(page).tolist()]

    def site_index(self, url: str) -> int | None:
        """The site number of a (normalized) URL, or None if it is not one of ours."""
        return self._site_by_origin.get(origin_of(url))

    def page_of(self, url: str) -> int | None:
        """The page id of a normalized URL, or None if it names no page. O(len(url))."""
        site = self.site_index(url)
        if site is None:
            return None
        parts = urlsplit(url)
        if self.web.names is None:  # generated pages have no query: ignore it (?hop=0)
            return self.web.page_at(site, parts.path)
        return self.web.page_at(site, parts.path + ("?" + parts.query if parts.query else ""))

    def translate(self, url: str, to: Addressing) -> str | None:
        """The same page's URL in the addressing ``to`` (None if not a page)."""
        page = self.page_of(url)
        return None if page is None else to.url(page)


def from_edges(site_start: np.ndarray, src: np.ndarray, dst: np.ndarray,
                page_bytes: np.ndarray, seed: int | None, names: list[str] | None) -> Web:
    """Build a :class:`Web` from an edge list: drop self-loops and duplicates, keep each
    page's links in their first-seen order, lay them out in CSR. O(E log E)."""
    n = int(site_start[-1])
    keep = src != dst
    src, dst = src[keep], dst[keep]
    keys = src.astype(np.int64) * n + dst
    _, first = np.unique(keys, return_index=True)
    first.sort()
    src, dst = src[first], dst[first]
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int64)
    return Web(site_start=site_start.astype(np.int64), offsets=offsets,
               targets=dst.astype(np.int32), page_bytes=page_bytes.astype(np.int32),
               seed=seed, names=names)


def generate(
    n_pages: int = 3000,
    n_sites: int = 30,
    *,
    seed: int = 0,
    intra_fraction: float = 0.85,
    mean_degree: float = 8.0,
    degree_alpha: float = 1.7,
    max_degree: int = 300,
    site_alpha: float = 1.5,
    popularity_alpha: float = 1.1,
    dangling_fraction: float = 0.05,
    mean_page_bytes: int = 16_000,
    page_bytes_sigma: float = 1.0,
    max_page_bytes: int = 1_000_000,
) -> Web:
    """Generate a web of ``n_pages`` pages over ``n_sites`` sites; same seed, same web.

    Pages per site ~ 1 + Multinomial with Pareto(``site_alpha``) weights; out-degree
    ~ Pareto(``degree_alpha``) scaled to mean about ``mean_degree`` and capped at
    ``max_degree`` (a ``dangling_fraction`` of pages has no links); targets ~ popularity
    Pareto(``popularity_alpha``), home pages 10x more popular. The navigation tree (each
    page linked from an earlier page of its site, each home page from an earlier site)
    counts towards ``intra_fraction``, which the random links compensate. Page sizes are
    log-normal with mean ``mean_page_bytes``.

    Time and memory O(n_pages * mean_degree), vectorized.
    """
    if n_sites < 1 or n_pages < n_sites:
        raise ValueError("need n_sites >= 1 and n_pages >= n_sites")
    if not 0.0 <= intra_fraction <= 1.0:
        raise ValueError("intra_fraction must be in [0, 1]")
    if degree_alpha <= 1.0:
        raise ValueError("degree_alpha must be > 1 (finite mean)")
    rng = np.random.default_rng(seed)
    n = n_pages

    # Sites: heavy-tailed sizes, at least one page each.
    weights = rng.pareto(site_alpha, n_sites) + 1.0
    sizes = 1 + rng.multinomial(n - n_sites, weights / weights.sum())
    site_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    page_site = np.repeat(np.arange(n_sites), sizes)
    local = np.arange(n) - site_start[page_site]

    # Popularity: heavy-tailed, home pages boosted; cumulative weights for sampling.
    popularity = rng.pareto(popularity_alpha, n) + 1.0
    popularity[site_start[:-1]] *= 10.0
    cumulative = np.concatenate([[0.0], np.cumsum(popularity)])

    # Navigation tree: page k>0 of a site <- a random earlier page of the site;
    # home of site s>0 <- a random page of a random earlier site.
    inner = local > 0
    nav_dst = np.flatnonzero(inner)
    nav_src = site_start[page_site[nav_dst]] + np.floor(
        rng.random(len(nav_dst)) * local[nav_dst]).astype(np.int64)
    later = np.arange(1, n_sites)
    from_site = np.floor(rng.random(len(later)) * later).astype(np.int64)
    from_page = site_start[from_site] + np.floor(
        rng.random(len(later)) * sizes[from_site]).astype(np.int64)
    nav_src = np.concatenate([nav_src, from_page])
    nav_dst = np.concatenate([nav_dst, site_start[later]])

    # Random links: heavy-tailed out-degree.
    scale = mean_degree * (degree_alpha - 1.0) / degree_alpha
    degree = np.floor(scale * (rng.pareto(degree_alpha, n) + 1.0)).astype(np.int64)
    degree = np.minimum(degree, min(max_degree, n - 1))
    degree[rng.random(n) < dangling_fraction] = 0
    src = np.repeat(np.arange(n, dtype=np.int64), degree)
    e = len(src)
    nav_intra = n - n_sites
    q = (intra_fraction * (e + len(nav_src)) - nav_intra) / e if e else 0.0
    intra = rng.random(e) < min(1.0, max(0.0, q))
    if n_sites == 1:
        intra[:] = True
    src_site = page_site[src]
    lo = cumulative[site_start[src_site]]
    hi = cumulative[site_start[src_site + 1]]
    u = np.where(intra, lo + rng.random(e) * (hi - lo), rng.random(e) * cumulative[-1])
    dst = np.searchsorted(cumulative, u, side="right") - 1
    dst = np.clip(dst, np.where(intra, site_start[src_site], 0),
                  np.where(intra, site_start[src_site + 1] - 1, n - 1))
    for _ in range(20):  # inter-site links that landed on their own site: draw again
        again = np.flatnonzero(~intra & (page_site[dst] == src_site))
        if len(again) == 0:
            break
        u = rng.random(len(again)) * cumulative[-1]
        dst[again] = np.minimum(np.searchsorted(cumulative, u, side="right") - 1, n - 1)

    # Page sizes: log-normal.
    mu = np.log(mean_page_bytes) - page_bytes_sigma**2 / 2.0
    page_bytes = np.clip(rng.lognormal(mu, page_bytes_sigma, n), 512, max_page_bytes)

    return from_edges(site_start, np.concatenate([nav_src, src]),
                       np.concatenate([nav_dst, dst]), page_bytes.astype(np.int32),
                       seed=seed, names=None)
