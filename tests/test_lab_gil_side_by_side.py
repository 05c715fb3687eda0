"""The GIL-vs-no-GIL lab's own logic: its ratios, its spread, and its check of the interpreters."""

from __future__ import annotations

import sys
import sysconfig

import pytest

from labs.harness import LabError
from labs.lab_gil_side_by_side import probe, ratio_rows, summarize


def _row(w, interp, f, t, median):
    return {"workload": w, "interpreter": interp, "frontier": f, "threads": t, "median": median}


def test_ratios_are_medians_at_two_threads_over_one_and_free_threaded_over_gil():
    rows = [
        _row("bench", "gil", "lockfree", 1, 400.0), _row("bench", "gil", "lockfree", 2, 200.0),
        _row("bench", "free-threaded", "lockfree", 1, 100.0),
        _row("bench", "free-threaded", "lockfree", 2, 190.0),
        _row("bench", "free-threaded", "monitor", 1, 50.0),  # no T=2 cell: no ratio row
    ]
    got = {(r["interpreter"], r["frontier"]): r for r in ratio_rows(rows)}
    assert set(got) == {("gil", "lockfree"), ("free-threaded", "lockfree")}
    assert got[("free-threaded", "lockfree")]["t2_over_t1"] == pytest.approx(1.9)
    assert got[("gil", "lockfree")]["t2_over_t1"] == pytest.approx(0.5)
    assert got[("free-threaded", "lockfree")]["vs_gil_at_t1"] == pytest.approx(0.25)


def test_summary_is_median_with_its_spread_not_the_best_run():
    s = summarize([3.0, 10.0, 1.0, 4.0, 2.0])
    assert (s["runs"], s["median"], s["min"], s["max"]) == (5, 3.0, 1.0, 10.0)


@pytest.mark.skipif(sysconfig.get_config_var("Py_GIL_DISABLED") == 1, reason="needs a GIL build")
def test_a_gil_interpreter_is_refused_as_the_free_threaded_one():
    assert probe(sys.executable, free_threaded=False)["gil"] is True
    with pytest.raises(LabError, match="not a free-threaded build"):
        probe(sys.executable, free_threaded=True)


def test_the_chapters_amdahl_model_goes_through_the_measured_point():
    import sys
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    sys.path.insert(0, str(docs))
    try:
        import gil_table
    finally:
        sys.path.remove(str(docs))
    assert gil_table.amdahl(1.5, 2) == pytest.approx(1.5)  # through the 2-core point
    assert gil_table.amdahl(2.0, 16) == pytest.approx(16.0)  # no serial share: linear
    assert gil_table.amdahl(1.6, 1000) < 1 / (2 / 1.6 - 1)  # a serial share caps it at 1 / s
    assert gil_table.amdahl(0.8, 16) is None  # slower with 2 threads: nothing to extrapolate


def _ratio(frontier, t2):
    return {"workload": "bench", "interpreter": "free-threaded", "frontier": frontier,
            "t2_over_t1": t2}


@pytest.mark.parametrize("ceiling,lockfree,says", [
    (1.9, 1.5, "0.79 of the ceiling (1.90x): meets the goal of 0.74"),
    (1.9, 1.3, "0.68 of the ceiling (1.90x): is below the goal of 0.74"),
    (1.2, 1.5, "ceiling 1.20x < 1.6x: too busy to judge"),
])
def test_the_lockfree_verdict_is_taken_against_the_ceiling(ceiling, lockfree, says):
    from labs.lab_frontier_bench import PRIVATE
    from labs.lab_gil_side_by_side import lockfree_verdict

    assert lockfree_verdict([_ratio(PRIVATE, ceiling), _ratio("lockfree", lockfree)]).endswith(
        says)
    assert "cannot judge" in lockfree_verdict([_ratio("lockfree", lockfree)])
