"""Regenerate docs/results/explore/: the verdict of every explored scenario on every frontier,
the traces the chapter "You are the scheduler" shows, and a non-linearizable history's timeline.

Usage: ``python docs/explore_results.py [FRONTIER ...]``. With no FRONTIER: everything (several
minutes: the whole bounded space of every scenario), the traces and the linearizability runs.
With FRONTIERs: only their rows of ``explore.csv`` are explored again (each row keeps its own
stamp), and the linearizability run of any of them that the chapter shows. Interleaving counts
are deterministic for a given frontrun version; the seconds are one run each on the stamped
machine.
"""

from __future__ import annotations

import csv
import datetime
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results" / "explore"
TRACES = [("unsynchronized", "lost-update"), ("tanenbaum", "lost-wakeup")]


def main(argv: list[str] | None = None) -> int:
    import frontier
    from crawlers.cli import main as crawlab
    from frontier.check.explore import DEFAULT_BOUND, explore
    from frontier.check.scenarios import applicable
    from labs.harness import machine

    OUT.mkdir(parents=True, exist_ok=True)
    stamp = {f"machine_{k}": v for k, v in machine().items()}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=OUT).stdout.strip()
    only = list(sys.argv[1:] if argv is None else argv)
    unknown = [n for n in only if n not in frontier.names()]
    if unknown:
        print(f"explore_results.py: unknown frontier {unknown[0]!r}; valid: "
              f"{', '.join(frontier.names())}", file=sys.stderr)
        return 2
    kept = {}
    if only:
        with open(OUT / "explore.csv") as f:
            kept = {(r["frontier"], r["scenario"]): r for r in csv.DictReader(f)}
    rows = []
    for name in frontier.names():
        for scenario in applicable(name):
            if only and name not in only and (name, scenario) in kept:
                rows.append(kept[name, scenario])
                continue
            t = time.perf_counter()
            out = explore(name, scenario, DEFAULT_BOUND)
            rows.append({"frontier": name, "scenario": scenario, "bound": DEFAULT_BOUND,
                         "verdict": "holds" if out.holds else "violated",
                         "interleavings": out.interleavings,
                         "seconds": round(time.perf_counter() - t, 1),
                         "broken": out.broken or "", "source": "measured", "runs": 1,
                         "date": datetime.date.today().isoformat(), "commit": commit, **stamp})
            print(rows[-1]["frontier"], scenario, rows[-1]["verdict"], out.interleavings,
                  flush=True)
    with open(OUT / "explore.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for name, scenario in TRACES if not only else []:
        crawlab(["explore", name, "--scenario", scenario, "--out", str(OUT)])
        path = OUT / f"explore-{name}-{scenario}.json"
        import json

        (OUT / f"explore-{name}-{scenario}.txt").write_text(json.loads(path.read_text())["report"])
        path.write_text(path.read_text().replace(str(OUT) + "/", ""))
    from frontier.check import linearize as lin
    from frontier.check.timeline import draw

    for name in ("unsynchronized", "semaphore"):
        if only and name not in only:
            continue
        for seed in range(300):
            h = lin.record(name, seed=seed)
            r = lin.check(h, lin.spec_of(name))
            if not r.ok:
                draw(h, r, OUT / f"linearize-{name}.png",
                     title=f"{name}: recorded history (seed {seed}) is not linearizable")
                (OUT / f"linearize-{name}.txt").write_text(
                    f"{name}: history of seed {seed} (run {seed + 1} of at most 300) is not "
                    f"linearizable: {r.reason}\n")
                break
        else:
            (OUT / f"linearize-{name}.txt").write_text(f"{name}: 300 histories linearizable\n")
    table_inc()
    return 0



def table_inc() -> None:
    """``explore-table.inc``: the verdicts as an RST table, from ``explore.csv``."""
    with open(OUT / "explore.csv") as f:
        rows = list(csv.DictReader(f))
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - frontier", "     - scenario", "     - verdict", "     - interleavings",
             "     - what broke"]
    for r in rows:
        lines += [f"   * - ``{r['frontier']}``", f"     - {r['scenario']}",
                  f"     - {r['verdict']}", f"     - {r['interleavings']}",
                  f"     - {r['broken'] or '--'}"]
    first = rows[0]
    runs = sorted({(r["date"], r["commit"]) for r in rows})
    when = "; ".join(f"{date} at commit ``{commit}`` "
                     f"({sum((r['date'], r['commit']) == (date, commit) for r in rows)} rows)"
                     for date, commit in runs)
    lines += ["", f"*Source: measured* by ``docs/explore_results.py`` on {when} (preemption "
              f"bound {first['bound']}, the whole bounded space; one run each, the counts do "
              f"not vary between runs), {first['machine_cores']} cores, "
              f"{first['machine_implementation']} {first['machine_python']}.", ""]
    (OUT / "explore-table.inc").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main())
