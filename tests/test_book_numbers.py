"""The book's numbers come from the committed CSVs through one generation step (issue 16, 6).

``docs/regenerate_figures.py --render-only`` renders ``docs/results/numbers.inc`` (the numbers
the prose quotes, :mod:`book_numbers`) and ``docs/results/papers-table.inc`` from the CSVs;
these tests render them again and compare, and check that the pages quote numbers only
through the generated substitutions.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"


@pytest.fixture(scope="module")
def book_numbers():
    sys.path.insert(0, str(DOCS))
    try:
        import book_numbers
        import regenerate_figures
    finally:
        sys.path.remove(str(DOCS))
    book_numbers.regenerate = regenerate_figures
    return book_numbers


def test_committed_generated_text_is_what_the_committed_csvs_give(book_numbers):
    for path, text in book_numbers.regenerate.render(RESULTS).items():
        assert path.read_text() == text, (
            f"{path.name} is stale: run python docs/regenerate_figures.py --render-only")


def test_a_number_in_the_prose_follows_its_csv(book_numbers, tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "pq-comparisons" / "pq-comparisons.csv"
    rows = list(csv.DictReader(path.open(newline="")))
    for value, shown in (("0.123", "0.12"), ("2.456", "2.46")):
        next(r for r in rows if r["R"] == "1000")["QH/BH"] = value
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        text = book_numbers.render(copy)
        assert f".. |pqc_qh_bh_1000| replace:: {shown}\n" in text
        assert text != (RESULTS / "numbers.inc").read_text()


def test_checked_pages_quote_only_generated_numbers(book_numbers):
    names = {n.name for n in book_numbers.NUMBERS}
    for page, allowed in book_numbers.PAGES.items():
        text = (DOCS / page).read_text()
        used = set(re.findall(r"\|([a-z0-9_]+)\|", text))
        assert used <= names, (page, used - names)
        if used:
            assert re.search(r"^\.\. include:: (\.\./)*results/numbers\.inc$", text, re.M), page
        typed = [t for t in book_numbers.typed_numbers(text) if t not in allowed]
        assert typed == [], f"{page} types measured-looking numbers by hand: {typed}"


def test_a_hand_typed_number_is_found(book_numbers):
    text = ("QH/BH is |pqc_qh_bh_10| at R = 10 and 0.87 at R = 1,000, ``3.4 R`` in code;\n"
            "the CBT ran at 0.74x, and 43 % fewer.\n.. image:: results/x-1.5.png\n")
    assert book_numbers.typed_numbers(text) == ["0.87", "0.74x", "43 %"]


def test_every_number_names_an_existing_csv_column(book_numbers):
    values = book_numbers.values(RESULTS)
    assert set(values) == {n.name for n in book_numbers.NUMBERS}
    assert all(v.strip() for v in values.values())


def test_render_only_takes_no_lab_and_bad_input_is_one_line(tmp_path):
    script = DOCS / "regenerate_figures.py"
    for argv in (["--render-only", "pq-time"], ["no-such-lab"]):
        run = subprocess.run([sys.executable, str(script), *argv], capture_output=True,
                             text=True, timeout=60, cwd=ROOT)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr


def test_book_numbers_script_reports_a_missing_csv_in_one_line(tmp_path):
    run = subprocess.run([sys.executable, str(DOCS / "book_numbers.py"), "--results",
                          str(tmp_path), "--out", str(tmp_path / "n.inc")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "missing" in run.stderr and "Traceback" not in run.stderr
