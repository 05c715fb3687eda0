"""The threaded crawler: r robot threads sharing one frontier of any kind.

Each robot repeats: take a URL from the frontier, fetch it, keep the links that are in scope and
new (the visited set's atomic claim), put them back. The crawler contains no HTTP and no parsing:
the :class:`~crawlers.page.fetch.Fetcher` it is given does both.

Termination is detected by counting outstanding work. ``pending`` is the number of URLs that
were claimed but not yet fully processed (waiting in the frontier, spilled, or being fetched).
It goes up *before* a URL is enqueued and down only *after* its links were enqueued, so it is 0
exactly when every robot is idle and the frontier is empty: never early, never late. A frontier
that loses URLs (``unsynchronized``) would keep ``pending`` above 0 for ever, so the crawler also
stops when every robot has been idle on an empty frontier for a while, and reports the loss.

Full-frontier policies (``when_full``):

``block``
    the paper's: a robot waits for room. Robots are producers *and* consumers, so when every
    robot waits to put, none is left to get: a deadlock. A watchdog notices that every robot has
    been blocked for ``watchdog`` seconds, and ends the crawl with ``deadlock=True``.
``spill``
    URLs that do not fit go to an unbounded overflow store, refilled into the frontier as room
    appears; nothing is lost.
``drop``
    URLs that do not fit are dropped and counted.

Who puts the links back (``producers``):

``0`` (the default)
    each robot puts its own links, as the threading paper's pseudo-code does (take, check,
    crawl, parse, add): one kind of thread plays both roles, so ``block`` can close a cycle in
    the wait-for graph (robot waits for room, room waits for a robot).
``N``
    the roles of the paper's Figure 11: robots only consume (take, fetch, extract) and hand
    their new links to ``N`` producer threads through an unbounded hand-off queue; only the
    producers put, so only they wait for room. The wait-for graph is a chain, ``block`` cannot
    deadlock, and the URLs that do not fit wait in the hand-off instead (its peak is
    reported as ``handoff_peak``).
"""

from __future__ import annotations

import heapq
import queue
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Any

import frontier as frontier_pkg
from crawlers.crawl.interrupts import SafePoints
from crawlers.crawl.opic import Opic
from crawlers.crawl.report import CrawlReport, GroundTruth, overlap
from crawlers.crawl.visited import RacyVisitedSet, VisitedSet
from crawlers.page import faults
from crawlers.page.fetch import Fetcher
from crawlers.page.robots import Refusal
from frontier.userclass import broken_contract

__all__ = ["POLICIES", "POLL", "STUCK_AFTER", "Crawler"]

POLICIES = ("block", "spill", "drop")
POLL = 0.05  # seconds a robot waits in get/put before looking at the stop flag again
#: Seconds the conductor waits for one call of the frontier's that makes no progress (seeds put
#: with no wait, ``close()``) before it calls the frontier stuck and the crawl failed.
STUCK_AFTER = 10.0
_SLICE_OVER = object()  # the time slice ended while the conductor waited for the frontier


def _as_failure(exc: BaseException) -> BaseException:
    """What a crawl thread raised, as ``run`` raises it again: an ``Exception`` (or Ctrl-C) as
    it is; anything else (``SystemExit`` from a student's frontier, which would end the
    process with its status and not a word) a ``RuntimeError`` raised from it, so that the
    command line names the line that raised it."""
    if isinstance(exc, (Exception, KeyboardInterrupt)):
        return exc
    failure = RuntimeError(f"{type(exc).__name__}({exc}) raised in a crawl thread")
    failure.__cause__ = exc
    return failure

IDLE, BUSY, BLOCKED = "idle", "busy", "blocked"


class Crawler:
    """Crawl with ``threads`` robots sharing ``frontier``. One ``run()`` per crawler.

    ``fetcher`` fetches and extracts links (thread-safe); ``in_scope(url)`` filters links
    (default: all); ``robots_allowed(url)`` and ``politeness_wait(url)`` are optional hooks. A
    URL robots.txt refuses is not a page (nor covered, nor a fetch of ``max_pages``): it is
    counted in the report's ``robots_refused`` or ``robots_unreachable`` (the hook's
    :class:`~crawlers.page.robots.Refusal` says which), or, when the refusal says its site may
    answer later, put off until then, still pending; a crawl in which every URL was refused
    and none fetched stops ``nothing-fetchable``, not ``exhausted``;
    ``sink`` receives each :class:`FetchResult` and its new links (``sink.page(result)``,
    ``sink.edges(url, links)``; it must be thread-safe). ``ground_truth`` enables coverage and
    quality. ``timeline=True`` records ``(elapsed, url)`` for every fetch. ``producers``: see
    the module docstring (0: robots put their own links). ``poll``: how long a thread waits in
    the frontier before it looks again (at the stop flag, the spill store); ``None`` waits until
    woken, as plain Python threads do, which lets a frontier's lost wake-ups show (the
    frontier's ``close()`` at the end wakes everyone). ``journal``: a
    :class:`~crawlers.crawl.journal.Journal` to keep the crawl's state in and resume from;
    ``run()`` begins its session and closes it. ``reference``: a
    :class:`~crawlers.crawl.report.ReferenceList` to measure coverage against (it takes
    precedence over ``ground_truth``'s size for coverage).

    Against a hostile web: ``rules`` (a :class:`~crawlers.page.rules.UrlRules`, which holds the
    scope too and then replaces ``in_scope``) filters and cleans the links (``admit``) and
    bounds each site (``claim_site``, once per new URL);
    ``counters`` (the policy's :class:`~crawlers.page.policy.Counters`) go into the report's
    ``limits``. When the time slice ends or Ctrl-C arrives, the fetcher's ``cut_all()`` (if it
    has one) cuts every fetch in flight and the threads are given ``stop_grace`` seconds to
    return; the report then says the time actually taken (``seconds``), the fetches cut
    (``fetches_cut``: not counted as pages, a resumed crawl fetches them again) and the threads
    still running after the grace (``threads_unjoined``, abandoned as daemon threads).
    """

    def __init__(
        self,
        fetcher: Fetcher,
        frontier: Any,
        seeds: Iterable[str],
        *,
        threads: int = 8,
        when_full: str = "block",
        in_scope: Callable[[str], bool] | None = None,
        robots_allowed: Callable[[str], bool] | None = None,
        politeness_wait: Callable[[str], Any] | None = None,
        sink: Any = None,
        ground_truth: GroundTruth | None = None,
        watchdog: float = 2.0,
        timeline: bool = False,
        producers: int = 0,
        poll: float | None = POLL,
        thread_timeline: Any = None,
        journal: Any = None,
        reference: Any = None,
        rules: Any = None,
        counters: Any = None,
        stop_grace: float = 2.0,
    ) -> None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        if isinstance(producers, bool) or not isinstance(producers, int) or producers < 0:
            raise ValueError(f"producers must be a non-negative integer, got {producers!r}")
        if when_full not in POLICIES:
            raise ValueError(f"when_full must be one of {', '.join(POLICIES)}, got {when_full!r}")
        self.fetcher = fetcher
        self.frontier = frontier
        self.seeds = list(dict.fromkeys(seeds))
        self.threads = threads
        self.when_full = when_full
        self.in_scope = in_scope
        self.robots_allowed = robots_allowed
        self.politeness_wait = politeness_wait
        self.sink = sink
        self.truth = ground_truth
        self.watchdog = watchdog
        self.record_timeline = timeline
        # a crawlers.crawl.timeline.Timeline: where each thread's time goes (fetch, lock, waits)
        self.thread_timeline = thread_timeline
        self.priority = frontier.ordering == "priority"
        self.visited = RacyVisitedSet() if not frontier.correct else VisitedSet()
        self.opic = Opic(self.seeds) if self.priority else None
        # Priority crawls may put a URL again with a higher priority; this set makes sure
        # only its first copy out of the frontier is fetched.
        self._fetch_once = VisitedSet() if self.priority else None
        gate = getattr(fetcher, "gate", None)
        if gate is not None and hasattr(gate, "claim"):  # a LinkGate (crawlers.page.rules)
            gate.claim = self._claim_redirect  # a redirect's target is claimed as a link is
        self._spill: deque[tuple[str, float]] = deque()  # overflow of the `spill` policy
        self.producers = producers
        self.poll = poll
        self.journal = journal
        self.reference = reference
        self.rules = rules
        self.counters = counters
        self.stop_grace = stop_grace
        self._cut = 0  # fetches cut by the end of the crawl (under _work_lock)
        self._unjoined = 0
        # URLs robots.txt refused, by counter (robots_refused, robots_unreachable), under
        # _work_lock; URLs put off until their site's robots.txt may be asked again, a heap of
        # (due, n, url, priority) under _work_lock, and for a priority crawl the ones put back
        # into the frontier since (_fetch_once has claimed them already)
        self._refused: Counter[str] = Counter()
        self._later: list[tuple[float, int, str, float]] = []
        self._later_n = 0
        self._due: set[str] = set()
        self._resumed = 0
        self._refetch_bound: int | None = None
        # Batches of new links from the robots to the producers (producers > 0 only).
        self._handoff: queue.SimpleQueue[list[tuple[str, float]]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._stopped_by = ""
        # _work_lock guards pending, the budget, and every counter below.
        self._work_lock = threading.Lock()
        self._pending = 0
        self._budget: int | None = None
        self._started = 0
        self._fetched: set[str] = set()
        self._n = 0
        self._errors: Counter[str] = Counter()
        self._per_thread = [0] * threads
        self._links = self._dropped = self._spilled = 0
        self._polite_waited = 0.0  # seconds robots slept for politeness (under _work_lock)
        self._handoff_urls = self._handoff_peak = 0
        self._timeline: list[tuple[float, str]] = []
        # Robots are 0 .. threads-1, producers threads .. threads+producers-1; each thread
        # writes only its own entry.
        self._state = [IDLE] * (threads + producers)
        self._since = [0.0] * (threads + producers)  # when the thread entered its state
        self._deadlock = False
        self._deadlock_after: float | None = None  # seconds from start to the last robot blocking
        self._t0 = 0.0
        self._last_page = 0.0  # monotonic time the last counted page was recorded
        self._failure: BaseException | None = None  # the first exception a crawl thread raised
        self._stuck = False  # a call of the frontier's made no progress for STUCK_AFTER s

    # -- the robots ---------------------------------------------------------------------------

    def _guarded(self, target: Callable[..., None]) -> Callable[..., None]:
        """``target`` that, if it raises, keeps the exception and ends the crawl (``run``
        raises it once every thread is joined): a thread that dies must not leave the others
        waiting for its pages, nor the report saying nothing went wrong."""
        def run(*args: Any) -> None:
            try:
                target(*args)
            except BaseException as exc:  # noqa: BLE001 - re-raised by run()
                self._keep_failure(_as_failure(exc))
                self._finish("failed")
        return run

    def _keep_failure(self, exc: BaseException) -> None:
        """Keep ``exc`` for ``run`` to raise once the threads are joined, unless an earlier
        one is kept (the first failure is the cause). Thread-safe."""
        with self._work_lock:
            if self._failure is None:
                self._failure = exc

    def _finish(self, reason: str) -> None:
        if not self._stop.is_set():
            self._stopped_by = reason
            self._stop.set()

    def _set_state(self, i: int | None, state: str) -> None:
        if i is not None and self._state[i] != state:
            self._state[i] = state
            self._since[i] = time.monotonic()

    def _done(self, n: int = 1) -> None:
        """``n`` claimed URLs are fully processed (or dropped)."""
        with self._work_lock:
            self._pending -= n
            if self._pending <= 0:
                self._finish("exhausted")

    def _next_url(self, i: int) -> str | None:
        """A URL to crawl, or ``None`` (look at the stop flag and come back)."""
        self._set_state(i, IDLE)
        if self._spill:
            self._refill()
        try:
            url = self.frontier.get(timeout=self.poll)
        except frontier_pkg.Empty:
            try:
                url, _ = self._spill.popleft()
            except IndexError:
                return None
        if url is None:  # closed and drained
            self._stop.wait(POLL)
            return None
        if not isinstance(url, str):
            raise broken_contract(self.frontier, f"get() returned {url!r:.60} "
                                  f"({type(url).__name__}), neither a URL (str) nor None")
        self._set_state(i, BUSY)
        return url

    def _refill(self) -> None:
        """Move spilled URLs back into the frontier while it has room."""
        while True:
            try:
                url, p = self._spill.popleft()
            except IndexError:
                return
            try:
                self.frontier.put(url, p, timeout=0)
            except frontier_pkg.Full:
                self._spill.appendleft((url, p))
                return
            except frontier_pkg.Closed:
                return

    def _enqueue(self, i: int, pairs: list[tuple[str, float]]) -> None:
        """Robot ``i``'s new links: count them as pending, then put them (or hand them to the
        producers)."""
        if not pairs:
            return
        with self._work_lock:
            self._pending += len(pairs)
            if self.producers:
                self._handoff_urls += len(pairs)
                self._handoff_peak = max(self._handoff_peak, self._handoff_urls)
        if self.producers:
            self._handoff.put(pairs)
        else:
            self._put_all(i, pairs)

    def _put_all(self, i: int | None, pairs: list[tuple[str, float]]) -> None:
        """Put pending ``pairs`` into the frontier under the full-frontier policy; thread ``i``
        (a robot, a producer, or ``None`` for the seeder) shows ``BLOCKED`` while it waits."""
        f = self.frontier
        if not f.bounded:
            try:
                f.put_many(pairs)
            except frontier_pkg.Closed:
                pass
            return
        for url, p in pairs:
            if self.when_full == "block":
                if not self._put_waiting(i, url, p):
                    return
            else:
                try:
                    f.put(url, p, timeout=0)
                except frontier_pkg.Full:
                    if self.when_full == "spill":
                        self._spill.append((url, p))
                        with self._work_lock:
                            self._spilled += 1
                    else:
                        with self._work_lock:
                            self._dropped += 1
                        self._done()
                except frontier_pkg.Closed:
                    return
        if self._spill and self.poll is None:
            # The robots may have emptied the frontier and gone to sleep in an untimed get
            # between our Full and our append, and nothing would wake them: refill now (if it
            # is still full, a robot that takes from it comes back to refill after this append).
            self._refill()

    def _put_waiting(self, i: int | None, url: str, p: float) -> bool:
        """Put one URL, waiting for room (``BLOCKED`` while it waits); False once stopped.

        An untimed put never raises ``Full``, so it is tried without waiting first: a thread
        asleep in put must show ``BLOCKED``, or the watchdog takes it for a busy one and a
        deadlock or a lost wake-up in put goes unreported (the crawl would never end)."""
        f = self.frontier
        timeout = self.poll
        if timeout is None:
            try:
                f.put(url, p, timeout=0)
                return True
            except frontier_pkg.Full:
                self._set_state(i, BLOCKED)
            except frontier_pkg.Closed:
                return False
        while True:
            try:
                f.put(url, p, timeout=timeout)
                break
            except frontier_pkg.Full:
                self._set_state(i, BLOCKED)
                if self._stop.is_set():
                    return False
            except frontier_pkg.Closed:
                return False
        self._set_state(i, BUSY)
        return True

    def _take_budget(self) -> bool:
        with self._work_lock:
            if self._budget is not None and self._started >= self._budget:
                self._finish("max-pages")
                return False
            self._started += 1
            return True

    def _refuse(self, url: str, why: Any) -> None:
        """robots.txt refused ``url`` (``why``: the hook's falsy answer, a
        :class:`~crawlers.page.robots.Refusal` or plain ``False``): not a page, nor a fetch of
        the page budget. A site that may still answer puts the URL off (still pending, so the
        crawl is not exhausted); otherwise it is counted as refused or unreachable."""
        retry_in = why.retry_in if isinstance(why, Refusal) else None
        counter = why.counter if isinstance(why, Refusal) else "robots_refused"
        p = self.opic.priority(url) if self.opic is not None else 0.0
        with self._work_lock:
            if retry_in is not None:
                self._pending += 1  # the robot's _done() is for this turn, not the URL
                self._later_n += 1
                heapq.heappush(self._later, (time.monotonic() + retry_in, self._later_n, url, p))
            else:
                self._refused[counter] += 1

    def _release_due(self) -> int:
        """Put the URLs whose site's robots.txt may be asked again back into the frontier (the
        spill store if it is full; robots refill from it); returns how many."""
        now = time.monotonic()
        with self._work_lock:
            due = []
            while self._later and self._later[0][0] <= now:
                _, _, url, p = heapq.heappop(self._later)
                due.append((url, p))
                if self._fetch_once is not None:
                    self._due.add(url)
        for k, (url, p) in enumerate(due):
            try:
                self.frontier.put(url, p, timeout=0)
            except frontier_pkg.Full:
                self._spill.append((url, p))
            except frontier_pkg.Closed:  # the crawl stopped meanwhile: these are still put
                with self._work_lock:  # off (pending, counted in robots_put_off), not lost
                    for left, q in due[k:]:
                        self._later_n += 1
                        heapq.heappush(self._later, (now, self._later_n, left, q))
                        self._due.discard(left)
                return k
        return len(due)

    def _robots_let(self, url: str) -> bool:
        """robots.txt lets ``url`` be fetched (asked before the page budget: a refusal is no
        fetch); if not, the URL is cut, refused or put off, never a page."""
        why = True if self.robots_allowed is None else self.robots_allowed(url)
        if why:
            return True
        if getattr(why, "counter", None) == "robots_cut":  # robots.txt cut by the end of
            with self._work_lock:  # the crawl: no answer, so not a page (a resumed crawl asks
                self._cut += 1  # again); a refusal after the stop is still a refusal
        else:
            self._refuse(url, why)  # not a page: no record, a resumed crawl asks again
        return False

    def _process(self, i: int, url: str) -> None:
        tl = self.thread_timeline
        if self.politeness_wait is not None:
            start = time.perf_counter()
            waited = self.politeness_wait(url)
            if waited:
                if tl is not None:
                    tl.record("polite", start, time.perf_counter())
                with self._work_lock:
                    self._polite_waited += waited
        if self.journal is not None:
            self.journal.started(url)
        if tl is None:
            result = self.fetcher.fetch(url)
        else:  # two stamps around the fetch (a with-block would cost a generator)
            start = time.perf_counter()
            try:
                result = self.fetcher.fetch(url)
            finally:
                tl.record("fetch", start, time.perf_counter())
        if result.error == faults.STOPPED:  # cut by the end of the crawl: not a page
            with self._work_lock:
                self._cut += 1
            return
        links = result.links
        if self.rules is not None:  # scope included, and each rejection counted
            links = self.rules.admit(links)
        elif self.in_scope is not None:
            links = [u for u in links if self.in_scope(u)]
        now = time.monotonic()
        with self._work_lock:
            self._n += 1
            self._last_page = max(self._last_page, now)
            self._per_thread[i] += 1
            self._fetched.add(url)
            self._links += len(result.links)
            if result.error:
                self._errors[result.error] += 1
            if self.record_timeline:
                self._timeline.append((now - self._t0, url))
        if self.sink is not None:
            self.sink.page(result)
            self.sink.edges(url, result.links)
        if self.opic is not None:
            cash = self.opic.credit(url, links)
            new = []
            for u, c in zip(links, cash):
                fresh = self.visited.claim(u)
                if fresh and self.rules is not None and not self.rules.claim_site(u):
                    self._fetch_once.claim(u)  # refused for good: never queued on a later link
                    continue
                if (fresh or u not in self._fetch_once) and self.opic.refresh(u, c):
                    new.append((u, c))
        else:
            # one lock round for the page's links (a lock per link contends on a
            # free-threaded build); claim_site only for the fresh ones, in page order
            claim_site = None if self.rules is None else self.rules.claim_site
            new = [(u, 0.0) for u, fresh in zip(links, self.visited.claim_many(links))
                   if fresh and (claim_site is None or claim_site(u))]
        if self.journal is not None:  # before the links can be fetched (crawlers.crawl.journal)
            self.journal.record(url, result.status, result.error, new)
        self._enqueue(i, new)

    def _robot(self, i: int) -> None:
        if self.thread_timeline is not None:
            self.thread_timeline.mark()  # the robot's row starts now ...
        while not self._stop.is_set():
            url = self._next_url(i)
            if url is None:
                continue
            if (self._fetch_once is not None and not self._fetch_once.claim(url)
                    and not self._retried(url)):
                self._done()  # a stale copy of a URL re-queued with a higher priority
                continue
            if not self._robots_let(url):
                self._done()
                continue
            if not self._take_budget():
                return
            try:
                self._process(i, url)
            finally:
                self._done()
        self._set_state(i, IDLE)
        if self.thread_timeline is not None:
            self.thread_timeline.mark()  # ... and ends now

    def _retried(self, url: str) -> bool:
        """``url`` comes back from :meth:`_release_due` (once: a stale copy is still stale)."""
        with self._work_lock:
            if url in self._due:
                self._due.discard(url)
                return True
            return False

    def _producer(self, i: int) -> None:
        """Take batches of new links from the hand-off and put them (state slot ``i``)."""
        if self.thread_timeline is not None:
            self.thread_timeline.mark()
        while not self._stop.is_set():
            try:
                pairs = self._handoff.get(timeout=POLL)
            except queue.Empty:
                continue
            with self._work_lock:
                self._handoff_urls -= len(pairs)
            self._set_state(i, BUSY)
            self._put_all(i, pairs)
            self._set_state(i, IDLE)
        if self.thread_timeline is not None:
            self.thread_timeline.mark()

    # -- the conductor ------------------------------------------------------------------------

    def _watch(self) -> None:
        """Stop when no thread has moved for a while and nothing will move it again:

        * *deadlock*: every robot blocked in put on a full frontier, for ``watchdog`` s;
        * *lost wake-up*: nobody busy for ``watchdog`` s, yet a waiter could proceed (a robot
          idle in get while the frontier holds URLs, or a thread blocked in put while it has
          room): the signal that should have woken it never came;
        * *stall*: every thread idle on an empty frontier while URLs are still counted as
          pending, for ``watchdog`` s (a racy frontier lost them). It waits as long as the
          others: a robot that has taken the last URL but not yet marked itself busy, or a
          producer that holds a batch, looks idle until it runs again, and on a busy machine
          that can take half a second.
        """
        room = self.frontier.capacity if self.frontier.bounded else None
        released = 0.0  # when URLs put off for robots.txt last came back (a move too)
        while not self._stop.wait(0.05):
            if self._later and self._release_due():
                released = time.monotonic()
            now = time.monotonic()
            states, since = list(self._state), list(self._since)
            robots = states[: self.threads]
            # seconds since the last thread changed state (or URLs came back)
            quiet = now - max(*since, released)
            size = len(self.frontier)
            if all(s == BLOCKED for s in robots) and (room is None or size >= room):
                if now - max(since[: self.threads]) >= self.watchdog:
                    self._deadlock = True
                    self._deadlock_after = round(max(since[: self.threads]) - self._t0, 4)
                    self._finish("deadlock")
            elif BUSY not in states and (
                (size > 0 and IDLE in robots)
                or (room is not None and size < room and BLOCKED in states)
            ):
                if quiet >= self.watchdog:
                    self._finish("lost-wakeup")
            elif (all(s == IDLE for s in states) and size == 0
                  and not self._spill and self._handoff.empty() and not self._later):
                if quiet >= max(self.watchdog, 10 * POLL):
                    self._finish("stalled")

    def run(
        self,
        seconds: float | None = None,
        max_pages: int | None = None,
        progress: Callable[[CrawlReport], None] | None = None,
    ) -> CrawlReport:
        """Crawl until the time slice ``seconds`` ends, ``max_pages`` fetches were made, the
        web is exhausted, or a deadlock is detected. Ctrl-C (``KeyboardInterrupt``) stops the
        crawl cleanly and still returns the report (``stopped_by="interrupted"``); one that
        comes as the crawl ends by itself is raised again once the threads are joined and the
        journal closed. Main thread: SIGINT and SIGTERM are handled at the conductor's safe
        point (:mod:`~crawlers.crawl.interrupts`), within 0.2 s. ``progress`` is called about 5
        times a second with a partial report."""
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, got {seconds!r}")
        if max_pages is not None and max_pages < 1:
            raise ValueError(f"max pages must be a positive integer, got {max_pages!r}")
        # Ctrl-C and SIGTERM are handled at the conductor's safe point, never inside the
        # threading calls that start, wait for and join the robots (see interrupts)
        with SafePoints() as points:
            if self.thread_timeline is None:
                report = self._run(seconds, max_pages, progress, points)
            else:
                from frontier import probe

                # the frontier reports its lock and condition waits while the threads run
                self.thread_timeline.t0 = time.perf_counter()  # its clock starts with the crawl
                with probe.recording(self.thread_timeline.record):
                    report = self._run(seconds, max_pages, progress, points)
        if self._failure is not None:  # the threads are joined and the journal closed
            raise self._failure
        return report

    def _run(self, seconds: float | None, max_pages: int | None,
             progress: Callable[[CrawlReport], None] | None, points: SafePoints
             ) -> CrawlReport:
        self._budget = max_pages
        self._t0 = time.monotonic()
        seeds = [(u, self.opic.priority(u) if self.opic else 0.0) for u in self.seeds]
        restored = None if self.journal is None else self.journal.begin(seeds, self.threads)
        # Every thread is started inside the try: a Ctrl-C at any moment from here on, even
        # between two starts, ends in the 'interrupted' report with the started threads joined.
        threads: list[threading.Thread] = []
        deadline = None if seconds is None else self._t0 + seconds
        late = False  # a Ctrl-C handled after the crawl had ended by itself
        try:
            if restored is not None:
                seeds = self._restore(restored)
            claim_site = (lambda u: True) if self.rules is None else self.rules.claim_site
            seeds = [(u, p) for u, p in seeds if self.visited.claim(u) and claim_site(u)]
            if not seeds:
                self._finish("exhausted")
            # The seeds that fit go in before the robots start (the paper's step 6); a seeder
            # thread puts the rest, so that a full bounded frontier never blocks the conductor.
            with self._work_lock:
                self._pending += len(seeds)
            beat = [time.monotonic()]  # when the last seed went in

            def place() -> int:
                placed = 0
                for url, p in seeds:
                    try:
                        self.frontier.put(url, p, timeout=0)
                    except frontier_pkg.Full:
                        break
                    placed += 1
                    beat[0] = time.monotonic()
                return placed

            placed = self._off_the_conductor(place, "put(url, timeout=0) of a seed", points,
                                             beat, deadline)
            if placed is _SLICE_OVER:  # a slow frontier took the whole slice with the seeds
                self._finish("time")  # and no thread starts
            else:
                threads += self._crawl_threads(seeds[placed:])
                for t in threads:
                    t.start()
            while not self._stop.is_set():
                wait = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
                if wait <= 0:
                    self._finish("time")
                    break
                self._stop.wait(wait)
                points.poll()  # a Ctrl-C noted meanwhile raises here, where no lock is held
                if progress is not None:
                    progress(self._report())
        except KeyboardInterrupt:
            late = self._stop.is_set() and self._stopped_by != "failed"  # a failure is raised
            self._finish("interrupted")
        finally:
            # The teardown is not cut, whatever signal comes: cut half-way, it left robots
            # fetching after the journal was closed as clean (pages lost to a resume). It is
            # bounded: the stop grace, STUCK_AFTER for close(); a signal then is raised after.
            points.hold()
            self._stop.set()
            self._end_threads([t for t in threads if t.ident is not None], points)  # started
            if self.journal is not None:
                self.journal.close()
        if late:  # the report is of a finished crawl, which the Ctrl-C must not turn into a
            raise KeyboardInterrupt  # lab's next measurement: passed on, the crawl on disk
        # The clock runs until the threads returned (or the grace ran out): the time actually
        # taken, pages in flight at the stop included.
        return self._report(time.monotonic() - self._t0)

    def _crawl_threads(self, rest: list[tuple[str, float]]) -> list[threading.Thread]:
        """The crawl's threads, not started: the robots, the producers, the seeder that puts
        ``rest`` (the seeds the frontier had no room for) and the watchdog."""
        guarded = self._guarded
        return [
            *(threading.Thread(target=guarded(self._robot), args=(i,), name=f"robot-{i}",
                               daemon=True) for i in range(self.threads)),
            *(threading.Thread(target=guarded(self._producer), args=(self.threads + j,),
                               name=f"producer-{j}", daemon=True)
              for j in range(self.producers)),
            threading.Thread(target=guarded(self._put_all), args=(None, rest), name="seeder",
                             daemon=True),
            threading.Thread(target=guarded(self._watch), name="watchdog", daemon=True),
        ]

    def _off_the_conductor(self, call: Callable[[], Any], what: str, points: SafePoints,
                           beat: list[float] | None = None, deadline: float | None = None
                           ) -> Any:
        """``call()`` run in a thread of its own while the conductor waits for it, at its safe
        point between two waits of ``POLL`` s (Ctrl-C is handled there, never stuck behind the
        frontier); its result, or its exception raised here. The frontier is code the
        crawler does not own: a student's may hold a lock for ever, or wait in a
        ``put(timeout=0)``. A call that has made no progress for ``STUCK_AFTER`` s (since it
        began, or since ``beat[0]``, which it updates as it goes) is called stuck: a
        :func:`~frontier.userclass.broken_contract` error naming the frontier's file. Past
        ``deadline`` (the crawl's time slice) the conductor waits no more: ``_SLICE_OVER``,
        the call left to finish or fail on its own."""
        box: dict[str, Any] = {}
        began = [time.monotonic()] if beat is None else beat

        def run() -> None:
            try:
                box["value"] = call()
            except BaseException as exc:  # noqa: BLE001 - raised again by the conductor
                box["error"] = _as_failure(exc)

        t = threading.Thread(target=run, name="conductor-call", daemon=True)
        t.start()
        while True:
            t.join(POLL)
            if not t.is_alive():
                break
            points.poll()
            if deadline is not None and time.monotonic() >= deadline:
                return _SLICE_OVER
            if time.monotonic() - began[0] > STUCK_AFTER:
                self._stuck = True
                raise broken_contract(self.frontier, f"{what} has not returned for "
                                      f"{STUCK_AFTER:g} s: a lock never released, or a wait "
                                      "that should not wait?")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def _end_threads(self, threads: list[threading.Thread], points: SafePoints) -> None:
        """Join the threads after the stop. A time slice or Ctrl-C cuts the fetches in flight
        (the fetcher's ``cut_all``) and waits ``stop_grace`` seconds in all; other ends (the web
        exhausted, the page budget, a deadlock) let the fetches in flight finish, as long as
        before (at least 5 s, or three watchdog periods)."""
        cut = self._stopped_by in ("time", "interrupted")
        cut_all = getattr(self.fetcher, "cut_all", None)
        if cut and cut_all is not None:
            cut_all()
        try:
            if not self._stuck:  # else close() would wait on the same lock: STUCK_AFTER again
                self._off_the_conductor(self.frontier.close, "close()", points)
        except Exception as exc:  # its own, or stuck: the crawl failed, the threads still end
            self._keep_failure(exc)
        patience = self.stop_grace if cut else max(5.0, 3 * self.watchdog)
        end = time.monotonic() + patience
        for t in threads:
            t.join(timeout=max(0.0, end - time.monotonic()))
        self._unjoined = sum(t.is_alive() for t in threads)

    def _claim_redirect(self, url: str) -> bool:
        """Claim a redirect's target as a link is claimed: True if it is new, and then it is
        the redirecting fetch's (a priority crawl also marks it fetched once, so that a copy
        of it queued later is not fetched again). Thread-safe."""
        if not self.visited.claim(url):
            return False
        if self._fetch_once is not None:
            self._fetch_once.claim(url)
        return True

    def _restore(self, restored: Any) -> list[tuple[str, float]]:
        """Take up a journal's crawl: its done pages count as fetched, every URL it discovered
        as claimed, and against its site's budget (its frontier is counted as it is put,
        through the seeds' path); returns its frontier (to put like seeds, priorities kept)."""
        for url in restored.done:
            self.visited.claim(url)
            if self.rules is not None:
                self.rules.claim_site(url)
        if self._fetch_once is not None:
            for url in restored.done:
                self._fetch_once.claim(url)
        self._fetched.update(restored.done)
        self._resumed = len(restored.done)
        self._refetch_bound = restored.refetch_bound
        return restored.frontier  # put through the seeds' path, which claims them

    def _report(self, elapsed: float | None = None) -> CrawlReport:
        final = elapsed is not None
        elapsed = elapsed if final else time.monotonic() - self._t0
        with self._work_lock:
            n, unique = self._n, len(self._fetched)
            r = CrawlReport(
                frontier=self.frontier.name,
                threads=self.threads,
                seconds=round(elapsed, 4),
                pages_fetched=n + self._resumed,
                unique_pages=unique,
                duplicates=n + self._resumed - unique,
                overlap=overlap(n + self._resumed, unique),
                errors=dict(self._errors),
                pages_per_second=n / elapsed if elapsed > 0 else 0.0,
                pages_per_thread=list(self._per_thread),
                links_found=self._links,
                politeness_waited=round(self._polite_waited, 4),
                urls_discovered=len(self.visited),
                urls_dropped=self._dropped,
                urls_spilled=self._spilled,
                visited_races=self.visited.races,
                stopped_by=self._stopped_by,
                deadlock=self._deadlock,
                deadlock_after=self._deadlock_after,
                producers=self.producers,
                handoff_peak=self._handoff_peak,
                resumed=self._resumed,
                refetch_bound=self._refetch_bound,
                fetches_cut=self._cut,
                threads_unjoined=self._unjoined,
                robots_refused=self._refused["robots_refused"],
                robots_unreachable=self._refused["robots_unreachable"],
                robots_put_off=len(self._later),
                limits={} if self.counters is None else self.counters.as_dict(),
            )
            fetched = list(self._fetched) if final else []
            if final and self.record_timeline:
                r.timeline = list(self._timeline)
        if final:
            if (r.stopped_by == "exhausted" and not r.pages_fetched
                    and r.robots_refused + r.robots_unreachable):
                r.stopped_by = "nothing-fetchable"  # every URL refused: not a complete crawl
            if self._stopped_by == "stalled":
                r.urls_lost = max(self._pending, 0)
            r.frontier_stats = self.frontier.stats.as_dict()
            if self.journal is not None:
                r.refetched = self.journal.refetched()
                r.journal_commits = self.journal.commits
            if self.truth is not None:
                r.web_size = self.truth.size
                r.coverage = self.truth.coverage(unique)
                r.coverage_basis = "web"
                r.quality = self.truth.quality(fetched)
            elif r.urls_discovered:  # an unknown web: against every URL the crawl reached
                r.coverage = unique / r.urls_discovered
                r.coverage_basis = "discovered"
            if self.reference is not None:  # a list the user gave wins over the web's size
                r.web_size = self.reference.size
                r.coverage = self.reference.coverage(fetched)
                r.coverage_basis = "reference"
        return r
