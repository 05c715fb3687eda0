"""``crawlab course``: the student kit holds no instructor material and still works; Gradescope's
``autograder.zip`` has the layout Gradescope expects, and its ``run_autograder`` grades a
reference and a wrong submission laid out as Gradescope lays them out.

The kit is written once per module (``kit``) by the command itself, in a subprocess. The leak
oracle below is the test's own, written apart from :func:`exercises.kit.solution_leaks`: a
file leaks a reference solution when, once the lines of the exercise's starter file are set
aside (stripped, blank lines too), :data:`WINDOW` consecutive lines of it are also consecutive
in the solution.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from exercises import kit as kitmod

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "docs" / "instructor" / "solutions"
STARTERS = ROOT / "exercises" / "starters"
WINDOW = 4
# The grader's explored checks need frontrun, which has no free-threaded wheel: where it is
# missing the grader says so (exit 2), and the tests that grade skip with the reason.
needs_frontrun = pytest.mark.skipif(importlib.util.find_spec("frontrun") is None,
                                    reason="frontrun (crawlab[explore]) is not installed here")


def crawlab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crawlers", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return [p for p in out.splitlines() if (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("kit") / "crawlab-student"
    run = crawlab("course", "student-kit", str(dest))
    assert run.returncode == 0, run.stderr
    return dest


def own_lines(text: str, starter: set[str]) -> list[str]:
    return [s for s in (line.strip() for line in text.splitlines()) if s and s not in starter]


def runs(lines: list[str]) -> set[tuple[str, ...]]:
    return {tuple(lines[i:i + WINDOW]) for i in range(len(lines) - WINDOW + 1)}


def starter_lines(solution: Path) -> set[str]:
    return {line.strip() for line in (STARTERS / solution.name).read_text().splitlines()}


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def leaks(folder: Path) -> list[tuple[str, str]]:
    """(solution, file) pairs whose text the oracle finds (no overlap is excused: ex2's starter
    once handed out ex1's methods, "on purpose")."""
    found = []
    for solution in sorted(SOLUTIONS.glob("*.py")):
        starter = starter_lines(solution)
        windows = runs(own_lines(solution.read_text(), starter))
        assert len(windows) >= 10, f"{solution.name}: too few lines of its own to check"
        for path in files_under(folder):
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            name = path.relative_to(folder).as_posix()
            if windows & runs(own_lines(text, starter)):
                found.append((solution.name, name))
    return found


# ---- the student kit ---------------------------------------------------------------------

INSTRUCTOR_FOLDERS = ("docs/instructor/", "tests/autograder/cheats/", "tests/autograder/wrong/",
                      "tests/autograder/hidden/")
INSTRUCTOR_TESTS = ("tests/test_exercises.py", "tests/test_autograder.py",
                    "tests/test_grader_rules.py", "tests/test_course.py", "tests/test_batch.py",
                    "tests/test_userclass.py")
# How a test names the instructor material it reads.
READS_INSTRUCTOR = re.compile(r'"docs"\s*/\s*"instructor"|docs/instructor|"wrong"|'
                              r'autograder/wrong|"cheats"|autograder/cheats|"hidden"|'
                              r'autograder/hidden|autograder\.hidden')


def test_the_kit_is_the_tracked_files_less_the_instructor_material(kit):
    shipped = {p.relative_to(kit).as_posix() for p in files_under(kit)}
    expected = {p for p in tracked() if not p.startswith(INSTRUCTOR_FOLDERS)
                and p not in INSTRUCTOR_TESTS}
    assert shipped == expected  # nothing untracked, nothing else left out
    assert "exercises/starters/ex1_bounded_fifo.py" in shipped and "docs/index.rst" in shipped


def test_an_exercise_solved_in_place_and_untracked_files_never_ship(tmp_path):
    """The instructor's clone with ex1 solved in place (the working copy git ignores) and a
    stray file: the kit has neither."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True,
                   timeout=120, capture_output=True)
    (clone / "exercises" / "ex1_bounded_fifo.py").write_text(
        (SOLUTIONS / "ex1_bounded_fifo.py").read_text())
    (clone / "notes-to-self.txt").write_text("grading plan")
    kitmod.write_student_kit(tmp_path / "kit", root=clone)
    assert not (tmp_path / "kit" / "exercises" / "ex1_bounded_fifo.py").exists()
    assert not (tmp_path / "kit" / "notes-to-self.txt").exists()
    assert (tmp_path / "kit" / "exercises" / "starters" / "ex1_bounded_fifo.py").is_file()


def test_no_test_of_the_kit_reads_instructor_material(kit):
    """The left-out files are found by what the tests read, not only by name: a test that
    reads docs/instructor or the wrong/cheating submissions would fail in the kit."""
    readers = sorted(p.relative_to(kit).as_posix() for p in (kit / "tests").rglob("*.py")
                     if READS_INSTRUCTOR.search(p.read_text()))
    assert readers == []
    here = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*.py")
                  if READS_INSTRUCTOR.search(p.read_text()))
    assert "tests/test_course.py" in here  # the pattern does find such a test


def test_no_reference_solution_text_is_in_the_kit(kit):
    assert leaks(kit) == []


def if_for_while(reference: str) -> str:
    """A wrong ex1: ``if`` instead of ``while`` around both waits of the reference."""
    wrong = reference.replace("while len(self._urls) >= self.capacity",
                              "if len(self._urls) >= self.capacity")
    wrong = wrong.replace("while not self._urls:", "if not self._urls:")
    assert wrong.count("if len(self._urls) >=") == 1 and wrong.count("if not self._urls:") == 1
    return wrong


def test_the_oracle_finds_a_solution_and_a_wrong_solution(tmp_path):
    """The oracle is not vacuous: it finds a solution copied whole, one pasted inside another
    file, and a wrong solution made as a small change of the reference (as
    tests/test_exercises.py makes them: why that file stays out of the kit)."""
    (tmp_path / "copy.py").write_text((SOLUTIONS / "ex3_termination.py").read_text())
    body = (SOLUTIONS / "ex4_bsp_exchange.py").read_text().splitlines()
    (tmp_path / "pasted.rst").write_text("Intro\n\n" + "\n".join(body[-16:]) + "\n")
    (tmp_path / "wrong-if.py").write_text(if_for_while((SOLUTIONS / "ex1_bounded_fifo.py")
                                                       .read_text()))
    assert {f for _, f in leaks(tmp_path)} >= {"copy.py", "pasted.rst"}
    assert any(f.startswith("wrong-") for _, f in leaks(tmp_path))


def test_no_starter_holds_another_exercises_answer():
    """A starter is checked against every reference solution, not only its own: ex2's once
    held ex1's put/get/get_many/close written over its monitor, excused as an overlap."""
    found = [(solution, name) for solution, name in leaks(ROOT / "exercises" / "starters")]
    assert found == []
    assert not hasattr(kitmod, "KNOWN_OVERLAPS")  # nothing is excused any more


def test_a_kit_that_would_leak_is_refused_and_not_left_on_disk(tmp_path, monkeypatch):
    monkeypatch.delitem(kitmod.LEAVE_OUT, "docs/instructor/")
    dest = tmp_path / "leaky"
    with pytest.raises(kitmod.KitError, match="would leak a reference solution"):
        kitmod.write_student_kit(dest)
    assert not dest.exists()


@needs_frontrun
@pytest.mark.timeout(900)  # one grading (a minute here), on a busy machine
def test_the_kits_own_grader_grades_the_starter_fail(kit):
    run = subprocess.run([sys.executable, "exercises/grade.py", "ex1"], cwd=kit,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert "FAIL" in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.timeout(900)  # a book build, on a busy machine
def test_the_kits_tests_collect_and_its_book_builds_as_the_student_edition(kit):
    """Every test module of the kit imports; the kit's own book tests pass there: the student
    edition builds with -W (no page asks for a left-out file) and the book's numbers check
    no longer lists instructor pages."""
    collect = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                              "-p", "no:cacheprovider"], cwd=kit, capture_output=True,
                             text=True, timeout=300)
    assert collect.returncode == 0, collect.stdout[-3000:]
    assert "error" not in collect.stdout.splitlines()[-1], collect.stdout[-3000:]
    env = {**os.environ, "CRAWLAB_BOOK_HTML": str(kit / "no-prebuilt-book")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_book_numbers.py",
                          "tests/test_book.py::test_student_book_has_no_instructor_pages"],
                         cwd=kit, capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-1000:]
    book_tests = (kit / "tests" / "test_book.py").read_text()
    assert "def test_instructor_edition_builds" not in book_tests
    assert "def test_student_book_has_no_instructor_pages" in book_tests


@pytest.mark.parametrize("make", ["non-empty", "a-file"])
def test_a_dest_that_is_not_new_is_one_line_and_exit_2(tmp_path, make):
    dest = tmp_path / "dest"
    if make == "non-empty":
        dest.mkdir()
        (dest / "keep.txt").write_text("mine")
    else:
        dest.write_text("a file")
    run = crawlab("course", "student-kit", str(dest))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "exists and is not an empty folder" in lines[0], run.stderr
    if make == "non-empty":
        assert [p.name for p in dest.iterdir()] == ["keep.txt"]


def test_the_edits_remove_what_they_name_and_say_when_it_is_gone():
    source = ('PAGES = {\n    "instructor/a.rst": {"1": "x"},\n    "web.rst": {},\n'
              '    "instructor/b.rst": {\n        "2": "y",\n    },\n}\nOTHER = 1\n')
    edited = kitmod.drop_keys("PAGES", "instructor/")(source)
    namespace: dict = {}
    exec(edited, namespace)
    assert namespace["PAGES"] == {"web.rst": {}} and namespace["OTHER"] == 1
    with pytest.raises(kitmod.KitError, match="no key of PAGES"):
        kitmod.drop_keys("PAGES", "instructor/")(edited)
    code = "import os\n\n\n@deco\ndef a():\n    pass\n\n\ndef b():\n    return 2\n"
    assert kitmod.drop_functions("a")(code) == "import os\n\n\ndef b():\n    return 2\n"
    with pytest.raises(kitmod.KitError, match=r"no function c\(\)"):
        kitmod.drop_functions("c")(code)


# ---- Gradescope --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("gradescope")
    run = crawlab("course", "gradescope", str(dest))
    assert run.returncode == 0, run.stderr
    return dest / "autograder.zip"


def test_the_zip_has_gradescopes_layout_and_no_solution(autograder_zip, tmp_path):
    with zipfile.ZipFile(autograder_zip) as zf:
        names = zf.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
        zf.extractall(tmp_path)
    assert {"setup.sh", "run_autograder"} <= set(names)
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    assert "crawlab/pyproject.toml" in names and "crawlab/exercises/grade.py" in names
    assert not any(n.startswith(("crawlab/docs/instructor/", "crawlab/tests/autograder/wrong/",
                                 "crawlab/tests/autograder/cheats/")) for n in names)
    hidden = [p for p in tracked() if p.startswith("tests/autograder/hidden/")]
    assert hidden and {f"crawlab/{p}" for p in hidden} <= set(names)  # the hidden checks go in
    assert leaks(tmp_path / "crawlab") == []
    for script in ("setup.sh", "run_autograder"):
        text = (tmp_path / script).read_text()
        assert subprocess.run(["bash", "-n", str(tmp_path / script)], timeout=30).returncode == 0
        assert not any(word in text for word in ("curl", "wget", "http")), script
    assert "pip\" install -q -e \"$ROOT/source/crawlab[test]\"" in \
        (tmp_path / "setup.sh").read_text()


def test_the_same_tree_gives_the_same_zip(autograder_zip, tmp_path):
    again = crawlab("course", "gradescope", str(tmp_path))
    assert again.returncode == 0, again.stderr
    digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
    assert digest(tmp_path / "autograder.zip") == digest(autograder_zip)


def run_autograder(zip_path: Path, root: Path, files: dict[str, str]) -> dict:
    """Lay ``root`` out as Gradescope does (source/ = the zip, submission/, results/), run
    ``run_autograder`` there and return results.json."""
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, text in files.items():
        (root / "submission" / name).write_text(text)
    env = {**os.environ, "CRAWLAB_AUTOGRADER": str(root),
           "CRAWLAB_AUTOGRADER_PYTHON": sys.executable}
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads((root / "results" / "results.json").read_text())


def test_run_autograder_with_no_exercise_file_scores_0(autograder_zip, tmp_path):
    data = run_autograder(autograder_zip, tmp_path, {"notes.txt": "hello"})
    assert data["score"] == 0 and data["tests"] == []
    assert "No exercise file in the submission" in data["output"]


@needs_frontrun
@pytest.mark.timeout(900)  # one grading with the hidden checks, on a busy machine
@pytest.mark.parametrize("which", ["reference", "wrong"])
def test_run_autograder_grades_a_reference_and_a_wrong_submission(autograder_zip, tmp_path,
                                                                  which):
    name = "ex1_bounded_fifo.py"
    text = (SOLUTIONS / name).read_text()
    if which == "wrong":
        text = if_for_while(text)
    data = run_autograder(autograder_zip, tmp_path, {name: text})
    result = data["crawlab"]["exercises"]["ex1"]
    assert data["tests"] and all(t["name"].startswith("ex1: ") for t in data["tests"])
    shown = {"visible", "hidden", "after_due_date", "after_published"}  # Gradescope's values
    assert {t["visibility"] for t in data["tests"]} <= shown
    hidden = [t for t in data["tests"] if "hidden" in t["name"]]
    assert hidden and all(t["visibility"] != "visible" for t in hidden)  # --hidden got there
    if which == "reference":
        assert result["verdict"] == "pass" and result["passed"] == result["total"] > 0
        assert all(t["status"] == "passed" for t in data["tests"])
        assert data["score"] == sum(t["max_score"] for t in data["tests"]) > 0
    else:
        assert result["verdict"] == "fail" and result["first_failure"]
        assert any(t["status"] == "failed" for t in data["tests"])
        assert data["score"] < sum(t["max_score"] for t in data["tests"])


def test_the_instructor_page_says_what_the_code_does():
    """docs/instructor/grading.rst lists every left-out path and edited file, and quotes the
    settings and the CSV's columns as the code has them."""
    from exercises import batch

    page = (ROOT / "docs" / "instructor" / "grading.rst").read_text()
    assert ".. crawlab-kit-leave-out::" in page  # the table is LEAVE_OUT, made at build
    for path in kitmod.EDITS:
        assert f"``{path}``" in page, path
    assert f"``WINDOW`` ({kitmod.WINDOW})" in page
    assert f"``TIMEOUT`` ({batch.TIMEOUT:g} s" in page
    assert f"no verdict in {batch.TIMEOUT:g} s" in page
    assert f"``{', '.join(batch.COLUMNS)}``" in page
