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
