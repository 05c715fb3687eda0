"""Crawl quality over time: FIFO frontiers against priority frontiers ordered by OPIC.

Quality after N pages is ``|A_N ∩ P_N| / |P_N|``: the share of the N highest-PageRank pages of the
web among the N pages crawled so far (PageRank of the generated web is the ground truth). A FIFO
frontier crawls breadth-first; a priority frontier takes the URL holding the most OPIC cash
first, which should find important pages sooner. One robot and zero latency make the order of
fetches, and hence the curve, exactly repeatable for a seed.
"""

from __future__ import annotations

import frontier
from crawlers.crawl.report import GroundTruth
from labs.crawlbench import make_web, sim_crawl
from labs.harness import Lab, script, series


def main(argv=None) -> int:
    lab = Lab("crawl-quality", __doc__, argv, replot=True)
    pages = 5_000 if lab.quick else 50_000
    names = ["monitor", "lockfree", *[n for n in frontier.names()
                                     if frontier.info(n).ordering == "priority"]]

    def measure() -> list[dict]:
        web = make_web(pages=pages, sites=40, seed=lab.seed)
        checkpoints = sorted({max(1, int(pages * f)) for f in (0.01, 0.02, 0.05, 0.1, 0.2,
                                                                 0.3, 0.5, 0.7, 1.0)})
        truth = GroundTruth(web.size, web.pagerank(), _page_of(web))
        rows = []
        for name in names:
            r = sim_crawl(web, name, 1, latency=0.0, timeline=True, seed=lab.seed)
            order = [url for _, url in r.timeline]
            for n in checkpoints:
                rows.append({"frontier": name, "ordering": frontier.info(name).ordering,
                             "pages": n, "fraction": n / web.size,
                             "quality": truth.quality(order[:n])})
        return rows

    rows = lab.rows("crawl-quality", measure)  # --replot: the committed rows, nothing crawled
    names = list(dict.fromkeys(r["frontier"] for r in rows))
    checkpoints = sorted({r["pages"] for r in rows})
    size = round(rows[-1]["pages"] / rows[-1]["fraction"])
    table = [{"pages": n, **{name: next(r["quality"] for r in rows
                                        if r["frontier"] == name and r["pages"] == n)
                             for name in names}} for n in checkpoints]
    lab.table(table)
    fig, ax = lab.figure(f"Crawl quality, {size} pages, OPIC priorities",
                         "fraction of the web crawled", "quality |A ∩ P| / |P|")
    ordering = {r["frontier"]: r["ordering"] for r in rows}
    series(ax, rows, "fraction", "quality", "frontier", order=names,
           label=lambda n: f"{n} ({ordering[n]})")
    ax.plot([0, 1], [0, 1], ":", color="0.5", label="random order (expected)")
    ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


def _page_of(web):
    from crawlers.web.simfetch import SimulatedFetcher

    return SimulatedFetcher(web, latency=0.0).addressing.page_of


if __name__ == "__main__":
    raise SystemExit(script(main))
