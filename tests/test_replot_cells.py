"""``crawlab lab NAME --replot`` on an edited CSV: a cell that is not of the type the lab writes
in its column is refused in one line naming the file, the line and the column (exit 2), and a
table that passes those checks yet breaks the lab's figure code is one line,
never a raw Python message or a traceback (found by an adversarial tester)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from crawlers.cli import main
from labs.harness import LabError, run_lab

pytest.importorskip("matplotlib")

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _edit(path: Path, row: int, column: str, value: str) -> None:
    """Set ``column`` of data row ``row`` (0-based) of the CSV ``path`` to ``value``."""
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    rows[row][column] = value
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _copy(lab: str, tmp_path: Path) -> Path:
    shutil.copytree(RESULTS / lab, tmp_path / lab)
    return tmp_path / lab


#: (lab, its CSV, data row, column, value): each a cell unlike the rest of its column. An empty
#: or nan cell passes (a run may write one), and so does a number with a fraction among
#: integers (a run may write a whole mean as an integer beside others that are not).
BAD_CELLS = [
    ("bsp-rx", "bsp-rx.csv", 20, "P", "abc"),
    ("bsp-rx", "bsp-rx.csv", 20, "R_x", "abc"),
    ("bsp-rx", "bsp-rx.csv", 20, "mean_error", "abc"),
    ("bsp-rx", "bsp-rx.csv", 0, "pages", "abc"),
    ("bsp-rx", "bsp-rx.csv", 20, "tolerance", "abc"),
    ("bsp-rx", "bsp-rx.csv", 3, "supersteps", "abc"),
    ("bsp-rx", "bsp-rx.csv", 3, "max_C", "abc"),
    ("bsp-rx", "bsp-rx.csv", 3, "messages", "a\0b"),
    ("pq-time", "by-R.csv", 2, "R", "abc"),
    ("web-server", "web-server.csv", 1, "connections", "many"),
    ("web-server", "web-server.csv", 1, "requests_per_s", "fast"),
]


@pytest.mark.parametrize("lab,name,row,column,value", BAD_CELLS)
def test_replot_refuses_a_cell_of_the_wrong_type_naming_file_line_and_column(
        lab, name, row, column, value, tmp_path):
    folder = _copy(lab, tmp_path)
    _edit(folder / name, row, column, value)
    with pytest.raises(LabError) as caught:
        run_lab(lab, ["--replot", "--quick", "--no-plot", "--out", str(tmp_path)])
    message = str(caught.value)
    assert "\n" not in message
    assert str(folder / name) in message
    assert f"line {row + 2}" in message  # the header is line 1
    assert repr(column) in message


@pytest.mark.parametrize("lab,name,row,column,value", [
    ("bsp-rx", "bsp-rx.csv", 20, "tolerance", "0"),  # no row at tolerance 1,000 any more
    ("bsp-rx", "bsp-rx.csv", 20, "P", "-3"),
    ("bsp-rx", "bsp-rx.csv", None, None, None),  # one data row only
])
def test_replot_of_a_well_typed_table_the_lab_cannot_draw_is_one_line(
        lab, name, row, column, value, tmp_path, capsys):
    """The cells fit their columns, yet the rows are not a run's (one row, a tolerance the lab
    looks up gone): the lab's own exception becomes one line, exit 2, and is
    not mistaken for a missing column."""
    folder = _copy(lab, tmp_path)
    path = folder / name
    if row is None:
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(lines[:2]))
    else:
        _edit(path, row, column, value)
    capsys.readouterr()
    assert main(["lab", lab, "--replot", "--quick", "--no-plot", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "--replot: cannot draw the figure" in err, err
    assert "has no column" not in err, err


def test_replot_names_the_file_of_a_missing_column(tmp_path):
    """A column the lab reads and the table lacks: named with the file it is missing from."""
    folder = _copy("bsp-rx", tmp_path)
    path = folder / "bsp-rx.csv"
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[c for c in rows[0] if c != "mean_error"],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(LabError, match="mean_error") as caught:
        run_lab("bsp-rx", ["--replot", "--quick", "--no-plot", "--out", str(tmp_path)])
    assert str(path) in str(caught.value)


def test_replot_of_the_committed_tables_still_draws(tmp_path):
    """The checks refuse no table a run wrote: every cell of the committed CSVs passes."""
    for lab in ("bsp-rx", "pq-time", "web-server", "crawl-parsers", "extractors",
                "crawl-durability"):
        _copy(lab, tmp_path)
        assert run_lab(lab, ["--replot", "--quick", "--no-plot", "--out", str(tmp_path)]) == 0
