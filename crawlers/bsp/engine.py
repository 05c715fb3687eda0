"""The BSP worker: one scheduler, a local frontier, r robot threads, supersteps.

Worker ``rank`` of ``P`` owns the URLs the assignment gives it (:class:`Ownership`) and keeps
them in its own frontier, any registered strategy. One superstep (Section 2 of Marin, Paredes
and Bonacic, 2008):

1. *extract-top(R)*: ``get_many`` up to ``R`` URLs (fewer near a page budget); a URL already
   fetched (a stale copy, put again when its OPIC cash doubled) is skipped;
2. the ``r`` robots fetch them concurrently (a thread pool over the target's
   :class:`~crawlers.page.fetch.Fetcher`: no HTTP or parsing here); results are then processed
   **in extraction order** by the worker's main thread, so a superstep is deterministic;
3. each page's OPIC cash is split among its links: links the worker owns go into its
   frontier with ``put_many``; the others are packed into one message per destination
   (``url``, ``cash``) -- a page linking to ``k`` other workers costs ``k`` *page messages*,
   the quantity the hypergraph partitioning model counts;
4. the all-to-all exchange ends the superstep (its barrier included); received cash is applied
   (a cash update for a page already fetched is a *failure*, the paper's Figure 6), then the
   workers agree on stopping with one ``allreduce``: every frontier empty (and so no message
   in flight, since the exchange has delivered them all), the page budget reached, the time
   slice over, the superstep limit reached, or a stop requested by the transport (Ctrl-C).

Each superstep the worker sends a :class:`WorkerStep` (its pages and counters) to the root of
``gather``, so a page fetched is reported even if the worker dies later. A
:class:`~crawlers.bsp.transport.Failover` from the transport (processes backend) updates the
owner table and re-seeds what the dead workers held.

Thread-safety: a :class:`Worker` is driven by one thread; only ``fetcher.fetch`` runs in the
robot threads (fetchers are thread-safe). Cost per superstep: O(R log n) frontier work (for
the priority frontiers), O(links) routing, plus the fetches and the exchange.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import frontier as frontier_pkg
from crawlers.bsp.transport import Failover, SharedError, Transport
from crawlers.crawl.opic import Opic
from crawlers.crawl.visited import VisitedSet
from crawlers.page import faults
from crawlers.page.fetch import FetchResult
from crawlers.page.urls import origin_of, site_of
from crawlers.partition.assignment import Assignment, md5_bucket

__all__ = ["Ownership", "OpicLedger", "Worker", "WorkerStep", "LARGE_CAPACITY",
           "snapshot_problem"]

LARGE_CAPACITY = 1 << 20
"""Default capacity of bounded frontiers: a BSP worker is single-threaded, so it cannot wait
for room; what does not fit waits in an overflow list (counted as ``spilled``) and is moved
into the frontier as room appears."""


class Ownership:
    """Who owns a URL: the assignment, on logical URLs, updated by failovers.

    ``aliases`` maps a served origin (``http://127.0.0.1:PORT``) to its logical origin
    (``http://siteN.crawlab.test``) so that ownership does not depend on the port a site is
    served on. Each failover ``(dead, survivors)`` moves the URLs of the dead workers to
    ``survivors[MD5(key) mod len(survivors)]`` (key: the site, or the URL for page-hash),
    leaving every other URL where it was.

    Invariant: ``owner(url)`` is never a dead worker. O(len(url) * (1 + failovers)); immutable
    between failovers, so safe to read from any thread.
    """

    def __init__(self, assignment: Assignment, aliases: dict[str, str] | None = None) -> None:
        self.assignment = assignment
        self.aliases = dict(aliases or {})
        self.by_page = assignment.method == "page-hash"
        self.events: list[tuple[frozenset[int], tuple[int, ...]]] = []

    def logical(self, url: str) -> str:
        """``url`` with its served origin replaced by the logical one (if it has one)."""
        if not self.aliases:
            return url
        origin = origin_of(url)
        alias = self.aliases.get(origin)
        return url if alias is None else alias + url[len(origin):]

    def owner(self, url: str, events: int | None = None) -> int:
        """The worker owning ``url`` after the first ``events`` failovers (default: all)."""
        logical = self.logical(url)
        owner = self.assignment.owner(logical)
        for dead, survivors in self.events[:events]:
            if owner in dead:
                key = logical if self.by_page else site_of(logical)
                owner = survivors[md5_bucket(key, len(survivors))]
        return owner

    def fail(self, dead: Iterable[int], survivors: Sequence[int]) -> None:
        """Record a failover: ``dead`` workers' URLs go to ``survivors``."""
        if not survivors:
            raise ValueError("no worker survived")
        self.events.append((frozenset(dead), tuple(survivors)))


class OpicLedger(Opic):
    """OPIC cash split across workers: a worker spends the cash of the pages it fetches and
    receives cash for the URLs it owns, from its own pages or in messages.

    Same arithmetic as :meth:`Opic.credit` (so one worker reproduces the threaded crawler's
    priorities exactly). O(1) per call; thread-safe (the base class's lock).
    """

    def __init__(self, own_seeds: Iterable[str], n_seeds: int) -> None:
        super().__init__([])
        share = 1.0 / n_seeds if n_seeds else 0.0
        self._cash = {u: share for u in own_seeds}

    def spend(self, url: str, n_links: int) -> float:
        """``url`` was fetched: move its cash to its history; return each link's share."""
        with self._cash_lock:
            cash = self._cash.pop(url, 0.0)
            self._history[url] = self._history.get(url, 0.0) + cash
            return cash / n_links if n_links else 0.0

    def receive(self, url: str, amount: float) -> float:
        """Add ``amount`` to ``url``'s cash; return its new cash (its priority)."""
        with self._cash_lock:
            value = self._cash.get(url, 0.0) + amount
            self._cash[url] = value
            return value


@dataclass
class WorkerStep:
    """What worker ``rank`` did in ``superstep`` (sent to the root every superstep).

    ``pages`` are the URLs fetched, in extraction order; ``results`` the full
    :class:`FetchResult` of each (only when ``keep_results``, for ``--out``); ``links`` the
    links they hold (in scope or not).
    ``sent_to[j]`` / ``received_from[j]`` count URLs sent to / received from worker ``j``;
    ``messages`` the non-empty messages sent; ``page_messages`` the distinct (page, other
    worker) pairs; ``failures`` received cash for pages already fetched (``local_failures``:
    the same from the worker's own links); ``misrouted`` received URLs it does not own (must
    stay 0); ``frontier`` the URLs waiting after the superstep (``spilled`` of them in the
    overflow list); seconds spent fetching (with processing), in the exchange, applying.
    ``cpu_seconds``: the CPU time of the worker's process (all its threads) since its previous
    report (the first: since the barrier that starts the crawl clock), so that the sum over
    supersteps is the CPU the crawl itself cost, start-up excluded.
    ``local`` the ``(url, cash)`` the worker put into its own frontier from its own pages: with
    ``pages``, what a coordinator needs to hand a dead worker's unfinished URLs over.
    ``claimed``: the URLs this worker owns that some worker reached, so far (its visited set;
    owners partition the URLs, so without a failover the sum over workers is every URL the
    crawl reached).
    """

    rank: int
    superstep: int
    pages: list[str] = field(default_factory=list)
    results: list[FetchResult] | None = None
    errors: dict[str, int] = field(default_factory=dict)
    links: int = 0
    messages: int = 0
    urls_sent: int = 0
    page_messages: int = 0
    sent_to: list[int] = field(default_factory=list)
    received_from: list[int] = field(default_factory=list)
    failures: int = 0
    local_failures: int = 0
    misrouted: int = 0
    frontier: int = 0
    spilled: int = 0
    fetch_seconds: float = 0.0
    exchange_seconds: float = 0.0
    apply_seconds: float = 0.0
    cpu_seconds: float = 0.0
    local: list[tuple[str, float]] = field(default_factory=list)
    claimed: int = 0
    limits: dict[str, int] = field(default_factory=dict)  # this superstep's policy counters
    cut: int = 0  # fetches cut by the end of the crawl (not pages; put back in the frontier)
    # URLs robots.txt refused (not pages), by counter: robots_refused, robots_unreachable
    refused: dict[str, int] = field(default_factory=dict)


@dataclass
class WorkerSettings:
    """Everything a worker needs, picklable (built by the driver, identical on every rank)."""

    procs: int
    robots: int
    R: int
    frontier: str
    priority: bool
    seeds: list[str]
    seconds: float | None = None
    max_pages: int | None = None
    max_supersteps: int | None = None
    keep_results: bool = False
    capacity: int = LARGE_CAPACITY  # for bounded frontiers
    kill: tuple[int, int] | None = None  # (rank, superstep): SIGKILL itself there
    # a directory where worker r appends the URLs it starts fetching to started-r.log (one
    # write per superstep, no fsync): how the driver counts what a dead worker's successor
    # fetched again
    intents: str | None = None
    # --state DIR: each worker saves its state there at every barrier (crawlers.bsp.journal);
    # resume_from: the superstep whose snapshots to start from (None: from the seeds)
    state: str | None = None
    session: int = 0
    resume_from: int | None = None
    crawl: str | None = None  # the identity the journals record (crawlers.bsp.journal)


class Worker:
    """One BSP worker (see the module docstring). ``run()`` once; returns why it stopped.

    ``fetch(url) -> FetchResult`` is called from the robot threads and must be thread-safe;
    ``in_scope`` filters links (default: all). ``on_gather(steps)`` receives the reports of a
    superstep where this worker is the root of ``gather`` (rank 0 under MPI). With a journal
    (``settings.state``), ``snapshot_extra()`` adds what the root keeps (its collector) to
    this worker's snapshot.

    Against a hostile web: ``rules`` (:class:`~crawlers.page.rules.UrlRules`, scope included)
    filters the links where they are found and bounds each site where it is owned (its owner
    claims its URLs: under site-hash the per-site budget is global, under page-hash each
    worker's share of it); ``counters`` (the policy's) are sent with each superstep's report;
    ``cut()`` cuts the fetches in flight, called when the time slice ends (so a superstep of
    slow fetches does not outlast ``seconds``) and, in a worker process, on ``SIGUSR1`` (the
    coordinator's first Ctrl-C).
    """

    def __init__(self, settings: WorkerSettings, transport: Transport, ownership: Ownership,
                 fetch: Callable[[str], FetchResult], *,
                 in_scope: Callable[[str], bool] | None = None,
                 on_gather: Callable[[list[Any]], None] | None = None,
                 snapshot_extra: Callable[[], Any] | None = None,
                 rules: Any = None, counters: Any = None,
                 cut: Callable[[], Any] | None = None) -> None:
        self.s = settings
        self.t = transport
        self.rank = transport.rank
        self.size = transport.size
        self.ownership = ownership
        self.fetch = fetch
        self.in_scope = in_scope
        self.rules = rules
        self.counters = counters
        self.cut = cut
        self.on_gather = on_gather
        self.snapshot_extra = snapshot_extra
        # With a journal: URLs put into the frontier (or spill) and not yet taken, with their
        # last priority, in the order they were last put -- the frontier's contents, as a
        # snapshot needs them (re-put in that order, equal priorities keep their FIFO order)
        self.queued: dict[str, float] = {}
        cls = frontier_pkg.info(settings.frontier)
        self.frontier = (frontier_pkg.create(settings.frontier, capacity=settings.capacity)
                         if cls.bounded else frontier_pkg.create(settings.frontier))
        self.priority = settings.priority and cls.ordering == "priority"
        self.alive: list[int] = list(range(self.size))
        self.visited = VisitedSet()
        self.fetched: set[str] = set()  # URLs taken out of the frontier (fetch at most once)
        self.refused: set[str] = set()  # URLs the site's budget refused (never queued)
        self.spill: deque[tuple[str, float]] = deque()
        own = [u for u in settings.seeds if ownership.owner(u) == self.rank]
        self.ledger = OpicLedger(own, len(settings.seeds)) if self.priority else None
        self._own_seeds = own
        self.stopped_by = ""

    # -- frontier -------------------------------------------------------------------------

    def _insert(self, pairs: list[tuple[str, float]]) -> None:
        """put_many what fits; a bounded frontier's overflow waits in ``spill``."""
        if not pairs:
            return
        if self.s.state is not None:  # only a journal needs the frontier's contents
            for url, p in pairs:  # in order of their last insertion: FIFO ties survive a resume
                self.queued.pop(url, None)
                self.queued[url] = p
        f = self.frontier
        if f.bounded:
            room = max(0, f.capacity - len(f))
            self.spill.extend(pairs[room:])
            pairs = pairs[:room]
        f.put_many(pairs)

    def _refill(self) -> None:
        f = self.frontier
        if self.spill and f.bounded:
            room = f.capacity - len(f)
            batch = [self.spill.popleft() for _ in range(min(room, len(self.spill)))]
            f.put_many(batch)

    def _pending(self) -> int:
        return len(self.frontier) + len(self.spill)

    def _extract(self, cap: int) -> list[str]:
        """extract-top(cap), skipping URLs already fetched (stale copies)."""
        urls: list[str] = []
        while len(urls) < cap:
            got = self.frontier.get_many(cap - len(urls))
            if not got:
                break
            for u in got:
                if u not in self.fetched:
                    self.fetched.add(u)
                    self.queued.pop(u, None)
                    urls.append(u)
        return urls

    def _offer(self, url: str, cash: float, batch: list[tuple[str, float]]) -> None:
        """A URL I own was linked to (with ``cash``): claim it or raise its priority."""
        if self.ledger is not None:
            value = self.ledger.receive(url, cash)
            fresh = self.visited.claim(url)
            if fresh and self.rules is not None and not self.rules.claim_site(url):
                self.refused.add(url)  # for good: a later link must not queue it
                return
            if url in self.refused:
                return
            if (fresh or url not in self.fetched) and self.ledger.refresh(url, value):
                batch.append((url, value))
        elif self.visited.claim(url):
            if self.rules is None or self.rules.claim_site(url):
                batch.append((url, 0.0))

    # -- one superstep ----------------------------------------------------------------------

    def _cap(self, total_fetched: int, superstep: int) -> int:
        """Pages this worker may fetch now: R, or its share of what is left of the budget.
        The shares sum to what is left; the remainder's extra pages go to other workers each
        superstep (round the alive list), so a worker with URLs gets one within ``n``
        supersteps: given always to the same workers, the last page of a budget could fall to
        a worker with nothing left to fetch, for ever (a livelock)."""
        if self.s.max_pages is None:
            return self.s.R
        left = max(0, self.s.max_pages - total_fetched)
        n = len(self.alive)
        i = (self.alive.index(self.rank) - superstep) % n
        return min(self.s.R, left // n + (1 if i < left % n else 0))

    def _fetch_all(self, pool: ThreadPoolExecutor, urls: list[str]) -> list[FetchResult]:
        if len(urls) <= 1 or self.s.robots == 1:
            return [self.fetch(u) for u in urls]
        return list(pool.map(self.fetch, urls))

    def _process(self, step: WorkerStep, results: list[FetchResult]
                 ) -> tuple[list[list[tuple[str, float]]], list[tuple[str, float]]]:
        outbox: list[list[tuple[str, float]]] = [[] for _ in range(self.size)]
        local: list[tuple[str, float]] = []
        errors: Counter[str] = Counter()
        owner = self.ownership.owner
        cut: list[tuple[str, float]] = []
        refused: Counter[str] = Counter()
        for res in results:
            if res.error == faults.STOPPED:  # not a page: back into the frontier
                self.fetched.discard(res.url)
                cut.append((res.url, self.ledger.priority(res.url)
                            if self.ledger is not None else 0.0))
                continue
            if res.error in REFUSED:  # not a page either, nor asked again (still "fetched")
                refused[res.error] += 1
                continue
            step.pages.append(res.url)
            if res.error:
                errors[res.error] += 1
            links = res.links
            if self.rules is not None:  # scope included, each rejection counted
                links = self.rules.admit(links)
            elif self.in_scope is not None:
                links = [u for u in links if self.in_scope(u)]
            step.links += len(res.links)
            share = self.ledger.spend(res.url, len(links)) if self.ledger is not None else 0.0
            dests = set()
            for link in links:
                o = owner(link)
                if o == self.rank:
                    if link in self.fetched:
                        step.local_failures += 1
                    self._offer(link, share, local)
                else:
                    outbox[o].append((link, share))
                    dests.add(o)
            step.page_messages += len(dests)
        step.errors = dict(errors)
        step.cut = len(cut)
        step.refused = dict(refused)
        self._insert(cut)
        if self.s.keep_results:
            step.results = [r for r in results
                            if r.error != faults.STOPPED and r.error not in REFUSED]
        return outbox, local

    def _apply(self, step: WorkerStep, inbox: list[Any]) -> None:
        batch: list[tuple[str, float]] = []
        owner = self.ownership.owner
        for src, message in enumerate(inbox):
            if not message:
                continue
            step.received_from[src] += len(message)
            for url, cash in message:
                if owner(url) != self.rank:
                    step.misrouted += 1
                if url in self.fetched:
                    step.failures += 1
                self._offer(url, cash, batch)
        self._insert(batch)

    def _failover(self, fo: Failover) -> None:
        """Update the owner table; take the dead workers' URLs that are now mine."""
        before = len(self.ownership.events)
        self.ownership.fail(fo.dead, fo.survivors)
        self.alive = list(fo.survivors)
        owner = self.ownership.owner
        batch: list[tuple[str, float]] = []
        for url in fo.done:  # finished by a dead worker: never fetched again
            if owner(url, before) in fo.dead and owner(url) == self.rank:
                self.visited.claim(url)
                self.fetched.add(url)
        for url, cash in fo.reseed:
            if owner(url, before) in fo.dead and owner(url) == self.rank:
                self._offer(url, cash, batch)
        self._insert(batch)

    def _check_failover(self) -> bool:
        fo = self.t.take_failover()
        if fo is None:
            return False
        self._failover(fo)
        return True

    def run(self) -> str:
        """Crawl superstep by superstep until the workers agree to stop; return the reason
        (``interrupted``, ``time``, ``max-pages``, ``max-supersteps``, ``exhausted``)."""
        s = self.s
        journal = None
        total_fetched = superstep = 0
        if s.state is not None:
            from crawlers.bsp.journal import BspJournal

            journal = BspJournal(s.state, self.rank, s.session, identity=s.crawl)
            journal.begin()
        if s.resume_from is not None:
            total_fetched = self._restore(self._take_snapshot(journal, s.resume_from))
            superstep = s.resume_from
        self.t.barrier()  # everybody is ready: the crawl clock starts now
        t_start = time.monotonic()
        cpu_mark = time.process_time()
        timer = None
        if s.seconds is not None and self.cut is not None:
            timer = threading.Timer(s.seconds, self.cut)  # the slice ends mid-superstep too
            timer.daemon = True
            timer.start()
        if s.resume_from is None:
            seeds: list[tuple[str, float]] = []
            self._offer_seeds(seeds)
            self._insert(seeds)
        intents = -1 if s.intents is None else os.open(
            os.path.join(s.intents, f"started-{self.rank}.log"),
            os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        with ThreadPoolExecutor(max_workers=s.robots, thread_name_prefix="robot") as pool:
            while True:
                if s.kill is not None and s.kill == (self.rank, superstep):
                    os.kill(os.getpid(), signal.SIGKILL)  # fault injection: die right here
                step = WorkerStep(self.rank, superstep, sent_to=[0] * self.size,
                                  received_from=[0] * self.size)
                t0 = time.perf_counter()
                self._refill()
                urls = self._extract(self._cap(total_fetched, superstep))
                if intents >= 0 and urls:
                    os.write(intents, "".join(u + "\n" for u in urls).encode())
                if journal is not None:
                    journal.started(urls)
                outbox, local = self._process(step, self._fetch_all(pool, urls))
                self._insert(local)
                step.local = local
                step.sent_to = [len(m) for m in outbox]
                step.urls_sent = sum(step.sent_to)
                step.messages = sum(1 for m in outbox if m)
                t1 = time.perf_counter()
                inbox = self.t.alltoall(outbox)
                t2 = time.perf_counter()
                failed = self._check_failover()
                self._apply(step, inbox)
                step.frontier, step.spilled = self._pending(), len(self.spill)
                step.claimed = len(self.visited)
                if self.counters is not None:
                    step.limits = self.counters.take()
                t3 = time.perf_counter()
                step.fetch_seconds, step.exchange_seconds = t1 - t0, t2 - t1
                step.apply_seconds = t3 - t2
                cpu_now = time.process_time()
                step.cpu_seconds, cpu_mark = cpu_now - cpu_mark, cpu_now
                gathered = self.t.gather(step)
                if gathered is not None and self.on_gather is not None:
                    self.on_gather(gathered)
                failed = self._check_failover() or failed
                late = s.seconds is not None and time.monotonic() - t_start >= s.seconds
                pending, pages, late_votes, stop_votes = self.t.allreduce_sum(
                    (self._pending(), len(step.pages), int(late), int(self.t.stop_requested())))
                failed = self._check_failover() or failed
                total_fetched += pages
                superstep += 1
                if journal is not None:  # the barrier is the group commit
                    journal.save(superstep, self._snapshot(total_fetched))
                if stop_votes:
                    self.stopped_by = "interrupted"
                elif late_votes:
                    self.stopped_by = "time"
                elif s.max_pages is not None and total_fetched >= s.max_pages:
                    self.stopped_by = "max-pages"
                elif s.max_supersteps is not None and superstep >= s.max_supersteps:
                    self.stopped_by = "max-supersteps"
                elif pending == 0 and not failed:
                    self.stopped_by = "exhausted"
                if self.stopped_by:
                    break
        if timer is not None:
            timer.cancel()
        self.frontier.close()
        if intents >= 0:
            os.close(intents)
        if journal is not None:
            journal.close()
        return self.stopped_by

    def _snapshot(self, total_fetched: int) -> dict[str, Any]:
        """This worker's state at a barrier (see :mod:`crawlers.bsp.journal`)."""
        return {"queued": self.queued, "fetched": self.fetched,
                "visited": self.visited.fingerprints(), "refused": self.refused,
                "sites": None if self.rules is None else self.rules.site_counts(),
                "ledger": None if self.ledger is None else self.ledger.state(),
                "total_fetched": total_fetched,
                "extra": None if self.snapshot_extra is None else self.snapshot_extra()}

    def _take_snapshot(self, journal: Any, superstep: int) -> dict[str, Any]:
        """Every rank's snapshot of ``superstep``, checked together: each rank loads and checks
        its own (:func:`snapshot_problem`), and all learn through one ``allgather`` whether
        every rank's is sound and whether they agree on the pages fetched. Any fault raises
        the same :class:`~crawlers.bsp.transport.SharedError` on every rank (a fault only
        one rank saw would leave the others waiting for it for ever)."""
        from crawlers.bsp.journal import BspJournalError

        snap, problem = None, None
        try:
            snap = journal.load(superstep)
            problem = snapshot_problem(snap)
            if problem is not None:
                problem = f"{journal.path}: snapshot {superstep} is not a crawl's state: {problem}"
        except BspJournalError as exc:
            problem = str(exc)
        said = self.t.allgather((problem, None if problem else snap["total_fetched"]))
        problems = [p for p, _ in said if p is not None]
        if problems:
            raise SharedError(problems[0])
        if len({total for _, total in said}) > 1:
            raise SharedError(f"the journals in {journal.dir} disagree on the pages fetched by "
                              f"superstep {superstep} ({[t for _, t in said]}): they are not "
                              "of one crawl")
        return snap

    def _restore(self, snap: dict[str, Any]) -> int:
        """Take up a snapshot: the frontier's contents, what was fetched and claimed, the OPIC
        cash. Returns the pages every worker had fetched by then."""
        self.fetched = set(snap["fetched"])
        self.visited.restore(snap["visited"])
        self.refused = set(snap["refused"])  # never queued again, after a resume too
        if self.rules is not None and snap["sites"] is not None:
            self.rules.restore_site_counts(snap["sites"])  # the per-site budgets spent
        if self.ledger is not None and snap["ledger"] is not None:
            self.ledger.restore(snap["ledger"])
        self._insert(sorted(snap["queued"].items(), key=lambda kv: -kv[1]))
        return snap["total_fetched"]

    def _offer_seeds(self, batch: list[tuple[str, float]]) -> None:
        """My seeds, each claimed as a link is: in the visited set, then in its site's budget
        (a seed is one of its site's pages, as in the threaded crawl)."""
        for u in self._own_seeds:
            if not self.visited.claim(u):
                continue
            if self.rules is not None and not self.rules.claim_site(u):
                self.refused.add(u)  # as a link refused by the budget: never queued
                continue
            batch.append((u, self.ledger.priority(u) if self.ledger is not None else 0.0))


def snapshot_problem(snap: Any) -> str | None:
    """What makes ``snap`` unlike every :meth:`Worker._snapshot` (``None``: nothing): the keys
    it has and the types of what they hold, down to each URL and priority. O(size)."""
    from crawlers.bsp.journal import is_count, is_real

    def urls_to_reals(d: Any) -> bool:
        return isinstance(d, dict) and all(isinstance(u, str) and is_real(p)
                                           for u, p in d.items())
    checks = {
        "queued": urls_to_reals,
        "fetched": lambda v: isinstance(v, (set, frozenset)) and all(isinstance(u, str)
                                                                     for u in v),
        "visited": lambda v: isinstance(v, (set, frozenset)) and all(
            isinstance(f, int) and not isinstance(f, bool) for f in v),
        "refused": lambda v: isinstance(v, (set, frozenset)) and all(isinstance(u, str)
                                                                     for u in v),
        "sites": lambda v: v is None or (isinstance(v, dict) and all(
            isinstance(k, str) and is_count(n) for k, n in v.items())),
        "ledger": lambda v: v is None or (isinstance(v, tuple) and len(v) == 3
                                          and all(urls_to_reals(d) for d in v)),
        "total_fetched": is_count,
        "extra": lambda v: v is None or isinstance(v, dict),
    }
    if not isinstance(snap, dict):
        return f"a {type(snap).__name__}, not a mapping"
    for key, ok in checks.items():
        if key not in snap:
            return f"it has no {key!r}"
        if not ok(snap[key]):
            return f"its {key!r} is not what a worker keeps there"
    return None


#: The errors of a URL robots.txt refused (:func:`make_fetch`): not pages, counted apart
#: (the report's ``robots_refused`` and ``robots_unreachable``), as the threaded crawl does.
REFUSED = ("robots_refused", "robots_unreachable")


def make_fetch(fetcher: Any, robots_allowed: Callable[[str], Any] | None = None,
               politeness_wait: Callable[[str], Any] | None = None
               ) -> Callable[[str], FetchResult]:
    """The robots' fetch: robots.txt and politeness hooks (real sites), then the fetcher. A URL
    whose robots.txt fetch the crawl's stop cut (the hook's refusal says ``robots_cut``) is cut
    too (:data:`~crawlers.page.faults.STOPPED`), not a page; any other URL it
    refuses is a result whose error is one of :data:`REFUSED` (the hook's
    :class:`~crawlers.page.robots.Refusal` says which; a plain ``False`` is
    ``robots_refused``), not a page. A URL whose site's robots.txt did not answer is not put
    off: the BSP crawl gives it up as ``robots_unreachable`` at once (its supersteps would spin
    until the site may be asked again; the threaded crawl puts it off). A later URL of that
    site, once the site may be asked again, asks again, up to ``policy.robots_retries``."""
    if robots_allowed is None and politeness_wait is None:
        return fetcher.fetch

    def fetch(url: str) -> FetchResult:
        why = True if robots_allowed is None else robots_allowed(url)
        if not why:
            if getattr(why, "counter", None) == "robots_cut":  # robots.txt cut by the stop:
                # no answer, so not a page (put back in the frontier; a resumed crawl asks
                # again), as the threaded crawler counts it
                return FetchResult(url=url, final_url=url, error=faults.STOPPED)
            counter = getattr(why, "counter", REFUSED[0])
            return FetchResult(url=url, final_url=url,
                               error=counter if counter in REFUSED else REFUSED[0])
        if politeness_wait is not None:
            politeness_wait(url)
        return fetcher.fetch(url)

    return fetch
