"""Dynamic partition: the load balance of four site-assignment policies (Table 1), and a
worker killed mid-crawl.

Dong, Lu and Zhang hand whole sites to workers (C-procs). Static policies fix the assignment
before the crawl: ``static-random`` (the same number of sites each) and ``static-size`` (the
same number of pages each). Algorithm 3.1 is dynamic: a worker that finishes its site takes
the next one from the list S, in random order (``dynamic-random``) or largest first with the
strongest workers served first (``dynamic-size``). The paper measures each worker's download
time over the sum (the *normalized workload*) and its standard deviation: 6.19 %, 3.44 %,
2.50 %, 0.82 % for its six C-procs on three grid nodes, 30 sites, 98,585 pages.

Here six worker processes of three capacities (4, 4, 2, 2, 1, 1 robots) crawl a generated
30-site web through the simulated fetcher (every request waits the latency), each crawling
whole sites and sending links to other sites to the coordinator
(:mod:`crawlers.bsp.analysis.dynamic`). Beside each measured row, the paper's value; apart
(``model.csv``, source ``model``), the same policy with ideal workers (a site takes size /
capacity, :func:`~crawlers.bsp.analysis.dynamic.simulate`). Then the four metrics of the
paper (overlap, coverage, quality, communication overhead), and a ``dynamic-size`` crawl in
which the strongest worker is killed with SIGKILL mid-site: its site goes back to the head
of S and the crawl must still cover every page.
"""

from __future__ import annotations

from crawlers.args import MAX_LATENCY, at_most, non_negative, positive
from crawlers.bsp.analysis import dynamic
from crawlers.page.urls import site_of
from crawlers.web import webgen
from labs.harness import Lab, script

ROBOTS = (4, 4, 2, 2, 1, 1)


def _extra(parser) -> None:
    parser.add_argument("--site-alpha", type=at_most(positive, 100.0, "equal sites long before"),
                        default=5.0,
                        help="Pareto exponent of the site sizes (default 5: the largest of "
                        "30 sites holds about 12 %% of the pages; 1.5 gives one giant site)")
    parser.add_argument("--latency", type=at_most(non_negative, MAX_LATENCY, "an hour"),
                        default=0.01,
                        help="seconds per request of a capacity-1 robot (default 0.01)")


def main(argv=None) -> int:
    lab = Lab("bsp-dynamic", __doc__, argv, extra=_extra)
    args = lab.args
    pages = 6_000 if lab.quick else 30_000
    repeats = 1 if lab.quick else 3
    web = webgen.generate(pages, 30, seed=lab.seed, site_alpha=args.site_alpha)
    sizes = sorted(web.site_sizes().tolist(), reverse=True)
    print(f"# web: {web.size:,} pages, 30 sites (largest {sizes[0]}, smallest {sizes[-1]}), "
          f"latency {args.latency * 1000:g} ms; workers: {', '.join(map(str, ROBOTS))} robots")
    specs = [dynamic.WorkerSpec(r) for r in ROBOTS]
    prior = {site_of(u): int(n) for u, n in zip(web.logical().seed_urls(), web.site_sizes())}
    rows, model, shares_of = [], [], {}
    for policy in dynamic.POLICIES:
        runs = [dynamic.run_crawl(web, policy, specs, latency=args.latency,
                                  seed=lab.seed + k, timeout=600) for k in range(repeats)]
        r = sorted(runs, key=lambda x: x.stdev)[len(runs) // 2]  # the median run
        sim = dynamic.simulate(policy, prior, [s.capacity for s in specs], seed=lab.seed)
        shares_of[policy] = r.shares
        paper_shares, paper_stdev = dynamic.PAPER_TABLE1[policy]
        row = {"policy": policy}
        row.update({f"w{i + 1}": round(s, 3) for i, s in enumerate(r.shares)})
        row.update({
            "stdev_pct": round(100 * r.stdev, 2),
            "stdev_runs": " ".join(f"{100 * x.stdev:.2f}" for x in runs),
            "paper_pct": paper_stdev, "seconds": round(r.seconds, 2),
            "overlap": round(r.overlap, 4), "coverage": round(r.coverage, 4),
            "quality_10": round(r.quality[0.1], 3), "quality_50": round(r.quality[0.5], 3),
            "communication": round(r.communication, 3), "fetches": r.fetches,
            "unique": r.unique})
        rows.append(row)
        model.append({"policy": policy, "stdev_pct": round(100 * sim.stdev, 2),
                      "seconds": round(sim.makespan * args.latency, 2)})
        print(f"#   {policy}: stdev {100 * r.stdev:.2f} % in {r.seconds:.1f} s")
    lab.write_csv(rows)
    lab.write_csv(model, "model", source="model")
    print("# normalized workload per worker (download time / sum) and its stdev, beside the "
          "paper's Table 1; then the ideal-worker model (simulated, not measured)")
    lab.table(rows, ["policy", *(f"w{i + 1}" for i in range(len(ROBOTS))), "stdev_pct",
                     "paper_pct", "seconds"])
    lab.table(model)
    print("# the paper's four metrics (quality: share of the top-N PageRank pages among the "
          "first N fetched, N = 10 % and 50 % of the web)")
    lab.table(rows, ["policy", "overlap", "coverage", "quality_10", "quality_50",
                     "communication"])

    base = next(r for r in rows if r["policy"] == "dynamic-size")
    kill_after = max(20, min(prior.values()) // 2)
    failure = dynamic.run_crawl(web, "dynamic-size", specs, latency=args.latency,
                                seed=lab.seed, kill=(0, kill_after), timeout=600)
    fail_row = {"run": "worker 1 SIGKILLed", "killed_after_pages": kill_after,
                "reassigned": " ".join(failure.reassigned), "seconds": round(failure.seconds, 2),
                "no_failure_seconds": base["seconds"], "coverage": failure.coverage,
                "unique": failure.unique, "web_size": failure.web_size,
                "fetches": failure.fetches, "overlap": round(failure.overlap, 4),
                "lost_pages": failure.web_size - failure.unique}
    lab.write_csv([fail_row], "failure")
    print("# dynamic-size with the strongest worker killed (SIGKILL) mid-site")
    lab.table([fail_row])
    print(f"# target: coverage 1.0 and no page lost: "
          f"{'met' if failure.coverage == 1.0 and failure.unique == web.size else 'NOT met'}")

    fig, (left, right) = lab.figure(
        f"Dynamic partition: {web.size:,} pages, 30 sites, workers with "
        f"{'/'.join(map(str, ROBOTS))} robots", "worker", "normalized workload", ncols=2)
    width = 0.2
    for k, policy in enumerate(dynamic.POLICIES):
        xs = [i + (k - 1.5) * width for i in range(len(ROBOTS))]
        left.bar(xs, shares_of[policy], width, label=policy, color=f"C{k}")
        left.scatter(xs, dynamic.PAPER_TABLE1[policy][0], marker="_", s=80, color="black",
                     zorder=5, label="paper's C-proc i (capacity unknown)" if k == 0 else None)
    left.axhline(1 / len(ROBOTS), color="gray", lw=1, ls=":")
    left.set_xticks(range(len(ROBOTS)), [f"{i + 1}\n({r} robot{'s' if r > 1 else ''})"
                                         for i, r in enumerate(ROBOTS)])
    left.legend(fontsize=7)
    xs = range(len(dynamic.POLICIES))
    right.bar([x - 0.25 for x in xs], [r["stdev_pct"] for r in rows], 0.25, label="measured")
    right.bar(xs, [r["stdev_pct"] for r in model], 0.25, label="ideal workers (model)")
    right.bar([x + 0.25 for x in xs], [r["paper_pct"] for r in rows], 0.25,
              label="paper (Table 1)")
    right.set_xticks(list(xs), [p.replace("-", "\n") for p in dynamic.POLICIES])
    right.set_xlabel("policy")
    right.set_ylabel("stdev of normalized workload (%)")
    right.legend(fontsize=7)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
