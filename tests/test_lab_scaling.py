"""lab scaling (the central figure): the model is fitted only to the thread counts it is told,
the measured points above them check it, and a run whose ceiling says the machine was busy
says so in the table."""

from __future__ import annotations

import csv

import pytest

from labs import lab_scaling as ls
from labs import usl
from labs.harness import gil_enabled
from labs.lab_frontier_bench import PRIVATE


def _rows(interp, name, sigma, kappa, ns, spoil=()):
    out = []
    for n in ns:
        x = 1000 * usl.speedup(n, sigma, kappa) * (0.5 if n in spoil else 1.0)
        out.append({"interpreter": interp, "frontier": name, "threads": n, "runs": 5,
                    "median": x, "min": 0.9 * x, "max": 1.1 * x})
    return out


def test_the_model_is_fitted_below_the_cut_and_checked_above_it():
    """8 cores, fitted to 1-4: σ and κ of the curve come back, and the points 5-8, made half
    of what the law says, show as 50 % off (a fit that took them in would not recover σ)."""
    rows = (_rows("free-threaded", PRIVATE, 0.0, 0.0, range(1, 9))
            + _rows("free-threaded", "lockfree", 0.1, 0.002, range(1, 9), spoil=range(5, 9)))
    model = {m["frontier"]: m for m in ls.fit_rows(rows, ls.default_fit_up_to(8), 8)}
    lf = model["lockfree"]
    assert lf["identified"] and lf["fit_points"] == 4
    assert lf["sigma"] == pytest.approx(0.1, abs=1e-9) and lf["kappa"] == pytest.approx(0.002)
    assert lf["held_out_max_error"] == pytest.approx(1.0)  # the model says twice what was seen
    assert lf["fit"] == "n <= 4; checked on n = 5-8: up to 100 % off"
    assert lf["speedup_64"] == pytest.approx(usl.speedup(64, 0.1, 0.002))


def test_threads_beyond_the_cores_are_neither_fitted_nor_checked():
    rows = (_rows("free-threaded", PRIVATE, 0.05, 0.0, range(1, 5))
            + _rows("free-threaded", "sliced", 0.05, 0.0, [1, 2])
            + _rows("free-threaded", "sliced", 0.9, 0.5, [3, 4]))  # 2 cores: 3, 4 take turns
    model = {m["frontier"]: m for m in ls.fit_rows(rows, 2, 2)}
    s = model["sliced"]
    assert s["fit_points"] == 2 and not s["identified"] and s["sigma"] == pytest.approx(0.05)
    assert "no core count left to check it" in s["fit"] and "κ assumed" in s["fit"]


def test_a_busy_ceiling_is_said_in_the_table_without_the_gil_only():
    rows = [r for interp in ("gil", "free-threaded")
            for r in _rows(interp, PRIVATE, 0.6, 0.0, [1, 2])  # 1.25x: too busy
            + _rows(interp, "lockfree", 0.3, 0.0, [1, 2])]
    model = {(m["interpreter"], m["frontier"]): m for m in ls.fit_rows(rows, 2, 2)}
    assert model["free-threaded", "lockfree"]["fit"].startswith("too busy to judge (ceiling 1.25x)")
    assert not model["gil", "lockfree"]["fit"].startswith("too busy")
    quiet = [r for interp in ("free-threaded",) for r in _rows(interp, PRIVATE, 0.05, 0.0, [1, 2])
             + _rows(interp, "lockfree", 0.3, 0.0, [1, 2])]
    assert not ls.fit_rows(quiet, 2, 2)[1]["fit"].startswith("too busy")


def test_the_figure_is_drawn_again_from_a_csv(tmp_path):
    path = tmp_path / "scaling.csv"
    rows = [{**r, "python": "3.13.15" if r["interpreter"] != "gil" else "3.11.7",
             "gil_enabled": r["interpreter"] == "gil", "cores": 2, "source": "measured",
             "date": "2026-11-25T00:00:00Z", "commit": "abc", "machine_cores": 2}
            for interp in ("gil", "free-threaded")
            for r in _rows(interp, PRIVATE, 0.05, 0.0, [1, 2, 3, 4])
            + _rows(interp, "monitor", 1.0, 0.1, [1, 2, 3, 4])]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert ls.main(["--from-csv", str(path), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "scaling" / "scaling.png").stat().st_size > 10_000
    with open(tmp_path / "out" / "scaling" / "usl.csv", newline="") as f:
        model = {(r["interpreter"], r["frontier"]): r for r in csv.DictReader(f)}
    assert model["gil", "monitor"]["source"] == "model"
    assert float(model["gil", "monitor"]["sigma"]) == pytest.approx(1.0)


def test_a_fit_up_to_below_two_is_one_line_and_exit_2(capsys):
    from crawlers.cli import main

    assert main(["lab", "scaling", "--fit-up-to", "1", "--no-plot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--fit-up-to" in err[0]


@pytest.mark.skipif(not gil_enabled(),
                    reason="measures the GIL panel with this interpreter, which has no GIL here")
def test_a_measured_run_writes_curves_models_and_the_figure(tmp_path):
    """One round, one frontier, the GIL panel only (no free-threaded interpreter given): a
    fresh process measures every cell, and the model rows follow from the measured ones."""
    assert ls.main(["--quick", "--repeats", "1", "--frontier", "monitor",
                    "--free-threaded-python", "", "--out", str(tmp_path)]) == 0
    out = tmp_path / "scaling"
    with open(out / "scaling.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out / "usl.csv", newline="") as f:
        models = list(csv.DictReader(f))
    assert {(r["interpreter"], r["frontier"]) for r in rows} == {("gil", PRIVATE),
                                                                   ("gil", "monitor")}
    assert all(float(r["median"]) > 0 and r["source"] == "measured" for r in rows)
    assert {m["frontier"] for m in models} == {PRIVATE, "monitor"}
    assert (out / "scaling.png").stat().st_size > 10_000
