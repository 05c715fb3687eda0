"""What the labs plot and compare (issue 16, items 7 and 8; issue 19's machine stamp).

Medians of repeats with their spread, never a best run; compared systems run the same number of
times; QH and CBT pay for ordering the keys they extract; the stamp says whether the GIL is on
at run time.
"""

from __future__ import annotations

import csv
import sys
from contextlib import contextmanager

import numpy as np
import pytest

import labs.harness as harness
from labs.harness import machine, series, spread, summarize
from labs.pqbench import order_comparisons, supersteps


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    return plt, fig, ax


def test_series_draws_the_median_of_repeats_with_min_max_bars():
    plt, fig, ax = _axes()
    rows = [{"f": "a", "t": 1, "v": v} for v in (1.0, 5.0, 2.0)] + [
        {"f": "a", "t": 2, "v": 7.0}, {"f": "b", "t": 1, "v": 3.0}, {"f": "b", "t": 1, "v": 4.0}]
    drawn = series(ax, rows, "t", "v", "f")
    assert list(drawn) == ["a", "b"]
    assert drawn["a"] == [{"x": 1, "median": 2.0, "min": 1.0, "max": 5.0, "runs": 3},
                          {"x": 2, "median": 7.0, "min": 7.0, "max": 7.0, "runs": 1}]
    assert drawn["b"][0]["median"] == 3.5
    line = ax.lines[0]  # the line through the points is the medians'
    assert list(line.get_ydata()) == [2.0, 7.0]
    # error bars span min..max, drawn only where there are 3 runs or more: a's first point
    # (3 runs), not its second (1 run), and none for b (2 runs)
    assert len(ax.containers) == 1
    bars = ax.containers[0].lines[2][0].get_segments()
    assert [tuple(seg[:, 1]) for seg in bars] == [(1.0, 5.0)]
    assert [t.get_text() for t in ax.legend().get_texts()] == ["a", "b"]
    plt.close(fig)


def test_summarize_and_spread():
    rows = [{"k": "x", "v": "3"}, {"k": "y", "v": "1"}, {"k": "x", "v": "1"}, {"k": "x", "v": "2"}]
    assert summarize(rows, ["k"], "v") == [
        {"k": "x", "median": 2.0, "min": 1.0, "max": 3.0, "runs": 3},
        {"k": "y", "median": 1.0, "min": 1.0, "max": 1.0, "runs": 1}]
    with pytest.raises(ValueError):
        spread([])


def test_the_stamp_reads_the_gil_at_run_time_not_the_build(monkeypatch):
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: False, raising=False)
    m = machine()
    assert m["gil"] is False
    assert m["free_threaded"] is harness.free_threaded_build()
    monkeypatch.setattr(sys, "_is_gil_enabled", lambda: True, raising=False)
    assert machine()["gil"] is True
    assert "GIL on" in harness.machine_line(machine())


def test_the_note_says_when_the_machine_was_shared():
    assert harness.shared_note({"cores": 2, "load_1min": 0.2}) == ""
    assert "load 3.5 on 2 cores" in harness.shared_note({"cores": 2, "load_1min": 3.5})


# -- quickheap and CBT pay for ordering their R keys ---------------------------------------


def test_ordering_comparisons_are_those_of_a_real_sort():
    rng = np.random.default_rng(1)
    assert order_comparisons([0.5], rng) == 0
    keys = list(np.random.default_rng(2).random(1000))
    n = order_comparisons(keys, rng)
    assert 999 <= n <= 1000 * 10  # a comparison sort of 1,000 random keys: ~ n log2 n
    assert n > 5000


@pytest.mark.parametrize("kind", ["quickheap", "cbt"])
def test_extract_top_counts_the_ordering_of_its_keys(kind):
    opts = {"count_comparisons": True}
    if kind == "cbt":
        opts["chunk"] = 200
    found = supersteps(kind, 5_000, 200, 5, count_order=True, **opts)
    plain = supersteps(kind, 5_000, 200, 5, **opts)
    assert found["order_comparisons"] > 5 * 199  # at least R - 1 per extract-top
    assert found["comparisons"] == plain["comparisons"] + found["order_comparisons"]


def test_the_binary_heap_pays_nothing_more_its_pops_are_ordered():
    found = supersteps("heap", 5_000, 200, 5, count_order=True, count_comparisons=True)
    assert found["order_comparisons"] == 0


# -- bsp-speedup: the same number of runs for every crawler --------------------------------


def test_bsp_speedup_runs_every_crawler_equally_and_compares_medians(tmp_path, monkeypatch):
    import labs.lab_bsp_speedup as lab

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html></html>")
    rates = {("processes", 1): iter([10.0, 30.0, 20.0]), ("processes", 2): iter([5.0, 50.0, 40.0]),
             ("processes", 4): iter([1.0, 2.0, 3.0]), ("mpi", 1): iter([9.0, 9.0, 9.0]),
             ("mpi", 2): iter([8.0, 8.0, 8.0])}
    scrapy = iter([100.0, 1.0, 2.0])

    def fake_bsp(seeds, procs, part_dir, backend="processes", server=None):
        cpu = {f"{role}_{unit}": 1.0 for role in ("workers", "coordinator", "server")
               for unit in ("cpu_s", "cpu_ms_per_page")}
        return {"pages": 1, "seconds": 1.0, "pages_per_s": next(rates[(backend, procs)]),
                "supersteps": 1, "startup_seconds": 0.0, "errors": 0, "cores_busy": 3.0, **cpu}

    def fake_scrapy(seeds, scratch):
        return {"pages": 1, "seconds": 1.0, "pages_per_s": next(scrapy), "supersteps": "",
                "startup_seconds": "", "errors": 0}

    class Server:
        seed_urls = ["http://127.0.0.1:1/"]

    @contextmanager
    def server(dirs):
        yield Server()

    monkeypatch.setattr(lab, "_sites", lambda lab_, scratch: [site])
    monkeypatch.setattr(lab, "_bsp", fake_bsp)
    monkeypatch.setattr(lab, "_scrapy", fake_scrapy)
    monkeypatch.setattr(lab, "_mpiexec", lambda: "mpiexec")
    monkeypatch.setattr(lab, "_mpi_overhead", lambda procs, rounds: 0.001)
    monkeypatch.setattr(lab, "processes_overhead", lambda procs, rounds: 0.002)
    monkeypatch.setattr(lab, "WebServer", server)
    assert lab.main(["--quick", "--no-plot", "--out", str(tmp_path)]) == 0
    crawls = list(csv.DictReader((tmp_path / "bsp-speedup" / "crawls.csv").open()))
    runs = {}
    for r in crawls:
        runs[(r["crawler"], r["P"])] = runs.get((r["crawler"], r["P"]), 0) + 1
    assert set(runs.values()) == {2} and ("scrapy", "1") in runs  # quick: 2 runs of each
    summary = {(r["crawler"], r["P"]): r
               for r in csv.DictReader((tmp_path / "bsp-speedup" / "summary.csv").open())}
    assert float(summary[("bsp processes", "1")]["pages_per_s_median"]) == 20.0
    assert float(summary[("scrapy", "1")]["pages_per_s_median"]) == 50.5
    assert float(summary[("scrapy", "1")]["pages_per_s_max"]) == 100.0
    assert float(summary[("bsp processes", "2")]["vs_bsp_P1"]) == pytest.approx(27.5 / 20, 0.01)
