"""docs/papers_table.py: verdicts computed from the numbers with a stated tolerance, and the
measured column holds only measured numbers (issue 16, item 5)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def pt():
    sys.path.insert(0, str(DOCS))
    try:
        import papers_table
    finally:
        sys.path.remove(str(DOCS))
    return papers_table


def _dynamic(folder: Path, measured: list[float], model: list[float]) -> None:
    (folder / "bsp-dynamic").mkdir(parents=True, exist_ok=True)
    policies = ["static-random", "static-size", "dynamic-random", "dynamic-size"]
    paper = [6.19, 3.44, 2.50, 0.82]
    (folder / "bsp-dynamic" / "bsp-dynamic.csv").write_text(
        "source,policy,stdev_pct,paper_pct\n" + "".join(
            f"measured,{p},{m},{q}\n" for p, m, q in zip(policies, measured, paper)))
    (folder / "bsp-dynamic" / "model.csv").write_text(
        "source,policy,stdev_pct\n" + "".join(
            f"model,{p},{m}\n" for p, m in zip(policies, model)))


def _row(text: str, ref: str) -> str:
    return text[text.index(ref):].split("   * - ")[0]


def test_the_measured_column_holds_the_measured_stdev_not_the_model(pt, tmp_path):
    _dynamic(tmp_path, [7.77, 3.33, 2.22, 1.11], [9.99, 8.88, 6.66, 5.55])
    row = _row(pt.render(tmp_path), "dynamic, Table 1")
    assert "measured: static-random 7.77 %" in row
    assert "model, not measured: static-random 9.99 %" in row


def test_a_verdict_follows_the_numbers_and_states_its_tolerance(pt, tmp_path):
    _dynamic(tmp_path / "near", [6.0, 3.5, 2.4, 1.0], [0, 0, 0, 0])
    _dynamic(tmp_path / "far", [9.0, 3.5, 2.4, 1.0], [6.19, 3.44, 2.50, 0.82])
    near = _row(pt.render(tmp_path / "near"), "dynamic, Table 1")
    far = _row(pt.render(tmp_path / "far"), "dynamic, Table 1")
    assert "**agrees**" in near and "tolerance 2.0" in near
    assert "**differs**" in far and "2.81 percentage points" in far  # the model is not used


def test_pq_comparisons_verdict(pt, tmp_path):
    (tmp_path / "pq-comparisons").mkdir()
    csv = tmp_path / "pq-comparisons" / "pq-comparisons.csv"
    csv.write_text("source,R,QH/BH\nmeasured,10,1.1\nmeasured,100,0.95\nmeasured,1000,0.8\n")
    assert pt.verdict_pq_comparisons(tmp_path)[0] == "agrees"
    csv.write_text("source,R,QH/BH\nmeasured,10,1.1\nmeasured,100,1.2\nmeasured,1000,1.3\n")
    assert pt.verdict_pq_comparisons(tmp_path)[0] == "differs"


def test_no_verdict_without_numbers(pt, tmp_path):
    text = pt.render(tmp_path)
    assert text.count("no verdict: not measured") == len(pt.CLAIMS)


def test_the_committed_table_states_a_verdict_for_every_measured_claim(pt):
    text = pt.render(DOCS / "results")
    for claim in pt.CLAIMS:
        found = claim.verdict(DOCS / "results")
        assert found is not None and found[0] in ("agrees", "differs", "not reproduced")
        assert f"**{found[0]}**: {found[1]}" in " ".join(text.split())
