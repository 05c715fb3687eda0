"""``crawlab explore`` and ``crawlab linearize``: the frontiers checked beyond their unit tests.

::

    crawlab explore FRONTIER [--scenario NAME] [--bound N] [--out DIR] [--json]
    crawlab explore FRONTIER --replay FILE
    crawlab linearize FRONTIER [--threads N] [--ops N] [--runs N] [--seed N] [--out DIR] [--json]

Exit status: 0 the property holds, 1 it was violated, 2 bad input (one line on stderr).
The engines are :mod:`frontier.check.explore` and :mod:`frontier.check.linearize`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crawlers.args import non_negative_int, positive_int

__all__ = ["add_explore", "add_linearize", "register", "run_explore", "run_linearize"]

HOLDS, VIOLATED, BAD_INPUT = 0, 1, 2


def register(sub) -> None:
    """Add both commands to ``crawlab``'s subparsers."""
    add_explore(sub.add_parser("explore", help="explore a frontier's interleavings (DPOR)"))
    add_linearize(sub.add_parser("linearize", help="check recorded histories for linearizability"))


# --------------------------------------------------------------------------------------------
# explore


def add_explore(p: argparse.ArgumentParser) -> None:
    from frontier.check.explore import DEFAULT_BOUND

    p.add_argument("frontier", help="a registered frontier (see crawlab frontiers)")
    p.add_argument("--scenario", help="one scenario (default: every one that applies)")
    p.add_argument("--bound", type=non_negative_int, default=DEFAULT_BOUND,
                   help=f"preemptions per interleaving (default {DEFAULT_BOUND})")
    p.add_argument("--replay", type=Path, metavar="FILE",
                   help="run exactly the interleaving of this trace file again")
    p.add_argument("--out", type=Path, default=Path("."), metavar="DIR",
                   help="where a violation's trace file goes (default: here)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run_explore)


def _error(command: str, message: str) -> int:
    print(f"crawlab {command}: error: {message}", file=sys.stderr)
    return BAD_INPUT


def run_explore(args: argparse.Namespace) -> int:
    import frontier
    from frontier.check import scenarios, trace
    from frontier.check.explore import ExploreError, explore, replay

    frontier.info(args.frontier)  # UnknownFrontier: one line, exit 2 (crawlab's main)
    if args.replay is not None:
        if args.scenario is not None:
            return _error("explore", "--replay takes the scenario from the trace file")
        data = trace.load(args.replay)
        if data["frontier"] != args.frontier:
            return _error("explore", f"{args.replay} is a trace of {data['frontier']!r}, "
                          f"not {args.frontier!r}")
        sc = scenarios.get(data["scenario"])
        try:
            out = replay(args.frontier, sc.name, data["schedule"])
        except ExploreError as exc:
            return _error("explore", str(exc))
        text = trace.report(args.frontier, sc.name, sc.thread_names, sc.invariant, out.events,
                            out.broken)
        sys.stdout.write(text)
        if text != data["report"]:
            print("crawlab explore: the replay differs from the trace file", file=sys.stderr)
        return HOLDS if out.holds else VIOLATED
    if args.scenario is not None:
        names = [scenarios.get(args.scenario).name]
        takes = scenarios.applicable(args.frontier)
        if names[0] not in takes:
            return _error("explore", f"scenario {args.scenario!r} does not apply to "
                          f"{args.frontier!r}; it takes: {', '.join(takes)}")
    else:
        names = scenarios.applicable(args.frontier)
    if not args.out.is_dir():
        return _error("explore", f"--out {args.out} is not a directory")
    results, status = [], HOLDS
    for name in names:
        sc = scenarios.get(name)
        try:
            out = explore(args.frontier, name, args.bound)
        except ExploreError as exc:
            return _error("explore", str(exc))
        row = {"frontier": args.frontier, "scenario": name, "bound": args.bound,
               "holds": out.holds, "interleavings": out.interleavings, "broken": out.broken}
        if out.holds:
            line = (f"{args.frontier}, scenario {name}: holds over {out.interleavings} "
                    f"interleavings (preemption bound {args.bound}): {sc.invariant}")
        else:
            status = VIOLATED
            text = trace.report(args.frontier, name, sc.thread_names, sc.invariant, out.events,
                                out.broken)
            path = args.out / f"explore-{args.frontier}-{name}.json"
            trace.save(path, frontier=args.frontier, scenario=name, bound=args.bound,
                       schedule=out.schedule, report_text=text)
            row["trace"] = str(path)
            line = (text + f"VIOLATED after {out.interleavings} interleavings (preemption bound "
                    f"{args.bound}); trace written to {path}; replay it with: crawlab explore "
                    f"{args.frontier} --replay {path}")
        results.append(row)
        if not args.json:
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    return status


# --------------------------------------------------------------------------------------------
# linearize


def add_linearize(p: argparse.ArgumentParser) -> None:
    from frontier.check import linearize as lin

    p.add_argument("frontier", help="a registered frontier (see crawlab frontiers)")
    p.add_argument("--threads", type=positive_int, default=lin.DEFAULT_THREADS,
                   help=f"threads per history (default {lin.DEFAULT_THREADS})")
    p.add_argument("--ops", type=positive_int, default=lin.DEFAULT_OPS,
                   help=f"operations per thread (default {lin.DEFAULT_OPS})")
    p.add_argument("--runs", type=positive_int, default=lin.DEFAULT_RUNS,
                   help=f"histories recorded and checked (default {lin.DEFAULT_RUNS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the operation mix (default 0)")
    p.add_argument("--out", type=Path, default=Path("."), metavar="DIR",
                   help="where the timeline of a bad history goes (default: here)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(run=run_linearize)


def run_linearize(args: argparse.Namespace) -> int:
    import frontier
    from frontier.check import linearize as lin

    frontier.info(args.frontier)
    if not args.out.is_dir():
        return _error("linearize", f"--out {args.out} is not a directory")
    found = None
    runs = 0
    for run in range(args.runs):
        runs += 1
        history = lin.record(args.frontier, threads=args.threads, ops=args.ops,
                             seed=args.seed + run)
        result = lin.check(history, lin.spec_of(args.frontier))
        if not result.ok:
            found = (run, history, result)
            break
    row = {"frontier": args.frontier, "threads": args.threads, "ops": args.ops,
           "runs": runs, "linearizable": found is None}
    if found is not None:
        from frontier.check.timeline import draw

        run, history, result = found
        path = args.out / f"linearize-{args.frontier}.png"
        draw(history, result, path, title=f"{args.frontier}: history {run + 1} is not "
             f"linearizable")
        row.update({"run": run + 1, "reason": result.reason, "timeline": str(path)})
    if args.json:
        print(json.dumps(row, indent=1))
    elif found is None:
        print(f"{args.frontier}: all {runs} histories linearizable ({args.threads} threads x "
              f"{args.ops} operations each)")
    else:
        print(f"{args.frontier}: history {row['run']} of {runs} is NOT linearizable: "
              f"{row['reason']}; timeline written to {row['timeline']}")
    return HOLDS if found is None else VIOLATED
