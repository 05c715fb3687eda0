"""Late messages in the BSP crawler: failures per superstep for P = 4, 8, 16, 32 (Figure 6).

In the BSP crawler (:mod:`crawlers.bsp`) a worker learns of the OPIC cash other workers send to
its pages only at the superstep's barrier. A *failure* (Marin, Paredes and Bonacic 2008,
Section 4.1) is such a message arriving for a page that was already fetched: had it arrived in
time, the page might have been fetched earlier. ``failures`` counts those caused by messages
from other workers, ``local_failures`` those caused by the worker's own pages (co-resident
sites), which a sequential crawler has too. The paper, with R = 12,000 pages per processor per
superstep: failures are larger for larger P in the early supersteps, and failures caused by
other processors are below 10 % of those caused by co-resident sites.

Here: the generated web through the simulated fetcher at zero latency (every fetch is the
same; only the order matters), site-hash assignment, CBT frontiers with OPIC priorities, the
same R per worker for every P (R = 10 in quick mode, 40 otherwise), curves averaged over
windows of 10 supersteps as in the paper.
"""

from __future__ import annotations

from crawlers.bsp import BspConfig, run_bsp
from crawlers.crawl.targets import WebOptions
from labs.crawlbench import to_the_end
from labs.harness import Lab, script

WINDOW = 10


def main(argv=None) -> int:
    lab = Lab("bsp-failures", __doc__, argv)
    pages, sites, R = (8_000, 400, 10) if lab.quick else (60_000, 3_000, 40)
    procs = (4, 8, 16, 32)
    web = WebOptions(kind="sim", pages=pages, sites=sites, seed=lab.seed, latency=0.0)
    rows, totals = [], []
    for P in procs:
        report = to_the_end(run_bsp(BspConfig(web=web, procs=P, robots=2, R=R, frontier="cbt",
                                              partition="site-hash", timeout=300)))
        for step in report.per_superstep:
            rows.append({"P": P, "R": R, "superstep": step.superstep, "pages": step.pages,
                         "failures": step.failures, "local_failures": step.local_failures,
                         "page_messages": step.page_messages})
        remote, local = report.failures, report.local_failures
        totals.append({"P": P, "R": R, "supersteps": report.supersteps,
                       "pages": report.pages_fetched, "coverage": report.coverage,
                       "failures": remote, "local_failures": local,
                       "remote_over_local": round(remote / local, 3) if local else "",
                       "failures_per_page": round(remote / max(report.pages_fetched, 1), 4),
                       "seconds": round(report.seconds, 2),
                       "startup_seconds": report.startup_seconds})
        print(f"#   P={P}: {report.supersteps} supersteps, {remote} failures, "
              f"{local} local failures")
    lab.write_csv(rows, "per-superstep")
    lab.write_csv(totals)
    lab.table(totals, ["P", "R", "supersteps", "pages", "coverage", "failures",
                       "local_failures", "remote_over_local", "failures_per_page"])
    early = {P: sum(r["failures"] for r in rows if r["P"] == P and r["superstep"] < WINDOW)
             for P in procs}
    grows = all(early[a] <= early[b] for a, b in zip(procs, procs[1:]))
    print(f"# paper: more failures for larger P in the early supersteps; ours, failures in "
          f"the first {WINDOW} supersteps: "
          + ", ".join(f"P={P} {early[P]}" for P in procs)
          + f" ({'increasing' if grows else 'not monotone'})")
    worst = max(t["remote_over_local"] for t in totals if t["remote_over_local"] != "")
    print(f"# paper: failures from other processors below 10 % of the co-resident ones; "
          f"ours: at most {worst:.0%}")

    fig, (left, right) = lab.figure(
        f"Failures per superstep, R = {R} per worker, {pages:,}-page web (mean of "
        f"{WINDOW} supersteps)", "superstep", "failures (messages from other workers)",
        ncols=2)
    for k, P in enumerate(procs):
        mine = [r for r in rows if r["P"] == P]
        for ax, key in ((left, "failures"), (right, "local_failures")):
            xs, ys = [], []
            for start in range(0, len(mine), WINDOW):
                chunk = mine[start:start + WINDOW]
                xs.append(chunk[0]["superstep"])
                ys.append(sum(r[key] for r in chunk) / len(chunk))
            ax.plot(xs, ys, marker="o", ms=3, color=f"C{k}", label=f"P = {P}")
    right.set_ylabel("local failures (own pages)")
    for ax in (left, right):
        ax.legend(fontsize=8)
    lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
