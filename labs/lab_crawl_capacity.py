"""Frontier capacity 10, 20, 30 against threads: the paper's ``block`` policy with the robots
putting their own links, ``block`` with separate producer threads, and ``spill``.

The threading paper's Figures 16-18 show a bounded monitor frontier whose throughput follows the
thread count and then plunges at about twice the capacity. Its pseudo-code gives every crawler
thread both roles: take a URL, crawl it, parse it, add the new links (``--producers 0``). A page
yields several new links for the one it consumed, so the frontier fills; with ``block`` a robot
that finds it full waits for room, but room is only made by robots that take URLs. As soon as
every robot waits to put, nobody takes: a deadlock, which the watchdog reports. On this web it
comes after about one page per robot, at *every* thread count and capacity: the cycle closes as
soon as the backlog of discovered URLs outgrows the frontier plus what the robots can hold.

The paper's text (its Figure 11) names other roles: the parser is the producer, the crawler
threads are consumers. The second series gives the robots only the consumer role: they hand
their new links to one producer thread (``--producers 1``) that puts them, waiting for room.
Nothing waits for a producer, so the wait-for graph is a chain and ``block`` cannot deadlock;
the URLs that do not fit wait in the hand-off (``handoff_peak``) and throughput follows T/L, as
with ``spill``, which sends what does not fit to an overflow store.

Neither architecture shows the paper's onset at twice the capacity: with producers there is no
plunge at all, without them it is there from one thread. The instructor notes discuss what that
says about the paper's crawler. The lab counts the pages crawled in the slice, as the paper did,
and ``deadlock_after``, the seconds until the last robot blocked.
"""

from __future__ import annotations

from labs.crawlbench import make_web, sim_crawl, summary
from labs.harness import Lab

SERIES = (  # (label, when_full, producers)
    ("block, robots put (pseudo-code)", "block", 0),
    ("block, 1 producer (Figure 11 roles)", "block", 1),
    ("spill", "spill", 0),
)


def main(argv=None) -> int:
    lab = Lab("crawl-capacity", __doc__, argv)
    capacities = (10, 20, 30)
    threads = (1, 4, 16, 32, 64) if lab.quick else (1, 2, 4, 8, 16, 24, 32, 48, 64)
    seconds = 1.0 if lab.quick else 3.0
    latency = 0.02
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    rows = []
    for label, policy, producers in SERIES:
        for cap in capacities:
            for t in threads:
                r = sim_crawl(web, "monitor", t, latency=latency, seconds=seconds,
                              capacity=cap, when_full=policy, producers=producers,
                              seed=lab.seed)
                rows.append(summary(r, series=label, capacity=cap, when_full=policy,
                                    latency=latency))
    lab.write_csv(rows)
    lab.table(rows, ["series", "capacity", "threads", "pages_fetched", "pages_per_second",
                     "deadlock", "deadlock_after", "handoff_peak"])
    for label, _, _ in SERIES:
        mine = [r for r in rows if r["series"] == label]
        stuck = sum(1 for r in mine if r["deadlock"])
        print(f"# {label}: {stuck} of {len(mine)} crawls deadlocked")
    fig, axes = lab.figure(
        f"monitor frontier, {seconds:g} s slices, L = {latency * 1000:g} ms",
        "robot threads", "pages crawled in the slice", ncols=len(SERIES), size=(13, 4.4))
    top = max(r["pages_fetched"] for r in rows)
    for ax, (label, _, _) in zip(axes, SERIES):
        for cap in capacities:
            mine = [r for r in rows if r["series"] == label and r["capacity"] == cap]
            ax.plot([r["threads"] for r in mine], [r["pages_fetched"] for r in mine],
                    marker="o", label=f"capacity {cap}")
            dead = [r for r in mine if r["deadlock"]]
            ax.plot([r["threads"] for r in dead], [r["pages_fetched"] for r in dead],
                    marker="x", color="k", linestyle="", markersize=8)
        ax.set_title(label, fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(0.8, top * 1.5)  # one scale for all panels: the collapse must show
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.legend(fontsize=8, title="x: deadlock", title_fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
