"""Regenerate docs/results/explore/: the verdict of every explored scenario on every frontier,
the traces and outcome tables the chapter "You are the scheduler" shows, and a
non-linearizable history's timeline.

Usage: ``python docs/explore_results.py [FRONTIER ...]``, ``--explore``, ``--traces``,
``--table`` or ``--linearize``.

* no argument: everything (several minutes: the whole bounded space of every scenario), the
  traces, the outcome tables and the linearizability runs;
* FRONTIERs: only their rows of ``explore.csv`` are explored again (each row keeps its own
  stamp), and the linearizability runs if ``unsynchronized`` is one of them;
* ``--explore``: every row of ``explore.csv``, the traces and outcome tables, no
  linearizability runs; ``--traces``: the traces and outcome tables alone; ``--table``:
  ``explore-table.inc`` rendered again from ``explore.csv``, nothing searched;
* ``--linearize``: only the linearizability runs (``linearize.csv``, its table, and the
  timeline of ``unsynchronized``'s first bad history).

Interleaving counts are one run each, stamped with the machine's load: the explorer keeps
every object frontrun has named alive until the interleaving ends (a freed object's address
cannot pass its name on), and ``frontier.check.steady`` keeps frontrun's bookkeeping in
program order, yet a count can still move a little from run to run
(``docs/explore_steady.py`` measures how far); the seconds are one run each on the stamped
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
OUTCOMES = [("unsynchronized", "lost-update"), ("tanenbaum", "lost-wakeup"),
            ("monitor", "lost-wakeup"), ("coarse", "counter"), ("coarse-count-outside", "counter")]


def _count_outside():
    """``coarse`` with one line moved: the count of puts is updated after the lock is let go
    (for the book's outcome table only; registered while this script runs)."""
    import frontier
    from frontier.coarse import CoarseFrontier

    class CountOutside(CoarseFrontier):
        name = "coarse-count-outside"
        description = "coarse, counting its puts outside the lock (book example only)"
        correct = False

        def put(self, url: str, priority: float = 0.0, timeout: float | None = None) -> None:
            self._lock()
            try:
                self._storage.push(url, priority)
                self._size += 1
                self._added(1)
            finally:
                self._mutex.release()
            self._stats.puts += 1  # outside the lock: two puts can count one

    if CountOutside.name not in frontier.names():
        frontier.register(CountOutside)
    return CountOutside


def outcomes_txt(name: str, scenario: str) -> None:
    """``outcomes-NAME-SCENARIO.txt``: what ``crawlab explore NAME --scenario SCENARIO
    --outcomes`` prints."""
    import contextlib
    import io

    from crawlers.cli import main as crawlab

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        crawlab(["explore", name, "--scenario", scenario, "--outcomes"])
    (OUT / f"outcomes-{name}-{scenario}.txt").write_text(buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    import frontier
    from frontier.check.explore import DEFAULT_BOUND, explore
    from frontier.check.scenarios import applicable
    from labs.harness import machine, write_rows

    OUT.mkdir(parents=True, exist_ok=True)
    stamp = {f"machine_{k}": v for k, v in machine().items()}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=OUT).stdout.strip()
    only = list(sys.argv[1:] if argv is None else argv)
    if only == ["--linearize"]:
        linearize_runs(stamp, commit)
        return 0
    if only == ["--traces"]:  # the traces and outcome tables alone (seconds, not minutes)
        traces()
        return 0
    if only == ["--table"]:  # explore-table.inc again from explore.csv (no search)
        table_inc()
        return 0
    everything = only == ["--explore"]
    if everything:
        only = []
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
                         "verdict": out.status,
                         "interleavings": out.interleavings,
                         "seconds": round(time.perf_counter() - t, 1),
                         "broken": out.broken or "", "source": "measured", "runs": 1,
                         "date": datetime.date.today().isoformat(), "commit": commit, **stamp})
            print(rows[-1]["frontier"], scenario, rows[-1]["verdict"], out.interleavings,
                  flush=True)
    write_rows(OUT / "explore.csv", rows)
    if not only:
        traces()
    if not everything and (not only or "unsynchronized" in only):
        linearize_runs(stamp, commit)
    table_inc()
    return 0


def traces() -> None:
    """The violations the chapter shows (focused, as ``crawlab explore`` prints them) and the
    outcome tables."""
    import json

    from crawlers.cli import main as crawlab

    for name, scenario in TRACES:
        crawlab(["explore", name, "--scenario", scenario, "--out", str(OUT)])
        path = OUT / f"explore-{name}-{scenario}.json"
        (OUT / f"explore-{name}-{scenario}.txt").write_text(json.loads(path.read_text())["report"])
        path.write_text(path.read_text().replace(str(OUT) + "/", ""))
    from frontier.contract import _REGISTRY

    cls = _count_outside()
    try:
        for name, scenario in OUTCOMES:
            outcomes_txt(name, scenario)
    finally:
        _REGISTRY.pop(cls.name, None)


LINEARIZE_RUNS = 100


def linearize_runs(stamp: dict, commit: str) -> None:
    """``crawlab linearize``'s engine on every frontier, ``LINEARIZE_RUNS`` histories each
    (defaults: threads, operations, noise): ``linearize.csv``, ``linearize-table.inc``, and
    the first non-linearizable history of ``unsynchronized`` (``.png`` and ``.txt``)."""
    import frontier
    from frontier.check import linearize as lin
    from frontier.check.timeline import draw
    from labs.harness import write_rows

    rows = []
    date = datetime.date.today().isoformat()
    for name in frontier.names():
        spec = lin.spec_of(name)
        bad = undecided = 0
        first = None
        t = time.perf_counter()
        for seed in range(LINEARIZE_RUNS):
            h = lin.record(name, seed=seed)
            r = lin.check(h, spec)
            undecided += r.undecided
            if not r.ok and not r.undecided:
                bad += 1
                if first is None:
                    first = seed
                    if name == "unsynchronized":
                        draw(h, r, OUT / f"linearize-{name}.png",
                             title=f"{name}: recorded history (seed {seed}) is not linearizable")
                        (OUT / f"linearize-{name}.txt").write_text(
                            f"{name}: history of seed {seed} (run {seed + 1} of "
                            f"{LINEARIZE_RUNS}) is not linearizable: {r.reason}\n")
        rows.append({"frontier": name, "specification": spec, "threads": lin.DEFAULT_THREADS,
                     "ops": lin.DEFAULT_OPS, "noise": lin.DEFAULT_NOISE, "runs": LINEARIZE_RUNS,
                     "not_linearizable": bad, "undecided": undecided,
                     "first_bad_run": "" if first is None else first + 1,
                     "seconds": round(time.perf_counter() - t, 1), "source": "measured",
                     "date": date, "commit": commit, **stamp})
        print(name, bad, undecided, flush=True)
    write_rows(OUT / "linearize.csv", rows)
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - frontier", "     - specification", "     - not linearizable",
             "     - undecided", "     - first bad history"]
    for r in rows:
        lines += [f"   * - ``{r['frontier']}``", f"     - {r['specification']}",
                  f"     - {r['not_linearizable']} of {r['runs']}", f"     - {r['undecided']}",
                  f"     - {r['first_bad_run'] or '--'}"]
    first = rows[0]
    lines += ["", f"*Source: measured* by ``docs/explore_results.py --linearize`` on "
              f"{first['date']} at commit ``{first['commit']}``: {first['runs']} histories per "
              f"frontier, {first['threads']} threads x {first['ops']} operations, noise "
              f"{first['noise']}, {first['machine_cores']} cores, "
              f"{first['machine_implementation']} {first['machine_python']} (GIL "
              f"{'on' if first['machine_gil'] else 'off'}, load {first['machine_load_1min']}).",
              ""]
    (OUT / "linearize-table.inc").write_text("\n".join(lines))


def _span(values) -> str:
    """``3.08`` or ``2.41 to 3.08`` (as the chapter's other tables say a load): the range of
    the stamped loads (an empty stamp is left out)."""
    loads = sorted({float(v) for v in values if v})
    if not loads:
        return "not stamped"
    return f"{loads[0]:g}" if len(loads) == 1 else f"{loads[0]:g} to {loads[-1]:g}"


def table_inc() -> None:
    """Write ``explore-table.inc`` (see :func:`table_text`)."""
    (OUT / "explore-table.inc").write_text(table_text())


def table_text() -> str:
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
              f"bound {first['bound']}, the whole bounded space; one run each, "
              f"1-minute load {_span(r['machine_load_1min'] for r in rows)} as it began; how "
              f"far a count moves from run to run is measured in the steady-scheduling table "
              f"below), "
              f"{first['machine_cores']} cores, "
              f"{first['machine_implementation']} {first['machine_python']}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    raise SystemExit(main())
