"""Predicting R_x, the batch a BSP crawler may download between two supersteps, off-line.

Marin, Paredes and Bonacic (2008, Section 2) choose how many pages each processor downloads
per superstep from a previous crawl of the same web. Replay that crawl in PageRank order
through a queue ``Q_x`` and simulate P processors that only exchange the URLs they discover at
a superstep's barrier:

1. ``S = 0``; ``C[i] = 0`` (pages downloaded by processor ``i``), ``M[i] = 0`` (messages
   buffered for processor ``i``), ``W = {}`` (URLs discovered in the current superstep).
2. Take the next page ``n`` from ``Q_x`` (highest PageRank first).
3. ``p = owner(n)``; ``C[p] += 1``.
4. If some ``M[i] > beta``: the superstep ends (``S += 1``): reset every ``M``, empty ``W``.
5. For every link ``k`` of ``n``: ``M[owner(k)] += 1`` and ``k`` joins ``W``.
6. Repeat from 2 until ``Q_x`` is empty.

The *error* of a superstep is ``A / B``: ``B`` pages were taken from ``Q_x`` during it, and
``A`` of them were in ``W`` when taken. A real BSP crawler could not have downloaded those in
that superstep: their URL was still sitting in a message buffer. Finally ``R_x = max(C) / S``,
the busiest processor's pages per superstep. :func:`search_beta` finds, by binary search over
runs, the largest tolerance ``beta`` whose average error stays below a threshold.

Readings of the paper's text that this module fixes (each is a parameter where it matters):

* a message is one URL: a page with 3 links to processor ``i`` adds 3 to ``M[i]``; links to
  the page's own processor count too (``count_local=True``, the literal step 5: in the BSP
  crawler even local URLs reach the queue only at the barrier);
* page ``n`` of step 4 opens the new superstep: it is checked against the emptied ``W``, and
  its links are the first messages of the new superstep;
* ``S`` counts supersteps including the last, partial one (the paper's counter counts the cuts,
  one fewer), so ``R_x`` is defined even when no cut happens;
* the average error is the mean of the per-superstep ratios (:attr:`RxResult.mean_error`);
  the page-weighted ratio ``sum A / sum B`` is given too (:attr:`RxResult.overall_error`).

Two implementations: :func:`predict_reference` follows the six steps literally (a loop per
page and per link, O(V + E) Python steps: the one to read), and :func:`predict`, the same
result with numpy (:class:`RxModel`): prefix sums of the messages per processor, one binary
search per processor per superstep to find where ``M[i]`` first exceeds ``beta``.
O(E + V log V + S P log V) with small constants; the tests check that both agree. All
functions are pure (thread-safe).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from crawlers.partition.assignment import Assignment, SiteHash, SiteTable, make_assignment
from crawlers.web.webgen import Web

__all__ = [
    "BetaSearch",
    "RxModel",
    "RxResult",
    "page_owners",
    "predict",
    "predict_reference",
    "priority_order",
    "search_beta",
]


@dataclass
class RxResult:
    """One run of the prediction for one tolerance ``beta``.

    Invariants: ``starts[0] == 0``, ``starts`` strictly increasing, ``len(starts) ==
    supersteps == len(errors) == len(sizes)``, ``sizes.sum() == counts.sum() ==`` pages.
    """

    beta: int
    processors: int
    supersteps: int
    counts: np.ndarray  # C[i]: pages downloaded by processor i
    starts: np.ndarray  # position in Q_x order of each superstep's first page
    sizes: np.ndarray  # B: pages taken from Q_x in each superstep
    missed: np.ndarray  # A: of those, pages that were in W when taken
    rx: float = field(init=False)  # max(C) / S
    errors: np.ndarray = field(init=False)  # A / B per superstep

    def __post_init__(self) -> None:
        self.rx = float(self.counts.max()) / self.supersteps if self.supersteps else 0.0
        self.errors = self.missed / np.maximum(self.sizes, 1)

    @property
    def mean_error(self) -> float:
        """The paper's average error: the mean of ``A / B`` over the supersteps."""
        return float(self.errors.mean()) if self.supersteps else 0.0

    @property
    def overall_error(self) -> float:
        """``sum(A) / sum(B)``: the share of all pages taken too early."""
        total = int(self.sizes.sum())
        return float(self.missed.sum()) / total if total else 0.0

    @property
    def pages_per_superstep(self) -> float:
        """``sum(C) / (S * P)``: the average batch of one processor (``R_x`` if balanced)."""
        return float(self.counts.sum()) / (self.supersteps * self.processors) if self.supersteps \
            else 0.0

    def check(self) -> None:
        """Assert the invariants of the class docstring."""
        assert self.supersteps == len(self.starts) == len(self.sizes) == len(self.missed)
        if self.supersteps:
            assert self.starts[0] == 0 and np.all(np.diff(self.starts) > 0)
            assert np.all(self.sizes >= 1) and np.all(self.missed <= self.sizes)
        assert int(self.sizes.sum()) == int(self.counts.sum())


@dataclass
class BetaSearch:
    """What :func:`search_beta` found: ``beta`` (None if even ``lo`` misses the threshold),
    its run, and every probe ``(beta, mean_error, rx)`` in the order it was made."""

    threshold: float
    beta: int | None
    result: RxResult | None
    probes: list[tuple[int, float, float]]


# -- inputs -------------------------------------------------------------------------------------


def page_owners(web: Web, assignment: Assignment) -> np.ndarray:
    """The processor of every page (int64 array) under ``assignment``, with the web's logical
    URLs. Site-level assignments are evaluated once per site, others once per page. O(V)."""
    addressing = web.logical()
    if isinstance(assignment, (SiteHash, SiteTable)):
        per_site = np.array([assignment.owner(addressing.url(web.home(s)))
                             for s in range(web.n_sites)], dtype=np.int64)
        return per_site[web.page_site]
    return np.array([assignment.owner(addressing.url(p)) for p in range(web.size)],
                    dtype=np.int64)


def priority_order(priority: np.ndarray) -> np.ndarray:
    """``Q_x``: page ids by decreasing priority, ties by page id. O(V log V)."""
    return np.argsort(-np.asarray(priority, dtype=float), kind="stable")


def _inputs(web: Web, processors: int, assignment: Assignment | str | None,
            priority: np.ndarray | None, owners: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(processors, bool) or not isinstance(processors, int) or processors < 1:
        raise ValueError(f"processors must be a positive integer, got {processors!r}")
    if owners is None:
        if assignment is None or isinstance(assignment, str):
            assignment = make_assignment(assignment or "site-hash", processors)
        if assignment.parts != processors:
            raise ValueError(f"the assignment has {assignment.parts} parts, not {processors}")
        owners = page_owners(web, assignment)
    owners = np.asarray(owners, dtype=np.int64)
    if len(owners) != web.size or (web.size and not 0 <= owners.min() <= owners.max()
                                   < processors):
        raise ValueError("owners must give every page a processor in 0..P-1")
    order = priority_order(web.pagerank() if priority is None else priority)
    return order, owners


def _check_beta(beta: int) -> int:
    if isinstance(beta, bool) or not isinstance(beta, (int, np.integer)) or beta < 0:
        raise ValueError(f"the tolerance beta must be a non-negative integer, got {beta!r}")
    return int(beta)


# -- the literal algorithm ----------------------------------------------------------------------


def predict_reference(web: Web, processors: int, beta: int, *,
                      assignment: Assignment | str | None = None,
                      priority: np.ndarray | None = None, owners: np.ndarray | None = None,
                      count_local: bool = True) -> RxResult:
    """The six steps of the module docstring, one page and one link at a time. O(V + E).

    ``owners`` (processor per page) overrides ``assignment`` (default site-hash); ``priority``
    overrides PageRank. Slow on big webs: use :func:`predict`, which gives the same result.
    """
    beta = _check_beta(beta)
    order, owners = _inputs(web, processors, assignment, priority, owners)
    counts = np.zeros(processors, dtype=np.int64)  # step 1
    messages = [0] * processors
    discovered: set[int] = set()
    starts: list[int] = [0] if web.size else []
    sizes: list[int] = []
    missed: list[int] = []
    taken = late = 0  # B and A of the current superstep
    for position, page in enumerate(order.tolist()):  # step 2
        p = int(owners[page])
        counts[p] += 1  # step 3
        if any(m > beta for m in messages):  # step 4
            sizes.append(taken)
            missed.append(late)
            starts.append(position)
            taken = late = 0
            messages = [0] * processors
            discovered.clear()
        taken += 1
        if page in discovered:
            late += 1
        for k in web.out_links(page).tolist():  # step 5
            target = int(owners[k])
            if count_local or target != p:
                messages[target] += 1
            discovered.add(k)
    if web.size:
        sizes.append(taken)
        missed.append(late)
    return RxResult(beta, processors, len(starts), counts, np.array(starts, dtype=np.int64),
                    np.array(sizes, dtype=np.int64), np.array(missed, dtype=np.int64))


# -- the vectorized algorithm -------------------------------------------------------------------


class RxModel:
    """The prediction for one web, P, assignment and priority, ready to run for any
    ``beta``: per-processor message prefix sums and the links in ``Q_x`` positions, built
    once (O(E + P V) time, O(P V) memory); :meth:`run` is then O(V + E + S P log V).

    ``owners`` (processor per page) overrides ``assignment`` (default site-hash);
    ``priority`` overrides PageRank. Read-only after construction (thread-safe).
    """

    def __init__(self, web: Web, processors: int, *,
                 assignment: Assignment | str | None = None,
                 priority: np.ndarray | None = None, owners: np.ndarray | None = None,
                 count_local: bool = True) -> None:
        order, owners = _inputs(web, processors, assignment, priority, owners)
        n = web.size
        self.n, self.processors, self.count_local = n, processors, count_local
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n, dtype=np.int64)
        src = np.repeat(np.arange(n, dtype=np.int64), web.out_degrees())
        dst = web.targets.astype(np.int64)
        self.src_pos, self.dst_pos = position[src], position[dst]
        to = owners[dst]
        sends = np.ones(len(dst), dtype=bool) if count_local else to != owners[src]
        # messages[i, j]: messages for processor i sent by the page at Q_x position j.
        messages = np.bincount(to[sends] * n + self.src_pos[sends],
                               minlength=processors * n).reshape(processors, n)
        dtype = np.int32 if len(dst) < 2**31 else np.int64
        self.cumulative = np.cumsum(messages, axis=1, dtype=dtype)  # M[i] since start, through j
        self.counts = np.bincount(owners, minlength=processors).astype(np.int64)

    def starts(self, beta: int) -> np.ndarray:
        """First Q_x position of every superstep: the page at position ``t`` opens a new one
        when, for some ``i``, ``cumulative[i, t-1] - cumulative[i, s-1] > beta``."""
        n, cum = self.n, self.cumulative
        starts = [0] if n else []
        s = 0
        while True:
            base = cum[:, s - 1] if s else np.zeros(self.processors, dtype=cum.dtype)
            # first j >= s with cum[i, j] > base[i] + beta (cum is non-decreasing per row)
            first = min(int(np.searchsorted(cum[i], base[i] + beta, side="right"))
                        for i in range(self.processors))
            t = first + 1
            if t >= n:
                return np.array(starts, dtype=np.int64)
            starts.append(t)
            s = t

    def run(self, beta: int) -> RxResult:
        """The prediction for tolerance ``beta`` (same result as :func:`predict_reference`)."""
        starts = self.starts(_check_beta(beta))
        superstep = np.searchsorted(starts, np.arange(self.n), side="right") - 1
        same = (superstep[self.src_pos] == superstep[self.dst_pos]) & (
            self.src_pos < self.dst_pos)
        late = np.zeros(self.n, dtype=bool)
        late[self.dst_pos[same]] = True  # in W when taken: linked earlier in its superstep
        missed = np.bincount(superstep[late], minlength=len(starts)).astype(np.int64)
        sizes = np.diff(np.append(starts, self.n)).astype(np.int64)
        return RxResult(beta, self.processors, len(starts), self.counts.copy(), starts, sizes,
                        missed)


def predict(web: Web, processors: int, beta: int, *,
            assignment: Assignment | str | None = None, priority: np.ndarray | None = None,
            owners: np.ndarray | None = None, count_local: bool = True) -> RxResult:
    """Run the prediction for tolerance ``beta`` on P = ``processors``, vectorized.

    Same parameters and result as :func:`predict_reference`. Memory O(P V) for the prefix
    sums.
    """
    beta = _check_beta(beta)
    return RxModel(web, processors, assignment=assignment, priority=priority, owners=owners,
                   count_local=count_local).run(beta)


def search_beta(web: Web, processors: int, threshold: float, *, lo: int = 0,
                hi: int | None = None, assignment: Assignment | str | None = None,
                priority: np.ndarray | None = None, owners: np.ndarray | None = None,
                count_local: bool = True,
                error: Callable[[RxResult], float] = lambda r: r.mean_error) -> BetaSearch:
    """The largest ``beta`` in ``[lo, hi]`` whose ``error(run) < threshold``, by binary search.

    ``hi`` defaults to the number of links (one superstep for the whole crawl). The search
    assumes the error does not decrease as ``beta`` grows (bigger supersteps leave more
    discovered URLs undelivered); it keeps the invariant ``error(lo) < threshold <=
    error(hi)`` and so makes O(log(hi - lo)) runs. Returns ``beta=None`` if ``lo`` already
    misses the threshold.
    """
    if not 0 < threshold:
        raise ValueError(f"the error threshold must be positive, got {threshold!r}")
    lo = _check_beta(lo)
    hi = max(web.n_edges, lo) if hi is None else _check_beta(hi)
    if hi < lo:
        raise ValueError(f"need lo <= hi, got {lo} > {hi}")
    prepared = RxModel(web, processors, assignment=assignment, priority=priority,
                       owners=owners, count_local=count_local)
    probes: list[tuple[int, float, float]] = []
    runs: dict[int, RxResult] = {}

    def probe(beta: int) -> float:
        run = runs[beta] = prepared.run(beta)
        value = error(run)
        probes.append((beta, value, run.rx))
        return value

    if probe(lo) >= threshold:
        return BetaSearch(threshold, None, None, probes)
    if probe(hi) < threshold:
        return BetaSearch(threshold, hi, runs[hi], probes)
    while hi - lo > 1:  # invariant: error(lo) < threshold <= error(hi)
        mid = (lo + hi) // 2
        if probe(mid) < threshold:
            lo = mid
        else:
            hi = mid
    return BetaSearch(threshold, lo, runs[lo], probes)
