"""Frontier capacity 10, 20, 30 against threads: the monitor's plunge at twice the capacity
(the threading paper's Figures 16-18), its cause, and the deadlock that is *not* its cause.

**The plunge.** The paper's architecture has two procedures: crawler threads take URLs and
fetch (consumers), and ``add_url_to_frontier`` loops put the parsed links back (producers); its
monitor waits on ``full`` and ``empty``. Here half the threads are robots and half are producers
(``--threads T/2 --producers T/2``), ``block`` makes a producer wait for room, and threads wait
until woken, as plain Python threads do (``--untimed-waits``). Three bounded frontiers take the
part of the paper's: ``semaphore``, ``monitor`` (a signal for every URL added or taken) and
``tanenbaum``, the monitor of the textbook the paper cites, which signals only when the buffer
stops being empty or full. With that monitor, a robot that finds the frontier empty sleeps, and
the next insert wakes it only if the frontier was empty just before; the inserts that follow wake
nobody. While the robots are no more than the slots (``T/2 <= C``) a robot almost never finds
the frontier empty, because the producers keep it full. Past that, the robots that return
together outnumber the URLs in it, some go to sleep, and each sleeper is woken only by the rare
empty-to-non-empty edge: lost wake-ups pile up and pages per second plunge, at ``T`` about
``2C``. A semaphore remembers every ``V``, and the per-URL monitor wakes a sleeper per URL, so
neither plunges. The paper averaged its 3 s slices over several runs; the full mode does too.

**The deadlock.** The paper's pseudo-code alternatively reads as robots that put their own
links (``--producers 0``). With ``block`` those deadlock at every thread count and capacity,
after about one page per robot: a page yields more new links than the one URL it consumed, and
when every robot waits for room nobody is left to take. The watchdog reports it; ``spill``
(an unbounded overflow beside the frontier) removes it. That is the second figure: a deadlock
from the first thread on cannot be the paper's plunge, which began at twice the capacity.
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from labs.crawlbench import make_web, sim_crawl, summary
from labs.harness import Lab, LabError, script, series, summarize
from labs.plotstyle import runs_note

CAPACITIES = (10, 20, 30)
PLUNGE_FRONTIERS = ("semaphore", "monitor", "tanenbaum")
LATENCY = 0.02


def onset(threads, ratios, below: float = 0.8) -> int | None:
    """The first thread count from which every ratio (tanenbaum's pages over monitor's, in the
    order of ``threads``) stays under ``below``; ``None`` if the last one does not."""
    return next((t for k, t in enumerate(threads) if all(x < below for x in ratios[k:])), None)


def plunge_rows(lab: Lab, web, threads, seconds: float, repeats: int) -> list[dict]:
    """Pages in the slice with half robots, half producers, block and untimed waits: one row
    per run, ``repeats`` runs per point (seeds ``seed``, ``seed + 1``, ...); the lab reads the
    median of a point's runs (:func:`medians`)."""
    rows = []
    for name in PLUNGE_FRONTIERS:
        for cap in CAPACITIES:
            for t in threads:
                for k in range(repeats):
                    r = sim_crawl(web, name, t // 2, latency=LATENCY, seconds=seconds,
                                  capacity=cap, when_full="block", producers=t - t // 2,
                                  poll=None, seed=lab.seed + k)
                    rows.append(summary(r, experiment="plunge", when_full="block",
                                        capacity=cap, total_threads=t, latency=LATENCY,
                                        repeats=repeats, repeat=k))
    return rows


def medians(plunge, cap) -> dict[tuple[str, int], float]:
    """``{(frontier, total threads): median pages}`` of the plunge runs at capacity ``cap``
    (the rows may be strings, as read back from the CSV)."""
    pts = summarize([r for r in plunge if int(r["capacity"]) == int(cap)],
                    ["frontier", "total_threads"], "pages_fetched")
    return {(p["frontier"], int(p["total_threads"])): p["median"] for p in pts}


def own_links_rows(lab: Lab, web, threads, seconds: float) -> list[dict]:
    """Robots that put their own links: ``block`` against ``spill``."""
    rows = []
    for policy in ("block", "spill"):
        for cap in CAPACITIES:
            for t in threads:
                r = sim_crawl(web, "monitor", t, latency=LATENCY, seconds=seconds,
                              capacity=cap, when_full=policy, seed=lab.seed, watchdog=0.2)
                rows.append(summary(r, experiment="own-links", when_full=policy, capacity=cap,
                                    total_threads=t, latency=LATENCY, repeats=1))
    return rows


def main(argv=None) -> int:
    def extra(parser) -> None:
        parser.add_argument("--from-csv", type=Path, metavar="CSV",
                            help="measure nothing: draw the figures again from this lab's CSV "
                            "(stamped with its machine, date and commit)")

    lab = Lab("crawl-capacity", __doc__, argv, extra)
    if lab.args.from_csv is not None:
        return _replot(lab, lab.args.from_csv)
    if lab.quick:
        threads, own_threads, seconds, repeats = (16, 32, 48, 64, 96), (1, 8, 64), 0.6, 2
    else:
        threads = (4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128)
        own_threads, seconds, repeats = (1, 2, 4, 8, 16, 32, 64), 3.0, 3
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    plunge = plunge_rows(lab, web, threads, seconds, repeats)
    own = own_links_rows(lab, web, own_threads, seconds)
    lab.write_csv(plunge + own)
    lab.table(plunge, ["when_full", "frontier", "capacity", "total_threads", "threads",
                       "producers", "repeat", "pages_fetched", "frontier_condition_waits"])
    lab.table(own, ["when_full", "capacity", "threads", "pages_fetched", "deadlock",
                    "deadlock_after", "stopped_by"])
    for cap in CAPACITIES:
        mine = medians(plunge, cap)
        ratios = [mine[("tanenbaum", t)] / mine[("monitor", t)] for t in threads]
        print(f"# capacity {cap}: tanenbaum/monitor pages (medians of {repeats}) "
              + " ".join(f"{t}:{x:.2f}" for t, x in zip(threads, ratios))
              + f"; below 0.8 from {onset(threads, ratios)} threads on "
              f"(2 x capacity = {2 * cap}; the paper: about 2 x capacity)")
    stuck = [r for r in own if r["when_full"] == "block"]
    print(f"# robots putting their own links, block: {sum(r['deadlock'] for r in stuck)} of "
          f"{len(stuck)} crawls deadlocked; spill: "
          f"{sum(r['deadlock'] for r in own if r['when_full'] == 'spill')}")

    _plot(lab, plunge, own, seconds, runs_note([repeats]))
    return lab.done()


def _plot(lab: Lab, plunge: list[dict], own: list[dict], seconds: float, runs: str) -> None:
    """The plunge (one panel per capacity) and the full-frontier deadlock figures; ``runs``
    says in the title what a point is (:func:`labs.plotstyle.runs_note`)."""
    own_threads = sorted({r["threads"] for r in own})
    fig, axes = lab.figure(
        f"half robots, half producers, block, untimed waits; {seconds:g} s slices,\n"
        f"L = {LATENCY * 1000:g} ms, {runs}",
        "threads (robots + producers)", "pages crawled in the slice", ncols=len(CAPACITIES),
        size=(13, 4.4))
    top = max(r["pages_fetched"] for r in plunge)
    for ax, cap in zip(axes, CAPACITIES):
        series(ax, [r for r in plunge if r["capacity"] == cap], "total_threads",
               "pages_fetched", "frontier", order=PLUNGE_FRONTIERS)
        ax.axvline(2 * cap, color="grey", linestyle=":", label="2 x capacity")
        ax.set_title(f"frontier capacity {cap}", fontsize=10)
        ax.set_ylim(0, top * 1.1)
        ax.legend(fontsize=8)
    lab.save(fig)

    fig, axes = lab.figure(
        f"robots putting their own links, monitor; {seconds:g} s slices", "robot threads",
        "pages crawled in the slice", ncols=2, size=(10, 4.2))
    top = max(r["pages_fetched"] for r in own)
    for ax, policy in zip(axes, ("block", "spill")):
        for cap in CAPACITIES:
            mine = [r for r in own if r["when_full"] == policy and r["capacity"] == cap]
            ax.plot([r["threads"] for r in mine], [r["pages_fetched"] for r in mine],
                    marker="o", label=f"capacity {cap}")
            dead = [r for r in mine if r["deadlock"]]
            ax.plot([r["threads"] for r in dead], [r["pages_fetched"] for r in dead],
                    marker="x", color="k", linestyle="", markersize=8)
        ax.set_title(f"when full: {policy}" + (" (x: deadlock)" if policy == "block" else ""),
                     fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_ylim(0.8, top * 1.5)  # one scale for both panels: the collapse must show
        ax.set_xticks(own_threads, [str(t) for t in own_threads])
        ax.legend(fontsize=8)
    lab.save(fig, "crawl-capacity-deadlock")


def _replot(lab: Lab, path) -> int:
    """Both figures again from ``path`` (this lab's CSV), stamped with its machine."""
    rows = lab.read_csv(path)
    if not rows or "experiment" not in rows[0]:
        raise LabError(f"--from-csv: {path} is not a crawl-capacity CSV")
    lab.stamp_from({k: str(v) for k, v in rows[0].items()})
    plunge = [r for r in rows if r["experiment"] == "plunge"]
    own = [r for r in rows if r["experiment"] == "own-links"]
    seconds = round(statistics.median(r["seconds"] for r in plunge), 1)
    per_point = Counter((r["frontier"], r["capacity"], r["total_threads"]) for r in plunge)
    repeats = max(r["repeats"] for r in plunge)
    runs = (f"each point the mean of {repeats} runs, as an older version of the lab kept it"
            if max(per_point.values()) == 1 < repeats else runs_note(per_point.values()))
    _plot(lab, plunge, own, seconds, runs)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
