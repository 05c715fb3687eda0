"""Thread timelines: where the robots' time goes, for three frontiers in three regimes.

Throughput says *that* a frontier is slow; a timeline says *why*. Each robot's life is drawn as
one row of coloured bars: fetching, blocked on the frontier's lock, asleep waiting for a URL
(``not_empty``) or for room (``not_full``), and running its own Python (``run``). Three crawls:

* ``monitor`` near its capacity, zero latency (the frontier is the work): with the GIL, a thread
  waiting for the GIL is drawn as ``run`` (nothing in Python can see that wait) and lock waits are
  rare; on a free-threaded interpreter the robots really contend for the monitor's lock;
* ``tanenbaum`` past twice its capacity (half robots, half producers, blocking puts, untimed
  waits): robots asleep on ``not_empty`` while producers sleep on ``not_full`` beside them: the
  lost wake-ups behind the threading paper's plunge, made visible;
* ``lockfree`` at zero latency: nothing to block on; its robots never sleep in the frontier.

The lab also measures what recording costs: the ``monitor`` crawl with and without a timeline,
alternating, the same number of times each, and reports the median ratio (target: under 5%).
Each crawl writes a PNG and a Trace Event Format JSON (open it in Perfetto or chrome://tracing).
"""

from __future__ import annotations

from crawlers.crawl.timeline import STATES, Timeline
from labs.crawlbench import make_web, sim_crawl
from labs.harness import Lab, machine_line, script, spread

# name -> (frontier, robots, producers, capacity, when_full, latency, untimed waits)
SCENARIOS = {
    "monitor": ("monitor", 8, 0, 8, "spill", 0.0, False),
    "tanenbaum": ("tanenbaum", 16, 16, 4, "block", 0.002, True),
    "lockfree": ("lockfree", 8, 0, 8, "spill", 0.0, False),
}


def main(argv=None) -> int:
    lab = Lab("crawl-timelines", __doc__, argv)
    seconds = 1.0 if lab.quick else 3.0
    rounds = 9 if lab.quick else 15  # the convoy makes single crawls vary by tens of percent
    web = make_web(pages=40_000, sites=40, seed=lab.seed)
    rows = []
    for scenario, (name, robots, producers, capacity, when_full, latency, untimed) in (
            SCENARIOS.items()):
        tl = Timeline()
        r = sim_crawl(web, name, robots, latency=latency, seconds=seconds, capacity=capacity,
                      when_full=when_full, producers=producers, seed=lab.seed,
                      poll=None if untimed else 0.05, watchdog=2 * seconds, thread_timeline=tl)
        stem = f"timeline-{scenario}"
        tl.write_trace(lab.dir / f"{stem}.json")
        if not lab.args.no_plot:
            tl.plot(lab.dir / f"{stem}.png", title=f"{scenario}: {robots} robots"
                    + (f" + {producers} producers" if producers else "")
                    + f", capacity {capacity}, latency {latency * 1000:g} ms: "
                    f"{r.pages_fetched} pages in {r.seconds:.2f} s\n"
                    f"{machine_line(lab.machine)} · seed {lab.seed}")
        totals = tl.totals()
        whole = sum(totals.values()) or 1.0
        rows.append({"scenario": scenario, "frontier": name, "robots": robots,
                     "producers": producers, "capacity": capacity, "latency": latency,
                     "seconds": r.seconds, "pages_fetched": r.pages_fetched,
                     "pages_per_second": round(r.pages_per_second, 1),
                     **{f"share_{s}": round(totals[s] / whole, 4) for s in STATES}})
    lab.write_csv(rows)
    lab.table(rows, ["scenario", "pages_per_second", *(f"share_{s}" for s in STATES)])

    # What recording costs: the same crawl with and without a timeline, alternating.
    name, robots, _, capacity, when_full, latency, _ = SCENARIOS["monitor"]
    cost = []
    for i in range(rounds):
        for recorded in ((False, True) if i % 2 == 0 else (True, False)):
            tl = Timeline() if recorded else None
            r = sim_crawl(web, name, robots, latency=latency, seconds=seconds / 2,
                          capacity=capacity, when_full=when_full, seed=lab.seed,
                          thread_timeline=tl)
            spans = None if tl is None else sum(len(b) for _, b in tl.rows())
            cost.append({"round": i, "timeline": recorded,
                         "pages_per_second": round(r.pages_per_second, 1),
                         "pages": r.pages_fetched, "records": spans})
    lab.write_csv(cost, stem="timeline-overhead")
    rate = {(c["round"], c["timeline"]): c["pages_per_second"] for c in cost}
    on = spread(rate[i, True] for i in range(rounds))
    off = spread(rate[i, False] for i in range(rounds))
    ratio = spread(rate[i, True] / rate[i, False] for i in range(rounds))
    print(f"# recording a timeline: {on['median']:,.0f} vs {off['median']:,.0f} pages/s "
          f"without (median of {rounds} each); per-round ratio with/without median "
          f"{ratio['median']:.3f} (min {ratio['min']:.3f}, max {ratio['max']:.3f})")
    # The same cost from its parts, which vary far less than whole crawls: records per page
    # (counted) x seconds per record with its two stamps (timed) / seconds per page (measured).
    per_record = record_cost()
    recorded = [c for c in cost if c["timeline"]]
    per_page = sum(c["records"] for c in recorded) / max(1, sum(c["pages"] for c in recorded))
    model = per_page * per_record * off["median"]
    lab.write_csv([{"records_per_page": round(per_page, 3),
                    "seconds_per_record": round(per_record, 9),
                    "pages_per_second_without": off["median"],
                    "throughput_lost": round(model, 4),
                    "verdict": "under 5%" if model < 0.05 else "5% or more"}],
                  stem="timeline-cost-model", source="model")
    print(f"# from its parts (model): {per_page:.2f} records per page x "
          f"{per_record * 1e6:.2f} us each at {off['median']:,.0f} pages/s = "
          f"{model:.1%} of the time ({'under' if model < 0.05 else 'not under'} the 5% target)")
    return lab.done()


def record_cost(n: int = 200_000) -> float:
    """Seconds one recorded interval costs a thread: two ``perf_counter`` stamps and
    :meth:`Timeline.record` (median of 5 batches of ``n``)."""
    import statistics
    import time

    tl = Timeline()
    now, record = time.perf_counter, tl.record
    batches = []
    for _ in range(5):
        t = now()
        for _ in range(n):
            record("lock", now(), now())
        batches.append((now() - t) / n)
    return statistics.median(batches)


if __name__ == "__main__":
    raise SystemExit(script(main))
