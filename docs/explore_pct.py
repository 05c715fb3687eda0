"""Measure at which run PCT finds each known bug, against uniformly random scheduling:
``docs/results/explore/pct.csv`` and ``pct-table.inc`` (chapter "You are the scheduler").

Usage: ``python docs/explore_pct.py [--starts 5] [--runs 200] [--depth 2]``. For each broken
frontier and scenario, and each scheduler, ``--starts`` searches from seeds 0, 1000, 2000 ...,
each up to ``--runs`` runs, record the run that first broke the invariant (or none); the table
gives the median over the starts and how many starts found the bug. Runs are deterministic per
seed, so the table is the same on every machine with the same code and frontrun.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import subprocess
import sys
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "explore"
BROKEN = [("unsynchronized", "lost-update"), ("unsynchronized", "lost-wakeup-full"),
          ("unsynchronized", "close"), ("tanenbaum", "lost-wakeup"),
          ("tanenbaum", "lost-wakeup-full")]


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from frontier.check import pct
    from frontier.check.scenarios import get
    from labs.harness import machine

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--depth", type=int, default=2)
    args = p.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    stamp = {f"machine_{k}": v for k, v in machine().items()}
    rows = []
    for name, scenario in BROKEN:
        k = pct.steps_of(name, scenario)
        n = len(get(scenario).thread_names)
        for strategy in ("pct", "random"):
            for start in range(args.starts):
                runs, _ = pct.search(name, scenario, strategy=strategy, depth=args.depth,
                                     runs=args.runs, seed=1000 * start, k=k)
                found = len(runs) if runs[-1].broken else ""
                rows.append({"frontier": name, "scenario": scenario, "strategy": strategy,
                             "depth": args.depth if strategy == "pct" else "",
                             "threads": n, "k": k, "start_seed": 1000 * start,
                             "max_runs": args.runs, "found_at_run": found,
                             "lower_bound": pct.lower_bound(n, k, args.depth)
                             if strategy == "pct" else "",
                             "source": "measured", "date": datetime.date.today().isoformat(),
                             "commit": commit, **stamp})
                print(name, scenario, strategy, start, found, flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "pct.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    table_inc()
    return 0


def _who(rows: list[dict]) -> str:
    """Which scheduler found the bug sooner, in words, from the rows of one bug."""
    def score(strategy: str) -> tuple[int, float]:
        hits = [int(r["found_at_run"]) for r in rows
                if r["strategy"] == strategy and r["found_at_run"]]
        return len(hits), -median(hits) if hits else 0.0

    pct_, rnd = score("pct"), score("random")
    if pct_[0] == rnd[0] == 0:
        return "neither scheduler found it within the runs measured"
    if pct_ > rnd:
        return "PCT found it sooner, or in more searches, than the uniform walk"
    if rnd > pct_:
        return "the uniform walk found it sooner, or in more searches, than PCT"
    return "both found it alike"


def table_inc() -> None:
    """``pct-table.inc`` from ``pct.csv``: one row per bug, PCT against random."""
    with open(OUT / "pct.csv") as f:
        rows = list(csv.DictReader(f))
    from frontier.check.pct import runs_for

    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - frontier, scenario", "     - n, k", "     - PCT bound per run (95 %)",
             "     - PCT: found at run (median)", "     - random: found at run (median)"]
    pairs = list(dict.fromkeys((r["frontier"], r["scenario"]) for r in rows))

    def cell(rs: list[dict]) -> str:
        hits = [int(r["found_at_run"]) for r in rs if r["found_at_run"]]
        if not hits:
            return f"not found ({len(rs)} x {rs[0]['max_runs']} runs)"
        med = f"{median(hits):g}" if len(hits) == len(rs) else "--"
        return f"{med} ({len(hits)} of {len(rs)} starts found it)"

    for pair in pairs:
        mine = [r for r in rows if (r["frontier"], r["scenario"]) == pair]
        p_ = [r for r in mine if r["strategy"] == "pct"]
        rnd = [r for r in mine if r["strategy"] == "random"]
        bound = float(p_[0]["lower_bound"])
        lines += [f"   * - ``{pair[0]}``, {pair[1]}", f"     - {p_[0]['threads']}, {p_[0]['k']}",
                  f"     - {bound:.2g} ({runs_for(bound)} runs)", f"     - {cell(p_)}",
                  f"     - {cell(rnd)}"]
    lines += [""]
    for pair in pairs:
        lines.append(f"* ``{pair[0]}``, {pair[1]}: " + _who(
            [r for r in rows if (r["frontier"], r["scenario"]) == pair]) + ";")
    lines[-1] = lines[-1][:-1] + "."
    r0 = rows[0]
    starts = len({r["start_seed"] for r in rows})
    lines += ["", f"*Source: measured* by ``docs/explore_pct.py`` on {r0['date']} at commit "
              f"``{r0['commit']}``: depth {r0['depth']}, {starts} searches per scheduler "
              f"(seeds 0, 1000, ...), each up to {r0['max_runs']} runs; the runs depend on the "
              f"seeds only, not on the machine ({r0['machine_implementation']} "
              f"{r0['machine_python']}). A median is given when every search found the bug.",
              ""]
    (OUT / "pct-table.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
