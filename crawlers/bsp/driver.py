"""Run a BSP crawl on either backend: :func:`run_bsp` (see the package docstring).

The driver builds what every worker shares (:class:`Setup`: settings, the assignment, the
seeds, the served origins), starts the workers on the chosen transport, collects their
per-superstep reports at the root and returns the :class:`~crawlers.bsp.report.BspReport`.

* ``processes``: this process is the coordinator. It opens the target (starting the local web
  server for a served web, which every worker then fetches from), spawns P workers, answers
  their collectives (:class:`~crawlers.bsp.transport.ProcessGroup`) and collects.
* ``mpi``: every rank runs :func:`run_bsp`; rank 0 opens the target, shares the set-up with
  one ``allgather``, collects, and returns the report; the other ranks return ``None``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import frontier as frontier_pkg
from crawlers.bsp.engine import LARGE_CAPACITY, Ownership, Worker, WorkerSettings, make_fetch
from crawlers.bsp.report import BspReport, Collector
from crawlers.bsp.transport import (
    STARTS_BLOCKED,
    BspError,
    MpiTransport,
    ProcessGroup,
    ProcessTransport,
    SharedError,
    check_mpi_launch,
)
from crawlers.children import unblock
from crawlers.crawl.interrupts import in_a_thread_of_its_own
from crawlers.crawl.targets import WebOptions, load_reference, open_target
from crawlers.page.urls import origin_of, site_of
from crawlers.partition.assignment import Assignment, make_assignment

__all__ = ["BACKENDS", "BspConfig", "Setup", "check_launch", "run_bsp", "validate"]

BACKENDS = ("processes", "mpi")


@dataclass
class BspConfig:
    """A BSP crawl: the web, P workers of ``robots`` robots taking ``R`` URLs a superstep
    from a ``frontier``, an owner ``partition`` (``site-hash``, ``page-hash`` or a partition
    file), a ``backend``, when to stop, and optionally a fault (``kill_worker`` SIGKILLed at
    the start of superstep ``kill_at``, processes backend) and an ``out`` directory."""

    web: WebOptions = field(default_factory=lambda: WebOptions(kind="sim", latency=0.0))
    procs: int = 2
    robots: int = 4
    R: int = 64
    frontier: str = "cbt"
    partition: str = "site-hash"
    backend: str = "processes"
    seconds: float | None = None
    max_pages: int | None = None
    max_supersteps: int | None = None
    kill_worker: int | None = None
    kill_at: int | None = None
    out: str | None = None
    reference: str | None = None  # a file of URLs: coverage against it (read by the root)
    state: str | None = None  # MPI: journals in this directory; resumes from them if present
    opic: bool = True  # OPIC priorities (priority frontiers only)
    capacity: int = LARGE_CAPACITY  # of bounded frontiers; the overflow waits in a list
    timeout: float = 120.0  # seconds a collective waits for a worker
    # the command line that describes the crawl (``crawlab bsp``'s arguments): with ``state``,
    # the journals' identity is made of its lasting flags (crawlers.bsp.journal.crawl_identity)
    command: list[str] | None = None


@dataclass
class Setup:
    """What every worker gets (picklable)."""

    settings: WorkerSettings
    web: WebOptions
    assignment: Assignment
    served_origins: list[str] | None = None


def _positive(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BspError(f"{name} must be a positive integer, got {value!r}")


def check_config(c: BspConfig) -> None:
    """Raise :class:`BspError` (one line) for a configuration that cannot run."""
    _positive("procs (P)", c.procs)
    _positive("robots (r)", c.robots)
    _positive("R", c.R)
    _positive("max pages", c.max_pages, allow_none=True)
    _positive("max supersteps", c.max_supersteps, allow_none=True)
    _positive("capacity", c.capacity)
    if c.seconds is not None and not c.seconds > 0:
        raise BspError(f"seconds must be positive, got {c.seconds!r}")
    if c.backend not in BACKENDS:
        raise BspError(f"unknown backend {c.backend!r}; valid: {', '.join(BACKENDS)}")
    frontier_pkg.info(c.frontier)  # UnknownFrontier (a ValueError) lists the names
    if (c.kill_worker is None) != (c.kill_at is None):
        raise BspError("--kill-worker and --kill-at go together")
    if c.kill_worker is not None:
        if c.backend != "processes" and c.state is None:
            raise BspError("fault injection (--kill-worker) needs --backend processes, or "
                           "--state DIR under MPI")
        if c.procs < 2:
            raise BspError("--kill-worker needs at least 2 workers (someone must survive)")
        if not 0 <= c.kill_worker < c.procs:
            raise BspError(f"--kill-worker must be a rank in 0..{c.procs - 1}, "
                           f"got {c.kill_worker}")
        if c.kill_at < 0:
            raise BspError(f"--kill-at must be a superstep >= 0, got {c.kill_at}")
        if c.max_supersteps is not None and c.kill_at >= c.max_supersteps:
            raise BspError(f"--kill-at {c.kill_at} is never reached: --max-supersteps "
                           f"{c.max_supersteps} runs supersteps 0..{c.max_supersteps - 1}")
    if c.state is not None and c.backend != "mpi":
        raise BspError("--state applies to --backend mpi (the processes backend hands a dead "
                       "worker's unfinished URLs to the survivors without a restart)")


def check_launch(config: BspConfig) -> None:
    """:func:`check_config`, and for ``--backend mpi`` the launcher's rank count. Depends on
    the arguments and the environment only, so every MPI rank gives the same answer."""
    check_config(config)
    if config.backend == "mpi":
        check_mpi_launch(config.procs)


def validate(config: BspConfig) -> Assignment:
    """Check ``config`` (:class:`BspError` or another one-line :class:`ValueError`) and
    return its assignment (which reads a partition file). Cheap: no process is started.

    Not for an MPI rank alone: a partition file missing on one host only would fail that
    rank while the others wait for it; :func:`run_bsp` checks the file on rank 0 and shares
    the outcome."""
    check_launch(config)
    if config.reference is not None:
        load_reference(config.reference)  # a bad list fails before the crawl starts
    return make_assignment(config.partition, config.procs, known_sites(config.web))


def known_sites(web: WebOptions) -> list[str] | None:
    """The sites a partition file may name: ``siteN.crawlab.test:80`` for a generated web,
    the seed URLs' sites for real ones."""
    if web.kind == "urls":
        return [site_of(u) for u in web.seed_urls]
    from crawlers.web.webgen import logical_origin

    return [site_of(logical_origin(s)) for s in range(web.sites)]


def _setup(c: BspConfig, assignment: Assignment, target: Any) -> Setup:
    served = None
    if c.web.kind == "served":
        served = [origin_of(u) for u in target.seeds]  # seed s is the home page of site s
    settings = WorkerSettings(
        procs=c.procs, robots=c.robots, R=c.R, frontier=c.frontier, priority=c.opic,
        seeds=list(target.seeds), seconds=c.seconds, max_pages=c.max_pages,
        max_supersteps=c.max_supersteps, keep_results=c.out is not None,
        capacity=c.capacity,
        kill=None if c.kill_worker is None else (c.kill_worker, c.kill_at))
    return Setup(settings=settings, web=c.web, assignment=assignment, served_origins=served)


@dataclass
class _Side:
    fetch: Callable[[str], Any]
    in_scope: Callable[[str], bool] | None
    aliases: dict[str, str] | None
    rules: Any = None  # crawlers.page.rules.UrlRules (real sites)
    counters: Any = None  # the policy's counters (None for the simulated web)
    cut: Callable[[], Any] | None = None  # cut the fetches in flight (the crawl ends)


@contextlib.contextmanager
def _worker_side(setup: Setup, target: Any = None) -> Iterator[_Side]:
    """The worker's own fetcher (and scope, and served-to-logical origin aliases)."""
    web = setup.web
    if web.kind == "served":
        from crawlers.page.fetch import HttpFetcher
        from crawlers.web.webgen import logical_origin

        origins = setup.served_origins or []
        aliases = {o: logical_origin(s) for s, o in enumerate(origins)}
        fetcher = HttpFetcher(parser=web.parser, pool_size=max(8, setup.settings.robots),
                              policy=web.policy)
        try:
            yield _Side(fetcher.fetch, None, aliases, counters=web.policy.counters,
                        cut=fetcher.cut_all)
        finally:
            fetcher.close()
        return
    with contextlib.ExitStack() as stack:
        if target is None:
            target = stack.enter_context(open_target(web))
        yield _Side(make_fetch(target.fetcher, target.robots_allowed, target.politeness_wait),
                    target.in_scope, None, rules=target.rules, counters=target.counters,
                    cut=getattr(target.fetcher, "cut_all", None))


def _process_worker(setup: Setup, rank: int, timeout: float, conn: Any) -> None:
    """Entry point of a worker process (spawned by the coordinator)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
    transport = ProcessTransport(rank, setup.settings.procs, conn, timeout)
    try:
        with _worker_side(setup) as side:
            cut = side.cut  # the coordinator's first Ctrl-C: cut what is in flight
            if cut is not None:  # never in the interrupted thread: it may hold cut's locks
                signal.signal(signal.SIGUSR1, in_a_thread_of_its_own(cut))
            else:
                signal.signal(signal.SIGUSR1, signal.SIG_IGN)
            unblock(STARTS_BLOCKED)  # held since its start: a Ctrl-C then is dropped, a cut runs
            worker = Worker(setup.settings, transport,
                            Ownership(setup.assignment, side.aliases), side.fetch,
                            in_scope=side.in_scope, rules=side.rules, counters=side.counters,
                            cut=side.cut)
            reason = worker.run()
    except Exception as exc:  # report it as one line; the coordinator stops the crawl
        # blamed here, where the student's file was loaded and the traceback is
        transport.report_error(f"{type(exc).__name__}: {exc}",
                                   blamed=frontier_pkg.userclass.blame(exc))
        conn.close()
        return
    transport.close(reason)


@contextlib.contextmanager
def _first_interrupt_stops(request_stop: Callable[[], None]) -> Iterator[None]:
    """Inside: the first Ctrl-C (SIGINT) or SIGTERM calls ``request_stop`` -- the workers finish
    their superstep, report its pages and stop -- and a second one raises KeyboardInterrupt.
    Outside the main thread (where signals cannot be handled) this does nothing."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is signal.SIG_IGN):  # e.g. a background job
        yield
        return
    hits: list[int] = []

    def on_sigint(signum: int, frame: Any) -> None:
        hits.append(signum)
        if len(hits) > 1:
            raise KeyboardInterrupt
        request_stop()

    previous = signal.signal(signal.SIGINT, on_sigint)
    previous_term = signal.signal(signal.SIGTERM, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)


def _base_report(c: BspConfig) -> BspReport:
    return BspReport(frontier=c.frontier, procs=c.procs, robots=c.robots, R=c.R,
                     backend=c.backend, partition=c.partition)


def run_bsp(config: BspConfig, sink: Any = None) -> BspReport | None:
    """Run the BSP crawl ``config`` describes; return its report (``None`` on MPI ranks other
    than 0). Bad configurations raise :class:`BspError` or another :class:`ValueError` with a
    one-line message. ``sink`` overrides the ``CrawlOutput`` of ``config.out``.

    Processes backend: a first Ctrl-C lets the workers finish their superstep and stop; the
    report (``stopped_by="interrupted"``) and ``out`` hold every page fetched. A second
    Ctrl-C stops at once: the pages of the superstep in progress are then lost, the report
    holds those of the supersteps before. Under MPI, Ctrl-C ends the job (``mpiexec`` kills
    the ranks): ``out`` keeps the pages of the supersteps gathered so far, without a summary.
    """
    if config.backend == "mpi":
        check_launch(config)
        return _run_mpi(config, sink)
    return _run_processes(config, validate(config), sink)


def _open_sink(config: BspConfig, sink: Any, resumed: tuple[int, dict] | None = None
               ) -> tuple[Any, bool]:
    if sink is not None or config.out is None:
        return sink, False
    from crawlers.crawl.output import CrawlOutput

    offsets = None if resumed is None else resumed[1]["offsets"]
    return CrawlOutput(config.out, resume_at=offsets), True


def _run_processes(config: BspConfig, assignment: Assignment, sink: Any) -> BspReport:
    reference = None if config.reference is None else load_reference(config.reference)
    sink, own_sink = _open_sink(config, sink)
    report = _base_report(config)
    try:
        with open_target(config.web) as target:
            setup = _setup(config, assignment, target)
            intents = tempfile.TemporaryDirectory(prefix="crawlab-bsp-")
            setup.settings.intents = intents.name
            group = ProcessGroup(config.procs, timeout=config.timeout, seeds=target.seeds,
                                 stop_signal=signal.SIGUSR1)
            collector = Collector(config.procs, sink, target.truth, reference)
            collector.guarded = config.web.kind != "sim"
            t_spawn = time.monotonic()
            started: list[float] = []

            def on_start() -> None:
                started.append(time.monotonic())
                collector.start()

            stopped_by = ""
            try:
                group.start(_process_worker, lambda r: (setup, r, config.timeout),
                            held=STARTS_BLOCKED)
                with _first_interrupt_stops(group.request_stop):
                    group.serve(collector.add, on_start)
                reasons = {v for v in group.close_reasons.values() if v}
                if not reasons:
                    raise BspError("every worker died (exit codes "
                                   f"{', '.join(str(c) for _, c in group.dead)})")
                stopped_by = ",".join(sorted(reasons))
            except KeyboardInterrupt:  # the second Ctrl-C
                stopped_by = "interrupted"
            finally:
                # the crawl ends here (every worker closed, or the second Ctrl-C); what
                # follows, the workers' exit included, is the report's teardown_seconds
                t_end = time.monotonic()
                # after an orderly end (every worker closed) they are exiting: let them;
                # after an error or a second Ctrl-C do not wait for them
                orderly = not group.alive - group.closed
                group.stop(timeout=10.0 if orderly else 0.0)
            t_start = started[0] if started else t_end
            report.startup_seconds = round(t_start - t_spawn, 4)
            report.killed = [{"rank": r, "exitcode": code,
                              "superstep": config.kill_at if r == config.kill_worker else None}
                             for r, code in group.dead]
            collector.report(report, t_end - t_start, stopped_by)
            _count_refetched(report, group, intents.name)
            if report.coverage is None:  # an unknown web: against every URL reached
                reached = group.reached() | set(collector.seen)
                report.coverage = report.unique_pages / len(reached) if reached else None
                report.coverage_basis = "discovered"
            intents.cleanup()
        # the target closed too (its server, its fetchers): the time taken after the crawl
        report.teardown_seconds = round(time.monotonic() - t_end, 4)
    finally:
        if own_sink:
            sink.close(report.as_json() if report.stopped_by else None)
    return report


def _count_refetched(report: BspReport, group: ProcessGroup, intents: str) -> None:
    """For each dead worker: the pages it started and never reported (its unfinished
    superstep: the re-fetch bound) and, of those, the ones a survivor fetched (re-fetched)."""
    if not group.dead:
        return
    bound = refetched = 0
    for rank, _ in group.dead:
        try:
            with open(os.path.join(intents, f"started-{rank}.log"), "rb") as f:
                started = {line[:-1].decode() for line in f if line.endswith(b"\n")}
        except FileNotFoundError:  # it died before its first fetch
            started = set()
        unfinished = started - group.reported[rank]
        others = set().union(*(group.reported[r] for r in range(group.size) if r != rank))
        bound += len(unfinished)
        refetched += len(unfinished & others)
    report.refetch_bound, report.refetched = bound, refetched


def _run_mpi(config: BspConfig, sink: Any) -> BspReport | None:
    transport = MpiTransport(config.procs)
    root = transport.rank == 0
    sink, own_sink = (None, False)
    report = _base_report(config)
    try:
        with contextlib.ExitStack() as stack:
            # Set-up failures are shared with the allgather, so that every rank raises the
            # same one-line error instead of waiting forever for a rank that gave up. Only
            # rank 0 reads the partition file; the others get the assignment from it.
            setup, error, target, reference, resumed = None, None, None, None, None
            try:
                if config.state is not None:
                    os.makedirs(config.state, exist_ok=True)
                if root and config.state is not None:  # one crawl at a time in the folder
                    from crawlers.bsp.journal import hold, release

                    stack.callback(release, hold(config.state, create=True))
                if root:
                    assignment = make_assignment(config.partition, config.procs,
                                                 known_sites(config.web))
                    if config.reference is not None:
                        reference = load_reference(config.reference)
                    identity = journal_identity(config)
                    resumed = _resume_point(config, identity)
                    sink, own_sink = _open_sink(config, sink, resumed)
                if root or config.web.kind != "served":
                    target = stack.enter_context(open_target(config.web))
                if root:
                    setup = _setup(config, assignment, target)
                    if config.state is not None:
                        setup.settings.state = config.state
                        setup.settings.crawl = identity
                        setup.settings.session = time.time_ns()
                        setup.settings.resume_from = None if resumed is None else resumed[0]
            except Exception as exc:
                error = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            shared = transport.allgather((setup, error))
            errors = [f"rank {r}: {e}" if r else e for r, (_, e) in enumerate(shared) if e]
            if errors:
                raise BspError(errors[0])
            setup = shared[0][0]
            collector = Collector(config.procs, sink, target.truth if root else None, reference)
            if resumed is not None:
                collector.restore(resumed[1]["collector"])

            def snapshot_extra() -> dict:
                return {"collector": collector.state(),
                        "offsets": None if sink is None else sink.offsets()}

            side = stack.enter_context(_worker_side(setup, target))
            collector.guarded = config.web.kind != "sim"
            worker = Worker(setup.settings, transport, Ownership(setup.assignment, side.aliases),
                            side.fetch, in_scope=side.in_scope, rules=side.rules,
                            counters=side.counters, cut=side.cut,
                            on_gather=collector.add if root else None,
                            snapshot_extra=snapshot_extra if root else None)
            collector.start()
            t0 = time.monotonic()
            try:
                reason = worker.run()
            except SharedError:  # every rank raised it: each ends, rank 0 says it
                raise
            except Exception as exc:  # the other ranks would wait for this one forever
                transport.abort(f"rank {transport.rank}: {type(exc).__name__}: {exc}",
                                blamed=frontier_pkg.userclass.blame(exc))
            t_end = time.monotonic()
            elapsed = t_end - t0
            if root:
                collector.report(report, elapsed, reason)
                reached = sum(collector.claimed.values())
                if report.coverage is None and reached:  # an unknown web: against every URL
                    report.coverage = report.unique_pages / reached  # some worker reached
                    report.coverage_basis = "discovered"
                if config.state is not None:
                    from crawlers.bsp.journal import refetched, sessions

                    report.refetched = refetched(config.state, config.procs)
                    # each earlier session lost at most the superstep after its last snapshot
                    restarts = sessions(config.state) - 1
                    report.refetch_bound = restarts * config.procs * config.R
        # the worker's side and the target closed: the time taken after the crawl
        report.teardown_seconds = round(time.monotonic() - t_end, 4)
    finally:
        if own_sink:
            sink.close(report.as_json() if report.stopped_by else None)
    return report if root else None


def journal_identity(config: BspConfig) -> str | None:
    """The identity the journals of ``config``'s crawl record
    (:func:`~crawlers.bsp.journal.crawl_identity`), ``None`` without ``state``: its command's
    lasting flags as ``DIR/command.json`` keeps them (or, run from Python with no command, the
    configuration), its ``procs`` and its resolved ``out``."""
    if config.state is None:
        return None
    import dataclasses

    from crawlers.bsp.journal import crawl_identity
    from crawlers.bsp.launcher import crawl_command

    if config.command is not None:
        command = crawl_command(config.command)
    else:
        command = ["config", repr(dataclasses.replace(config, state=None, kill_worker=None,
                                                      kill_at=None, command=None))]
    return crawl_identity(command, config.procs, config.out)


def _resume_point(config: BspConfig, identity: str | None = None) -> tuple[int, dict] | None:
    """For ``--state`` with journals in it: the superstep every rank saved and the root's
    extra state of that snapshot (its collector and the output's offsets);
    ``None`` for a fresh crawl. Journals of any other crawl than ``identity``'s in the folder
    (:func:`~crawlers.bsp.journal.check_journals`) raise, before any output is opened."""
    if config.state is None:
        return None
    from crawlers.bsp.journal import (
        BspJournal,
        BspJournalError,
        check_journals,
        common_superstep,
    )

    if identity is not None:
        check_journals(config.state, config.procs, identity)
    if not os.path.exists(os.path.join(config.state, "rank-0.sqlite")):
        return None

    superstep = common_superstep(config.state, config.procs)
    if superstep is None:
        return None
    journal = BspJournal(config.state, 0, session=0, identity=identity)
    try:
        extra = journal.load(superstep)
    finally:
        journal.close()
    extra = extra.get("extra") if isinstance(extra, dict) else None
    problem = _extra_problem(config, extra)
    if problem is not None:
        raise BspJournalError(f"{journal.path}: snapshot {superstep} is not a crawl's state: "
                              f"{problem}")
    return superstep, extra


def _extra_problem(config: BspConfig, extra: Any) -> str | None:
    """What makes the root's ``extra`` (its collector's state and the output's offsets) unlike
    what a crawl of ``config`` keeps (``None``: nothing)."""
    from crawlers.bsp.journal import is_count

    if not isinstance(extra, dict) or "collector" not in extra or "offsets" not in extra:
        return "it holds no collector and output offsets"
    offsets = extra["offsets"]
    if config.out is not None and not (
            isinstance(offsets, (tuple, list)) and len(offsets) == 2
            and all(is_count(n) for n in offsets)):
        return f"its output offsets are {str(offsets)[:60]}, not two byte counts"
    return Collector(config.procs).state_problem(extra["collector"])
