"""``crawlab linearize``: record real concurrent histories of a frontier and check each against
its sequential specification (Wing-Gong search, Lowe's memoization); a bad one is drawn.

::

    crawlab linearize FRONTIER [--threads N] [--ops N] [--runs N] [--seed N] [--noise P]
                               [--out DIR] [--json]

Exit status: 0 every history was checked and is linearizable, 1 one was not, 2 bad input (one
line on stderr), 3 inconclusive: none was shown not linearizable but the search gave up on
some (counted and printed as undecided; ``"linearizable": null`` with ``--json``).
The engine is :mod:`frontier.check.linearize`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from crawlers.args import MAX_RUNS, MAX_SEED, at_most, non_negative_int, positive_int, probability

__all__ = ["HELP", "add_arguments", "not_linearizable", "run"]

HELP = "check recorded histories of a frontier for linearizability"

HOLDS, VIOLATED, BAD_INPUT, INCONCLUSIVE = 0, 1, 2, 3
MAX_THREADS = 64
"""The most ``--threads``: a history's threads are real threads, and checking a history is
exponential in them (the default is 4)."""
MAX_OPS = 100_000
"""The most ``--ops`` per thread (the default is 30): a history is kept in memory."""


def not_linearizable(name: str, seed: int, run: int, runs: int, reason: str) -> str:
    """The sentence that reports a bad history, the same in the command's output and in the
    book (``docs/results/explore/linearize-*.txt``; a test compares them): ``run`` counts from
    1 among the ``runs`` asked for, ``seed`` is the one that recorded it."""
    return (f"{name}: history of seed {seed} (run {run} of {runs}) is not linearizable: "
            f"{reason}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``crawlab linearize``."""
    from crawlers.cli.userfrontier import add_frontier_arguments
    from frontier.check import linearize as lin

    add_frontier_arguments(p)
    p.add_argument("--threads", type=at_most(positive_int, MAX_THREADS),
                   default=lin.DEFAULT_THREADS,
                   help=f"threads per history (default {lin.DEFAULT_THREADS}, at most "
                        f"{MAX_THREADS})")
    p.add_argument("--ops", type=at_most(positive_int, MAX_OPS), default=lin.DEFAULT_OPS,
                   help=f"operations per thread (default {lin.DEFAULT_OPS}, at most {MAX_OPS})")
    p.add_argument("--runs", type=at_most(positive_int, MAX_RUNS), default=lin.DEFAULT_RUNS,
                   help=f"histories recorded and checked (default {lin.DEFAULT_RUNS})")
    p.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), default=0,
                   help="seed of the operation mix (default 0)")
    p.add_argument("--noise", type=probability, default=lin.DEFAULT_NOISE, metavar="P",
                   help="chance of a yield before each line of the frontier's code, which makes "
                        f"races show (0: none; default {lin.DEFAULT_NOISE})")
    p.add_argument("--out", type=Path, default=Path("."), metavar="DIR",
                   help="where the timeline of a bad history goes (default: here)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args: argparse.Namespace) -> int:
    """Record, check, draw the first bad history; the exit status."""
    import frontier
    from crawlers.cli.userfrontier import missing_frontier
    from frontier.check import linearize as lin

    if missing_frontier(args, "linearize"):
        return BAD_INPUT
    frontier.info(args.frontier)
    if not args.out.is_dir():
        print(f"crawlab linearize: error: --out {args.out} is not a directory", file=sys.stderr)
        return BAD_INPUT
    found = None
    runs = undecided = 0
    spec = lin.spec_of(args.frontier)
    for run in range(args.runs):
        runs += 1
        history = lin.record(args.frontier, threads=args.threads, ops=args.ops,
                             seed=args.seed + run, noise=args.noise)
        result = lin.check(history, spec)
        if result.undecided:
            undecided += 1
        elif not result.ok:
            found = (run, history, result)
            break
    row = {"frontier": args.frontier, "specification": spec, "threads": args.threads,
           "ops": args.ops, "noise": args.noise, "runs": runs, "undecided": undecided,
           "linearizable": False if found is not None else (None if undecided else True)}
    if found is not None:
        from frontier.check.timeline import draw

        run, history, result = found
        path = args.out / f"linearize-{args.frontier}.png"
        draw(history, result, path, title=f"{args.frontier}: recorded history (seed "
             f"{args.seed + run}) is not linearizable")
        row.update({"run": run + 1, "seed": args.seed + run, "reason": result.reason,
                    "timeline": str(path)})
    if args.json:
        print(json.dumps(row, indent=1))
    elif found is None:
        shown = runs - undecided
        gave_up = (f"; {undecided} undecided (the search gave up after "
                   f"{lin.DEFAULT_BUDGET:,} steps)" if undecided else "")
        print(f"{args.frontier}: {'all ' if not undecided else ''}{shown} of {runs} histories "
              f"linearizable to {spec} ({args.threads} threads x {args.ops} operations each, "
              f"noise {args.noise}){gave_up}" + (": INCONCLUSIVE" if undecided else ""))
    else:
        print(not_linearizable(args.frontier, row["seed"], row["run"], args.runs, row["reason"])
              + f"; timeline written to {row['timeline']}")
    if found is not None:
        return VIOLATED
    return INCONCLUSIVE if undecided else HOLDS
