"""Batch grading (``exercises/batch.py``): one folder per student, one grading run per student
and exercise, each in a process group of its own; ``grades.csv`` and each student's
``results.json`` in Gradescope's format.

Most tests drive the engine with a small stand-in grader written into the test's own folder
(:data:`FAKE_GRADER`: it answers like ``exercises/grade.py --json`` from markers in the
submitted file, so a hang, a crash, a liar and an escaped grandchild can be staged in a second);
``test_a_class_graded_by_the_real_grader`` runs the real ``exercises/grade.py`` on the reference
solution, the starter and an empty folder.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from exercises import batch

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "docs" / "instructor" / "solutions"
STARTERS = ROOT / "exercises"

# Answers like ``grade.py EX --dir DIR --json FILE [--hidden]`` from markers in the file:
# NotImplementedError -> FAIL (3 of 5); HANG -> start a grandchild (same process group), write
# its pid, sleep; ESCAPE -> a grandchild in a session of its own holding stdout, then PASS;
# CRASH -> SIGKILL itself, no JSON; LIAR -> a JSON saying pass, exit status 1; DELAY=x -> sleep
# x s first (to finish out of name order); else PASS (5 of 5). --hidden adds a hidden check.
FAKE_GRADER = r'''
import json, os, signal, subprocess, sys, time
ex, d, out = sys.argv[1], sys.argv[3], sys.argv[5]
hidden = "--hidden" in sys.argv


def publish(name, pid):
    """The pid file appears whole (written aside, then renamed): a reader polling for it never
    sees it empty."""
    tmp = os.path.join(os.environ["FAKE_PIDS"], "." + name)
    with open(tmp, "w") as f:
        f.write(str(pid))
    os.replace(tmp, os.path.join(os.environ["FAKE_PIDS"], name))


names = {"ex1": "ex1_bounded_fifo.py", "ex2": "ex2_semaphore_monitor.py"}
path = os.path.join(d, names[ex])
if not os.path.isfile(path):
    print(f"grade.py: error: no {names[ex]} in {d}", file=sys.stderr)
    sys.exit(2)
text = open(path).read()
for word in text.split():
    if word.startswith("DELAY="):
        time.sleep(float(word[6:]))
if "HANG" in text:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    publish("hang", child.pid)
    time.sleep(600)
if "ESCAPE" in text:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                             start_new_session=True)
    publish("escape", child.pid)
if "CRASH" in text:
    os.kill(os.getpid(), signal.SIGKILL)
failing = "NotImplementedError" in text
checks = [("put-get", True), ("fifo", True), ("close", True), ("races", not failing),
          ("explored", not failing)]
if hidden:
    checks.append(("hidden-capacity", not failing))
tests = [{"name": f"{ex}: {n}", "status": "passed" if ok else "failed", "score": int(ok),
          "max_score": 1, "output": "" if ok else f"{n} broke",
          "visibility": "hidden" if n.startswith("hidden") else "visible"} for n, ok in checks]
passed = sum(ok for _, ok in checks)
first = next((f"{n}: {n} broke" for n, ok in checks if not ok), None)
verdict = "pass" if passed == len(checks) else "fail"
if "LIAR" in text:
    verdict = "pass"
data = {"score": passed, "output": f"{ex} {verdict.upper()}", "tests": tests,
        "crawlab": {"exercises": {ex: {"verdict": verdict, "passed": passed,
                                       "total": len(checks), "seconds": 0.1,
                                       "first_failure": first}}}}
open(out, "w").write(json.dumps(data))
sys.exit(0 if passed == len(checks) and "LIAR" not in text else 1)
'''


@pytest.fixture
def fake(tmp_path, monkeypatch) -> Path:
    """The stand-in grader's path; its pid files go to ``tmp_path / "pids"``."""
    grader = tmp_path / "fake_grade.py"
    grader.write_text(FAKE_GRADER)
    (tmp_path / "pids").mkdir()
    monkeypatch.setenv("FAKE_PIDS", str(tmp_path / "pids"))
    return grader


def make_class(root: Path, students: dict[str, dict[str, str]]) -> Path:
    """``root/submissions/STUDENT/FILE`` with the given texts."""
    subs = root / "submissions"
    for student, files in students.items():
        (subs / student).mkdir(parents=True)
        for name, text in files.items():
            (subs / student / name).parent.mkdir(parents=True, exist_ok=True)
            (subs / student / name).write_text(text)
    return subs


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (dead, not yet reaped by its parent) counts as dead
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


F1 = "ex1_bounded_fifo.py"


def test_three_students_give_the_expected_csv_and_json(tmp_path, fake, capsys):
    subs = make_class(tmp_path, {
        "carol": {F1: "class BoundedFifo: pass  # a solution"},
        "alice": {F1: "raise NotImplementedError"},
        "bob": {"notes.txt": "no exercise file here"},
    })
    out = tmp_path / "out"
    assert batch.main(["ex1"], subs, out, 2, False, grader=fake) == 0
    rows = read_csv(out / "grades.csv")
    assert list(rows[0]) == list(batch.COLUMNS)
    assert [(r["student"], r["verdict"], r["passed"], r["total"]) for r in rows] == [
        ("alice", "fail", "3", "5"), ("bob", "fail", "0", ""), ("carol", "pass", "5", "5")]
    assert rows[0]["first_failure"] == "races: races broke"
    assert rows[1]["first_failure"] == f"no submission: there is no {F1} in the submission"
    assert rows[2]["first_failure"] == ""
    assert all(float(r["seconds"]) >= 0 for r in rows)

    alice = json.loads((out / "alice" / "results.json").read_text())
    assert alice["score"] == 3
    assert [t["status"] for t in alice["tests"]] == ["passed"] * 3 + ["failed"] * 2
    assert alice["crawlab"]["exercises"]["ex1"]["verdict"] == "fail"
    assert alice["output"].startswith("ex1: FAIL, 3 of 5 checks passed; first failure: races")
    bob = json.loads((out / "bob" / "results.json").read_text())
    assert bob["score"] == 0 and bob["tests"][0]["status"] == "failed"
    assert "no submission" in bob["tests"][0]["output"]
    carol = json.loads((out / "carol" / "results.json").read_text())
    assert carol["score"] == 5 and carol["crawlab"]["exercises"]["ex1"]["passed"] == 5
    assert sorted(p.name for p in out.iterdir()) == ["alice", "bob", "carol", "grades.csv"]
    # the quiet progress (stderr is no terminal here): one line a run, then the summary
    captured = capsys.readouterr()
    assert len([line for line in captured.err.splitlines() if line.startswith("[")]) == 3
    assert "1 pass, 2 fail, 0 error" in captured.out


def test_on_a_terminal_the_progress_is_a_bar(monkeypatch):
    """Standard error a terminal: one rich progress bar (done of total, the run just graded),
    not a line a run; elsewhere the plain lines (the test above)."""
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    advance, close = batch._progress(2)
    for student in ("ann", "ben"):
        advance(batch.Run(student, "ex1", "pass", 1, 1, 0.1, None))
    close()
    text = err.getvalue()
    assert "grading" in text and "2/2" in text and "ben ex1" in text, text
    assert "━" in text and "[1/2]" not in text, text  # the bar, not the lines


def test_two_exercises_merge_into_one_results_json(tmp_path, fake):
    subs = make_class(tmp_path, {"dan": {F1: "ok", "ex2_semaphore_monitor.py":
                                         "raise NotImplementedError"}})
    out = tmp_path / "out"
    assert batch.main(["ex1", "ex2"], subs, out, 1, True, grader=fake) == 0
    rows = read_csv(out / "grades.csv")
    assert [(r["exercise"], r["verdict"], r["total"]) for r in rows] == [
        ("ex1", "pass", "6"), ("ex2", "fail", "6")]  # --hidden reached the grader
    data = json.loads((out / "dan" / "results.json").read_text())
    assert data["score"] == 6 + 3
    assert len(data["tests"]) == 12
    assert {t["visibility"] for t in data["tests"]} == {"visible", "hidden"}
    assert set(data["crawlab"]["exercises"]) == {"ex1", "ex2"}


def test_a_hang_a_crash_and_a_liar_change_no_other_grade(tmp_path, fake):
    """The hung run is stopped at the limit with its whole process group (the grandchild
    too); a grandchild that left the group does not keep the batch waiting; every other
    student keeps the grade they get alone."""
    subs = make_class(tmp_path, {
        "a-good": {F1: "ok"},
        "b-hang": {F1: "HANG"},
        "c-crash": {F1: "CRASH"},
        "d-liar": {F1: "LIAR raise NotImplementedError"},
        "e-escape": {F1: "ESCAPE"},
        "f-good": {F1: "raise NotImplementedError"},
    })
    out = tmp_path / "out"
    started = time.monotonic()
    try:
        status = batch.main(["ex1"], subs, out, 3, False, timeout=4, grader=fake)
        took = time.monotonic() - started
        verdicts = {r["student"]: (r["verdict"], r["first_failure"])
                    for r in read_csv(out / "grades.csv")}
        assert status == 1  # some runs ended in a grading error
        assert verdicts["a-good"] == ("pass", "")
        assert verdicts["f-good"] == ("fail", "races: races broke")
        assert verdicts["e-escape"] == ("pass", "")
        assert verdicts["b-hang"][0] == "error"
        assert verdicts["b-hang"][1].startswith("no verdict in 4 s")
        assert verdicts["c-crash"] == ("error", "the grader ended with signal 9 and wrote no "
                                                "results")
        assert verdicts["d-liar"][0] == "error"
        assert "exit status 1 disagrees with its verdict 'pass'" in verdicts["d-liar"][1]
        assert took < 60, took
        hang = int((tmp_path / "pids" / "hang").read_text())
        deadline = time.monotonic() + 10
        while alive(hang) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for a SIGKILL to land, not synchronization
        assert not alive(hang), "the hung run's grandchild survived its run"
    finally:
        for name in ("hang", "escape"):
            pid_file = tmp_path / "pids" / name
            if pid_file.exists():
                try:
                    os.kill(int(pid_file.read_text()), signal.SIGKILL)
                except ProcessLookupError:
                    pass


def test_ctrl_c_stops_the_runs_under_way_and_writes_nothing(tmp_path, fake):
    """An interrupt reaches only the batch (each run leads its own session): the batch kills
    the groups under way, starts no more, says so and exits 130."""
    import subprocess

    from tests.helpers import with_default_sigint

    subs = make_class(tmp_path, {"a": {F1: "HANG"}, "b": {F1: "ok"}, "c": {F1: "ok"}})
    code = ("import sys; from pathlib import Path; from exercises import batch; "
            f"sys.exit(batch.main(['ex1'], Path({str(subs)!r}), Path({str(tmp_path / 'out')!r}),"
            f" 1, False, grader=Path({str(fake)!r})))")
    proc = subprocess.Popen(with_default_sigint([sys.executable, "-c", code]), cwd=ROOT,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    hang_file = tmp_path / "pids" / "hang"
    try:
        deadline = time.monotonic() + 60
        while not hang_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for the hung run to have started, not synchronization
        assert hang_file.exists(), "the hung run never started"
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
        assert proc.returncode == 130, err
        assert "interrupted: 1 grading run(s) under way stopped" in err
        assert not (tmp_path / "out" / "grades.csv").exists()
        hang = int(hang_file.read_text())
        deadline = time.monotonic() + 10
        while alive(hang) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling for a SIGKILL to land, not synchronization
        assert not alive(hang), "the hung run's grandchild survived the interrupt"
    finally:
        proc.kill()
        proc.wait()
        if hang_file.exists():
            try:
                os.kill(int(hang_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_csv_is_in_name_order_whatever_finishes_first(tmp_path, fake):
    subs = make_class(tmp_path, {"amy": {F1: "DELAY=1.5"}, "ben": {F1: "DELAY=0.8"},
                                 "cat": {F1: "ok"}})
    first, second = tmp_path / "o1", tmp_path / "o2"
    assert batch.main(["ex1"], subs, first, 3, False, grader=fake) == 0
    assert batch.main(["ex1"], subs, second, 1, False, grader=fake) == 0
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    rows = read_csv(first / "grades.csv")
    assert [r["student"] for r in rows] == ["amy", "ben", "cat"]
    assert strip(rows) == strip(read_csv(second / "grades.csv"))


@pytest.mark.parametrize("status, said, passed, total, expected", [
    (0, "pass", 5, 5, "pass"),
    (1, "fail", 3, 5, "fail"),
    (0, "fail", 3, 5, "error"),  # exit 0 but the JSON says fail
    (1, "pass", 5, 5, "error"),  # exit 1 but the JSON says pass
    (0, "pass", 4, 5, "error"),  # "pass" with a check not passed
    (0, "pass", 0, 0, "error"),  # "pass" with no check at all
    (0, "skipped", 5, 5, "error"),
    (3, "fail", 3, 5, "error"),
])
def test_a_pass_needs_exit_0_and_every_check_passed(status, said, passed, total, expected):
    data = {"crawlab": {"exercises": {"ex1": {"verdict": said, "passed": passed,
                                              "total": total}}}}
    assert batch.verdict("ex1", status, data)[0] == expected
    assert batch.verdict("ex2", status, data)[0] == "error"  # the exercise asked, not another


def test_a_submission_in_a_folder_is_found_and_two_copies_are_refused(tmp_path):
    one = make_class(tmp_path / "a", {"s": {f"work/{F1}": "x", f".git/{F1}": "old"}}) / "s"
    assert batch.find_submission(one, F1) == (one / "work" / F1, None)
    two = make_class(tmp_path / "b", {"s": {f"a/{F1}": "x", f"b/{F1}": "y"}}) / "s"
    path, why = batch.find_submission(two, F1)
    assert path is None and why.startswith(f"2 files named {F1}")


@pytest.mark.parametrize("case, message", [
    ("no-dir", "--submissions: no such folder"),
    ("out-not-empty", "exists and is not an empty folder"),
    ("out-inside", "--out must not be inside --submissions"),
    ("jobs-0", "--jobs: must be a positive integer, got 0"),
    ("unknown-exercise", "unknown exercise 'ex9'; choose from ex1, ex2, ex3, ex4"),
    ("no-students", "holds no student folder"),
    ("out-unwritable", "--out: cannot make"),
    ("student-named-grades.csv", "a student folder is named 'grades.csv'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, fake, capsys, case, message):
    subs = make_class(tmp_path, {"s": {F1: "ok"}})
    out, jobs, exercises = tmp_path / "out", 1, ["ex1"]
    if case == "no-dir":
        subs = tmp_path / "nowhere"
    elif case == "out-not-empty":
        out.mkdir()
        (out / "old.csv").write_text("x")
    elif case == "out-inside":
        out = subs / "grades"
    elif case == "jobs-0":
        jobs = 0
    elif case == "unknown-exercise":
        exercises = ["ex9"]
    elif case == "no-students":
        subs = tmp_path / "empty"
        subs.mkdir()
    elif case == "out-unwritable":
        (tmp_path / "a-file").write_text("x")
        out = tmp_path / "a-file" / "out"
    elif case == "student-named-grades.csv":  # graded, then its folder met the CSV: traceback
        (subs / "grades.csv").mkdir()
        (subs / "grades.csv" / F1).write_text("ok")
    assert batch.main(exercises, subs, out, jobs, False, grader=fake) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (out / "grades.csv").exists()


def test_gradescope_mode_grades_what_was_submitted_and_always_answers(tmp_path, fake):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    assert batch.gradescope(root, grader=fake) == 0
    data = json.loads((root / "results" / "results.json").read_text())
    assert data["score"] == 0 and data["tests"] == []
    assert "No exercise file in the submission" in data["output"] and F1 in data["output"]

    (root / "submission" / "ex2_semaphore_monitor.py").write_text("ok")
    assert batch.gradescope(root, grader=fake) == 0
    data = json.loads((root / "results" / "results.json").read_text())
    assert list(data["crawlab"]["exercises"]) == ["ex2"]  # only the exercise present
    assert data["score"] == 6  # hidden checks included
    assert any(t["visibility"] == "hidden" for t in data["tests"])


def test_batch_runs_as_gradescope_script(tmp_path):
    """``python exercises/batch.py --gradescope ROOT`` is what run_autograder executes."""
    import subprocess

    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    run = subprocess.run([sys.executable, str(STARTERS / "batch.py"), "--gradescope",
                          str(root)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 0


@pytest.mark.skipif(importlib.util.find_spec("frontrun") is None,
                    reason="frontrun (crawlab[explore]) is not installed here")
@pytest.mark.timeout(900)  # two gradings at once (a minute and a half here), on a busy machine
def test_a_class_graded_by_the_real_grader(tmp_path):
    """The brief's class: the reference solution, the untouched starter, a folder with no
    file; ``python exercises/grade.py ex1 --submissions --out --jobs`` as an instructor types
    it."""
    import subprocess

    subs = make_class(tmp_path, {
        "ref": {F1: (SOLUTIONS / F1).read_text()},
        "starter": {F1: (STARTERS / "starters" / F1).read_text()},
        "nobody": {},
    })
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "exercises/grade.py", "ex1", "--submissions",
                          str(subs), "--out", str(out), "--jobs", "2"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {r["student"]: r for r in read_csv(out / "grades.csv")}
    assert list(rows) == ["nobody", "ref", "starter"]
    ref, starter = rows["ref"], rows["starter"]
    assert ref["verdict"] == "pass" and ref["passed"] == ref["total"] and int(ref["total"]) > 10
    assert ref["first_failure"] == ""
    assert starter["verdict"] == "fail" and starter["total"] == ref["total"]
    assert int(starter["passed"]) < int(starter["total"]) and starter["first_failure"]
    assert rows["nobody"]["verdict"] == "fail"
    assert rows["nobody"]["first_failure"].startswith("no submission")
    data = json.loads((out / "ref" / "results.json").read_text())
    assert data["score"] == int(ref["total"]) == len(data["tests"])
    assert all(t["status"] == "passed" for t in data["tests"])
    data = json.loads((out / "starter" / "results.json").read_text())
    assert data["score"] == int(starter["passed"])
    assert data["crawlab"]["exercises"]["ex1"]["first_failure"] == starter["first_failure"]
