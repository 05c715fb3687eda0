"""The crawl-parsers lab's comparison: rounds, per-round ratios, mirrors enough for the limit."""

from __future__ import annotations

import csv
import importlib.util
import math

import pytest

from crawlers.cli import main as crawlab
from labs import lab_crawl_parsers as lab

HAVE_SCRAPY = importlib.util.find_spec("scrapy") is not None


def test_mirrors_are_enough_for_the_page_limit():
    assert lab.mirrors_for(400, 48) == 10  # 480 pages served, 20% to spare
    assert lab.mirrors_for(1000, 48) == 25
    assert lab.mirrors_for(10, 48) == 4  # never fewer than 4
    assert lab.mirrors_for(100, 0) == 120  # no file counted: one page per mirror


def test_spread_is_median_min_max():
    assert lab.spread([3.0, 2.5, 4.0]) == {"median": 3.0, "min": 2.5, "max": 4.0}
    assert lab.spread([2.0, 4.0]) == {"median": 3.0, "min": 2.0, "max": 4.0}
    assert all(math.isnan(v) for v in lab.spread([]).values())


@pytest.fixture()
def little_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<a href="a.html">a</a> <a href="b.html#x">b</a>')
    (site / "a.html").write_text('<a href="b.html">b</a>')
    (site / "b.html").write_text('<a href="index.html">home</a>')
    return site


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_round_crawls_at_1_and_16_threads_and_scrapy(little_site, tmp_path, capsys):
    out = tmp_path / "out"
    status = crawlab(["lab", "crawl-parsers", "--quick", "--site-dir", str(little_site),
                      "--mirrors", "2", "--max-pages", "5", "--rounds", "2", "--no-plot",
                      "--out", str(out)])
    assert status == 0
    printed = capsys.readouterr().out
    rows = _rows(out / "crawl-parsers" / "crawl-parsers.csv")
    lxml = [r for r in rows if r["parser"] == "lxml"]
    assert sorted((int(r["threads"]), int(r["round"])) for r in lxml) == [
        (1, 1), (1, 2), (2, 1), (4, 1), (8, 1), (16, 1), (16, 2)]
    assert all(int(r["pages"]) == 5 for r in lxml)
    assert sorted(int(r["threads"]) for r in rows if r["parser"] == "bs4") == [1, 2, 4, 8, 16]
    scrapy = [r for r in rows if r["parser"] == "scrapy"]
    if not HAVE_SCRAPY:
        assert scrapy == [] and "scrapy is not installed" in printed
        return
    assert sorted(int(r["round"]) for r in scrapy) == [1, 2]
    ratios = {int(r["round"]): float(r["vs_scrapy_same_round"]) for r in lxml
              if r["threads"] == "16"}
    by_round = {int(r["round"]): float(r["pages_per_s"]) for r in scrapy}
    for k, ratio in ratios.items():  # each 16-thread crawl against the Scrapy crawl of its round
        ours = next(float(r["pages_per_s"]) for r in lxml
                    if r["threads"] == "16" and int(r["round"]) == k)
        assert ratio == pytest.approx(ours / by_round[k], rel=1e-6)
    summary = _rows(out / "crawl-parsers" / "crawl-parsers-vs-scrapy.csv")[0]
    assert int(summary["rounds"]) == 2
    assert float(summary["ratio_median"]) == pytest.approx(sum(ratios.values()) / 2, rel=1e-6)
    assert float(summary["ratio_min"]) == pytest.approx(min(ratios.values()), rel=1e-6)
    assert "over 2 rounds" in printed


def test_zero_rounds_is_one_line_and_status_2(capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        crawlab(["lab", "crawl-parsers", "--rounds", "0", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rounds: must be a positive integer" in err
