"""Measure whether exploring depends on how the operating system runs frontrun's threads, and
what each of :mod:`frontier.check.steady`'s two mends does about it:
``docs/results/explore/steady.csv`` (one row per search) and ``steady-table.inc`` (the table
and the sentences the chapter "You are the scheduler" includes).

Usage::

    python docs/explore_steady.py [--rounds N] [--pair FRONTIER:SCENARIO] [--jobs J]

Each search explores the pair (``semaphore:lost-wakeup``, a correct frontier, by default) over
the whole default bound with the mends on or off (``none``, ``flags``, ``switch``, ``both``)
and with every flag raised by a thread that has passed its turn on put off by 6 ms (``late``):
``-`` not at all, ``busy`` spinning with the GIL held (as a thread the operating system took
off the CPU), ``select`` waiting with it let go. Each search runs in a fresh process, ``jobs``
at a time, so the machine is busy with the searches themselves.
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
MENDS = ("none", "flags", "switch", "both")
LATES = ("-", "busy", "select")
LATE_SECONDS = 0.006  # past the default switch interval (0.005)


def _one(job: tuple[str, str, str, str]) -> dict:
    """One search of ``pair`` with ``mends`` and ``late`` (in a process of its own)."""
    pair, mends, late, _ = job
    sys.path.insert(0, str(ROOT))
    import select

    import frontrun._cooperative as cooperative
    from frontrun._virtual_clock import _real_monotonic

    from frontier.check import explore as explorer
    from frontier.check import steady

    if mends in ("none", "switch"):  # no flag is ever refused
        steady._Releases.unseen_release = lambda self, thread, resource: False
    if mends in ("none", "flags"):  # the interpreter's own switch interval
        steady.SWITCH_INTERVAL = sys.getswitchinterval()
    record = cooperative._record_spin_scheduler

    def put_off(resource_id, thread_id, scheduler):  # noqa: ANN001, ANN202
        if scheduler._current_thread != thread_id:
            if late == "select":
                select.select([], [], [], LATE_SECONDS)
            else:
                end = _real_monotonic() + LATE_SECONDS
                while _real_monotonic() < end:
                    pass
        return record(resource_id, thread_id, scheduler)

    if late != "-":
        cooperative._record_spin_scheduler = put_off
        explorer._UNTRACED = {*explorer._UNTRACED, str(Path(__file__).resolve())}
    t = time.perf_counter()
    out = explorer.explore(*pair.split(":"))
    return {"pair": pair, "mends": mends, "late": late, "verdict": out.status,
            "interleavings": out.interleavings, "broken": out.broken or "",
            "seconds": round(time.perf_counter() - t, 1)}


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from labs.harness import machine, write_rows

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--pair", default="semaphore:lost-wakeup")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    jobs = [(args.pair, m, late, str(r)) for r in range(1, args.rounds + 1)
            for m in MENDS for late in LATES]
    before = machine()
    with ProcessPoolExecutor(args.jobs, mp_context=get_context("spawn"),
                             max_tasks_per_child=1) as pool:
        rows = list(pool.map(_one, jobs))
    stamp = {f"machine_{k}": v for k, v in machine().items()}
    provenance = {"source": "measured", "date": datetime.date.today().isoformat(),
                  "commit": commit, "jobs": args.jobs, "load_before": before["load_1min"],
                  **stamp}
    rows = [{"round": j[3], **r, **provenance} for j, r in zip(jobs, rows)]
    OUT.mkdir(parents=True, exist_ok=True)
    write_rows(OUT / "steady.csv", rows)
    table_inc()
    return 0


def _cell(rows: list[dict]) -> str:
    """``held/runs, interleavings`` of one cell (a range where they differ)."""
    held = sum(r["verdict"] == "holds" for r in rows)
    counts = sorted({int(r["interleavings"]) for r in rows})
    span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"{held}/{len(rows)} held; {span}"


def table_inc() -> None:
    """``steady-table.inc`` from ``steady.csv``: a row per mend, a column per delay, and the
    sentences that say what the table shows."""
    with open(OUT / "steady.csv") as f:
        rows = list(csv.DictReader(f))
    cell = {(m, late): [r for r in rows if r["mends"] == m and r["late"] == late]
            for m in MENDS for late in LATES}
    names = {"-": "no delay", "busy": "late flag, GIL kept", "select": "late flag, GIL let go"}
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - mends"]
    lines += [f"     - {names[late]}" for late in LATES]
    for m in MENDS:
        lines.append(f"   * - {m}")
        lines += [f"     - {_cell(cell[m, late])}" for late in LATES]
    alone = sorted({int(r["interleavings"]) for r in rows if r["late"] == "-"})
    broken = [r for r in rows if r["verdict"] != "holds"]
    r0 = rows[0]
    text = (f"Left alone, every search of ``{r0['pair']}`` held over "
            + " or ".join(str(n) for n in alone) + " interleavings, whatever the mends. ")
    clauses = []
    for m in MENDS:
        moved = [(late, _cell(cell[m, late]).split("; ")[1]) for late in LATES[1:]
                 if {int(r["interleavings"]) for r in cell[m, late]} != set(alone)]
        clauses.append(f"mends {m}: " + ("; ".join(f"{names[late]}, {span}"
                                                   for late, span in moved)
                                         if moved else "no delay moved it"))
    text += "Where the put-off flags moved the number -- " + "; ".join(clauses) + ". "
    if broken:
        where = sorted({(r["mends"], names[r["late"]]) for r in broken})
        text += (f"{len(broken)} of the {len(rows)} searches reported a violation of this "
                 "correct frontier (\"" + broken[0]["broken"] + "\"), with "
                 + ", ".join(f"mends {m} and {late}" for m, late in where) + "."
                 )
    else:
        text += f"None of the {len(rows)} searches reported a violation."
    loads = sorted(float(r[k]) for r in rows for k in ("load_before", "machine_load_1min"))
    lines += ["", text, "",
              f"*Source: measured* by ``docs/explore_steady.py`` on {r0['date']} at commit "
              f"``{r0['commit']}``: {len(rows) // (len(MENDS) * len(LATES))} searches per cell, "
              f"{r0['jobs']} at a time, each in a fresh process; a late flag is put off by "
              f"{LATE_SECONDS * 1000:g} ms; {r0['machine_cores']} cores, "
              f"{r0['machine_implementation']} {r0['machine_python']}, 1-minute load "
              f"{loads[0]:g} to {loads[-1]:g}.", ""]
    (OUT / "steady-table.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
