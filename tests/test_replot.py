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
             "crawl-races", "bsp-rx", "crawl-parsers", "crawl-quality")


@pytest.mark.parametrize("lab", REPLOTTED)
def test_replot_redraws_the_committed_figure_without_measuring(lab, tmp_path, capsys,
                                                              monkeypatch):
    figures = []
    readable = plotstyle.enforce_readable
    monkeypatch.setattr(plotstyle, "enforce_readable",
                        lambda fig, skip=(): (figures.append(fig), readable(fig, skip))[1])
    shutil.copytree(RESULTS / lab, tmp_path / lab)
    (tmp_path / lab / f"{lab}.png").unlink()
    csvs = {p.name: p.read_bytes() for p in (tmp_path / lab).glob("*.csv")}
    assert run_lab(lab, ["--replot", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "--replot: nothing measured" in out and "# wrote" in out
    assert {p.name: p.read_bytes() for p in (tmp_path / lab).glob("*.csv")} == csvs
    with PIL.open(tmp_path / lab / f"{lab}.png") as png:
        assert png.width <= plotstyle.MAX_WIDTH * plotstyle.DPI, png.size
    assert figures and all(plotstyle.clashes(fig) == [] for fig in figures), \
        [plotstyle.clashes(fig) for fig in figures]
    assert all(plotstyle.shared_colours(fig) == [] for fig in figures), \
        [plotstyle.shared_colours(fig) for fig in figures]  # a colour left, yet two share one
    with PIL.open(RESULTS / lab / f"{lab}.png") as committed:  # the book's is a replot as well
        assert committed.width <= plotstyle.MAX_WIDTH * plotstyle.DPI, committed.size


@pytest.mark.parametrize("lab", REPLOTTED)
@pytest.mark.parametrize("damage", ["foreign", "column-missing"])
def test_replot_of_a_csv_the_lab_did_not_write_is_one_line_and_exit_2(lab, damage, tmp_path,
                                                                     capsys):
    """A CSV of another program, or one without a column the lab reads (an older version's):
    a LabError naming --replot (the command prints it in one line, exit 2), never a
    KeyError traceback (found by an adversarial reading)."""
    import csv

    from labs.harness import LabError

    shutil.copytree(RESULTS / lab, tmp_path / lab)
    for path in sorted((tmp_path / lab).glob("*.csv")):
        if damage == "foreign":
            path.write_text("a,b\n1,2\n")
            continue
        rows = list(csv.DictReader(path.open()))
        keep = [c for c in rows[0] if c in ("source", "date", "commit", "note")
                or c.startswith("machine_")]
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keep)
            writer.writeheader()
            writer.writerows({k: r[k] for k in keep} for r in rows)
    with pytest.raises(LabError, match="--replot"):
        run_lab(lab, ["--replot", "--quick", "--no-plot", "--out", str(tmp_path)])


def test_every_figure_the_book_shows_exists_and_a_lab_draws_it():
    """Each ``.. image::`` of a results PNG names a file that is there, in the folder of a lab
    (``crawlab lab NAME``) or of docs/explore_results.py; none is drawn by hand."""
    import re

    from labs.harness import lab_modules

    docs = RESULTS.parent
    producers = set(lab_modules()) | {"explore"}
    shown = 0
    for page in docs.rglob("*.rst"):
        for ref in re.findall(r"\.\. (?:image|figure):: (\S+\.png)", page.read_text()):
            path = (page.parent / ref).resolve()
            assert path.is_file(), f"{page.name}: {ref} does not exist"
            parts = path.relative_to(RESULTS).parts
            folder = next(p for p in parts[:-1] if p not in ("full", "free-threaded")
                          and not p.startswith("host-"))
            assert folder in producers, f"{page.name}: {ref} is drawn by no lab"
            shown += 1
    assert shown > 30


#: Figures the book shows that are wider than the house style, each with its owner's fix; a
#: figure not listed here that is too wide fails (remove an entry when its figure is redrawn).
NOT_YET_RESTYLED: dict[str, str] = {}


def test_every_figure_the_book_shows_fits_the_house_width():
    import re

    docs = RESULTS.parent
    wide = set()
    for page in docs.rglob("*.rst"):
        for ref in re.findall(r"\.\. (?:image|figure):: (\S+\.png)", page.read_text()):
            path = (page.parent / ref).resolve()
            with PIL.open(path) as png:
                if png.width > plotstyle.MAX_WIDTH * plotstyle.DPI:
                    wide.add(path.relative_to(RESULTS).as_posix())
    assert wide <= set(NOT_YET_RESTYLED), wide - set(NOT_YET_RESTYLED)
