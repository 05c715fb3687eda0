"""Every number under docs/results says where it came from (issue 16, item 5).

The rule is :func:`labs.harness.provenance_problems`; the harness's writers keep it, and these
tests walk every committed CSV with it and show that it catches each way of breaking it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from labs.harness import Lab, provenance_problems

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
CSVS = sorted(RESULTS.rglob("*.csv"))


def problems_of(path: Path) -> list[str]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        return provenance_problems(reader.fieldnames or [], rows)


def test_there_are_results_to_check():
    assert len(CSVS) >= 20


@pytest.mark.parametrize("path", CSVS, ids=[str(p.relative_to(RESULTS)) for p in CSVS])
def test_every_committed_csv_keeps_the_rule(path):
    assert problems_of(path) == []


def _lab(tmp_path) -> Lab:
    return Lab("t", "A test lab.", ["--out", str(tmp_path), "--note", "under test"])


def test_the_writers_keep_the_rule(tmp_path):
    lab = _lab(tmp_path)
    measured = lab.write_csv([{"x": 1, "paper_x": 2}])
    model = lab.write_csv([{"x": 1}], "model", source="model")
    paper = lab.write_paper_csv([{"x": 2}], "paper", "Some, One: a paper", "Table 9")
    assert [problems_of(p) for p in (measured, model, paper)] == [[], [], []]
    row = next(csv.DictReader(measured.open()))
    assert row["source"] == "measured" and row["commit"] and row["date"].endswith("Z")
    assert row["machine_gil"] in ("True", "False") and row["note"].endswith("under test")
    assert row["machine_free_threaded"] in ("True", "False") and row["machine_load_1min"]
    prow = next(csv.DictReader(paper.open()))
    assert prow["source"] == "paper" and "machine_cores" not in prow and "commit" not in prow


def test_a_quick_run_says_so_in_every_row_it_measures(tmp_path):
    """A quick run's small sizes are not the full run's: its rows say so, a full run's do not."""
    quick = Lab("t", "A test lab.", ["--out", str(tmp_path / "q"), "--quick"])
    full = Lab("t", "A test lab.", ["--out", str(tmp_path / "f"), "--note", "under test"])
    rows = [next(csv.DictReader(lab.write_csv([{"x": 1}]).open())) for lab in (quick, full)]
    assert "--quick" in rows[0]["note"] and problems_of(tmp_path / "q" / "t" / "t.csv") == []
    assert "--quick" not in rows[1]["note"] and rows[1]["note"].endswith("under test")


def test_the_writers_refuse_a_paper_column_not_named_paper_(tmp_path):
    with pytest.raises(ValueError, match="paper_"):
        _lab(tmp_path).write_csv([{"paper hash/HP": 2.9}])
    with pytest.raises(ValueError, match="write_paper_csv"):
        _lab(tmp_path).write_csv([{"source": "paper", "x": 1}])


def _stamped(**change) -> dict[str, str]:
    row = {"source": "measured", "x": "1", "date": "2026-01-01T00:00:00Z", "commit": "abc",
           "note": "", "machine_cores": "2", "machine_cpu": "c", "machine_python": "3.13.1",
           "machine_implementation": "CPython", "machine_free_threaded": "True",
           "machine_gil": "False", "machine_os": "Linux", "machine_load_1min": "0.3"}
    row.update(change)
    return row


@pytest.mark.parametrize("header, row, complaint", [
    (["x"], {"x": "1"}, "no source column"),
    (None, _stamped(source="guess"), "is not one of"),
    (None, _stamped(commit=""), "lacks commit"),
    (None, _stamped(machine_gil=""), "lacks machine_gil"),
    (None, _stamped(machine_load_1min="unknown"), "no note says why"),
    (None, _stamped(source="paper", paper="P", figure="Fig. 1"), "carries our stamp"),
    (None, {"source": "paper", "paper": "", "figure": "Fig. 1"}, "names no paper"),
    (None, _stamped(source="model"), "model row carries a machine stamp"),
    (["source", "paper hash/HP"], {"source": "model", "paper hash/HP": "1", "date": "d",
                                   "commit": "c"}, "not named paper_"),
])
def test_the_rule_catches_each_way_of_breaking_it(header, row, complaint):
    found = provenance_problems(header or list(row), [row])
    assert any(complaint in p for p in found), found
