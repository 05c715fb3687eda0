"""docs/papers_table.py: the papers' numbers beside ours, "not yet measured" when a lab has no
CSV, and one-line errors for bad input."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "papers_table.py"
RESULTS = ROOT / "docs" / "results"


@pytest.fixture(scope="module")
def papers_table():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import papers_table
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return papers_table


def test_empty_results_say_not_yet_measured(papers_table, tmp_path):
    text = papers_table.render(tmp_path)
    rows = text.split("Every lab's measurements")[0]
    assert rows.count("not yet measured") == len(papers_table.CLAIMS)
    for claim in papers_table.CLAIMS:
        assert claim.says.split()[0] in rows


def test_a_measured_csv_puts_our_numbers_beside_the_papers(papers_table, tmp_path):
    (tmp_path / "pq-slices").mkdir()
    (tmp_path / "pq-slices" / "efficiency.csv").write_text(
        "T,CBT_extract,CBT_insert,machine_cores,machine_gil\n"
        "1,1.0,1.0,2,True\n2,0.912,0.876,2,True\n")
    text = papers_table.render(tmp_path)
    row = text[text.index("pq, Table 1"):].split("* - ")[0]
    assert "T=2 0.99/0.98" in row  # the paper's, typed once in the script
    assert "T=2: 0.912/0.876" in row  # ours, read from the CSV
    assert "measured on 2 cores" in text  # the machine stamp of the CSV's table


def test_the_committed_table_uses_the_committed_csvs(papers_table):
    """Our column of the pq row shows the numbers of the committed efficiency CSV, each one."""
    import csv

    text = papers_table.render(RESULTS)
    with open(RESULTS / "pq-slices" / "efficiency.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    row = text[text.index("pq, Table 1"):].split("* - ")[0]
    for r in rows:
        ours = (f"T={r['T']}: {papers_table.fmt(float(r['CBT_sample_extract']))}/"
                f"{papers_table.fmt(float(r['CBT_sample_insert']))}")
        assert ours in row, (ours, row)


def test_script_writes_where_told_and_rejects_a_missing_folder(tmp_path):
    out = tmp_path / "table.inc"
    shutil.copytree(RESULTS / "pq-comparisons", tmp_path / "res" / "pq-comparisons")
    run = subprocess.run([sys.executable, str(SCRIPT), "--results", str(tmp_path / "res"),
                          "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "QH/BH comparisons per key" in out.read_text()
    bad = subprocess.run([sys.executable, str(SCRIPT), "--results", str(tmp_path / "nope")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no such directory" in bad.stderr
    assert "Traceback" not in bad.stderr


def _tables(text: str) -> list[list[list[str]]]:
    """The rows of every ``list-table`` of a generated reST text, as lists of cells."""
    tables = []
    for block in text.split(".. list-table::")[1:]:
        rows: list[list[str]] = []
        for line in block.splitlines()[1:]:
            if line.startswith("   * - "):
                rows.append([line[7:]])
            elif line.startswith("     - ") and rows:
                rows[-1].append(line[7:])
            elif line.strip() and not line.startswith("   :") and not line.startswith("     "):
                break
        tables.append(rows)
    return tables


def test_every_measurement_table_fits_the_page_at_800_px(papers_table):
    """A CSV wider than the page is split into tables that each fit (each repeating its
    first column): the results page had 30 tables cut at 800 px (Chromium, furo)."""
    assert papers_table.PAGE_CHARS <= 80  # measured: about 82 characters overflow 736 px
    text = papers_table.render(papers_table.RESULTS)
    tables = _tables(text.split("Every lab's measurements")[1])
    assert len(tables) > 30
    for rows in tables:
        widths = [max(len(r[i]) for r in rows) + papers_table.PAD_CHARS
                  for i in range(len(rows[0]))]
        assert len(widths) <= 2 or sum(widths) <= papers_table.PAGE_CHARS, rows[0]
    assert "split in 2 tables to fit the page" in text


def test_a_wide_table_is_split_with_its_first_column_in_each(papers_table):
    header = ["frontier", *(f"column_{i}_long_name" for i in range(8))]
    rows = [["monitor", *("1.23" for _ in range(8))]]
    groups = papers_table.column_groups(header, rows)
    assert len(groups) > 1 and all(g[0] == 0 for g in groups)
    assert sorted({i for g in groups for i in g}) == list(range(9))
    assert papers_table.column_groups(header[:3], [rows[0][:3]]) == [[0, 1, 2]]
