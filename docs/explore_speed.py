"""Measure how long exploring every frontier's every scenario over the whole default bound takes:
``docs/results/explore/speed.csv`` (one row per run of the whole set) and ``speed-pairs.csv``
(one row per frontier and scenario), and the table the chapter "You are the scheduler" includes.

Usage::

    python docs/explore_speed.py [--jobs 1,2] [--base DIR] [--rounds N]

Each run explores the whole set (the pairs of ``tests/test_frontier_explored.py``) in ``jobs``
worker processes, longest scenarios first. ``--base DIR`` also times the explorer of another
source tree (e.g. ``git archive COMMIT | tar -x -C DIR``), run in turn with this one, round
after round, so that both see the same load on a shared machine: compare the ratios, not the
seconds. The machine stamp and the load average before and after each run are recorded, and
the CPU seconds the workers spent (summed over the pairs), which a busy machine changes less
than the wall time.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "explore"
HEAVY = ("lost-wakeup", "lost-wakeup-full", "close")  # the three-thread scenarios, run first


def _init(tree: str) -> None:
    sys.path.insert(0, tree)


def _pairs() -> list[tuple[str, str]]:
    import frontier
    from frontier.check.scenarios import applicable

    return [(n, s) for n in frontier.names() for s in applicable(n)]


def measured_costs() -> dict[tuple[str, str], float]:
    """Each pair's largest CPU seconds in the last ``speed-pairs.csv`` (empty if none)."""
    cost: dict[tuple[str, str], float] = {}
    if (OUT / "speed-pairs.csv").exists():
        with open(OUT / "speed-pairs.csv") as f:
            for row in csv.DictReader(f):
                key = (row["frontier"], row["scenario"])
                cost[key] = max(cost.get(key, 0.0), float(row["cpu_seconds"]))
    return cost


def longest_first(pairs: list[tuple[str, str]], cost: dict) -> list[tuple[str, str]]:
    """Longest processing time first (as tests/test_frontier_explored.py orders its jobs):
    by the measured cost, a pair never measured by its scenario (three threads: 10 s)."""
    return sorted(pairs, key=lambda p: cost.get(p, 10.0 if p[1] in HEAVY else 0.1),
                  reverse=True)


def _one(pair: tuple[str, str]) -> dict:
    import frontier.check.explore as ex

    t, c = time.perf_counter(), time.process_time()
    out = ex.explore(*pair)
    status = getattr(out, "status", "holds" if out.holds else "violated")
    return {"frontier": pair[0], "scenario": pair[1], "verdict": status,
            "interleavings": out.interleavings, "seconds": round(time.perf_counter() - t, 2),
            "cpu_seconds": round(time.process_time() - c, 2), "source_file": ex.__file__}


def run_set(tree: Path, jobs: int, cost: dict) -> tuple[list[dict], float]:
    """Explore every pair with the explorer of ``tree`` in ``jobs`` processes, longest
    first by ``cost``."""
    ctx = get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init,
                             initargs=(str(tree),)) as pool:
        pairs = longest_first(pool.submit(_pairs).result(), cost)
        t = time.perf_counter()
        rows = list(pool.map(_one, pairs))
        wall = time.perf_counter() - t
    for r in rows:
        if not r.pop("source_file").startswith(str(tree)):
            raise RuntimeError(f"the workers did not import the explorer from {tree}")
    return rows, wall


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from labs.harness import machine, write_rows

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", default="1,2", help="comma-separated process counts (default 1,2)")
    p.add_argument("--base", type=Path, help="another source tree to time alongside")
    p.add_argument("--base-label", default="base", help="its name in the table")
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args(argv)
    jobs = [int(j) for j in args.jobs.split(",")]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    variants = [("this commit", ROOT, j) for j in jobs]
    if args.base is not None:
        variants.insert(0, (args.base_label, args.base.resolve(), 1))
    OUT.mkdir(parents=True, exist_ok=True)
    runs, pairs = [], []
    cost = measured_costs()
    for rnd in range(1, args.rounds + 1):
        for label, tree, j in variants:
            before = machine()
            rows, wall = run_set(tree, j, cost)
            stamp = {f"machine_{k}": v for k, v in machine().items()}
            runs.append({"variant": label, "jobs": j, "round": rnd, "pairs": len(rows),
                         "interleavings": sum(r["interleavings"] for r in rows),
                         "wall_seconds": round(wall, 1),
                         "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 1),
                         "not_holding": sum(r["verdict"] != "holds" for r in rows),
                         "load_before": before["load_1min"], "source": "measured",
                         "date": datetime.date.today().isoformat(), "commit": commit, **stamp})
            provenance = {k: v for k, v in runs[-1].items()
                          if k in ("source", "date", "commit") or k.startswith("machine_")}
            pairs += [{"variant": label, "jobs": j, "round": rnd, **r, **provenance}
                      for r in rows]
            print(f"{label} jobs={j} round {rnd}: {wall:.1f} s, "
                  f"{runs[-1]['interleavings']} interleavings", flush=True)
    for name, rows in (("speed.csv", runs), ("speed-pairs.csv", pairs)):
        write_rows(OUT / name, rows)
    table_inc()
    return 0


def lpt_makespan(seconds: list[float], workers: int = 2) -> float:
    """The busiest worker's total when ``seconds`` are dealt out longest first, each to the
    least loaded worker (how a process pool fed in that order shares them): a model of the
    wall clock of ``workers`` processes on as many idle cores."""
    load = [0.0] * workers
    for s in sorted(seconds, reverse=True):
        load[load.index(min(load))] += s
    return max(load)


def table_inc() -> None:
    """``speed-table.inc``: one row per variant (medians over rounds), from ``speed.csv``, and
    the sentences about it, from ``speed.csv`` and ``speed-pairs.csv``."""
    from statistics import median

    with open(OUT / "speed.csv") as f:
        runs = list(csv.DictReader(f))
    with open(OUT / "speed-pairs.csv") as f:
        pair_rows = list(csv.DictReader(f))
    keys = list(dict.fromkeys((r["variant"], r["jobs"]) for r in runs))
    first = [r for r in runs if (r["variant"], r["jobs"]) == keys[0]]
    ref = median(float(r["wall_seconds"]) for r in first)
    ref_cpu = median(float(r["cpu_seconds"]) for r in first)
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - explorer", "     - processes", "     - pairs, interleavings",
             "     - CPU seconds (relative)", "     - wall seconds (relative)"]
    for key in keys:
        rs = [r for r in runs if (r["variant"], r["jobs"]) == key]
        wall = median(float(r["wall_seconds"]) for r in rs)
        cpu = median(float(r["cpu_seconds"]) for r in rs)
        lines += [f"   * - {key[0]}", f"     - {key[1]}",
                  f"     - {rs[0]['pairs']}, {rs[0]['interleavings']}",
                  f"     - {cpu:.0f} ({cpu / ref_cpu:.2f})",
                  f"     - {wall:.0f} ({wall / ref:.2f})"]
    r0 = runs[0]
    loads = sorted(float(r[k]) for r in runs for k in ("load_before", "machine_load_1min"))
    mine = [r for r in runs if r["variant"] == "this commit"]
    cpu = median(float(r["cpu_seconds"]) for r in mine)
    two = [r for r in mine if r["jobs"] == "2"]
    # the pairs' CPU seconds on this commit: each pair's median over its runs
    per: dict[tuple[str, str], list[float]] = {}
    for r in pair_rows:
        if r["variant"] == "this commit":
            per.setdefault((r["frontier"], r["scenario"]), []).append(float(r["cpu_seconds"]))
    seconds = [median(v) for v in per.values()]
    lpt = lpt_makespan(seconds)
    goal = 60
    text = (f"Summed over its pairs, the whole set cost {cpu:.0f} CPU seconds on this commit"
            + (f", {cpu / ref_cpu:.2f} times the first row's {ref_cpu:.0f} (measured in turn, "
               "under the same load)" if len(keys) > 1 and keys[0][0] != "this commit" else "")
            + ". Dealt out longest first to two processes, as the test suite does, "
            f"the busier one gets {lpt:.0f} CPU seconds (a model from the pairs' measured CPU "
            f"seconds; the longest pair alone takes {max(seconds):.0f}): "
            + ("within" if lpt <= goal else "over")
            + f" the goal of {goal} s of wall clock on {r0['machine_cores']} idle cores.")
    # the load before the first run of the set: a later run's "before" still holds the load of
    # the run just ended (a 1-minute average), its own work, not others'
    before = float(runs[0]["load_before"])
    idle_before = before < 1.0  # the runs' own processes make the load during them about 2
    if two:
        wall2 = median(float(r["wall_seconds"]) for r in two)
        text += (f" Measured with two processes, the wall clock was {wall2:.0f} s, "
                 + ("within" if wall2 <= goal else "over") + " the goal")
        if idle_before:
            text += (f", on a machine otherwise idle (1-minute load {before:g} before the first "
                     "run; the load during the runs is their own worker processes).")
        else:
            text += (f", with a 1-minute load of {before:g} on its {r0['machine_cores']} cores "
                     "before the first run (an average over the minute before, which holds "
                     "whatever ran then): this row is not an idle machine's wall clock.")
    lines += ["", text, "",
              f"*Source: measured* by ``docs/explore_speed.py`` on {r0['date']} at commit "
              f"``{r0['commit']}``: every frontier-scenario pair of each tree, whole bound "
              f"(preemption bound 1), {len(runs) // len(keys)} round(s), the variants run in "
              f"turn; {r0['machine_cores']} cores, {r0['machine_implementation']} "
              f"{r0['machine_python']}, 1-minute load {loads[0]:g} to {loads[-1]:g}"
              + (" (during the runs, their own worker processes and threads)." if idle_before
                 else " (the machine was not idle before the runs: read the ratios, not the "
                 "seconds).")
              + " The 1-minute load before each run is in ``speed.csv``.", ""]
    (OUT / "speed-table.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
