"""Key comparisons per key of BH, QH and CBT as R grows (the paper's Figure 8).

A queue of N keys, then supersteps of extract-top(R) + insert-many(R); comparisons are counted
by the instrumented twins (``count_comparisons=True``), which hand out the same URLs as the fast
code. The paper plots only BH and QH; its text says CBT performs "similarly".

Counted: handing out the R keys of an extract-top in order, best first, which the frontier
contract asks for. QH and CBT find the R keys by partitioning and so get them unordered; the
lab counts the comparisons of sorting them (Python's sort of the R keys in random order,
:func:`labs.pqbench.order_comparisons`), shown apart as ``*_order_cmp_per_key`` and included
in ``*_cmp_per_key``; BH's pops come out ordered and are already counted. Not counted: the
first superstep (warm-up).
"""

from __future__ import annotations

from labs.harness import Lab, script
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
            opts = {"count_comparisons": True, "count_order": True}
            if kind == "cbt":
                opts["chunk"] = r
            res = supersteps(kind, n, r, steps, seed=lab.seed, **opts)
            row[f"{LABELS[kind]}_cmp_per_key"] = round(res["cmp_per_key"], 2)
            if kind != "heap":
                row[f"{LABELS[kind]}_order_cmp_per_key"] = round(res["order_cmp_per_key"], 2)
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
        fig, ax = lab.figure(f"Key comparisons per key, ordering the R keys included "
                             f"(N = {n:,})", "R", "comparisons per key")
        for kind in KINDS:
            ax.plot(rs, [row[f"{LABELS[kind]}_cmp_per_key"] for row in rows], "o-",
                    label=LABELS[kind])
            if kind != "heap":
                ax.plot(rs, [row[f"{LABELS[kind]}_cmp_per_key"]
                             - row[f"{LABELS[kind]}_order_cmp_per_key"] for row in rows], ":",
                        color=ax.lines[-1].get_color(), label=f"{LABELS[kind]}, finding only")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.legend(title="cf. paper Fig. 8: QH < BH")
        lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
