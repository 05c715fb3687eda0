"""``crawlab crawl``: crawl with R robot threads sharing one frontier
(:mod:`crawlers.crawl.crawler`)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator

from crawlers.args import (
    MAX_CAPACITY,
    MAX_COMMIT_EVERY,
    MAX_PAGES,
    MAX_SECONDS,
    MAX_THREADS,
    at_most,
    interrupted_status,
    non_negative_int,
    positive,
    positive_int,
)
from crawlers.cli.webflags import (
    add_reference_argument,
    add_web_arguments,
    reference_of,
    web_options,
)

__all__ = ["HELP", "MAX_CAPACITY", "add_arguments", "print_report", "run"]

HELP = "crawl with R robot threads sharing one frontier"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Register ``crawlab crawl``'s flags on ``p``."""
    import frontier
    from crawlers.crawl.crawler import POLICIES

    g = p.add_argument_group("frontier and robots")
    g.add_argument("--frontier", default="monitor", metavar="NAME",
                   help="frontier strategy (see `crawlab frontiers`; default: monitor), or "
                   "your own class as FILE.py:CLASS")
    g.add_argument("--threads", type=at_most(positive_int, MAX_THREADS), default=8, metavar="R",
                   help=f"robot threads (default: 8, at most {MAX_THREADS})")
    g.add_argument("--capacity", type=at_most(positive_int, MAX_CAPACITY),
                   help=f"capacity of a bounded frontier (default: {frontier.DEFAULT_CAPACITY}, "
                   f"the paper's; at most {MAX_CAPACITY})")
    g.add_argument("--when-full", choices=POLICIES,
                   help="full bounded frontier: block (the paper's; can deadlock), spill to an "
                   "overflow store, or drop (default: spill; an unbounded frontier is never "
                   "full)")
    g.add_argument("--producers", type=at_most(non_negative_int, MAX_THREADS), default=0,
                   metavar="N", help="N producer threads put the robots' new links back (the "
                   "paper's producer/consumer roles); default 0: each robot puts its own; at "
                   f"most {MAX_THREADS}")
    g.add_argument("--untimed-waits", action="store_true",
                   help="threads wait in the frontier until woken instead of re-checking every "
                   "50 ms (lets lost wake-ups show, e.g. with --frontier tanenbaum)")
    g.add_argument("--watchdog", type=at_most(positive, MAX_SECONDS, "a year"), default=2.0,
                   metavar="S",
                   help="stop and report when no thread has moved this long: a deadlock, lost "
                   "wake-ups, or lost URLs (default: 2 s)")
    g = p.add_argument_group("when to stop")
    g.add_argument("--seconds", type=at_most(positive, MAX_SECONDS, "a year"), metavar="S",
                   help="time slice (the paper's was 3 s); default: until the web is exhausted")
    g.add_argument("--max-pages", type=at_most(positive_int, MAX_PAGES), metavar="N",
                   help="page budget (a resumed --state crawl counts the pages of this session; "
                   f"at most {MAX_PAGES})")
    add_web_arguments(p)
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    g.add_argument("--out", metavar="DIR",
                   help="write pages.jsonl, edges.txt and summary.json to DIR as the crawl goes "
                   "(resuming a --state crawl, the pages of its earlier sessions are kept)")
    add_reference_argument(g)
    g.add_argument("--timeline", metavar="FILE",
                   help="record where each thread's time goes (fetch, lock, not_empty, not_full, "
                   "polite, run) and write FILE.png (one row per thread) and FILE.json (Trace "
                   "Event Format: open it in Perfetto or chrome://tracing)")
    g = p.add_argument_group("crash safety")
    g.add_argument("--state", metavar="DIR",
                   help="keep the crawl's state in a journal in DIR (SQLite, WAL); started again "
                   "with the same DIR, the crawl resumes after a crash or a stop (the served "
                   "web on the same ports again)")
    g.add_argument("--commit-every", type=at_most(positive_int, MAX_COMMIT_EVERY), metavar="N",
                   help="group commit: journal N pages per commit (one fsync); a crash re-fetches "
                   "at most threads + N pages (default: 64)")
    g.add_argument("--commit-ms", type=at_most(positive, MAX_SECONDS * 1000, "a year"),
                   metavar="MS",
                   help="commit queued pages at least this often (default: 1000 ms)")


def run(args: argparse.Namespace) -> int:
    """Run ``crawlab crawl``; returns the exit status."""
    import json

    import frontier
    from crawlers.crawl.crawler import POLL, Crawler
    from crawlers.crawl.output import CrawlOutput
    from crawlers.crawl.targets import open_target
    from crawlers.page.urls import Scope

    cls = frontier.info(args.frontier)
    if cls.bounded:
        capacity = frontier.DEFAULT_CAPACITY if args.capacity is None else args.capacity
        f = frontier.create(args.frontier, capacity=capacity)
    elif args.capacity is not None:
        raise ValueError(f"--capacity: frontier '{args.frontier}' is unbounded and takes no "
                         "capacity")
    elif args.when_full is not None:
        raise ValueError(f"--when-full: frontier '{args.frontier}' is unbounded and never "
                         "full")
    else:
        f = frontier.create(args.frontier)
    when_full = args.when_full or "spill"
    opts = web_options(args, threads=args.threads)
    reference = reference_of(args)
    timeline, stem = _timeline_of(args.timeline)
    for flag, folder in (("--state", args.state), ("--out", args.out)):
        _check_folder(flag, folder)
    journal = None
    if args.state is not None:
        from crawlers.crawl.journal import Journal

        with _naming("--state"):
            journal = Journal(args.state, commit_every=args.commit_every or 64,
                              commit_ms=args.commit_ms or 1000.0, crawl=_defining(opts))
        if journal.unrecorded:
            print(f"crawlab crawl: note: {args.state} was journaled by an older crawlab, which "
                  "kept no record of its web's flags: resuming it on its seed URLs' check "
                  "alone, and recording these flags from now on", file=sys.stderr)
    elif args.commit_every is not None or args.commit_ms is not None:
        raise ValueError("--commit-every and --commit-ms need --state (there is no journal)")
    if journal is not None and opts.kind == "served":
        opts.port_base = _served_ports(journal, opts.sites, args.state)
    sink = None
    report = None
    try:
        with open_target(opts) as target:
            if journal is not None:  # refused before --out is opened (and emptied)
                journal.check_seeds(target.seeds)
                journal.check_scope(target.in_scope or Scope(target.seeds).__contains__)
            if args.out is not None:
                done = None if journal is None or journal.fresh else journal.done_urls()
                with _naming("--out"):
                    sink = CrawlOutput(args.out, keep=done)
                if done and sink.kept < len(done):
                    print(f"crawlab crawl: note: {args.out} holds {sink.kept} of the "
                          f"{len(done)} pages fetched in earlier sessions; the journal in "
                          f"{args.state} holds them all", file=sys.stderr)
            crawler = Crawler(
                target.fetcher, f, target.seeds, threads=args.threads, when_full=when_full,
                in_scope=target.in_scope, robots_allowed=target.robots_allowed,
                politeness_wait=target.politeness_wait, sink=sink,
                ground_truth=target.truth, watchdog=args.watchdog, producers=args.producers,
                poll=None if args.untimed_waits else POLL, thread_timeline=timeline,
                journal=journal, reference=reference, rules=target.rules,
                counters=target.counters, stop_grace=opts.policy.stop_grace,
            )
            progress = None if args.json else _progress_printer()
            if journal is not None and not journal.fresh and not args.json:
                print(f"resuming the crawl journaled in {args.state}", file=sys.stderr)
            if not args.json:
                print(f"crawling {target.description} with {args.threads} robots on "
                      f"'{args.frontier}'", file=sys.stderr)
            report = crawler.run(seconds=args.seconds, max_pages=args.max_pages,
                                 progress=progress)
    finally:  # a served web that could not start (ServerError) is said by crawlab's main
        if journal is not None:
            journal.close()
        if sink is not None:
            sink.close(report.as_json() if report is not None else None)
    if args.json:  # the report first: a timeline that cannot be written does not lose it
        print(json.dumps(report.as_json()), flush=True)
    else:
        print(file=sys.stderr)
        print_report(report)
    if timeline is not None:
        _write_timeline(timeline, stem, report, quiet=args.json)
    return interrupted_status("crawl", report.stopped_by)


def _served_ports(journal, sites: int, state: str) -> int | None:
    """The port base of the served web that a ``--state`` crawl runs on: the one its
    journal's seed URLs name, when it resumes (refused if those ports are taken now); else a
    free one, so that a resumed crawl can serve the same URLs again; ``None`` (any ports) for a
    journal of another kind of web, which the journal refuses with its seeds. O(sites)."""
    from urllib.parse import urlsplit

    from crawlers.web.httpd import HOST
    from crawlers.web.server import ServerError, first_taken, free_port_base

    seeds = journal.seeds()
    if not seeds:
        try:
            return free_port_base(sites)
        except ServerError as exc:
            raise ValueError(f"--state: {exc}") from None
    try:
        where = [(p.scheme, p.hostname, p.port) for p in map(urlsplit, seeds)]
    except ValueError:  # a port out of range: not a crawl of the served web
        return None
    if any(w[:2] != ("http", HOST) or not w[2] for w in where):
        return None  # another kind of web: the journal's own check refuses it, naming seeds
    base = where[0][2]
    if [w[2] for w in where] != list(range(base, base + len(where))):
        raise ValueError(f"--state: the seed URLs in {state} name ports the served web cannot "
                         "bind again (a crawl of the served web by an older crawlab): it "
                         "cannot resume; remove it to start afresh")
    taken = first_taken(base, len(where))
    if taken is not None:
        raise ValueError(f"--state: port {taken}, one of the ports {base}-"
                         f"{base + len(where) - 1} that the URLs in {state} name, is in use "
                         "now: free it to resume this crawl")
    return base


def _defining(opts) -> dict:
    """What defines the crawl a ``--state`` journal holds, flag to value: its web (``--sim``,
    the generated web's ``--pages``, ``--sites`` and ``--seed``, or the ``--seed-url`` list).
    A resume must give the same (:class:`~crawlers.crawl.journal.Journal` refuses another);
    the rest (frontier, threads, budgets, latency, limits ...) may change between sessions."""
    if opts.kind == "urls":
        from crawlers.page.urls import normalize

        return {"--sim": False, "--seed-url": [normalize(u) or u for u in opts.seed_urls]}
    return {"--sim": opts.kind == "sim", "--seed-url": [], "--pages": opts.pages,
            "--sites": opts.sites, "--seed": opts.seed}


def _check_folder(flag: str, path: str | None) -> None:
    """Refuse ``flag``'s DIR if empty, a file, or in a folder that does not exist: crawlab
    makes DIR itself, never a chain of folders above it (a typo would build it from /)."""
    if path is None:
        return
    from pathlib import Path

    if not path:
        raise ValueError(f"{flag}: the folder's name is empty")
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{flag}: {path} is not a folder")
    if not p.exists() and not p.parent.is_dir():
        raise ValueError(f"{flag}: cannot write to {path}: no such folder {p.parent} (crawlab "
                         "makes the last folder only)")


@contextlib.contextmanager
def _naming(flag: str) -> Iterator[None]:
    """Put ``flag: `` before the one-line ``ValueError`` raised in the ``with`` block."""
    try:
        yield
    except ValueError as exc:
        if str(exc).startswith(flag):
            raise
        raise type(exc)(f"{flag}: {exc}") from None


def _timeline_of(path: str | None):
    """A fresh :class:`~crawlers.crawl.timeline.Timeline` and the path ``FILE`` without a
    ``.png``/``.json`` suffix, or ``(None, None)``; a folder that does not exist is bad input."""
    if path is None:
        return None, None
    from pathlib import Path

    from crawlers.crawl.timeline import Timeline

    if not path:
        raise ValueError("--timeline: the file's name is empty")
    stem = Path(path)
    if stem.suffix in (".png", ".json"):
        stem = stem.with_suffix("")
    if not stem.name or path.endswith(("/", "/.", "/..")) or stem.name in (".", ".."):
        raise ValueError(f"--timeline: {path} names a folder; give a file name (FILE is "
                         "written as FILE.png and FILE.json)")
    if not stem.parent.is_dir():
        raise ValueError(f"--timeline: no such folder: {stem.parent}")
    for written in (stem.with_suffix(".png"), stem.with_suffix(".json")):
        if (written.exists() or written.is_symlink()) and not written.is_file():
            raise ValueError(f"--timeline: {written} is there and is not a file (FILE is "
                             "written as FILE.png and FILE.json)")
    if not os.access(stem.parent, os.W_OK):
        raise ValueError(f"--timeline: cannot write in {stem.parent}")
    return Timeline(), stem


def _write_timeline(timeline, stem, report, quiet: bool) -> None:
    """Write ``stem``.json and ``stem``.png; say where (and where the time went) on stderr."""
    trace = timeline.write_trace(stem.with_suffix(".json"))
    png = timeline.plot(stem.with_suffix(".png"),
                        title=f"{report.frontier}, {report.threads} robots: "
                        f"{report.pages_fetched} pages in {report.seconds:.2f} s")
    if not quiet:
        totals = timeline.totals()
        whole = sum(totals.values()) or 1.0
        shares = ", ".join(f"{k} {100 * v / whole:.0f}%" for k, v in totals.items() if v)
        print(f"timeline: {png} and {trace} (threads' time: {shares})", file=sys.stderr)


def _progress_printer():
    def show(r) -> None:
        if sys.stderr.isatty():
            print(f"\r{r.pages_fetched:8d} pages  {r.pages_per_second:8.1f} pages/s  "
                  f"{r.seconds:6.1f} s", end="", file=sys.stderr, flush=True)

    return show


def print_report(r) -> None:
    """The crawl report as a rich table."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"crawl: {r.frontier}, {r.threads} robots", show_header=False)

    def pct(x):
        return "n/a" if x is None else f"{x:.3f}"

    rows = [
        ("stopped by", r.stopped_by + ("  (DEADLOCK: every robot blocked in put)"
                                       if r.deadlock else "")
         + ("  (threads asleep while they could proceed: lost wake-ups)"
            if r.stopped_by == "lost-wakeup" else "")
         + ("  (every URL refused by robots.txt or its site unreachable: nothing fetched)"
            if r.stopped_by == "nothing-fetchable" else "")),
        ("seconds", f"{r.seconds:.2f}"),
        ("pages fetched N", str(r.pages_fetched)),
        ("unique pages I", str(r.unique_pages)),
        ("overlap (N-I)/I", f"{r.overlap:.3f}"),
        ("coverage I/U", pct(r.coverage) + (f"  (U = {r.web_size})" if r.web_size else "")
         + ("  (U = URLs discovered)" if r.coverage_basis == "discovered" else "")
         + ("  (of the pages listed by --reference)" if r.coverage_basis == "reference"
            else "")),
        ("quality vs PageRank", pct(r.quality)),
        ("pages per second", f"{r.pages_per_second:.1f}"),
        ("pages per thread", " ".join(map(str, r.pages_per_thread))),
        ("errors", ", ".join(f"{k} {v}" for k, v in sorted(r.errors.items())) or "none"),
        ("URLs spilled / dropped / lost", f"{r.urls_spilled} / {r.urls_dropped} / {r.urls_lost}"),
        ("URLs robots.txt refused / unreachable / put off (not pages)",
         f"{r.robots_refused} / {r.robots_unreachable} / {r.robots_put_off}"),
        ("visited-set races", str(r.visited_races)),
    ]
    if r.refetch_bound is not None:
        rows.append(("resumed / re-fetched (bound)",
                     f"{r.resumed} / {r.refetched} (<= {r.refetch_bound})"))
    if r.producers:
        rows.append(("producers / hand-off peak", f"{r.producers} / {r.handoff_peak} URLs"))
    rows.append(("fetches cut at the stop", str(r.fetches_cut)
                 + (f"  ({r.threads_unjoined} threads still running after the grace)"
                    if r.threads_unjoined else "")))
    acted = {k: v for k, v in r.limits.items() if v}
    if r.limits:
        rows.append(("limits and rules that acted",
                     ", ".join(f"{k} {v}" for k, v in acted.items())
                     or "none"))
    stats = {k: v for k, v in r.frontier_stats.items() if v}
    rows.append(("frontier counters", ", ".join(f"{k} {v}" for k, v in stats.items())))
    for k, v in rows:
        table.add_row(k, v)
    Console().print(table)
