"""A crawl graph, its site hypergraph, and the message model of the exchange scheme.

In the *exchange* scheme of parallel crawling, every URL has one owner among K crawlers, and a
crawler that fetches page ``p`` sends the links it found to the owners of their targets. Links
for the same owner travel together, so page ``p`` costs one message per distinct **other**
part among the parts of the pages it links to::

    messages(p) = |{part(t) : p -> t} - {part(p)}|

This module counts that, and builds the structure whose partitioning minimizes it when pages
are assigned by site (Turk, Cambazoglu and Aykanat, "Hypergraph-theoretic partitioning models
for parallel web crawling", 2012):

:class:`CrawlGraph`
    pages (URLs), the site of each page (``host:port``, :func:`crawlers.page.urls.site_of`) and the
    links. Invariants: pages are ``0 .. n_pages-1`` and every one is named by at least one
    link; ``page_site[p]`` is in ``0 .. n_sites-1`` and every site has a page; ``src``/``dst``
    hold each link once, without self-loops.
:class:`SiteHypergraph`
    one vertex per site, weighted by its pages (and bytes where known); one net per page that
    has at least one inter-site link, of cost 1, whose pins are the page's own site and the
    sites it links to. Invariants (checked by :meth:`SiteHypergraph.check`): the pins of a net
    are distinct, sorted, at least two, and include the net's own site.

For a partition of the sites, a net's *connectivity* ``lambda`` is the number of parts its pins
touch; the page's messages are exactly ``lambda - 1``, so the total message count is the
hypergraph's connectivity-1 (km1) cut. A *graph* model that cuts links instead counts one per
inter-part link, which overcounts a page with several links into the same part
(:func:`cut_links`).

Everything here is immutable after construction, hence thread-safe; the counts are vectorized
with numpy, O(links log links).
"""

from __future__ import annotations

import io
import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crawlers.page.urls import site_of
from crawlers.web.webgen import Addressing, Web

__all__ = [
    "MAX_GRAPH_BYTES",
    "MAX_GRAPH_LINE",
    "CrawlGraph",
    "SiteHypergraph",
    "cut_links",
    "imbalance_percent",
    "messages",
    "messages_per_page",
    "read_graph",
    "site_hypergraph",
]


@dataclass(frozen=True, eq=False)
class CrawlGraph:
    """Pages, their sites and the links between them (see the module invariants).

    ``page_bytes`` is None when sizes are unknown (an edge list does not carry them).
    """

    urls: list[str]
    site_names: list[str]
    page_site: np.ndarray  # int64, one per page
    src: np.ndarray  # int64, one per link
    dst: np.ndarray  # int64, one per link
    page_bytes: np.ndarray | None = None

    @property
    def n_pages(self) -> int:
        return len(self.urls)

    @property
    def n_sites(self) -> int:
        return len(self.site_names)

    @property
    def n_links(self) -> int:
        return len(self.src)

    def site_pages(self) -> np.ndarray:
        """Pages per site (int64). O(pages)."""
        return np.bincount(self.page_site, minlength=self.n_sites)

    def site_bytes(self) -> np.ndarray | None:
        """Bytes per site, or None when page sizes are unknown. O(pages)."""
        if self.page_bytes is None:
            return None
        return np.bincount(self.page_site, weights=self.page_bytes,
                           minlength=self.n_sites).astype(np.int64)

    def intra_fraction(self) -> float:
        """Fraction of links whose target is on the source's site. O(links)."""
        if self.n_links == 0:
            return 0.0
        return float(np.mean(self.page_site[self.src] == self.page_site[self.dst]))

    @classmethod
    def from_web(cls, web: Web, addressing: Addressing | None = None) -> CrawlGraph:
        """The crawl graph of ``web`` under ``addressing`` (default: its logical URLs).

        Pages that no link names (a gap in an edge list of logical URLs) are left out, as
        are sites left without a page. Page sizes are kept if the web has any. O(pages +
        links), plus one URL string per page.
        """
        addressing = addressing or web.logical()
        degree = web.out_degrees()
        src = np.repeat(np.arange(web.size, dtype=np.int64), degree)
        dst = web.targets.astype(np.int64)
        present = np.zeros(web.size, dtype=bool)
        present[src] = True
        present[dst] = True
        kept = np.flatnonzero(present)
        new_id = np.full(web.size, -1, dtype=np.int64)
        new_id[kept] = np.arange(len(kept))
        urls = [addressing.url(int(p)) for p in kept]
        old_site = web.page_site[kept]
        used, page_site = np.unique(old_site, return_inverse=True)
        site_names = [site_of(addressing.url(web.home(int(s)))) for s in used]
        sizes = web.page_bytes[kept]
        return cls(urls=urls, site_names=site_names, page_site=page_site.astype(np.int64),
                   src=new_id[src], dst=new_id[dst],
                   page_bytes=sizes.astype(np.int64) if np.any(sizes) else None)


MAX_GRAPH_BYTES = 256 * 2**20
"""The largest edge list ``read_graph`` reads (some 3 million links): a larger file is refused
before a byte of it is read."""
MAX_GRAPH_LINE = 64 * 2**10
"""The longest line (characters) of an edge list: two URLs, far beyond the default
``--max-url-length`` (2083); no longer line is held in memory."""


def read_graph(path: str | Path) -> CrawlGraph:
    """Read an edge list (one ``source_url target_url`` per line, as ``crawlab crawl --out``
    writes ``edges.txt`` and :meth:`~crawlers.web.webgen.Web.export_edges` writes).

    Raises ValueError with a one-line message if the file is missing, unreadable, not a
    regular file, larger than :data:`MAX_GRAPH_BYTES`, a line is longer than
    :data:`MAX_GRAPH_LINE` or malformed, or it holds no link. URLs are normalized; self-loops
    and duplicates dropped. O(links log links); opened non-blocking, so no file makes it wait.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"graph file {path} is a directory, not an edge list")
    if not path.exists():
        raise ValueError(f"graph file not found: {path}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    lines = None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"graph file {path} is not a regular file (an edge list is one)")
        if st.st_size > MAX_GRAPH_BYTES:
            raise ValueError(f"graph file {path}: {st.st_size:,} bytes, more than the "
                             f"{MAX_GRAPH_BYTES:,} an edge list may have")
        os.set_blocking(fd, True)
        raw = open(fd, "rb", closefd=False)
        with raw, io.TextIOWrapper(raw, encoding="utf-8") as text:
            lines = _Lines(path, raw, text)
            web = Web.load_edges(path, lines)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text edge list") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError:
        if lines is not None and lines.ended and not lines.links:  # load_edges' "no edges"
            raise ValueError(f"{path}: no links (expected 'source_url target_url' lines)"
                             ) from None
        raise
    finally:
        os.close(fd)
    if web.n_edges == 0:
        raise ValueError(f"{path}: no links (expected 'source_url target_url' lines)")
    return CrawlGraph.from_web(web)


class _Lines:
    """The lines of an edge list being read, each at most :data:`MAX_GRAPH_LINE` characters
    and all of them within :data:`MAX_GRAPH_BYTES` (a file that grows while read is refused,
    not cut short); ``links`` counts the lines that are neither blank nor comments, ``ended``
    says all were read."""

    def __init__(self, path: Path, raw: io.BufferedReader, text: io.TextIOWrapper) -> None:
        self.path, self.raw, self.text = path, raw, text
        self.links = 0
        self.ended = False

    def __iter__(self) -> Iterator[str]:
        for number in itertools.count(1):
            line = self.text.readline(MAX_GRAPH_LINE + 1)
            if not line:
                self.ended = True
                return
            if len(line.rstrip("\r\n")) > MAX_GRAPH_LINE:
                raise ValueError(f"{self.path}:{number}: a line longer than "
                                 f"{MAX_GRAPH_LINE:,} characters, the most an edge list's "
                                 "line may have")
            if self.raw.tell() > MAX_GRAPH_BYTES:
                raise ValueError(f"graph file {self.path}: more than the {MAX_GRAPH_BYTES:,} "
                                 "bytes an edge list may have")
            if line.split() and not line.lstrip().startswith("#"):
                self.links += 1
            yield line


# -- the site hypergraph -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SiteHypergraph:
    """Sites as vertices, pages with inter-site links as nets (see the module invariants).

    Net ``j`` stands for page ``net_page[j]``; its pins are
    ``pins[net_start[j]:net_start[j+1]]``, site ids in increasing order.
    """

    site_pages: np.ndarray  # vertex weight w2: pages per site
    site_bytes: np.ndarray | None  # vertex weight w1: bytes per site, when known
    net_page: np.ndarray  # page of each net
    net_start: np.ndarray  # CSR offsets, n_nets + 1
    pins: np.ndarray  # site ids

    @property
    def n_vertices(self) -> int:
        return len(self.site_pages)

    @property
    def n_nets(self) -> int:
        return len(self.net_page)

    @property
    def n_pins(self) -> int:
        return len(self.pins)

    def net_pins(self, net: int) -> np.ndarray:
        """The pins of net ``net`` (a view). O(1)."""
        return self.pins[self.net_start[net] : self.net_start[net + 1]]

    def connectivity(self, site_part: np.ndarray) -> np.ndarray:
        """``lambda`` of every net: the number of distinct parts its pins touch. O(pins log
        pins)."""
        net_of_pin = np.repeat(np.arange(self.n_nets, dtype=np.int64), np.diff(self.net_start))
        k = int(site_part.max()) + 1 if len(site_part) else 1
        keys = np.unique(net_of_pin * k + site_part[self.pins])
        return np.bincount(keys // k, minlength=self.n_nets)

    def connectivity_minus_one(self, site_part: np.ndarray) -> int:
        """The km1 cut ``sum over nets of (lambda - 1)`` (every net costs 1)."""
        return int(np.sum(self.connectivity(site_part) - 1))

    def merged(self) -> tuple[list[int], list[int], list[int]]:
        """Nets with identical pin sets merged into one of weight = their number.

        Returns ``(index_vector, edge_vector, edge_weights)`` in the layout
        ``kahypar.Hypergraph`` takes. The km1 cut of any partition is unchanged (a net of
        weight c counts c * (lambda - 1)). O(pins).
        """
        weight: dict[bytes, int] = {}
        first: dict[bytes, int] = {}
        for j in range(self.n_nets):
            key = self.net_pins(j).tobytes()
            if key in weight:
                weight[key] += 1
            else:
                weight[key] = 1
                first[key] = j
        index, edges, weights = [0], [], []
        for key, j in first.items():
            edges.extend(self.net_pins(j).tolist())
            index.append(len(edges))
            weights.append(weight[key])
        return index, edges, weights

    def check(self, graph: CrawlGraph | None = None) -> None:
        """Assert every invariant of the module docstring (and, given the graph it was built
        from, that nets and weights match it). O(pins + links)."""
        assert self.net_start[0] == 0 and self.net_start[-1] == self.n_pins
        sizes = np.diff(self.net_start)
        assert np.all(sizes >= 2), "a net has at least its own site and one other"
        for j in range(self.n_nets):
            pins = self.net_pins(j)
            assert np.all(np.diff(pins) > 0), f"pins of net {j} sorted and distinct"
            if graph is not None:
                assert graph.page_site[self.net_page[j]] in pins, "a net pins its own site"
        assert np.all(self.site_pages >= 1), "every site has a page"
        if graph is not None:
            assert np.array_equal(self.site_pages, graph.site_pages())
            inter = graph.page_site[graph.src] != graph.page_site[graph.dst]
            assert np.array_equal(self.net_page, np.unique(graph.src[inter]))


def site_hypergraph(graph: CrawlGraph) -> SiteHypergraph:
    """The site hypergraph of ``graph`` (paper, Section 3, equation 3). O(links log links)."""
    s = graph.n_sites
    src_site = graph.page_site[graph.src]
    dst_site = graph.page_site[graph.dst]
    inter = src_site != dst_site
    net_page = np.unique(graph.src[inter])
    # pins: (page, site) pairs, the targets' sites plus the page's own site, each pair once
    keys = np.unique(np.concatenate([
        graph.src[inter] * s + dst_site[inter],
        net_page * s + graph.page_site[net_page],
    ]))
    page_of_pin, pins = keys // s, keys % s
    counts = np.bincount(np.searchsorted(net_page, page_of_pin), minlength=len(net_page))
    net_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return SiteHypergraph(site_pages=graph.site_pages(), site_bytes=graph.site_bytes(),
                          net_page=net_page, net_start=net_start, pins=pins.astype(np.int64))


# -- what a partition costs ----------------------------------------------------------------------


def messages_per_page(graph: CrawlGraph, page_part: np.ndarray) -> np.ndarray:
    """Messages each page sends: distinct other parts among its link targets' parts.

    ``page_part[p]`` is the part (crawler) owning page ``p``. O(links log links).
    """
    k = int(page_part.max()) + 1 if graph.n_pages else 1
    own = page_part[graph.src]
    other = page_part[graph.dst]
    away = own != other
    keys = np.unique(graph.src[away] * k + other[away])
    return np.bincount(keys // k, minlength=graph.n_pages)


def messages(graph: CrawlGraph, page_part: np.ndarray) -> int:
    """Total messages of the exchange scheme when every page is fetched once (see the
    module docstring); for a site-based partition, the km1 cut of the site hypergraph."""
    return int(messages_per_page(graph, page_part).sum())


def cut_links(graph: CrawlGraph, page_part: np.ndarray) -> int:
    """Links whose ends are owned by different parts: the *graph* model's cut, which counts a
    page's links into one other part once each, where the crawler sends one message. O(links)."""
    return int(np.count_nonzero(page_part[graph.src] != page_part[graph.dst]))


def imbalance_percent(weights: np.ndarray, part: np.ndarray, parts: int) -> float:
    """Load imbalance ``(max part weight / average part weight - 1) * 100``. O(len(weights)).

    ``weights[i]`` is the load of item ``i`` (a page, or a site's pages or bytes) and
    ``part[i]`` its part in ``0 .. parts-1``.
    """
    load = np.bincount(part, weights=weights, minlength=parts)
    average = load.sum() / parts
    return 0.0 if average == 0 else float((load.max() / average - 1.0) * 100.0)
