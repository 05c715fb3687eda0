"""Grade the exercises: ``python exercises/grade.py [EXERCISE ...] [--dir DIR]``.

EXERCISE is ``ex1`` .. ``ex4`` or ``all`` (the default). Each exercise is graded by one pytest run
of the autograder (``tests/conftest.py``): the frontier suites through ``--frontier``, the tests
of ``tests/autograder`` through ``--exercises``. ``--dir`` grades the files of another directory
(default: this one). Prints one line per exercise; exit status 0 if all pass, 1 if one fails, 2
on bad input. Extra pytest options go after ``--``, e.g. ``-- -x -k timeout``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONTIER_SUITES = [
    "tests/test_frontier_contract.py",
    "tests/test_frontier_threads.py",
    "tests/test_frontier_model.py",
    "tests/test_frontier_explored.py",  # explored schedules: a lost wake-up fails every run
]
# exercise: (title, the frontier class it asks for, what that frontier must be, its own tests).
# What the frontier must be (its ordering and whether it is bounded; a graded frontier must always
# be correct and live) is the exercise's word: the class's own attributes never choose its tests.
EXERCISES = {
    "ex1": ("a bounded FIFO monitor", "ex1_bounded_fifo.py:BoundedFifo", "fifo,bounded", []),
    "ex2": ("a monitor built from semaphores", "ex2_semaphore_monitor.py:SemMonitorFrontier",
            "fifo,bounded", ["tests/autograder/test_ex2_condition.py"]),
    "ex3": ("a termination detector", None, None, ["tests/autograder/test_ex3_termination.py"]),
    "ex4": ("a BSP exchange", None, None, ["tests/autograder/test_ex4_bsp_exchange.py"]),
}


def frontier_kind(spec: str) -> str | None:
    """What the exercise whose frontier is ``spec`` (``FILE.py:CLASS``, any directory) says that
    frontier must be, e.g. ``"fifo,bounded"``; ``None`` if no exercise asks for it."""
    file, _, cls = spec.rpartition(":")
    for _, frontier_class, kind, _ in EXERCISES.values():
        if frontier_class == f"{Path(file).name}:{cls}":
            return kind
    return None


def pytest_args(exercise: str, directory: Path) -> list[str]:
    """The pytest arguments that grade ``exercise`` found in ``directory``."""
    _, frontier_class, kind, tests = EXERCISES[exercise]
    args = [*tests, f"--exercises={directory}"]
    if frontier_class:
        args = [*FRONTIER_SUITES, *args, f"--frontier={directory / frontier_class}",
                f"--frontier-kind={kind}"]
    return args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(prog="grade.py", description=__doc__.split("\n")[0])
    parser.add_argument("exercise", nargs="*", default=["all"],
                        help="ex1, ex2, ex3, ex4 or all (default)")
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parent,
                        help="directory holding the exercise files (default: exercises/)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only the summary lines")
    args = parser.parse_args(argv)
    wanted = list(EXERCISES) if "all" in args.exercise else args.exercise
    unknown = [e for e in wanted if e not in EXERCISES]
    if unknown:
        parser.error(f"unknown exercise {unknown[0]!r}; choose from {', '.join(EXERCISES)}, all")
    if not args.dir.is_dir():
        parser.error(f"--dir: no such directory {str(args.dir)!r}")
    directory = args.dir.resolve()
    results = {}
    for ex in wanted:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               *pytest_args(ex, directory), *extra]
        run = subprocess.run(cmd, cwd=ROOT, capture_output=args.quiet, text=True,
                             timeout=900)
        results[ex] = run.returncode
    for ex, rc in results.items():
        verdict = "PASS" if rc == 0 else f"FAIL (pytest exit {rc})"
        print(f"{ex}  {EXERCISES[ex][0]:<34} {verdict}")
    return 0 if all(rc == 0 for rc in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
