"""Block I/O of QH, CBT and BH with RAM at 10% and 30% of the queue (the paper's Figure 9).

Each structure keeps its keys in 256-key blocks of a file behind a cache whose size is 10% or
30% of the queue; block reads + writes are counted per key moved during supersteps of
extract-top(R) + insert-many(R), as R grows. The cache follows each structure's policy in the
paper: LRU for the CBT (Section 3.1); for the QH, its pivots' blocks and the longest prefix of
the array from the head (Section 3.2) -- the QH under plain LRU is shown beside it. Blocks a
structure declares dead (a QH's cells behind its head, a CBT's freed chunk) are never written
back. The QH's cost is amortized -- a partition of nearly the whole queue comes every few
turnovers of the queue -- so QH and CBT first run ``N/R`` supersteps unmeasured (one turnover),
then ``2N/R`` measured; BH's cost is the same every superstep, so it runs 5.

The paper: BH "cannot compete"; CBT does about 20% more I/O than QH on average (QH/CBT ~ 0.8).
"""

from __future__ import annotations

import math
import tempfile

from labs.harness import Lab, script, series
from labs.pqbench import supersteps

BLOCK = 256
RAMS = (0.10, 0.30)
PAPER = "paper (Fig. 9; Section 4.2): BH far above both; CBT about 20% above QH on average"


def _io(kind, n, r, ram, tmp, seed, policy=None):
    blocks = max(2, int(ram * n / BLOCK))
    opts = {"disk": tmp, "cache_blocks": blocks, "block_size": BLOCK}
    if kind == "cbt":
        opts["chunk"] = r
    if policy:
        opts["cache_policy"] = policy
    if kind == "heap":
        return supersteps(kind, n, r, 5, seed=seed, **opts)
    turnover = max(1, n // r)
    return supersteps(kind, n, r, 2 * turnover, seed=seed, warmup=turnover, **opts)


def main(argv=None) -> int:
    lab = Lab("pq-blockio", __doc__, argv)
    n = 50_000 if lab.quick else 500_000
    rs = [1_000, 2_500, 5_000] if lab.quick else [1_000, 5_000, 10_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for ram in RAMS:
            for r in rs:
                cache = max(2, int(ram * n / BLOCK))
                row = {"RAM": f"{ram:.0%}", "N": n, "R": r, "cache_blocks": cache}
                qh = _io("quickheap", n, r, ram, tmp, lab.seed)
                lru = _io("quickheap", n, r, ram, tmp, lab.seed, policy="lru")
                cbt = _io("cbt", n, r, ram, tmp, lab.seed)
                bh = _io("heap", n, r, ram, tmp, lab.seed)
                row["BH_io_per_key"] = round(bh["io_per_key"], 4)
                row["QH_io_per_key"] = round(qh["io_per_key"], 4)
                row["QH_lru_io_per_key"] = round(lru["io_per_key"], 4)
                row["CBT_io_per_key"] = round(cbt["io_per_key"], 4)
                row["QH/CBT"] = round(qh["io_per_key"] / cbt["io_per_key"], 3)
                row["QH_lru/CBT"] = round(lru["io_per_key"] / cbt["io_per_key"], 3)
                # why: the CBT's cache holds its top levels whole; only the rest move blocks
                depth = math.floor(math.log2(n // r)) + 1
                cached = math.floor(math.log2(cache * BLOCK // r + 1))
                row["CBT_levels"] = depth
                row["CBT_levels_cached"] = min(cached, depth)
                row["QH_extract_share"] = round(qh["io_extract_share"], 2)
                row["CBT_extract_share"] = round(cbt["io_extract_share"], 2)
                rows.append(row)
                print(f"#   RAM={ram:.0%} R={r}: done")
    lab.write_csv(rows)
    lab.table(rows)
    print(f"# {PAPER}")
    def ratio(col, sel):
        return sum(row[col] for row in sel) / sum(row["CBT_io_per_key"] for row in sel)

    for ram in RAMS:
        mine = [row for row in rows if row["RAM"] == f"{ram:.0%}"]
        print(f"# RAM {ram:.0%}: QH/CBT over all R = {ratio('QH_io_per_key', mine):.2f} "
              f"(QH under LRU: {ratio('QH_lru_io_per_key', mine):.2f})")
    overall = ratio("QH_io_per_key", rows)
    print(f"# both RAM sizes together: QH/CBT = {overall:.2f}; target QH/CBT <= 0.8: "
          f"{'met' if overall <= 0.8 else 'NOT met'} on average; met in "
          f"{sum(row['QH/CBT'] <= 0.8 for row in rows)} of {len(rows)} rows")
    for row in rows:
        if row["QH/CBT"] > 0.8:
            print(f"# missed at RAM {row['RAM']}, R = {row['R']:,}: the cache holds "
                  f"{row['CBT_levels_cached']} of the CBT's {row['CBT_levels']} levels whole, so "
                  f"only the bottom {row['CBT_levels'] - row['CBT_levels_cached']} move blocks; "
                  f"the QH still partitions every key beyond its cached prefix")
    if not lab.args.no_plot:
        fig, axes = lab.figure(f"Block I/O per key (N = {n:,}, {BLOCK}-key blocks)", "R",
                               "block reads + writes per key", ncols=2)
        for ax, ram in zip(axes, RAMS):
            mine = [row for row in rows if row["RAM"] == f"{ram:.0%}"]
            for col, lbl, ls in (("BH_io_per_key", "BH", "-"), ("QH_io_per_key", "QH", "-"),
                                 ("QH_lru_io_per_key", "QH under LRU", ":"),
                                 ("CBT_io_per_key", "CBT", "-")):
                series(ax, mine, "R", col, style=lambda _, ls=ls: {"ls": ls},
                       label=lambda _, lbl=lbl: lbl)
            ax.set_title(f"RAM = {ram:.0%} of the queue")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("R")
            ax.legend(title="cf. paper Fig. 9", fontsize=7)
        lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(script(main))
