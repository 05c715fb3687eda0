"""Time per key of insert-many(R) + extract-top(R): BH, CBT and QH against heapq, same run.

First at N = 10^6 keys for R = 100 ... 10,000, then at R = 1,000 as N grows from 10^4 to 10^7
(``--quick``: to 10^6). Every structure stores the URLs too (heapq: ``(-priority, seq, url)``).
``--repeat`` rounds (default 3), each measuring every structure and heapq one after the other;
the CSV has one row per round (ratios taken within the round), the plot and the printed table
the median of the rounds with their min-max spread.
"""

from __future__ import annotations

from crawlers.args import MAX_RUNS, at_most, positive_int
from labs.harness import Lab, script, series, summarize
from labs.plotstyle import runs_note
from labs.pqbench import LABELS, heapq_supersteps, supersteps

KINDS = ["heap", "cbt", "quickheap"]


def _measure(n, r, steps, seed, repeat):
    """``repeat`` rows, one per round: ns per key of heapq and of every structure, and the
    ratios to heapq in that round."""
    rows = []
    for k in range(repeat):
        row = {"N": n, "R": r, "repeat": k,
               "heapq_ns": round(heapq_supersteps(n, r, steps, seed)["ns_per_key"])}
        for kind in KINDS:
            opts = {"chunk": r} if kind == "cbt" else {}
            row[f"{LABELS[kind]}_ns"] = round(supersteps(kind, n, r, steps, seed, **opts)
                                              ["ns_per_key"])
        for kind in ("cbt", "quickheap"):
            row[f"{LABELS[kind]}/heapq"] = round(row[f"{LABELS[kind]}_ns"] / row["heapq_ns"], 2)
        rows.append(row)
    return rows


def _medians(rows, key):
    """The printed table: the median of the rounds for each size."""
    cols = ["heapq_ns", "BH_ns", "CBT_ns", "QH_ns", "CBT/heapq", "QH/heapq"]
    out = []
    for first in summarize(rows, ["N", "R"], cols[0]):
        mine = [r for r in rows if r["N"] == first["N"] and r["R"] == first["R"]]
        line = {"N": first["N"], "R": first["R"], "rounds": len(mine)}
        for c in cols:
            s = summarize(mine, ["N"], c)[0]
            line[c] = s["median"]
            if "/" in c:
                line[f"{c} min-max"] = f"{s['min']:.2f}-{s['max']:.2f}"
        out.append(line)
    return out


def main(argv=None) -> int:
    lab = Lab("pq-time", __doc__, argv,
              extra=lambda p: p.add_argument("--repeat", type=at_most(positive_int, MAX_RUNS),
                                               default=None),
              replot=True)
    repeat = lab.args.repeat or 3
    big = 300_000 if lab.quick else 1_000_000

    def measure_by_r():
        rows = []
        for r in (100, 1_000, 10_000):
            rows.extend(_measure(big, r, max(3, 20_000 // r), lab.seed, repeat))
            print(f"#   N={big:,} R={r}: done")
        return rows

    def measure_by_n():
        rows = []
        for n in [10_000, 100_000, 1_000_000] + ([] if lab.quick else [10_000_000]):
            rows.extend(_measure(n, 1_000, 10 if lab.quick else 20, lab.seed, repeat))
            print(f"#   N={n:,} R=1000: done")
        return rows

    by_r = lab.rows("by-R", measure_by_r)
    by_n = lab.rows("by-N", measure_by_n)
    if lab.args.replot:  # the sizes and repeats the rows were measured with
        big = max(row["N"] for row in by_r)
        repeat = 1 + max(row.get("repeat", 0) for row in by_r)  # older CSVs: one row a point
    print(f"# time per key (ns), N = {big:,}: median of {repeat} rounds")
    lab.table(_medians(by_r, "R"))
    print(f"# time per key (ns), R = 1,000: median of {repeat} rounds")
    lab.table(_medians(by_n, "N"))
    ok = all(row["CBT/heapq"] <= 1 and row["QH/heapq"] <= 1 for row in _medians(by_r, "R")
             if row["R"] >= 1000)
    print("# paper: no times; it claims chunked queues beat BH as R grows")
    print(f"# target CBT and QH <= heapq per key for R >= 1000: {'met' if ok else 'NOT met'}")
    runs = (runs_note([repeat]) if "repeat" in by_r[0]
            else "one value per point, as an older run kept it: see the CSV's note")
    if not lab.args.no_plot:
        fig, (a1, a2) = lab.figure(
            f"Time per key of insert-many(R) + extract-top(R) ({runs})",
            "R", "ns per key", ncols=2)
        for col, lbl in (("heapq_ns", "heapq"), ("BH_ns", "BH (heap)"), ("CBT_ns", "CBT"),
                         ("QH_ns", "QH")):
            series(a1, by_r, "R", col, label=lambda _, lbl=lbl: lbl)
            series(a2, by_n, "N", col, label=lambda _, lbl=lbl: lbl)
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
    raise SystemExit(script(main))
