"""Every lab that takes its rows through ``Lab.rows`` redraws its figure from the committed CSVs
with ``--replot``: nothing measured, the CSVs untouched, the figure in the house style's width."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from labs import plotstyle
from labs.harness import run_lab

pytest.importorskip("matplotlib")
PIL = pytest.importorskip("PIL.Image")

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
REPLOTTED = ("pq-time", "pq-slices", "extractors", "web-server", "crawl-durability",
             "crawl-races", "bsp-rx")


@pytest.mark.parametrize("lab", REPLOTTED)
def test_replot_redraws_the_committed_figure_without_measuring(lab, tmp_path, capsys):
    shutil.copytree(RESULTS / lab, tmp_path / lab)
    (tmp_path / lab / f"{lab}.png").unlink()
    csvs = {p.name: p.read_bytes() for p in (tmp_path / lab).glob("*.csv")}
    assert run_lab(lab, ["--replot", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "--replot: nothing measured" in out and "# wrote" in out
    assert {p.name: p.read_bytes() for p in (tmp_path / lab).glob("*.csv")} == csvs
    with PIL.open(tmp_path / lab / f"{lab}.png") as png:
        assert png.width <= plotstyle.MAX_WIDTH * plotstyle.DPI, png.size
    with PIL.open(RESULTS / lab / f"{lab}.png") as committed:  # the book's is a replot as well
        assert committed.width <= plotstyle.MAX_WIDTH * plotstyle.DPI, committed.size
