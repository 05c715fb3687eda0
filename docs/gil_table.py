"""Render ``docs/results/gil-side-by-side/gil-side-by-side.inc``: the chapter "What the GIL hid"
as numbers, from the committed CSVs of ``crawlab lab gil-side-by-side``.

For each workload and frontier: the 2-thread over 1-thread ratio of medians on each interpreter,
the free-threaded rate over the GIL rate at one thread (scaling is not speed), the spread of the
runs, and the verdict on ``lockfree`` that the lab computes today
(:func:`labs.lab_gil_side_by_side.lockfree_verdict`: its ratio as a share of the ceiling,
``deque per thread``, of the same run; "cannot judge" when the CSV has no ceiling row). A
last column is a *model*, labelled so: Amdahl's law fitted to the measured 2-thread speed-up
without the GIL, extrapolated to 16 cores. Run by ``docs/regenerate_figures.py`` (render
step); a test renders it
again and compares.
"""

from __future__ import annotations

from pathlib import Path

from papers_table import read_csv  # docs/ is on the path wherever this module is imported

from labs.lab_frontier_bench import GOALS
from labs.lab_gil_side_by_side import lockfree_verdict

RESULTS = Path(__file__).resolve().parent / "results"
LAB = "gil-side-by-side"
GOAL_LOCKFREE = GOALS["lockfree"]  # the goal (not a paper's): no GIL, 2 threads / 1
CORES_MODEL = 16


def amdahl(speedup_2: float, cores: int) -> float | None:
    """Amdahl's law through one measured point: the serial share ``s`` that gives
    ``speedup_2`` on 2 cores, then the speed-up on ``cores``. ``None`` when 2 threads were not
    faster than one (no positive parallel share to extrapolate: contention, not Amdahl)."""
    if not speedup_2 > 1.0:
        return None
    s = 2.0 / speedup_2 - 1.0  # 1 / (s + (1 - s) / 2) = speedup_2
    return 1.0 / (s + (1.0 - s) / cores)


def render(results: Path = RESULTS) -> str:
    cells = read_csv(LAB, results=results)
    ratios = read_csv(LAB, "ratios", results=results)
    if cells is None or ratios is None:
        raise FileNotFoundError(f"no committed results of {LAB} under {results}")
    spread = {(r["workload"], r["interpreter"], r["frontier"], r["threads"]): r for r in cells}
    by = {(r["workload"], r["frontier"], r["interpreter"]): r for r in ratios}
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - workload", "     - frontier", "     - GIL: 2 threads / 1",
             "     - no GIL: 2 threads / 1", "     - no GIL / GIL, 1 thread",
             f"     - model: no GIL, {CORES_MODEL} cores / 1"]
    for (w, f, interp), r in sorted(by.items()):
        if interp != "free-threaded":
            continue
        gil = by.get((w, f, "gil"))
        ft2 = float(r["t2_over_t1"])
        model = amdahl(ft2, CORES_MODEL)
        one = spread[(w, "free-threaded", f, "1")]
        lines += [f"   * - {w}", f"     - ``{f}``",
                  f"     - {float(gil['t2_over_t1']):.2f}x" if gil else "     - --",
                  f"     - {ft2:.2f}x", f"     - {float(r['vs_gil_at_t1']):.2f}x "
                  f"({int(one['runs'])} runs)",
                  f"     - {model:.1f}x" if model else "     - no gain to extrapolate"]
    first = cells[0]
    said = lockfree_verdict([{**r, "t2_over_t1": float(r["t2_over_t1"])} for r in ratios])
    verdict = (f" The lab's verdict on ``lockfree`` (as it judges today: against the ceiling of "
               f"the same run, an issue's goal, not a paper's): {said}." if said else "")
    pythons = sorted({(r["interpreter"], r["python"]) for r in cells})
    lines += ["", f"*Source: measured* by ``crawlab lab {LAB} --quick`` on {first['date']} at "
              f"commit ``{first['commit']}``, {first['machine_cores']} cores, "
              + ", ".join(f"{i} {p}" for i, p in pythons)
              + f", 1-min load {first['machine_load_1min']} at the start; ratios of medians of "
              f"{first['runs']} runs per cell, rounds alternating between the interpreters."
              + verdict + f" The last column is a *model*: Amdahl's law through the measured "
              f"2-thread point, extrapolated to {CORES_MODEL} cores.", ""]
    return "\n".join(lines)


OUT = RESULTS / LAB / f"{LAB}.inc"
