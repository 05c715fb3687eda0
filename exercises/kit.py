"""What a class receives, and what Gradescope receives: the student kit and ``autograder.zip``.

``crawlab course student-kit DEST`` (:func:`write_student_kit`) copies the files git tracks in
this repository (``git ls-files``: untracked files never ship), minus :data:`LEAVE_OUT`, with
the few files of :data:`EDITS` edited so that the kit's own tests and book do not ask for what
was left out. Then :func:`solution_leaks` looks for the reference solutions' text in every file
written (any :data:`WINDOW` consecutive lines a solution has and its starter has not): a kit with
a leak is deleted and the command fails, so a leaking kit is never left on disk.

``crawlab course gradescope DEST`` (:func:`write_gradescope_zip`) writes ``autograder.zip``: the
kit's files plus the hidden checks (:data:`HIDDEN`) under ``crawlab/``, Gradescope's
``setup.sh`` (a Python venv and ``pip install -e 'crawlab[test]'``, from package registries only)
and ``run_autograder`` (``python exercises/batch.py --gradescope /autograder``). The reference
solutions and answers are not in the zip either: a submission that looks for them on the
grading machine finds nothing. Zip entries carry a fixed date, so the same tree gives the same
bytes.

Each function reads the repository and writes only under its ``dest``; none is thread-safe
against a concurrent writer of ``dest``. Cost: one pass over the tracked files, O(total size).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EDITS", "HIDDEN", "LEAVE_OUT", "KitError", "Leak",
           "kit_files", "solution_leaks", "write_gradescope_zip", "write_student_kit"]

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = "docs/instructor/solutions"
STARTERS = "exercises/starters"
HIDDEN = "tests/autograder/hidden/"

#: What a class never receives: a tracked path, or a folder (ending in ``/``), and why.
LEAVE_OUT = {
    "docs/instructor/": "the instructor notes: answers and reference solutions",
    HIDDEN: "the hidden checks, which only the instructor's grading runs",
    "tests/autograder/cheats/": "cheating submissions that test the grader: near-solutions, "
                                "and a guide to cheating",
    "tests/autograder/wrong/": "wrong submissions that test the grader: near-solutions, each "
                               "with one bug",
    "tests/test_exercises.py": "grades the reference solutions, and wrong solutions made as "
                               "small changes of them",
    "tests/test_autograder.py": "grades the cheating submissions (not in the kit)",
    "tests/test_grader_rules.py": "tests the grader's rules on the reference solutions",
    "tests/test_course.py": "checks the kit and the Gradescope zip against the solutions",
    "tests/test_batch.py": "checks batch grading on the reference solutions",
    "tests/test_userclass.py": "runs the reference solutions through crawlab's commands",
}


#: How many consecutive lines of a reference solution's own (the lines its starter file does
#: not have, stripped, blank lines aside) make a leak when a kit file has them in a row (its own
#: lines that the starter does not have, the same way). Single lines such as ``with
#: self._lock:`` are in every frontier of the library, and three can be a common idiom (a
#: deadline check of ``tests/countserver.py`` matches ex1's); four in a row are in no file the
#: kit ships. No overlap is excused: a starter that hands out another exercise's answer (as
#: ex2's once did, with ex1's methods written over its monitor) is a leak like any other.
WINDOW = 4


class KitError(ValueError):
    """The kit or the zip cannot be written (bad destination, not a git clone, a leak)."""


@dataclass(frozen=True)
class Leak:
    """``lines`` consecutive lines of ``solution`` found in the kit's ``path``."""

    solution: str
    path: str
    lines: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.path} holds {self.solution}'s lines {' / '.join(self.lines)!r}"


# ---- edits: each takes the file's text and returns the kit's, or raises KitError -----------

def drop_functions(*names: str) -> Callable[[str], str]:
    """An edit that removes the top-level functions ``names`` (decorators included)."""

    def edit(text: str) -> str:
        nodes = {n.name: n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
        lines = text.splitlines(keepends=True)
        spans = []
        for name in names:
            if name not in nodes:
                raise KitError(f"edit: no function {name}() to remove any more")
            node = nodes[name]
            spans.append((min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1,
                          node.end_lineno))
        for start, end in sorted(spans, reverse=True):
            del lines[start:end]
        return re.sub(r"\n{4,}", "\n\n\n", "".join(lines))

    return edit


def drop_keys(variable: str, prefix: str) -> Callable[[str], str]:
    """An edit that removes the entries whose key starts with ``prefix`` from the dict
    literal assigned to ``variable`` at the top of a module."""

    def edit(text: str) -> str:
        found = [n.value for n in ast.parse(text).body if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == variable for t in n.targets)]
        if not found or not isinstance(found[0], ast.Dict):
            raise KitError(f"edit: no dict {variable} = {{...}} any more")
        starts = [0, *(len(line) for line in text.splitlines(keepends=True))]
        for i in range(1, len(starts)):
            starts[i] += starts[i - 1]
        at = lambda line, col: starts[line - 1] + col  # noqa: E731 (ast columns: utf-8 bytes)
        keys, values = found[0].keys, found[0].values
        spans = []
        for i, key in enumerate(keys):
            if isinstance(key, ast.Constant) and str(key.value).startswith(prefix):
                if i + 1 < len(keys):
                    spans.append((at(key.lineno, key.col_offset),
                                  at(keys[i + 1].lineno, keys[i + 1].col_offset)))
                else:
                    prev = values[i - 1]
                    spans.append((at(prev.end_lineno, prev.end_col_offset),
                                  at(values[i].end_lineno, values[i].end_col_offset)))
        if not spans:
            raise KitError(f"edit: no key of {variable} starts with {prefix!r} any more")
        for begin, end in sorted(spans, reverse=True):
            text = text[:begin] + text[end:]
        return text

    return edit


#: Files the kit ships edited: path -> (edit, why).
EDITS = {
    "tests/test_book.py": (drop_functions("test_instructor_edition_builds_without_warnings"),
                           "builds the instructor edition, whose pages the kit does not have"),
    "docs/book_numbers.py": (drop_keys("PAGES", "instructor/"),
                             "lists the instructor pages' numbers, with hints to the answers"),
}


# ---- the kit -------------------------------------------------------------------------------

def _left_out(path: str) -> bool:
    return any(path == rule or (rule.endswith("/") and path.startswith(rule))
               for rule in LEAVE_OUT)


def tracked_files(root: Path = ROOT) -> list[str]:
    """Every file git tracks in ``root`` that exists in the working tree, sorted."""
    try:
        run = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KitError(f"cannot run git in {root}: {exc}") from None
    if run.returncode != 0:
        raise KitError(f"{root} is not a git clone of crawlab (git ls-files failed)")
    names = run.stdout.decode().split("\0")
    return sorted(n for n in names if n and (root / n).is_file())


def kit_files(root: Path = ROOT) -> list[str]:
    """The tracked files the student kit ships (edited or not), sorted."""
    return [p for p in tracked_files(root) if not _left_out(p)]


def _check_dest(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise KitError(f"{dest} exists and is not an empty folder")


def _text_lines(data: bytes) -> list[str] | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None  # a picture: no solution text in it
    return [line.strip() for line in text.splitlines() if line.strip()]


def _windows(lines: list[str], given: set[str]) -> set[tuple[str, ...]]:
    """Every run of :data:`WINDOW` consecutive ``lines`` once the ``given`` ones are out."""
    own = [line for line in lines if line not in given]
    return {tuple(own[i:i + WINDOW]) for i in range(len(own) - WINDOW + 1)}


def solution_leaks(files: Iterable[tuple[str, bytes]], root: Path = ROOT) -> list[Leak]:
    """The reference solutions' text found in ``files`` (name, content), at most one leak per
    solution and file: see :data:`WINDOW`."""
    solutions = []
    for solution in sorted((root / SOLUTIONS).glob("*.py")):
        starter = root / STARTERS / solution.name
        given = set(_text_lines(starter.read_bytes()) or []) if starter.is_file() else set()
        own = _windows(_text_lines(solution.read_bytes()) or [], given)
        solutions.append((solution.name, given, own))
    leaks = []
    for name, data in files:
        lines = _text_lines(data)
        if not lines:
            continue
        for solution, given, own in solutions:
            shared = sorted(own & _windows(lines, given))
            if shared:
                leaks.append(Leak(solution, name, shared[0]))
    return leaks


def _copy(root: Path, files: list[str], dest: Path) -> None:
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in EDITS:
            edit, _ = EDITS[name]
            target.write_text(edit((root / name).read_text()))
        else:
            shutil.copy2(root / name, target, follow_symlinks=False)


def write_student_kit(dest: Path, root: Path = ROOT) -> None:
    """Write the student kit into ``dest`` (absent or an empty folder). :class:`KitError` when
    ``dest`` is not empty, ``root`` is no git clone, an edit no longer applies, or a solution
    leaked (the kit is then deleted)."""
    _check_dest(dest)
    files = kit_files(root)
    missing = sorted(set(EDITS) - set(files))
    if missing:
        raise KitError(f"edit: {missing[0]} is no longer tracked: update EDITS in exercises/kit.py")
    created = not dest.exists()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        _copy(root, files, dest)
        leaks = solution_leaks(_read_tree(dest), root)
        if leaks:
            raise KitError(f"the kit would leak a reference solution: {leaks[0]} "
                           f"({len(leaks)} leak(s)); nothing was written")
    except BaseException:
        shutil.rmtree(dest) if created else _empty(dest)
        raise


def _read_tree(folder: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        yield path.relative_to(folder).as_posix(), path.read_bytes()


def _empty(folder: Path) -> None:
    for child in folder.iterdir():
        shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()


# ---- the Gradescope zip --------------------------------------------------------------------

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, to build the grading image: the zip is unpacked in
# $ROOT/source (ROOT is /autograder). It installs Python 3 with venv, and crawlab with its
# test extra from the copy in source/crawlab, from the package registries only (apt, PyPI).
set -euo pipefail
ROOT="${CRAWLAB_AUTOGRADER:-/autograder}"
if ! python3 -c 'import sys, venv; assert sys.version_info >= (3, 10)' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
        python3 python3-venv python3-pip
fi
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/pip" install -q --upgrade pip
"$ROOT/venv/bin/pip" install -q -e "$ROOT/source/crawlab[test]"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: the student's files are in $ROOT/submission/, the
# grade goes to $ROOT/results/results.json (always written, score 0 when there is no exercise
# file). ROOT is /autograder; CRAWLAB_AUTOGRADER replaces it (a test lays out a temporary
# folder the same way), CRAWLAB_AUTOGRADER_PYTHON the interpreter (default: setup.sh's venv).
set -euo pipefail
ROOT="${CRAWLAB_AUTOGRADER:-/autograder}"
PYTHON="${CRAWLAB_AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
exec "$PYTHON" "$ROOT/source/crawlab/exercises/batch.py" --gradescope "$ROOT"
"""

_DATE = (1980, 1, 1, 0, 0, 0)


def zip_files(root: Path = ROOT) -> list[str]:
    """The repository files of ``autograder.zip`` (under ``crawlab/``): the kit's files and
    the hidden checks, sorted."""
    return sorted({*kit_files(root), *(p for p in tracked_files(root) if p.startswith(HIDDEN))})


def write_gradescope_zip(dest: Path, root: Path = ROOT) -> Path:
    """Write ``dest/autograder.zip`` (``dest`` is created if absent; an old zip is replaced);
    return its path. The repository copy is checked for leaks like the kit."""
    if dest.exists() and not dest.is_dir():
        raise KitError(f"{dest} exists and is not a folder")
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / "autograder.zip"
    staging = dest / ".autograder.zip.tmp"
    files = {name: (EDITS[name][0]((root / name).read_text()).encode() if name in EDITS
                    else (root / name).read_bytes()) for name in zip_files(root)}
    leaks = solution_leaks(files.items(), root)
    if leaks:
        raise KitError(f"the zip would hold a reference solution: {leaks[0]}; not written")
    with zipfile.ZipFile(staging, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name, _DATE)
            info.external_attr = (0o100755 & 0xFFFF) << 16
            zf.writestr(info, text, zipfile.ZIP_DEFLATED)
        for name, data in files.items():
            info = zipfile.ZipInfo(f"crawlab/{name}", _DATE)
            info.external_attr = ((root / name).stat().st_mode & 0xFFFF) << 16
            zf.writestr(info, data, zipfile.ZIP_DEFLATED)
    staging.replace(target)
    return target
