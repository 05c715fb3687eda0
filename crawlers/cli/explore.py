"""``crawlab explore``: a frontier's scenarios under a controlled scheduler (DPOR), a violation
shown as a table and written as a trace file that ``--replay`` runs again byte for byte.

::

    crawlab explore FRONTIER [--scenario NAME] [--bound N] [--budget SECONDS]
                             [--max-interleavings N] [--full | --json] [--out DIR]
    crawlab explore FRONTIER --pct [--depth D] [--runs N] [--seed S] [--scenario NAME]
                             [--budget SECONDS]
    crawlab explore FRONTIER --random [--runs N] [--seed S] [--scenario NAME] [--budget SECONDS]
    crawlab explore FRONTIER --outcomes [--scenario NAME] [--bound N] [--budget SECONDS]
    crawlab explore FRONTIER --replay FILE [--full]

``--pct`` schedules randomized runs by priorities with ``D - 1`` change points
(:mod:`frontier.check.pct`; ``D`` is 3 in ``close``, whose race needs two changes, and in the
if-monitor's lost wake-up, else 2: :data:`frontier.check.pct.DEPTHS`) and prints the per-run
lower bound of finding a bug of depth ``D`` and the runs that give 95 %; ``--random`` walks
uniformly at random (no guarantee). Each run's seed reproduces it; a randomized search that
finds nothing is inconclusive (exit 3).
``--outcomes`` runs every interleaving and tabulates the end states, jcstress style
(:mod:`frontier.check.outcomes`): exit 1 if a FORBIDDEN one was reached.

A trace file names its frontier as ``crawlab explore`` must be told it again: a registered
name, or for a class loaded from ``FILE.py:CLASS`` (or ``MODULE:CLASS``) the absolute spec it
was loaded from (:func:`frontier.userclass.spec_of`), which the replay hint prints too.

A violation is shown as its shortest counterexample (fewest preemptions, then fewest steps:
:func:`frontier.check.explore.shortest_counterexample`), focused on the steps that touch state
the threads share (``--full``: every step).

Exit status: 0 every scenario holds (frontrun's search of its bounded space finished), 1 one
was violated, 2 bad input (one line on stderr; also a flag the chosen mode would ignore, such
as ``--depth`` without ``--pct``), 3 inconclusive: no violation, but some scenario's search
stopped at ``--budget`` or ``--max-interleavings`` before covering its space (every mode honours
``--budget``; a randomized search is never more than inconclusive; a replay that held
where its trace file recorded something else is inconclusive too); 130 interrupted (Ctrl-C
or SIGTERM: with ``--json``, the rows of the scenarios finished are printed, and an
``"interrupted"`` row for the one cut). A run that lasts
over :data:`~crawlers.cli.progress.AFTER` seconds shows a progress meter on stderr
(:mod:`crawlers.cli.progress`). The engine is :mod:`frontier.check.explore`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from crawlers.args import (
    MAX_RUNS,
    MAX_SECONDS,
    MAX_SEED,
    at_most,
    non_negative,
    non_negative_int,
    positive_int,
)

__all__ = ["HELP", "add_arguments", "run"]

HELP = "explore a frontier's interleavings (DPOR) and replay a violation"

HOLDS, VIOLATED, BAD_INPUT, INCONCLUSIVE = 0, 1, 2, 3
RUNS = 300
"""``--pct``/``--random``: runs per scenario when ``--runs`` is not given."""
MAX_DEPTH = 5
"""The largest ``--depth``: the scenarios seek 2 or 3 (:data:`frontier.check.pct.DEPTHS`); at 5 a
run finds the bug with probability below 10**-8 on every scenario here (about 10**9 runs for
95 %), and deeper the per-run probability underflows (PCT's arithmetic divides by zero)."""


def _error(message: str) -> int:
    print(f"crawlab explore: error: {message}", file=sys.stderr)
    return BAD_INPUT


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``crawlab explore``."""
    from crawlers.cli.userfrontier import add_frontier_arguments
    from frontier.check.explore import DEFAULT_BOUND, MAX_BOUND

    add_frontier_arguments(p)
    p.add_argument("--scenario", help="one scenario (default: every one that applies)")
    p.add_argument("--bound", type=at_most(non_negative_int, MAX_BOUND, "a run's steps"),
                   default=None,
                   help=f"preemptions per interleaving (default {DEFAULT_BOUND}, at most "
                        f"{MAX_BOUND})")
    p.add_argument("--budget", type=at_most(non_negative, MAX_SECONDS, "a year"),
                   metavar="SECONDS",
                   help="stop after this many seconds in all (the result is then inconclusive, "
                        "exit 3, unless a violation was found)")
    p.add_argument("--max-interleavings", type=positive_int, metavar="N",
                   help="stop each scenario after N interleavings (inconclusive, exit 3)")
    p.add_argument("--pct", action="store_true",
                   help="randomized priority-change scheduling (PCT) instead of DPOR")
    p.add_argument("--random", action="store_true",
                   help="uniformly random scheduling instead of DPOR (a baseline for --pct)")
    p.add_argument("--depth", type=at_most(positive_int, MAX_DEPTH), metavar="D",
                   help="--pct: the bug depth sought, D - 1 priority changes (default: 3 for "
                        "the close scenario, whose race needs two changes, and the "
                        f"if-monitor's lost wake-up, else 2; at most {MAX_DEPTH})")
    p.add_argument("--runs", type=at_most(positive_int, MAX_RUNS), metavar="N",
                   help=f"--pct/--random: runs per scenario at most (default {RUNS})")
    p.add_argument("--seed", type=at_most(non_negative_int, MAX_SEED), metavar="S",
                   help="--pct/--random: the seed of the first run (run i: S + i)")
    p.add_argument("--outcomes", action="store_true",
                   help="run every interleaving and tabulate the end states (ACCEPTABLE or "
                        "FORBIDDEN, with counts)")
    p.add_argument("--full", action="store_true",
                   help="show every step of a violation, not only those on shared state")
    p.add_argument("--replay", type=Path, metavar="FILE",
                   help="run exactly the interleaving of this trace file again")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where a violation's trace file goes (default: here)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")


def _typed(frontier: str) -> str:
    """What to type after ``crawlab explore`` to name ``frontier`` again, from anywhere: a
    registered name as it is, a class loaded from ``FILE.py:CLASS`` or ``MODULE:CLASS`` by its
    absolute spec (:func:`frontier.userclass.spec_of`)."""
    from frontier.userclass import resolve, spec_of

    return spec_of(resolve(frontier)) or frontier


def _same(frontier: str) -> str:
    """The registered name ``frontier`` stands for (a spec is loaded), to compare two names."""
    from frontier.userclass import resolve

    return resolve(frontier)


def _mixed_flags(args: argparse.Namespace) -> str | None:
    """What is wrong with the combination of modes and flags (``None``: nothing): a flag that
    the chosen mode would ignore is an error, never silently dropped."""
    if args.replay is not None:
        given = [flag for flag, value in (
            ("--pct", args.pct), ("--random", args.random), ("--outcomes", args.outcomes),
            ("--bound", args.bound is not None), ("--budget", args.budget is not None),
            ("--max-interleavings", args.max_interleavings is not None),
            ("--depth", args.depth is not None), ("--runs", args.runs is not None),
            ("--seed", args.seed is not None), ("--json", args.json),
            ("--out", args.out is not None)) if value]
        if given:
            return (f"--replay runs the trace file's one interleaving again: it does not take "
                    f"{given[0]}")
        return None
    if args.pct and args.random:
        return "--pct and --random are two different schedulers: choose one"
    randomized = "--pct" if args.pct else "--random" if args.random else None
    if randomized and args.bound is not None:
        return (f"--bound is the preemption bound of the exhaustive search; {randomized} runs "
                f"are bounded by --runs (and, for --pct, shaped by --depth)")
    if randomized and args.max_interleavings is not None:
        return f"--max-interleavings caps the exhaustive search; {randomized} takes --runs"
    if args.outcomes and (args.pct or args.random):
        return (f"--outcomes runs every interleaving (DPOR); it does not take "
                f"{'--pct' if args.pct else '--random'}")
    if args.outcomes and args.full:
        return ("--full shows every step of a violation's counterexample; --outcomes shows no "
                "counterexample, only a table of end states")
    if args.outcomes and args.out is not None:
        return "--out is where a violation's trace file goes; --outcomes writes no trace file"
    if args.full and args.json:
        return ("--full shows every step of the printed counterexample; --json prints no "
                "counterexample (the trace file keeps every step)")
    if args.depth is not None and not args.pct:
        return "--depth is the bug depth PCT seeks: it needs --pct"
    for flag, value in (("--seed", args.seed), ("--runs", args.runs)):
        if value is not None and not (args.pct or args.random):
            return f"{flag} is for the randomized schedulers: it needs --pct or --random"
    return None


def run(args: argparse.Namespace) -> int:
    """Explore (or replay) and report; the exit status."""
    import frontier
    from crawlers.cli.userfrontier import missing_frontier
    from frontier.check import scenarios, trace
    from frontier.check.explore import ExploreError, replay

    if missing_frontier(args, "explore"):
        return 2
    frontier.info(args.frontier)  # UnknownFrontier: one line, exit 2 (crawlab's main)
    wrong = _mixed_flags(args)
    if wrong:
        return _error(wrong)
    if args.out is None:
        args.out = Path(".")
    if args.bound is None:
        from frontier.check.explore import DEFAULT_BOUND

        args.bound = DEFAULT_BOUND
    if args.replay is not None:
        if args.scenario is not None:
            return _error("--replay takes the scenario from the trace file")
        data = trace.load(args.replay, args.frontier)
        sc = scenarios.get(data["scenario"])
        try:
            out = replay(args.frontier, sc.name, data["schedule"])
        except ExploreError as exc:
            return _error(str(exc))
        text = out.report(full=args.full)
        sys.stdout.write(text)
        expected = data.get("full" if args.full else "report")
        if expected is not None and text != expected:
            print("crawlab explore: the replay differs from the trace file"
                  + ("; it did not show what the trace recorded: inconclusive" if out.holds
                     else ""), file=sys.stderr)
            if out.holds:  # no evidence either way: the trace's interleaving was not replayed
                return INCONCLUSIVE
        return HOLDS if out.holds else VIOLATED
    if args.scenario is not None:
        names = [scenarios.get(args.scenario).name]
        takes = scenarios.applicable(args.frontier)
        if names[0] not in takes:
            return _error(f"scenario {args.scenario!r} does not apply to "
                          f"{args.frontier!r}; it takes: {', '.join(takes)}")
    else:
        names = scenarios.applicable(args.frontier)
    if not args.out.is_dir():
        return _error(f"--out {args.out} is not a directory")
    results: list[dict] = []
    with _rows_kept_on_interrupt(args, names, results):
        if args.pct or args.random:
            return _randomized(args, names, results)
        if args.outcomes:
            return _outcomes(args, names, results)
        return _exhaustive(args, names, results)


@contextlib.contextmanager
def _rows_kept_on_interrupt(args: argparse.Namespace, names: list[str], results: list[dict]):
    """``--json`` prints its rows once every scenario is done; on Ctrl-C (or SIGTERM) print
    the rows of the scenarios finished, and one ``"status": "interrupted"`` row for the one
    cut, before the interrupt goes on (exit 130): finished work is not dropped."""
    try:
        yield
    except KeyboardInterrupt:
        if args.json:
            cut = names[len(results)] if len(results) < len(names) else None
            print(json.dumps(results + [{"frontier": args.frontier, "scenario": cut,
                                         "status": "interrupted"}], indent=1), flush=True)
        raise


def _exhaustive(args: argparse.Namespace, names: list[str], results: list[dict]) -> int:
    """DPOR over each scenario's whole space within ``--bound`` (the default mode); one row
    per scenario appended to ``results``."""
    import time

    from crawlers.cli.progress import Meter, recorded_count
    from frontier.check import scenarios, trace
    from frontier.check.explore import ExploreError, explore

    typed = _typed(args.frontier)
    deadline = None if args.budget is None else time.monotonic() + args.budget
    statuses = set()
    for name in names:
        sc = scenarios.get(name)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        meter = Meter(f"{args.frontier}, scenario {name}",
                      recorded_count(args.frontier, name, args.bound), sys.stderr)
        try:
            out = explore(args.frontier, name, args.bound, budget=left,
                          max_interleavings=args.max_interleavings, progress=meter,
                          shortest=True)
        except ExploreError as exc:
            return _error(str(exc))
        finally:
            meter.close()
        statuses.add(out.status)
        row = {"frontier": args.frontier, "scenario": name, "bound": args.bound,
               "status": out.status, "holds": out.holds, "interleavings": out.interleavings,
               "broken": out.broken, "reason": out.reason, "seconds": round(out.seconds, 2)}
        if out.status == "holds":
            line = (f"{args.frontier}, scenario {name}: holds over {out.interleavings} "
                    f"interleavings, the whole space within preemption bound {args.bound}: "
                    f"{sc.invariant}")
        elif out.status == "inconclusive":
            line = (f"{args.frontier}, scenario {name}: INCONCLUSIVE: {out.reason}; "
                    f"{out.interleavings} interleavings run (preemption bound {args.bound}), "
                    f"none broken, but not the whole space: this is not \"holds\"")
        else:
            text, full = out.report(), out.report(full=True)
            path = args.out / f"explore-{args.frontier}-{name}.json"
            trace.save(path, frontier=typed, scenario=name, bound=args.bound,
                       schedule=out.schedule, report_text=text, full_text=full)
            row["trace"] = str(path)
            row["preemptions"] = out.preemptions
            line = ((full if args.full else text)
                    + f"VIOLATED: found after {out.interleavings} interleavings (preemption bound "
                    f"{args.bound}); shown: a shortest counterexample, {out.preemptions} "
                    f"preemption(s), {len(out.schedule)} scheduling steps; trace written to "
                    f"{path}; replay it with: crawlab explore {typed} --replay {path}")
        results.append(row)
        if not args.json:
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    if "violated" in statuses:
        return VIOLATED
    return INCONCLUSIVE if "inconclusive" in statuses else HOLDS


def _randomized(args: argparse.Namespace, names: list[str], results: list[dict]) -> int:
    """``--pct`` / ``--random``: up to ``--runs`` runs per scenario, seeds from ``--seed``."""
    import time

    from crawlers.cli.progress import Meter
    from frontier.check import pct, scenarios, trace
    from frontier.check.explore import ExploreError, replay

    strategy = "pct" if args.pct else "random"
    asked = args.runs or RUNS
    seed = 0 if args.seed is None else args.seed
    deadline = None if args.budget is None else time.monotonic() + args.budget
    statuses = set()
    for name in names:
        sc = scenarios.get(name)
        depth = args.depth or pct.default_depth(name, args.frontier)
        meter = Meter(f"{args.frontier}, scenario {name}, {strategy.upper()}", asked,
                      sys.stderr, unit="runs", total="asked for")
        try:
            runs, k = pct.search(args.frontier, name, strategy=strategy, depth=depth,
                                 runs=asked, seed=seed, deadline=deadline,
                                 progress=meter)
        except ExploreError as exc:  # the run that measures k did not finish
            statuses.add("inconclusive")
            results.append({"frontier": args.frontier, "scenario": name, "strategy": strategy,
                            "runs": 0, "first_seed": seed, "status": "inconclusive",
                            "reason": str(exc)})
            if not args.json:
                print(f"INCONCLUSIVE: {exc}; no run was searched", flush=True)
            continue
        finally:
            meter.close()
        n = len(sc.thread_names)
        head = f"{args.frontier}, scenario {name}: {strategy.upper()}, {n} threads, k = {k} steps"
        row = {"frontier": args.frontier, "scenario": name, "strategy": strategy,
               "threads": n, "k": k, "runs": len(runs), "first_seed": seed}
        if strategy == "pct":
            p = pct.lower_bound(n, k, depth)
            need = pct.runs_for(p)
            head += (f", depth {depth}: each run finds a bug of depth {depth} with "
                     f"probability at least 1/(n*k^(d-1)) = {p:.3g}; {need} runs give 95%")
            row.update(depth=depth, lower_bound=p, runs_for_95=need)
        last = runs[-1]
        if last.broken:
            statuses.add("violated")
            out = replay(args.frontier, name, last.schedule)
            path = args.out / f"explore-{args.frontier}-{name}.json"
            trace.save(path, frontier=_typed(args.frontier), scenario=name, bound=None,
                       schedule=last.schedule, report_text=out.report(),
                       full_text=out.report(full=True))
            again = f"--{strategy} --seed {last.seed} --runs 1"
            if strategy == "pct":
                again = f"--pct --depth {depth} --seed {last.seed} --runs 1"
            line = (out.report(full=args.full) + head + f"\nVIOLATED by run {len(runs)} "
                    f"(seed {last.seed}; seeds {seed}..{last.seed - 1} held): {last.broken}; "
                    f"the same run again: crawlab explore {_typed(args.frontier)} "
                    f"--scenario {name} "
                    f"{again}; trace written to {path}")
            row.update(status="violated", seed=last.seed, broken=last.broken, trace=str(path))
        elif last.unfinished:
            statuses.add("inconclusive")
            held = (f"seeds {seed}..{last.seed - 1} held" if len(runs) > 1
                    else "no run before it")
            reason = f"run {len(runs)} (seed {last.seed}) did not finish: {last.unfinished}"
            line = (head + f"\nINCONCLUSIVE: {reason}; {held}; the search stopped there, "
                    f"neither held nor broken")
            row.update(status="inconclusive", seed=last.seed, reason=reason)
        else:
            statuses.add("inconclusive")
            cut = (f"the budget of {args.budget:g} s ran out after {len(runs)} of {asked} runs; "
                   if len(runs) < asked else "")
            line = (head + f"\nINCONCLUSIVE: {cut}{len(runs)} runs (seeds {seed}.."
                    f"{seed + len(runs) - 1}) held; a randomized search never shows that "
                    f"a property holds")
            row.update(status="inconclusive", reason=cut.rstrip("; ") or None)
        results.append(row)
        if not args.json:
            print(line, flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    return VIOLATED if "violated" in statuses else INCONCLUSIVE


def _outcomes(args: argparse.Namespace, names: list[str], results: list[dict]) -> int:
    """``--outcomes``: the end states of every interleaving, one table per scenario."""
    import time

    from crawlers.cli.progress import Meter, recorded_count
    from frontier.check import outcomes

    deadline = None if args.budget is None else time.monotonic() + args.budget
    statuses = set()
    for name in names:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        meter = Meter(f"{args.frontier}, scenario {name}, outcomes",
                      recorded_count(_same(args.frontier), name, args.bound), sys.stderr)
        try:
            rows, runs, cut = outcomes.tabulate(args.frontier, name, args.bound,
                                                args.max_interleavings, budget=left,
                                                progress=meter)
        finally:
            meter.close()
        forbidden = any(r.verdict == "FORBIDDEN" for r in rows)
        statuses.add("violated" if forbidden else "inconclusive" if cut else "holds")
        results.append({"frontier": args.frontier, "scenario": name, "bound": args.bound,
                        "interleavings": runs, "cut": cut,
                        "outcomes": [r.__dict__ for r in rows]})
        if not args.json:
            scope = (f"the whole space within preemption bound {args.bound}" if cut is None
                     else f"INCONCLUSIVE, {cut}")
            print(f"{args.frontier}, scenario {name}: {runs} interleavings ({scope})\n"
                  + outcomes.table(rows), flush=True)
    if args.json:
        print(json.dumps(results, indent=1))
    if "violated" in statuses:
        return VIOLATED
    return INCONCLUSIVE if "inconclusive" in statuses else HOLDS
