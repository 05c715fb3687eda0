"""A small mutation tester for crawlab's own code: do the tests fail when the code breaks?

Each *mutant* is one small change to one file, made on its syntax tree: a comparison turned
around (``<`` to ``<=``, ``==`` to ``!=``, ``in`` to ``not in``), an arithmetic or boolean
operator swapped (``+``/``-``, ``and``/``or``), a number moved by one, ``True``/``False``
swapped, ``min``/``max`` or ``all``/``any`` swapped, a ``not`` dropped, a statement (a call,
an assignment, a ``return`` value) deleted. For each mutant the file is rewritten, the tests
chosen for it run with a time limit, and the file is restored, always (even on Ctrl-C or
SIGTERM): a mutant is *killed* when a test fails or the run times out, *survived* when every
test passes. The score is killed / run.

Usage (not part of CI; see the developer page of the book, ``docs/mutation.rst``)::

    .venv/bin/python scripts/mutate.py --list                     # the mutants, counted per file
    .venv/bin/python scripts/mutate.py --sample 40 --seed 1       # a random sample, reported
    .venv/bin/python scripts/mutate.py --per-file 2 --seed 1      # two of each file
    .venv/bin/python scripts/mutate.py --file crawlers/crawl/journal.py --sample 10
    .venv/bin/python scripts/mutate.py --only 'crawlers/crawl/journal.py:17'  # one mutant

Mutants are numbered per file in the order of a walk of its tree (``FILE:N``), so a number
names the same mutant until the file changes. Docstrings, ``assert`` statements, ``__all__``
and type annotations are not mutated (changing them is not a behaviour the tests should
catch). The unmodified tests must pass first (a baseline run), or nothing is reported.
Exit status: 0 when every mutant run was killed, 1 when some survived, 2 on bad input.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The files mutated and, for each, the tests run against its mutants (fast ones that exercise
# it; the whole suite would take too long per mutant on two cores).
TARGETS: dict[str, list[str]] = {}
_FRONTIER_TESTS = ["tests/test_frontier_contract.py", "tests/test_frontier_model.py",
                   "tests/test_priority_frontiers.py", "tests/test_pq_buffer.py",
                   "tests/test_frontier_threads.py", "tests/test_cas_frontiers.py",
                   "tests/test_frontier_waiting.py"]
for _f in sorted((ROOT / "frontier").glob("*.py")):
    TARGETS[f"frontier/{_f.name}"] = _FRONTIER_TESTS
# files with tests of their own beside the frontier suite
TARGETS["frontier/probe.py"] = [*_FRONTIER_TESTS, "tests/test_timeline.py"]
TARGETS["frontier/sliced.py"] = [*_FRONTIER_TESTS, "tests/test_sliced.py"]
TARGETS["frontier/slices.py"] = ["tests/test_pq_slices.py"]
TARGETS["frontier/unsynchronized.py"] = [
    *_FRONTIER_TESTS,
    "tests/test_crawl_labs.py::test_a_switch_inside_pop_hands_one_url_out_twice_and_loses_the_next"]
_CRAWL_TESTS = ["tests/test_crawl.py"]
_GRADER_TESTS = [
    "tests/test_grader_rules.py",
    "tests/test_exercises.py::test_two_exercises_one_failing_is_a_fail_and_every_suite_ran",
    # the only test that kills a judge.suites() that drops a suite of the policy
    "tests/test_exercises.py::test_every_suite_of_the_policy_contributes_checks",
    "tests/test_exercises.py::test_bad_input_is_one_line_and_exit_2",
    "tests/test_exercises.py::test_a_file_that_cannot_be_graded_is_one_line_and_exit_2",
    "tests/test_exercises.py::test_the_reference_holds_every_grader_scenario",
    "tests/test_exercises.py::test_the_reference_keeps_every_property_of_the_judges_histories_"
    "ten_times"]
_JOURNAL = "tests/test_journal.py::test_"
TARGETS.update({
    "crawlers/crawl/journal.py": [
        "tests/test_journal_durability.py",
        _JOURNAL + "kill_minus_9_then_resume_loses_nothing_and_refetches_within_the_bound[0]",
        _JOURNAL + "two_kills_then_resume_stay_within_the_summed_bound",
        _JOURNAL + "uninterrupted_crawl_fetches_each_page_once_and_a_rerun_fetches_nothing",
        _JOURNAL + "a_damaged_journal_is_a_one_line_error_never_a_fresh_start",
        _JOURNAL + "the_journal_of_other_seeds_is_refused",
        _JOURNAL + "a_missing_database_beside_its_log_is_refused",
        _JOURNAL + "concurrent_records_never_exceed_one_batch_and_all_commit",
        _JOURNAL + "resume_keeps_priorities_and_discovery_order"],
    "crawlers/crawl/crawler.py": _CRAWL_TESTS,
    "crawlers/crawl/opic.py": [*_CRAWL_TESTS, "tests/test_bsp_journal.py"],
    "crawlers/crawl/visited.py": ["tests/test_visited.py", *_CRAWL_TESTS],
    "crawlers/crawl/report.py": [*_CRAWL_TESTS, "tests/test_reference.py"],
    "crawlers/crawl/output.py": _CRAWL_TESTS,
    "crawlers/crawl/targets.py": _CRAWL_TESTS,
    "crawlers/crawl/timeline.py": ["tests/test_timeline.py"],
    # the grader's own tests: its rules in process, and the command on files that need no
    # exploration (test_exercises.py's gradings of ex1/ex2 take minutes)
    **{f"exercises/{name}.py": _GRADER_TESTS
       for name in ("grade", "judge", "static", "evidence", "scenarios")},
})

_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
             ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
             ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BIN_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.Div: ast.Mult,
             ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}
_BOOL_SWAP = {ast.And: ast.Or, ast.Or: ast.And}
_CALL_SWAP = {"min": "max", "max": "min", "all": "any", "any": "all"}


_SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
           ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is",
           ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
           ast.FloorDiv: "//", ast.Mod: "%", ast.And: "and", ast.Or: "or"}


@dataclass
class Mutant:
    """The ``index``-th mutation site of ``path``: ``line`` and what changes there."""

    path: str
    index: int
    line: int
    what: str

    @property
    def name(self) -> str:
        return f"{self.path}:{self.index}"


def _skipped(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Nodes inside asserts, annotations, docstrings or ``__all__`` are left alone."""
    child = node
    while child in parents:
        parent = parents[child]
        if isinstance(parent, ast.Assert):
            return True
        if isinstance(parent, (ast.arg, ast.AnnAssign)) and child is parent.annotation:
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and child is parent.returns:
            return True
        if (isinstance(parent, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                   for t in parent.targets)):
            return True
        child = parent
    return False


def _is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def _sites(tree: ast.Module) -> list[tuple[ast.AST, str, object]]:
    """Every mutation site of ``tree`` in walk order: (node, kind, detail)."""
    parents = {child: parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    sites: list[tuple[ast.AST, str, object]] = []
    for node in ast.walk(tree):
        if _skipped(node, parents):
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _CMP_SWAP:
                    sites.append((node, "cmp", i))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN_SWAP:
            sites.append((node, "bin", None))
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BIN_SWAP:
            sites.append((node, "bin", None))
        elif isinstance(node, ast.BoolOp):
            sites.append((node, "bool", None))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            sites.append((node, "not", None))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            sites.append((node, "const", None))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _CALL_SWAP):
            sites.append((node, "call", None))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While, ast.If,
                             ast.With, ast.Try)):
            for field in ("body", "orelse", "finalbody"):
                for stmt in getattr(node, field, []) or []:
                    if _is_docstring(stmt):
                        continue
                    if isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign)) or (
                            isinstance(stmt, ast.Return) and stmt.value is not None):
                        sites.append((stmt, "stmt", (field, node)))
    return sites


def _describe(node: ast.AST, kind: str, detail: object) -> str:
    if kind == "cmp":
        op = node.ops[detail]
        return f"{_SYMBOL[type(op)]} -> {_SYMBOL[_CMP_SWAP[type(op)]]}"
    if kind == "bin":
        return f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[_BIN_SWAP[type(node.op)]]}"
    if kind == "bool":
        return f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[_BOOL_SWAP[type(node.op)]]}"
    if kind == "not":
        return "not x -> x"
    if kind == "const":
        v = node.value
        return f"{v!r} -> {(not v) if isinstance(v, bool) else v + 1!r}"
    if kind == "call":
        return f"{node.func.id}() -> {_CALL_SWAP[node.func.id]}()"
    text = ast.unparse(node).splitlines()[0]
    return f"delete `{text[:60]}`"


def _apply(node: ast.AST, kind: str, detail: object) -> None:
    """Mutate ``node`` in place (``stmt``: replaced by ``pass``, or ``return None``)."""
    if kind == "cmp":
        node.ops[detail] = _CMP_SWAP[type(node.ops[detail])]()
    elif kind == "bin":
        node.op = _BIN_SWAP[type(node.op)]()
    elif kind == "bool":
        node.op = _BOOL_SWAP[type(node.op)]()
    elif kind == "const":
        node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
    elif kind == "call":
        node.func.id = _CALL_SWAP[node.func.id]
    elif kind == "stmt":
        field, owner = detail
        body = getattr(owner, field)
        new: ast.stmt = (ast.Return(value=ast.Constant(None)) if isinstance(node, ast.Return)
                         else ast.Pass())
        body[body.index(node)] = ast.copy_location(new, node)


def _mutate_not(tree: ast.Module, node: ast.UnaryOp) -> None:
    parents = {child: parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    parent = parents[node]
    for field, value in ast.iter_fields(parent):
        if value is node:
            setattr(parent, field, node.operand)
            return
        if isinstance(value, list) and node in value:
            value[value.index(node)] = node.operand
            return


def mutants_of(path: str) -> list[Mutant]:
    tree = ast.parse((ROOT / path).read_text(), filename=path)
    return [Mutant(path, i, getattr(node, "lineno", 0), _describe(node, kind, detail))
            for i, (node, kind, detail) in enumerate(_sites(tree))]


def mutated_source(m: Mutant) -> str:
    tree = ast.parse((ROOT / m.path).read_text(), filename=m.path)
    tree = copy.deepcopy(tree)
    node, kind, detail = _sites(tree)[m.index]
    if kind == "not":
        _mutate_not(tree, node)
    else:
        _apply(node, kind, detail)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def run_tests(tests: list[str], timeout: float) -> tuple[str, float]:
    """``passed``, ``failed`` or ``timeout``, and the seconds taken."""
    # no stale .pyc of a mutant; this tree's modules first, even in the tests' subprocesses
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
           "-p", "no:randomly", *tests]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        code = proc.wait(timeout=timeout)
        verdict = "passed" if code == 0 else "failed"
    except subprocess.TimeoutExpired:
        verdict = "timeout"
    finally:  # on a timeout, Ctrl-C or SIGTERM: pytest and whatever it started
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return verdict, time.monotonic() - t0


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/mutate.py", description=__doc__.split("\n")[0])
    p.add_argument("--file", action="append", help="mutate only this file (repeatable)")
    p.add_argument("--only", action="append", help="run only mutant FILE:N (repeatable)")
    p.add_argument("--sample", type=int, help="run a random sample of N mutants")
    p.add_argument("--per-file", type=int,
                   help="run a random sample of N mutants of each file (with --sample: "
                        "the same total, drawn file by file)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds per mutant's test run; longer counts as killed (default 120)")
    p.add_argument("--list", action="store_true", help="list the mutants; run nothing")
    p.add_argument("--json", help="also write the results to this JSON file")
    p.add_argument("--table", help="also write them as a reStructuredText include (the book's "
                                   "docs/results/mutation/mutation.inc)")
    args = p.parse_args(argv)
    for f in args.file or []:
        if f not in TARGETS:
            p.error(f"--file {f}: not a mutated file; choose from {', '.join(TARGETS)}")
    for flag in ("sample", "per_file"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            p.error(f"--{flag.replace('_', '-')}: must be a positive integer")
    if not args.timeout > 0:
        p.error("--timeout: must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    files = args.file or list(TARGETS)
    every = [m for f in files for m in mutants_of(f)]
    if args.only:
        by_name = {m.name: m for m in every}
        missing = [n for n in args.only if n not in by_name]
        if missing:
            print(f"mutate.py: error: no mutant {', '.join(missing)}", file=sys.stderr)
            return 2
        chosen = [by_name[n] for n in args.only]
    elif args.per_file is not None:
        rng = random.Random(args.seed)
        chosen = []
        for f in files:
            mine = [m for m in every if m.path == f]
            chosen += sorted(rng.sample(mine, min(args.per_file, len(mine))),
                             key=lambda m: m.index)
    elif args.sample is not None:
        chosen = sorted(random.Random(args.seed).sample(every, min(args.sample, len(every))),
                        key=lambda m: (m.path, m.index))
    else:
        chosen = every
    if args.list:
        for m in chosen:
            print(f"{m.name}\tline {m.line}\t{m.what}")
        print(f"{len(chosen)} mutants of {len(every)} in {len(files)} files")
        return 0

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # unwinds through the finally that restores the file

    signal.signal(signal.SIGTERM, on_term)
    baseline = sorted({t for m in chosen for t in TARGETS[m.path]})
    if not baseline:
        print("mutate.py: error: no mutant chosen", file=sys.stderr)
        return 2
    verdict, seconds = run_tests(baseline, args.timeout * 3)
    if verdict != "passed":
        print(f"mutate.py: error: the tests fail without any mutant ({verdict}: "
              f"{' '.join(baseline)}); fix them first", file=sys.stderr)
        return 2
    print(f"baseline: {len(baseline)} test files pass in {seconds:.0f} s", flush=True)
    results = []
    for n, m in enumerate(chosen, 1):
        path = ROOT / m.path
        original = path.read_bytes()
        try:
            path.write_text(mutated_source(m))
            verdict, seconds = run_tests(TARGETS[m.path], args.timeout)
        finally:
            path.write_bytes(original)
        status = "survived" if verdict == "passed" else "killed"
        results.append({"mutant": m.name, "line": m.line, "what": m.what, "status": status,
                        "by": verdict, "seconds": round(seconds, 1)})
        print(f"[{n}/{len(chosen)}] {status:8} {m.name} (line {m.line}: {m.what}) "
              f"{verdict}, {seconds:.0f} s", flush=True)
    killed = sum(r["status"] == "killed" for r in results)
    score = killed / len(results) if results else 0.0
    print(f"score: {killed}/{len(results)} killed ({score:.0%})")
    for r in results:
        if r["status"] == "survived":
            print(f"survived: {r['mutant']} line {r['line']}: {r['what']}")
    run = {"command": " ".join(["scripts/mutate.py", *(argv if argv is not None
                                                         else sys.argv[1:])]),
           "drawn": len(results), "of": len(every), "files": len(files), "killed": killed,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": _commit(),
           "machine": _machine(), "results": results}
    if args.json:
        Path(args.json).write_text(json.dumps(run, indent=1) + "\n")
    if args.table:
        Path(args.table).write_text(table(run))
    return 0 if killed == len(results) else 1


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=30)
    except OSError:
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown (not a git checkout)"


def _machine() -> str:
    sys.path.insert(0, str(ROOT))
    from labs.harness import machine_line

    return machine_line()


def table(run: dict) -> str:
    """The run as a reStructuredText include: one sentence with the score, then every mutant
    with its verdict (survivors first)."""
    n, killed = run["drawn"], run["killed"]
    lines = [
        f"``{run['command']}`` drew {n} of the {run['of']} mutants of {run['files']} files; "
        f"the tests killed {killed} and {n - killed} survived: a score of "
        f"{killed / n:.0%} (run {run['date']}, commit {run['commit']}, {run['machine']}).",
        "",
        ".. list-table:: Every mutant of the run (generated by scripts/mutate.py --table)",
        "   :header-rows: 1",
        "",
        "   * - mutant", "     - line", "     - change", "     - verdict",
    ]
    order = sorted(run["results"], key=lambda r: (r["status"] != "survived", r["mutant"]))
    for r in order:
        verdict = r["status"] if r["by"] in ("passed", "failed") else f"killed ({r['by']})"
        change = "``" + r["what"].replace("`", "'") + "``"
        lines += [f"   * - ``{r['mutant']}``", f"     - {r['line']}", f"     - {change}",
                  f"     - {verdict}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
