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


# -- wrong solutions: graded FAIL on explored schedules, every run ------------------------------

WRONG = ROOT / "tests" / "autograder" / "wrong"
# wrong solution -> (the explored scenario that catches it, what its trace says broke)
WRONG_SOLUTIONS = {
    "lost_wakeup": ("lost-wakeup", "a lost wake-up"),
    "lost_update": ("close", "still in the frontier"),
}


@pytest.fixture
def registered_wrong():
    """Load a wrong solution's class under a name of its own, and unregister it after."""
    import frontier
    from frontier.contract import _REGISTRY
    from tests.conftest import load_object

    added = []

    def load(which: str) -> str:
        graded = load_object(f"{WRONG / which / 'ex1_bounded_fifo.py'}:BoundedFifo")
        cls = type(f"Wrong_{which}", (graded,), {"name": f"wrong-{which}"})
        frontier.register(cls)
        added.append(cls.name)
        return cls.name

    yield load
    for name in added:
        _REGISTRY.pop(name, None)


@pytest.mark.parametrize("which", sorted(WRONG_SOLUTIONS))
def test_a_wrong_solution_fails_the_same_explored_schedule_ten_times_out_of_ten(
        which, registered_wrong):
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from frontier.check.explore import DEFAULT_BOUND, explore
    from tests.test_frontier_explored import CI_INTERLEAVINGS

    name = registered_wrong(which)
    scenario, broke = WRONG_SOLUTIONS[which]
    reports = set()
    for _ in range(10):  # the grader's budget: the same as for every graded frontier
        out = explore(name, scenario, DEFAULT_BOUND, max_interleavings=CI_INTERLEAVINGS)
        assert not out.holds and broke in out.broken, out.broken
        reports.add(out.report())
    assert len(reports) == 1  # the same interleaving, step for step, every run


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("which", sorted(WRONG_SOLUTIONS))
def test_a_wrong_solution_is_graded_fail_with_the_interleaving_shown(which):
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    scenario, broke = WRONG_SOLUTIONS[which]
    rc, out = grade(WRONG / which, "ex1", "-k", "explored", quiet=False)
    assert rc == 1 and re.search(r"^ex1 .* FAIL \(pytest exit 1\)$", out, re.M), out
    assert f"test_explored[ex1-bounded-fifo-{scenario}]" in out
    assert re.search(r"\| step \| \w+ +\|", out), out  # the interleaving, a column per thread
    assert re.search(rf"broken: .*{re.escape(broke)}", out), out
