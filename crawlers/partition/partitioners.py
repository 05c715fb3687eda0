"""Give the pages of a crawl graph to K crawlers three ways, and measure what each costs.

``page-hash``
    every page by ``MD5(url) mod K`` (:class:`crawlers.partition.assignment.PageHash`):
    balanced, but nearly every link leaves its crawler. It assigns pages, not sites, so it has
    no partition file: a crawl uses it with ``--partition page-hash``.
``site-hash``
    every site by ``MD5(host:port) mod K`` (:class:`crawlers.partition.assignment.SiteHash`),
    the classic scheme: links inside a site stay local, but neither balance nor messages are
    optimized.
``hypergraph``
    the sites partitioned by KaHyPar on the site hypergraph
    (:func:`crawlers.partition.hypergraph.site_hypergraph`), minimizing connectivity-1 (the
    messages) under the balance constraint ``pages(part) <= (1 + epsilon) * pages / K``.

KaHyPar balances one vertex weight, so the hypergraph method balances pages (the paper's
download-request constraint, the one its Table 2 reports); bytes, when known, are only
measured. KaHyPar needs a preset: the ``kahypar`` wheel ships none, so ours is the package data
file ``crawlers/partition/kahypar_km1_kway.ini`` (KaHyPar's direct k-way km1 preset). Runs are
deterministic for a given seed.

A :class:`Partition` is immutable, hence thread-safe. KaHyPar itself is not re-entrant across
threads in one process (it keeps global state); call :func:`hypergraph` from one thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from crawlers.partition.assignment import PageHash, md5_bucket, write_partition_file
from crawlers.partition.hypergraph import (
    CrawlGraph,
    SiteHypergraph,
    cut_links,
    imbalance_percent,
    messages_per_page,
    site_hypergraph,
)

__all__ = [
    "METHODS",
    "Partition",
    "check_parts",
    "evaluate",
    "hypergraph",
    "kahypar_preset",
    "page_hash",
    "partition",
    "site_hash",
    "write",
]

METHODS = ("page-hash", "site-hash", "hypergraph")
PRESET = "kahypar_km1_kway.ini"


@dataclass(frozen=True, eq=False)
class Partition:
    """Who crawls what: ``page_part[p]`` owns page ``p``; for site-based methods
    ``site_part[s]`` owns site ``s`` and ``page_part == site_part[page_site]``.

    Invariant: every entry is in ``0 .. parts-1``; ``site_part`` is None only for page-hash.
    """

    method: str
    parts: int
    page_part: np.ndarray
    site_part: np.ndarray | None
    seconds: float = 0.0
    seed: int | None = None
    epsilon: float | None = None

    def table(self, graph: CrawlGraph) -> dict[str, int]:
        """``{site name: part}`` for a site-based partition; ValueError for page-hash."""
        if self.site_part is None:
            raise ValueError(
                f"{self.method} assigns pages, not sites: it has no partition file "
                f"(crawl with --partition {self.method})")
        return {name: int(p) for name, p in zip(graph.site_names, self.site_part.tolist())}


def check_parts(graph: CrawlGraph, parts: int, method: str) -> None:
    """Raise ValueError (one line) unless ``parts`` fits ``method`` on ``graph``: at least 2,
    and at most the number of sites (site-based) or of pages (page-hash)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid methods: {', '.join(METHODS)}")
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 2:
        raise ValueError(f"the number of parts must be at least 2, got {parts}")
    if method == "page-hash":
        if parts > graph.n_pages:
            raise ValueError(f"{parts} parts but the graph has only {graph.n_pages} pages")
    elif parts > graph.n_sites:
        raise ValueError(f"{parts} parts but the graph has only {graph.n_sites} sites "
                         f"({method} assigns whole sites)")


def page_hash(graph: CrawlGraph, parts: int) -> Partition:
    """Every page by ``MD5(url) mod parts``. O(total URL length)."""
    started = time.perf_counter()
    owner = PageHash(parts).owner
    page_part = np.fromiter((owner(u) for u in graph.urls), dtype=np.int64,
                            count=graph.n_pages)
    return Partition("page-hash", parts, page_part, None, time.perf_counter() - started)


def site_hash(graph: CrawlGraph, parts: int) -> Partition:
    """Every site by ``MD5(host:port) mod parts``, as
    :class:`~crawlers.partition.assignment.SiteHash` would own its URLs. O(sites + pages)."""
    started = time.perf_counter()
    site_part = np.fromiter((md5_bucket(s, parts) for s in graph.site_names), dtype=np.int64,
                            count=graph.n_sites)
    return Partition("site-hash", parts, site_part[graph.page_site], site_part,
                     time.perf_counter() - started)


def kahypar_preset() -> Path:
    """Path of our KaHyPar preset (package data next to this module)."""
    return Path(str(resources.files("crawlers.partition").joinpath(PRESET)))


def hypergraph(graph: CrawlGraph, parts: int, epsilon: float = 0.05, seed: int = 1,
               hg: SiteHypergraph | None = None) -> Partition:
    """Sites partitioned by KaHyPar: minimum connectivity-1 with pages balanced within
    ``epsilon``. Identical nets are merged (weight = multiplicity) before solving, which
    leaves the objective unchanged. Same seed, same partition.

    A site heavier than ``(1 + epsilon) * pages / parts`` makes the constraint infeasible;
    KaHyPar then returns its best effort and the measured imbalance says so. Each call
    builds a fresh ``kahypar.Context`` (a reused one asks questions on standard input).
    """
    try:
        import kahypar
    except ImportError:
        raise ValueError("the hypergraph method needs kahypar: pip install 'crawlab[partition]'"
                         ) from None
    if not 0.0 < epsilon < 1.0:
        raise ValueError(f"epsilon must be in (0, 1), got {epsilon}")
    hg = hg or site_hypergraph(graph)
    started = time.perf_counter()
    index, pins, weights = hg.merged()
    if not weights:  # no inter-site link: every split sends nothing (and KaHyPar crashes
        site_part = _pack(hg.site_pages, parts)  # on a hypergraph without nets)
        return Partition("hypergraph", parts, site_part[graph.page_site], site_part,
                         time.perf_counter() - started, seed=seed, epsilon=epsilon)
    solver_graph = kahypar.Hypergraph(hg.n_vertices, len(weights), index, pins, parts,
                                      weights, hg.site_pages.tolist())
    context = kahypar.Context()
    context.loadINIconfiguration(str(kahypar_preset()))
    context.setK(parts)
    context.setEpsilon(epsilon)
    context.setSeed(seed)
    context.suppressOutput(True)
    kahypar.partition(solver_graph, context)
    site_part = np.fromiter((solver_graph.blockID(v) for v in range(hg.n_vertices)),
                            dtype=np.int64, count=hg.n_vertices)
    return Partition("hypergraph", parts, site_part[graph.page_site], site_part,
                     time.perf_counter() - started, seed=seed, epsilon=epsilon)


def _pack(weights: np.ndarray, parts: int) -> np.ndarray:
    """Largest weight first into the lightest part (LPT): the balance of a partition with
    nothing to cut. O(n log n + n * parts)."""
    load = np.zeros(parts)
    part = np.empty(len(weights), dtype=np.int64)
    for i in np.argsort(-weights, kind="stable").tolist():
        part[i] = int(np.argmin(load))
        load[part[i]] += weights[i]
    return part


def partition(graph: CrawlGraph, parts: int, method: str, *, epsilon: float = 0.05,
              seed: int = 1, hg: SiteHypergraph | None = None) -> Partition:
    """Partition ``graph`` into ``parts`` with ``method`` (one of :data:`METHODS`), after
    :func:`check_parts`."""
    check_parts(graph, parts, method)
    if method == "page-hash":
        return page_hash(graph, parts)
    if method == "site-hash":
        return site_hash(graph, parts)
    return hypergraph(graph, parts, epsilon=epsilon, seed=seed, hg=hg)


def evaluate(graph: CrawlGraph, part: Partition, hg: SiteHypergraph | None = None
             ) -> dict[str, Any]:
    """The numbers of one partition: balance, messages (the exchange-scheme model), the
    graph model's cut links, and the size of the site hypergraph. O(links log links)."""
    hg = hg or site_hypergraph(graph)
    sent = messages_per_page(graph, part.page_part)
    row: dict[str, Any] = {
        "method": part.method,
        "parts": part.parts,
        "sites": graph.n_sites,
        "pages": graph.n_pages,
        "links": graph.n_links,
        "intra_site_percent": round(100.0 * graph.intra_fraction(), 2),
        "nets": hg.n_nets,
        "pins": hg.n_pins,
        "imbalance_percent": round(imbalance_percent(
            np.ones(graph.n_pages), part.page_part, part.parts), 2),
        "bytes_imbalance_percent": None,
        "messages": int(sent.sum()),
        "pages_sending": int(np.count_nonzero(sent)),
        "cut_links": cut_links(graph, part.page_part),
        "km1": None,
        "seconds": round(part.seconds, 3),
        "seed": part.seed,
        "epsilon": part.epsilon,
    }
    if graph.page_bytes is not None:
        row["bytes_imbalance_percent"] = round(imbalance_percent(
            graph.page_bytes.astype(float), part.page_part, part.parts), 2)
    if part.site_part is not None:
        row["km1"] = hg.connectivity_minus_one(part.site_part)
    return row


def write(part: Partition, graph: CrawlGraph, path: str | Path) -> None:
    """Write a site-based partition as a partition file ``crawlab bsp --partition`` reads
    (:func:`crawlers.partition.assignment.write_partition_file`); ValueError for page-hash."""
    extra = f" seed={part.seed} epsilon={part.epsilon}" if part.method == "hypergraph" else ""
    write_partition_file(path, part.table(graph), part.parts, method=part.method,
                         comment=f"{graph.n_sites} sites, {graph.n_pages} pages{extra}")
