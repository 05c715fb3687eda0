"""Grade the exercises: ``python exercises/grade.py [EXERCISE ...] [--dir DIR]``.

EXERCISE is ``ex1`` .. ``ex4`` or ``all`` (the default). Your files are ``exercises/exN_*.py``
(made from the starters in ``exercises/starters/`` the first time you grade); ``--dir`` grades
the files of another directory. Each exercise is graded by the judge (:mod:`exercises.judge`):
a static check of the source against the exercise's rules (:mod:`exercises.policy`), then
every check in a separate, limited process, each result read by the judge as it happens.

Prints one line per exercise and, for a FAIL, the first failing check: what broke, the
interleaving when a schedule was explored, and the command that reruns just that check
(``--check``); ``-v`` shows every check. ``--json FILE`` writes Gradescope's ``results.json``.
``--hidden`` also runs the hidden checks (the instructor's copy only). Batch grading of a class:
``--submissions DIR --out OUT [--jobs N]`` (one folder per student; it writes every verdict
to OUT, so it takes none of ``--dir``, ``--check``, ``--json``, ``-v``, ``-q``, and ``--out``
and ``--jobs`` mean nothing without it: a flag the mode would ignore is refused, in one line).

Exit status: 0 if every exercise passes, 1 if one fails, 2 on bad input or when the grading
itself cannot be done (a missing dependency: never a FAIL of yours).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the course root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from exercises.policy import EXERCISES, INSTALL, ROOT  # noqa: E402 (the standard library only)

try:
    from crawlers.args import EXIT_USAGE, OneLineParser, positive_int
    from exercises.judge import Grade, GradingError, grade
    from exercises.static import SourceError
except ImportError as exc:  # the README's install was not done for this Python
    if __name__ != "__main__" or (exc.name or "").split(".")[0] in (
            "crawlers", "exercises", "frontier", "tests"):
        raise  # a module of the course itself: a broken copy, not a missing install
    print(f"grade.py: this Python ({sys.executable}) lacks {exc.name or exc}, which the course "
          f"needs: install the course with  {INSTALL}  (see the README), then grade again",
          file=sys.stderr)
    raise SystemExit(2) from None  # the grading cannot be done: never a FAIL of yours

WORK = ROOT / "exercises"
MAX_FAIL_LINES = 40


def parser() -> OneLineParser:
    p = OneLineParser(prog="grade.py", description=__doc__.split("\n")[0])
    p.add_argument("exercise", nargs="*", default=["all"], help="ex1 .. ex4 or all (default)")
    p.add_argument("--dir", type=Path, default=None,
                   help="directory holding the exercise files (default: exercises/)")
    p.add_argument("--check", metavar="NAME", help="run only the checks whose name has NAME")
    p.add_argument("-v", "--verbose", action="store_true", help="show every check")
    p.add_argument("-q", "--quiet", action="store_true", help="only the verdict lines")
    p.add_argument("--hidden", action="store_true",
                   help="also run the hidden checks (the instructor's copy only)")
    p.add_argument("--json", type=Path, metavar="FILE",
                   help="write Gradescope's results.json for the graded exercises")
    p.add_argument("--submissions", type=Path, metavar="DIR",
                   help="grade a class: DIR holds one folder per student (needs --out)")
    p.add_argument("--out", type=Path, metavar="OUT", help="with --submissions: where to write")
    p.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                   help="with --submissions: students graded at once (default 1)")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    wanted = list(EXERCISES) if "all" in args.exercise else list(dict.fromkeys(args.exercise))
    unknown = [e for e in wanted if e not in EXERCISES]
    if unknown:
        p.error(f"unknown exercise {unknown[0]!r}; choose from {', '.join(EXERCISES)}, all")
    check_flags(p, args)
    if args.submissions is not None:
        from exercises import batch

        return batch.main(wanted, args.submissions, args.out, args.jobs or 1, args.hidden)
    if args.dir is not None and not args.dir.is_dir():
        p.error(f"--dir: no such directory {str(args.dir)!r}")
    if args.json is not None:  # now, not after the grading
        json_problem = writable_file(args.json)
        if json_problem:
            p.error(f"--json: {json_problem}")
    directory = (args.dir or WORK).resolve()
    grades: list[Grade] = []
    status = 0
    for key in wanted:
        ex = EXERCISES[key]
        file = directory / ex.file
        if not file.exists() and args.dir is None:
            shutil.copy(ex.starter, file)
            print(f"{key}: made {file.relative_to(ROOT)} from its starter: write your code in "
                  "its fenced part", file=sys.stderr)
        try:
            g = grade(key, directory, hidden=args.hidden, only=args.check)
        except (FileNotFoundError, SourceError) as exc:
            p.error(str(exc))
        except GradingError as exc:
            print(f"{key}  {ex.title:<34} ERROR: {exc}", file=sys.stderr)
            grades.append(Grade(key, "error", error=str(exc)))
            status = EXIT_USAGE
            continue
        grades.append(g)
        print(render(g, verbose=args.verbose, quiet=args.quiet, directory=args.dir))
        if g.verdict != "pass":
            status = status or 1
    if args.json:
        write_json(grades, args.json)
    return status


#: The flags only one mode reads: grading a class (``--submissions``) reads only the exercises,
#: ``--hidden`` and these; grading one's own files reads none of them.
BATCH_ONLY = (("out", "--out"), ("jobs", "--jobs"))
#: The flags grading a class does not read (each student's runs write their own results.json
#: and their verdicts go to OUT/grades.csv).
SINGLE_ONLY = (("dir", "--dir"), ("check", "--check"), ("json", "--json"),
               ("verbose", "-v/--verbose"), ("quiet", "-q/--quiet"))


def check_flags(p: OneLineParser, args) -> None:
    """Refuse, in one line and before any grading, a flag the chosen mode would ignore and
    flags that contradict each other."""
    if args.verbose and args.quiet:
        p.error("-v/--verbose and -q/--quiet contradict each other: give one")
    if args.submissions is None:
        for dest, flag in BATCH_ONLY:
            if getattr(args, dest) is not None:
                p.error(f"{flag} applies to grading a class (--submissions DIR --out OUT)")
        return
    if args.out is None:
        p.error("--submissions needs --out OUT")
    for dest, flag in SINGLE_ONLY:
        if getattr(args, dest) not in (None, False):
            p.error(f"{flag} does not apply to --submissions (each student's results go to "
                    "OUT/grades.csv and OUT/STUDENT/results.json)")


def verdict_line(g: Grade) -> str:
    ex = EXERCISES[g.exercise]
    if g.verdict == "error":
        return f"{g.exercise}  {ex.title:<34} ERROR: {g.error}"
    if g.refused:
        return f"{g.exercise}  {ex.title:<34} FAIL (refused before running: {g.refused[0]})"
    word = "PASS" if g.verdict == "pass" else "FAIL"
    return (f"{g.exercise}  {ex.title:<34} {word}  ({g.passed} of {len(g.checks)} checks, "
            f"{g.seconds:.0f} s)")


def render(g: Grade, *, verbose: bool = False, quiet: bool = False,
           directory: Path | None = None) -> str:
    """What the student reads: the verdict line; for a FAIL the first failing check (at most
    :data:`MAX_FAIL_LINES` lines) unless ``quiet``; every check with ``verbose``."""
    lines = [verdict_line(g)]
    if quiet:
        return lines[0]
    if g.refused:
        lines += [f"  {r}" for r in g.refused[1:6]]
        lines.append("  The exercise's rules are on the book's autograder page; nothing of "
                     "the file was run.")
        return "\n".join(lines)
    if verbose:
        for c in g.checks:
            message = c.message.replace("\n", "\n      ")  # a message never starts a line
            lines.append(f"  {c.status.upper():8} {c.name}" + (f": {message}" if not
                                                                c.passed else ""))
            if not c.passed and c.text:
                lines += [f"      {t}" for t in c.text.splitlines()]
    else:
        c = g.first_failure
        if c is not None:
            lines += _first_failure(g, c, directory)
    if g.hidden_available and g.verdict == "pass":
        lines.append(f"  ({g.hidden_available} hidden suite(s) of checks exist: your "
                     "instructor's grading runs them too)")
    return "\n".join(lines[:MAX_FAIL_LINES] if not verbose else lines)


def _first_failure(g: Grade, c, directory: Path | None) -> list[str]:
    failed = sum(not x.passed for x in g.checks)
    out = [f"  first failing check ({failed} not passed): {c.name}",
           f"  what broke: {c.message.strip().splitlines()[0] if c.message.strip() else c.status}"]
    # the interleaving table of an explored check (the explorer draws it; in another check a
    # line starting with "|" is only what the file's own exception said)
    table = [t for t in c.text.splitlines() if t.startswith("|")] if "::test_explored" in c.id \
        else []
    if table:
        head = [t for t in table[:2] if t.startswith(("| step", "|---"))]
        out.append("  the interleaving that broke it (one column per thread; its last steps; "
                   "-v for all):")
        out += [f"    {t}" for t in head + table[len(head):][-(24 - len(head)):]]
    rerun = f"python exercises/grade.py {g.exercise} --check '{c.name.split('::')[-1]}' -v"
    if directory is not None:
        rerun += f" --dir {directory}"
    out.append(f"  rerun just this check: {rerun}")
    return out


def results_json(grades: list[Grade]) -> dict:
    """Gradescope's ``results.json`` for ``grades`` (one point per check; a refused file or a
    grading error is one failed test with the reason)."""
    tests = []
    summary = {}
    for g in grades:
        if g.verdict == "error" or g.refused:
            why = g.error or "refused before running: " + "; ".join(g.refused[:5])
            tests.append({"name": f"{g.exercise}: grading", "status": "failed", "score": 0,
                          "max_score": 1, "output": why, "visibility": "visible"})
        for c in g.checks:
            tests.append({"name": f"{g.exercise}: {c.name}",
                          "status": "passed" if c.passed else "failed",
                          "score": 1 if c.passed else 0, "max_score": 1,
                          "output": "" if c.passed else f"{c.message}\n{c.text}"[:4000],
                          "visibility": "after_published" if c.hidden else "visible"})
        first = g.first_failure
        summary[g.exercise] = {
            "verdict": g.verdict, "passed": g.passed, "total": len(g.checks),
            "seconds": round(g.seconds, 1),
            "first_failure": (g.error or (g.refused[0] if g.refused else None)
                              or (f"{first.name}: {first.message}" if first else None)),
        }
    return {"score": sum(t["score"] for t in tests),
            "output": "\n".join(verdict_line(g) for g in grades),
            "visibility": "visible", "stdout_visibility": "hidden",
            "tests": tests, "crawlab": {"exercises": summary}}


def writable_file(path: Path) -> str | None:
    """Why ``path`` cannot be written as a file (its folder made if missing), or None."""
    if path.is_dir():
        return f"{str(path)!r} is a folder"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make the folder of {str(path)!r}: {exc.strerror or exc}"
    if not os.access(path.parent, os.W_OK) or (path.exists()
                                               and not os.access(path, os.W_OK)):
        return f"{str(path)!r} cannot be written"
    return None


def write_json(grades: list[Grade], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(grades), indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    # `grade.py ... | head` ends quietly. Only here, in the script's own process: main() is
    # also called in-process (by tests), where a default SIGPIPE would kill the caller the
    # next time it wrote to a socket whose peer had gone.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    raise SystemExit(main())
