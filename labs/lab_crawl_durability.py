"""What crash safety costs: crawl throughput with no journal, a commit per page, group commit.

The threaded crawler with ``--state`` journals every page (done, and the links it found) in
SQLite in WAL mode, and each commit waits for one ``fsync`` of the log. Three ways:

``none``
    no journal: nothing to pay, and a ``kill -9`` loses the whole crawl;
``per-page``
    ``commit_every = 1``: one fsync per page; a crash re-fetches at most the pages in flight
    (one per thread) and one uncommitted page;
``group``
    ``commit_every = N`` (64 by default): one fsync per N pages; a crash may re-fetch N more.

The re-fetch bound (``threads + commit_every``, see :mod:`crawlers.crawl.journal`) is a *model*
column; the throughput is *measured*: every configuration is run ``--runs`` times side by side
(same web, same latency), and the CSV keeps each run and the median with its spread. The
journal lives in a temporary directory on the disk of ``--out`` (the file system is recorded),
since a tmpfs would make fsync free and the lesson vanish.
"""

from __future__ import annotations

import datetime
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from crawlers.crawl.crawler import Crawler
from crawlers.crawl.journal import Journal
from crawlers.web.simfetch import SimulatedFetcher
from labs.crawlbench import make_frontier, make_web
from labs.harness import Lab

MODES = ("none", "per-page", "group")


def _flags(parser) -> None:
    parser.add_argument("--latency", type=float, default=0.005, help="mean latency L (s)")
    parser.add_argument("--group", type=int, default=64, metavar="N",
                        help="commit_every of the group-commit mode (default: 64)")
    parser.add_argument("--runs", type=int, default=None,
                        help="runs per configuration (default: 3, 5 without --quick)")


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10, cwd=Path(__file__).parent).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _filesystem(path: Path) -> str:
    """The type of the file system holding ``path`` (from /proc/mounts; '' if unknown)."""
    try:
        with open("/proc/mounts") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return ""
    path = path.resolve()
    best = ("", "")
    for m in mounts:
        if len(m) > 2 and (str(path) + "/").startswith(m[1].rstrip("/") + "/") \
                and len(m[1]) >= len(best[0]):
            best = (m[1], m[2])
    return best[1]


def crawl(web, threads: int, commit_every: int | None, latency: float, seconds: float,
          seed: int, where: Path) -> dict:
    """One crawl for ``seconds``; ``commit_every=None``: no journal."""
    fetcher = SimulatedFetcher(web, latency=latency, seed=seed)
    with tempfile.TemporaryDirectory(dir=where) as state:
        journal = None if commit_every is None else Journal(state, commit_every=commit_every)
        crawler = Crawler(fetcher, make_frontier("monitor"), fetcher.seed_urls(),
                          threads=threads, when_full="spill", journal=journal, watchdog=0.5)
        r = crawler.run(seconds=seconds)
    return {"pages_per_second": r.pages_per_second, "pages": r.pages_fetched,
            "commits": r.journal_commits}


def _write_book_table(path: Path, rows: list[dict]) -> None:
    """The few columns the book's table shows (the full rows are in the lab's CSV)."""
    import csv

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "threads", "pages/s (median)", "min", "max", "of no journal",
                    "re-fetch bound (model)"])
        for r in sorted(rows, key=lambda r: (MODES.index(r["mode"]), r["threads"])):
            w.writerow([r["mode"], r["threads"], f"{r['median_pages_per_second']:.0f}",
                        f"{r['min_pages_per_second']:.0f}", f"{r['max_pages_per_second']:.0f}",
                        f"{r['of_no_journal']:.2f}", r["refetch_bound"] or "everything"])


def main(argv=None) -> int:
    lab = Lab("crawl-durability", __doc__, argv, extra=_flags)
    latency, group = lab.args.latency, lab.args.group
    if not latency > 0:
        raise ValueError(f"latency must be positive, got {latency}")
    if group < 2:
        raise ValueError(f"--group must be at least 2, got {group}")
    runs = lab.args.runs or (3 if lab.quick else 5)
    if runs < 1:
        raise ValueError(f"--runs must be positive, got {runs}")
    threads = (1, 4, 16) if lab.quick else (1, 2, 4, 8, 16, 32)
    seconds = 1.0 if lab.quick else 3.0
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    where = lab.dir
    fs = _filesystem(where)
    stamp = {"source": "measured", "date": datetime.date.today().isoformat(),
             "commit": _commit(), "filesystem": fs, "latency": latency, "seconds": seconds,
             # the machine may be shared: its 1-minute load when the lab started
             "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else ""}
    print(f"# journal on {fs or 'an unknown file system'}; L = {latency * 1000:g} ms; "
          f"{runs} runs per configuration, interleaved")
    every = {"none": None, "per-page": 1, "group": group}
    samples: dict[tuple[str, int], list[dict]] = {}
    for run in range(runs):  # interleaved: a burst of load on the shared machine hits all
        for t in threads:
            for mode in MODES:
                samples.setdefault((mode, t), []).append(
                    crawl(web, t, every[mode], latency, seconds, lab.seed + run, where))
    rows, raw = [], []
    for (mode, t), got in samples.items():
        rates = [g["pages_per_second"] for g in got]
        n = every[mode]
        for i, g in enumerate(got):
            raw.append({"mode": mode, "threads": t, "commit_every": n or 0, "run": i, **g,
                        **stamp})
        rows.append({
            "mode": mode, "threads": t, "commit_every": n or 0, "runs": len(rates),
            "median_pages_per_second": statistics.median(rates),
            "min_pages_per_second": min(rates), "max_pages_per_second": max(rates),
            "median_commits_per_second": statistics.median(g["commits"] for g in got) / seconds,
            # model, not measured: see crawlers.crawl.journal (no journal: everything is lost)
            "refetch_bound": "" if n is None else t + n,
            **stamp,
        })
    base = {r["threads"]: r["median_pages_per_second"] for r in rows if r["mode"] == "none"}
    for r in rows:
        r["of_no_journal"] = r["median_pages_per_second"] / base[r["threads"]]
    lab.write_csv(rows)
    lab.write_csv(raw, stem="runs")
    _write_book_table(lab.dir / "table.csv", rows)
    lab.table(rows, ["mode", "threads", "median_pages_per_second", "min_pages_per_second",
                     "max_pages_per_second", "of_no_journal", "median_commits_per_second",
                     "refetch_bound"])

    fig, ax = lab.figure(f"Crawl throughput with a journal, simulated web, "
                         f"L = {latency * 1000:g} ms, {fs or 'disk'}",
                         "robot threads", "pages per second (median, min-max)")
    for mode in MODES:
        mine = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["threads"])
        xs = [r["threads"] for r in mine]
        ys = [r["median_pages_per_second"] for r in mine]
        err = [[y - r["min_pages_per_second"] for y, r in zip(ys, mine)],
               [r["max_pages_per_second"] - y for y, r in zip(ys, mine)]]
        label = {"none": "no journal (a crash loses everything)",
                 "per-page": "commit per page (re-fetch <= threads + 1)",
                 "group": f"group commit, {group} pages (re-fetch <= threads + {group})"}[mode]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(list(threads), [str(t) for t in threads])
    ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
