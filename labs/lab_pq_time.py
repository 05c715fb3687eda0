"""Time per key of insert-many(R) + extract-top(R): BH, CBT and QH against heapq, same run.

First at N = 10^6 keys for R = 100 ... 10,000, then at R = 1,000 as N grows from 10^4 to 10^7
(``--quick``: to 10^6). Every structure stores the URLs too (heapq: ``(-priority, seq, url)``).
Best of ``--repeat`` runs.
"""

from __future__ import annotations

from crawlers.args import positive_int
from labs.harness import Lab
from labs.pqbench import LABELS, heapq_supersteps, supersteps

KINDS = ["heap", "cbt", "quickheap"]


def _measure(n, r, steps, seed, repeat):
    row = {"N": n, "R": r}
    row["heapq_ns"] = round(min(heapq_supersteps(n, r, steps, seed)["ns_per_key"]
                                for _ in range(repeat)))
    for kind in KINDS:
        opts = {"chunk": r} if kind == "cbt" else {}
        row[f"{LABELS[kind]}_ns"] = round(min(supersteps(kind, n, r, steps, seed, **opts)
                                              ["ns_per_key"] for _ in range(repeat)))
    for kind in ("cbt", "quickheap"):
        row[f"{LABELS[kind]}/heapq"] = round(row[f"{LABELS[kind]}_ns"] / row["heapq_ns"], 2)
    return row


def main(argv=None) -> int:
    lab = Lab("pq-time", __doc__, argv,
              extra=lambda p: p.add_argument("--repeat", type=positive_int, default=None))
    repeat = lab.args.repeat or 3
    big = 300_000 if lab.quick else 1_000_000
    by_r = []
    for r in (100, 1_000, 10_000):
        by_r.append(_measure(big, r, max(3, 20_000 // r), lab.seed, repeat))
        print(f"#   N={big:,} R={r}: done")
    ns = [10_000, 100_000, 1_000_000] + ([] if lab.quick else [10_000_000])
    by_n = []
    for n in ns:
        by_n.append(_measure(n, 1_000, 10 if lab.quick else 20, lab.seed, repeat))
        print(f"#   N={n:,} R=1000: done")
    lab.write_csv(by_r, "by-R")
    lab.write_csv(by_n, "by-N")
    print(f"# time per key (ns), N = {big:,}")
    lab.table(by_r)
    print("# time per key (ns), R = 1,000")
    lab.table(by_n)
    ok = all(row["CBT/heapq"] <= 1 and row["QH/heapq"] <= 1 for row in by_r if row["R"] >= 1000)
    print("# paper: no times; it claims chunked queues beat BH as R grows")
    print(f"# target CBT and QH <= heapq per key for R >= 1000: {'met' if ok else 'NOT met'}")
    if not lab.args.no_plot:
        fig, (a1, a2) = lab.figure("Time per key of insert-many(R) + extract-top(R)", "R",
                                   "ns per key", ncols=2)
        for col, lbl in (("heapq_ns", "heapq"), ("BH_ns", "BH (heap)"), ("CBT_ns", "CBT"),
                         ("QH_ns", "QH")):
            a1.plot([r["R"] for r in by_r], [r[col] for r in by_r], "o-", label=lbl)
            a2.plot([r["N"] for r in by_n], [r[col] for r in by_n], "o-", label=lbl)
        a1.set_title(f"N = {big:,}")
        a2.set_title("R = 1,000")
        a2.set_xlabel("N")
        for a in (a1, a2):
            a.set_xscale("log")
            a.set_yscale("log")
            a.legend()
        lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
