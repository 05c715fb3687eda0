"""Crawl throughput versus robot threads for every frontier, against Little's-law bound.

The threading paper's Figures 13-16: r robots share one frontier for a fixed time slice and the
lab counts the pages crawled. The web is simulated with a mean latency L per page, so one robot
fetches at most 1/L pages per second and T robots at most T/L (Little's law: throughput =
concurrency / latency). The other limit is the CPU: with the GIL on, all Python work of all
robots runs one thread at a time, so throughput can never pass what one robot does at zero
latency. The plot draws min(T/L, CPU ceiling) on the same axes; the frontier strategies differ
only in how close they get.

The second panel is the other regime: zero latency, so no robot ever sleeps in I/O and every
page is frontier and Python work (the *frontier-bound* regime, written to
``frontier-bound.csv``). There the frontiers part: under the GIL, threads only add lock
handoffs, and the ones that convoy fall below one thread's rate; on a free-threaded Python
(``python3.13t``, ``PYTHON_GIL=0``) with the cores to run them, the same panel shows which
frontier scales.

On a bigger machine the CPU ceiling is what moves (a faster core, or a free-threaded Python with
more cores), and the knee where T/L meets it moves right with it.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path

import frontier
from crawlers.args import MAX_LATENCY, MAX_RUNS, at_most, positive, positive_int
from labs.crawlbench import cpu_ceiling, make_web, sim_crawl, steady_rate, summary
from labs.harness import (
    Lab,
    LabError,
    add_frontier_flag,
    frontier_names,
    script,
    series,
)
from labs.plotstyle import runs_note

QUICK_FRONTIERS = ("unsynchronized", "lockfree", "semaphore", "monitor", "fine")


def _flags(parser) -> None:
    parser.add_argument("--latency", type=at_most(positive, MAX_LATENCY, "an hour"),
                        default=0.02, help="mean latency L (s)")
    add_frontier_flag(parser, "all, or five in --quick")
    parser.add_argument("--from-csv", type=Path, metavar="DIR",
                        help="measure nothing: draw the figure again from the CSVs this lab "
                        "wrote in DIR (stamped with their machine, date and commit)")
    parser.add_argument("--runs", type=at_most(positive_int, MAX_RUNS), default=None,
                        help="crawls per point of the zero-latency panel, the same for every "
                        "frontier (default: 1 in --quick, 3)")


def main(argv=None) -> int:
    lab = Lab("crawl-threads", __doc__, argv, extra=_flags)
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv)
    latency = lab.args.latency
    names = frontier_names(lab.args.frontier,
                           QUICK_FRONTIERS if lab.quick else frontier.names())
    threads = (1, 4, 16, 64) if lab.quick else (1, 2, 4, 8, 16, 32, 64)
    seconds = 1.5 if lab.quick else 3.0  # the paper's slice was 3 s
    warmup = 0.25  # excluded from the steady-state rate (the CSV has both)
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    ceiling = cpu_ceiling(web, seconds=seconds)
    print(f"# web: {web.size} pages, {web.n_sites} sites; L = {latency * 1000:g} ms; "
          f"CPU ceiling (1 robot, zero latency): {ceiling:,.0f} pages/s")
    rows = []
    for t in threads:
        bound = min(t / latency, ceiling)
        for name in names:
            r = sim_crawl(web, name, t, latency=latency, seconds=seconds, seed=lab.seed,
                          timeline=True)
            steady = steady_rate(r, warmup)
            rows.append(summary(r, latency=latency, bound=bound, cpu_ceiling=ceiling,
                                steady_pages_per_second=steady, of_bound=steady / bound))
    lab.write_csv(rows)
    lab.table(rows, ["frontier", "threads", "pages_per_second", "steady_pages_per_second",
                     "bound", "of_bound",
                     "duplicates", "urls_lost", "stopped_by"])
    bound_rows = frontier_bound(lab, web, names, 1.0 if lab.quick else seconds, warmup)

    _plot(lab, rows, bound_rows, names, latency, ceiling)
    return lab.done()


def _plot(lab: Lab, rows, bound_rows, names, latency: float, ceiling: float) -> None:
    """Both panels, from the rows of ``crawl-threads.csv`` and ``frontier-bound.csv``."""
    fig, (ax, ax0) = lab.figure("Crawl throughput against robot threads, simulated web",
                                "robot threads", "pages per second (steady state)", ncols=2)
    ax.set_title(f"I/O-bound: L = {latency * 1000:g} ms (Little's law; 1 run)", fontsize=10)
    xs = sorted({r["threads"] for r in rows})
    ax.plot(xs, [min(t / latency, ceiling) for t in xs], "k--", linewidth=1.2,
            label="min(T/L, CPU ceiling)")
    series(ax, rows, "threads", "steady_pages_per_second", "frontier", order=names)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(t) for t in xs])
    ax.legend(fontsize=8)
    zs = sorted({r["threads"] for r in bound_rows})
    runs = sorted({len({r["run"] for r in bound_rows if r["frontier"] == n}) for n in names})
    ax0.set_title(f"frontier-bound: L = 0, {lab.interpreter()} ({runs_note(runs)})", fontsize=10)
    ax0.axhline(ceiling, color="k", ls="--", lw=1.2, label="1 robot, L = 0 (earlier run)")
    series(ax0, bound_rows, "threads", "steady_pages_per_second", "frontier", order=names)
    ax0.set_xscale("log", base=2)
    ax0.set_xticks(zs, [str(t) for t in zs])
    ax0.set_ylim(bottom=0)
    ax0.legend(fontsize=8)
    lab.save(fig)


def _replot(lab: Lab, folder: Path) -> int:
    """Draw the figure again from the CSVs in ``folder``, stamped with their machine."""
    rows = lab.read_csv(folder / "crawl-threads.csv")
    bound_rows = lab.read_csv(folder / "frontier-bound.csv")
    if not rows or "steady_pages_per_second" not in rows[0]:
        raise LabError(f"--from-csv: {folder} holds no crawl-threads results")
    lab.stamp_from({k: str(v) for k, v in rows[0].items()})
    names = list(dict.fromkeys(r["frontier"] for r in rows))
    _plot(lab, rows, bound_rows, names, rows[0]["latency"], rows[0]["cpu_ceiling"])
    return lab.done()


def frontier_bound(lab: Lab, web, names, seconds: float, warmup: float) -> list[dict]:
    """The zero-latency panel: every frontier at 1 to 2 x cores robots, ``--runs`` crawls a
    point (interleaved, so a load change hits every frontier alike); rows to
    ``frontier-bound.csv``, each with its rate relative to the same frontier's 1-robot median."""
    runs = lab.args.runs or (1 if lab.quick else 3)
    cores = os.cpu_count() or 1
    threads = sorted({1, 2, 2 * cores} | ({cores} if not lab.quick else set()))
    rows = []
    for run in range(runs):
        for t in threads:
            for name in names:
                r = sim_crawl(web, name, t, latency=0.0, seconds=seconds, seed=lab.seed + run,
                              timeline=True)
                rows.append(summary(r, latency=0.0, run=run,
                                    steady_pages_per_second=steady_rate(r, warmup)))
    for name in names:
        one = statistics.median(r["steady_pages_per_second"] for r in rows
                                if r["frontier"] == name and r["threads"] == 1)
        for r in rows:
            if r["frontier"] == name:
                r["vs_one_robot"] = r["steady_pages_per_second"] / one if one else float("nan")
    lab.write_csv(rows, "frontier-bound")
    lab.table(rows, ["frontier", "threads", "run", "steady_pages_per_second", "vs_one_robot",
                     "frontier_lock_waits", "frontier_cas_retries"])
    return rows


if __name__ == "__main__":
    raise SystemExit(script(main))
