"""crawlab explore --replay FILE: a damaged or hand-edited trace file is one line on stderr
naming the file and what is wrong, exit 2 -- never a traceback, never a replay that waits for
a thread the scenario does not have until frontrun's timeout.

Needs frontrun (the ``explore`` extra); skipped where it cannot be imported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")

from crawlers.cli import main  # noqa: E402

GOOD = {"format": 2, "frontier": "unsynchronized", "scenario": "lost-update", "bound": 1,
        "schedule": [0] * 46 + [1] * 40}


def _refused(path, capsys, *words: str) -> str:
    """Replay ``path``: exit 2 and one line on stderr naming the file and ``words``."""
    assert main(["explore", "unsynchronized", "--replay", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err and captured.out == ""
    assert err.count("\n") == 1 and err.startswith("crawlab explore: error: "), err
    assert path.name in err, err
    for word in words:
        assert word in err, err
    return err


def _write(tmp_path, name: str, **fields) -> object:
    data = dict(GOOD, **fields)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("value", [5, None, ["unsynchronized"], ""],
                         ids=["int", "null", "list", "empty"])
def test_a_frontier_that_is_not_a_name_is_refused(value, tmp_path, capsys):
    _refused(_write(tmp_path, "front", frontier=value), capsys, "frontier must be a name")


@pytest.mark.parametrize("value", [5, None, ["x"]], ids=["int", "null", "list"])
def test_a_scenario_that_is_not_a_name_is_refused(value, tmp_path, capsys):
    _refused(_write(tmp_path, "scen", scenario=value), capsys, "scenario must be a name")


def test_an_unknown_scenario_is_refused_naming_the_file(tmp_path, capsys):
    _refused(_write(tmp_path, "nope", scenario="nope"), capsys, "unknown scenario 'nope'")


def test_a_scenario_that_does_not_apply_to_the_frontier_is_refused(tmp_path, capsys):
    """``order`` is for priority frontiers: ``--scenario order`` is refused for
    unsynchronized, and so is a trace file naming it."""
    path = _write(tmp_path, "order", scenario="order", schedule=[0, 1, 0, 1])
    _refused(path, capsys, "'order' does not apply to 'unsynchronized'")


@pytest.mark.parametrize("key,value", [("report", 5), ("full", ["x"]), ("bound", "1"),
                                       ("bound", True), ("bound", -1), ("format", 2.0)])
def test_other_fields_of_the_wrong_type_are_refused(key, value, tmp_path, capsys):
    _refused(_write(tmp_path, "field", **{key: value}), capsys)


def test_nan_is_refused(tmp_path, capsys):
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(GOOD).replace('"bound": 1', '"bound": NaN'))
    _refused(path, capsys, "bound")


def test_deeply_nested_json_is_refused(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    _refused(path, capsys, "nested too deeply")


def test_a_number_too_long_to_read_is_refused_naming_the_file(tmp_path, capsys):
    path = tmp_path / "bigint.json"
    path.write_text(json.dumps(GOOD).replace('"schedule": [0', '"schedule": [' + "9" * 5000))
    _refused(path, capsys, "cannot read trace file")


@pytest.mark.parametrize("schedule,bad", [([5] * 50, "5"), ([0, 10**30], "1000000"),
                                          ([True, False] * 30, "true"), ([0, 1, 3], "3"),
                                          ([-1], "-1"), ([0.0, 1.0], "0.0")],
                         ids=["bigidx", "huge", "bool", "past-clock", "negative", "float"])
def test_a_schedule_entry_that_is_not_a_thread_of_the_scenario_is_refused(
        schedule, bad, tmp_path, capsys):
    """lost-update has 2 threads: 0 and 1 are they, 2 is frontrun's virtual clock; anything
    else would make the replay wait for a thread that does not exist (5 s, then a
    TimeoutError traceback)."""
    err = _refused(_write(tmp_path, "sched", schedule=schedule), capsys, "schedule entry")
    assert f" is {bad}" in err and "0 to 1" in err and "2 for the virtual clock" in err


def test_an_empty_schedule_is_refused(tmp_path, capsys):
    """No thread choice at all: the replay would run frontrun's own interleaving and say it
    held (exit 0), as if it were the file's."""
    _refused(_write(tmp_path, "empty", schedule=[]), capsys, "schedule is empty")


def test_the_clock_actor_is_a_valid_schedule_entry(tmp_path, capsys):
    """Entry n (for n threads) is the virtual clock: not refused (the replay runs)."""
    path = _write(tmp_path, "clock", schedule=[0, 2, 1] * 30)
    assert main(["explore", "unsynchronized", "--replay", str(path)]) in (0, 1)
    assert "error" not in capsys.readouterr().err


def test_a_trace_written_by_explore_still_replays(tmp_path, capsys):
    assert main(["explore", "unsynchronized", "--scenario", "lost-update",
                 "--out", str(tmp_path)]) == 1
    path = tmp_path / "explore-unsynchronized-lost-update.json"
    written = capsys.readouterr().out
    assert main(["explore", "unsynchronized", "--replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out in written


@pytest.mark.parametrize("named", ["planted.py:Planted", "{dir}/planted.py:Planted"],
                         ids=["relative", "absolute"])
def test_a_trace_naming_a_file_does_not_run_it(named, tmp_path, capsys, monkeypatch):
    """A trace file is data: the frontier it names is compared with the one the user typed,
    never imported. One naming ``FILE.py:CLASS`` beside it, replayed against a built-in
    frontier, is refused in one line, and the file's code has not run (it would write
    ``ran``)."""
    planted = tmp_path / "planted.py"
    planted.write_text("import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\n")
    monkeypatch.chdir(tmp_path)
    path = _write(tmp_path, "planted", frontier=named.format(dir=tmp_path))
    _refused(path, capsys, "is a trace of", "not 'unsynchronized'")
    assert not (tmp_path / "ran").exists()


def test_a_trace_of_a_students_class_replays_when_the_student_names_it(tmp_path, capsys,
                                                                       monkeypatch):
    """explore writes a trace naming the class by its absolute spec; the student replays it
    typing the spec relative, from where the file is: the same class, so the replay runs (and
    finds the lost update again)."""
    (tmp_path / "mine.py").write_text(
        "from frontier.unsynchronized import UnsynchronizedFrontier\n\n\n"
        "class Mine(UnsynchronizedFrontier):\n    name = 'mine-trace-unsynchronized'\n")
    monkeypatch.chdir(tmp_path)
    assert main(["explore", "mine.py:Mine", "--scenario", "lost-update"]) == 1
    capsys.readouterr()
    path = tmp_path / "explore-mine-trace-unsynchronized-lost-update.json"
    assert json.loads(path.read_text())["frontier"] == f"{tmp_path / 'mine.py'}:Mine"
    assert main(["explore", "mine.py:Mine", "--replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == "" and "never came out (lost)" in captured.out


def test_a_trace_naming_a_symlink_loop_is_refused(tmp_path, capsys):
    """Resolving a symlink loop raises RuntimeError on Python 3.11: still one line."""
    (tmp_path / "loop.py").symlink_to("loop.py")
    _refused(_write(tmp_path, "loop", frontier=f"{tmp_path / 'loop.py'}:X"), capsys,
             "is a trace of")


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_trace_file_that_is_not_a_regular_file_is_refused_at_once(kind, tmp_path, capsys):
    """A FIFO with no writer would block the read for ever, /dev/zero never ends: both are
    refused before a byte is read (the test itself cannot hang: nothing ever writes the
    FIFO, so only a refusal returns)."""
    import os

    path = tmp_path / "t.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    assert main(["explore", "unsynchronized", "--replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err, err


def test_a_trace_file_larger_than_any_trace_is_refused_unread(tmp_path, capsys, monkeypatch):
    from frontier.check import trace

    monkeypatch.setattr(trace, "MAX_BYTES", 1000)
    path = _write(tmp_path, "big", report="x" * 2000)
    _refused(path, capsys, "more than a trace file's")


def test_a_long_frontier_name_is_shown_cut(tmp_path, capsys):
    err = _refused(_write(tmp_path, "long", frontier="x" * 100_000), capsys, "is a trace of")
    assert len(err) < 300


def test_a_bound_beyond_the_largest_is_refused(tmp_path, capsys):
    _refused(_write(tmp_path, "bound", bound=10**100), capsys, "from 0 to 10000")


def test_a_replay_that_holds_where_its_trace_recorded_a_violation_is_inconclusive(
        tmp_path, capsys):
    """P1 alone first, then P2: no update is lost, so the replay holds; but the trace says
    it recorded something else (its report), so the replay is no evidence either way: exit
    3, said on stderr, never 0."""
    path = _write(tmp_path, "alone", schedule=[0] * 200, report="lost: a URL never came out\n")
    assert main(["explore", "unsynchronized", "--replay", str(path)]) == 3
    captured = capsys.readouterr()
    assert "held on this interleaving" in captured.out
    assert "differs from the trace file" in captured.err and "inconclusive" in captured.err
