"""The figure style every lab shares (labs/plotstyle.py, applied by labs.harness)."""

from __future__ import annotations

import itertools

import pytest

import frontier
from labs import plotstyle
from labs.harness import Lab, series

matplotlib = pytest.importorskip("matplotlib")

SERIES = [*plotstyle.KNOWN, *frontier.names(), "ex1-bounded-fifo", "a student's", "P = 2"]


def test_every_series_has_its_own_marker_and_line_style(monkeypatch):
    """A series' identity across every lab: no other series has its marker and line style."""
    monkeypatch.setattr(plotstyle, "_extra", {})  # the series this run has not met yet
    looks = {key: plotstyle.look(key) for key in SERIES}
    for a, b in itertools.combinations(looks, 2):
        assert plotstyle.identity(a) != plotstyle.identity(b), (a, b)
        assert (looks[a]["marker"], looks[a]["ls"]) == plotstyle.identity(a)
    assert len(set(plotstyle.IDENTITIES)) == len(plotstyle.IDENTITIES) == 48


@pytest.mark.parametrize("count", [2, 5, 7, 8, 12, 15])
def test_series_of_one_axes_have_distinct_colours_while_the_palette_lasts(count, tmp_path,
                                                                            monkeypatch):
    """However the series are drawn onto one axes (series() or look(key, ax)), they take every
    colour of the palette before two share one, and two that share one differ in line style;
    each keeps its marker and line style."""
    monkeypatch.setattr(plotstyle, "_extra", {})
    lab = _lab(tmp_path)
    fig, (ax, bx) = lab.figure("t", "x", "y", ncols=2)
    names = [*frontier.names(), *plotstyle.KNOWN[:5]][:count]  # tanenbaum/unsynchronized...
    rows = [{"x": x, "y": x * (i + 1), "f": n} for i, n in enumerate(names) for x in (1, 2)]
    series(ax, rows, "x", "y", "f")
    for i, n in enumerate(names):  # one at a time, as a lab's own loop does
        bx.plot([1, 2], [i, i + 1], label=n, **plotstyle.look(n, bx))
    for a in (ax, bx):
        lines = a.get_lines()
        colours = [line.get_color() for line in lines]
        assert len(set(colours)) == min(count, len(plotstyle.PALETTE)), colours
        pairs = [(line.get_color(), line.get_linestyle()) for line in lines]
        assert len(set(pairs)) == count, pairs
        assert [(line.get_marker(), line.get_linestyle()) for line in lines] == \
            [plotstyle.identity(n) for n in names]
    assert plotstyle.shared_colours(fig) == [] and plotstyle.clashes(fig) == []
    matplotlib.pyplot.close(fig)


def test_two_series_of_one_colour_while_a_colour_is_unused_are_caught(tmp_path):
    lab = _lab(tmp_path)
    fig, ax = lab.figure("t", "x", "y")
    blue, orange = plotstyle.PALETTE[:2]
    ax.plot([1, 2], [1, 2], color=blue, marker="o", ls="-", label="a")
    ax.plot([1, 2], [2, 3], color=blue, marker="o", ls="--", label="a, other setting")
    ax.plot([1, 2], [3, 4], color="0.5", marker="s", ls="-", label="grey reference")
    ax.plot([1, 2], [3, 4], color=orange, ls="-", label="no marker: a reference line")
    assert plotstyle.shared_colours(fig) == []  # variants of one series, references
    ax.plot([1, 2], [4, 5], color=blue, marker="s", ls=":", label="b")
    assert plotstyle.shared_colours(fig) == [("a", "b"), ("a, other setting", "b")]
    matplotlib.pyplot.close(fig)
    fig, ax = lab.figure("t", "x", "y")  # every colour taken: sharing with another line style
    for i, colour in enumerate(plotstyle.PALETTE):
        ax.plot([1, 2], [i, i], color=colour, marker=plotstyle.MARKERS[i], ls="-", label=str(i))
    ax.plot([1, 2], [9, 9], color=blue, marker="X", ls="--", label="x")
    assert plotstyle.shared_colours(fig) == []
    ax.plot([1, 2], [8, 8], color=blue, marker="d", ls="-", label="y")
    assert plotstyle.shared_colours(fig) == [("0", "y")]
    matplotlib.pyplot.close(fig)


def test_unsynchronized_and_cbt_differ_and_keep_their_look():
    u, c = plotstyle.look("unsynchronized"), plotstyle.look("cbt")
    assert u != c and u == plotstyle.look("unsynchronized")
    assert all(col in plotstyle.PALETTE for col in (u["color"], c["color"]))


@pytest.mark.parametrize("runs, note", [
    ([1], "1 run"), ([2, 2], "median of 2 runs"), ([3], "median of 3 runs, bars min-max"),
    ([1, 5], "median of 1-5 runs, bars min-max where 3 or more"),
])
def test_the_title_says_how_many_runs(runs, note):
    assert plotstyle.runs_note(runs) == note


def _lab(tmp_path):
    return Lab("style-test", "A test lab.", ["--out", str(tmp_path)])


@pytest.mark.parametrize("repeats, bars", [(2, False), (3, True)])
def test_spread_is_drawn_only_from_three_runs(repeats, bars, tmp_path):
    lab = _lab(tmp_path)
    fig, ax = lab.figure("t", "x", "y")
    rows = [{"x": x, "y": x + r, "f": "monitor"} for x in (1, 2) for r in range(repeats)]
    drawn = series(ax, rows, "x", "y", "f")
    assert [p["runs"] for p in drawn["monitor"]] == [repeats, repeats]
    assert bool(ax.collections) is bars  # the error bars are a LineCollection
    line = ax.lines[0]
    look = plotstyle.look("monitor")
    assert (line.get_marker(), line.get_linestyle()) == (look["marker"], look["ls"])
    matplotlib.pyplot.close(fig)


def test_saved_figures_are_readable_and_stamped_with_the_interpreter(tmp_path):
    lab = _lab(tmp_path)
    fig, (a, b) = lab.figure("t", "x", "y", ncols=2, size=(16, 4))
    a.legend(handles=a.plot([1, 2], [1, 2], label="tiny")[:1], fontsize=5)
    texts = []
    fig.savefig = lambda *args, **kw: texts.extend(  # what would be drawn
        t for t in fig.findobj(matplotlib.text.Text) if t.get_text())
    lab.save(fig, interpreter="CPython 3.13.1t · GIL off")
    assert fig.get_size_inches()[0] <= plotstyle.MAX_WIDTH
    stamp = [t for t in texts if "cores" in t.get_text()]
    assert len(stamp) == 1 and "CPython 3.13.1t · GIL off" in stamp[0].get_text()
    assert "GIL on" not in stamp[0].get_text()
    assert min(t.get_fontsize() for t in texts if t not in stamp) >= plotstyle.MIN_FONT


@pytest.mark.parametrize("lab, csv_arg", [
    ("frontier-bench", "frontier-bench/frontier-bench.csv"),
    ("crawl-threads", "crawl-threads"),
    ("crawl-capacity", "crawl-capacity/crawl-capacity.csv"),
    ("gil-side-by-side", "gil-side-by-side/gil-side-by-side.csv"),
    ("scaling", "scaling/scaling.csv"),
])
def test_a_committed_figure_is_redrawn_with_the_stamp_of_its_csv(lab, csv_arg, tmp_path,
                                                                  monkeypatch):
    """--from-csv measures nothing and stamps the figure with the machine, date and commit of
    the rows it draws, not with the machine that redraws them."""
    import csv as csvmod

    import matplotlib.figure

    from labs.harness import run_lab

    results = plotstyle.__file__.rsplit("/labs/", 1)[0] + "/docs/results"
    path = f"{results}/{csv_arg}"
    first = path if path.endswith(".csv") else f"{path}/{lab}.csv"
    with open(first, newline="") as f:
        row = next(csvmod.DictReader(f))
    stamps = []
    real_text = matplotlib.figure.Figure.text

    def text(fig, x, y, s, *args, **kwargs):
        if "cores" in s:
            stamps.append(s)
        return real_text(fig, x, y, s, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "text", text)
    figures = []
    readable = plotstyle.enforce_readable
    monkeypatch.setattr(plotstyle, "enforce_readable",
                        lambda fig, skip=(): (figures.append(fig), readable(fig, skip))[1])
    assert run_lab(lab, ["--from-csv", path, "--out", str(tmp_path)]) == 0
    assert figures and all(plotstyle.clashes(f) == [] == plotstyle.shared_colours(f)
                           for f in figures), \
        [(plotstyle.clashes(f), plotstyle.shared_colours(f)) for f in figures]
    assert stamps and all(row["commit"][:10] in s and row["date"][:10] in s for s in stamps)
    assert all(f"load {row['machine_load_1min']}" in s for s in stamps)
    written = sorted(p.name for p in (tmp_path / lab).iterdir() if p.suffix != ".png")
    assert written == (["usl.csv"] if lab == "scaling" else [])  # scaling fits its model again
    assert len(list((tmp_path / lab).glob("*.png"))) == len(stamps)


def test_two_series_that_look_the_same_are_a_clash(tmp_path):
    lab = _lab(tmp_path)
    fig, ax = lab.figure("t", "x", "y")
    ax.plot([1, 2], [1, 2], color="C0", marker="o", ls="-", label="a")
    ax.plot([1, 2], [3, 4], color="C1", marker="o", ls="-", label="b")
    assert plotstyle.clashes(fig) == []
    ax.plot([1, 2], [5, 6], color="C0", marker="o", ls="-", label="c")
    ax.plot([1, 2], [1, 2], color="C1", marker="o", ls="-", label="same as b's look and a's data")
    ax.plot([1, 2], [3, 4], color="C1", marker="o", ls="-", label="b again, the same values")
    assert plotstyle.clashes(fig) == [("a", "c"), ("b", "same as b's look and a's data")]
    matplotlib.pyplot.close(fig)
