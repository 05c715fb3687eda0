"""Races of the unsynchronized frontier: URLs crawled twice and URLs lost, versus threads and
the GIL's switch interval, with a locked frontier as the control.

The threading paper's "lock-free" crawler shares a ring buffer with no synchronization and
reports that "the central frontier is overwritten frequently, and crawlers usually do
repetitive crawling work". This lab crawls a generated web to the end (simulated fetcher, zero
latency, so the robots contend for the frontier all the time) and counts each race twice:

* by the **frontier's own counters**: a URL handed out a second time (its one-use token was
  already taken) and a URL overwritten before anyone took it;
* by the **crawl's ground truth**: pages fetched more than once (fetches minus distinct pages)
  and pages discovered but never fetched (the crawl ran to the end, so they were lost).

The knob is :func:`sys.setswitchinterval`: how long CPython lets a thread run before it asks it
to hand over the GIL (5 ms by default). A race needs a switch *inside* the few bytecodes between
a check and its action; and CPython 3.11 honours a switch request only at a few places (entering
a Python function, a backward jump, after some calls), none of them inside ``RingBuffer.pop``.
So the GIL hides most of the races that are in the code. To see what it hides, the lab adds one
more frontier, ``unsynchronized+switch``: the very same code with a forced switch
(``time.sleep(0)``) between reading a slot and writing it back, the worst case of a preemption
that a free-threaded build, or C, Java or Go, allows at any instruction.

Two checks tie the counts together (the lab prints them; the handout asks why):

* a page is fetched twice either because one stored URL was handed out twice or because two
  threads both claimed it new in the visited set and both stored it, so
  ``handed out twice <= fetched twice <= handed out twice + visited races`` (below the upper
  bound only when a visited race's second copy was itself overwritten before anyone took it);
* the crawler's conservation count of lost URLs (claimed minus fetched) is exactly
  ``never fetched - fetched twice + visited races``: a duplicate fetch also settles the pending
  count of a URL that was lost, and a visited race claims one URL twice.
"""

from __future__ import annotations

import sys
import time

import frontier
from crawlers.args import MAX_CAPACITY, MAX_RUNS, at_most, positive_int
from crawlers.crawl.crawler import Crawler
from crawlers.crawl.report import GroundTruth
from crawlers.web.simfetch import SimulatedFetcher
from frontier.contract import check_capacity
from frontier.storage import RingBuffer
from frontier.unsynchronized import UnsynchronizedFrontier
from labs.crawlbench import make_frontier, make_web, to_the_end
from labs.harness import Lab, script
from labs.plotstyle import look

SWITCH_INTERVALS = (5e-3, 1e-4, 1e-6)
CONTROL = "monitor"
WINDOW = "unsynchronized+switch"


def switch_point() -> None:
    """Hand the GIL to any thread that wants it (``time.sleep(0)``): the worst case of a
    preemption inside the window, which a free-threaded build allows at any instruction."""
    time.sleep(0)


class WindowRingBuffer(RingBuffer):
    """:class:`~frontier.storage.RingBuffer` with a switch point between reading a slot and
    writing it back: the same race window, made reachable under the GIL. NOT thread-safe."""

    __slots__ = ()

    def push(self, url: object, priority: float = 0.0) -> object:
        i = self.tail
        old = self.slots[i]
        switch_point()  # another writer may now read the same tail
        self.slots[i] = url
        i += 1
        self.tail = 0 if i == self.capacity else i
        self.count += 1
        return old

    def pop(self) -> object:
        i = self.head
        url = self.slots[i]
        switch_point()  # another taker may now read the same head
        self.slots[i] = None
        i += 1
        self.head = 0 if i == self.capacity else i
        self.count -= 1
        return url


class WindowFrontier(UnsynchronizedFrontier):
    """``unsynchronized`` over a :class:`WindowRingBuffer` (not registered: a lab prop)."""

    name = WINDOW

    def __init__(self, capacity: int = frontier.DEFAULT_CAPACITY) -> None:
        super().__init__(capacity)
        self._buffer = WindowRingBuffer(self.capacity)


def crawl_to_the_end(web, name: str, threads: int, switch: float, capacity: int,
                     seed: int) -> dict:
    """Crawl ``web`` until it is exhausted (or stalls on lost URLs) with ``switch`` as the
    switch interval; one row of race counts, from the frontier and from the ground truth.
    A crawl ended by Ctrl-C ends the lab (:func:`~labs.crawlbench.to_the_end`): its pages
    never fetched would count as lost."""
    fetcher = SimulatedFetcher(web, latency=0.0, seed=seed)
    truth = GroundTruth(web.size, web.pagerank(), fetcher.addressing.page_of)
    f = WindowFrontier(capacity) if name == WINDOW else make_frontier(name, capacity)
    crawler = Crawler(fetcher, f, fetcher.seed_urls(), threads=threads, when_full="spill",
                      ground_truth=truth, watchdog=0.5)
    before = sys.getswitchinterval()
    sys.setswitchinterval(switch)
    try:
        r = to_the_end(crawler.run(seconds=60))
    finally:
        sys.setswitchinterval(before)
    stats = r.frontier_stats
    return {
        "frontier": name, "switch_interval": switch, "threads": threads,
        "pages_fetched": r.pages_fetched, "unique_pages": r.unique_pages,
        "urls_discovered": r.urls_discovered,
        # ground truth
        "fetched_twice": r.duplicates,
        "never_fetched": r.urls_discovered - r.unique_pages,
        "urls_lost": r.urls_lost,
        # the frontier's own counters
        "handed_out_twice": stats.get("duplicates_handed_out", 0),
        "overwritten": stats.get("urls_overwritten", 0),
        "visited_races": r.visited_races,
        "stopped_by": r.stopped_by, "seconds": r.seconds,
    }


def counts_agree(row: dict) -> bool:
    """Do a row's frontier counters and ground truth agree (the module's two checks)?"""
    dup, out, races = row["fetched_twice"], row["handed_out_twice"], row["visited_races"]
    lost_ok = (row["stopped_by"] != "stalled"
               or row["urls_lost"] == row["never_fetched"] - dup + races)
    return out <= dup <= out + races and lost_ok


def _flags(parser) -> None:
    parser.add_argument("--capacity", type=at_most(positive_int, MAX_CAPACITY),
                        default=frontier.DEFAULT_CAPACITY,
                        help=f"frontier capacity (default: the paper's 30, at most {MAX_CAPACITY})")
    parser.add_argument("--reps", type=at_most(positive_int, MAX_RUNS), default=None,
                        help=f"crawls per point (default: 2, or 1 in --quick; at most {MAX_RUNS})")


def main(argv=None) -> int:
    lab = Lab("crawl-races", __doc__, argv, extra=_flags, replot=True)
    capacity = check_capacity(lab.args.capacity)
    reps = lab.args.reps if lab.args.reps is not None else (1 if lab.quick else 2)
    threads = (1, 4, 16) if lab.quick else (1, 2, 4, 8, 16, 32)
    def measure() -> list[dict]:
        web = make_web(pages=3000 if lab.quick else 20_000, sites=20, seed=lab.seed)
        print(f"# web: {web.size} pages, {web.n_sites} sites; zero latency; capacity {capacity}; "
              f"{reps} crawl(s) per point")
        rows = []
        for switch in SWITCH_INTERVALS:
            for t in threads:
                for name in ("unsynchronized", WINDOW, CONTROL):
                    for rep in range(reps if name != CONTROL else 1):
                        row = crawl_to_the_end(web, name, t, switch, capacity, lab.seed + rep)
                        rows.append({**row, "rep": rep})
        return rows

    rows = lab.rows("crawl-races", measure)
    threads = sorted({r["threads"] for r in rows})
    cols = ["frontier", "switch_interval", "threads", "pages_fetched", "fetched_twice",
            "handed_out_twice", "never_fetched", "urls_lost", "overwritten", "visited_races",
            "stopped_by"]
    lab.table(rows, cols)
    control = [r for r in rows if r["frontier"] == CONTROL]
    bad = sum(r["fetched_twice"] + r["never_fetched"] for r in control)
    print(f"# control ({CONTROL}): {bad} duplicate or lost pages over {len(control)} crawls "
          f"(must be 0)")
    held = sum(counts_agree(r) for r in rows)
    print(f"# checks (handed out twice <= fetched twice <= handed out twice + visited races; "
          f"lost = never fetched - fetched twice + visited races) hold in {held} of "
          f"{len(rows)} crawls")
    for name in ("unsynchronized", WINDOW):
        mine = [r for r in rows if r["frontier"] == name]
        dup = sum(r["fetched_twice"] for r in mine)
        lost = sum(r["never_fetched"] for r in mine)
        pages = sum(r["pages_fetched"] for r in mine)
        print(f"# {name}: {dup} pages fetched twice and {lost} never fetched in {pages:,} "
              f"fetches ({100 * (dup + lost) / max(pages, 1):.2f}% wasted or lost); paper: "
              f"'overwritten frequently ... repetitive crawling' (no count given)")

    per_point = max(1 + int(r["rep"]) for r in rows)
    pooled = f"{per_point} crawl{'s' if per_point > 1 else ''} per point, pooled"
    fig, axes = lab.figure("Races per 1,000 pages, crawl ground truth (to the end, L = 0; "
                           f"{pooled})", "robot threads", "per 1,000 pages fetched", ncols=2,
                           size=(10.5, 5.6))
    styles = {5e-3: "-", 1e-4: "--", 1e-6: ":"}  # a frontier's look, a line style per switch
    sizes = {"unsynchronized": (5, 3), WINDOW: (5, 2), CONTROL: (10, 1)}
    for ax, field, title in zip(axes, ("fetched_twice", "never_fetched"),
                                ("pages fetched twice", "pages discovered, never fetched")):
        for name in ("unsynchronized", WINDOW, CONTROL):
            for switch in SWITCH_INTERVALS:
                ys = []
                for t in threads:
                    pts = [r for r in rows if r["frontier"] == name and r["threads"] == t
                           and r["switch_interval"] == switch]
                    ys.append(1000 * sum(r[field] for r in pts)
                              / max(sum(r["pages_fetched"] for r in pts), 1))
                size, z = sizes[name]
                ax.plot(threads, ys, **{**look(name, ax), "ls": styles[switch]}, markersize=size,
                        zorder=z, label=f"{name}, switch {switch * 1000:g} ms")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.set_yscale("symlog", linthresh=0.1)
        ax.set_ylim(bottom=0)
        ax.set_title(title)
    fig.tight_layout(rect=(0, 0.22, 1, 1))  # room below both panels for one legend
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center",
               bbox_to_anchor=(0.5, 0.035), ncol=3)
    lab.save(fig, layout=False)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
