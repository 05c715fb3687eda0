"""The lab harness: machine stamp, CSV, and the benchmark's measurement loop."""

from __future__ import annotations

import csv

import pytest

import frontier
from labs.harness import Lab, lab_modules, machine, machine_line
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
