"""Measure at which run PCT finds each known bug, against uniformly random scheduling:
``docs/results/explore/pct.csv`` and ``pct-table.inc`` (chapter "You are the scheduler").

Usage: ``python docs/explore_pct.py [--starts 5] [--runs 300]``. The known bugs are the broken
frontiers' violations (:data:`BROKEN`) and the wrong solutions of exercise 1 that the grader
catches by exploring (:data:`WRONG`, the mutations of the reference in
``tests/test_exercises.py``, each on the grader scenario meant for it). For each bug and each
scheduler (PCT at the depth :func:`frontier.check.pct.default_depth` gives the scenario, and at
depth 2 too where that differs; the uniform walk), ``--starts`` searches from seeds 0, 1000,
2000 ..., each up to ``--runs`` runs, record the run that first broke the invariant (or none);
the table gives the median over the starts and how many starts found the bug. Runs are
deterministic per seed, so the table is the same on every machine with the same code and
frontrun.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "explore"
BROKEN = [("unsynchronized", "lost-update"), ("unsynchronized", "counter"),
          ("unsynchronized", "lost-wakeup-full"), ("unsynchronized", "close"),
          ("tanenbaum", "lost-wakeup"), ("tanenbaum", "lost-wakeup-full"),
          ("frontier.check.teaching:IfMonitor", "lost-wakeup")]  # the play page's level 4
# exercise 1's wrong solutions that the grader catches by exploring: (mutation, its scenario)
WRONG = [("get-if", "get-if"), ("put-if", "capacity"), ("check-then-act-split", "capacity"),
         ("counter-outside-the-lock", "counters"), ("lost-wakeup-on-the-edge", "lost-wakeup"),
         ("swallows-and-returns-none", "get-if")]


def wrong_solutions(folder: Path) -> list[tuple[str, str, object]]:
    """(label, registered name, grader scenario) of each :data:`WRONG` solution, written into
    ``folder`` and loaded as a student's file is (each under a name of its own)."""
    from exercises.scenarios import SCENARIOS
    from frontier.check.scenarios import get
    from frontier.userclass import load_spec
    from tests.test_exercises import wrong_source

    out = []
    for which, scenario in WRONG:
        path = folder / f"wrong_{which.replace('-', '_')}.py"
        path.write_text(wrong_source(which).replace('name = "ex1-bounded-fifo"',
                                                    f'name = "ex1-wrong-{which}"', 1))
        name = load_spec(f"{path}:BoundedFifo")
        out.append((f"ex1 wrong: {which}", name, SCENARIOS.get(scenario) or get(scenario)))
    return out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from frontier.check import pct
    from frontier.check.scenarios import get
    from labs.harness import machine, write_rows

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--runs", type=int, default=300)
    args = p.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    stamp = {f"machine_{k}": v for k, v in machine().items()}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bugs = [(name, name, get(scenario)) for name, scenario in BROKEN]
        bugs += wrong_solutions(Path(tmp))
        for label, name, sc in bugs:
            k = pct.steps_of(name, sc)
            n = len(sc.thread_names)
            depths = sorted({pct.default_depth(sc, name), 2}, reverse=True)
            schedulers = [("pct", d) for d in depths] + [("random", None)]
            for strategy, depth in schedulers:
                for start in range(args.starts):
                    runs, _ = pct.search(name, sc, strategy=strategy, depth=depth or 2,
                                         runs=args.runs, seed=1000 * start, k=k)
                    if runs[-1].unfinished:  # neither found nor held: no honest cell
                        raise SystemExit(f"{label} {sc.name} {strategy} seed "
                                         f"{runs[-1].seed}: {runs[-1].unfinished}")
                    found = len(runs) if runs[-1].broken else ""
                    rows.append({"frontier": label, "scenario": sc.name, "strategy": strategy,
                                 "depth": depth or "", "threads": n, "k": k,
                                 "start_seed": 1000 * start, "max_runs": args.runs,
                                 "found_at_run": found,
                                 "lower_bound": pct.lower_bound(n, k, depth) if depth else "",
                                 "source": "measured",
                                 "date": datetime.date.today().isoformat(),
                                 "commit": commit, **stamp})
                    print(label, sc.name, strategy, depth, start, found, flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    write_rows(OUT / "pct.csv", rows)
    table_inc()
    return 0


def _hits(rows: list[dict]) -> list[int]:
    return [int(r["found_at_run"]) for r in rows if r["found_at_run"]]


def _who(pct_rows: list[dict], rnd: list[dict]) -> str:
    """Which scheduler found the bug sooner, in words (PCT at the bug's default depth)."""
    def score(rs: list[dict]) -> tuple[int, float]:
        hits = _hits(rs)
        return len(hits), -median(hits) if hits else 0.0

    pct_, rnd_ = score(pct_rows), score(rnd)
    if pct_[0] == rnd_[0] == 0:
        return "neither scheduler found it within the runs measured"
    if pct_ > rnd_:
        return "PCT found it sooner, or in more searches, than the uniform walk"
    if rnd_ > pct_:
        return "the uniform walk found it sooner, or in more searches, than PCT"
    return "both found it alike"


def _default_depth(default_depth, label: str, scenario: str) -> int:
    """The depth ``crawlab explore --pct`` seeks by default for the row's pair (a wrong
    solution's label is no frontier name: by its scenario alone)."""
    import frontier

    try:
        return default_depth(scenario, label)
    except frontier.UnknownFrontier:
        return default_depth(scenario)


def table_inc() -> None:
    """``pct-table.inc`` from ``pct.csv``: one row per bug and PCT depth, against random."""
    with open(OUT / "pct.csv") as f:
        rows = list(csv.DictReader(f))
    from frontier.check.pct import default_depth, runs_for

    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - frontier, scenario", "     - n, k", "     - PCT depth: bound per run "
             "(runs for 95 %)", "     - PCT: found at run (median)",
             "     - random: found at run (median)"]
    pairs = list(dict.fromkeys((r["frontier"], r["scenario"]) for r in rows))

    def cell(rs: list[dict]) -> str:
        hits = _hits(rs)
        if not hits:
            return f"not found ({len(rs)} x {rs[0]['max_runs']} runs)"
        med = f"{median(hits):g}" if len(hits) == len(rs) else "--"
        return f"{med} ({len(hits)} of {len(rs)} starts found it)"

    words = []
    for pair in pairs:
        mine = [r for r in rows if (r["frontier"], r["scenario"]) == pair]
        rnd = [r for r in mine if r["strategy"] == "random"]
        depths = list(dict.fromkeys(r["depth"] for r in mine if r["strategy"] == "pct"))
        shown = f"``{pair[0]}``" if " " not in pair[0] else pair[0]
        for d in depths:
            p_ = [r for r in mine if r["strategy"] == "pct" and r["depth"] == d]
            bound = float(p_[0]["lower_bound"])
            lines += [f"   * - {shown}, {pair[1]}", f"     - {p_[0]['threads']}, {p_[0]['k']}",
                      f"     - {d}: {bound:.2g} ({runs_for(bound)} runs)", f"     - {cell(p_)}",
                      f"     - {cell(rnd)}"]
        best = [r for r in mine if r["strategy"] == "pct"
                and r["depth"] == str(_default_depth(default_depth, *pair))]
        words.append(f"* {shown}, {pair[1]}: " + _who(best, rnd) + ";")
    lines += ["", *words]
    lines[-1] = lines[-1][:-1] + "."
    r0 = rows[0]
    starts = len({r["start_seed"] for r in rows})
    lines += ["", f"*Source: measured* by ``docs/explore_pct.py`` on {r0['date']} at commit "
              f"``{r0['commit']}``: {starts} searches per scheduler and depth "
              f"(seeds 0, 1000, ...), each up to {r0['max_runs']} runs; PCT at the depth "
              f"``crawlab explore --pct`` seeks by default (``frontier.check.pct.DEPTHS``: 3 for "
              f"``close`` and for the if-monitor's ``lost-wakeup``, else 2), and at "
              f"depth 2 too where that differs; the runs depend on the "
              f"seeds only, not on the machine ({r0['machine_implementation']} "
              f"{r0['machine_python']}). A median is given when every search found the bug.",
              ""]
    (OUT / "pct-table.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
