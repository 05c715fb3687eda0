"""Precompute the levels of the page "Play the scheduler" from the explorer:
``docs/results/play/levels.html`` (a ``<script>`` defining ``PLAY_LEVELS``, included in the
page, so that the page works offline and opened from a file).

Usage: ``python docs/play_levels.py``. For each level (a frontier and a scenario), every
interleaving of the whole space within the default preemption bound
(:func:`frontier.check.explore.every_schedule`) is replayed with the explorer's recorder; its
focused steps (:func:`frontier.check.trace.focus`: the steps on shared state or synchronizing,
the rest folded) become the moves of the game, each with the values the shared attributes it
touched held right after it, and the interleaving's end says whether the invariant broke. The
page lets the student pick which thread makes the next step among the interleavings that agree
with the steps so far, and exports the chosen interleaving's schedule as a trace file that
``crawlab explore FRONTIER --replay FILE`` runs.

Level 4 uses a monitor whose ``get`` checks "empty" with an ``if`` instead of a ``while``
(:class:`frontier.check.teaching.IfMonitor`), which ``crawlab`` loads by its spec
``frontier.check.teaching:IfMonitor``: a level's ``spec`` is what its exported trace file names
and what the student types after ``crawlab explore``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "play"

# (key, frontier or spec, scenario, goal, preemption bound, at most this many interleavings)
LEVELS = [
    ("lost-update", "unsynchronized", "lost-update",
     "Lose an update: make one of the two URLs vanish from the ring buffer.", 1, None),
    ("lost-wakeup", "tanenbaum", "lost-wakeup",
     "Lose a wake-up: leave a consumer asleep with a URL waiting for it.", 1, None),
    ("monitor", "monitor", "lost-wakeup",
     "Try to break the correct monitor the same way. (Can you?)", 1, None),
    # The if-bug needs two preemptions (C2 held back until P has put u1, then P held back
    # until C2 has taken it): the first interleavings of bound 2, which include it.
    ("if-monitor", "frontier.check.teaching:IfMonitor", "lost-wakeup",
     "Break the monitor whose get waits with 'if' instead of 'while'.", 2, 150),
]


def _rle(schedule: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for t in schedule:
        if out and out[-1][0] == t:
            out[-1][1] += 1
        else:
            out.append([t, 1])
    return out


def level(key: str, spec: str, scenario: str, goal: str, bound: int, cap: int | None,
          steps: dict) -> dict:
    """One level: its interleavings as lists of step ids (into ``steps``, shared by levels).
    ``spec`` is a registered name or a ``MODULE:CLASS`` that crawlab loads (the level's
    ``spec``, what its trace files name); ``frontier`` is the registered name shown."""
    from frontier.check import trace
    from frontier.check.explore import every_schedule, replay
    from frontier.check.scenarios import get
    from frontier.userclass import resolve

    sc = get(scenario)
    name = resolve(spec)
    schedules, cut = every_schedule(name, scenario, bound, cap)
    if cut is not None and cap is None:
        raise RuntimeError(f"{name}/{scenario}: the space was not covered ({cut})")
    outs = [replay(name, scenario, schedule) for schedule in schedules]
    rows = [trace.steps(out.events, out.keys) for out in outs]
    # one cut into steps for every interleaving: what is shared in any of them
    keep = set().union(*(trace.kinds(trace.shared(r)) for r in rows))
    runs = []
    for schedule, out, run_rows in zip(schedules, outs, rows):
        ids = []
        for item in trace.focus(run_rows, keep):
            if isinstance(item, trace.Fold):
                entry = {"t": item.thread, "fold": item.count}
            else:
                events = {e.step_index: e for e in out.events}
                vals = {f"{events[i].obj_type_name}.{events[i].attr_name}": out.values[i]
                        for i in item.events if i in out.values and i in events}
                entry = {"t": item.thread, "where": item.where, "src": item.source,
                         "acc": "; ".join(item.accesses), "vals": vals}
            ids.append(steps.setdefault(json.dumps(entry, sort_keys=True), len(steps)))
        runs.append({"s": ids, "b": out.broken or "", "sch": _rle(schedule)})
    return {"key": key, "frontier": name, "spec": spec, "scenario": scenario, "goal": goal,
            "invariant": sc.invariant, "summary": sc.summary, "threads": sc.thread_names,
            "bound": bound, "whole": cut is None, "runs": runs}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()
    steps: dict[str, int] = {}
    levels = [level(*spec, steps) for spec in LEVELS]
    table = [json.loads(k) for k, _ in sorted(steps.items(), key=lambda kv: kv[1])]
    data = {"commit": commit, "steps": table, "levels": levels}
    OUT.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    (OUT / "levels.html").write_text(
        "<script>\n// generated by docs/play_levels.py: do not edit\nvar PLAY_LEVELS = "
        + text + ";\n</script>\n")
    for lv in levels:
        print(lv["key"], len(lv["runs"]), "interleavings,",
              sum(bool(r["b"]) for r in lv["runs"]), "broken")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
