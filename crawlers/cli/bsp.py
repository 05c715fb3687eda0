"""``crawlab bsp``: a bulk-synchronous crawl with P worker processes (or MPI ranks).

::

    crawlab bsp --sim --pages 2000 --procs 4 --robots 4 --R 64 [--json] [--out DIR]
    crawlab bsp --procs 3 --kill-worker 1 --kill-at 5 --sim        # a worker dies; coverage 1
    mpiexec -n 4 crawlab bsp --backend mpi --procs 4 --sim          # one machine
    mpiexec -hosts a,b -n 8 crawlab bsp --backend mpi --procs 8 ... # several machines

Bad input is one line on standard error and exit status 2 (``crawlab``'s ``main`` turns the
``ValueError`` raised here into that line). Under MPI only rank 0 prints. A student's frontier
(``--frontier FILE.py:CLASS``) that raises in a worker is blamed with its file and line
(``your frontier failed at FILE:LINE: Error: message``, exit 1). A fault asked for with
``--kill-worker``/``--kill-at`` that the crawl ended before reaching is an error too: the
report is printed (the pages are real), then one line saying the kill never happened, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from crawlers.args import (
    MAX_PAGES,
    MAX_PROCS,
    MAX_R,
    MAX_SECONDS,
    MAX_SUPERSTEPS,
    MAX_THREADS,
    OneLineParser,
    at_most,
    interrupted_status,
    non_negative_int,
    positive,
    positive_int,
)
from crawlers.cli.webflags import (
    add_reference_argument,
    add_web_arguments,
    web_options,
)

__all__ = ["HELP", "add_arguments", "config_from_args", "print_report", "run"]

HELP = "bulk-synchronous crawl: P worker processes, supersteps"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Register ``crawlab bsp``'s flags on ``p``."""
    from crawlers.bsp.driver import BACKENDS

    g = p.add_argument_group("workers")
    g.add_argument("--procs", "-P", type=at_most(positive_int, MAX_PROCS), default=2,
                   metavar="P", help=f"worker processes (default: 2, at most {MAX_PROCS})")
    g.add_argument("--robots", type=at_most(positive_int, MAX_THREADS), default=4, metavar="r",
                   help=f"robot threads per worker (default: 4, at most {MAX_THREADS})")
    g.add_argument("--R", type=at_most(positive_int, MAX_R), default=64, metavar="R", dest="R",
                   help=f"URLs each worker extracts per superstep (default: 64, at most {MAX_R})")
    g.add_argument("--frontier", default="cbt", metavar="NAME",
                   help="each worker's frontier (see `crawlab frontiers`; default: cbt), or "
                   "your own class as FILE.py:CLASS")
    g.add_argument("--partition", default="site-hash", metavar="SPEC",
                   help="site-hash, page-hash, or a partition file (default: site-hash)")
    g.add_argument("--backend", choices=BACKENDS, default="processes",
                   help="processes (default) or mpi (run under mpiexec -n P)")
    g.add_argument("--timeout", type=at_most(positive, MAX_SECONDS, "a year"), default=120.0,
                   metavar="S",
                   help="a worker that does not reach a barrier within S s fails the crawl")
    g = p.add_argument_group("crash safety (mpi backend)")
    g.add_argument("--state", metavar="DIR",
                   help="each rank journals its state in DIR at every barrier; started again with "
                   "the same DIR, the crawl resumes. Typed without mpiexec, crawlab starts "
                   "mpiexec -n P itself and names a rank that dies")
    g.add_argument("--resume", metavar="DIR",
                   help="continue the crawl journaled in DIR, with the flags it was started with")
    g = p.add_argument_group("faults (processes backend, or mpi with --state)")
    g.add_argument("--kill-worker", type=non_negative_int, metavar="RANK",
                   help="SIGKILL this worker ...")
    g.add_argument("--kill-at", type=at_most(non_negative_int, MAX_SUPERSTEPS),
                   metavar="SUPERSTEP",
                   help="... at the start of this superstep (0 = the first)")
    g = p.add_argument_group("when to stop")
    g.add_argument("--seconds", type=at_most(positive, MAX_SECONDS, "a year"), metavar="S",
                   help="time slice")
    g.add_argument("--max-pages", type=at_most(positive_int, MAX_PAGES), metavar="N",
                   help=f"page budget (at most {MAX_PAGES})")
    g.add_argument("--max-supersteps", type=at_most(positive_int, MAX_SUPERSTEPS), metavar="N",
                   help=f"superstep limit (at most {MAX_SUPERSTEPS})")
    add_web_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument("--out", metavar="DIR",
                   help="write pages.jsonl, edges.txt and summary.json to DIR as the crawl goes")
    add_reference_argument(g)


def config_from_args(args: argparse.Namespace):
    """The :class:`~crawlers.bsp.driver.BspConfig` the parsed flags describe."""
    from crawlers.bsp.driver import BspConfig
    from frontier.userclass import spec_of

    if getattr(args, "stop_grace", None) is not None:
        raise ValueError("--stop-grace applies to crawlab crawl: a BSP worker cuts its fetches "
                         "when the slice ends or at Ctrl-C, and its superstep then ends")
    web = web_options(args, threads=args.robots)
    return BspConfig(web=web, procs=args.procs, robots=args.robots, R=args.R,
                     frontier=spec_of(args.frontier) or args.frontier,  # workers reload FILE.py
                     partition=args.partition, backend=args.backend,
                     seconds=args.seconds, max_pages=args.max_pages,
                     max_supersteps=args.max_supersteps, kill_worker=args.kill_worker,
                     kill_at=args.kill_at, out=args.out, timeout=args.timeout,
                     reference=args.reference, state=args.state,
                     command=getattr(args, "argv", None))


def run(args: argparse.Namespace) -> int:
    """Run ``crawlab bsp``; returns the exit status."""
    from crawlers.bsp.driver import check_launch, run_bsp, validate
    from crawlers.bsp.transport import launcher_rank, mpi_launched

    if args.resume is not None or (args.state is not None and args.backend == "mpi"
                                   and not mpi_launched()):
        return _launch(args)
    config = config_from_args(args)
    if config.backend == "mpi" and launcher_rank() != 0:
        try:
            run_bsp(config)
        except ValueError:
            return 2  # rank 0 prints the error
        return 0
    # bad input fails here, before anything is printed; under MPI rank 0 must not read the
    # partition file alone (see validate): run_bsp reports a bad one on every rank
    if config.backend == "mpi":
        check_launch(config)
    else:
        validate(config)
    if not args.json:
        print(f"BSP crawl: {config.procs} workers x {config.robots} robots, R={config.R}, "
              f"'{config.frontier}', {config.partition}, backend {config.backend}",
              file=sys.stderr)
    report = run_bsp(config)  # a WorkerFailed that carries a blame: crawlab's main says it
    if args.json:
        print(json.dumps(report.as_json()))
    else:
        print_report(report)
    return _kill_missed(args, report.supersteps, report.stopped_by)


def _kill_missed(args: argparse.Namespace, supersteps: int, stopped_by: str = "") -> int:
    """0, or 2 after one line on standard error when ``--kill-at`` names a superstep the crawl
    never started (it stopped before: the fault asked for never happened, and the report just
    printed is a crawl without it). A crawl the user interrupted (Ctrl-C) is
    :func:`~crawlers.args.interrupted_status`'s, except on an MPI rank: mpiexec reads a rank's
    status as how it ended, and the launcher (:func:`_launch`) reads the report instead."""
    if stopped_by == "interrupted":
        return 0 if args.backend == "mpi" else interrupted_status("bsp", stopped_by)
    if args.kill_worker is None or args.kill_at is None or supersteps > args.kill_at:
        return 0
    print(f"crawlab bsp: error: --kill-worker {args.kill_worker} --kill-at {args.kill_at} never "
          f"happened: the crawl stopped after {supersteps} superstep(s), before superstep "
          f"{args.kill_at}; give a smaller --kill-at or a longer crawl", file=sys.stderr)
    return 2


def _launch(args: argparse.Namespace) -> int:
    """Start the MPI job for ``--state``/``--resume`` typed without mpiexec, and report how it
    ended (:mod:`crawlers.bsp.launcher`): the report, or one line and status 1 (a rank died,
    or the student's frontier failed: its file and line) or 2 (the ranks refused the input;
    after the report when the crawl never reached its --kill-at)."""
    from crawlers.bsp.driver import check_config
    from crawlers.bsp.journal import hold, release
    from crawlers.bsp.launcher import launch, prepare
    from crawlers.bsp.report import BspReport
    from crawlers.bsp.transport import BspError, WorkerFailed, mpi_launched

    if args.resume is not None:
        if mpi_launched():
            raise BspError("--resume starts the MPI job itself: type it without mpiexec")
        if args.state is not None:
            raise BspError("--resume DIR takes the journal directory; give no --state")
    else:
        check_config(config_from_args(args))  # bad flags fail here, before mpiexec starts
    # the folder is this job's (one crawl at a time) before prepare writes anything there
    held = hold(args.state if args.resume is None else args.resume, create=args.resume is None)
    try:
        rank_argv, state = prepare(args.argv, args.state, args.resume)
        if args.resume is not None:
            _check_kept(rank_argv, args.resume)
        procs = _procs_of(rank_argv)
        if not args.json:
            print(f"BSP crawl under mpiexec -n {procs}, journaled in {state}"
                  + (" (resuming)" if args.resume else ""), file=sys.stderr)
        out = launch(rank_argv, procs, state)
    finally:
        release(held)
    if out.blamed is not None:  # crawlab's main says the student's frontier failed there
        raise WorkerFailed(f"a rank failed: {out.blamed}", out.blamed)
    if out.report is not None:
        if args.json:
            print(json.dumps(out.report))
        else:
            from types import SimpleNamespace

            d = dict(out.report)
            steps = [SimpleNamespace(**rec) for rec in d.pop("per_superstep")]
            print_report(BspReport(**d, per_superstep=steps))
    if out.error is not None:  # after the report: a --kill-at the crawl never reached
        print(f"crawlab bsp: error: {out.error}", file=sys.stderr)
        return out.status
    return interrupted_status("bsp", (out.report or {}).get("stopped_by", ""))


def _check_kept(argv: list[str], directory: str) -> None:
    """Check the command a journal keeps (``argv``, read from ``DIR/command.json``, with
    ``--state DIR --json`` appended by :func:`~crawlers.bsp.launcher.prepare`) as a typed
    one is checked, before anything runs: its flags parse, they pass the checks of a fresh
    crawl, and its frontier is a registered name. A ``FILE.py:CLASS`` frontier is refused: a
    journal is a file anyone could have handed over, and ``--resume`` never runs code a file
    names; typing the crawl's command again (with ``--state DIR``) resumes it just as well.
    Any fault: :class:`~crawlers.bsp.journal.BspJournalError`, one line naming the file."""
    from crawlers.bsp.driver import check_config
    from crawlers.bsp.journal import BspJournalError
    from frontier.userclass import is_spec

    path = f"{directory}/command.json"

    class Refusing(OneLineParser):  # its rules (a flag given once), its own error
        def error(self, message: str):  # type: ignore[override]
            raise BspJournalError(f"{path}: its command does not parse ({message})")

    parser = Refusing(prog="crawlab bsp", add_help=False)
    add_arguments(parser)
    kept = parser.parse_args(argv[1:])
    if is_spec(kept.frontier):
        import shlex

        from crawlers.bsp.launcher import without_state

        again = shlex.join(["crawlab", *without_state(argv[:-3]), "--state", directory])
        raise BspJournalError(f"{path}: its crawl runs the frontier {kept.frontier[:100]!r}, "
                              "code that --resume never runs from a file; read the command "
                              f"and type it to resume: {again[:2000]}")
    try:
        check_config(config_from_args(kept))
    except ValueError as exc:
        raise BspJournalError(f"{path}: {' '.join(str(exc).split())}") from None


def _procs_of(argv: list[str]) -> int:
    """The ``--procs`` of a ``crawlab bsp`` command line (``argv[0]`` is ``bsp``), read with
    this command's own flags."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    return parser.parse_args(argv[1:]).procs


def print_report(r) -> None:
    """A rich table of the totals, then one of the supersteps (at most 20 rows shown)."""
    from rich.console import Console
    from rich.table import Table

    def num(x, fmt=".3f"):
        return "n/a" if x is None else format(x, fmt)

    t = Table(title=f"BSP crawl: {r.procs} workers x {r.robots} robots, R={r.R}, "
              f"{r.frontier}, {r.partition}, {r.backend}", show_header=False)
    rows = [
        ("stopped by", r.stopped_by),
        ("seconds (start-up, teardown)",
         f"{r.seconds:.2f} ({r.startup_seconds:.2f}, {r.teardown_seconds:.2f})"),
        ("supersteps", str(r.supersteps)),
        ("pages fetched N / unique I", f"{r.pages_fetched} / {r.unique_pages}"),
        ("overlap (N-I)/I", f"{r.overlap:.3f}"),
        ("coverage I/U", num(r.coverage) + (f"  (U = {r.web_size})" if r.web_size else "")
         + ("  (U = URLs any worker reached)" if r.coverage_basis == "discovered" else "")
         + ("  (of the pages listed by --reference)" if r.coverage_basis == "reference"
            else "")),
        ("quality vs PageRank", num(r.quality)),
        ("pages per second", f"{r.pages_per_second:.1f}"),
        ("pages per worker", " ".join(map(str, r.pages_per_worker))),
        ("load imbalance max/mean-1", f"{r.load_imbalance:.3f}"),
        ("messages / page messages", f"{r.messages} / {r.page_messages}"),
        ("URLs sent L, overhead L/N", f"{r.urls_sent}, {r.communication_overhead:.3f}"),
        ("failures (remote / local)", f"{r.failures} / {r.local_failures}"),
        ("errors", ", ".join(f"{k} {v}" for k, v in sorted(r.errors.items())) or "none"),
        ("URLs robots.txt refused / unreachable (not pages)",
         f"{r.robots_refused} / {r.robots_unreachable}"),
    ]
    rows.append(("fetches cut at the stop", str(r.fetches_cut)))
    if r.limits:
        acted = {k: v for k, v in r.limits.items() if v}
        rows.append(("limits and rules that acted",
                     ", ".join(f"{k} {v}" for k, v in acted.items())
                     or "none"))
    if r.killed:
        rows.append(("workers lost", ", ".join(
            f"{k['rank']} (exit {k['exitcode']})" for k in r.killed)))
    if r.resumed:
        rows.append(("resumed (pages of earlier sessions)", str(r.resumed)))
    if r.refetch_bound is not None and r.backend == "mpi":
        rows.append(("re-fetched after a restart", f"{r.refetched} (bound {r.refetch_bound}: "
                     f"one superstep, R = {r.R} per rank, per restart)"))
    elif r.refetch_bound is not None:
        rows.append(("re-fetched after failover", f"{r.refetched} (bound {r.refetch_bound}: "
                     f"started in the lost superstep; at most R = {r.R} per lost worker)"))
    for k, v in rows:
        t.add_row(k, v)
    console = Console()
    console.print(t)
    steps = r.per_superstep
    if not steps:
        return
    every = max(1, -(-len(steps) // 20))
    s = Table(title="supersteps" + (f" (one row in {every})" if every > 1 else ""))
    for col in ("step", "pages", "msgs", "sent", "pmsgs", "fail", "front", "imbal",
                "fetch s", "exch s"):
        s.add_column(col, justify="right")
    for rec in steps[::every]:
        s.add_row(str(rec.superstep), str(rec.pages), str(rec.messages), str(rec.urls_sent),
                  str(rec.page_messages), str(rec.failures), str(rec.frontier),
                  f"{rec.load_imbalance:.2f}", f"{rec.fetch_seconds:.3f}",
                  f"{rec.exchange_seconds:.3f}")
    console.print(s)
