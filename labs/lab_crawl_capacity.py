"""Frontier capacity 10, 20, 30 against threads, with the paper's `block` policy and `spill`.

The threading paper's Figures 16-18 show a bounded monitor frontier whose throughput follows the
thread count and then plunges at about twice the capacity. Here every robot is both a consumer
(it takes a URL) and a producer (it puts the page's links back), and a page yields several new
links for the one it consumed. With ``block``, a robot that finds the frontier full waits for
room, but room is only made by robots that take URLs: as soon as every robot waits to put,
nobody takes, and the crawl is deadlocked. Because production outruns consumption, that moment
always comes; on this web it comes within the first pages, at *every* thread count, so this
model shows a deadlock rather than the paper's gradual plunge (an open question for the lab:
the paper's producers may have been separate parser threads). ``spill`` sends what does not fit
to an overflow store, so a robot never waits to put, and throughput follows T/L.

The deadlock watchdog flags a stuck crawl; the lab counts the pages crawled in the slice, as the
paper did.
"""

from __future__ import annotations

from labs.crawlbench import make_web, sim_crawl, summary
from labs.harness import Lab


def main(argv=None) -> int:
    lab = Lab("crawl-capacity", __doc__, argv)
    capacities = (10, 20, 30)
    threads = (1, 4, 16, 32, 64) if lab.quick else (1, 2, 4, 8, 16, 24, 32, 48, 64)
    seconds = 1.0 if lab.quick else 3.0
    latency = 0.02
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    rows = []
    for policy in ("block", "spill"):
        for cap in capacities:
            for t in threads:
                r = sim_crawl(web, "monitor", t, latency=latency, seconds=seconds,
                              capacity=cap, when_full=policy, seed=lab.seed)
                rows.append(summary(r, capacity=cap, when_full=policy, latency=latency))
    lab.write_csv(rows)
    lab.table(rows, ["when_full", "capacity", "threads", "pages_fetched", "pages_per_second",
                     "deadlock", "stopped_by"])
    fig, (left, right) = lab.figure(
        f"monitor frontier, {seconds:g} s slices, L = {latency * 1000:g} ms",
        "robot threads", "pages crawled in the slice", ncols=2)
    for ax, policy in ((left, "block"), (right, "spill")):
        for cap in capacities:
            mine = [r for r in rows if r["when_full"] == policy and r["capacity"] == cap]
            ax.plot([r["threads"] for r in mine], [r["pages_fetched"] for r in mine],
                    marker="o", label=f"capacity {cap}")
        ax.set_title(f"when full: {policy}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
