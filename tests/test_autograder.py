"""The autograder's own behaviour: a bad ``--frontier`` is a one-line usage error; a student's
class is tested instead of the built-in ones; a deadlock fails with the stuck threads' stacks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "docs" / "instructor" / "solutions" / "ex1_bounded_fifo.py"


def pytest_run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CRAWLAB_")}
    full_env.update(env or {}, COLUMNS="1000")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=full_env,
    )


@pytest.mark.parametrize("spec, message", [
    ("nonexistent:X", "cannot import module 'nonexistent'"),
    ("no-colon", "expects MODULE:NAME"),
    ("frontier.monitor:NoSuchClass", "has no 'NoSuchClass'"),
    ("exercises/missing.py:X", "no such file"),
    ("frontier:DEFAULT_CAPACITY", "is not a class"),
    ("collections:OrderedDict", "lacks the class attribute(s) name, description"),
])
def test_bad_frontier_spec_is_a_one_line_usage_error(spec, message):
    run = pytest_run("tests/test_frontier_contract.py", f"--frontier={spec}")
    assert run.returncode == 4  # pytest's usage-error status
    err = run.stderr.strip()
    assert err.startswith("ERROR: --frontier") and message in err, err
    assert "\n" not in err and "Traceback" not in run.stdout + run.stderr


def test_a_name_taken_by_a_builtin_is_refused(tmp_path):
    clone = tmp_path / "clone.py"
    clone.write_text(SOLUTION.read_text().replace('"ex1-bounded-fifo"', '"monitor"'))
    run = pytest_run("tests/test_frontier_contract.py", f"--frontier={clone}:BoundedFifo")
    assert run.returncode == 4 and "taken by a built-in frontier" in run.stderr


def test_a_class_no_exercise_asks_for_must_be_told_what_it_must_be(tmp_path):
    """The tests that apply come from the exercise; for a class of no exercise, from
    --frontier-kind, never from the class's own attributes."""
    mine = tmp_path / "mine.py"
    mine.write_text(SOLUTION.read_text())
    run = pytest_run("tests/test_frontier_contract.py", f"--frontier={mine}:BoundedFifo")
    assert run.returncode == 4 and "--frontier-kind" in run.stderr, run.stderr
    assert run.stderr.strip().count("\n") == 0
    bad = pytest_run("tests/test_frontier_contract.py", f"--frontier={mine}:BoundedFifo",
                     "--frontier-kind=fifo,sorted")
    assert bad.returncode == 4 and "got 'fifo,sorted'" in bad.stderr, bad.stderr


def test_the_kind_given_chooses_the_tests(tmp_path):
    """Told that the ex1 solution (a FIFO) must be a priority queue, the ordering test fails
    on it: the tests follow what the exercise asks for, not what the class says."""
    run = pytest_run("tests/test_frontier_contract.py", "-k", "test_order or class_attributes",
                     f"--frontier={SOLUTION}:BoundedFifo", "--frontier-kind=priority,bounded")
    assert run.returncode == 1
    assert "FAILED tests/test_frontier_contract.py::test_order[ex1-bounded-fifo]" in run.stdout
    assert "ordering='fifo'" in run.stdout


def test_graded_class_replaces_the_builtins_via_the_environment():
    run = pytest_run("tests/test_frontier_contract.py", "-vv",
                     env={"CRAWLAB_FRONTIER": f"{SOLUTION}:BoundedFifo"})
    assert run.returncode == 0, run.stdout[-2000:]
    ran = [line for line in run.stdout.splitlines() if " PASSED" in line]
    assert ran and all("ex1-bounded-fifo" in line.split(" ")[0] for line in ran), ran[:5]
    assert "deselected" in run.stdout


def test_a_deadlock_fails_with_the_stacks_of_the_stuck_threads(tmp_path):
    """A frontier whose close() forgets to wake the getters: the test that needs the wake-up
    fails, and the report says where the getter sleeps."""
    broken = tmp_path / "lost_wakeup.py"
    broken.write_text(SOLUTION.read_text().replace(
        "            self._not_empty.notify_all()\n", ""))
    run = pytest_run("tests/test_frontier_contract.py", "-k", "close_wakes_a_blocked_get",
                     f"--frontier={broken}:BoundedFifo", "--frontier-kind=fifo,bounded")
    assert run.returncode == 1
    out = run.stdout
    assert "threads still alive" in out
    assert "is in wait() (threading.py" in out and "called from _wait() (lost_wakeup.py:" in out
    assert "lost wake-up" in out


def test_a_hang_in_the_main_thread_is_stopped_by_the_grading_timeout(tmp_path):
    """get(timeout=...) that ignores its timeout would hang the test: the watchdog stops it."""
    broken = tmp_path / "no_timeout.py"
    broken.write_text(SOLUTION.read_text().replace(
        "    def get(self, timeout: float | None = None) -> str | None:\n",
        "    def get(self, timeout: float | None = None) -> str | None:\n        timeout = None\n"))
    run = pytest_run("tests/test_frontier_contract.py", "-k", "get_timeout_on_empty",
                     f"--frontier={broken}:BoundedFifo", "--frontier-kind=fifo,bounded",
                     "--grade-timeout=3")
    assert run.returncode == 1
    assert "Timeout" in run.stdout + run.stderr


def test_exercise_tests_are_skipped_unless_grading():
    run = pytest_run("tests/autograder", "-rs")
    assert run.returncode == 0
    assert "pass --exercises=DIR" in run.stdout and " passed" not in run.stdout
