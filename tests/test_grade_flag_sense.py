"""``exercises/grade.py`` refuses a flag its mode would ignore, and flags that contradict each
other, in one line with exit status 2, before anything is graded. Grading a class
(``--submissions DIR --out OUT [--jobs N]``) writes every verdict to OUT: it reads none of
``--dir``, ``--check``, ``--json``, ``-v``, ``-q``; grading one's own files reads neither
``--out`` nor ``--jobs``. (They used to be dropped silently: ``--jobs 4`` alone graded the
exercises/ files, ``--submissions ... --json F`` never wrote F.)"""

from __future__ import annotations

import pytest

from exercises import batch, grade


@pytest.fixture
def no_grading(monkeypatch):
    """Any grading (one's own files, a class, a starter copied) fails the test at once."""

    def boom(*args, **kwargs):
        raise AssertionError("grading started although the flags should have been refused")

    monkeypatch.setattr(grade, "grade", boom)
    monkeypatch.setattr(batch, "main", boom)
    monkeypatch.setattr(grade.shutil, "copy", boom)


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        grade.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("grade.py: error: ")
    return err.strip()


@pytest.mark.parametrize("flags, named", [
    (["--out", "OUT"], "--out"),
    (["--jobs", "2"], "--jobs"),
    (["--jobs", "1"], "--jobs"),  # the default's value, typed: still ignored
])
def test_batch_flags_without_submissions_are_refused(flags, named, capsys, no_grading, tmp_path):
    err = _refused(["ex1", "--dir", str(tmp_path), *flags], capsys)
    assert named in err and "--submissions" in err


@pytest.mark.parametrize("flags, named", [
    (["--dir", "DIR"], "--dir"),
    (["--check", "put"], "--check"),
    (["--json", "r.json"], "--json"),
    (["-v"], "--verbose"),
    (["--quiet"], "--quiet"),
])
def test_single_flags_with_submissions_are_refused(flags, named, capsys, no_grading, tmp_path):
    err = _refused(["ex1", "--submissions", str(tmp_path), "--out", str(tmp_path / "out"),
                    *flags], capsys)
    assert named in err and "--submissions" in err
    assert not (tmp_path / "out").exists()


def test_verbose_and_quiet_together_are_refused(capsys, no_grading, tmp_path):
    err = _refused(["ex1", "--dir", str(tmp_path), "-v", "-q"], capsys)
    assert "--verbose" in err and "--quiet" in err


def test_jobs_and_hidden_reach_the_batch_and_jobs_alone_is_refused(monkeypatch, capsys,
                                                                  tmp_path):
    """The batch gets --jobs (1 when not given) and --hidden; the same --jobs without
    --submissions is refused before anything is graded."""
    calls = []
    monkeypatch.setattr(batch, "main", lambda *a: calls.append(a) or 0)
    subs, out = tmp_path / "subs", tmp_path / "out"
    assert grade.main(["ex1", "--submissions", str(subs), "--out", str(out), "--jobs", "3",
                       "--hidden"]) == 0
    assert grade.main(["ex2", "--submissions", str(subs), "--out", str(out)]) == 0
    assert calls == [(["ex1"], subs, out, 3, True), (["ex2"], subs, out, 1, False)]
    monkeypatch.setattr(grade, "grade", lambda *a, **k: pytest.fail("graded"))
    assert "--jobs" in _refused(["ex1", "--dir", str(tmp_path), "--jobs", "3", "--hidden"],
                                capsys)
