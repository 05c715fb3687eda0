"""The exercises are graded by the autograder: every starter file fails it until completed, and
the reference solutions (instructor area) pass it. Each check is one run of
``exercises/grade.py``, as a student would run it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STARTERS = ROOT / "exercises"
SOLUTIONS = ROOT / "docs" / "instructor" / "solutions"
EXERCISES = ["ex1", "ex2", "ex3", "ex4"]
FILES = sorted(p.name for p in STARTERS.glob("ex[0-9]_*.py"))


CHEATS = ROOT / "tests" / "autograder" / "cheats"


def grade(directory: Path, exercise: str, *pytest_args: str,
          quiet: bool = True) -> tuple[int, str]:
    extra = ["--", *pytest_args] if pytest_args else []
    run = subprocess.run(
        [sys.executable, "exercises/grade.py", *(["-q"] if quiet else []), exercise,
         "--dir", str(directory), *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    return run.returncode, run.stdout + run.stderr


def test_every_exercise_has_a_starter_and_a_reference_solution():
    assert len(FILES) == len(EXERCISES)
    for name in FILES:
        starter = (STARTERS / name).read_text()
        assert "YOUR CODE HERE" in starter and "END OF YOUR CODE" in starter, name
        assert (SOLUTIONS / name).is_file(), f"no reference solution for {name}"
        assert "YOUR CODE HERE" not in (SOLUTIONS / name).read_text(), name


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("exercise", EXERCISES)
def test_starter_fails_and_reference_passes(exercise):
    rc, out = grade(STARTERS, exercise)
    # exit 1 with "FAIL (pytest exit 1)": tests ran and failed (not a usage or import error)
    assert rc == 1 and re.search(rf"^{exercise} .* FAIL \(pytest exit 1\)$", out, re.M), out
    rc, out = grade(SOLUTIONS, exercise)
    assert rc == 0 and re.search(rf"^{exercise} .* PASS$", out, re.M), out


def test_grade_rejects_an_unknown_exercise_in_one_line():
    rc, out = grade(STARTERS, "ex9")
    assert rc == 2
    assert "unknown exercise 'ex9'" in out and "Traceback" not in out


@pytest.mark.timeout(300)
def test_a_class_that_says_it_is_not_correct_is_still_graded_as_the_exercise_asks():
    """The cheat of ``tests/autograder/cheats``: an ex1 with no lock that busy-polls a deque
    and sets ``correct = False`` so that the thread tests would leave it out. ex1 asks for a
    correct bounded FIFO, so it is graded FAIL: for what it says (``test_class_attributes``),
    and, with that test left out, for what it does (``-x``: the first failure is enough)."""
    rc, out = grade(CHEATS, "ex1", "-x", quiet=False)
    assert rc == 1 and re.search(r"^ex1 .* FAIL \(pytest exit 1\)$", out, re.M), out[-3000:]
    assert "FAILED tests/test_frontier_contract.py::test_class_attributes[ex1-bounded-fifo]" in out
    assert "correct=False" in out
    rc, out = grade(CHEATS, "ex1", "-x", "-k", "not test_class_attributes", quiet=False)
    # what it does fails a test, or spins past the grader's per-test limit (the watchdog stops
    # it, and pytest may then end with an internal error): FAIL either way, never PASS
    assert rc == 1 and re.search(r"^ex1 .* FAIL \(pytest exit [13]\)$", out, re.M), out[-3000:]
    failed = re.findall(r"^FAILED (\S+)", out, re.M)
    timed_out = "Timeout (>" in out
    assert timed_out or (failed and all("[ex1-bounded-fifo]" in f for f in failed)), failed
