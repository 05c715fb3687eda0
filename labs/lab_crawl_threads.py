"""Crawl throughput versus robot threads for every frontier, against Little's-law bound.

The threading paper's Figures 13-16: r robots share one frontier for a fixed time slice and the
lab counts the pages crawled. The web is simulated with a mean latency L per page, so one robot
fetches at most 1/L pages per second and T robots at most T/L (Little's law: throughput =
concurrency / latency). The other limit is the CPU: with the GIL on, all Python work of all
robots runs one thread at a time, so throughput can never pass what one robot does at zero
latency. The plot draws min(T/L, CPU ceiling) on the same axes; the frontier strategies differ
only in how close they get.

On a bigger machine the CPU ceiling is what moves (a faster core, or a free-threaded Python with
more cores), and the knee where T/L meets it moves right with it.
"""

from __future__ import annotations

import frontier
from labs.crawlbench import cpu_ceiling, make_web, sim_crawl, steady_rate, summary
from labs.harness import Lab, series

QUICK_FRONTIERS = ("unsynchronized", "lockfree", "semaphore", "monitor", "fine")


def _flags(parser) -> None:
    parser.add_argument("--latency", type=float, default=0.02, help="mean latency L (s)")
    parser.add_argument("--frontier", action="append", metavar="NAME",
                        help="frontiers to measure (repeatable; default: all, or five in --quick)")


def main(argv=None) -> int:
    lab = Lab("crawl-threads", __doc__, argv, extra=_flags)
    latency = lab.args.latency
    if not latency > 0:
        raise ValueError(f"latency must be positive, got {latency}")
    names = lab.args.frontier or (QUICK_FRONTIERS if lab.quick else frontier.names())
    for name in names:
        frontier.info(name)
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

    fig, ax = lab.figure(f"Crawl throughput, simulated web, L = {latency * 1000:g} ms",
                         "robot threads", "pages per second (steady state)")
    xs = list(threads)
    ax.plot(xs, [min(t / latency, ceiling) for t in xs], "k--", linewidth=1.2,
            label="min(T/L, CPU ceiling)")
    series(ax, rows, "threads", "steady_pages_per_second", "frontier", order=names)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs, [str(t) for t in xs])
    ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
