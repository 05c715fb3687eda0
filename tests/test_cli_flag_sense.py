"""Flags that would be silently dropped or ignored, or that are reported in words that mislead,
are refused with one line naming the flag, exit status 2, before anything is measured.

Each test stubs the step the command would reach if the flag were accepted (a measurement, a
search, a crawl) with one that raises :class:`AssertionError`, so a regression fails at once
instead of measuring."""

from __future__ import annotations

import pytest

from crawlers.cli import main
from tests.helpers import one_line as _one_line
from tests.helpers import run_crawlab as _run


def _boom(*_args, **_kwargs):
    raise AssertionError("reached the work the flag should have stopped before")


# -- 1. the frontier named twice --------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["linearize", "monitor", "--frontier", "coarse", "--runs", "1"],
    ["linearize", "--frontier", "coarse", "monitor", "--runs", "1"],
    ["linearize", "coarse", "--frontier", "coarse", "--runs", "1"],
    ["explore", "monitor", "--frontier", "coarse"],
    ["explore", "--frontier", "coarse", "monitor"],
    ["explore", "--frontier", "coarse", "--frontier", "monitor"],
])
def test_a_frontier_given_both_ways_is_refused(argv, capsys, monkeypatch):
    monkeypatch.setattr("frontier.check.linearize.record", _boom)
    monkeypatch.setattr("frontier.check.explore.explore", _boom)
    code, err = _run(argv, capsys)
    assert code == 2
    assert "the frontier is given twice" in _one_line(err)
    assert "coarse" in err and f"crawlab {argv[0]}: error: argument " in err


# -- 2. --replot of a lab that cannot replot -------------------------------------------------


@pytest.mark.parametrize("lab", ["pq-comparisons", "partition", "crawl-memory", "hostile-web",
                                 "bsp-speedup", "crawl-timelines", "scaling"])
def test_replot_of_a_lab_that_always_measures_is_refused_before_the_header(lab, tmp_path,
                                                                            capsys,
                                                                            monkeypatch):
    """A lab that measures every time has no --replot (it used to take the flag, measure
    anyway and overwrite its CSVs)."""
    monkeypatch.setattr("labs.harness.machine", _boom)  # the header's stamp: before measuring
    code, err = _run(["lab", lab, "--replot", "--quick", "--no-plot", "--out", str(tmp_path)],
                     capsys)
    assert code == 2
    assert f"crawlab lab {lab}: error: unrecognized arguments: --replot" in _one_line(err)
    assert capsys.readouterr().out == ""  # no header
    assert not (tmp_path / lab).exists()


def test_the_labs_with_replot_are_those_whose_rows_all_go_through_lab_rows():
    """``Lab(..., replot=True)`` exactly in the lab scripts that call ``lab.rows(STEM,
    MEASURE)``: a lab that declares it without taking its rows there would measure under
    --replot; one that takes them there without declaring it loses a working --replot."""
    import ast
    from pathlib import Path

    labs = Path(__file__).resolve().parent.parent / "labs"
    for path in sorted(labs.glob("lab_*.py")):
        tree = ast.parse(path.read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        declared = any(isinstance(c.func, ast.Name) and c.func.id == "Lab"
                       and any(k.arg == "replot" and getattr(k.value, "value", None) is True
                               for k in c.keywords) for c in calls)
        takes = any(isinstance(c.func, ast.Attribute) and c.func.attr == "rows"
                    and isinstance(c.func.value, ast.Name) and c.func.value.id == "lab"
                    and len(c.args) == 2 for c in calls)
        assert declared == takes, f"{path.name}: replot=True {declared}, lab.rows {takes}"


# -- 3. crawlab lab with a name it does not take ---------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["lab", "--list", "extra"], "--list lists the labs and takes nothing else, got extra"),
    (["lab", "--list", "pq-time", "--quick"], "takes nothing else, got pq-time --quick"),
    (["lab", ""], "no lab is named ''"),
    (["lab", "  "], "no lab is named '  '"),
])
def test_lab_refuses_an_extra_or_empty_name(argv, words, capsys):
    code, err = _run(argv, capsys)
    assert code == 2 and words in _one_line(err)
    assert capsys.readouterr().out == ""


# -- 4. partition: KaHyPar's flags with another method ---------------------------------------


@pytest.mark.parametrize("method", ["site-hash", "page-hash"])
@pytest.mark.parametrize("flag, value", [("--seed", "3"), ("--epsilon", "0.1")])
def test_partition_refuses_hypergraph_flags_with_another_method(method, flag, value, tmp_path,
                                                                capsys, monkeypatch):
    monkeypatch.setattr("crawlers.cli.partition.read_graph", _boom)
    graph = tmp_path / "edges.txt"
    graph.write_text("http://a.test/ http://b.test/\n")
    code, err = _run(["partition", "--graph", str(graph), "--parts", "2", "--method", method,
                      flag, value], capsys)
    assert code == 2
    assert f"{flag} is for --method hypergraph" in _one_line(err) and method in err


# -- 5. explore: flags the chosen mode ignores ------------------------------------------------


@pytest.mark.parametrize("argv, words", [
    (["--replay", "TRACE", "--out", "NOWHERE"], "--replay runs the trace file's one "
                                                "interleaving again: it does not take --out"),
    (["--full", "--json"], "--json prints no counterexample"),
    (["--pct", "--full", "--json"], "--json prints no counterexample"),
    (["--outcomes", "--full"], "--outcomes shows no counterexample"),
    (["--outcomes", "--out", "HERE"], "--outcomes writes no trace file"),
])
def test_explore_refuses_flags_the_mode_ignores(argv, words, tmp_path, capsys, monkeypatch):
    for step in ("frontier.check.explore.explore", "frontier.check.explore.replay",
                 "frontier.check.trace.load", "frontier.check.outcomes.tabulate",
                 "frontier.check.pct.search"):
        monkeypatch.setattr(step, _boom)
    trace = tmp_path / "trace.json"
    trace.write_text("{}")
    where = {"TRACE": str(trace), "NOWHERE": str(tmp_path / "no" / "such"),
             "HERE": str(tmp_path)}
    code, err = _run(["explore", "monitor", *[where.get(a, a) for a in argv]], capsys)
    assert code == 2
    assert words in _one_line(err) and err.startswith("crawlab explore: error: ")


def test_explore_still_takes_out_and_full_where_they_count(tmp_path, capsys, monkeypatch):
    """The default --out (here) and --full without --json are not refused."""
    seen = []

    def explore(*args, **kwargs):
        seen.append(args)
        raise AssertionError("stop here")

    monkeypatch.setattr("frontier.check.explore.explore", explore)
    with pytest.raises(AssertionError, match="stop here"):
        main(["explore", "monitor", "--full", "--out", str(tmp_path)])
    assert seen


# -- 6. words that name the flag and say what is wrong ---------------------------------------


def test_a_directory_as_graph_is_called_a_directory(tmp_path, capsys):
    code, err = _run(["partition", "--graph", str(tmp_path), "--parts", "2"], capsys)
    assert code == 2
    assert f"graph file {tmp_path} is a directory" in _one_line(err)
    assert "not found" not in err


@pytest.mark.parametrize("command", [["explore"], ["linearize"]])
def test_a_directory_as_frontier_file_is_called_a_directory(command, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.setattr("frontier.check.linearize.record", _boom)
    monkeypatch.setattr("frontier.check.explore.explore", _boom)
    folder = tmp_path / "mine.py"
    folder.mkdir()
    code, err = _run([*command, f"{folder}:Mine"], capsys)
    assert code == 2
    assert f"{folder} is a directory, not a Python file" in _one_line(err)


def test_a_directory_as_a_labs_frontier_file_is_called_a_directory(tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.setattr("labs.harness.machine", _boom)
    folder = tmp_path / "mine.py"
    folder.mkdir()
    code, err = _run(["lab", "frontier-bench", "--frontier", f"{folder}:Mine", "--quick",
                      "--out", str(tmp_path)], capsys)
    assert code == 2
    assert f"{folder} is a directory, not a Python file" in _one_line(err)


def test_reference_reads_a_bounded_number_of_bytes(tmp_path, capsys, monkeypatch):
    """A --reference over the byte cap is refused after a bounded read, and an endless one
    (/dev/zero), a device, is refused before any read, not read for ever."""
    from crawlers.crawl import targets

    monkeypatch.setattr(targets, "open_target", _boom)
    monkeypatch.setattr(targets, "MAX_REFERENCE_BYTES", 1000)
    listed = tmp_path / "urls.txt"
    listed.write_text("".join(f"http://a.test/{i}\n" for i in range(200)))  # > 1000 bytes
    code, err = _run(["crawl", "--reference", str(listed), "--pages", "10"], capsys)
    assert code == 2
    assert f"--reference {listed}: " in _one_line(err)
    assert "more than a reference list's 1,000" in _one_line(err)
    code, err = _run(["crawl", "--reference", "/dev/zero", "--pages", "10"], capsys)
    assert code == 2 and "--reference /dev/zero: not a regular file" in _one_line(err)
