"""Grading a class: every student's folder, every exercise, each graded in a process of its own.

``python exercises/grade.py ex1 ex2 --submissions DIR --out OUT [--jobs N]`` calls :func:`main`;
Gradescope's ``run_autograder`` (written by ``crawlab course gradescope``) calls
``python exercises/batch.py --gradescope ROOT``, which is :func:`gradescope`.

One *grading run* is one student and one exercise: the student's file is copied alone into a
fresh temporary folder and graded there by ``python exercises/grade.py EX --dir COPY --json
FILE`` in a child process that leads a session of its own. The run has a wall-clock limit
(:data:`TIMEOUT`); past it, or once the grader has exited, the whole process group is killed,
so a hang, a crash or a fork bomb stays inside its own run. The child's output goes to files,
never pipes, so a grandchild that escapes the group cannot keep the batch waiting.

The verdict of a run is read from positive evidence (:func:`verdict`): ``pass`` only when the
grader exited 0 *and* its JSON says ``pass`` with every check passed; ``fail`` when it exited 1
and says ``fail``; anything else (exit 2, a signal, no JSON, a JSON that disagrees with the exit
status, the time limit) is ``error``, with the reason, and scores 0. A student folder without
the exercise's file is a ``fail`` that says so. Students are graded in name order and the CSV
is written in that order whatever finished first, so the same submissions give the same file.

Thread-safety: :func:`main` runs up to ``jobs`` grading runs at once from a thread pool; a run
touches only its own temporary folder, and the results are gathered by the calling thread.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script (Gradescope's run_autograder): the course root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from crawlers.args import EXIT_INTERRUPTED, EXIT_USAGE  # noqa: E402
from exercises.policy import EXERCISES  # noqa: E402

__all__ = ["TIMEOUT", "Children", "Run", "Stopped", "exercise_file", "find_submission",
           "gradescope", "grade_one", "main", "student_results"]

HERE = Path(__file__).resolve().parent
GRADER = HERE / "grade.py"
#: Wall-clock limit of one grading run (one student, one exercise), in seconds. The grader
#: ends a hung check within a minute; a run this long means the grading itself went wrong.
TIMEOUT = 600.0
#: OUT's table of grades, beside one folder per student (so no student folder may be so named).
GRADES = "grades.csv"
#: The columns of ``grades.csv``, in order.
COLUMNS = ("student", "exercise", "verdict", "passed", "total", "seconds", "first_failure")


class BatchError(ValueError):
    """Bad input of a batch (a folder, an exercise, a count): one line for the user."""


@dataclass(frozen=True)
class Run:
    """What one grading run decided. ``passed``/``total`` are ``None`` when nothing was
    counted (no file, a grading error); ``tests`` are its entries in Gradescope's format."""

    student: str
    exercise: str
    verdict: str  # "pass" | "fail" | "error"
    passed: int | None
    total: int | None
    seconds: float
    first_failure: str | None
    score: float = 0.0
    output: str = ""
    tests: list[dict] = field(default_factory=list)

    def row(self) -> dict:
        """Its line of ``grades.csv``."""
        blank = lambda v: "" if v is None else v  # noqa: E731
        return {"student": self.student, "exercise": self.exercise, "verdict": self.verdict,
                "passed": blank(self.passed), "total": blank(self.total),
                "seconds": f"{self.seconds:.1f}", "first_failure": blank(self.first_failure)}


def exercise_file(exercise: str) -> str:
    """The file name of ``exercise`` (``ex1`` -> ``ex1_bounded_fifo.py``), from the grader's
    table (:data:`exercises.policy.EXERCISES`); :class:`BatchError` for an unknown exercise."""
    if exercise not in EXERCISES:
        raise BatchError(f"unknown exercise {exercise!r}; choose from {', '.join(EXERCISES)}")
    return EXERCISES[exercise].file


def find_submission(folder: Path, name: str) -> tuple[Path | None, str | None]:
    """``(path, None)`` for the file ``name`` of a submission: at the top of ``folder``, or
    else the one file of that name below it (an uploaded folder); ``(None, why)`` when there
    is none or more than one. Hidden folders (``.git``, ``__MACOSX``) are not looked into."""
    top = folder / name
    if top.is_file():
        return top, None
    below = sorted(p for p in folder.rglob(name) if p.is_file() and not any(
        part.startswith((".", "__MACOSX")) for part in p.relative_to(folder).parts[:-1]))
    if len(below) == 1:
        return below[0], None
    if not below:
        return None, f"no submission: there is no {name} in the submission"
    where = ", ".join(str(p.relative_to(folder)) for p in below)
    return None, f"{len(below)} files named {name} ({where}): submit one"


def _failed_entry(exercise: str, what: str, output: str) -> dict:
    return {"name": f"{exercise}: {what}", "status": "failed", "score": 0, "max_score": 0,
            "output": output, "visibility": "visible"}


def _kill_group(pgid: int) -> None:
    """SIGKILL to every process left in the group ``pgid`` (none left is fine)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Stopped(Exception):
    """The batch was interrupted: no new grading run starts."""


class Children:
    """The process groups of the grading runs under way. An interrupt (Ctrl-C) reaches only
    the batch, since each run leads a session of its own: :meth:`stop` kills them all and
    refuses new ones. Thread-safe (one lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards _pids and _stopped
        self._pids: set[int] = set()
        self._stopped = False

    def start(self, cmd: list[str], **popen) -> subprocess.Popen:
        """``Popen(cmd, start_new_session=True, **popen)``, remembered; :class:`Stopped`
        after :meth:`stop`."""
        with self._lock:
            if self._stopped:
                raise Stopped
            child = subprocess.Popen(cmd, start_new_session=True, **popen)
            self._pids.add(child.pid)
            return child

    def done(self, pid: int) -> None:
        """The run of ``pid`` is over (its group was killed)."""
        with self._lock:
            self._pids.discard(pid)

    def stop(self) -> int:
        """Kill every group under way, start no more; how many were killed."""
        with self._lock:
            self._stopped = True
            for pid in self._pids:
                _kill_group(pid)
            return len(self._pids)


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"


def verdict(exercise: str, status: int, data: dict | None) -> tuple[str, str | None]:
    """``(verdict, why)`` of a finished grader from its exit ``status`` and its JSON ``data``:
    ``pass`` only with exit 0, the JSON's ``pass`` and ``passed == total > 0``; ``fail`` only
    with exit 1 and the JSON's ``fail``; else ``error`` and why (``why`` is ``None`` unless
    ``error``)."""
    entry = ((data or {}).get("crawlab", {}).get("exercises", {}) or {}).get(exercise)
    if not isinstance(entry, dict):
        return "error", f"the grader (exit status {status}) reported no result for {exercise}"
    said, passed, total = entry.get("verdict"), entry.get("passed"), entry.get("total")
    if status == 0 and said == "pass" and isinstance(total, int) and total > 0 \
            and passed == total:
        return "pass", None
    if status == 1 and said == "fail":
        return "fail", None
    return "error", (f"the grader's exit status {status} disagrees with its verdict {said!r} "
                     f"({passed} of {total} checks)")


def grade_one(student: str, exercise: str, folder: Path, *, hidden: bool,
              timeout: float = TIMEOUT, grader: Path = GRADER,
              children: Children | None = None) -> Run:
    """Grade ``exercise`` of the submission in ``folder`` in a child process (see the module
    docstring), started through ``children``; never raises for anything the submission
    does (:class:`Stopped` once ``children`` was stopped)."""
    children = children or Children()
    name = exercise_file(exercise)
    source, missing = find_submission(folder, name)
    if source is None:
        return Run(student, exercise, "fail", 0, None, 0.0, missing, output=missing,
                   tests=[_failed_entry(exercise, f"{name} submitted", missing)])
    with tempfile.TemporaryDirectory(prefix=f"crawlab-grade-{exercise}-") as tmp:
        work = Path(tmp)
        (work / "submission").mkdir()
        shutil.copyfile(source, work / "submission" / name)
        results = work / "results.json"
        cmd = [sys.executable, str(grader), exercise, "--dir", str(work / "submission"),
               "--json", str(results), *(["--hidden"] if hidden else [])]
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        with open(work / "stdout", "wb") as out, open(work / "stderr", "wb") as err:
            child = children.start(cmd, cwd=work, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=err, env=env)
            try:
                status = child.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_group(child.pid)  # the grader's leftovers too, once it has answered
            if timed_out:
                status = child.wait()
            children.done(child.pid)
        seconds = time.monotonic() - started
        stdout = (work / "stdout").read_text(errors="replace")
        stderr = (work / "stderr").read_text(errors="replace")
        if timed_out:
            why = (f"no verdict in {timeout:g} s: the grading run was stopped "
                   "(its whole process group killed)")
            return _error(student, exercise, seconds, why, stdout + stderr)
        try:
            data = json.loads(results.read_text())
        except (OSError, ValueError):
            data = None
    if status == EXIT_USAGE:
        return _error(student, exercise, seconds, f"grading error: {_one_line(stderr)}",
                      stdout + stderr)
    if data is None:
        how = f"signal {-status}" if status < 0 else f"exit status {status}"
        return _error(student, exercise, seconds,
                      f"the grader ended with {how} and wrote no results", stdout + stderr)
    said, why = verdict(exercise, status, data)
    if said == "error":
        return _error(student, exercise, seconds, why, stdout + stderr)
    entry = data["crawlab"]["exercises"][exercise]
    return Run(student, exercise, said, entry.get("passed"), entry.get("total"), seconds,
               entry.get("first_failure"), score=float(data.get("score", 0) or 0),
               output=str(data.get("output", "")), tests=list(data.get("tests", [])))


def _error(student: str, exercise: str, seconds: float, why: str, log: str) -> Run:
    tail = "\n".join(log.splitlines()[-40:])
    return Run(student, exercise, "error", None, None, seconds, why, output=tail,
               tests=[_failed_entry(exercise, "grading", f"{why}\n{tail}".strip())])


def student_results(runs: Iterable[Run]) -> dict:
    """One student's ``results.json`` in Gradescope's format: the runs' scores added, their
    tests one after the other, a summary line per exercise first in ``output``, and the
    per-exercise verdicts under ``crawlab``."""
    runs = list(runs)
    lines = []
    for run in runs:
        counted = "" if run.total is None else f", {run.passed} of {run.total} checks passed"
        lines.append(f"{run.exercise}: {run.verdict.upper()}{counted}"
                     + (f"; first failure: {run.first_failure}" if run.first_failure else ""))
    output = "\n".join([*lines, *(r.output for r in runs if r.output)])
    return {
        "score": sum(r.score for r in runs),
        "output": output,
        "tests": [t for r in runs for t in r.tests],
        "crawlab": {"exercises": {r.exercise: {
            "verdict": r.verdict, "passed": r.passed, "total": r.total,
            "seconds": round(r.seconds, 1), "first_failure": r.first_failure} for r in runs}},
    }


def _students(submissions: Path) -> list[Path]:
    return sorted((p for p in submissions.iterdir() if p.is_dir()
                   and not p.name.startswith(".")), key=lambda p: p.name)


def _check_batch(exercises: list[str], submissions: Path, out: Path, jobs: int) -> list[Path]:
    """The student folders, or :class:`BatchError` for bad input."""
    if not exercises:
        raise BatchError("name at least one exercise (ex1, ex2, ...)")
    for ex in exercises:
        exercise_file(ex)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise BatchError(f"--jobs: must be a positive integer, got {jobs!r}")
    if not submissions.is_dir():
        raise BatchError(f"--submissions: no such folder {str(submissions)!r}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BatchError(f"--out: {str(out)!r} exists and is not an empty folder")
    inside = out.resolve()
    if inside == submissions.resolve() or submissions.resolve() in inside.parents:
        raise BatchError("--out must not be inside --submissions (it would be a student)")
    students = _students(submissions)
    if not students:
        raise BatchError(f"--submissions: {str(submissions)!r} holds no student folder "
                         "(one folder per student)")
    if any(s.name == GRADES for s in students):
        raise BatchError(f"--submissions: a student folder is named {GRADES!r}, the name of "
                         "OUT's table of grades: rename the folder")
    try:  # now, not after hours of grading
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BatchError(f"--out: cannot make {str(out)!r}: {exc.strerror or exc}") from None
    return students


def _progress(total: int) -> tuple[Callable[[Run], None], Callable[[], None]]:
    """``(advance, close)``: a rich progress bar on a terminal, else one short line a run on
    standard error (a log file keeps them)."""
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress("grading", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       "{task.description}", console=Console(stderr=True), transient=False)
        task = bar.add_task("", total=total)
        bar.start()

        def advance(run: Run) -> None:
            bar.update(task, advance=1, description=f"{run.student} {run.exercise}")

        return advance, bar.stop
    done = [0]

    def line(run: Run) -> None:
        done[0] += 1
        print(f"[{done[0]}/{total}] {run.student} {run.exercise}: {run.verdict} "
              f"({run.seconds:.1f} s)", file=sys.stderr, flush=True)

    return line, lambda: None


def main(exercises: list[str], submissions: Path, out: Path, jobs: int, hidden: bool, *,
         timeout: float = TIMEOUT, grader: Path = GRADER) -> int:
    """Grade ``exercises`` of every student folder of ``submissions`` with ``jobs`` runs at
    once; write ``out/grades.csv`` and ``out/STUDENT/results.json``. Exit status: 0 when every
    run reached a verdict (pass or fail), 1 when some ended in a grading error (the CSV says
    which), 2 on bad input (one line on standard error, nothing graded)."""
    try:
        students = _check_batch(list(exercises), Path(submissions), Path(out), jobs)
    except BatchError as exc:
        print(f"grade.py: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(out)
    pairs = [(s, ex) for s in students for ex in exercises]
    advance, close = _progress(len(pairs))
    runs: dict[tuple[str, str], Run] = {}
    children = Children()
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(grade_one, s.name, ex, s, hidden=hidden, timeout=timeout,
                                   grader=grader, children=children) for s, ex in pairs]
            try:
                for future in as_completed(futures):
                    run = future.result()
                    runs[run.student, run.exercise] = run
                    advance(run)
            except KeyboardInterrupt:
                stopped = children.stop()
                for future in futures:
                    future.cancel()
                print(f"grade.py: interrupted: {stopped} grading run(s) under way stopped, "
                      "nothing written", file=sys.stderr)
                return EXIT_INTERRUPTED
    finally:
        close()
    ordered = [runs[s.name, ex] for s, ex in pairs]
    with open(out / GRADES, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(run.row() for run in ordered)
    for student in students:
        (out / student.name).mkdir()
        mine = [r for r in ordered if r.student == student.name]
        (out / student.name / "results.json").write_text(
            json.dumps(student_results(mine), indent=2) + "\n")
    counts = {v: sum(r.verdict == v for r in ordered) for v in ("pass", "fail", "error")}
    print(f"graded {len(students)} students x {len(exercises)} exercises: "
          f"{counts['pass']} pass, {counts['fail']} fail, {counts['error']} error "
          f"-> {out / GRADES}")
    return 1 if counts["error"] else 0


def gradescope(root: Path, *, timeout: float = TIMEOUT, grader: Path = GRADER) -> int:
    """Gradescope's ``run_autograder``: grade, hidden checks included, every exercise whose
    file is in ``root/submission`` and write ``root/results/results.json`` (always: a
    submission with no exercise file, or a grading that broke, gets a results.json that says
    so with score 0). Returns 0 when the file was written."""
    submission, results = root / "submission", root / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    try:
        names = {key: ex.file for key, ex in EXERCISES.items()}
        present = [ex for ex, name in names.items()
                   if submission.is_dir() and find_submission(submission, name)[0]]
        if not present:
            data = {"score": 0, "tests": [], "crawlab": {"exercises": {}},
                    "output": ("No exercise file in the submission: upload one or more of "
                               + ", ".join(names.values()) + ", named exactly so.")}
        else:
            data = student_results(grade_one("submission", ex, submission, hidden=True,
                                             timeout=timeout, grader=grader) for ex in present)
    except Exception as exc:  # the harness must always answer Gradescope
        data = {"score": 0, "tests": [], "crawlab": {"exercises": {}},
                "output": f"The autograder failed ({type(exc).__name__}: {exc}); "
                          "tell your instructor."}
    results.write_text(json.dumps(data, indent=2) + "\n")
    return 0


def _cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="batch.py", description=__doc__.split("\n")[0])
    parser.add_argument("--gradescope", type=Path, required=True, metavar="ROOT",
                        help="Gradescope's root folder (submission/ in, results/ out)")
    args = parser.parse_args(argv)
    return gradescope(args.gradescope)


if __name__ == "__main__":
    raise SystemExit(_cli())
