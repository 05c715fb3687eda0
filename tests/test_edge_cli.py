"""Edges of the command line's input: a one-value flag given twice, an empty path or a DEST
whose folders do not exist, a student's frontier whose name is no safe word, and a Ctrl-C
while the command line is still being imported. Each is one line on stderr (status 2, or 130
for Ctrl-C), never a traceback, never a value the user gave silently replaced."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import frontier
from crawlers.cli import main

ROOT = Path(__file__).resolve().parent.parent


def refused(capsys, argv: list[str]) -> str:
    """The one line ``crawlab ARGV`` printed on stderr when it exited with status 2."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# -- 1. a flag that takes one value, given twice ------------------------------------------------


@pytest.mark.parametrize("argv, flag", [
    (["crawl", "--threads", "4", "--threads", "2"], "--threads"),
    (["crawl", "--thr", "4", "--threads=2"], "--threads"),  # a prefix, then the = form
    (["crawl", "--frontier", "heap", "--frontier", "monitor"], "--frontier"),
    (["crawl", "--out", "o5", "--out", "o6"], "--out"),
    (["bsp", "-P", "2", "--procs", "3"], "--procs/-P"),  # the short form, then the long
    (["partition", "--parts", "2", "-k", "3"], "--parts/-k"),
    (["serve", "--pages", "20", "--pages", "30"], "--pages"),
    (["lab", "frontier-bench", "--seed", "1", "--seed", "2"], "--seed"),
    (["lab", "frontier-bench", "--capacity", "4", "--capacity=8"], "--capacity"),
])
def test_a_one_value_flag_given_twice_is_refused(capsys, argv, flag):
    # an unknown flag last: a parser that took the second value stops there, runs nothing
    err = refused(capsys, [*argv, "--no-such-flag"])
    assert f"argument {flag}: given twice" in err, err


def test_a_frontier_given_twice_to_explore_is_refused_as_before(capsys):
    err = refused(capsys, ["explore", "--frontier", "heap", "--frontier", "monitor", "--no-such"])
    assert "the frontier is given twice" in err


def test_repeatable_flags_stay_repeatable():
    from crawlers.cli.app import build_parser

    args = build_parser().parse_args(["crawl", "--seed-url", "http://a.test/",
                                      "--seed-url", "http://b.test/"])
    assert args.seed_url == ["http://a.test/", "http://b.test/"]


def test_bsp_state_is_given_once_too(capsys, tmp_path):
    """crawlab bsp --resume started its ranks with the kept command and --state DIR after it,
    so --state was the one flag whose last value won; the kept --state now gives way."""
    from crawlers.bsp.journal import write_command
    from crawlers.bsp.launcher import prepare
    from crawlers.cli.app import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["bsp", "--state", "kept", "--state", "moved"])
    assert "argument --state: given twice" in capsys.readouterr().err
    write_command(tmp_path, ["bsp", "--procs", "2", "--state", "where-it-was"])
    argv, state = prepare(["bsp", "--resume", str(tmp_path)], None, str(tmp_path))
    assert state == str(tmp_path)
    assert build_parser().parse_args(argv).state == str(tmp_path)  # one --state: it parses


def test_no_subcommand_has_a_flag_that_a_second_value_replaces():
    from crawlers.cli.app import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and type(action) is argparse._StoreAction:
                pytest.fail(f"crawlab {name} {action.option_strings[0]} keeps the last value")


# -- 2. empty paths, and folders crawlab would make a chain of ----------------------------------


def test_a_lab_refuses_an_empty_out(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # --capacity 0 after it: the old code, which took '' for '.', stops there, not in a lab run
    err = refused(capsys, ["lab", "frontier-bench", "--quick", "--out", "", "--capacity", "0"])
    assert "argument --out: the path is empty" in err, err
    assert list(tmp_path.iterdir()) == []


def test_course_refuses_an_empty_dest(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = refused(capsys, ["course", "gradescope", ""])
    assert "argument DEST: the path is empty" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("what", ["student-kit", "gradescope"])
def test_course_makes_the_last_folder_only(capsys, tmp_path, what):
    dest = tmp_path / "no" / "such" / "kit"
    assert main(["course", what, str(dest)]) == 2
    err = capsys.readouterr().err
    assert err == (f"crawlab course: error: DEST: cannot write to {dest}: no such folder "
                   f"{dest.parent} (crawlab makes the last folder only)\n")
    assert list(tmp_path.iterdir()) == []


# -- 3. a student's frontier whose name would name files elsewhere ------------------------------


@pytest.mark.parametrize("name", ["../../ESCAPED", "a\nb", "\x1b[31mred", "two words",
                                  "x" * 65])
def test_a_frontier_whose_name_is_no_safe_word_is_refused_at_load(tmp_path, name):
    src = tmp_path / "mine.py"
    src.write_text(textwrap.dedent(f"""\
        from frontier.coarse import CoarseFrontier


        class Mine(CoarseFrontier):
            name = {name!r}
        """))
    out = tmp_path / "out"
    out.mkdir()
    run = subprocess.run([sys.executable, "-m", "crawlers", "linearize", "--frontier",
                          f"{src}:Mine", "--out", str(out)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith("crawlab linearize: error: ") and f"{src}:Mine: its name " in line
    assert "1 to 64 ASCII letters, digits, '-' and '_'" in line
    assert "\x1b" not in run.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["mine.py", "out"]


def test_every_built_in_and_exercise_name_is_a_frontier_name():
    from frontier.userclass import is_frontier_name

    for name in [*frontier.names(), "ex1-bounded-fifo", "ex2_semaphore_monitor", "x" * 64]:
        assert is_frontier_name(name), name


# -- 4. Ctrl-C while the command line is imported -----------------------------------------------

_INTERRUPT = """\
import os, signal, sys

signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with it ignored


class Interrupt:  # a real Ctrl-C, the first time the module named below is imported
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == os.environ["CRAWLAB_INTERRUPT_AT"] and Interrupt in sys.meta_path:
            sys.meta_path.remove(Interrupt)
            os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, Interrupt)
"""


def _interrupted(tmp_path: Path, cmd: list[str], module: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(_INTERRUPT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "CRAWLAB_INTERRUPT_AT": module}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("module", ["crawlers.cli.app", "crawlers.cli.crawl", "argparse"])
@pytest.mark.parametrize("how", ["console script", "python -m crawlers"])
def test_ctrl_c_during_the_imports_is_one_line_and_130(tmp_path, module, how):
    script = Path(sys.executable).parent / "crawlab"
    if how == "console script" and not script.exists():
        pytest.skip(f"no console script next to {sys.executable}")
    cmd = [str(script)] if how == "console script" else [sys.executable, "-m", "crawlers"]
    run = _interrupted(tmp_path, [*cmd, "frontiers"], module)
    assert (run.returncode, run.stderr, run.stdout) == (130, "crawlab: interrupted\n", "")


def test_ctrl_c_while_the_parser_is_built_is_one_line_and_130(capsys, monkeypatch):
    import crawlers.cli.app as app

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "build_parser", interrupted)
    try:
        status = main(["frontiers"])
    except KeyboardInterrupt:  # not raised on: it would end the whole test session
        pytest.fail("the Ctrl-C escaped crawlers.cli.main")
    assert status == 130
    assert capsys.readouterr().err == "crawlab: interrupted\n"
