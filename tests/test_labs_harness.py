"""The lab harness: machine stamp, CSV, and the benchmark's measurement loop."""

from __future__ import annotations

import csv

import pytest

import frontier
from labs.harness import Lab, LabError, lab_modules, machine, machine_line, script, write_rows
from labs.lab_frontier_bench import measure


def test_machine_stamp_says_cores_python_and_gil():
    m = machine()
    assert m["cores"] >= 1 and m["python"].count(".") == 2 and isinstance(m["gil"], bool)
    assert "GIL" in machine_line(m) and f"{m['cores']} cores" in machine_line(m)


def test_csv_rows_carry_the_machine(tmp_path):
    lab = Lab("t", "A test lab.", ["--out", str(tmp_path), "--seed", "7"])
    assert lab.seed == 7 and lab.dir == tmp_path / "t"
    path = lab.write_csv([{"a": 1, "b": 2.5}, {"a": 3, "c": "x"}])
    rows = list(csv.DictReader(path.open()))
    assert [r["a"] for r in rows] == ["1", "3"] and rows[1]["c"] == "x"
    assert rows[0]["machine_cores"] == str(machine()["cores"])


def test_every_lab_has_a_description():
    labs = lab_modules()
    assert "frontier-bench" in labs
    assert all(doc for doc in labs.values())


@pytest.mark.parametrize("name", [n for n in frontier.names() if frontier.info(n).correct])
def test_measure_counts_pairs_that_really_happened(name):
    row = measure(name, threads=2, seconds=0.05)
    assert row["pairs"] > 0 and row["timeouts"] == 0
    assert row["puts"] == row["gets"] == row["pairs"]


def test_replot_reads_the_rows_back_and_measures_nothing(tmp_path):
    """``--replot`` (Lab.rows): the figures are redrawn from the CSV a run wrote, with that
    run's stamp, and the measuring function is never called."""
    expected = [{"T": 1, "rate": 2.5, "frontier": "monitor"},
                {"T": 2, "rate": 4.0, "frontier": "monitor"}]
    calls = []

    def measure():
        calls.append(1)
        return [dict(row) for row in expected]

    first = Lab("t", "A test lab.", ["--out", str(tmp_path)], replot=True)
    assert first.rows("speed", measure) == expected and len(calls) == 1
    path = tmp_path / "t" / "speed.csv"
    text = path.read_text().replace(first.date, "2001-02-03T04:05:06Z")
    path.write_text(text)
    again = Lab("t", "A test lab.", ["--out", str(tmp_path), "--replot"], replot=True)
    assert again.rows("speed", measure) == expected and len(calls) == 1
    assert again.date == "2001-02-03T04:05:06Z" and path.read_text() == text
    with pytest.raises(LabError, match="--replot: .*missing"):
        again.rows("other", measure)


def test_write_rows_keeps_every_column_in_the_order_it_first_appears(tmp_path):
    """The book scripts' CSVs (docs/explore_*.py) and every lab's go through write_rows: a
    column only a later row has is kept, a row without it is empty there."""
    path = write_rows(tmp_path / "t.csv", [{"a": 1, "b": 2}, {"b": 3, "c": 4}])
    with open(path, newline="") as f:
        assert list(csv.reader(f)) == [["a", "b", "c"], ["1", "2", ""], ["", "3", "4"]]


def test_a_lab_run_directly_says_a_lab_error_in_one_line(tmp_path, capsys):
    """``python -m labs.lab_NAME`` runs ``script(main)``: a :class:`LabError` (here
    ``--replot`` with no CSV to read) is one line naming the lab and status 2, as under
    ``crawlab lab``, not a traceback (status 1)."""
    from labs import lab_bsp_rx

    status = script(lab_bsp_rx.main, ["--replot", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("crawlab lab bsp-rx: error: --replot: "), err
    assert "is missing" in err, err


@pytest.mark.parametrize("name", lab_modules())
def test_every_lab_run_directly_goes_through_script(name):
    """Each ``labs/lab_NAME.py`` ends ``raise SystemExit(script(main))``, so that ``python -m``
    says bad input in one line as ``crawlab lab`` does (the test above shows what it says)."""
    import ast
    import importlib
    import inspect

    module = importlib.import_module("labs.lab_" + name.replace("-", "_"))
    tree = ast.parse(inspect.getsource(module))
    guards = [n for n in tree.body if isinstance(n, ast.If)
              and ast.unparse(n.test) == "__name__ == '__main__'"]
    assert [ast.unparse(s) for g in guards for s in g.body] == [
        "raise SystemExit(script(main))"], name
