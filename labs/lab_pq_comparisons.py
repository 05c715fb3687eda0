"""Key comparisons per key of BH, QH and CBT as R grows (the paper's Figure 8).

A queue of N keys, then supersteps of extract-top(R) + insert-many(R); comparisons are counted
by the instrumented twins (``count_comparisons=True``), which hand out the same URLs as the fast
code. The paper plots only BH and QH; its text says CBT performs "similarly". Not counted:
sorting the R keys of an extract-top best first (the contract asks for it; the paper's
extract-top reports a set; BH gets the order for free), and the first superstep (warm-up).
"""

from __future__ import annotations

from labs.harness import Lab
from labs.pqbench import KINDS, LABELS, supersteps

PAPER = "paper (Fig. 8, no numbers in the text): QH below BH, the gap widening as R grows"


def main(argv=None) -> int:
    lab = Lab("pq-comparisons", __doc__, argv)
    n = 100_000 if lab.quick else 1_000_000
    rs = [10, 100, 1_000, 10_000]
    rows = []
    for r in rs:
        # about n/2 keys through the queue (capped for small R, whose supersteps are slow)
        steps = max(3, min(n // (2 * r), 2_000 if lab.quick else 5_000))
        row = {"R": r, "N": n, "steps": steps}
        for kind in KINDS:
            opts = {"count_comparisons": True}
            if kind == "cbt":
                opts["chunk"] = r
            res = supersteps(kind, n, r, steps, seed=lab.seed, **opts)
            row[f"{LABELS[kind]}_cmp_per_key"] = round(res["cmp_per_key"], 2)
        row["QH/BH"] = round(row["QH_cmp_per_key"] / row["BH_cmp_per_key"], 3)
        rows.append(row)
        print(f"#   R={r}: done")
    lab.write_csv(rows)
    lab.table(rows)
    print(f"# {PAPER}")
    big = [row for row in rows if row["R"] >= 1000]
    ok = all(row["QH/BH"] < 1 for row in big)
    print(f"# target QH < BH for R >= 1000: {'met' if ok else 'NOT met'}")
    if not lab.args.no_plot:
        fig, ax = lab.figure(f"Key comparisons per key (N = {n:,})", "R", "comparisons per key")
        for kind in KINDS:
            ax.plot(rs, [row[f"{LABELS[kind]}_cmp_per_key"] for row in rows], "o-",
                    label=LABELS[kind])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(title="cf. paper Fig. 8: QH < BH")
        lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
