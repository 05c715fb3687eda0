"""Slice efficiency and speed-up for T = 1, 2, 4, 8 (the paper's Table 1 and Figure 10).

(1) Load balance: T slices of CBT and of QH, supersteps of extract-top(R) + insert-many(R) with
R/T per slice; efficiency = average work of a slice / maximum, work = key comparisons
(counting twins), summed over supersteps. (2) Speed-up of the supersteps with one *process*
per slice, and with one *thread* per slice (the GIL control). (3) Beyond the paper: the
two-choice relaxation (MultiQueue) against the paper's even split, rank error measured against
an exact queue.
"""

from __future__ import annotations

import numpy as np

from frontier.slices import Slices, SliceWork, make_storage, rank_errors, run_supersteps
from labs.harness import Lab
from labs.pqbench import pairs

PAPER_TABLE1 = {1: (1.00, 1.00), 2: (0.99, 0.98), 4: (0.98, 0.97), 8: (0.95, 0.93)}
TS = [1, 2, 4, 8]


def _balance(kind, T, n, r, steps, seed, policy="even"):
    rng = np.random.default_rng(seed)
    opts = {"count_comparisons": True}
    s = Slices(lambda i: make_storage(kind, seed=seed + i, **opts,
                                      **({"chunk": r // T} if kind == "cbt" else {})), T,
               seed=seed, policy=policy)
    s.push_many(pairs(rng, n, "init-"))
    present = {}
    errs = []
    s.pop_top(r)
    s.push_many(pairs(rng, r, "warm-"))
    s.insert = type(s.insert)()
    s.extract = type(s.extract)()
    for k in range(steps):
        before = np.concatenate([np.asarray(-sl.keys().real) for sl in s.slices] +
                                [-b[0][b[2]:].real for b in s._buf])
        keys, _ = s.pop_top(r)
        errs.append(rank_errors(-keys.real, before))
        s.push_many(pairs(rng, r, f"s{k}-"))
    del present
    e = np.concatenate(errs)
    return (SliceWork.efficiency(s.extract.comparisons),
            SliceWork.efficiency(s.insert.comparisons), float(e.mean()), int(e.max()))


def main(argv=None) -> int:
    lab = Lab("pq-slices", __doc__, argv)
    n = 200_000 if lab.quick else 2_000_000
    r = 8_000
    steps = 8 if lab.quick else 30
    rows = []
    for T in TS:
        row = {"T": T, "R/T": r // T}
        for kind, lbl in (("cbt", "CBT"), ("quickheap", "QH")):
            ex, ins, _, _ = _balance(kind, T, n, r, steps, lab.seed)
            row[f"{lbl}_extract"] = round(ex, 3)
            row[f"{lbl}_insert"] = round(ins, 3)
        row["paper_CBT_extract"], row["paper_CBT_insert"] = PAPER_TABLE1[T]
        rows.append(row)
        print(f"#   balance T={T}: done")
    lab.write_csv(rows, "efficiency")
    print(f"# (1) load-balance efficiency (comparisons), N = {n:,}, R = {r:,}")
    lab.table(rows)
    ok = rows[-1]["CBT_extract"] >= 0.95 and rows[-1]["CBT_insert"] >= 0.95
    print(f"# target CBT efficiency >= 0.95 at T = 8: {'met' if ok else 'NOT met'}")

    speed = []
    sn = 400_000 if lab.quick else 2_000_000
    ssteps = 15 if lab.quick else 40
    base = {}
    for mode in ("process", "thread"):
        for T in TS:
            res = run_supersteps("cbt", T, sn, r, ssteps, mode=mode,
                                 options={"chunk": r // T}, seed=lab.seed)
            base.setdefault(mode, res["seconds"])
            speed.append({"mode": mode, "T": T, "seconds": round(res["seconds"], 3),
                          "speedup": round(base[mode] / res["seconds"], 2),
                          "time_efficiency_extract": round(SliceWork.efficiency(res["extract"]), 3),
                          "time_efficiency_insert": round(SliceWork.efficiency(res["insert"]), 3)})
            print(f"#   speed-up {mode} T={T}: done")
    lab.write_csv(speed, "speedup")
    print(f"# (2) speed-up of CBT supersteps, N = {sn:,}, R = {r:,} "
          f"(paper Fig. 10: near-linear to T = 8 on 8 CPUs; here {lab.machine['cores']} cores)")
    lab.table(speed)

    relax = []
    for policy in ("even", "two-choice"):
        for T in (2, 8):
            ex, ins, mean_err, max_err = _balance("quickheap", T, n // 4, 2_000, steps, lab.seed,
                                                  policy)
            relax.append({"policy": policy, "T": T, "extract_eff": round(ex, 3),
                          "mean_rank_error": round(mean_err, 1), "max_rank_error": max_err})
    lab.write_csv(relax, "relaxed")
    print("# (3) QH slices: even split (paper) vs two-choice (MultiQueue), R = 2,000")
    lab.table(relax)
    if not lab.args.no_plot:
        fig, (a1, a2) = lab.figure("Slices: load balance and speed-up", "T", "efficiency",
                                   ncols=2)
        for col, lbl in (("CBT_extract", "CBT extract"), ("CBT_insert", "CBT insert"),
                         ("QH_extract", "QH extract"), ("QH_insert", "QH insert"),
                         ("paper_CBT_extract", "paper CBT extract"),
                         ("paper_CBT_insert", "paper CBT insert")):
            a1.plot(TS, [row[col] for row in rows], "o--" if "paper" in col else "o-", label=lbl)
        a1.set_title("Table 1: mean / max work per slice")
        a1.legend(fontsize=7)
        for mode in ("process", "thread"):
            a2.plot(TS, [s["speedup"] for s in speed if s["mode"] == mode], "o-", label=mode)
        a2.plot(TS, TS, ":", color="0.5", label="linear (paper Fig. 10)")
        a2.set_ylabel("speed-up T(1)/T(T)")
        a2.set_title("Figure 10: CBT supersteps")
        a2.legend(fontsize=7)
        lab.save(fig)
    return lab.done()


if __name__ == "__main__":
    raise SystemExit(main())
