"""Dynamic partition (Dong, Lu and Zhang, Algorithm 3.1): a coordinator hands whole sites to
workers as they finish, by site size and worker capacity, and survives a worker's death.

A *worker* (the paper's C-proc) crawls one site at a time with its own robots; links to other
sites go back to the coordinator, which forwards them to the site's current worker or queues
the site. Four partition policies, the paper's Table 1:

``static-random``
    sites shuffled and dealt round-robin before the crawl: every worker gets about the same
    number of sites, whatever their sizes and whatever the worker's capacity.
``static-size``
    sites dealt before the crawl so that every worker gets about the same number of *pages*
    (largest site first to the worker with the fewest pages so far).
``dynamic-random``
    Algorithm 3.1 with the site list ``S`` in random order: the first sites go one to each
    worker, then each worker that finishes takes the head of ``S``.
``dynamic-size``
    Algorithm 3.1 with ``S`` ordered by size, largest first, and the workers ordered by
    capacity, largest first (the biggest site starts on the strongest worker).

Site sizes are prior knowledge (the paper: "estimated after the first download"); here they
are the sizes of the generated web, as a previous crawl would have measured them.

:class:`Coordinator` is the bookkeeping of Algorithm 3.1 without any process: the mapping
``M`` (``holder``), the list ``S`` (``shared``; per-worker lists for the static policies),
and per site the URLs known and fetched (the "central database"). :func:`simulate` drives it
with simulated workers (a site takes ``size / capacity``) and :func:`run_crawl` with real
worker processes crawling the generated web through the simulated fetcher. Both share every
decision, so the tests of the first hold for the second.

Links into a site that a worker is crawling right now wait at the coordinator; when that
worker reports the site done, the URLs it did not fetch become a new task for the site
(Algorithm 3.1 hands them over at once, steps 28-29; a task boundary keeps a site's crawl one
closed unit and can lose no URL). A worker that dies (``SIGKILL``) has its site put back at
the head of ``S`` with the URLs known but not fetched, and the fetched ones as the "hash table
of cached objects" its successor skips (steps 14-21).
"""

from __future__ import annotations

import heapq
import os
import random
import signal
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing import connection

import numpy as np

from crawlers.page.urls import site_of

__all__ = [
    "PAPER_TABLE1",
    "POLICIES",
    "Coordinator",
    "CrawlResult",
    "Task",
    "WorkerSpec",
    "normalized_stdev",
    "run_crawl",
    "simulate",
    "static_plan",
]

POLICIES = ("static-random", "static-size", "dynamic-random", "dynamic-size")

#: Table 1 of the paper: normalized workload of its six C-procs, and the standard deviation
#: (sample, n - 1) in percent. 98,585 pages of 30 sites, six C-procs on three grid nodes.
PAPER_TABLE1: dict[str, tuple[tuple[float, ...], float]] = {
    "static-random": ((0.27, 0.20, 0.09, 0.14, 0.16, 0.14), 6.19),
    "static-size": ((0.15, 0.23, 0.14, 0.16, 0.14, 0.18), 3.44),
    "dynamic-random": ((0.17, 0.14, 0.20, 0.19, 0.16, 0.14), 2.50),
    "dynamic-size": ((0.17, 0.16, 0.17, 0.18, 0.16, 0.16), 0.82),
}


def normalized_stdev(times: Sequence[float]) -> tuple[list[float], float]:
    """The paper's load-balance measure: each worker's download time over the sum, and the
    sample standard deviation of those shares (the paper's 6.19 % for 0.27, 0.20, 0.09, 0.14,
    0.16, 0.14 is the n - 1 form)."""
    total = float(sum(times))
    shares = [t / total if total else 0.0 for t in times]
    return shares, float(np.std(shares, ddof=1)) if len(shares) > 1 else 0.0


@dataclass(frozen=True)
class WorkerSpec:
    """A worker's capacity: ``robots`` fetching threads, each request taking
    ``latency_factor`` times the web's latency. ``capacity = robots / latency_factor``."""

    robots: int = 4
    latency_factor: float = 1.0

    @property
    def capacity(self) -> float:
        return self.robots / self.latency_factor


@dataclass
class Task:
    """One site to crawl: the URLs to start from and those already fetched (to skip)."""

    site: str
    urls: list[str]
    skip: frozenset[str] = frozenset()


def static_plan(policy: str, sizes: dict[str, int], capacities: Sequence[float],
                seed: int = 0) -> list[list[str]]:
    """The sites of each worker under a static policy (see the module docstring). O(S log S).

    ``static-random`` deals a shuffled list round-robin; ``static-size`` gives each site,
    largest first, to the worker with the fewest pages so far (ties: lowest index).
    Capacities are ignored: that is the static policies' weakness.
    """
    workers = len(capacities)
    if policy == "static-random":
        sites = sorted(sizes)
        random.Random(seed).shuffle(sites)
        return [sites[w::workers] for w in range(workers)]
    if policy == "static-size":
        plan: list[list[str]] = [[] for _ in range(workers)]
        load = [(0, w) for w in range(workers)]
        for site in sorted(sizes, key=lambda s: (-sizes[s], s)):
            pages, w = heapq.heappop(load)
            plan[w].append(site)
            heapq.heappush(load, (pages + sizes[site], w))
        return plan
    raise ValueError(f"not a static policy: {policy!r}")


class Coordinator:
    """Algorithm 3.1's state, driven by events; no threads, no processes (not thread-safe:
    one driver calls it). :meth:`pages` is O(1) per URL reported, :meth:`next_task`,
    :meth:`task_done` and :meth:`worker_failed` O(URLs of the site handed or returned).

    Invariants (checked by :meth:`check`):

    * a site is in at most one place: held by one worker (``holder``) or waiting in one list;
    * ``fetched[s]`` is a subset of ``known[s]``; a site neither held nor waiting has every
      known URL fetched (nothing is forgotten);
    * every URL reported fetched stays in ``fetched`` (a crawl never loses what it fetched).
    """

    def __init__(self, policy: str, sizes: dict[str, int], capacities: Sequence[float],
                 seeds: Iterable[str], seed: int = 0) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
        if not capacities or min(capacities) <= 0:
            raise ValueError("need at least one worker, every capacity positive")
        self.policy = policy
        self.dynamic = policy.startswith("dynamic")
        self.sizes = dict(sizes)
        self.capacities = list(capacities)
        self.workers = len(capacities)
        # Workers by capacity, largest first: the order of the initial assignment.
        self.worker_order = sorted(range(self.workers), key=lambda w: (-capacities[w], w))
        self.known: dict[str, set[str]] = {s: set() for s in self.sizes}
        self.fetched: dict[str, set[str]] = {s: set() for s in self.sizes}
        self.holder: dict[str, int] = {}  # M: site -> worker crawling it
        self.task_of: dict[int, str] = {}  # worker -> site it holds
        self.waiting: set[str] = set()  # sites in `shared` or an `own` list
        self.shared: deque[str] = deque()  # S
        self.own: list[deque[str]] = [deque() for _ in range(self.workers)]
        self.alive = set(range(self.workers))
        self.assigned: list[list[str]] = [[] for _ in range(self.workers)]  # tasks handed out
        self.pages_reported = 0  # N as reported (records received)
        self.inter_site_links = 0  # L: links that leave the page's site
        self.order: list[str] = []  # URLs in the order first reported fetched
        self.static_owner: dict[str, int] = {}
        for url in seeds:
            self._learn(url)
        sites = list(self.sizes)
        if self.dynamic:
            if policy == "dynamic-size":
                sites.sort(key=lambda s: (-self.sizes[s], s))
            else:
                sites.sort()
                random.Random(seed).shuffle(sites)
            for s in sites:
                self._enqueue(s)
        else:
            for w, mine in enumerate(static_plan(policy, self.sizes, capacities, seed)):
                for s in mine:
                    self.static_owner[s] = w
                    self._enqueue(s)

    # -- the lists ------------------------------------------------------------------------------

    def _learn(self, url: str) -> str | None:
        """Record ``url`` as known; its site, or None if it was known already."""
        site = site_of(url)
        if site not in self.known:  # a newly discovered site (steps 30-31)
            self.sizes[site] = 0
            self.known[site] = set()
            self.fetched[site] = set()
        if url in self.known[site]:
            return None
        self.known[site].add(url)
        return site

    def _enqueue(self, site: str, head: bool = False) -> None:
        if site in self.waiting or site in self.holder:
            return
        self.waiting.add(site)
        owner = self.static_owner.get(site)
        target = self.own[owner] if owner is not None and owner in self.alive else self.shared
        (target.appendleft if head else target.append)(site)

    def next_task(self, worker: int) -> Task | None:
        """The next site for idle ``worker`` (its own list first, then ``S``), or None."""
        assert worker in self.alive and worker not in self.task_of
        for source in (self.own[worker], self.shared):
            while source:
                site = source.popleft()
                self.waiting.discard(site)
                todo = self.known[site] - self.fetched[site]
                if not todo:
                    continue  # every known URL of the site was fetched meanwhile
                self.holder[site] = worker
                self.task_of[worker] = site
                self.assigned[worker].append(site)
                return Task(site, sorted(todo), frozenset(self.fetched[site]))
        return None

    # -- events ---------------------------------------------------------------------------------

    def pages(self, worker: int, records: Iterable[tuple[str, Sequence[str]]]) -> None:
        """``worker`` fetched these ``(url, links)``: store them, route the links (steps
        10-12 and 26-33)."""
        for url, links in records:
            site = site_of(url)
            self.pages_reported += 1
            self._learn(url)
            if url not in self.fetched[site]:
                self.fetched[site].add(url)
                self.order.append(url)
            for link in links:
                target = site_of(link)
                if target != site:
                    self.inter_site_links += 1
                learned = self._learn(link)
                if learned is not None and learned not in self.holder:
                    self._enqueue(learned)  # a site not being crawled: (re)queue it

    def task_done(self, worker: int) -> None:
        """``worker`` finished its site (steps 6-8); unfetched URLs become a new task."""
        site = self.task_of.pop(worker)
        del self.holder[site]
        if self.known[site] - self.fetched[site]:
            self._enqueue(site)

    def worker_failed(self, worker: int) -> None:
        """``worker`` died (steps 14-21): its site goes back to the head of ``S``, and so do
        the sites still waiting in its own list (static policies)."""
        if worker not in self.alive:
            return
        self.alive.discard(worker)
        orphans = list(self.own[worker])
        self.own[worker].clear()
        for s in orphans:
            self.waiting.discard(s)
        site = self.task_of.pop(worker, None)
        if site is not None:
            del self.holder[site]
        for s in reversed(orphans):
            self._enqueue(s, head=True)
        if site is not None and self.known[site] - self.fetched[site]:
            self._enqueue(site, head=True)

    # -- state ----------------------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """No site held, none waiting: every known URL was fetched."""
        return not self.holder and not self.waiting

    def unique_pages(self) -> int:
        return sum(len(f) for f in self.fetched.values())

    def check(self) -> None:
        """Assert the invariants of the class docstring. O(URLs)."""
        lists = [*self.shared, *(s for q in self.own for s in q)]
        assert len(lists) == len(set(lists)) and set(lists) == self.waiting
        assert not (self.waiting & set(self.holder))
        assert all(self.task_of[w] == s for s, w in self.holder.items())
        for s in self.known:
            assert self.fetched[s] <= self.known[s]
            if s not in self.waiting and s not in self.holder:
                assert self.known[s] == self.fetched[s], f"site {s} forgotten"


# -- simulated workers --------------------------------------------------------------------------


@dataclass
class SimulatedRun:
    """What :func:`simulate` measured: busy time and sites of every worker, the makespan."""

    policy: str
    busy: list[float]
    sites: list[list[str]]
    makespan: float

    @property
    def stdev(self) -> float:
        return normalized_stdev(self.busy)[1]


def simulate(policy: str, sizes: dict[str, int], capacities: Sequence[float],
             seed: int = 0) -> SimulatedRun:
    """Run :class:`Coordinator` with simulated workers: a site of ``size`` pages takes
    ``size / capacity`` time units on a worker, links are not modelled. O(S log W)."""
    seeds = [f"http://{s.rsplit(':', 1)[0]}/" for s in sizes]
    sizes = {site_of(u): sizes[s] for u, s in zip(seeds, sizes)}
    coord = Coordinator(policy, sizes, capacities, seeds, seed)
    busy = [0.0] * len(capacities)
    events: list[tuple[float, int]] = []
    now = 0.0

    def give(w: int) -> None:
        task = coord.next_task(w)
        if task is not None:
            cost = max(sizes[task.site], 1) / capacities[w]
            busy[w] += cost
            heapq.heappush(events, (now + cost, w))

    for w in coord.worker_order:
        give(w)
    while events:
        now, w = heapq.heappop(events)
        site = coord.task_of[w]
        coord.pages(w, [(u, []) for u in coord.known[site] - coord.fetched[site]])
        coord.task_done(w)
        give(w)
    coord.check()
    assert coord.finished
    return SimulatedRun(policy, busy, coord.assigned, now)


# -- real workers -------------------------------------------------------------------------------


@dataclass
class CrawlResult:
    """One crawl of the generated web by worker processes (the paper's four metrics and the
    load balance). ``fetches`` N counts every download, reported or not (a killed worker's
    too); ``unique`` I the distinct pages; ``web_size`` U."""

    policy: str
    workers: list[WorkerSpec]
    seconds: float
    busy: list[float]
    shares: list[float]
    stdev: float
    fetches: int
    reported: int
    unique: int
    web_size: int
    overlap: float
    coverage: float
    quality: dict[float, float]
    inter_site_links: int
    communication: float
    sites: list[list[str]]
    killed: int | None = None
    reassigned: list[str] = field(default_factory=list)


class _Sink:
    """Collects a worker's fetched pages and sends them to the coordinator in batches.

    ``_lock`` guards the batch, the pipe and the fetch counter: robots call :meth:`page`
    concurrently. ``counter[index]`` (shared memory) counts every fetch, so the coordinator
    knows N even for pages a killed worker never reported.
    """

    def __init__(self, conn, index: int, counter, batch: int) -> None:
        import threading

        self._lock = threading.Lock()
        self._conn, self._index, self._counter, self._batch = conn, index, counter, batch
        self._records: list[tuple[str, list[str]]] = []

    def page(self, result) -> None:
        with self._lock:
            self._counter[self._index] += 1
            self._records.append((result.url, list(result.links)))
            if len(self._records) >= self._batch:
                self._send_locked()

    def edges(self, url: str, links: list[str]) -> None:
        pass

    def flush(self) -> None:
        with self._lock:
            self._send_locked()

    def _send_locked(self) -> None:
        if self._records:
            self._conn.send(("pages", self._records))
            self._records = []


def _worker(index: int, spec: WorkerSpec, web, latency: float, seed: int, inbox, outbox,
            counter, batch: int) -> None:
    """A worker process: crawl each site it is given with ``spec.robots`` robots, report the
    pages in batches, then ``("done",)``; stop on ``None``."""
    import frontier
    from crawlers.crawl.crawler import Crawler
    from crawlers.web.simfetch import SimulatedFetcher

    fetcher = SimulatedFetcher(web, latency=latency * spec.latency_factor, seed=seed + index)
    sink = _Sink(outbox, index, counter, batch)
    parent = os.getppid()
    while True:
        if not inbox.poll(0.5):
            if os.getppid() != parent:  # the coordinator is gone
                return
            continue
        task = inbox.recv()
        if task is None:
            return
        site, skip = task.site, task.skip

        def in_scope(url: str, site=site, skip=skip) -> bool:
            return url not in skip and site_of(url) == site

        crawler = Crawler(fetcher, frontier.create("coarse"), task.urls, threads=spec.robots,
                          in_scope=in_scope, sink=sink, watchdog=1.0)
        crawler.run()
        sink.flush()
        outbox.send(("done",))


def run_crawl(web, policy: str, workers: Sequence[WorkerSpec], *, latency: float = 0.01,
              seed: int = 0, kill: tuple[int, int] | None = None, batch: int = 8,
              timeout: float = 120.0, start_method: str = "fork",
              quality_at: Sequence[float] = (0.1, 0.5)) -> CrawlResult:
    """Crawl ``web`` (a :class:`crawlers.web.webgen.Web`) with one process per worker spec.

    The coordinator (this process) starts from every home page, with the site sizes as prior
    knowledge. ``kill=(worker, pages)`` sends ``SIGKILL`` to that worker once it has reported
    ``pages`` pages (mid-crawl). Returns the metrics; raises :class:`TimeoutError` (after
    stopping every worker) if the crawl does not end within ``timeout`` seconds.
    """
    import multiprocessing as mp

    from crawlers.crawl.report import GroundTruth, overlap

    ctx = mp.get_context(start_method)
    addressing = web.logical()
    seeds = addressing.seed_urls()
    sizes = {site_of(u): int(n) for u, n in zip(seeds, web.site_sizes())}
    coord = Coordinator(policy, sizes, [w.capacity for w in workers], seeds, seed)
    counter = ctx.RawArray("q", len(workers))
    procs, inboxes, outboxes = [], [], []
    for i, spec in enumerate(workers):
        task_recv, task_send = ctx.Pipe(duplex=False)
        result_recv, result_send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_worker, name=f"crawl-worker-{i}", daemon=True,
                        args=(i, spec, web, latency, seed, task_recv, result_send, counter,
                              batch))
        p.start()
        task_recv.close()
        result_send.close()  # the worker holds the only write end: its death gives EOF
        procs.append(p)
        inboxes.append(task_send)
        outboxes.append(result_recv)
    busy = [0.0] * len(workers)
    since: dict[int, float] = {}
    reported = [0] * len(workers)
    killed: int | None = None
    reassigned: list[str] = []
    t0 = time.perf_counter()
    deadline = t0 + timeout

    def give(w: int) -> None:
        task = coord.next_task(w)
        if task is not None:
            since[w] = time.perf_counter()
            try:
                inboxes[w].send(task)
            except OSError:  # died before it could take it: handled when its pipe closes
                pass

    def failed(w: int) -> None:
        if w in since:
            busy[w] += time.perf_counter() - since.pop(w)
        site = coord.task_of.get(w)
        if site is not None:
            reassigned.append(site)
        coord.worker_failed(w)
        outboxes[w].close()
        open_pipes.pop(outboxes[w], None)

    open_pipes = {outboxes[w]: w for w in range(len(workers))}
    try:
        for w in coord.worker_order:
            give(w)
        while not coord.finished:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{policy} crawl did not finish in {timeout:g} s")
            if not open_pipes:
                raise RuntimeError("every worker died before the crawl finished")
            for conn in connection.wait(list(open_pipes), timeout=0.1):
                w = open_pipes[conn]
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    failed(w)
                    continue
                if message[0] == "pages":
                    coord.pages(w, message[1])
                    reported[w] += len(message[1])
                    if kill and killed is None and w == kill[0] and reported[w] >= kill[1]:
                        os.kill(procs[w].pid, signal.SIGKILL)
                        killed = w
                else:
                    busy[w] += time.perf_counter() - since.pop(w)
                    coord.task_done(w)
            for w in [*coord.worker_order]:  # idle workers take new tasks (steps 5-8)
                if w in coord.alive and w not in coord.task_of and outboxes[w] in open_pipes:
                    give(w)
        seconds = time.perf_counter() - t0
    finally:
        for w, p in enumerate(procs):
            if p.is_alive():
                try:
                    inboxes[w].send(None)
                except OSError:
                    pass
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join(timeout=5)
        for conn in [*inboxes, *outboxes]:
            conn.close()
    coord.check()
    truth = GroundTruth(web.size, web.pagerank(), addressing.page_of)
    unique = coord.unique_pages()
    fetches = int(sum(counter))
    shares, stdev = normalized_stdev(busy)
    quality = {q: truth.quality(coord.order[: max(1, int(q * web.size))]) for q in quality_at}
    quality[1.0] = truth.quality(coord.order)
    return CrawlResult(
        policy=policy, workers=list(workers), seconds=seconds, busy=busy, shares=shares,
        stdev=stdev, fetches=fetches, reported=coord.pages_reported, unique=unique,
        web_size=web.size, overlap=overlap(fetches, unique),
        coverage=truth.coverage(unique), quality=quality,
        inter_site_links=coord.inter_site_links,
        communication=coord.inter_site_links / max(coord.pages_reported, 1),
        sites=coord.assigned, killed=killed, reassigned=reassigned)
